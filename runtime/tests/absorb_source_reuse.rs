//! Copy absorption must not weaken csync: after `amemcpy(b, a)`,
//! `amemcpy(c, b)` (which absorbs and really reads `a`), a `csync(b)`
//! promises that no earlier copy reads `b` any more, so the program may then
//! write or free `a`, the source of the copy into `b` (README: "csync(dst,
//! n); free(src) is correct"). `c` must still receive `a`'s old bytes.
//! Deterministic with no service thread (`spawn=0`: copies run only when
//! waited for). (Own test binary: it sets process-wide options.)

use copier::capi::*;
use core::ffi::c_void;

fn p(v: &[u8]) -> *const c_void {
    v.as_ptr() as *const c_void
}
fn pm(v: &mut [u8]) -> *mut c_void {
    v.as_mut_ptr() as *mut c_void
}

#[test]
fn csync_of_a_destination_frees_its_source_for_an_absorbing_copy() {
    copier::ensure_init();
    copier::options::set("spawn", "0").unwrap();
    for &n in &[64usize << 10, 1 << 20] {
        for partial_first in [false, true] {
            let mut a = vec![b'a'; n];
            let mut b = vec![0u8; n];
            let mut c = vec![0u8; n];
            let before = copier::stats::snapshot();
            // SAFETY: all buffers hold n bytes; each range is synced before
            // the program touches it again (the point of the test).
            unsafe {
                amemcpy(pm(&mut b), p(&a), n);
                amemcpy(pm(&mut c), p(&b), n);
            }
            if partial_first {
                // a csync of part of b first must not change the answer
                csync(p(&b), 4096);
            }
            csync(p(&b), n);
            assert!(b.iter().all(|&x| x == b'a'), "n={n}: b");
            // (the copies are ingested at the first csync)
            let mid = copier::stats::snapshot();
            assert!(mid.absorbed_bytes > before.absorbed_bytes, "n={n}: the second copy absorbed (else the test proves nothing)");
            a.fill(b'X'); // allowed: nothing reads a after csync(b, n)
            drop(a); // and so is freeing it
            csync(p(&c), n);
            assert!(c.iter().all(|&x| x == b'a'), "n={n} partial_first={partial_first}: c got bytes written to a after csync(b)");
        }
    }
}
