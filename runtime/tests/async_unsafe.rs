//! `hooks::enter_async_unsafe`: while a thread is inside a section a
//! checker marks as not async-signal-safe (its interposed allocator), the
//! runtime serves that thread's `amemcpy` synchronously (a signal handler
//! that interrupted `malloc` then neither locks nor allocates), and the
//! sections nest.

use copier::capi::*;
use core::ffi::c_void;
use std::sync::atomic::Ordering::SeqCst;

const N: usize = 16 << 20;

/// `amemcpy` of `N` bytes: are they all in `dst` when it returns, and is
/// nothing pending?
fn copied_at_return(dst: &mut [u8], src: &[u8]) -> bool {
    // SAFETY: both buffers hold N bytes and do not overlap.
    unsafe { amemcpy(dst.as_mut_ptr().cast::<c_void>(), src.as_ptr().cast::<c_void>(), N) };
    let done = dst == src && __copier_pending.load(SeqCst) == 0;
    csync_all();
    done
}

#[test]
fn copies_inside_the_section_complete_before_amemcpy_returns() {
    let src: Vec<u8> = (0..N).map(|i| (i * 7 + i / 4096) as u8).collect();
    let mut dst = vec![0u8; N];
    {
        let _outer = copier::hooks::enter_async_unsafe();
        {
            let _inner = copier::hooks::enter_async_unsafe();
            assert!(copied_at_return(&mut dst, &src), "nested section");
        }
        dst.fill(0);
        // the inner guard's drop left the outer section in force
        assert!(copied_at_return(&mut dst, &src), "outer section after the inner one ended");
    }
    // outside: the copy is asynchronous again and csync makes it visible
    dst.fill(0);
    // SAFETY: as above.
    unsafe { amemcpy(dst.as_mut_ptr().cast::<c_void>(), src.as_ptr().cast::<c_void>(), N) };
    // SAFETY: dst holds N bytes.
    unsafe { csync(dst.as_mut_ptr().cast::<c_void>(), N) };
    assert!(dst == src);
}
