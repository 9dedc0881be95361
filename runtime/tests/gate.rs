//! The inline fast path's gate (`copier_adapter::gate`): open when nothing
//! is pending, closed while any thread has a pending copy, reopened by the
//! thread itself once its queue drained or by the idle service for threads
//! that went quiet; and small copies that touch a pending copy's bytes
//! never take the fast path. (Own test binary: it sets process-wide
//! options.)

use copier::capi::*;
use copier::testing::{fast_path_open, gate_holds};
use core::ffi::c_void;
use std::time::{Duration, Instant};

/// The tests share the process-wide gate: run them one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what} (holds {})", gate_holds());
        std::thread::yield_now();
    }
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(7).wrapping_add(seed)).collect()
}

#[test]
fn gate_follows_pending_copies() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    copier::ensure_init();
    copier::options::set("stats", "0").unwrap();
    copier::testing::quiesce();
    eventually("gate open at start", fast_path_open);

    // own thread: a pending copy closes the gate
    let n = 1 << 20;
    let src = pattern(n, 1);
    let mut dst = vec![0u8; n];
    // SAFETY: buffers valid for n bytes; synced before use.
    unsafe { amemcpy(dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n) };
    let pending = !copier::testing::nothing_pending();
    if pending {
        assert!(!fast_path_open(), "gate open while this thread's copy is pending");
        assert!(gate_holds() >= 1);
    }
    // a small copy reading the pending destination waits for it
    let mut small = [0u8; 100];
    // SAFETY: reads bytes [500, 600) of dst, which the pending copy writes.
    unsafe { amemcpy(small.as_mut_ptr() as *mut c_void, dst.as_ptr().add(500) as *const c_void, 100) };
    csync(small.as_ptr() as *const c_void, 100);
    assert_eq!(&small[..], &src[500..600]);
    csync(dst.as_ptr() as *const c_void, n);
    assert_eq!(dst, src);
    // the next small copy releases this thread's own hold once drained
    eventually("own hold released", || {
        let (a, mut b) = ([1u8; 8], [0u8; 8]);
        // SAFETY: stack buffers of 8 bytes.
        unsafe { amemcpy(b.as_mut_ptr() as *mut c_void, a.as_ptr() as *const c_void, 8) };
        assert_eq!(a, b);
        fast_path_open()
    });

    // another thread goes quiet with its hold: the idle service releases it
    if copier::testing::membarrier_available() && copier::testing::service_running() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            let src = pattern(n, 3);
            let mut dst = vec![0u8; n];
            // SAFETY: as above.
            unsafe { amemcpy(dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n) };
            csync(dst.as_ptr() as *const c_void, n);
            assert_eq!(dst, src);
            done_tx.send(()).unwrap();
            rx.recv().unwrap(); // stay alive, never call Copier again
        });
        done_rx.recv().unwrap();
        eventually("idle service released the quiet thread's hold", fast_path_open);
        tx.send(()).unwrap();
        t.join().unwrap();
    } else {
        eprintln!("gate: no membarrier or no service thread: remote release not tested");
    }
}

/// Several threads interleave asynchronous copies with small copies that
/// read their still-pending destinations (which must see the new bytes,
/// never stale ones) and small copies of unrelated bytes (the fast path
/// when the gate is open). Each round writes a new pattern, so a small copy
/// that ran without waiting would read the previous round's bytes.
#[test]
fn small_copies_never_overtake_pending_ones() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    copier::ensure_init();
    copier::options::set("stats", "0").unwrap();
    std::thread::scope(|sc| {
        for t in 0..4u8 {
            sc.spawn(move || {
                let n = 64 << 10;
                let srcs = [pattern(n, t), pattern(n, t.wrapping_add(100))];
                let mut dst = vec![0u8; n];
                for round in 0..300usize {
                    let src = &srcs[round % 2];
                    // SAFETY: buffers valid; synced (csync_all) before reuse.
                    unsafe { amemcpy(dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n) };
                    let off = (round * 977) % (n - 256);
                    let len = 1 + round % 256;
                    let mut small = [0u8; 256];
                    // SAFETY: reads [off, off + len) of the pending destination.
                    unsafe { amemcpy(small.as_mut_ptr() as *mut c_void, dst.as_ptr().add(off) as *const c_void, len) };
                    let (a, mut b) = ([round as u8; 48], [0u8; 48]);
                    // SAFETY: unrelated stack buffers.
                    unsafe { amemcpy(b.as_mut_ptr() as *mut c_void, a.as_ptr() as *const c_void, 48) };
                    csync(small.as_ptr() as *const c_void, len);
                    assert_eq!(&small[..len], &src[off..off + len], "thread {t} round {round}: a small copy overtook the pending one");
                    csync(b.as_ptr() as *const c_void, 48);
                    assert_eq!(a, b);
                    if round % 7 == 0 {
                        csync_all();
                    } else {
                        csync(dst.as_ptr() as *const c_void, n);
                    }
                    assert_eq!(&dst, src);
                }
            });
        }
    });
    copier::testing::quiesce();
}
