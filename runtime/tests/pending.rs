//! With thousands of pending copies (no service thread: `spawn=0`, so
//! nothing runs unless waited for), csync waits only for the segments that
//! cover its range: one segment of one copy executes, every other copy stays
//! pending. Untouched ranges and zero lengths return without executing
//! anything. (Own test binary: it sets process-wide options.)

use copier::capi::*;
use core::ffi::c_void;

#[test]
fn csync_executes_only_covering_segments() {
    copier::ensure_init();
    let errs = copier::options::apply("spawn=0:queue_depth=8192:threshold=1024:segment_size=4096");
    assert!(errs.is_empty(), "{errs:?}");
    let tasks = 4000;
    let n = 16 << 10; // 4 segments each
    let src: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
    let mut dst = vec![0u8; tasks * n];
    let mut handles = Vec::with_capacity(tasks);
    for i in 0..tasks {
        // SAFETY: disjoint destinations inside dst; synced before use.
        let h = unsafe { copier_submit(dst.as_mut_ptr().add(i * n) as *mut c_void, src.as_ptr() as *const c_void, n, 0, None, std::ptr::null_mut()) };
        assert_ne!(h, 0, "copy {i} ran synchronously");
        handles.push(h);
    }
    let before = copier::stats::snapshot();
    // untouched range and zero length: nothing executes
    let other = [0u8; 64];
    csync(other.as_ptr() as *const c_void, other.len());
    csync(dst.as_ptr() as *const c_void, 0);
    assert_eq!(copier_query(handles[0], 0, n), 0);
    // one byte in the third segment of copy 2500
    let k = 2500;
    let off = k * n + 2 * 4096 + 10;
    csync(dst.as_ptr().wrapping_add(off) as *const c_void, 1);
    assert_eq!(dst[off], src[2 * 4096 + 10]);
    assert_eq!(copier_query(handles[k], 2 * 4096, 4096), 1, "the covering segment is done");
    assert_eq!(copier_query(handles[k], 0, 4096), 0, "its other segments are not");
    assert_eq!(copier_query(handles[k], 3 * 4096, 4096), 0);
    let pending = handles.iter().filter(|&&h| copier_query(h, 0, n) == 0).count();
    assert_eq!(pending, tasks, "no copy completed besides one segment");
    let mid = copier::stats::snapshot();
    assert_eq!(mid.tasks, before.tasks);
    csync_all();
    assert!(dst.chunks(n).all(|c| c == &src[..]));
    let after = copier::stats::snapshot();
    assert_eq!(after.tasks - before.tasks, tasks as u64);
}
