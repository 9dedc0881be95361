//! Sanitizer hooks (shared contract in the brief): CopierSanitizer registers a
//! [`Hooks`] table; the runtime calls it on every submit, sync,
//! `copier_wait` and handler.
//! Unregistered, each call site costs one atomic load.

use core::sync::atomic::{AtomicPtr, Ordering};

/// [`Hooks::on_submit`]: `(dst, src, len_bytes, flags)` to the checker's
/// name for the copy.
pub type SubmitHook = fn(dst: usize, src: usize, len: usize, flags: u32) -> u64;

/// Callbacks a checker (CopierSanitizer) receives. Every field is optional.
#[derive(Debug, Default, Clone, Copy)]
pub struct Hooks {
    /// Called for EVERY `amemcpy`/`amemmove`/lazy/handler/low-level submit,
    /// including copies executed inline, before the copy can complete:
    /// `(dst, src, len_bytes, flags)` (`COPIER_LAZY`, `COPIER_MOVE` bits).
    /// Returns the checker's name for the copy (0: none), which
    /// `on_handle` binds to the copy's descriptor handle.
    pub on_submit: Option<SubmitHook>,
    /// A submit that hands the program a descriptor (`copier_submit`,
    /// `copier::scope`) returned handle `handle` (never 0) for the copy
    /// `on_submit` named `copy` (never 0). Called on the submitting thread
    /// before the submit returns, so before any thread can pass the handle
    /// to `copier_wait`.
    pub on_handle: Option<fn(copy: u64, handle: u64)>,
    /// `csync(addr, len)` and `csync_ready_end` (with `[addr, addr + n)`),
    /// after waiting: the calling thread's own copies of the range are
    /// complete.
    pub on_sync: Option<fn(addr: usize, len: usize)>,
    /// `copier_wait(handle, offset, len)` returned 0 for a handle other
    /// than 0, on any thread: bytes `[offset, offset + len)` of that copy's
    /// destination are complete (offsets in bytes; the range may reach
    /// past the copy when its slot was reused, as the runtime then no
    /// longer knows the copy's length). Called on every path that returns
    /// 0, the recycled slot's included; not for -1.
    pub on_wait: Option<fn(handle: u64, offset: usize, len: usize)>,
    /// The submit of the copy `on_submit` named `copy` (never 0) returned:
    /// the runtime holds it (queued, or complete). Called on the submitting
    /// thread. A `csync_all` that starts after this waits for the copy; one
    /// that started between `on_submit` and this may not.
    pub on_submitted: Option<fn(copy: u64)>,
    /// `csync_all()` starts: it waits for the copies whose `on_submitted`
    /// came before this, on any thread (and for the calling thread's own).
    pub on_sync_all_begin: Option<fn()>,
    /// `csync_all()`, after waiting (paired with `on_sync_all_begin` on the
    /// same thread).
    pub on_sync_all: Option<fn()>,
    /// Before a completion handler runs: the task's `(dst, src, len)`.
    pub on_handler_enter: Option<fn(dst: usize, src: usize, len: usize)>,
    /// After a completion handler returned.
    pub on_handler_exit: Option<fn()>,
}

static HOOKS: AtomicPtr<Hooks> = AtomicPtr::new(core::ptr::null_mut());

/// Register `hooks` (replacing any previous table). Takes effect for calls
/// that start after this returns.
pub fn set_hooks(hooks: &'static Hooks) {
    HOOKS.store(hooks as *const Hooks as *mut Hooks, Ordering::Release);
    // every submit must now reach `on_submit`: close the inline fast path
    crate::gate::set_closed(crate::gate::CLOSED_HOOKS, true);
}

/// The registered table, if any (one `Acquire` load, a plain `mov` on x86).
#[inline(always)]
pub fn get() -> Option<&'static Hooks> {
    let p = HOOKS.load(Ordering::Acquire);
    // SAFETY: only `&'static Hooks` are ever stored.
    unsafe { p.as_ref() }
}

/// Tell the checker that `handle` names the copy its `on_submit` named
/// `copy` (see [`Hooks::on_handle`]); nothing for 0 in either.
#[inline]
pub fn bind_handle(copy: u64, handle: u64) {
    if copy != 0 && handle != 0 {
        if let Some(f) = get().and_then(|h| h.on_handle) {
            f(copy, handle);
        }
    }
}

/// Tell the checker that the submit of `copy` returned (see
/// [`Hooks::on_submitted`]); nothing for 0.
#[inline]
pub fn submitted(copy: u64) {
    if copy != 0 {
        if let Some(f) = get().and_then(|h| h.on_submitted) {
            f(copy);
        }
    }
}

/// Tell the checker that `copier_wait(handle, offset, len)` returned 0
/// (see [`Hooks::on_wait`]); nothing for handle 0.
#[inline]
pub fn waited(handle: u64, offset: usize, len: usize) {
    if handle != 0 {
        if let Some(f) = get().and_then(|h| h.on_wait) {
            f(handle, offset, len);
        }
    }
}

/// Marks the calling thread as inside code that is not async-signal-safe
/// (a checker's interposed allocator) until the guard drops. A signal
/// handler that interrupts it and calls the runtime is served as one that
/// interrupted the runtime itself: its copies run synchronously and its
/// `csync` returns at once, so it neither takes a lock nor allocates
/// (a `csync` that ingested or indexed its copies would call `malloc`
/// inside the interrupted `malloc` and deadlock on glibc's arena lock).
/// Nests; costs two thread-local accesses.
#[must_use = "the section ends when the guard drops"]
pub struct AsyncUnsafeSection(bool);

/// Enter an [`AsyncUnsafeSection`].
#[inline(always)]
pub fn enter_async_unsafe() -> AsyncUnsafeSection {
    AsyncUnsafeSection(crate::clients::BUSY.replace(true))
}

impl Drop for AsyncUnsafeSection {
    #[inline(always)]
    fn drop(&mut self) {
        crate::clients::BUSY.set(self.0);
    }
}

/// True when a checker is registered (`csync_ready_end` then returns exactly
/// `addr + n`).
#[inline(always)]
pub fn active() -> bool {
    !HOOKS.load(Ordering::Relaxed).is_null()
}
