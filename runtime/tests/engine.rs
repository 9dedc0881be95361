//! Copy engines against a naive oracle (proptest, memchr's `prop.rs` style):
//! every synchronous engine and every recoverable routine copies what
//! `copy_from_slice` copies, at random sizes and alignments, touching no
//! byte outside the destination. And, per engine forced as
//! `COPIER_OPTIONS=engine=` forces it, a recoverable copy into a PROT_NONE
//! page returns the fault with its completed prefix (the segment holding the
//! fault is the first one reported undone) and the process survives.

#![cfg(target_arch = "x86_64")]

use copier_adapter::engine::arch::x86_64::{avx2, avx512, erms, recover};
use copier_adapter::engine::{self, Engine};
use proptest::prelude::*;

/// One copy of `n` bytes at offsets `da`/`sa` into buffers padded by 128
/// bytes on both sides: the copied bytes equal the source's and no byte
/// around them changed.
fn check(name: &str, n: usize, da: usize, sa: usize, f: &dyn Fn(*mut u8, *const u8, usize)) -> Result<(), TestCaseError> {
    let src: Vec<u8> = (0..n + 256).map(|i| (i * 31 + 7) as u8).collect();
    let mut dst = vec![0xEEu8; n + 256];
    f(dst.as_mut_ptr().wrapping_add(128 + da), src.as_ptr().wrapping_add(128 + sa), n);
    prop_assert!(dst[..128 + da].iter().all(|&b| b == 0xEE), "{name}: underrun n={n}");
    prop_assert_eq!(&dst[128 + da..128 + da + n], &src[128 + sa..128 + sa + n], "{}: n={} da={} sa={}", name, n, da, sa);
    prop_assert!(dst[128 + da + n..].iter().all(|&b| b == 0xEE), "{name}: overrun n={n}");
    Ok(())
}

/// Lengths weighted towards the class boundaries (256, 2 KiB, pages).
fn len() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..600, 600usize..5000, 5000usize..70_000, (1usize..20).prop_map(|k| k * 4096 - 1)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn synchronous_engines_agree_with_memcpy(n in len(), da in 0usize..128, sa in 0usize..128) {
        if avx512::is_available() {
            // SAFETY: check() passes valid disjoint n-byte ranges; AVX-512F checked.
            check("avx512", n, da, sa, &|d, s, n| unsafe { avx512::copy(d, s, n) })?;
        }
        if avx2::is_available() {
            // SAFETY: as above; AVX2 checked.
            check("avx2", n, da, sa, &|d, s, n| unsafe { avx2::copy(d, s, n) })?;
        }
        // SAFETY: as above (rep movsb is baseline x86-64).
        check("erms", n, da, sa, &|d, s, n| unsafe { erms::copy(d, s, n) })?;
        // SAFETY: as above.
        check("portable", n, da, sa, &|d, s, n| unsafe { engine::arch::all::copy(d, s, n) })?;
    }

    #[test]
    fn recoverable_routines_agree_with_memcpy(n in len(), da in 0usize..128, sa in 0usize..128) {
        for r in recover::Routine::ALL.into_iter().filter(|r| r.is_available()) {
            // SAFETY: as above.
            check(r.name(), n, da, sa, &|d, s, n| unsafe { recover::run(r, d, s, n) }.expect("no fault"))?;
        }
    }
}

/// Per available engine (forced through the option): a 64 KiB recoverable
/// copy whose destination runs into a PROT_NONE page after `k` good 4 KiB
/// segments faults, reports a prefix inside segment `k - 1` or `k` (within
/// one loop block before the bad page), and the prefix was copied; the
/// same copy into good memory succeeds. Also the option's errors.
#[test]
fn forced_engines_report_faults_at_the_right_segment() {
    copier::ensure_init();
    copier_adapter::fault::install();
    assert!(copier_adapter::fault::installed());
    let seg = 4096;
    for e in Engine::ALL.into_iter().filter(|e| e.is_available()) {
        copier::options::set("engine", e.name()).unwrap();
        assert_eq!(engine::current(), e);
        for k in [1usize, 3, 15] {
            let n = 16 * seg;
            // SAFETY: anonymous mapping of n + one page, page k made PROT_NONE.
            let base = unsafe {
                let p = libc::mmap(core::ptr::null_mut(), n + seg, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
                assert_ne!(p, libc::MAP_FAILED);
                assert_eq!(libc::mprotect((p as *mut u8).add(k * seg).cast(), seg, libc::PROT_NONE), 0);
                p as *mut u8
            };
            let src: Vec<u8> = (0..n).map(|i| (i * 3 + 1) as u8).collect();
            // SAFETY: the destination faults at page k and is recovered.
            let r = unsafe { engine::copy_recoverable_at(base, src.as_ptr(), n) };
            let done = r.expect_err(e.name()).done;
            assert!(done <= k * seg && k * seg - done <= 256, "{}: k={k} done={done}", e.name());
            assert!(done / seg == k || done / seg == k - 1, "{}: fault reported in segment {}", e.name(), done / seg);
            // SAFETY: [0, done) lies before the bad page.
            assert_eq!(unsafe { core::slice::from_raw_parts(base, done) }, &src[..done], "{}: prefix", e.name());
            // SAFETY: the copy before the bad page succeeds entirely.
            assert_eq!(unsafe { engine::copy_recoverable_at(base, src.as_ptr(), k * seg) }, Ok(()));
            // SAFETY: unmapping our own mapping.
            unsafe { libc::munmap(base.cast(), n + seg) };
        }
    }
    let bad = copier::options::set("engine", "sse9").unwrap_err().to_string();
    assert_eq!(bad, "bad value 'sse9' for option 'engine' (expected auto, avx512, avx2, erms or portable, one this CPU runs)");
    if let Some(e) = Engine::ALL.into_iter().find(|e| !e.is_available()) {
        assert!(copier::options::set("engine", e.name()).is_err());
        assert!(engine::force(Some(e)).is_err());
    }
    copier::options::set("engine", "auto").unwrap();
    assert_eq!(engine::current(), Engine::ALL.into_iter().find(|e| e.is_available()).unwrap());
}
