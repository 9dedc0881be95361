//! A lazy copy that nothing needs still runs once its time window expired
//! (the service picks it); one that a csync needs runs when synced.

use copier::capi::*;
use core::ffi::c_void;
use std::time::{Duration, Instant};

#[test]
fn lazy_copies_run_late_or_on_demand() {
    copier::ensure_init();
    copier::options::set("lazy_window_us", "2000").unwrap();
    let n = 1 << 20;
    let src = vec![9u8; n];
    let mut a = vec![0u8; n];
    let mut b = vec![0u8; n];
    // SAFETY: buffers valid; synced or waited on before use.
    let h = unsafe { copier_submit(a.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n, COPIER_LAZY, None, std::ptr::null_mut()) };
    assert_ne!(h, 0);
    let t0 = Instant::now();
    // nobody waits: the service runs it after the window (poll the
    // descriptor, no wait call that would force it)
    while copier_query(h, 0, n) == 0 {
        assert!(t0.elapsed() < Duration::from_secs(10), "lazy copy never ran");
        std::thread::yield_now();
    }
    assert!(t0.elapsed() >= Duration::from_micros(1500), "ran before its window: {:?}", t0.elapsed());
    csync(a.as_ptr() as *const c_void, n);
    assert_eq!(a, src);
    // needed at once by a csync
    // SAFETY: as above.
    unsafe { amemcpy_lazy(b.as_mut_ptr() as *mut c_void, a.as_ptr() as *const c_void, n) };
    csync(b.as_ptr() as *const c_void, 4096);
    assert_eq!(b[..4096], src[..4096], "csync ran the lazy copy's first segment");
    csync_all();
    assert_eq!(b, src);
}
