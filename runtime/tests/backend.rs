//! The backend choice on a host without `/dev/copier` (every CI host
//! outside the VM test): `auto` and `kernel` both end on the in-process
//! service, copies are correct, and the counters name the backend.

use copier::capi::{amemcpy, csync};

#[test]
fn without_a_device_the_in_process_service_serves() {
    if std::path::Path::new("/dev/copier").exists() {
        eprintln!("skipped: this host has /dev/copier");
        return;
    }
    // (a warning line on stderr; the VM test checks its text)
    copier::options::set("backend", "kernel").unwrap();
    let n = 1 << 20;
    let src: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
    let mut dst = vec![0u8; n];
    // SAFETY: both buffers are valid for n bytes; csync before reading.
    unsafe { amemcpy(dst.as_mut_ptr().cast(), src.as_ptr().cast(), n) };
    csync(dst.as_ptr().cast(), n);
    assert!(dst == src);
    let s = copier::stats::snapshot();
    assert_eq!(s.backend, "inprocess");
    assert_eq!(s.device_tasks, 0);
    assert!(s.line().ends_with(" backend=inprocess device_tasks=0"), "{}", s.line());
    assert!(!copier_adapter::backend::kernel_active());
}

#[test]
fn the_option_names_its_values() {
    let e = copier::options::set("backend", "dma").unwrap_err().to_string();
    assert_eq!(e, "bad value 'dma' for option 'backend' (expected auto, kernel or inprocess)");
}
