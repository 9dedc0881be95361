//! A thread that csyncs a copy segment by segment while no other executor
//! works on it (no service thread here: `spawn=0`, as on a machine where the
//! service gets no CPU) executes ahead of its range, with growing claims,
//! instead of taking the slow path once per segment. (Own test binary: it
//! sets process-wide options before the first copy.)

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
        // claims of 4, 8, 16, 32, then 64 segments: 7 slow paths for 256
        // segments (one per segment without read-ahead)
        assert!(slow <= 8, "round {round}: {slow} csync calls took the slow path for 256 segments");
        assert!(slow >= 1, "round {round}: the copy was not pending at the first csync");
        assert_eq!(after.tasks, before.tasks + 1, "round {round}: one asynchronous task");
    }
}
