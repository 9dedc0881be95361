//! The C ABI of libcopier (header `runtime/include/copier.h`, generated from
//! this file by cbindgen; `tests/header.rs` fails when it is stale).
//!
//! Semantics (DESIGN.md "Semantics the whole system keeps"): a program that
//! calls `csync` on a range before reading or writing it, and before writing
//! or freeing a source or handing either buffer to another thread or an
//! opaque library, behaves exactly as if every `amemcpy` were a `memcpy` at
//! its call site.

use copier_adapter::backend;
use copier_adapter::gate::{FastPath, MemFn};
use core::ffi::{c_int, c_void};
use core::sync::atomic::Ordering;

/// A descriptor handle from [`copier_submit`]: slot index and generation.
/// 0 means "completed synchronously"; a handle whose generation no longer
/// matches its slot is complete.
#[allow(non_camel_case_types)]
pub type copier_desc = u64;

/// Completion handler: called once with its argument after the copy
/// completes, on the service thread or on a thread that waited for the copy.
/// What a handler may call is listed at [`amemcpy_handler`].
#[allow(non_camel_case_types)]
pub type copier_handler_fn = Option<unsafe extern "C" fn(arg: *mut c_void)>;

/// `copier_submit` flag: lazy copy. It runs only when a `csync` or a
/// dependent copy needs it, or after a time window (`lazy_window_us`); it is
/// dropped when a later copy overwrites its whole destination first.
pub const COPIER_LAZY: u32 = 1;
/// `copier_submit` flag: the ranges may overlap (`memmove` semantics).
pub const COPIER_MOVE: u32 = 2;

/// The inline fast path's gate line (`copier_adapter::gate`), defined here
/// so the entry points below reach it RIP-relative; installed at init.
pub(crate) static FAST: FastPath = FastPath::new();

/// The pending word (`copier_abi::symbols::PENDING`): non-zero while a copy
/// may be pending anywhere in the process or a checker is registered; the
/// gate publishes it (`copier_adapter::gate::install_pending`). Compiled
/// programs read it before every guard; it is not part of `copier.h`.
/// cbindgen:ignore
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static __copier_pending: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

#[inline(always)]
fn handler_word(f: copier_handler_fn) -> usize {
    f.map_or(0, |f| f as usize)
}

/// Submit an asynchronous copy of `n` bytes from `src` to `dst` and return
/// `dst` at once. Copies shorter than the inline threshold run on the spot.
///
/// # Safety
/// As `memcpy`: both ranges valid for `n` bytes. Until a `csync` covering
/// them returns, the program must not read or write `dst` nor write or free
/// `src`.
#[export_name = "__copier_amemcpy"]
pub unsafe extern "C" fn amemcpy(dst: *mut c_void, src: *const c_void, n: usize) -> *mut c_void {
    // Fast path: one load proves nothing is pending anywhere and the copy
    // is below the threshold (`copier_adapter::gate`); then a tail jump to
    // glibc's memcpy, the routine a plain memcpy call reaches.
    // SAFETY: forwarded caller contract.
    if let Some(d) = unsafe { fast_copy(dst, src, n, &FAST.memcpy) } {
        return d;
    }
    // SAFETY: forwarded caller contract.
    unsafe { submit_slow(dst, src, n, 0) }
}

/// The fast path (gate open, `n` below the threshold): short copies right
/// here with the instructions glibc's `memmove` runs for them (every load
/// before any store, so overlapping ranges move correctly), longer ones by
/// a tail jump to `routine` (glibc's `memcpy` or `memmove`); `None` when
/// the gate is closed or `n` is not below the threshold.
///
/// # Safety
/// As `memmove` for `n < FAST.inline_limit`, else as `routine`.
#[inline(always)]
unsafe fn fast_copy(dst: *mut c_void, src: *const c_void, n: usize, routine: &core::sync::atomic::AtomicPtr<()>) -> Option<*mut c_void> {
    #[cfg(target_arch = "x86_64")]
    if n < FAST.inline_limit.load(Ordering::Acquire) {
        // SAFETY: inline_limit exceeds 32 only on CPUs with AVX and never
        // exceeds 257 (see copy_le256); caller contract for the ranges.
        unsafe { copier_adapter::engine::arch::x86_64::copy_le256(dst.cast(), src.cast(), n, FAST.wide.load(Ordering::Relaxed)) };
        return Some(dst);
    }
    if n < FAST.limit.load(Ordering::Acquire) {
        // SAFETY: `routine` only holds MemFn values (glibc's or the
        // engine's); forwarded caller contract.
        return Some(unsafe { core::mem::transmute::<*mut (), MemFn>(routine.load(Ordering::Relaxed))(dst, src, n) });
    }
    None
}

/// Everything but the fast path of [`amemcpy`]/[`amemmove`]: init, hooks,
/// the inline copy with pending copies around, the asynchronous submit.
///
/// # Safety
/// As [`amemcpy`] (as `memmove` with `COPIER_MOVE`).
#[cold]
#[inline(never)]
unsafe extern "C" fn submit_slow(dst: *mut c_void, src: *const c_void, n: usize, flags: u32) -> *mut c_void {
    crate::ensure_init();
    if !backend::kernel_active() && crate::hooks::get().is_none() {
        // SAFETY: forwarded caller contract.
        if unsafe { copier_adapter::service::copy_inline(dst.cast(), src.cast(), n) } {
            return dst;
        }
    }
    // SAFETY: forwarded caller contract.
    unsafe { backend::submit(dst.cast(), src.cast(), n, flags, 0, 0) };
    // (opaque, so the optimizer does not learn that this returns `dst` and
    // keep `dst` in a callee-saved register across the fast path)
    core::hint::black_box(dst)
}

/// As [`amemcpy`], but the ranges may overlap (as `memmove`).
///
/// # Safety
/// As `memmove`, plus the `csync` rule of [`amemcpy`].
#[export_name = "__copier_amemmove"]
pub unsafe extern "C" fn amemmove(dst: *mut c_void, src: *const c_void, n: usize) -> *mut c_void {
    // fast path: see amemcpy
    // SAFETY: forwarded caller contract.
    if let Some(d) = unsafe { fast_copy(dst, src, n, &FAST.memmove) } {
        return d;
    }
    // SAFETY: forwarded caller contract.
    unsafe { submit_slow(dst, src, n, COPIER_MOVE) }
}

/// Lazy copy (see [`COPIER_LAZY`]); returns `dst`.
///
/// # Safety
/// As [`amemcpy`].
#[export_name = "__copier_amemcpy_lazy"]
pub unsafe extern "C" fn amemcpy_lazy(dst: *mut c_void, src: *const c_void, n: usize) -> *mut c_void {
    crate::ensure_init();
    // SAFETY: forwarded caller contract.
    unsafe { backend::submit(dst.cast(), src.cast(), n, COPIER_LAZY, 0, 0) };
    dst
}

/// Copy with a completion handler: `fn(arg)` runs exactly once after the copy
/// completed (e.g. to free the source), off the caller's critical path (on
/// the service thread or a thread that waits for the copy; at once if the
/// copy ran synchronously). Returns `dst`. It runs only once every copy the
/// calling thread submitted before this one has completed too, so it may
/// free a source that earlier copies also read, as after `memcpy`.
///
/// A handler may call every Copier function: submit copies (with handlers
/// too; they nest), `csync`, `csync_ready_end`, `copier_wait`,
/// `copier_query` and `csync_all`. Called from inside a handler,
/// `csync_all` waits for every copy submitted before it and runs the queued
/// handlers on this thread, but does not wait for handlers that are already
/// running (the calling handler itself, and handlers other threads run,
/// which may be waiting in `csync_all` too); outside handlers `csync_all`
/// keeps its full meaning. A handler must not block on a lock or condition
/// that a thread waiting in `csync_all` (outside a handler) holds or is to
/// signal: that thread waits for the handler to return.
///
/// # Safety
/// As [`amemcpy`]; `fn` must be safe to call with `arg` from any thread.
#[export_name = "__copier_amemcpy_handler"]
pub unsafe extern "C" fn amemcpy_handler(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    r#fn: copier_handler_fn,
    arg: *mut c_void,
) -> *mut c_void {
    crate::ensure_init();
    // SAFETY: forwarded caller contract.
    unsafe { backend::submit(dst.cast(), src.cast(), n, 0, handler_word(r#fn), arg as usize) };
    dst
}

/// Return when no earlier copy still writes or reads any byte of
/// `[addr, addr + n)`: the range may then be read, written or freed. Waits
/// only for the segments covering the range, promotes them ahead of other
/// work, and helps execute them. `csync(p, 0)` returns at once. One
/// exception, after the kernel's sequential file readahead: a thread whose
/// csyncs walk one copy front to back, each starting where its previous
/// one ended, on segments no other executor has started, also executes the
/// segments that follow (up to `claim_max` of them), so a reader that
/// csyncs a large message piece by piece while the service has no CPU
/// takes the slow path a few times, not once per segment.
///
/// "Earlier" is program order within a thread. Copies that different
/// threads submit are ordered only through csync: a thread csyncs a buffer
/// before it hands it (or a copy's source) to another thread, e.g. before
/// unlocking the mutex that guards it (DESIGN.md's rule). Without that
/// csync, a later copy of the other thread into the same bytes may be
/// applied first. So csync waits for the calling thread's copies only: a
/// copy another thread submitted is that thread's to csync.
#[export_name = "__copier_csync"]
pub extern "C" fn csync(addr: *const c_void, n: usize) {
    if crate::sites::observing() {
        let t0 = copier_adapter::sys::now_ns();
        backend::csync(addr as usize, n);
        crate::sites::waited(addr as usize, n, false, t0, copier_adapter::sys::now_ns());
        return;
    }
    backend::csync(addr as usize, n);
}

/// Discard `[addr, addr + n)`: the caller will not read these bytes again
/// before writing them (it is about to `free` the buffer, or the buffer's
/// lifetime ends). Pending lazy copies ([`COPIER_LAZY`], or made lazy when
/// [`copier_write`] and kin handed their destination to the kernel, option
/// `defer_absorbed`) that
/// write only bytes of the range, and whose bytes no later copy reads, are
/// dropped unexecuted (`lazy_dropped` in `COPIER_STATS`); then it returns
/// as [`csync`] does, once no earlier copy writes or reads a byte of the
/// range, so the range may be freed or reused. Reading the range after
/// `copier_drop` gives unspecified bytes. CopierGen emits it before a
/// `free` of, or at the end of the lifetime of, the destination of a copy
/// it submitted lazy. `copier_drop(p, 0)` returns at once.
#[export_name = "__copier_drop"]
pub extern "C" fn copier_drop(addr: *const c_void, n: usize) {
    backend::discard(addr as usize, n);
}

/// Return when every copy submitted before the call (by any thread) has
/// completed and its completion handler has run. Inside a completion
/// handler, handlers already running (including the caller) are not waited
/// for (see [`amemcpy_handler`]).
#[export_name = "__copier_csync_all"]
pub extern "C" fn csync_all() {
    if crate::sites::observing() {
        let t0 = copier_adapter::sys::now_ns();
        backend::csync_all();
        crate::sites::waited(0, 0, true, t0, copier_adapter::sys::now_ns());
        return;
    }
    backend::csync_all();
}

/// Wait like `csync(addr, n)`, then return an end address `>= addr + n` such
/// that no pending copy writes or reads `[addr, end)` (`(void *)-1` when the
/// calling thread has no copy pending). Under CopierSanitizer it returns
/// exactly `addr + n`. From the third request in a row that is not a
/// forward step (none within 64 KiB after one of the thread's last 4
/// requests: a walk from the end, scattered reads) it waits for the whole
/// destination of the thread's copies under `addr`.
#[export_name = "__copier_csync_ready_end"]
pub extern "C" fn csync_ready_end(addr: *const c_void, n: usize) -> *const c_void {
    if crate::sites::observing() {
        let t0 = copier_adapter::sys::now_ns();
        let end = backend::csync_ready_end(addr as usize, n);
        let t1 = copier_adapter::sys::now_ns();
        crate::sites::waited(addr as usize, n, false, t0, t1);
        if end == usize::MAX {
            // nothing of this thread's is pending: its observations are done
            crate::sites::settled(t1);
        }
        return end as *const c_void;
    }
    backend::csync_ready_end(addr as usize, n) as *const c_void
}

/// The flag bits [`copier_submit`] knows.
const KNOWN_FLAGS: u32 = COPIER_LAZY | COPIER_MOVE;

/// Low-level submit: copy `n` bytes from `src` to `dst` with `flags`
/// ([`COPIER_LAZY`], [`COPIER_MOVE`], or 0) and an optional completion
/// handler. Returns a descriptor handle, or 0 when the copy completed
/// synchronously.
///
/// Any other flag bit is a misuse (a flag of a newer header, a corrupted
/// word): the call then copies synchronously with `memmove` semantics,
/// whatever the bits, and returns 0, so the bytes are in place when it
/// returns; the first such call of the process prints one line to stderr
/// (`copier: copier_submit: unknown flag bits 0x…`). A completion handler
/// still runs exactly once after the copy (possibly on the service thread,
/// after the call returned; `csync_all` waits for it).
///
/// # Safety
/// As [`amemcpy`] (as `memmove` with [`COPIER_MOVE`] or unknown bits).
#[export_name = "__copier_submit"]
pub unsafe extern "C" fn copier_submit(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    flags: u32,
    r#fn: copier_handler_fn,
    arg: *mut c_void,
) -> copier_desc {
    crate::ensure_init();
    if flags & !KNOWN_FLAGS != 0 {
        static WARNED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);
        if !WARNED.swap(true, Ordering::Relaxed) {
            eprintln!(
                "copier: copier_submit: unknown flag bits {:#x} (known: COPIER_LAZY {COPIER_LAZY:#x}, COPIER_MOVE {COPIER_MOVE:#x}); copied synchronously",
                flags & !KNOWN_FLAGS
            );
        }
        // SAFETY: forwarded caller contract (memmove semantics cover any
        // overlap the unknown bits might have meant).
        let d = unsafe { backend::submit_desc(dst.cast(), src.cast(), n, COPIER_MOVE, handler_word(r#fn), arg as usize) };
        if d != 0 {
            // a handle just issued by this thread: its range is [0, n)
            backend::wait_handle(d, 0, n);
        }
        return 0;
    }
    // SAFETY: forwarded caller contract.
    unsafe { backend::submit_desc(dst.cast(), src.cast(), n, flags, handler_word(r#fn), arg as usize) }
}

/// Wait until bytes `[offset, offset + len)` of the copy `d` (offsets into
/// its destination, in bytes) are copied; helps execute them.
///
/// Returns 0 when the bytes are copied (at once for `d == 0`, a copy that
/// completed synchronously, and for a handle whose slot was reused, which
/// implies completion). Returns -1, without waiting, for a handle this
/// process never issued, or when the range is not inside the copy
/// (`offset > n` or `len > n - offset`; an empty range may sit at `n`).
/// The range can be checked until the copy's slot is reused (after the
/// submitting thread queued about `queue_depth` more copies); handle `0`
/// and a reused slot no longer know `n`, and return 0.
#[export_name = "__copier_wait"]
pub extern "C" fn copier_wait(d: copier_desc, offset: usize, len: usize) -> c_int {
    backend::wait_handle(d, offset, len)
}

/// Non-blocking: 1 when bytes `[offset, offset + len)` of the copy `d` are
/// copied (always for `d == 0` and for a reused slot), 0 when still
/// pending, -1 for a handle this process never issued or a range not
/// inside the copy (checked as in [`copier_wait`]).
#[export_name = "__copier_query"]
pub extern "C" fn copier_query(d: copier_desc, offset: usize, len: usize) -> c_int {
    backend::query_handle(d, offset, len)
}
