//! A dead service thread degrades to synchronous copies: copies pending when
//! it died are executed by the threads that wait for them, and later copies
//! run on the caller. Also: a full queue falls back to synchronous copies
//! that still respect pending conflicts. (Own test binary: it kills the
//! process-wide service.)

use copier::capi::*;
use core::ffi::c_void;

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(13).wrapping_add(seed)).collect()
}

#[test]
fn full_queue_then_dead_service() {
    copier::ensure_init();
    copier::options::set("queue_depth", "4").unwrap();
    let n = 1 << 20;
    let bufs: Vec<Vec<u8>> = (0..12).map(|i| pattern(n, i as u8)).collect();
    let mut dsts: Vec<Vec<u8>> = (0..12).map(|_| vec![0u8; n]).collect();
    let before = copier::stats::snapshot();
    // 12 chained copies through a 4-deep queue: later ones fall back to
    // synchronous copies that must wait for the pending ones they read
    // SAFETY: all buffers valid for n bytes, synced by csync_all below.
    unsafe {
        amemcpy(dsts[0].as_mut_ptr() as *mut c_void, bufs[0].as_ptr() as *const c_void, n);
        for i in 1..12 {
            let src = dsts[i - 1].as_ptr() as *const c_void;
            amemcpy(dsts[i].as_mut_ptr() as *mut c_void, src, n);
        }
    }
    csync_all();
    for d in &dsts {
        assert_eq!(d, &bufs[0]);
    }
    let mid = copier::stats::snapshot();
    assert!(mid.inline > before.inline, "the full queue made some copies synchronous");

    // pending copies, then the service dies
    copier::options::set("queue_depth", "64").unwrap();
    // SAFETY: as above.
    unsafe {
        for i in 0..6 {
            amemcpy(dsts[i].as_mut_ptr() as *mut c_void, bufs[i].as_ptr() as *const c_void, n);
        }
    }
    copier::testing::kill_service();
    assert!(!copier::testing::service_running());
    for i in 0..6 {
        csync(dsts[i].as_ptr() as *const c_void, n);
        assert_eq!(dsts[i], bufs[i]);
    }
    copier::testing::quiesce();
    let dead = copier::stats::snapshot();
    // SAFETY: as above.
    unsafe { amemcpy(dsts[7].as_mut_ptr() as *mut c_void, bufs[8].as_ptr() as *const c_void, n) };
    let after = copier::stats::snapshot();
    assert_eq!(after.tasks, dead.tasks, "no asynchronous task after the service died");
    assert_eq!(after.inline, dead.inline + 1);
    assert!(copier::testing::nothing_pending());
    assert_eq!(dsts[7], bufs[8]);
}
