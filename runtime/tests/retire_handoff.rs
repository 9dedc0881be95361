//! Retirements a waiting thread leaves to the service thread
//! (`service::retire`): a stream of copies that the caller partly executes
//! itself while it waits, as in `copier-bench stream`. Every task is
//! retired and counted without a `csync_all`, by the service; and those
//! left when the service stops are retired too. (Own test binary: it stops
//! the service and sets process-wide options.)

use copier::capi::{amemcpy, csync, csync_all};
use copier::testing::{index_len, kill_service, nothing_pending, retirements_left, service_running};
use std::time::{Duration, Instant};

const N: usize = 16 << 10;
const SLOTS: usize = 64;
const DEPTH: usize = 8;

/// `count` copies through SLOTS buffers, DEPTH in flight, each csynced
/// before its buffer is reused (and the last DEPTH at the end); checks the
/// bytes of every copy.
fn stream(dst: &mut [u8], src: &mut [u8], count: usize, salt: u8) {
    for i in 0..count {
        let o = (i % SLOTS) * N;
        if i >= DEPTH {
            let p = ((i - DEPTH) % SLOTS) * N;
            csync(dst[p..].as_ptr().cast(), N);
            assert_eq!(dst[p], src[p], "copy {} not complete after its csync", i - DEPTH);
        }
        src[o] = (i as u8) ^ salt;
        // SAFETY: both buffers are valid for N bytes at o; the slot is
        // synced before it is reused or read.
        unsafe { amemcpy(dst[o..].as_mut_ptr().cast(), src[o..].as_ptr().cast(), N) };
    }
    for i in count - DEPTH..count {
        let o = (i % SLOTS) * N;
        csync(dst[o..].as_ptr().cast(), N);
    }
    assert!(dst == src);
}

/// Wait (bounded) until every queue is empty: every task retired.
fn wait_all_retired() {
    let t0 = Instant::now();
    while !nothing_pending() {
        assert!(t0.elapsed() < Duration::from_secs(20), "tasks left unretired:\n{}", copier::testing::debug_pending());
        std::thread::yield_now();
    }
}

#[test]
fn retirements_left_to_the_service_are_done() {
    copier::ensure_init();
    let errs = copier::options::apply("threshold=1024:segment_size=4096");
    assert!(errs.is_empty(), "{errs:?}");
    let mut src = vec![1u8; SLOTS * N];
    let mut dst = vec![0u8; SLOTS * N];
    let count = 20 * SLOTS;

    // with the service running: retired by it, with no csync_all
    let before = copier::stats::snapshot();
    let left0 = retirements_left();
    let mut rounds = 0;
    while retirements_left() == left0 {
        // (the caller completes a task itself only when it catches up
        // with the service; a few rounds always get there)
        assert!(rounds < 50, "the caller never left a retirement to the service");
        stream(&mut dst, &mut src, count, rounds as u8);
        rounds += 1;
    }
    assert!(service_running());
    wait_all_retired();
    let s = copier::stats::snapshot();
    assert_eq!(s.tasks - before.tasks, (rounds * count) as u64, "every copy retired and counted once");
    assert_eq!(index_len(), 0, "the tracker's index keeps runs of retired tasks");

    // the service stops while retirements may be left to it
    stream(&mut dst, &mut src, count, 0x5a);
    kill_service();
    csync_all();
    assert!(nothing_pending(), "csync_all returned with tasks unretired:\n{}", copier::testing::debug_pending());
    assert_eq!(index_len(), 0);
    let s2 = copier::stats::snapshot();
    assert_eq!(s2.tasks - s.tasks, count as u64);
}
