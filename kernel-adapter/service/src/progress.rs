//! Progress notification: waiters park on a completion epoch, and whoever
//! changes what they wait for bumps it.
//!
//! Waiter-count-first protocol (the futex pattern of Drepper, "Futexes Are
//! Tricky", with a waiter count instead of a state word): the notifier's
//! state change (an RMW, a full barrier on x86) is ordered before its
//! `waiters` load by a SeqCst fence; a waiter increments `waiters`, fences,
//! reads the epoch and re-checks its condition before sleeping on that
//! epoch. So either the notifier sees the increment and bumps the epoch
//! (the futex wait then fails or is woken), or the waiter sees the change.
//! Without waiters a notification costs a fence and one load of a
//! read-mostly line. Loom model below.

use crate::primitive::{fence, AtomicU32, Ordering};
use crossbeam_utils::CachePadded;

/// The protocol's two words, each on its own line (waiters write `waiters`
/// rarely, notifiers read it at every completion).
pub(crate) struct Progress {
    /// Completion epoch: bumped whenever a segment completes, a claim is
    /// given back, or a task faults (futex word for waiters).
    epoch: CachePadded<AtomicU32>,
    /// Threads between [`Progress::begin_park`] and [`Progress::end_park`].
    waiters: CachePadded<AtomicU32>,
}

impl Progress {
    /// No waiter, epoch 0.
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        Progress { epoch: CachePadded::new(AtomicU32::new(0)), waiters: CachePadded::new(AtomicU32::new(0)) }
    }
    /// No waiter, epoch 0.
    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        Progress { epoch: CachePadded::new(AtomicU32::new(0)), waiters: CachePadded::new(AtomicU32::new(0)) }
    }

    /// Notifier, after its state change: true when a waiter may sleep on
    /// the epoch, which was bumped (the caller then wakes the futex).
    #[inline]
    pub(crate) fn notify(&self) -> bool {
        // pairs with the waiter's fence in `begin_park`
        fence(Ordering::SeqCst);
        if self.waiters.load(Ordering::Relaxed) != 0 {
            self.epoch.fetch_add(1, Ordering::SeqCst);
            return true;
        }
        false
    }

    /// Waiter: announce the park; returns the epoch to sleep on, valid if
    /// the condition still fails when re-checked after this call.
    pub(crate) fn begin_park(&self) -> u32 {
        self.waiters.fetch_add(1, Ordering::SeqCst);
        // pairs with the notifier's fence in `notify`
        fence(Ordering::SeqCst);
        self.epoch.load(Ordering::SeqCst)
    }

    /// Waiter: the park is over (woken, timed out, or not needed).
    pub(crate) fn end_park(&self) {
        self.waiters.fetch_sub(1, Ordering::SeqCst);
    }

    /// The futex word.
    pub(crate) fn epoch(&self) -> &AtomicU32 {
        &self.epoch
    }
}

#[cfg(not(loom))]
pub(crate) use imp::*;

#[cfg(not(loom))]
mod imp {
    use super::Progress;
    use crate::primitive::Ordering;
    use crate::sys::{futex_wait, futex_wake, now_ns};

    static PROGRESS: Progress = Progress::new();

    /// Announce a state change waiters may be parked on (a segment completed
    /// or was given back, a task faulted or retired, a handler finished).
    #[inline]
    pub fn notify_progress() {
        if PROGRESS.notify() {
            futex_wake(PROGRESS.epoch(), i32::MAX);
        }
    }

    /// Wait until `cond()` holds: spin ~20 µs, then park on the epoch (the
    /// 10 ms timeout is only a safety net).
    pub(crate) fn wait_until(mut cond: impl FnMut() -> bool) {
        let mut start = now_ns();
        let mut i = 0u32;
        loop {
            if cond() {
                return;
            }
            core::hint::spin_loop();
            i = i.wrapping_add(1);
            if i.is_multiple_of(64) && now_ns() - start > 20_000 {
                let seen = PROGRESS.begin_park();
                if !cond() {
                    futex_wait(PROGRESS.epoch(), seen, Some(10_000_000));
                }
                PROGRESS.end_park();
                start = now_ns();
            }
        }
    }

    /// Fork child: no thread waits any more (only the forking thread exists).
    pub(crate) fn reset_in_child() {
        PROGRESS.waiters.store(0, Ordering::Relaxed);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// A notifier completes what a waiter waits for while the waiter parks:
    /// a waiter that decides to sleep on an epoch always finds the epoch
    /// moved on by the time the notifier is done (its futex wait returns at
    /// once or is woken): no lost wake-up.
    #[test]
    fn no_lost_wakeup() {
        loom::model(|| {
            let p = Arc::new(Progress::new());
            let done = Arc::new(AtomicU32::new(0));
            let (p2, done2) = (p.clone(), done.clone());
            let notifier = thread::spawn(move || {
                // the state change is an RMW (done bits, `fetch_or`)
                done2.fetch_or(1, Ordering::AcqRel);
                p2.notify()
            });
            let seen = p.begin_park();
            let sleeps = done.load(Ordering::Acquire) == 0;
            let woke = notifier.join().unwrap();
            if sleeps {
                assert!(woke, "the notifier must wake a parking waiter");
                assert_ne!(p.epoch().load(Ordering::SeqCst), seen, "futex wait on a stale epoch: lost wake-up");
            }
            p.end_park();
        });
    }
}
