//! `pthread_create`: numbers threads in creation order (`T1`, `T2`, …) and
//! records where each was created, for reports.

use core::ffi::{c_int, c_void};

use crate::real;

type StartFn = extern "C" fn(*mut c_void) -> *mut c_void;

struct Start {
    f: StartFn,
    arg: *mut c_void,
    id: u32,
}

extern "C" fn trampoline(p: *mut c_void) -> *mut c_void {
    // SAFETY: p is the Box<Start> leaked by pthread_create below, handed to
    // exactly one new thread.
    let s = unsafe { Box::from_raw(p as *mut Start) };
    crate::thread::set_current(s.id);
    (s.f)(s.arg)
}

/// Interceptor of `pthread_create`.
///
/// # Safety
/// As `pthread_create`.
#[no_mangle]
pub unsafe extern "C" fn pthread_create(t: *mut libc::pthread_t, attr: *const libc::pthread_attr_t, f: StartFn, arg: *mut c_void) -> c_int {
    let real = real!(pthread_create: fn(*mut libc::pthread_t, *const libc::pthread_attr_t, StartFn, *mut c_void) -> c_int);
    if crate::thread::in_runtime() {
        // SAFETY: forwarded contract.
        return unsafe { real(t, attr, f, arg) };
    }
    let id = {
        let _g = crate::thread::RuntimeGuard::enter();
        crate::thread::reserve_child(crate::stack::capture(32))
    };
    let p = Box::into_raw(Box::new(Start { f, arg, id }));
    // SAFETY: forwarded contract; trampoline takes ownership of p.
    let r = unsafe { real(t, attr, trampoline, p.cast()) };
    if r != 0 {
        // SAFETY: the thread was not created; p is still ours.
        drop(unsafe { Box::from_raw(p) });
    }
    r
}
