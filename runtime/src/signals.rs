//! Interposers of `sigaction` and the `signal` family (glibc's `signal`,
//! `bsd_signal`, `ssignal`, `sysv_signal`, `__sysv_signal`, `sigset`): each
//! forwards to the definition after libcopier (`dlsym(RTLD_NEXT)`, libc's)
//! and then tells the fault handling that the program set an action
//! (`copier_adapter::fault::note_sigaction`). So libcopier learns when a
//! program replaces its SIGSEGV/SIGBUS handler and must put its own back in
//! front, and otherwise checks nothing (one load per ingest, instead of two
//! `sigaction` system calls). The way sanitizer runtimes intercept
//! `sigaction` (compiler-rt `sanitizer_signal_interceptors.inc`).
//!
//! Calls that bypass the symbol (a raw `rt_sigaction` system call, libc's
//! internal calls) are not seen. libcopier trusts the count only when the
//! process's global binding of `sigaction` is this interposer
//! (`fault::probe_interposer`); otherwise (libcopier linked hidden into a
//! shared object, `dlopen`ed, behind a sanitizer's interceptor, or in a
//! binary that does not export it) it checks the kernel on every ingest as
//! before.

use copier_adapter::fault;
use core::ffi::c_int;
use core::sync::atomic::{AtomicUsize, Ordering};

/// `sighandler_t (*)(int, sighandler_t)`: `signal` and its variants.
type SignalFn = unsafe extern "C" fn(c_int, libc::sighandler_t) -> libc::sighandler_t;

/// The definition of `name` after libcopier, cached in `cache`; `None` when
/// the dynamic linker has none.
fn next(cache: &AtomicUsize, name: &core::ffi::CStr) -> Option<SignalFn> {
    let mut f = cache.load(Ordering::Acquire);
    if f == 0 {
        // SAFETY: dlsym with a constant name.
        f = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) } as usize;
        cache.store(f, Ordering::Release);
    }
    // SAFETY: a non-zero value is libc's function of that name, all of
    // which have the `signal` signature.
    (f != 0).then(|| unsafe { core::mem::transmute::<usize, SignalFn>(f) })
}

/// Forward a `signal`-style call to `name`'s next definition and note it.
///
/// # Safety
/// As `signal`.
unsafe fn forward(cache: &AtomicUsize, name: &core::ffi::CStr, sig: c_int, h: libc::sighandler_t) -> libc::sighandler_t {
    let Some(f) = next(cache, name) else {
        // SAFETY: setting errno of this thread.
        unsafe { *libc::__errno_location() = libc::ENOSYS };
        return libc::SIG_ERR;
    };
    // SAFETY: caller contract.
    let r = unsafe { f(sig, h) };
    fault::note_sigaction(sig, true);
    r
}

/// `sigaction(2)`, as libc's, noting a change of the action of `sig`.
///
/// # Safety
/// As `sigaction`.
#[no_mangle]
pub unsafe extern "C" fn sigaction(sig: c_int, act: *const libc::sigaction, old: *mut libc::sigaction) -> c_int {
    let Some(f) = fault::real_sigaction() else {
        // SAFETY: setting errno of this thread.
        unsafe { *libc::__errno_location() = libc::ENOSYS };
        return -1;
    };
    // SAFETY: caller contract.
    let r = unsafe { f(sig, act, old) };
    fault::note_sigaction(sig, !act.is_null());
    r
}

macro_rules! signal_interposer {
    ($(#[$doc:meta] $name:ident, $cache:ident;)*) => {
        $(
            static $cache: AtomicUsize = AtomicUsize::new(0);
            #[$doc]
            ///
            /// # Safety
            /// As libc's function of that name.
            #[no_mangle]
            pub unsafe extern "C" fn $name(sig: c_int, handler: libc::sighandler_t) -> libc::sighandler_t {
                // SAFETY: caller contract.
                unsafe { forward(&$cache, ::core::ffi::CStr::from_bytes_with_nul(concat!(stringify!($name), "\0").as_bytes()).unwrap(), sig, handler) }
            }
        )*
    };
}

signal_interposer! {
    /// `signal(3)`, forwarded to libc's, noting the change.
    signal, NEXT_SIGNAL;
    /// `bsd_signal(3)`, forwarded to libc's, noting the change.
    bsd_signal, NEXT_BSD_SIGNAL;
    /// glibc's `ssignal`, forwarded to libc's, noting the change.
    ssignal, NEXT_SSIGNAL;
    /// `sysv_signal(3)`, forwarded to libc's, noting the change.
    sysv_signal, NEXT_SYSV_SIGNAL;
    /// glibc's `__sysv_signal`, forwarded to libc's, noting the change.
    __sysv_signal, NEXT_SYSV_SIGNAL2;
    /// `sigset(3)`, forwarded to libc's, noting the change.
    sigset, NEXT_SIGSET;
}
