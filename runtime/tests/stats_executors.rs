//! `service_bytes`/`waiter_bytes`: without a service thread (`spawn=0`)
//! the bytes of an asynchronous copy are executed by the thread that waits
//! for them, and the stats line says so. (Own test binary: it sets
//! process-wide options.)

use copier::capi::{amemcpy, csync};

#[test]
fn bytes_a_waiter_executes_are_counted_as_its_own() {
    copier::ensure_init();
    let errs = copier::options::apply("spawn=0:threshold=1024:segment_size=4096");
    assert!(errs.is_empty(), "{errs:?}");
    let before = copier::stats::snapshot();
    let n = 64 << 10;
    let src: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
    let mut dst = vec![0u8; n];
    // SAFETY: both buffers are valid for n bytes; csync before reading.
    unsafe { amemcpy(dst.as_mut_ptr().cast(), src.as_ptr().cast(), n) };
    // only the first half: the second stays pending until the next csync
    csync(dst.as_ptr().cast(), n / 2);
    let half = copier::stats::snapshot();
    assert_eq!(half.waiter_bytes - before.waiter_bytes, (n / 2) as u64);
    csync(dst.as_ptr().cast(), n);
    assert!(dst == src);
    let s = copier::stats::snapshot();
    assert_eq!(s.waiter_bytes - before.waiter_bytes, n as u64);
    assert_eq!(s.service_bytes, before.service_bytes);
    let line = s.line();
    assert!(line.contains(&format!(" service_bytes={} waiter_bytes={} engine=", s.service_bytes, s.waiter_bytes)), "{line}");
}
