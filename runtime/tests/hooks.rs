//! Sanitizer hooks: every submit (inline ones included) reaches `on_submit`
//! before the copy can complete, every sync reaches `on_sync`/`on_sync_all` (a `csync_all` also its
//! begin), every submit's return reaches `on_submitted`,
//! `copier_submit`'s handle is bound to the copy `on_submit` named and its
//! `copier_wait` reaches `on_wait` with that handle, handlers are bracketed, and `csync_ready_end` returns exactly `addr + n`
//! while a checker is registered.

use copier::capi::*;
use core::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

static SUBMITS: AtomicUsize = AtomicUsize::new(0);
static SUBMIT_BYTES: AtomicUsize = AtomicUsize::new(0);
static SYNCS: AtomicUsize = AtomicUsize::new(0);
static SYNC_ALLS: AtomicUsize = AtomicUsize::new(0);
static SYNC_ALL_BEGINS: AtomicUsize = AtomicUsize::new(0);
static SUBMITTED: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());
static ENTER: AtomicUsize = AtomicUsize::new(0);
static EXIT: AtomicUsize = AtomicUsize::new(0);
static HANDLED: AtomicUsize = AtomicUsize::new(0);
static DST: AtomicUsize = AtomicUsize::new(0);
static BOUND: std::sync::Mutex<Vec<(u64, u64)>> = std::sync::Mutex::new(Vec::new());
static WAITED: std::sync::Mutex<Vec<(u64, usize, usize)>> = std::sync::Mutex::new(Vec::new());

fn on_submit(dst: usize, _src: usize, len: usize, _flags: u32) -> u64 {
    // before the copy can complete: the destination still holds its old bytes
    // SAFETY: dst is the test's buffer, valid for len bytes.
    if SUBMITS.load(Relaxed) == 0 && dst == DST.load(Relaxed) && unsafe { *(dst as *const u8) } != 0 {
        panic!("on_submit after the copy completed");
    }
    SUBMIT_BYTES.fetch_add(len, Relaxed);
    // the copy's name: its submit number, from 1
    SUBMITS.fetch_add(1, Relaxed) as u64 + 1
}
fn on_handle(copy: u64, handle: u64) {
    BOUND.lock().unwrap().push((copy, handle));
}
fn on_wait(handle: u64, offset: usize, len: usize) {
    WAITED.lock().unwrap().push((handle, offset, len));
}
fn on_sync(_a: usize, _n: usize) {
    SYNCS.fetch_add(1, Relaxed);
}
fn on_submitted(copy: u64) {
    // after the submit returned: never before its on_submit
    assert!(copy as usize <= SUBMITS.load(Relaxed), "on_submitted({copy}) before its on_submit");
    SUBMITTED.lock().unwrap().push(copy);
}
fn on_sync_all_begin() {
    assert_eq!(SYNC_ALL_BEGINS.load(Relaxed), SYNC_ALLS.load(Relaxed), "begin before the wait's end");
    SYNC_ALL_BEGINS.fetch_add(1, Relaxed);
}
fn on_sync_all() {
    assert_eq!(SYNC_ALL_BEGINS.load(Relaxed), SYNC_ALLS.load(Relaxed) + 1, "each csync_all's end follows its begin");
    SYNC_ALLS.fetch_add(1, Relaxed);
}
fn on_enter(_d: usize, _s: usize, _n: usize) {
    ENTER.fetch_add(1, Relaxed);
}
fn on_exit() {
    EXIT.fetch_add(1, Relaxed);
}
unsafe extern "C" fn handler(_arg: *mut c_void) {
    assert_eq!(ENTER.load(Relaxed), HANDLED.load(Relaxed) + 1, "handler runs inside enter/exit");
    HANDLED.fetch_add(1, Relaxed);
}

static HOOKS: copier::hooks::Hooks = copier::hooks::Hooks {
    on_submit: Some(on_submit),
    on_handle: Some(on_handle),
    on_sync: Some(on_sync),
    on_wait: Some(on_wait),
    on_submitted: Some(on_submitted),
    on_sync_all_begin: Some(on_sync_all_begin),
    on_sync_all: Some(on_sync_all),
    on_handler_enter: Some(on_enter),
    on_handler_exit: Some(on_exit),
};

#[test]
fn hooks_see_every_submit_and_sync() {
    let n = 4 << 20;
    let src = vec![7u8; n];
    let mut dst = vec![0u8; n];
    DST.store(dst.as_mut_ptr() as usize, Relaxed);
    copier::hooks::set_hooks(&HOOKS);
    let (d, s) = (dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void);
    // SAFETY: buffers valid for n bytes; synced before use below.
    unsafe {
        amemcpy(d, s, n); // async
        csync(d, n);
        amemcpy(d, s, 16); // inline
        amemmove(d.add(1), d, 100);
        amemcpy_lazy(d, s, n);
        amemcpy_handler(d, s, n, Some(handler), std::ptr::null_mut());
        let h = copier_submit(d, s, n, 0, None, std::ptr::null_mut());
        assert_ne!(h, 0, "a 4 MiB copy is asynchronous");
        assert_eq!(*BOUND.lock().unwrap(), [(6, h)], "copier_submit's handle names the sixth copy; no other submit binds one");
        assert_eq!(copier_wait(h, 0, n), 0);
        assert_eq!(copier_wait(h, 0, n + 1), -1, "a range past the copy: no wait, no hook");
        assert_eq!(*WAITED.lock().unwrap(), [(h, 0, n)]);
        let end = csync_ready_end(d, 10) as usize;
        assert_eq!(end, d as usize + 10, "exactly addr+n under a checker");
    }
    csync_all();
    assert_eq!(SUBMITS.load(Relaxed), 6);
    assert_eq!(SUBMIT_BYTES.load(Relaxed), 4 * n + 116);
    assert!(SYNCS.load(Relaxed) >= 2, "csync, csync_ready_end");
    assert_eq!(SYNC_ALLS.load(Relaxed), 1);
    assert_eq!(SYNC_ALL_BEGINS.load(Relaxed), 1);
    assert_eq!(*SUBMITTED.lock().unwrap(), [1, 2, 3, 4, 5, 6], "every submit's return reaches on_submitted, in order");
    assert_eq!(HANDLED.load(Relaxed), 1);
    assert_eq!((ENTER.load(Relaxed), EXIT.load(Relaxed)), (1, 1));
    assert_eq!(dst, src);
}
