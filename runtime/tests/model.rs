//! Reference-model property test (issue 2): random streams of amemcpy /
//! amemmove / lazy / handler / low-level copies, csync, csync_all and writes
//! after sync over one buffer pool per thread, several threads at once. Every
//! synced range and the final state must equal the same stream run with
//! sequential memcpy/memmove on a model buffer.
//!
//! Small segments and threshold make nearly every copy asynchronous and
//! multi-segment; a short queue exercises the full-queue fallback. The total
//! number of operations is `COPIER_MODEL_OPS` (default 1_000_000).

use copier::capi::*;
use core::ffi::c_void;
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

const POOL: usize = 24 << 10;
fn threads() -> usize {
    std::env::var("COPIER_MODEL_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(3)
}
const OPS: usize = 400;

#[derive(Clone, Debug)]
enum Op {
    Copy { d: usize, s: usize, n: usize },
    Move { d: usize, s: usize, n: usize },
    Lazy { d: usize, s: usize, n: usize },
    Handler { d: usize, s: usize, n: usize },
    Desc { d: usize, s: usize, n: usize, wait_off: usize, wait_len: usize },
    Chain { a: usize, b: usize, c: usize, n: usize },
    LazyOverwrite { d: usize, s1: usize, s2: usize, n: usize },
    Sync { off: usize, n: usize },
    ReadyEnd { off: usize, n: usize },
    Write { off: usize, n: usize, v: u8 },
    SyncAll,
}

fn len_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![1usize..64, 64usize..1024, 1024usize..6000]
}

fn off(n: usize) -> impl Strategy<Value = usize> {
    // aligned and unaligned offsets so ranges collide often
    prop_oneof![(0..POOL / 256).prop_map(|x| x * 256), 0..POOL].prop_map(move |o: usize| o.min(POOL - n))
}

fn op_strategy() -> impl Strategy<Value = Op> {
    let copy3 = || len_strategy().prop_flat_map(|n| (off(n), off(n), Just(n)));
    prop_oneof![
        6 => copy3().prop_map(|(d, s, n)| Op::Copy { d, s, n }),
        2 => copy3().prop_map(|(d, s, n)| Op::Move { d, s, n }),
        2 => copy3().prop_map(|(d, s, n)| Op::Lazy { d, s, n }),
        1 => copy3().prop_map(|(d, s, n)| Op::Handler { d, s, n }),
        1 => (copy3(), 0usize..6000, 1usize..6000).prop_map(|((d, s, n), wait_off, wait_len)| Op::Desc { d, s, n, wait_off, wait_len }),
        2 => len_strategy().prop_flat_map(|n| (off(n), off(n), off(n), Just(n))).prop_map(|(a, b, c, n)| Op::Chain { a, b, c, n }),
        1 => len_strategy().prop_flat_map(|n| (off(n), off(n), off(n), Just(n))).prop_map(|(d, s1, s2, n)| Op::LazyOverwrite { d, s1, s2, n }),
        4 => len_strategy().prop_flat_map(|n| (off(n), Just(n))).prop_map(|(off, n)| Op::Sync { off, n }),
        1 => len_strategy().prop_flat_map(|n| (off(n), Just(n))).prop_map(|(off, n)| Op::ReadyEnd { off, n }),
        2 => (len_strategy(), any::<u8>()).prop_flat_map(|(n, v)| (off(n), Just(n), Just(v))).prop_map(|(off, n, v)| Op::Write { off, n, v }),
        1 => Just(Op::SyncAll),
    ]
}

fn overlap(a: usize, b: usize, n: usize) -> bool {
    a < b + n && b < a + n
}

unsafe extern "C" fn count_handler(arg: *mut c_void) {
    // SAFETY: arg is the &AtomicUsize the test passed, alive until csync_all.
    unsafe { (*(arg as *const AtomicUsize)).fetch_add(1, Ordering::Relaxed) };
}

/// One thread's stream against the real runtime and the model. Returns the
/// number of operations run.
fn run_stream(ops: &[Op], seed: u8) -> Result<usize, String> {
    let mut pool: Vec<u8> = (0..POOL).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect();
    let mut model = pool.clone();
    let p = pool.as_mut_ptr();
    let handlers = AtomicUsize::new(0);
    let mut handlers_submitted = 0usize;
    let at = |o: usize| -> *mut c_void { p.wrapping_add(o).cast() };
    let check = |model: &[u8], o: usize, n: usize, what: &str| -> Result<(), String> {
        // SAFETY: the range was just synced: no pending copy touches it.
        let got = unsafe { std::slice::from_raw_parts(p.add(o), n) };
        if got != &model[o..o + n] {
            let i = (0..n).find(|&i| got[i] != model[o + i]).unwrap();
            return Err(format!("{what}: byte {} of [{o}, +{n}) is {} want {}", o + i, got[i], model[o + i]));
        }
        Ok(())
    };
    for op in ops {
        // SAFETY: (every call below) ranges lie inside `pool`, which outlives
        // the copies (csync_all at the end); the stream follows the csync
        // rules: reads and writes of the pool happen only after a csync of
        // exactly that range.
        unsafe {
            match *op {
                Op::Copy { d, s, n } | Op::Lazy { d, s, n } | Op::Handler { d, s, n } if overlap(d, s, n) => {
                    amemmove(at(d), at(s), n);
                    model.copy_within(s..s + n, d);
                }
                Op::Copy { d, s, n } => {
                    amemcpy(at(d), at(s), n);
                    model.copy_within(s..s + n, d);
                }
                Op::Move { d, s, n } => {
                    amemmove(at(d), at(s), n);
                    model.copy_within(s..s + n, d);
                }
                Op::Lazy { d, s, n } => {
                    amemcpy_lazy(at(d), at(s), n);
                    model.copy_within(s..s + n, d);
                }
                Op::Handler { d, s, n } => {
                    amemcpy_handler(at(d), at(s), n, Some(count_handler), &handlers as *const AtomicUsize as *mut c_void);
                    handlers_submitted += 1;
                    model.copy_within(s..s + n, d);
                }
                Op::Desc { d, s, n, wait_off, wait_len } => {
                    let flags = if overlap(d, s, n) { COPIER_MOVE } else { 0 };
                    let h = copier_submit(at(d), at(s), n, flags, None, std::ptr::null_mut());
                    model.copy_within(s..s + n, d);
                    let q = copier_query(h, 0, n);
                    if !(0..=1).contains(&q) {
                        return Err(format!("copier_query returned {q}"));
                    }
                    // a range not inside the copy is an error (-1) while the
                    // handle's slot holds the copy (always here: nothing was
                    // submitted since); handle 0 knows no length
                    let inside = wait_off <= n && wait_len <= n - wait_off;
                    let (want_wait, want_query) = if h != 0 && !inside { (-1, -1) } else { (0, 1) };
                    let w = copier_wait(h, wait_off, wait_len);
                    if w != want_wait {
                        return Err(format!("copier_wait(+{wait_off}, {wait_len}) of a {n}-byte copy returned {w}, want {want_wait}"));
                    }
                    let q = copier_query(h, wait_off, wait_len);
                    if q != want_query {
                        return Err(format!("copier_query(+{wait_off}, {wait_len}) of a {n}-byte copy after copier_wait returned {q}, want {want_query}"));
                    }
                    if inside && d != s {
                        // (d == s is a no-op copy: nothing to wait for, and
                        // earlier copies into the range may still be pending)
                        let l = wait_len.min(n - wait_off);
                        // the waited bytes equal the model only if no later copy
                        // touches them yet: true here, nothing was submitted since
                        check(&model, d + wait_off, l, "copier_wait")?;
                    }
                }
                Op::Chain { a, b, c, n } => {
                    // a -> b -> c: the second copy reads the first's unsynced
                    // destination (absorption candidate)
                    amemmove(at(b), at(a), n);
                    model.copy_within(a..a + n, b);
                    amemmove(at(c), at(b), n);
                    model.copy_within(b..b + n, c);
                }
                Op::LazyOverwrite { d, s1, s2, n } => {
                    // a lazy copy whose destination is overwritten before use
                    if overlap(d, s1, n) || overlap(d, s2, n) {
                        continue;
                    }
                    amemcpy_lazy(at(d), at(s1), n);
                    model.copy_within(s1..s1 + n, d);
                    amemcpy(at(d), at(s2), n);
                    model.copy_within(s2..s2 + n, d);
                }
                Op::Sync { off, n } => {
                    csync(at(off), n);
                    check(&model, off, n, "csync")?;
                }
                Op::ReadyEnd { off, n } => {
                    let end = csync_ready_end(at(off), n) as usize;
                    let base = p as usize;
                    if end < base + off + n {
                        return Err(format!("csync_ready_end returned {end:#x} < addr+n"));
                    }
                    let ready = (end - base).min(POOL) - off;
                    check(&model, off, ready, "csync_ready_end window")?;
                }
                Op::Write { off, n, v } => {
                    csync(at(off), n);
                    std::ptr::write_bytes(p.add(off), v, n);
                    model[off..off + n].fill(v);
                }
                Op::SyncAll => {
                    csync_all();
                    check(&model, 0, POOL, "csync_all")?;
                }
            }
        }
    }
    csync_all();
    check(&model, 0, POOL, "final")?;
    if threads() == 1 && !copier::testing::nothing_pending() {
        std::thread::sleep(std::time::Duration::from_millis(10));
        if !copier::testing::nothing_pending() {
            return Err(format!("pending after csync_all:\n{}\nops: {ops:?}", copier::testing::debug_pending()));
        }
    }
    let h = handlers.load(Ordering::Relaxed);
    if h != handlers_submitted {
        return Err(format!("{h} handlers ran, {handlers_submitted} submitted"));
    }
    Ok(ops.len())
}

static OPS_RUN: AtomicUsize = AtomicUsize::new(0);

#[test]
fn matches_sequential_model() {
    copier::ensure_init();
    let errs = copier::options::apply("threshold=64:segment_size=256:queue_depth=32:lazy_window_us=300:exec_batch=2");
    assert!(errs.is_empty(), "{errs:?}");
    let errs = copier::options::apply(&std::env::var("COPIER_MODEL_OPTIONS").unwrap_or_default());
    assert!(errs.is_empty(), "{errs:?}");
    let target: usize = std::env::var("COPIER_MODEL_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let cases = target.div_ceil(threads() * OPS / 2) as u32 + 1;
    let cfg = ProptestConfig { cases, failure_persistence: None, max_shrink_iters: std::env::var("COPIER_MODEL_SHRINK").ok().and_then(|v| v.parse().ok()).unwrap_or(200), ..ProptestConfig::default() };
    proptest!(cfg, |(streams in proptest::collection::vec(proptest::collection::vec(op_strategy(), OPS / 2..=OPS), threads()))| {
        let results: Vec<Result<usize, String>> = std::thread::scope(|sc| {
            let hs: Vec<_> = streams.iter().enumerate().map(|(i, ops)| sc.spawn(move || run_stream(ops, i as u8))).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        if threads() == 1 {
            copier::testing::quiesce();
            prop_assert_eq!(copier::testing::index_len(), 0, "index leaked runs");
        }
        for r in results {
            match r {
                Ok(n) => { OPS_RUN.fetch_add(n, Ordering::Relaxed); }
                Err(e) => prop_assert!(false, "{}", e),
            }
        }
    });
    copier::testing::quiesce();
    assert_eq!(copier::testing::index_len(), 0, "tracker index leaked runs after every task retired");
    let st = copier::stats::snapshot();
    let ops = OPS_RUN.load(Ordering::Relaxed);
    eprintln!("model: {ops} operations in {cases} cases x {} threads; {}", threads(), st.line());
    assert!(ops >= target, "ran {ops} < {target} operations");
    assert!(st.tasks > 0, "no copy ran asynchronously");
    assert!(st.absorbed_bytes > 0, "absorption never happened");
    assert!(st.lazy_dropped > 0, "no lazy copy was dropped");
}
