//! A thread with more copies pending than `csync` scans linearly (its own
//! index of them by address): each `csync` sees every copy of its own that
//! writes or reads the range (chains through a copy's destination, a
//! destination rewritten, a source reused), and executes what covers it.
//! No service thread (`spawn=0`): nothing runs unless waited for. (Own test
//! binary: it sets process-wide options.)

use copier::capi::*;
use core::ffi::c_void;

fn submit(d: *mut u8, s: *const u8, n: usize) -> u64 {
    // SAFETY: the test's buffers, synced before use.
    let h = unsafe { copier_submit(d as *mut c_void, s as *const c_void, n, 0, None, std::ptr::null_mut()) };
    assert_ne!(h, 0, "copy ran synchronously");
    h
}

#[test]
fn csync_with_many_own_copies_pending() {
    copier::ensure_init();
    let errs = copier::options::apply("spawn=0:queue_depth=1024:threshold=64:segment_size=4096");
    assert!(errs.is_empty(), "{errs:?}");
    let n = 16 << 10;
    let slots = 200;
    let src: Vec<u8> = (0..slots * n).map(|i| (i * 7 + i / 4099) as u8).collect();
    let mut a = vec![0u8; slots * n];
    let mut b = vec![0u8; slots * n];
    // 200 copies src -> a, then chains a -> b for every other slot
    let hs: Vec<u64> = (0..slots).map(|i| submit(a.as_mut_ptr().wrapping_add(i * n), src.as_ptr().wrapping_add(i * n), n)).collect();
    for i in (0..slots).step_by(2) {
        submit(b.as_mut_ptr().wrapping_add(i * n), a.as_ptr().wrapping_add(i * n), n);
    }
    // a byte of b waits for its chain (through a's copy)
    let k = 120;
    let off = k * n + 5000;
    csync(b.as_ptr().wrapping_add(off) as *const c_void, 1);
    assert_eq!(b[off], src[off]);
    assert_eq!(copier_query(hs[k + 1], 0, n), 0, "an unrelated copy is still pending");
    // a range across three slots of a: all three copies' bytes there
    let (lo, len) = (40 * n + 100, 2 * n + 50);
    csync(a.as_ptr().wrapping_add(lo) as *const c_void, len);
    assert_eq!(&a[lo..lo + len], &src[lo..lo + len]);
    // rewriting a source: the pending reader (a -> b of slot 60) finishes first
    let s60 = 60 * n;
    csync(a.as_ptr().wrapping_add(s60) as *const c_void, n);
    a[s60..s60 + n].fill(0xee);
    csync(b.as_ptr().wrapping_add(s60) as *const c_void, n);
    assert_eq!(&b[s60..s60 + n], &src[s60..s60 + n], "b got a's bytes from before the rewrite");
    // a destination written twice: the later copy's bytes
    let other: Vec<u8> = vec![0x5a; n];
    submit(a.as_mut_ptr().wrapping_add(150 * n), other.as_ptr(), n);
    csync(a.as_ptr().wrapping_add(150 * n + 10) as *const c_void, 4);
    assert_eq!(&a[150 * n + 10..150 * n + 14], &[0x5a; 4]);
    // a range over many grains (the tracker path), then everything
    csync(a.as_ptr() as *const c_void, slots * n);
    csync_all();
    for i in 0..slots {
        let r = i * n..(i + 1) * n;
        match i {
            60 => assert!(a[r.clone()].iter().all(|&x| x == 0xee)),
            150 => assert!(a[r.clone()].iter().all(|&x| x == 0x5a)),
            _ => assert_eq!(&a[r.clone()], &src[r.clone()], "slot {i} of a"),
        }
        if i % 2 == 0 {
            assert_eq!(&b[r.clone()], &src[r.clone()], "slot {i} of b");
        }
    }
}
