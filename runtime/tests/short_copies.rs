//! Copies below the threshold while the caller has a copy pending (no
//! service thread: `spawn=0`, so nothing runs unless waited for). One that
//! touches none of the caller's pending copies runs inline and leaves them
//! pending; one that reads a pending destination, writes a pending
//! destination or writes a pending source first waits for the segments it
//! touches, so every byte ends as `memcpy` in program order leaves it.
//! (Own test binary: it sets process-wide options.)

use copier::capi::*;
use core::ffi::c_void;

const SEG: usize = 4096;

#[test]
fn short_copies_wait_only_for_the_copies_they_touch() {
    copier::ensure_init();
    let errs = copier::options::apply("spawn=0:threshold=1024:segment_size=4096");
    assert!(errs.is_empty(), "{errs:?}");
    let n = 64 << 10;
    let mut src: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
    let old = src.clone();
    let mut dst = vec![0u8; n];
    // SAFETY: both buffers valid for n bytes; synced (csync_all) before use.
    let h = unsafe { copier_submit(dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n, 0, None, std::ptr::null_mut()) };
    assert_ne!(h, 0, "the copy ran synchronously");
    let inline_before = copier::stats::snapshot().inline;

    // unrelated bytes: inline, and the pending copy stays pending
    let a: Vec<u8> = (0..200).map(|i| i as u8 ^ 0x5a).collect();
    let mut b = vec![0u8; 200];
    for len in 1..200 {
        // SAFETY: two unrelated heap buffers of 200 bytes.
        unsafe { amemcpy(b.as_mut_ptr() as *mut c_void, a.as_ptr() as *const c_void, len) };
        assert_eq!(&b[..len], &a[..len], "length {len}");
    }
    assert_eq!(copier::stats::snapshot().inline - inline_before, 199, "the unrelated short copies ran inline");
    assert_eq!(copier_query(h, 0, n), 0, "an unrelated short copy executed the pending copy");

    // reads a pending destination: the covering segment first
    let mut small = [0u8; 100];
    // SAFETY: reads [5000, 5100) of dst, which the pending copy writes.
    unsafe { amemcpy(small.as_mut_ptr() as *mut c_void, dst.as_ptr().add(5000) as *const c_void, 100) };
    assert_eq!(&small[..], &old[5000..5100]);
    assert_eq!(copier_query(h, SEG, SEG), 1, "the segment it read is done");
    assert_eq!(copier_query(h, n - SEG, SEG), 0, "a segment it did not touch stays pending");

    // writes a pending source: the copy reads the old bytes
    let new_src = [0xeeu8; 50];
    // SAFETY: writes [20000, 20050) of src, which the pending copy reads.
    unsafe { amemcpy(src.as_mut_ptr().add(20000) as *mut c_void, new_src.as_ptr() as *const c_void, 50) };
    // writes a pending destination: the later write wins
    let new_dst = [0x11u8; 50];
    // SAFETY: writes [40000, 40050) of dst, which the pending copy writes.
    unsafe { amemcpy(dst.as_mut_ptr().add(40000) as *mut c_void, new_dst.as_ptr() as *const c_void, 50) };
    assert_eq!(copier_query(h, n - SEG, SEG), 0, "a segment no copy touched stays pending");

    csync_all();
    let mut want = old.clone();
    want[40000..40050].copy_from_slice(&new_dst);
    assert!(dst == want, "first difference at {:?}", dst.iter().zip(&want).position(|(x, y)| x != y));
    assert_eq!(&src[20000..20050], &new_src[..]);
}
