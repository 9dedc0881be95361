//! `copier_submit` with flag bits other than `COPIER_LAZY`/`COPIER_MOVE`
//! is a misuse: it copies synchronously (memmove semantics) and returns 0
//! (trial finding: `flags = 0xff` was accepted and queued). Own test
//! binary: it sets process-wide options.

use copier::capi::*;
use core::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

static HANDLED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count(arg: *mut c_void) {
    HANDLED.fetch_add(arg as usize, Ordering::SeqCst);
}

#[test]
fn unknown_flag_bits_copy_synchronously_and_return_0() {
    copier::ensure_init();
    // queue copies without executing them: a queued copy would stay
    // visibly pending
    assert!(copier::options::apply("spawn=0").is_empty());
    let n = 4 << 20;
    let src: Vec<u8> = (0..n).map(|i| (i * 7 + 1) as u8).collect();
    for flags in [0xffu32, 0x4, 0x8000_0000, COPIER_LAZY | 0x10] {
        let mut dst = vec![0u8; n];
        // SAFETY: buffers of n bytes.
        let d = unsafe { copier_submit(dst.as_mut_ptr().cast(), src.as_ptr().cast(), n, flags, None, std::ptr::null_mut()) };
        assert_eq!(d, 0, "flags {flags:#x} queued a copy");
        assert!(dst == src, "flags {flags:#x}: bytes not in place at return");
    }
    // Overlapping ranges move correctly whatever the bits.
    let mut buf: Vec<u8> = (0..n + 4096).map(|i| (i * 3) as u8).collect();
    let want: Vec<u8> = buf[..n].to_vec();
    // SAFETY: both ranges inside buf.
    let d = unsafe { copier_submit(buf.as_mut_ptr().add(4096).cast(), buf.as_ptr().cast(), n, 0x40, None, std::ptr::null_mut()) };
    assert_eq!(d, 0);
    assert!(buf[4096..] == want[..]);
    // The handler runs exactly once.
    let mut dst = vec![0u8; n];
    // SAFETY: buffers of n bytes.
    let d = unsafe { copier_submit(dst.as_mut_ptr().cast(), src.as_ptr().cast(), n, 0x100, Some(count), 1 as *mut c_void) };
    assert_eq!(d, 0);
    assert!(dst == src);
    csync_all();
    assert_eq!(HANDLED.load(Ordering::SeqCst), 1);
    // Known flags still queue (spawn=0: pending until waited for).
    let mut dst = vec![0u8; n];
    // SAFETY: buffers of n bytes; waited for below.
    let d = unsafe { copier_submit(dst.as_mut_ptr().cast(), src.as_ptr().cast(), n, COPIER_MOVE, None, std::ptr::null_mut()) };
    assert_ne!(d, 0);
    assert_eq!(copier_wait(d, 0, n), 0);
    assert!(dst == src);
}
