//! Copier's shared ABI: the names and constants that the runtime (`libcopier`),
//! the service hosts, the pass plugin (`libcopiergen.so`) and the sanitizer
//! runtime must agree on.
//!
//! This crate defines no exported symbols and links nothing: the pass plugin
//! depends on it without pulling the runtime into clang's address space.
#![no_std]

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
/// Measured (2026-11-30, this project's 2-core AMD EPYC KVM guest, AVX2 +
/// ERMS/FSRM, glibc 2.36, load average 3-5 from concurrent builds) with
/// `copier-bench threshold` and `copier-bench copy-parse`: the fixed cost of
/// an asynchronous copy as the caller sees it (submit, service hand-off,
/// csync, reading data the service core wrote) is about 430-450 ns
/// (B − A at 512 B-4 KiB, interleaved A/B medians), which is the time
/// glibc `memcpy` takes for about 8 KiB from a DRAM-resident source (471 ns;
/// 16 KiB: 912 ns). From 16 KiB an overlapped copy of received (cold) data
/// saves at least half of its cost, and the measured copy-use benchmark is
/// within 1.5% of memcpy even with no overlap (ratio 0.985 at 16 KiB, 0.97
/// at 8 KiB, 0.95 at 4 KiB).
pub const DEFAULT_THRESHOLD: usize = 16 * 1024;

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

/// C entry points of libcopier, as the pass plugin calls them.
pub mod symbols {
    /// `void *amemcpy(void *dst, const void *src, size_t n)`.
    pub const AMEMCPY: &str = "amemcpy";
    /// `void *amemmove(void *dst, const void *src, size_t n)`.
    pub const AMEMMOVE: &str = "amemmove";
    /// `void csync(const void *addr, size_t n)`.
    pub const CSYNC: &str = "csync";
    /// `void csync_all(void)`.
    pub const CSYNC_ALL: &str = "csync_all";
    /// `const void *csync_ready_end(const void *addr, size_t n)`: waits like
    /// `csync(addr, n)`, then returns `end >= addr + n` such that no pending
    /// copy writes or reads `[addr, end)`. The pass caches `[addr, end)` in a
    /// loop so later iterations that stay inside it skip the call.
    pub const CSYNC_READY_END: &str = "csync_ready_end";
}

/// `copier_submit` flag: lazy copy (lowest priority; runs only when a `csync`
/// or a dependent copy needs it or its time window expires; dropped when its
/// destination is fully overwritten first).
pub const COPIER_LAZY: u32 = 1;
/// `copier_submit` flag: the ranges may overlap (`memmove` semantics).
pub const COPIER_MOVE: u32 = 2;
