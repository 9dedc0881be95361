//! `fork` of a threaded program. The child has only the forking thread, so
//! a sanitizer lock another thread held at the fork would stay locked there
//! and the child's first hook would hang. A `pthread_atfork` prepare handler
//! takes every sanitizer lock on the forking thread, and the parent and
//! child handlers release them.
//!
//! Lock order, the one the sanitizer nests them in: the tracker (whose drain
//! may report a queued overlapping submit), the reports, the thread
//! creations (a report names where threads were created). `RUNTIME_PCS` is
//! never held with another and comes last. Symbolization (the `backtrace`
//! crate's own lock) runs only under the reports or `RUNTIME_PCS` lock, so
//! no other thread is inside it at the fork either.
//!
//! The handlers are registered when the sanitizer starts, before libcopier
//! registers its own (its `.init_array` constructor or first submit runs
//! after the sanitizer's `.preinit_array` entry): POSIX runs prepare
//! handlers in reverse order of registration, so libcopier's prepare,
//! whose drain of pending copies calls the sanitizer's hooks, runs first,
//! and this one after it. The sanitizer never calls libcopier while it
//! holds a lock of its own, so libcopier's locks, held by then, cannot be
//! waited for by a thread that holds one of the sanitizer's.

use std::cell::Cell;
use std::sync::MutexGuard;

use crate::shadow::RealShadow;
use crate::thread::{self, RuntimeGuard};
use crate::tracker::Tracker;
use crate::{deferred, report};

/// The locks the forking thread holds from [`prepare`] to [`parent`] or
/// [`child`] (released in this order, the thread's in-runtime mark last).
struct Held {
    tracker: MutexGuard<'static, Tracker<RealShadow>>,
    _reports: report::ForkHold,
    _creations: thread::ForkHold,
    #[cfg(not(test))]
    _runtime_pcs: crate::interception::mem::ForkHold,
    _in_runtime: RuntimeGuard,
}

thread_local! {
    static HELD: Cell<Option<Held>> = const { Cell::new(None) };
}

/// Register the fork handlers (once, from [`crate::init`], before libcopier
/// registers its own).
pub fn register() {
    // SAFETY: registers plain extern "C" fns with no captured state.
    unsafe {
        libc::pthread_atfork(Some(prepare), Some(parent), Some(child));
    }
}

/// Take every sanitizer lock, applying the queued hook events first. Not
/// when the fork comes from a signal handler that interrupted the
/// sanitizer (or malloc) on this thread, which may hold a lock itself:
/// nothing is held then (such a fork is not safe in glibc either).
extern "C" fn prepare() {
    if thread::in_runtime() {
        return;
    }
    let in_runtime = RuntimeGuard::enter();
    let held = Held {
        tracker: crate::lock_tracker(),
        _reports: report::hold_for_fork(),
        _creations: thread::hold_for_fork(),
        #[cfg(not(test))]
        _runtime_pcs: crate::interception::mem::hold_for_fork(),
        _in_runtime: in_runtime,
    };
    let _ = HELD.try_with(|h| h.set(Some(held)));
}

/// Release the locks [`prepare`] took.
extern "C" fn parent() {
    let _ = HELD.try_with(|h| drop(h.take()));
}

/// Release the locks [`prepare`] took. First, a hook event another thread
/// had claimed a queue slot for but not yet published is dropped as lost
/// (that thread is gone; the drain then releases every pending copy, so no
/// report can follow from it), and the queue is applied: the child starts
/// with an empty queue.
extern "C" fn child() {
    let Some(mut held) = HELD.try_with(Cell::take).ok().flatten() else { return };
    // SAFETY: the child's only thread is this one, which holds the tracker
    // lock and is not inside a push (`prepare` found it outside the
    // sanitizer, and pushes happen only inside it).
    unsafe { deferred::LOG.abandon_claims() };
    deferred::drain(&mut held.tracker);
    drop(held);
}
