//! Retirement: the completer of a task's last segment removes it from the
//! tracker and frees its slot, under the tracker lock; a waiting thread
//! leaves that to the running service thread instead.
//!
//! Why: the tracker lock and the tracker's index live on the service
//! thread's core. A waiter that takes them to retire a task it copied pulls
//! their cache lines over, and the service pulls them back at its next
//! ingest: where a line takes ~200 ns to move between cores (a
//! cross-socket or cross-die pair of vCPUs), that costs more than a
//! 16 KiB copy. So a waiter sets
//! [`RETIRE_LATER`], and the service retires every complete task at its next
//! pass ([`Tracker::retire_done`]), as it ingests.
//!
//! The handoff's protocol is [`crate::handoff`]'s (loom-checked). Tasks
//! with a completion handler, and tasks a later handler task of the same
//! queue follows, are always retired by their completer, which then runs
//! the handlers: a handler is queued only once every earlier task of its
//! queue is retired, and the service thread may be inside a slow handler.
//! Such a retirement also retires the complete tasks left before it.

use crate::clients::{client_at, entry};
use crate::handoff;
use crate::progress::notify_progress;
use crate::task::TaskRef;
use crate::tracker::{note_handlers, Tracker, TRACKER};
use core::cell::Cell;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use crossbeam_utils::CachePadded;
use super::handlers::run_handlers;
use super::thread::{SLEEPING, STATE, ST_RUNNING};

/// Set when a complete task awaits its retirement by the service thread.
pub(crate) static RETIRE_LATER: CachePadded<AtomicU32> = CachePadded::new(AtomicU32::new(0));

/// Retirements waiters left to the service so far (for tests; written by
/// waiters only, so the line stays off the service's core).
static LEFT: CachePadded<AtomicU64> = CachePadded::new(AtomicU64::new(0));

/// For tests: how many retirements waiting threads have left to the
/// service thread so far.
pub fn retirements_left() -> u64 {
    LEFT.load(Ordering::Relaxed)
}

thread_local! {
    /// True on the service thread (set by its loop).
    static ON_SERVICE: Cell<bool> = const { Cell::new(false) };
}

/// Mark the calling thread as the service thread.
pub(crate) fn mark_service_thread() {
    let _ = ON_SERVICE.try_with(|s| s.set(true));
}

/// Retire task `t`, whose last segment the caller completed: now, under
/// the tracker lock (then wake waiters and run queued handlers), or, on a
/// waiting thread while the service runs, at the service's next pass.
pub(crate) fn retire(t: TaskRef) {
    if leave_to_service(t) {
        return;
    }
    {
        // (read first: once retired, the slot may be reused)
        let has_handler = entry(t).handler.load(Ordering::Relaxed) != 0;
        let mut g = TRACKER.lock();
        g.retire(t);
        if has_handler || requested() {
            // earlier complete tasks left to the service would hold this
            // handler (or a later one) back until its next pass, which a
            // slow handler on the service thread delays: retire them now
            g.retire_done();
        }
        note_handlers(g.handlers.len());
    }
    notify_progress();
    run_handlers();
}

/// True when the service thread will retire `t` (see the module's
/// protocol); false when the caller must.
fn leave_to_service(t: TaskRef) -> bool {
    if ON_SERVICE.try_with(|s| s.get()).unwrap_or(true)
        || STATE.load(Ordering::Relaxed) != ST_RUNNING
        || SLEEPING.load(Ordering::Relaxed) != 0
        || entry(t).handler.load(Ordering::Relaxed) != 0
        // a later task of this queue has a handler, queued only once this
        // task is retired
        || client_at(t.client as usize).is_none_or(|c| c.last_handler.load(Ordering::Relaxed) > t.pos)
    {
        return false;
    }
    let left = handoff::leave(&RETIRE_LATER, &SLEEPING, &STATE, ST_RUNNING);
    if left {
        LEFT.fetch_add(1, Ordering::Relaxed);
    }
    left
}

/// Service side, after `SLEEPING = 1`: true when a waiter left a
/// retirement, so the service must not park.
pub(crate) fn pending() -> bool {
    handoff::pending(&RETIRE_LATER)
}

/// Service side: true when a waiter left a retirement (a hint, `Relaxed`).
#[inline]
pub(crate) fn requested() -> bool {
    RETIRE_LATER.load(Ordering::Relaxed) != 0
}

/// Service side, tracker lock held: retire what waiters left. Returns true
/// when it retired any (the caller then calls `notify_progress` once it
/// released the lock: a `csync_all` may wait for `RETIRED`).
pub(crate) fn sweep(g: &mut Tracker) -> bool {
    handoff::take(&RETIRE_LATER) && g.retire_done()
}

/// Without the lock (the service when it stops, a submitter that found its
/// queue full): [`sweep`] if a retirement was left.
pub(crate) fn sweep_now() {
    if handoff::pending(&RETIRE_LATER) && sweep(&mut TRACKER.lock()) {
        notify_progress();
    }
}
