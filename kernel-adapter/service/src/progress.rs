//! Progress notification: waiters park on a completion epoch, and whoever
//! changes what they wait for bumps it (waiter-count-first protocol, see
//! [`notify_progress`]).

use crate::sys::{futex_wait, futex_wake, now_ns};
use core::sync::atomic::{fence, AtomicU32, Ordering};
use crossbeam_utils::CachePadded;

/// Completion epoch: bumped whenever a segment completes, a claim is given
/// back, or a task faults (futex word for waiters).
pub(crate) static EPOCH: CachePadded<AtomicU32> = CachePadded::new(AtomicU32::new(0));

pub(crate) static WAITERS: CachePadded<AtomicU32> = CachePadded::new(AtomicU32::new(0));

/// Announce a state change waiters may be parked on (a segment completed or
/// was given back, a task faulted or retired, a handler finished).
///
/// Waiter-count-first protocol: the state change (an RMW, a full barrier on
/// x86) is ordered before the `WAITERS` load by the SeqCst fence; a waiter
/// increments `WAITERS`, fences, reads the epoch and re-checks its
/// condition before sleeping. So either we see its increment and bump the
/// epoch (its futex wait then fails or is woken), or it sees our change.
/// Without waiters this costs a fence and one load of a read-mostly line.
#[inline]
pub fn notify_progress() {
    fence(Ordering::SeqCst);
    if WAITERS.load(Ordering::Relaxed) != 0 {
        EPOCH.fetch_add(1, Ordering::SeqCst);
        futex_wake(&EPOCH, i32::MAX);
    }
}

/// Wait until `cond()` holds: spin ~20 µs, then park on the epoch (see
/// [`notify_progress`]; the 10 ms timeout is only a safety net).
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
            WAITERS.fetch_add(1, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            let seen = EPOCH.load(Ordering::SeqCst);
            if !cond() {
                futex_wait(&EPOCH, seen, Some(10_000_000));
            }
            WAITERS.fetch_sub(1, Ordering::SeqCst);
            start = now_ns();
        }
    }
}


/// Fork child: no thread waits any more (only the forking thread exists).
pub(crate) fn reset_in_child() {
    WAITERS.store(0, Ordering::Relaxed);
}
