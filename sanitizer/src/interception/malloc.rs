//! `free`, `realloc`, `reallocarray`, `munmap`: memory a pending copy still
//! reads or writes must not be released (`free-before-csync`).

use core::ffi::c_void;

use crate::{check_free, real};

extern "C" {
    fn __libc_free(p: *mut c_void);
    fn __libc_realloc(p: *mut c_void, n: usize) -> *mut c_void;
    fn malloc_usable_size(p: *mut c_void) -> usize;
}

/// Bytes of the heap block at `p` (0 for null).
#[inline(always)]
fn block_len(p: *mut c_void) -> usize {
    if p.is_null() || crate::LIVE.load(core::sync::atomic::Ordering::Relaxed) == 0 {
        return 0; // nothing is pending: the check has nothing to find
    }
    // SAFETY: p is a live heap block (the caller is about to free it).
    unsafe { malloc_usable_size(p) }
}

/// Interceptor of `free`.
///
/// # Safety
/// As `free`.
#[no_mangle]
pub unsafe extern "C" fn free(p: *mut c_void) {
    if !p.is_null() && !crate::thread::in_runtime() {
        check_free!("free", p, block_len(p));
    }
    // SAFETY: forwarded contract.
    unsafe { __libc_free(p) }
}

/// Interceptor of `realloc`: the old block is read and may be freed.
///
/// # Safety
/// As `realloc`.
#[no_mangle]
pub unsafe extern "C" fn realloc(p: *mut c_void, n: usize) -> *mut c_void {
    if !p.is_null() && !crate::thread::in_runtime() {
        check_free!("realloc", p, block_len(p));
    }
    // SAFETY: forwarded contract.
    unsafe { __libc_realloc(p, n) }
}

/// Interceptor of `reallocarray`.
///
/// # Safety
/// As `reallocarray`.
#[no_mangle]
pub unsafe extern "C" fn reallocarray(p: *mut c_void, n: usize, size: usize) -> *mut c_void {
    let Some(total) = n.checked_mul(size) else {
        // SAFETY: errno is thread-local.
        unsafe { *libc::__errno_location() = libc::ENOMEM };
        return core::ptr::null_mut();
    };
    // SAFETY: forwarded contract.
    unsafe { realloc(p, total) }
}

/// Interceptor of `munmap`.
///
/// # Safety
/// As `munmap`.
#[no_mangle]
pub unsafe extern "C" fn munmap(addr: *mut c_void, len: usize) -> i32 {
    check_free!("munmap", addr, len);
    // SAFETY: forwarded contract.
    unsafe { real!(munmap: fn(*mut c_void, usize) -> i32)(addr, len) }
}
