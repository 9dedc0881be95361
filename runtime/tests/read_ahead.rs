//! A thread that csyncs a copy segment by segment, front to back, while no
//! other executor works on it (no service thread here: `spawn=0`, as on a
//! machine where the service gets no CPU) executes ahead of its range, with
//! growing claims, instead of taking the slow path once per segment; a
//! csync out of that pattern waits for its covering segments only (see
//! also `pending.rs`). (Own test binary: it sets process-wide options
//! before the first copy.)

use copier::capi::*;
use core::ffi::c_void;

#[test]
fn segment_by_segment_reader_reads_ahead() {
    copier::ensure_init();
    copier::options::set("spawn", "0").unwrap();
    copier::options::set("segment_size", "4096").unwrap();
    copier::options::set("exec_batch", "4").unwrap();
    copier::options::set("claim_max", "64").unwrap();
    let n = 1 << 20;
    let seg = 4096;
    jumps_wait_for_covering_segments_only();
    let src: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(29).wrapping_add(7)).collect();
    for round in 0..3 {
        let mut dst = vec![0u8; n];
        let before = copier::stats::snapshot();
        // SAFETY: both buffers hold n bytes; every segment is synced before
        // it is read, and the whole range before `dst` is dropped.
        unsafe { amemcpy(dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n) };
        for off in (0..n).step_by(seg) {
            csync(dst.as_ptr().wrapping_add(off) as *const c_void, seg);
            assert_eq!(&dst[off..off + seg], &src[off..off + seg], "round {round}, segment at {off}");
        }
        csync(dst.as_ptr() as *const c_void, n);
        let after = copier::stats::snapshot();
        let slow = after.csync_waits - before.csync_waits;
        // segment 0 alone, then claims of 4, 8, 16, 32, 64, 64, 64 and the
        // last 3: 9 slow paths for 256 segments (one per segment without
        // readahead)
        assert!(slow <= 10, "round {round}: {slow} csync calls took the slow path for 256 segments");
        assert!(slow >= 1, "round {round}: the copy was not pending at the first csync");
        assert_eq!(after.tasks, before.tasks + 1, "round {round}: one asynchronous task");
    }
}

/// Called from the test above (the counters are process-wide, so the two
/// must not run in parallel).
fn jumps_wait_for_covering_segments_only() {
    let n = 1 << 20;
    let src: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(31)).collect();
    let mut dst = vec![0u8; n];
    // SAFETY: both buffers hold n bytes; synced before use and before drop.
    let h = unsafe { copier_submit(dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n, 0, None, std::ptr::null_mut()) };
    assert_ne!(h, 0);
    // segments 10, 3, 11, 200: never the one after the previous csync's end
    // with the pattern established, so no readahead
    for s in [10usize, 3, 12, 200] {
        csync(dst.as_ptr().wrapping_add(s * 4096) as *const c_void, 4096);
        assert_eq!(copier_query(h, s * 4096, 4096), 1, "segment {s} done");
        assert_eq!(copier_query(h, (s + 1) * 4096, 4096), 0, "segment {} not run ahead", s + 1);
    }
    csync(dst.as_ptr() as *const c_void, n);
    assert_eq!(dst, src);
}
