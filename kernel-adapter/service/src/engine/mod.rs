//! Copy engines (DESIGN.md "engine"): things that move bytes. Layout after
//! memchr's `arch/`: `arch/all` is the portable fallback; `arch/x86_64` holds
//! the ERMS/FSRM `rep movsb` engine, the AVX2 engine, the AVX-512 engine, the
//! fault-recoverable routines the executors use (`recover`) and the size
//! thresholds between them (`dispatch`).
//!
//! One [`Engine`] is chosen per process: the best one the CPU and OS run
//! (AVX-512F, then AVX2, then ERMS, then portable; CPUID plus XCR0 through
//! `xgetbv`), or the one `COPIER_OPTIONS=engine=NAME` forces ([`force`]).
//! Synchronous copies dispatch once: [`copy`] goes through an atomic
//! function pointer that starts at a detector, which stores the chosen
//! engine's copy and calls it (memchr `src/arch/x86_64/memchr.rs`).
//! Recoverable copies pick their routine per call from the same choice.
//!
//! Which engine runs where:
//! * caller-inline short copies (below the threshold, nothing pending): up
//!   to 256 bytes the inline fast path's own size classes
//!   (`arch::x86_64::copy_le256`), longer ones a tail jump to glibc's
//!   `memcpy`/`memmove` with `auto`, or to [`copy`] / [`move_bytes`] with a
//!   forced engine; [`caller`] says which classes and routine per option;
//! * synchronous fallbacks (full queue, no service) and the fault
//!   re-execution, where a waiter whose copy faulted copies it again on its
//!   own thread so the program gets the SIGSEGV `memcpy` would raise:
//!   [`copy`], the chosen engine's synchronous routine, outside the
//!   recoverable range;
//! * asynchronous copies, on the service thread and on `csync` callers that
//!   help (their own range, segments ahead of it, their newest copies):
//!   [`copy_recoverable_in`], the chosen engine's recoverable routine for
//!   the claim at hand.
//!
//! Per engine and length (`n` the call's bytes, non-temporal by the whole
//! copy's length against [`nt_threshold`]):
//!
//! | engine | synchronous ([`copy`]) | recoverable ([`copy_recoverable_in`]) |
//! | --- | --- | --- |
//! | avx512 | <= 256: `copy_le256` (zmm); <= 8 KiB: 4 x zmm loop; then `rep movsb` (A); NT: zmm streaming loop | < 256: `rep movsb`; (A); <= 8 KiB: zmm loop; then `rep movsb`; NT: zmm streaming loop |
//! | avx2 | <= 2 KiB: ymm size classes and loop; then `rep movsb` (A); NT: ymm streaming | < 256: `rep movsb`; (A); <= 2 KiB: ymm loop; then `rep movsb`; NT: ymm streaming loop |
//! | erms | <= 32: scalar/xmm; then `rep movsb` | `rep movsb` |
//! | portable | word loop | `rep movsb` (x86-64; no recovery elsewhere) |
//!
//! (A): on AMD and Hygon cores, a copy whose destination lies 1 to 63
//! bytes above its source in page offset (4 KiB aliasing,
//! `arch::x86_64::dispatch::aliasing_4k`) takes the ymm loop instead, where
//! `rep movsb` runs up to 16 times slower. The vector loops load each block
//! before they store the previous one, so such copies do not stall them.
//!
//! # Thresholds
//! Measured with `copier-bench engines` (interleaved rounds, medians and
//! quartiles, under the machine's exclusive lock; the table is in
//! `bench/results/`) on a 2-core AVX-512 Xeon VM (FSRM, 2 MiB L2 per core):
//! * in cache, the zmm loop beats `rep movsb` up to 8 KiB (4 KiB: 24 ns
//!   against 30 ns and glibc's 31 ns) and ties at 16 KiB; from 256 KiB it
//!   loses (1 MiB: 80 us against 49 us), so it stops at 8 KiB. The ymm loop
//!   beats `rep movsb` below 2 KiB only (glibc's 2 KiB threshold too);
//! * non-temporal stores win whenever the destination is not in cache
//!   (4 KiB copies from DRAM: 730 ns against 900 ns; 64 KiB: 7.4 us against
//!   12.1 us) and lose in cache (64 KiB: 3.5 us against 1.6 us); a copy of 8
//!   MiB or more no longer stays in cache (warm 4 MiB: 354 us against 340
//!   us; 8 MiB: 0.60 ms against 0.67 ms; 12 MiB: 0.96 against 2.2 ms), and
//!   streaming an asynchronous 8 MiB copy does not slow the reader that
//!   parses it after `csync` (copy-parse 8 MiB, ratio to memcpy, medians
//!   of 3 runs, streaming against not: 1.107/1.086 fnv1a cold, 1.090/1.078
//!   warm, 1.267/1.190 table cold, 1.178/1.134 warm), so [`nt_threshold`]
//!   is 8 MiB, compared with the whole copy's length: the executors copy a
//!   large task in claims of at most 64 segments, which a per-call rule
//!   would never let stream (a 64 MiB copy in 64 KiB calls: 7.9 ms
//!   streaming, 12.8 ms with `rep movsb`).
//!
//! # Faults
//! The recoverable routines keep `dst` in a register and every byte below
//! the store cursor written, so a fault returns the completed prefix
//! ([`FaultAt`]); the faulting access lies within two loop blocks (eight
//! vectors: the loops load a block ahead) after it. The executor then gives the claim back marked
//! faulted, and the waiter re-executes it with [`copy`].
//!
//! No engine calls `memcpy`/`memmove`: the runtime must not recurse when a
//! program interposes `memcpy` with `amemcpy`, and the executors' copies must
//! stay inside the recoverable range (see [`copy_recoverable`]).

pub mod arch;
pub mod caller;

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, AtomicUsize, Ordering};

/// Copies at least this long use non-temporal stores (bytes; for an
/// asynchronous copy, the whole copy's length). Default 8 MiB, measured
/// (see "Thresholds"); tunable with `COPIER_OPTIONS=nt_threshold=N`.
pub static NT_THRESHOLD: AtomicUsize = AtomicUsize::new(8 << 20);

/// Current non-temporal threshold in bytes.
#[inline]
pub fn nt_threshold() -> usize {
    NT_THRESHOLD.load(Ordering::Relaxed)
}

type CopyFn = unsafe fn(*mut u8, *const u8, usize);

static COPY_FN: AtomicPtr<()> = AtomicPtr::new(detect as *mut ());

/// A CPU engine (DESIGN.md "engine"), best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// 64-byte vectors (AVX-512F; x86-64).
    Avx512,
    /// 32-byte vectors (AVX2; x86-64).
    Avx2,
    /// `rep movsb` (ERMS/FSRM; x86-64).
    Erms,
    /// Word-at-a-time loops (every architecture).
    Portable,
}

impl Engine {
    /// Every engine, best first (the order [`current`] picks in).
    pub const ALL: [Engine; 4] = [Engine::Avx512, Engine::Avx2, Engine::Erms, Engine::Portable];

    /// Name as `COPIER_OPTIONS=engine=` spells it (`avx512`, `avx2`, `erms`,
    /// `portable`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Avx512 => "avx512",
            Engine::Avx2 => "avx2",
            Engine::Erms => "erms",
            Engine::Portable => "portable",
        }
    }

    /// The engine named `s` (see [`Engine::name`]).
    pub fn from_name(s: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.name() == s)
    }

    /// True when this CPU and OS run the engine (CPUID, and XCR0 through
    /// `xgetbv` for the vector state, as std's feature detection reads them).
    pub fn is_available(self) -> bool {
        arch::is_available(self)
    }
}

/// `0`: not chosen yet; else `1 +` the index of the engine in
/// [`Engine::ALL`].
static CHOICE: AtomicU8 = AtomicU8::new(0);

/// The engine copies run on: the one [`force`]d, else the best available.
#[inline]
pub fn current() -> Engine {
    match CHOICE.load(Ordering::Relaxed) {
        0 => {
            let e = Engine::ALL.into_iter().find(|e| e.is_available()).unwrap_or(Engine::Portable);
            CHOICE.store(1 + e as u8, Ordering::Relaxed);
            e
        }
        i => Engine::ALL[usize::from(i - 1)],
    }
}

/// [`force`] was given an engine this CPU or OS does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unavailable(pub Engine);

impl core::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let avail: Vec<&str> = Engine::ALL.into_iter().filter(|e| e.is_available()).map(Engine::name).collect();
        write!(f, "engine '{}' is not available on this CPU (available: {})", self.0.name(), avail.join(", "))
    }
}

/// Run every copy (synchronous and recoverable) on engine `e`, or on the
/// best available one with `None`. Meant for start-up (`COPIER_OPTIONS`),
/// tests and benchmarks: a copy running meanwhile finishes on the engine it
/// started with.
///
/// # Errors
/// [`Unavailable`] when this CPU or OS does not run `e`; nothing changes.
pub fn force(e: Option<Engine>) -> Result<(), Unavailable> {
    if let Some(e) = e {
        if !e.is_available() {
            return Err(Unavailable(e));
        }
    }
    CHOICE.store(e.map_or(0, |e| 1 + e as u8), Ordering::Relaxed);
    FORCED.store(e.is_some(), Ordering::Relaxed);
    let e = current();
    COPY_FN.store(arch::copy_fn(e) as *mut (), Ordering::Relaxed);
    Ok(())
}

/// True while an engine is [`force`]d.
static FORCED: AtomicBool = AtomicBool::new(false);

/// The engine [`force`]d (`COPIER_OPTIONS=engine=NAME`), `None` for `auto`.
pub fn forced() -> Option<Engine> {
    FORCED.load(Ordering::Relaxed).then(current)
}

/// `COPIER_OPTIONS=engine=NAME` as the option table stores it: `auto` is
/// 0, an engine `1 +` its index in [`Engine::ALL`]; `None` for any other
/// name.
pub fn option_value(name: &str) -> Option<usize> {
    match name.trim() {
        "auto" => Some(0),
        n => Engine::from_name(n).map(|e| 1 + e as usize),
    }
}

/// The option values this CPU accepts: `auto`, or an available engine.
pub fn option_ok(v: usize) -> bool {
    v == 0 || Engine::ALL.get(v - 1).is_some_and(|e| e.is_available())
}

/// Apply a stored `engine` option value ([`option_value`]) with [`force`].
///
/// # Errors
/// As [`force`]; a value no name maps to reads as `auto`.
pub fn set_option(v: usize) -> Result<(), Unavailable> {
    force(v.checked_sub(1).and_then(|i| Engine::ALL.get(i).copied()))
}

/// Name of the engine copies run on (`"avx512"`, `"avx2"`, `"erms"`,
/// `"portable"`).
pub fn engine_name() -> &'static str {
    current().name()
}

unsafe fn detect(dst: *mut u8, src: *const u8, n: usize) {
    let f = arch::copy_fn(current());
    COPY_FN.store(f as *mut (), Ordering::Relaxed);
    // SAFETY: forwarded caller contract (see `copy`).
    unsafe { f(dst, src, n) }
}

/// Copy `n` bytes from `src` to `dst` with the best engine of this CPU.
///
/// # Safety
/// As `memcpy`: both ranges valid for `n` bytes and not overlapping.
#[inline]
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    let p = COPY_FN.load(Ordering::Relaxed);
    // SAFETY: COPY_FN only ever holds `detect` or a `CopyFn` of an available
    // engine (`arch::copy_fn(current())`).
    let f: CopyFn = unsafe { core::mem::transmute::<*mut (), CopyFn>(p) };
    // SAFETY: forwarded caller contract.
    unsafe { f(dst, src, n) }
}

/// Shortest distance between an overlapping move's destination above its
/// source at which [`move_bytes`] copies backward in disjoint chunks with
/// [`copy`] instead of the arch's backward block loop.
const MOVE_CHUNK_MIN: usize = 4096;

/// Copy `n` bytes from `src` to `dst`; the ranges may overlap (as `memmove`).
///
/// # Safety
/// Both ranges valid for `n` bytes.
pub unsafe fn move_bytes(dst: *mut u8, src: *const u8, n: usize) {
    let (d, s) = (dst as usize, src as usize);
    if d == s || n == 0 {
        return;
    }
    if d.abs_diff(s) >= n {
        // SAFETY: disjoint ranges, caller's validity contract.
        unsafe { copy(dst, src, n) }
    } else if d > s && d - s >= MOVE_CHUNK_MIN {
        // Backward in chunks of at most `d - s` bytes, last chunk first: each
        // chunk's source and destination are disjoint, and the chunks still
        // to copy lie below every byte written so far.
        let step = d - s;
        let mut end = n;
        while end > 0 {
            let c = end.min(step);
            end -= c;
            // SAFETY: [end, end + c) of both ranges, disjoint since c <= d - s.
            unsafe { copy(dst.add(end), src.add(end), c) };
        }
    } else {
        // SAFETY: caller's validity contract; overlap handled by the arch code.
        unsafe { arch::move_overlapping(dst, src, n) }
    }
}

/// The copy faulted (SIGSEGV/SIGBUS) and was abandoned part way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault;

/// The copy faulted (SIGSEGV/SIGBUS) after its first `done` bytes were
/// copied; the faulting access lies in `[done, n)`, within two loop blocks
/// (at most 256 bytes for the AVX2 routines, 512 for the AVX-512 ones, the
/// faulting byte for `rep movsb`) past `done`. The caller's segment holding byte `done` is the
/// first one to re-execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultAt {
    /// Bytes of the destination already holding the source's (a prefix).
    pub done: usize,
}

/// Copy `n` bytes (non-overlapping) such that a SIGSEGV/SIGBUS on a bad
/// address returns `Err(Fault)` instead of killing the process. Used by the
/// executors (service thread and helping `csync` callers); the waiter then
/// re-executes the copy with [`copy`] so the program faults on its own thread,
/// as the synchronous `memcpy` would. Which routine runs: see the module
/// docs; [`copy_recoverable_at`] also reports how far the copy got.
///
/// Recovery follows the Linux kernel's exception tables for
/// `copy_from_user` (`Documentation/arch/x86/exception-tables.rst`): the
/// routines live between two labels, and the fault handler
/// ([`crate::fault`]) moves the faulting instruction pointer to a fixup that
/// returns the fault. Without the handler installed a fault kills the process.
///
/// # Safety
/// Ranges must not overlap; the bytes may be written part way on `Err`.
#[inline]
pub unsafe fn copy_recoverable(dst: *mut u8, src: *const u8, n: usize) -> Result<(), Fault> {
    // SAFETY: forwarded caller contract.
    unsafe { copy_recoverable_at(dst, src, n) }.map_err(|_| Fault)
}

/// [`copy_recoverable`], reporting the completed prefix of a faulted copy.
///
/// # Safety
/// As [`copy_recoverable`].
#[inline]
pub unsafe fn copy_recoverable_at(dst: *mut u8, src: *const u8, n: usize) -> Result<(), FaultAt> {
    // SAFETY: forwarded caller contract.
    unsafe { copy_recoverable_in(dst, src, n, n) }
}

/// [`copy_recoverable_at`] of `n` bytes that are part of a copy (a task) of
/// `total` bytes: non-temporal stores are chosen by `total` (the executors
/// copy a large task in claims of a few segments, and whether its
/// destination stays in cache depends on the task, not on one claim), the
/// loop by `n`.
///
/// # Safety
/// As [`copy_recoverable`].
#[inline]
pub unsafe fn copy_recoverable_in(dst: *mut u8, src: *const u8, n: usize, total: usize) -> Result<(), FaultAt> {
    // SAFETY: forwarded caller contract; `current()` is available.
    unsafe { arch::copy_recoverable(current(), dst, src, n, total.max(n)) }
}

#[cfg(test)]
mod tests {
    use super::move_bytes;

    /// Overlapping moves in both directions, at distances below, at and
    /// above the chunked path's minimum and lengths that are and are not
    /// multiples of the distance, agree with `copy_within`.
    #[test]
    fn move_bytes_overlapping_agrees_with_copy_within() {
        for n in [1usize, 31, 32, 33, 255, 1000, 4096, 8193, 70_000] {
            for dist in [1usize, 3, 31, 32, 33, 64, 255, 1024, 4095, 4096, 4097, 65_536] {
                if dist >= n {
                    continue;
                }
                for up in [true, false] {
                    let init: Vec<u8> = (0..n + dist).map(|i| (i * 131 + 7) as u8).collect();
                    let (mut got, mut want) = (init.clone(), init);
                    let (from, to) = if up { (0, dist) } else { (dist, 0) };
                    want.copy_within(from..from + n, to);
                    // SAFETY: both ranges lie inside `got` (n + dist bytes).
                    unsafe { move_bytes(got.as_mut_ptr().add(to), got.as_ptr().add(from), n) };
                    assert!(got == want, "n={n} dist={dist} up={up}");
                }
            }
        }
    }
}
