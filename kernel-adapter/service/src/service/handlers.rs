//! Completion handlers: running the handler queue, each handler exactly
//! once, with the runtime marked not entered (a handler may call every
//! libcopier function).

use crate::clients::outside;
use crate::progress::notify_progress;
use crate::tracker::{note_handlers, HandlerTask, HANDLERS_QUEUED, TRACKER};
use crate::hooks;
use core::cell::Cell;
use core::sync::atomic::{AtomicUsize, Ordering};

thread_local! {
    /// Completion handlers this thread is running (nesting depth). Its own
    /// key without a destructor, so it stays usable after `LOCAL` is torn
    /// down (handlers run from `csync_all` in the exit handler, after the
    /// main thread's thread-local destructors).
    static IN_HANDLER: Cell<u32> = const { Cell::new(0) };
}

pub(crate) static HANDLERS_RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Run queued completion handlers (each exactly once: popped under the lock).
pub(crate) fn run_handlers() {
    while HANDLERS_QUEUED.load(Ordering::Acquire) != 0 {
        let h: Option<HandlerTask> = {
            let mut g = TRACKER.lock();
            let h = g.handlers.pop_front();
            if h.is_some() {
                HANDLERS_RUNNING.fetch_add(1, Ordering::AcqRel);
            }
            note_handlers(g.handlers.len());
            h
        };
        let Some(h) = h else { break };
        call_handler(h);
        HANDLERS_RUNNING.fetch_sub(1, Ordering::AcqRel);
        notify_progress();
    }
}

/// True while the calling thread runs a completion handler.
pub(crate) fn in_handler() -> bool {
    IN_HANDLER.with(|d| d.get() != 0)
}

/// Run a completion handler with the runtime marked not entered (it may
/// call every libcopier function).
pub(crate) fn call_handler(h: HandlerTask) {
    outside(|| invoke_handler(h));
}

/// Run a completion handler as it is: counted in `IN_HANDLER`, between the
/// sanitizer's enter/exit hooks; the caller decides whether the runtime
/// counts as entered meanwhile ([`call_handler`], [`nested_copy`]).
pub(crate) fn invoke_handler(h: HandlerTask) {
    IN_HANDLER.with(|d| d.set(d.get() + 1));
    let hk = hooks::get();
    if let Some(f) = hk.and_then(|x| x.on_handler_enter) {
        f(h.dst, h.src, h.len);
    }
    // SAFETY: the submitter passed a `void (*)(void *)`.
    let f: unsafe extern "C" fn(*mut core::ffi::c_void) = unsafe { core::mem::transmute(h.f) };
    // SAFETY: calling the user's handler with the user's argument.
    unsafe { f(h.arg as *mut core::ffi::c_void) };
    if let Some(f) = hk.and_then(|x| x.on_handler_exit) {
        f();
    }
    IN_HANDLER.with(|d| d.set(d.get() - 1));
}

