//! Copy chains with absorption fan-in keep the tracker's work bounded
//! (review finding: 30-50 s stalls in `Tracker::retire`).
//!
//! Layer 1 copies K overlapping windows of one clean source `A` into
//! consecutive blocks of `B`; each next layer copies the whole previous
//! buffer (shifted by one byte) into the next one. Every layer's pending
//! writers all read `A`, so absorption could make one task read the same
//! bytes of `A` up to K times; layered, the repeats multiply and reader lists
//! grow to hundreds of entries that each retire rescanned per redirect. Here
//! a task reads each address at most once, so retiring every task costs a
//! bounded number of index steps per run — checked with the index's work
//! counter, not with a clock. Nothing runs before the final `csync_all`
//! (`spawn=0`), so the outcome is deterministic. (Own test binary: it sets
//! process-wide options.)

use copier::capi::*;
use core::ffi::c_void;

#[test]
fn fan_in_chain_retires_in_bounded_work() {
    copier::ensure_init();
    let errs = copier::options::apply("spawn=0:queue_depth=1024:threshold=64:segment_size=4096");
    assert!(errs.is_empty(), "{errs:?}");
    const K: usize = 48; // windows of A per layer
    const M: usize = 64 << 10; // bytes per window
    const STEP: usize = 1000; // windows overlap: A[i*STEP, i*STEP + M)
    const LAYERS: usize = 6;
    let total = K * M;
    let a: Vec<u8> = (0..M + K * STEP).map(|i| (i.wrapping_mul(2654435761) >> 11) as u8).collect();
    let mut bufs: Vec<Vec<u8>> = (0..=LAYERS).map(|l| vec![l as u8; total + LAYERS]).collect();
    let mut model = bufs.clone();
    let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
    let mut submitted = 0u64;
    for i in 0..K {
        // SAFETY: ranges inside `a` and `bufs[0]`, synced by csync_all below.
        let h = unsafe { copier_submit(ptrs[0].add(i * M) as *mut c_void, a.as_ptr().add(i * STEP) as *const c_void, M, 0, None, std::ptr::null_mut()) };
        assert_ne!(h, 0, "copy ran synchronously");
        model[0][i * M..(i + 1) * M].copy_from_slice(&a[i * STEP..i * STEP + M]);
        submitted += 1;
    }
    for l in 1..=LAYERS {
        // bufs[l][0, total) = bufs[l-1][1, total + 1)
        // SAFETY: as above.
        let h = unsafe { copier_submit(ptrs[l] as *mut c_void, ptrs[l - 1].add(1) as *const c_void, total, 0, None, std::ptr::null_mut()) };
        assert_ne!(h, 0, "copy ran synchronously");
        let (lo, hi) = model.split_at_mut(l);
        hi[0][..total].copy_from_slice(&lo[l - 1][1..total + 1]);
        submitted += 1;
    }
    // ingest everything (a csync of an unrelated byte), execute nothing
    let other = [0u8; 1];
    csync(other.as_ptr() as *const c_void, 1);
    let runs = copier::testing::index_len();
    let st0 = copier::stats::snapshot();
    assert_eq!(st0.tasks, 0, "nothing may run before csync_all");
    let w0 = copier::testing::index_work();
    csync_all();
    copier::testing::quiesce();
    let work = copier::testing::index_work() - w0;
    let st = copier::stats::snapshot();
    assert_eq!(st.tasks, submitted);
    assert!(st.absorbed_bytes > 0, "the chain absorbed nothing: the test no longer exercises absorption");
    for l in 0..=LAYERS {
        assert!(bufs[l] == model[l], "layer {l} differs from the sequential model");
    }
    assert_eq!(copier::testing::index_len(), 0, "index leaked runs");
    // Every retire visits each run of its (disjoint) ranges once, plus one
    // run per redirect at most, with O(log readers) probes per run: a
    // budget of 16 steps per (task, run of the ingested index) pair is
    // generous (about 10x what it takes). The quadratic version (repeated
    // reads, reader lists rescanned per redirect) took 34x this budget.
    let budget = 16 * submitted * runs as u64;
    eprintln!("fan-in chain: {submitted} tasks, {runs} runs, retire work {work} (budget {budget}), absorbed {} bytes", st.absorbed_bytes);
    assert!(work <= budget, "retire work {work} > {budget} for {submitted} tasks over {runs} runs");
}
