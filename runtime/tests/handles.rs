//! `copier_wait`/`copier_query` argument errors: a range not inside the
//! copy, and a handle never issued, return -1 (review finding: both used to
//! report the bytes ready). (Own test binary: it sets process-wide options.)

use copier::capi::*;
use core::ffi::c_void;

#[test]
fn ranges_outside_the_copy_and_unknown_handles_are_errors() {
    copier::ensure_init();
    // queue copies without executing them, so the handle stays pending
    assert!(copier::options::apply("spawn=0").is_empty());
    let n = 4 << 20;
    let src: Vec<u8> = (0..n).map(|i| (i * 13) as u8).collect();
    let mut dst = vec![0u8; n];
    // SAFETY: buffers of n bytes; waited for before use.
    let d = unsafe { copier_submit(dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n, 0, None, std::ptr::null_mut()) };
    assert_ne!(d, 0, "the copy ran synchronously");
    assert_eq!(copier_query(d, 0, n), 0, "pending");
    // outside the copy: error, nothing waited for, pending or not
    for (off, len) in [(n, 100), (usize::MAX, 2), (n - 10, 11), (1, n), (n + 1, 0), (10, usize::MAX)] {
        assert_eq!(copier_query(d, off, len), -1, "query(+{off}, {len})");
        assert_eq!(copier_wait(d, off, len), -1, "wait(+{off}, {len})");
    }
    assert_eq!(copier_query(d, 0, n), 0, "an error does not execute the copy");
    // inside (an empty range may sit at the end)
    assert_eq!(copier_wait(d, n, 0), 0);
    assert_eq!(copier_wait(d, n - 100, 100), 0);
    assert_eq!(copier_query(d, n - 100, 100), 1);
    assert_eq!(dst[n - 100..], src[n - 100..]);
    assert_eq!(copier_wait(d, 0, n), 0);
    assert_eq!(dst, src);
    // complete, slot not reused yet: still checked
    assert_eq!(copier_query(d, 0, n), 1);
    assert_eq!(copier_query(d, n, 1), -1);
    assert_eq!(copier_wait(d, n, 1), -1);
    // a handle never issued
    assert_eq!(copier_query(12345678, 0, 10), -1);
    assert_eq!(copier_wait(12345678, 0, 10), -1);
    // 0: completed synchronously, no length known
    assert_eq!(copier_query(0, 0, 10), 1);
    assert_eq!(copier_wait(0, 0, 10), 0);
}
