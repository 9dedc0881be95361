//! Copy engines (DESIGN.md "engine"): things that move bytes. Layout after
//! memchr's `arch/`: `arch/all` is the portable fallback, `arch/x86_64` holds
//! the ERMS/FSRM `rep movsb` engine, the AVX2 engine (unaligned vector copies,
//! non-temporal stores above [`nt_threshold`]) and the fault-recoverable
//! routines the executors use.
//!
//! Dispatch happens once: [`copy`] goes through an atomic function pointer
//! that starts at a detector, which picks AVX2, then ERMS, then the fallback,
//! stores the choice and calls it (memchr `src/arch/x86_64/memchr.rs`).
//!
//! Which engine runs where:
//! * inline copies (below the threshold, nothing pending) and the
//!   synchronous fallbacks: [`copy`] / [`move_bytes`], the dispatched
//!   engine (AVX2 size classes up to 2 KiB, `rep movsb` to
//!   [`nt_threshold`], non-temporal AVX2 stores above);
//! * asynchronous copies, on the service thread and on helping `csync`
//!   callers: [`copy_recoverable`], `rep movsb` below [`nt_threshold`] and
//!   non-temporal AVX2 stores above, because a fault there must be
//!   recoverable; a waiter whose copy faulted re-executes it with [`copy`].
//!
//! Asynchronous copies are at least the threshold (16 KiB) long, and for
//! those lengths the dispatched engine and glibc's `memcpy` also run
//! `rep movsb` (glibc 2.36 on an FSRM CPU: `x86_rep_movsb_threshold` 2112
//! bytes, `x86_non_temporal_threshold` 3/4 of the per-thread L3 share), so
//! the recoverable routine costs the bytes what `memcpy` costs them; a
//! vector loop in the recoverable range would win nothing there.
//!
//! No engine calls `memcpy`/`memmove`: the runtime must not recurse when a
//! program interposes `memcpy` with `amemcpy`, and the executors' copies must
//! stay inside the recoverable range (see [`copy_recoverable`]).

pub mod arch;

use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Copies at least this long use non-temporal stores (bytes). Default
/// 3/4 of a 32 MiB shared L3 split over 2 cores, like glibc's
/// `x86_non_temporal_threshold`; tunable with `COPIER_OPTIONS=nt_threshold=N`.
pub static NT_THRESHOLD: AtomicUsize = AtomicUsize::new(12 << 20);

/// Current non-temporal threshold in bytes.
#[inline]
pub fn nt_threshold() -> usize {
    NT_THRESHOLD.load(Ordering::Relaxed)
}

type CopyFn = unsafe fn(*mut u8, *const u8, usize);

static COPY_FN: AtomicPtr<()> = AtomicPtr::new(detect as *mut ());

/// Name of the engine [`copy`] dispatches to (`"avx2"`, `"erms"`, `"portable"`).
pub fn engine_name() -> &'static str {
    arch::best().0
}

unsafe fn detect(dst: *mut u8, src: *const u8, n: usize) {
    let f = arch::best().1;
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
    // SAFETY: COPY_FN only ever holds `detect` or a `CopyFn` from `arch::best`.
    let f: CopyFn = unsafe { core::mem::transmute::<*mut (), CopyFn>(p) };
    // SAFETY: forwarded caller contract.
    unsafe { f(dst, src, n) }
}

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
    } else {
        // SAFETY: caller's validity contract; overlap handled by the arch code.
        unsafe { arch::move_overlapping(dst, src, n) }
    }
}

/// The copy faulted (SIGSEGV/SIGBUS) and was abandoned part way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault;

/// Copy `n` bytes (non-overlapping) such that a SIGSEGV/SIGBUS on a bad
/// address returns `Err(Fault)` instead of killing the process. Used by the
/// executors (service thread and helping `csync` callers); the waiter then
/// re-executes the copy with [`copy`] so the program faults on its own thread,
/// as the synchronous `memcpy` would.
///
/// Recovery follows the Linux kernel's exception tables for
/// `copy_from_user` (`Documentation/arch/x86/exception-tables.rst`): the
/// routines live between two labels, and the fault handler
/// ([`crate::fault`]) moves the faulting instruction pointer to a fixup that
/// returns 1. Without the handler installed a fault kills the process.
///
/// # Safety
/// Ranges must not overlap; the bytes may be written part way on `Err`.
#[inline]
pub unsafe fn copy_recoverable(dst: *mut u8, src: *const u8, n: usize) -> Result<(), Fault> {
    // SAFETY: forwarded caller contract.
    unsafe { arch::copy_recoverable(dst, src, n) }
}
