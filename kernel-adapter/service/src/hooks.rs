//! Sanitizer hooks (shared contract in the brief): CopierSanitizer registers a
//! [`Hooks`] table; the runtime calls it on every submit, sync and handler.
//! Unregistered, each call site costs one atomic load.

use core::sync::atomic::{AtomicPtr, Ordering};

/// Callbacks a checker (CopierSanitizer) receives. Every field is optional.
#[derive(Debug, Default, Clone, Copy)]
pub struct Hooks {
    /// Called for EVERY `amemcpy`/`amemmove`/lazy/handler/low-level submit,
    /// including copies executed inline, before the copy can complete:
    /// `(dst, src, len_bytes, flags)` (`COPIER_LAZY`, `COPIER_MOVE` bits).
    pub on_submit: Option<fn(dst: usize, src: usize, len: usize, flags: u32)>,
    /// `csync(addr, len)` and `csync_ready_end` (with `[addr, addr + n)`),
    /// after waiting: the calling thread's own copies of the range are
    /// complete.
    pub on_sync: Option<fn(addr: usize, len: usize)>,
    /// `copier_wait(d, offset, len)`, after waiting: the descriptor's copy
    /// is complete in its destination range `[addr, addr + len)`, whichever
    /// thread submitted it. `None`: `on_sync` is called instead.
    pub on_wait: Option<fn(addr: usize, len: usize)>,
    /// `csync_all()`, after waiting.
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

/// True when a checker is registered (`csync_ready_end` then returns exactly
/// `addr + n`).
#[inline(always)]
pub fn active() -> bool {
    !HOOKS.load(Ordering::Relaxed).is_null()
}
