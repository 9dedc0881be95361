//! Copier's shared ABI: the names and constants that the runtime (`libcopier`),
//! the service hosts, the pass plugin (`libcopiergen.so`) and the sanitizer
//! runtime must agree on.
//!
//! This crate defines no exported symbols and links nothing: the pass plugin
//! depends on it without pulling the runtime into clang's address space.
#![no_std]

/// The UAPI header `include/linux/copier.h` as Rust: bindgen's output,
/// committed (so no build needs libclang) and kept fresh by the
/// `tests/uapi.rs` staleness test. Its `const _` blocks assert clang's sizes
/// and offsets; [`tests`] pins the numbers the header promises.
#[allow(non_camel_case_types, non_upper_case_globals, missing_docs)]
#[allow(clippy::all, clippy::undocumented_unsafe_blocks)]
pub mod uapi;

/// Default segment size in bytes (DESIGN.md "segment": a power of two,
/// default 4 KiB). A task of `len` bytes has `len.div_ceil(SEGMENT_SIZE)`
/// segments, each with one bit in its descriptor's completion bitmap.
pub const DEFAULT_SEGMENT_SIZE: usize = 4096;

/// Default inline threshold in bytes: copies shorter than this run
/// synchronously on the caller (after any conflicting pending copy), because
/// the asynchronous path has a fixed cost that a shorter copy cannot repay.
/// Tunable at run time with `COPIER_OPTIONS=threshold=N`. The pass plugin
/// uses it as its default rewrite threshold for constant lengths.
///
/// Derived from the per-task cost `C` (submit, ingest, claim, complete,
/// retire, csync: everything but the bytes). The pass rewrites a copy
/// without knowing its window, so the threshold is the smallest power of
/// two `T` at which a copy with no window at all still costs at most 10%:
/// a stream of such copies kept in flight (`copier-bench stream`), which
/// the service and the caller share on two cores, runs at `2 m / (m + C)`
/// of memcpy for a memcpy time `m`, and that is >= 0.9 when `m >= 0.82 C`.
///
/// Measured 2026-12-01 on this project's machine (2-core Intel Xeon KVM
/// guest, AVX-512, glibc 2.36) with the stream shape run by one thread
/// (`spawn=0:threshold=0`, depth 16, 512 buffers, medians of interleaved
/// runs; `bench/results/runtime-2026-12-01-rtcost.txt`): `C` = 0.87-0.94
/// us per task from 1 to 16 KiB (about 4,600 instructions under
/// callgrind), memcpy 0.63-0.65 us at 8 KiB and 1.24-1.34 us at 16 KiB.
/// So `m >= 0.82 C` first holds at 16 KiB. The model assumes the two
/// cores share the work at that `C`; the two-thread stream measures
/// more (0.45-0.51 at 16 KiB, 0.75-0.88 at 32 KiB, 1.04-1.11 at 64 KiB),
/// which bounds back-to-back copies without any window. A single copy
/// followed by independent work (`copier-bench threshold`, the shape the
/// pass mostly rewrites) breaks even at 12-16 KiB (ratio 1.000 at 16 KiB).
pub const DEFAULT_THRESHOLD: usize = 16 * 1024;

/// A symbol a `copiergen cc --sanitize` executable exports
/// (`-Wl,--export-dynamic-symbol`; defined by CopierSanitizer's runtime):
/// CopierSanitizer is in the process and warns about every `COPIER_OPTIONS`
/// name unknown to both it and libcopier. A copy of libcopier its hooks do
/// not reach (the hidden runtime of a shared object built without
/// `--sanitize`) finds it with `dlsym` and leaves that warning to it, so
/// the name is warned once.
pub const CHECKER_SYMBOL: &str = "__copier_san_checks_options";

/// Names of CopierSanitizer's run-time flags (`sanitizer/src/flags.rs`),
/// which share `COPIER_OPTIONS` with the runtime's options: the runtime
/// ignores these names, the sanitizer ignores the runtime's. A test in the
/// sanitizer keeps this list equal to its flag table.
pub const SANITIZER_OPTIONS: &[&str] = &[
    "halt_on_error",
    "exitcode",
    "abort_on_error",
    "copy_stack_depth",
    "symbolize",
    "print_shadow",
    "intercept_libc",
    "verbosity",
];

/// C entry points of libcopier, as the pass plugin calls them: the
/// reserved names (`__copier_*`), which a program cannot define (C11
/// 7.1.3: identifiers beginning with two underscores are reserved), so a
/// program's own `csync` never takes the calls the pass emits.
///
/// libcopier defines each reserved entry point, and each public name of
/// `copier.h` ([`PUBLIC`]) as a weak alias of it (a one-jump trampoline):
/// in `libcopier.a` a program's own definition of a public name wins the
/// link instead of clashing with it, and `copier.h` declares the public
/// names with asm labels that call the reserved ones directly.
pub mod symbols {
    /// `void *amemcpy(void *dst, const void *src, size_t n)`.
    pub const AMEMCPY: &str = "__copier_amemcpy";
    /// `void *amemmove(void *dst, const void *src, size_t n)`.
    pub const AMEMMOVE: &str = "__copier_amemmove";
    /// `void csync(const void *addr, size_t n)`.
    pub const CSYNC: &str = "__copier_csync";
    /// `void csync_all(void)`.
    pub const CSYNC_ALL: &str = "__copier_csync_all";
    /// `const void *csync_ready_end(const void *addr, size_t n)`: waits like
    /// `csync(addr, n)`, then returns `end >= addr + n` such that no pending
    /// copy writes or reads `[addr, end)`. The pass caches `[addr, end)` in a
    /// loop so later iterations that stay inside it skip the call. All-ones
    /// means that the calling thread has nothing pending at all (the pass
    /// then opens the window below `addr` too); with no pending copy from
    /// `addr` on but some below, the answer is at most [`READY_END_ABOVE`].
    pub const CSYNC_READY_END: &str = "__copier_csync_ready_end";
    /// The largest end [`CSYNC_READY_END`] returns while something is
    /// pending: nothing pending from the range on, but below it perhaps.
    pub const READY_END_ABOVE: usize = usize::MAX - 1;
    /// `void *amemcpy_lazy(void *dst, const void *src, size_t n)`: a lazy
    /// copy (runs when a `csync` or a later copy needs it, or after
    /// `lazy_window_us`).
    pub const AMEMCPY_LAZY: &str = "__copier_amemcpy_lazy";
    /// `void copier_drop(const void *addr, size_t n)`: `csync`, except that
    /// pending lazy copies that only write bytes of the range nobody reads
    /// any more are dropped; the program will not read the range again
    /// before writing it (a `free`, the end of its lifetime).
    pub const DROP: &str = "__copier_drop";
    /// `size_t __copier_pending`: the pending word, non-zero while a copy may
    /// be pending in any thread of the process (or a checker must see every
    /// sync). A compiled program reads it (one acquire load, a plain `mov` on
    /// x86-64) before each guard and calls the runtime only when it is
    /// non-zero; 0 also proves that every copy submitted before the load
    /// (by a thread ordered before it) has completed.
    pub const PENDING: &str = "__copier_pending";
    /// The write/send family with absorption (issue 10): each entry point
    /// has the signature of the libc function it stands for, and behaves as
    /// `csync` of what that call reads followed by the call, except that the
    /// kernel reads still-pending bytes from the copies' sources and the
    /// copies stay pending. `(libc name, entry point)`. (`copier_fwrite`
    /// is not here: stdio takes the bytes at once, so it is `csync` and
    /// `fwrite`, which the pass's own guard already does.)
    pub const ABSORBING: &[(&str, &str)] = &[
        ("write", "__copier_write"),
        ("writev", "__copier_writev"),
        ("pwrite", "__copier_pwrite"),
        ("pwrite64", "__copier_pwrite"),
        ("pwritev", "__copier_pwritev"),
        ("pwritev64", "__copier_pwritev"),
        ("send", "__copier_send"),
        ("sendto", "__copier_sendto"),
        ("sendmsg", "__copier_sendmsg"),
    ];

    /// Every function of `copier.h`: `(public name, reserved name)`. The
    /// reserved name is `__copier_` and the public name without its
    /// `copier_` prefix. libcopier exports both (the public one weak); the
    /// pass and the sanitizer runtime call only the reserved ones.
    pub const PUBLIC: &[(&str, &str)] = &[
        ("amemcpy", AMEMCPY),
        ("amemmove", AMEMMOVE),
        ("amemcpy_lazy", AMEMCPY_LAZY),
        ("amemcpy_handler", "__copier_amemcpy_handler"),
        ("csync", CSYNC),
        ("csync_all", CSYNC_ALL),
        ("csync_ready_end", CSYNC_READY_END),
        ("copier_drop", DROP),
        ("copier_submit", "__copier_submit"),
        ("copier_wait", "__copier_wait"),
        ("copier_query", "__copier_query"),
        ("copier_write", "__copier_write"),
        ("copier_writev", "__copier_writev"),
        ("copier_pwrite", "__copier_pwrite"),
        ("copier_pwritev", "__copier_pwritev"),
        ("copier_send", "__copier_send"),
        ("copier_sendto", "__copier_sendto"),
        ("copier_sendmsg", "__copier_sendmsg"),
        ("copier_fwrite", "__copier_fwrite"),
    ];

    /// The public name of the reserved entry point `reserved` (for remarks
    /// and messages: `__copier_csync` reads `csync`); `reserved` itself
    /// when it has none. (`#[inline]`: codegen'd only where it is used,
    /// never into libcopier, which a static link would pull it in from.)
    #[inline]
    pub fn public_name(reserved: &str) -> &str {
        PUBLIC.iter().find(|(_, r)| *r == reserved).map_or(reserved, |(p, _)| p)
    }

    /// Whether `name` is one of libcopier's reserved symbols: an entry
    /// point of [`PUBLIC`], a site entry point ([`super::site`]) or the
    /// pending word. A program that defines one cannot link with
    /// libcopier. (`#[inline]`, as [`public_name`].)
    #[inline]
    pub fn is_reserved(name: &str) -> bool {
        name == PENDING || name == super::site::AMEMCPY || name == super::site::AMEMMOVE || PUBLIC.iter().any(|(_, r)| *r == name)
    }
}

/// The layout of `struct copier_site`, the per-call-site record CopierGen
/// emits (zero-initialised after its header) and passes to
/// `__copier_amemcpy_site`: `{ const char *file; u32 line, col; const char
/// *function; u32 state; u32 registered; u64 counters[8]; }`, 8-aligned.
pub mod site {
    /// Size in bytes.
    pub const SIZE: usize = 96;
    /// Offset of the `u32` state word the compiled code tests.
    pub const STATE_OFFSET: usize = 24;
    /// Counters after the header (`u64` each).
    pub const COUNTERS: usize = 8;
    /// State: still observing.
    pub const LEARNING: u32 = 0;
    /// State: its copies paid; they stay asynchronous.
    pub const ASYNC: u32 = 1;
    /// State: its copies never paid; they run inline.
    pub const INLINE: u32 = 2;
    /// `void *__copier_amemcpy_site(void *dst, const void *src, size_t n,
    /// struct copier_site *site)`.
    pub const AMEMCPY: &str = "__copier_amemcpy_site";
    /// `void *__copier_amemmove_site(...)`, as [`AMEMCPY`].
    pub const AMEMMOVE: &str = "__copier_amemmove_site";
}

/// `copier_submit` flag: lazy copy (lowest priority; runs only when a `csync`
/// or a dependent copy needs it or its time window expires; dropped when its
/// destination is fully overwritten first).
pub const COPIER_LAZY: u32 = 1;
/// `copier_submit` flag: the ranges may overlap (`memmove` semantics).
pub const COPIER_MOVE: u32 = 2;

/// What [`parse_size`] accepts, for messages about a value it rejected
/// ("expected {SIZE_SYNTAX}").
pub const SIZE_SYNTAX: &str = "a size in bytes (digits with an optional k, m or g suffix)";

/// Whether `s`, which [`parse_size`] rejected, has its syntax (digits and
/// an optional suffix) and only its value does not fit in 64 bits.
pub fn size_overflows(s: &str) -> bool {
    let t = s.trim();
    let digits = t.strip_suffix(['k', 'K', 'm', 'M', 'g', 'G']).unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// What to say of a value [`parse_size`] rejected: [`SIZE_SYNTAX`], or,
/// when it [overflows](size_overflows), that it is too large.
pub fn size_expected(rejected: &str) -> &'static str {
    if size_overflows(rejected) {
        "a size in bytes that fits in 64 bits (at most 18446744073709551615, or 17179869183g)"
    } else {
        SIZE_SYNTAX
    }
}

/// A size in bytes as every Copier option takes it (`COPIER_OPTIONS` sizes,
/// `copiergen --copier-threshold`, the plugin's `-copiergen-threshold`):
/// decimal digits with an optional `k`, `m` or `g` suffix (either case;
/// binary units: `16k` is 16384), surrounding whitespace ignored. `None` for anything else or on overflow.
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, mul) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 1usize << 10),
        b'm' | b'M' => (&s[..s.len() - 1], 1 << 20),
        b'g' | b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<usize>().ok()?.checked_mul(mul)
}

/// A boolean environment value as copiergen and the plugin read them
/// (`COPIERGEN_SHARED`, `COPIERGEN_SANITIZE`): `1`, `true`, `yes`, `on` are
/// true; `0`, `false`, `no`, `off` and the empty string are false (ASCII
/// case and surrounding whitespace ignored); anything else is `None`.
pub fn parse_bool(value: &str) -> Option<bool> {
    let v = value.trim();
    let is = |words: &[&str]| words.iter().any(|w| v.eq_ignore_ascii_case(w));
    if is(&["1", "true", "yes", "on"]) {
        Some(true)
    } else if v.is_empty() || is(&["0", "false", "no", "off"]) {
        Some(false)
    } else {
        None
    }
}

/// A flag's value in `COPIER_OPTIONS` (libcopier's options and
/// CopierSanitizer's flags): what [`parse_bool`] accepts, but not the empty
/// string (`name=` gives no value; a bare `name` is handled by the caller).
pub fn parse_flag(value: &str) -> Option<bool> {
    if value.trim().is_empty() {
        None
    } else {
        parse_bool(value)
    }
}

#[cfg(test)]
mod tests {
    use super::uapi::*;
    use core::mem::{align_of, offset_of, size_of};

    /// The sizes and offsets the header's comments promise (and that
    /// `tests/layout.c` asserts in C): a change is an ABI break.
    #[test]
    fn uapi_layouts() {
        assert_eq!((size_of::<copier_entry>(), align_of::<copier_entry>()), (48, 8));
        assert_eq!(offset_of!(copier_entry, handler), 24);
        assert_eq!(offset_of!(copier_entry, flags), 40);
        assert_eq!((size_of::<copier_desc>(), align_of::<copier_desc>()), (288, 8));
        assert_eq!(offset_of!(copier_desc, nsegs), 8);
        assert_eq!(offset_of!(copier_desc, flags), 16);
        assert_eq!(offset_of!(copier_desc, prefix), 20);
        assert_eq!(offset_of!(copier_desc, done_count), 24);
        assert_eq!(offset_of!(copier_desc, words), 32);
        assert_eq!(size_of::<copier_desc_words>(), 16);
        assert_eq!(COPIER_BITMAP_WORDS * 64, COPIER_MAX_SEGS);
        assert_eq!(size_of::<copier_ring>(), 256);
        assert_eq!(offset_of!(copier_ring, tail), 64);
        assert_eq!(offset_of!(copier_ring, ingested), 128);
        assert_eq!(offset_of!(copier_ring, entries), 192);
        assert_eq!(size_of::<copier_sync_entry>(), 16);
        assert_eq!(size_of::<copier_handler_entry>(), 40);
        assert_eq!(size_of::<copier_setup>(), 64);
        assert_eq!(offset_of!(copier_setup, map_len), 24);
        assert_eq!(size_of::<copier_limits>(), 32);
        assert_eq!(size_of::<copier_stats>(), 80);
        assert_eq!(offset_of!(copier_stats, atc_dma_hits), COPIER_STATS_SIZE_V1 as usize);
        assert_eq!(size_of::<copier_wait>(), 32);
        assert_eq!(offset_of!(copier_entry, region), 44);
        assert_eq!(offset_of!(copier_desc, error), 28);
        assert_eq!(size_of::<copier_bind>(), 32);
        assert_eq!(offset_of!(copier_bind, token), 24);
        assert_eq!(size_of::<copier_unbind>(), 16);
        assert_eq!(size_of::<copier_attach>(), 32);
        assert_eq!(offset_of!(copier_attach, handle), 16);
        assert_eq!(size_of::<copier_detach>(), 8);
    }

    /// Each reserved name is `__copier_` and its public name without the
    /// `copier_` prefix; every absorbing entry point has a public name.
    #[test]
    fn reserved_names_follow_the_public_ones() {
        use super::symbols::*;
        for (public, reserved) in PUBLIC {
            assert_eq!(reserved.strip_prefix("__copier_"), Some(public.strip_prefix("copier_").unwrap_or(public)));
            assert_eq!(public_name(reserved), *public);
            assert!(is_reserved(reserved) && !is_reserved(public));
        }
        assert!(ABSORBING.iter().all(|(_, e)| public_name(e) != *e));
        assert!(is_reserved(PENDING) && is_reserved(super::site::AMEMCPY) && !is_reserved("__copiergen_runtime_anchor"));
    }

    /// The submit flags libcopier's C API takes are the header's.
    #[test]
    fn submit_flags_are_the_headers() {
        assert_eq!(super::COPIER_LAZY, COPIER_F_LAZY);
        assert_eq!(super::COPIER_MOVE, COPIER_F_MOVE);
    }
}

#[cfg(test)]
mod size_tests {
    use super::{parse_size, size_expected, size_overflows, SIZE_SYNTAX};

    #[test]
    fn rejected_sizes_say_why() {
        for bad in ["99999999999999999999999", "18446744073709551616", "17179869184g", " 20000000000000000k "] {
            assert_eq!(parse_size(bad), None, "{bad}");
            assert!(size_overflows(bad) && size_expected(bad).contains("fits in 64 bits"), "{bad}");
        }
        for bad in ["abc", "16q", "-1", "", "k", "1.5m"] {
            assert_eq!(parse_size(bad), None, "{bad}");
            assert!(!size_overflows(bad), "{bad}");
            assert_eq!(size_expected(bad), SIZE_SYNTAX, "{bad}");
        }
        assert_eq!(parse_size("17179869183g"), Some(17179869183 << 30));
    }
}
