//! Per-thread state: the thread's id (`T0` is the main thread, then `T1`,
//! `T2`, … in creation order, as ASan numbers them), the guard that turns
//! checks off while the sanitizer itself runs, and the completion-handler
//! scope.

use core::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};

const UNSET: u32 = u32::MAX;
static NEXT_TID: AtomicU32 = AtomicU32::new(1);

/// Most nested completion handlers tracked per thread.
const MAX_HANDLERS: usize = 4;

thread_local! {
    static TID: Cell<u32> = const { Cell::new(UNSET) };
    static IN_RUNTIME: Cell<bool> = const { Cell::new(false) };
    static HANDLERS: Cell<[(usize, usize, usize); MAX_HANDLERS]> = const { Cell::new([(0, 0, 0); MAX_HANDLERS]) };
    static HANDLER_DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Who created a thread, and where.
pub struct Creation {
    /// The creating thread's id.
    pub parent: u32,
    /// Raw stack of the `pthread_create` call.
    pub stack: Box<[usize]>,
}

static CREATIONS: Mutex<Option<HashMap<u32, Creation>>> = Mutex::new(None);

/// The creations lock, held across a `fork` ([`crate::fork`]).
pub(crate) struct ForkHold {
    _g: MutexGuard<'static, Option<HashMap<u32, Creation>>>,
}

/// Take the lock [`reserve_child`] and [`creation`] take, for
/// [`crate::fork`].
pub(crate) fn hold_for_fork() -> ForkHold {
    ForkHold { _g: CREATIONS.lock().unwrap_or_else(|e| e.into_inner()) }
}

/// The id of the calling thread (assigned on first use if the thread was not
/// created through the `pthread_create` interceptor).
pub fn current() -> u32 {
    TID.try_with(|t| {
        if t.get() == UNSET {
            // SAFETY: getpid/gettid have no preconditions.
            let main = unsafe { libc::getpid() == libc::gettid() };
            t.set(if main { 0 } else { NEXT_TID.fetch_add(1, Relaxed) });
        }
        t.get()
    })
    .unwrap_or(UNSET)
}

/// Reserve the id of a thread about to be created by the current thread.
pub fn reserve_child(stack: Box<[usize]>) -> u32 {
    let id = NEXT_TID.fetch_add(1, Relaxed);
    let parent = current();
    let mut g = CREATIONS.lock().unwrap_or_else(|e| e.into_inner());
    g.get_or_insert_with(HashMap::new).insert(id, Creation { parent, stack });
    id
}

/// Set the calling thread's id (first thing a new thread does).
pub fn set_current(id: u32) {
    let _ = TID.try_with(|t| t.set(id));
}

/// Parent and creation stack of thread `id`.
pub fn creation(id: u32) -> Option<(u32, Box<[usize]>)> {
    let g = CREATIONS.lock().unwrap_or_else(|e| e.into_inner());
    g.as_ref()?.get(&id).map(|c| (c.parent, c.stack.clone()))
}

/// True while the sanitizer's own code, or glibc's allocator under its
/// interceptors, runs on this thread: interceptors then pass straight
/// through, and a hook (called from a signal handler that interrupted it)
/// neither locks nor allocates ([`crate::deferred`]).
#[inline(always)]
pub fn in_runtime() -> bool {
    IN_RUNTIME.try_with(Cell::get).unwrap_or(true)
}

/// Marks this thread as inside the sanitizer until dropped.
pub struct RuntimeGuard {
    prev: bool,
}

impl RuntimeGuard {
    /// Enter the sanitizer.
    #[inline(always)]
    pub fn enter() -> Self {
        let prev = IN_RUNTIME.try_with(|c| c.replace(true)).unwrap_or(true);
        Self { prev }
    }
}

impl Drop for RuntimeGuard {
    #[inline(always)]
    fn drop(&mut self) {
        let _ = IN_RUNTIME.try_with(|c| c.set(self.prev));
    }
}

/// A completion handler for copy `(dst, src, len)` starts on this thread.
pub fn handler_enter(dst: usize, src: usize, len: usize) {
    let d = HANDLER_DEPTH.try_with(Cell::get).unwrap_or(0);
    if d < MAX_HANDLERS {
        let _ = HANDLERS.try_with(|h| {
            let mut a = h.get();
            a[d] = (dst, src, len);
            h.set(a);
        });
    }
    let _ = HANDLER_DEPTH.try_with(|c| c.set(d + 1));
}

/// True while a completion handler runs on this thread.
pub fn in_handler() -> bool {
    HANDLER_DEPTH.try_with(Cell::get).unwrap_or(0) > 0
}

/// The innermost completion handler returned.
pub fn handler_exit() {
    let _ = HANDLER_DEPTH.try_with(|c| c.set(c.get().saturating_sub(1)));
}

/// The copies `(dst, src, len)` whose completion handlers are running on
/// this thread, innermost last. Inside its handler a copy is complete: its
/// bytes may be read, written and freed there.
pub fn handlers() -> Vec<(usize, usize, usize)> {
    let d = HANDLER_DEPTH.try_with(Cell::get).unwrap_or(0).min(MAX_HANDLERS);
    if d == 0 {
        return Vec::new();
    }
    HANDLERS.try_with(|h| h.get()[..d].to_vec()).unwrap_or_default()
}
