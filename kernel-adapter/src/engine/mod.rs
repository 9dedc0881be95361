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

use core::sync::atomic::{AtomicPtr, AtomicU8, AtomicUsize, Ordering};

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
    let e = current();
    COPY_FN.store(arch::copy_fn(e) as *mut (), Ordering::Relaxed);
    Ok(())
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

/// The copy faulted (SIGSEGV/SIGBUS) after its first `done` bytes were
/// copied; the faulting access lies in `[done, n)`, within one loop block
/// (at most 256 bytes for the vector routines, the faulting byte for `rep
/// movsb`) past `done`. The caller's segment holding byte `done` is the
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
    // SAFETY: forwarded caller contract; `current()` is available.
    unsafe { arch::copy_recoverable(current(), dst, src, n) }
}
