//! libcopier: the client library of Copier.
//!
//! PLACEHOLDER: this first cut executes every copy synchronously so that the
//! pass plugin, the sanitizer and the tools can link against the final C ABI
//! while the service (kernel-adapter) is built. The C surface below is the
//! contract; its implementation is replaced by the asynchronous one.

use core::ffi::c_void;

pub mod hooks;

/// Completion handler: called once with its argument after the copy completes.
pub type CopierHandlerFn = Option<unsafe extern "C" fn(arg: *mut c_void)>;

/// Submit an asynchronous copy of `n` bytes from `src` to `dst` (non-overlapping,
/// as `memcpy`) and return `dst` at once.
///
/// # Safety
/// As `memcpy`: both ranges valid for `n` bytes and not overlapping. The
/// caller must `csync` a range before accessing the destination or writing or
/// freeing the source.
#[no_mangle]
pub unsafe extern "C" fn amemcpy(dst: *mut c_void, src: *const c_void, n: usize) -> *mut c_void {
    if let Some(f) = hooks::get().and_then(|h| h.on_submit) {
        f(dst as usize, src as usize, n, 0);
    }
    // SAFETY: the caller upholds memcpy's contract.
    unsafe { core::ptr::copy(src as *const u8, dst as *mut u8, n) };
    dst
}

/// As [`amemcpy`], but the ranges may overlap (as `memmove`).
///
/// # Safety
/// As `memmove`.
#[no_mangle]
pub unsafe extern "C" fn amemmove(dst: *mut c_void, src: *const c_void, n: usize) -> *mut c_void {
    if let Some(f) = hooks::get().and_then(|h| h.on_submit) {
        f(dst as usize, src as usize, n, 0);
    }
    // SAFETY: the caller upholds memmove's contract.
    unsafe { core::ptr::copy(src as *const u8, dst as *mut u8, n) };
    dst
}

/// Wait until no earlier copy writes or reads any byte of `[addr, addr + n)`.
#[no_mangle]
pub extern "C" fn csync(addr: *const c_void, n: usize) {
    if let Some(f) = hooks::get().and_then(|h| h.on_sync) {
        f(addr as usize, n);
    }
}

/// Wait for every copy submitted before the call.
#[no_mangle]
pub extern "C" fn csync_all() {
    if let Some(f) = hooks::get().and_then(|h| h.on_sync_all) {
        f();
    }
}

/// Wait like [`csync`], then return an end address `>= addr + n` such that no
/// pending copy writes or reads `[addr, end)`.
#[no_mangle]
pub extern "C" fn csync_ready_end(addr: *const c_void, n: usize) -> *const c_void {
    if let Some(f) = hooks::get().and_then(|h| h.on_sync) {
        f(addr as usize, n);
    }
    (addr as usize).wrapping_add(n) as *const c_void
}
