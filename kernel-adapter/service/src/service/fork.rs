//! Process events: `pthread_atfork`'s prepare (no copy in flight at the
//! fork), parent and child.

use crate::clients::{client_at, local, ring_of, Busy, CLIENT_LOCK, NCLIENTS, nothing_pending};
use crate::tracker::{HANDLERS_QUEUED, TRACKER};
use crate::gate;
use crate::fork_guard::{self, FORKING};
use core::sync::atomic::Ordering;
use super::handlers::{HANDLERS_RUNNING, run_handlers};
use super::exec::drive_all_pending;
use super::retire::RETIRE_LATER;
use super::thread::{ST_NOT_STARTED, ST_RUNNING, ST_STOP, STATE, START_LOCK, SLEEPING};


// ----------------------------------------------------------- process events

/// `pthread_atfork` prepare: make the fork a point where no copy is in
/// flight, then hold the locks so the child gets a consistent tracker.
///
/// 1. Set `FORKING`: from here on every submit (any thread, completion
///    handlers included) copies synchronously, so no new task is published.
/// 2. Wait for the submits that passed their check before the flag was
///    visible to publish (`Submitting`: a compiler barrier on their side,
///    `membarrier` here; a few instructions each).
/// 3. Drain ([`drain_for_fork`]): execute and retire every queued task and
///    run the queued completion handlers on this thread, as `csync_all`.
///    Afterwards every queue is empty and stays empty, so no executor can
///    hold a claim, be inside a segment or be retiring a task: the child
///    inherits no task at all and starts fresh (a new service thread on its
///    first asynchronous copy).
/// 4. Take the service's locks (and the gate's), so no other thread is
///    inside a critical section at the fork.
///
/// Handlers that other threads are running are not waited for: the caller
/// may itself be one (fork from a completion handler), and a running
/// handler's own submits are synchronous now, so it cannot add a task. A
/// copy whose source or destination faults is re-executed by the drain and
/// faults on the forking thread, as it would in `csync_all`. Called while
/// this thread is inside the runtime (a hook that forks), the drain is
/// skipped; `fork_child` then recovers an interrupted state as before
/// (orphaned claims released, complete tasks retired).
pub fn fork_prepare() {
    fork_guard::begin_fork(&FORKING);
    if gate::barrier::register() {
        gate::barrier::heavy();
    }
    let me = local().map_or(core::ptr::null(), |(c, _)| c);
    for c in (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at) {
        // (this thread is not inside a submit: hooks and handlers run
        // outside the publish window)
        if !core::ptr::eq(c, me) {
            fork_guard::wait_submit(&c.submitting);
        }
    }
    drain_for_fork();
    START_LOCK.raw_lock();
    CLIENT_LOCK.raw_lock();
    TRACKER.raw_lock();
    gate::fork_lock(true);
}

/// `fork_prepare`'s drain: with no new task published (`FORKING`), execute
/// every queued task (dependencies first, helping the executors) until every
/// queue is empty, and run the queued completion handlers.
pub(crate) fn drain_for_fork() {
    let Some(_busy) = Busy::enter() else { return };
    while !nothing_pending() || HANDLERS_QUEUED.load(Ordering::Acquire) != 0 {
        drive_all_pending();
        run_handlers();
    }
}

/// `pthread_atfork` parent: release the locks; submits are asynchronous
/// again.
pub fn fork_parent() {
    gate::fork_lock(false);
    TRACKER.raw_unlock();
    CLIENT_LOCK.raw_unlock();
    START_LOCK.raw_unlock();
    FORKING.store(0, Ordering::Release);
}

/// `pthread_atfork` child: no service thread and no other executor exist
/// here, and after [`fork_prepare`]'s drain no task either. Other threads'
/// clients are marked dead, the gate is opened for every drained queue, and
/// the next asynchronous copy starts a new service thread. (When the drain
/// was skipped, orphaned claims are released and complete tasks retired.)
pub fn fork_child() {
    TRACKER.reset_in_child();
    CLIENT_LOCK.reset_in_child();
    START_LOCK.reset_in_child();
    FORKING.store(0, Ordering::Relaxed);
    let st = STATE.load(Ordering::Relaxed);
    STATE.store(if st == ST_RUNNING || st == ST_STOP { ST_NOT_STARTED } else { st }, Ordering::Relaxed);
    SLEEPING.store(0, Ordering::Relaxed);
    crate::progress::reset_in_child();
    HANDLERS_RUNNING.store(0, Ordering::Relaxed);
    crate::stats::reset();
    let me = local().map(|(c, _)| c).unwrap_or(core::ptr::null());
    for i in 0..NCLIENTS.load(Ordering::Relaxed) {
        let Some(c) = client_at(i) else { continue };
        if !core::ptr::eq(c, me) {
            c.alive.store(false, Ordering::Relaxed);
        }
        c.submitting.store(0, Ordering::Relaxed);
        if let Some(r) = ring_of(c) {
            r.resync_producer();
            for p in r.tail()..r.ingested() {
                let d = &r.slot(p).desc;
                if d.pos() == p {
                    d.release_in_flight();
                }
            }
        }
    }
    // Only when the drain was skipped (fork from inside the runtime): an
    // executor of the parent may have completed a task's last segment
    // and been waiting for the tracker lock (held across the fork by
    // `fork_prepare`) to retire it: here nobody would, and a `csync_all`
    // waiting for RETIRED would hang. Retire such tasks now (their
    // handlers run in the child too, as for every task the child finishes).
    // (also those whose retirement was left to the parent's service thread)
    RETIRE_LATER.store(0, Ordering::Relaxed);
    TRACKER.lock().retire_done();
    // the only thread left may release every drained queue's hold
    let mut holds = 0;
    for c in (0..NCLIENTS.load(Ordering::Relaxed)).filter_map(client_at) {
        let drained = ring_of(c).is_none_or(|r| r.tail() == r.head());
        if c.hold.held() && !(drained && c.hold.begin_release()) {
            holds += 1;
        }
    }
    gate::fork_child(holds);
}

