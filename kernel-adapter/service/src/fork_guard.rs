//! The handshake that keeps a fork from catching a submit between its fork
//! check and its publish (Dekker's mutual exclusion, one flag per side).
//!
//! * submit ([`enter_submit`], [`leave_submit`]): store 1 to its client's
//!   `submitting` word, barrier, load `forking`; on 0 it fills and publishes
//!   its slot, then stores 0 (`Release`: the publish comes before it).
//! * fork ([`begin_fork`], [`wait_submit`]): store 1 to `forking`, barrier,
//!   then wait for every `submitting` word to read 0 (`Acquire`, pairs with
//!   the submit's `Release`).
//!
//! Either the fork sees a submit's 1 and waits for its publish, or the
//! submit sees the fork's 1 and copies synchronously: after the wait no
//! task is published any more. The submit's barrier is a compiler barrier
//! when the process is registered for `membarrier` (the forker's
//! `membarrier` then places a full barrier in the submitter's instruction
//! stream, as for the gate's remote release, see `gate`), a full fence
//! otherwise. The loom model checks the full-fence variant.

use crate::primitive::{compiler_fence, fence, AtomicU32, Ordering};

/// Set while a fork is being prepared (`service::fork_prepare` to
/// `fork_parent` / `fork_child`): submits copy synchronously.
#[cfg(not(loom))]
pub(crate) static FORKING: AtomicU32 = AtomicU32::new(0);

/// Submit side: announce on `submitting`, then look at `forking`. True when
/// the submit may publish (then call [`leave_submit`] after the publish);
/// false while a fork is being prepared (`submitting` is 0 again).
/// `membarrier`: the process is registered for `membarrier`, whose use by
/// the forker supplies this side's barrier (else a full fence).
#[inline]
pub(crate) fn enter_submit(submitting: &AtomicU32, forking: &AtomicU32, membarrier: bool) -> bool {
    submitting.store(1, Ordering::Relaxed);
    if membarrier {
        compiler_fence(Ordering::SeqCst);
    } else {
        fence(Ordering::SeqCst);
    }
    if forking.load(Ordering::Relaxed) != 0 {
        submitting.store(0, Ordering::Release);
        return false;
    }
    true
}

/// Submit side: the publish is done (`Release`: a fork that reads this 0
/// sees the published task).
#[inline]
pub(crate) fn leave_submit(submitting: &AtomicU32) {
    submitting.store(0, Ordering::Release);
}

/// Fork side: from here on submits see `forking` (the caller then issues
/// `membarrier` when the process is registered for it).
pub(crate) fn begin_fork(forking: &AtomicU32) {
    forking.store(1, Ordering::SeqCst);
    fence(Ordering::SeqCst);
}

/// Fork side: wait until the submit announced on `submitting` (if any)
/// published or backed off.
pub(crate) fn wait_submit(submitting: &AtomicU32) {
    while submitting.load(Ordering::Acquire) != 0 {
        crate::primitive::yield_now();
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// A submit racing a fork's prepare: if the fork's wait returned and it
    /// then saw no published task, the submit never publishes one; a task
    /// published before the wait returned is visible to the fork.
    #[test]
    fn a_fork_never_misses_a_publish() {
        loom::model(|| {
            let w: Arc<[AtomicU32; 3]> = Arc::new(core::array::from_fn(|_| AtomicU32::new(0)));
            let (submitting, forking, published) = (0, 1, 2);
            let w2 = w.clone();
            let submit = thread::spawn(move || {
                if enter_submit(&w2[submitting], &w2[forking], false) {
                    w2[published].store(1, Ordering::Relaxed);
                    leave_submit(&w2[submitting]);
                }
            });
            begin_fork(&w[forking]);
            wait_submit(&w[submitting]);
            let seen = w[published].load(Ordering::Relaxed);
            submit.join().unwrap();
            assert_eq!(w[published].load(Ordering::Relaxed), seen, "a task was published after the fork's wait");
        });
    }
}
