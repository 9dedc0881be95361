//! The retirement handoff between a waiting thread and the service thread
//! (`service::retire`): a waiter that completed a task may leave its
//! retirement to the running service instead of taking the tracker lock.
//!
//! Dekker-style, with `SeqCst` fences (loom models `SeqCst` accesses as
//! acquire/release only; fences it models in full):
//! * waiter ([`leave`]): `later = 1`, fence, then load `sleeping` and
//!   `state`; when the service is parking (`sleeping != 0`) or not running,
//!   the waiter retires the task itself.
//! * service: after `sleeping = 1` before it parks ([`pending`]), and after
//!   it saw the stop, and on each pass ([`take`]): fence, then read `later`
//!   (and swap it to 0, sweeping when it was set).
//!
//! Either the waiter sees the service parking or stopped, or the service's
//! swap sees the flag: no retirement is lost (loom model below).

use crate::primitive::{fence, AtomicU32, Ordering};

/// Waiter: the task is complete; returns true when the service will
/// retire it (`later` set while it runs and is not parking), false when
/// the caller must. `state == running` means the service runs.
#[inline]
pub(crate) fn leave(later: &AtomicU32, sleeping: &AtomicU32, state: &AtomicU32, running: u32) -> bool {
    // (Release: the sweep that swaps it sees the task's done bits)
    later.store(1, Ordering::Release);
    fence(Ordering::SeqCst);
    sleeping.load(Ordering::Relaxed) == 0 && state.load(Ordering::Acquire) == running
}

/// Service, after it announced its park (or saw its stop): true when a
/// waiter left a retirement it must not sleep on.
#[inline]
pub(crate) fn pending(later: &AtomicU32) -> bool {
    fence(Ordering::SeqCst);
    later.load(Ordering::Relaxed) != 0
}

/// Service: true when a waiter left a retirement since the last call (the
/// caller then retires every complete task, under the tracker lock).
#[inline]
pub(crate) fn take(later: &AtomicU32) -> bool {
    pending(later) && later.swap(0, Ordering::AcqRel) != 0
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// A waiter leaves a retirement while the service parks (or stops):
    /// either the waiter retires itself, or the service's check after it
    /// announced the park (or its stop) finds the flag.
    #[test]
    fn no_lost_retirement() {
        for stop in [false, true] {
            loom::model(move || {
                let (later, sleeping, state) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(1)));
                let (l2, s2, st2) = (later.clone(), sleeping.clone(), state.clone());
                let service = thread::spawn(move || {
                    if stop {
                        // it stops (the loop saw STATE != running), then sweeps
                        st2.store(3, Ordering::SeqCst);
                        take(&l2)
                    } else {
                        // it parks unless the flag is set
                        s2.store(1, Ordering::SeqCst);
                        pending(&l2)
                    }
                });
                let left = leave(&later, &sleeping, &state, 1);
                let swept = service.join().unwrap();
                if left {
                    assert!(swept, "a retirement left to the service was lost");
                }
            });
        }
    }

    /// The flag is consumed once: two passes do not both sweep for one
    /// retirement, and a pass after the sweep finds nothing.
    #[test]
    fn taken_once() {
        loom::model(|| {
            let later = Arc::new(AtomicU32::new(1));
            let l2 = later.clone();
            let t = thread::spawn(move || take(&l2));
            let a = take(&later);
            let b = t.join().unwrap();
            assert!(a ^ b);
            assert!(!take(&later));
        });
    }
}
