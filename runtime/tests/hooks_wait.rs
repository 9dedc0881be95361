//! `copier_wait` reaches the checker's `on_wait` with the descriptor's
//! handle on every path that returns 0, from any thread: also when the
//! copy's slot was already reused, where the runtime itself knows nothing
//! of the copy any more. (Own test binary: hooks and `queue_depth` are
//! process-wide.)

use copier::capi::*;
use core::ffi::c_void;
use std::sync::Mutex;

static BOUND: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());
static WAITED: Mutex<Vec<(u64, usize, usize)>> = Mutex::new(Vec::new());
static NEXT: Mutex<u64> = Mutex::new(0);

fn on_submit(_dst: usize, _src: usize, _len: usize, _flags: u32) -> u64 {
    let mut k = NEXT.lock().unwrap();
    *k += 1;
    *k
}
fn on_handle(copy: u64, handle: u64) {
    BOUND.lock().unwrap().push((copy, handle));
}
fn on_wait(handle: u64, offset: usize, len: usize) {
    WAITED.lock().unwrap().push((handle, offset, len));
}

static HOOKS: copier::hooks::Hooks = copier::hooks::Hooks {
    on_submit: Some(on_submit),
    on_handle: Some(on_handle),
    on_sync: None,
    on_wait: Some(on_wait),
    on_submitted: None,
    on_sync_all_begin: None,
    on_sync_all: None,
    on_handler_enter: None,
    on_handler_exit: None,
};

#[test]
fn wait_on_recycled_slot_from_another_thread_reaches_on_wait() {
    copier::ensure_init();
    copier::options::set("queue_depth", "4").unwrap();
    copier::hooks::set_hooks(&HOOKS);
    let n = 1 << 16;
    let src = vec![5u8; n];
    let mut dst = vec![0u8; n];
    let mut tmp = vec![0u8; n];
    // SAFETY: buffers valid for n bytes; each copy is waited for or
    // csynced before its buffers are used again.
    let h = unsafe { copier_submit(dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n, 0, None, std::ptr::null_mut()) };
    assert_ne!(h, 0, "a 64 KiB copy is asynchronous");
    assert_eq!(*BOUND.lock().unwrap(), [(1, h)]);
    // Copy on until h's slot holds a later copy: a range past the copy's
    // end is refused (-1) while the slot still knows the copy and reads as
    // complete (1) once it was reused (4 slots; every asynchronous copy
    // takes the next one once the first copy retired).
    let mut rounds = 0;
    while copier_query(h, 0, n + 1) != 1 {
        assert_eq!(copier_query(h, 0, n + 1), -1);
        rounds += 1;
        assert!(rounds < 1_000_000, "the slot was never reused");
        // SAFETY: as above.
        unsafe { amemcpy(tmp.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, n) };
        csync(tmp.as_ptr() as *const c_void, n);
    }
    assert!(rounds >= 4, "{rounds} copies reused one of 4 slots");
    assert!(WAITED.lock().unwrap().is_empty(), "copier_query is no wait");
    let d = std::thread::spawn(move || {
        assert_eq!(copier_wait(h, 0, n), 0);
        assert_eq!(copier_wait(0, 0, n), 0);
        copier_wait(h, 0, n + 1)
    })
    .join()
    .unwrap();
    assert_eq!(d, 0, "a reused slot no longer knows the length");
    assert_eq!(*WAITED.lock().unwrap(), [(h, 0, n), (h, 0, n + 1)], "every wait of h that returned 0 reached the hook; handle 0 names no copy");
    assert_eq!(dst, src);
    assert_eq!(copier_wait(1 << 40, 0, 1), -1, "never issued");
    assert_eq!(WAITED.lock().unwrap().len(), 2);
}
