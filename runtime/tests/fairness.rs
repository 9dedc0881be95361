//! Fairness by bytes (CFS-like, `max_round_bytes` per round): a client that
//! queued a large backlog does not starve another client's later copy. The
//! service alone executes both (nobody waits on them, progress is polled
//! with copier_query), and the second client's copy completes while most of
//! the first one's backlog is still pending.

use copier::capi::*;
use core::ffi::c_void;
use std::time::{Duration, Instant};

#[test]
fn small_client_is_not_starved_by_a_backlog() {
    copier::ensure_init();
    copier::options::set("max_round_bytes", "1m").unwrap();
    let big = 8 << 20;
    let count = 32;
    let src = vec![1u8; big];
    let mut dsts: Vec<Vec<u8>> = (0..count).map(|_| vec![0u8; big]).collect();
    let mut handles = Vec::new();
    for d in dsts.iter_mut() {
        // SAFETY: valid buffers, all waited for below.
        handles.push(unsafe { copier_submit(d.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, big, 0, None, std::ptr::null_mut()) });
    }
    assert!(handles.iter().all(|&h| h != 0));
    let small_src = vec![2u8; 1 << 20];
    let (pending_when_done, small_ok) = std::thread::scope(|s| {
        s.spawn(|| {
            let mut small = vec![0u8; 1 << 20];
            // SAFETY: valid buffers, waited for below.
            let h = unsafe { copier_submit(small.as_mut_ptr() as *mut c_void, small_src.as_ptr() as *const c_void, 1 << 20, 0, None, std::ptr::null_mut()) };
            assert_ne!(h, 0);
            let t0 = Instant::now();
            while copier_query(h, 0, 1 << 20) == 0 {
                assert!(t0.elapsed() < Duration::from_secs(30), "small copy starved");
                std::thread::yield_now();
            }
            let pending = handles.iter().filter(|&&h| copier_query(h, 0, big) == 0).count();
            copier_wait(h, 0, 1 << 20);
            (pending, small.iter().all(|&b| b == 2))
        })
        .join()
        .unwrap()
    });
    assert!(small_ok);
    assert!(pending_when_done >= count / 2, "only {pending_when_done} of {count} backlog copies were pending when the small one completed");
    csync_all();
    assert!(dsts.iter().all(|d| d.iter().all(|&b| b == 1)));
}
