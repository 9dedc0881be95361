//! A `csync` decides about the caller's copies the service has not ingested
//! yet without ingesting them, except where the ingest could make one read
//! the synced range: `amemcpy(y, x)` pending, then `amemcpy(z, y)` (which,
//! once ingested, absorbs: it reads `x` for the segments of the first copy
//! not done). After `csync(x)` the program may overwrite `x`, and `z` must
//! still receive `x`'s old bytes, whenever the service ingests the second
//! copy. With the service thread running (it ingests between its rounds,
//! while the first copy is pending), so a `csync(x)` that waited only for
//! the first copy lets the second read the new bytes of `x` in most rounds.
//! (Own test binary: it sets process-wide options.)

use copier::capi::*;
use core::ffi::c_void;

#[test]
fn csync_of_a_source_waits_for_the_copy_that_will_absorb_from_it() {
    copier::ensure_init();
    // small rounds: the service looks at its rings (and ingests) often
    let errs = copier::options::apply("max_round_bytes=16k:segment_size=4096");
    assert!(errs.is_empty(), "{errs:?}");
    let n = 1 << 20;
    let old: Vec<u8> = (0..n).map(|i| (i * 13 + i / 4093) as u8).collect();
    let mut x = old.clone();
    let mut y = vec![0u8; n];
    let mut z = vec![0u8; n];
    let mut absorbed = 0;
    for round in 0..1000 {
        let before = copier::stats::snapshot().absorbed_bytes;
        // SAFETY: x, y, z hold n bytes each; every range is synced before
        // the program touches it again.
        unsafe {
            amemcpy(y.as_mut_ptr() as *mut c_void, x.as_ptr() as *const c_void, n);
            amemcpy(z.as_mut_ptr() as *mut c_void, y.as_ptr() as *const c_void, n);
        }
        csync(x.as_ptr() as *const c_void, n);
        x.fill(0xa5);
        csync(z.as_ptr() as *const c_void, n);
        csync(y.as_ptr() as *const c_void, n);
        assert!(y == old, "round {round}: y differs at {:?}", y.iter().zip(&old).position(|(a, b)| a != b));
        assert!(z == old, "round {round}: z differs at {:?}", z.iter().zip(&old).position(|(a, b)| a != b));
        absorbed += (copier::stats::snapshot().absorbed_bytes != before) as usize;
        x.copy_from_slice(&old);
        y.fill(0);
        z.fill(0);
    }
    csync_all();
    // the shape the test is about happened (else it proves nothing)
    assert!(absorbed > 0, "no round absorbed");
}
