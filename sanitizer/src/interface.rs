//! The named ABI between the instrumentation pass and this runtime (after
//! compiler-rt's `asan_interface.inc`): one prefix, the access kind and size
//! in each name, a `_noabort` variant of each check, and a version-check
//! symbol the pass's module constructor calls, so a module instrumented for
//! another ABI version fails to link instead of misbehaving.
//!
//! The pass (`passes/src/sanitizer/abi.rs`) keeps the same names as constants
//! atop the pass; `scripts/tests.d/80-sanitizer.sh` diffs [`SYMBOLS`]
//! against the symbols `libcopier_san.a` defines.
//!
//! Contract of a check entry point: the pass calls it only after its inline
//! fast path found a nonzero shadow word covering the access; the entry
//! point checks exactly the bytes of the access and reports if one is
//! pending (a read meets a pending destination; a write meets a pending
//! destination or source). `_noabort` variants never halt the program.

use crate::errors::Access;
#[cfg(not(test))]
use std::ffi::{c_char, c_int};
use crate::report::check;

/// Prefix of every ABI symbol.
pub const PREFIX: &str = "__copier_san_";
/// ABI version; part of [`VERSION_CHECK`].
pub const ABI_VERSION: u32 = 1;
/// Called by every instrumented module's constructor.
pub const VERSION_CHECK: &str = "__copier_san_version_mismatch_check_v1";
/// Initializes the runtime (idempotent); called by module constructors.
pub const INIT: &str = "__copier_san_init";

/// Every symbol of the ABI.
pub const SYMBOLS: &[&str] = &[
    "__copier_san_init",
    "__copier_san_version_mismatch_check_v1",
    "__copier_san_load1",
    "__copier_san_load2",
    "__copier_san_load4",
    "__copier_san_load8",
    "__copier_san_load16",
    "__copier_san_loadN",
    "__copier_san_store1",
    "__copier_san_store2",
    "__copier_san_store4",
    "__copier_san_store8",
    "__copier_san_store16",
    "__copier_san_storeN",
    "__copier_san_load1_noabort",
    "__copier_san_load2_noabort",
    "__copier_san_load4_noabort",
    "__copier_san_load8_noabort",
    "__copier_san_load16_noabort",
    "__copier_san_loadN_noabort",
    "__copier_san_store1_noabort",
    "__copier_san_store2_noabort",
    "__copier_san_store4_noabort",
    "__copier_san_store8_noabort",
    "__copier_san_store16_noabort",
    "__copier_san_storeN_noabort",
    "__copier_san_ready_end",
    "__copier_san_return",
    "__copier_san_return_noabort",
    "__copier_san_scope_end",
    "__copier_san_scope_end_noabort",
    "__copier_san_cxx_throw",
    "__copier_san_cxx_catch",
    "__copier_san_live",
    "__copier_san_copiergen_memcpy",
    "__copier_san_copiergen_memmove",
    "__copier_san_copiergen_io",
    "__copier_san_copiergen_memcpy_noabort",
    "__copier_san_copiergen_memmove_noabort",
    "__copier_san_copiergen_io_noabort",
];

/// Initialize the runtime (shadow, flags, hooks, interceptors). Idempotent.
#[no_mangle]
pub extern "C" fn __copier_san_init() {
    crate::init();
}

/// Maps the shadow before any instrumented code can run: glibc's `_dl_init`
/// calls the executable's `.preinit_array` before the constructors of every
/// shared library (ELF gABI "Initialization and Termination Functions"), and
/// a library's constructor may call an instrumented function of the
/// executable (an inline C++ function the executable also instantiated),
/// whose inline shadow load faults on an unmapped shadow. AddressSanitizer
/// maps its shadow from the same place (`asan_preinit.cpp`).
///
/// The entry lives next to [`__copier_san_init`], which every instrumented
/// module's constructor references, so the linker always pulls it out of
/// `libcopier_san.a`. That archive is linked into executables only
/// (`copiergen cc --sanitize -shared` leaves the runtime to the executable);
/// a dynamic loader ignores `.preinit_array` of a shared object. Code that
/// runs earlier still (IFUNC resolvers during relocation, another
/// `.preinit_array` entry linked before this one) must not be instrumented,
/// as under ASan. Before the shadow is mapped no copy is pending
/// ([`crate::LIVE`] is 0), so the runtime's own checks and interceptors
/// never touch the shadow then.
#[cfg(not(test))]
#[used]
#[link_section = ".preinit_array"]
pub static PREINIT: extern "C" fn(c_int, *const *const c_char, *mut *const c_char) = preinit;

/// The `.preinit_array` function: called by the loader with `argc`, `argv`
/// and `envp` (glibc `elf/dl-init.c`); keeps `envp` for the flag parser,
/// then initializes the runtime.
#[cfg(not(test))]
extern "C" fn preinit(_argc: c_int, _argv: *const *const c_char, envp: *mut *const c_char) {
    crate::flags::PREINIT_ENVP.store(envp, core::sync::atomic::Ordering::Relaxed);
    crate::init();
}

/// Exists only to be linked: a module instrumented for ABI version 1 calls
/// it from its constructor.
#[no_mangle]
pub extern "C" fn __copier_san_version_mismatch_check_v1() {}

macro_rules! sized_checks {
    ($($n:literal: $load:ident $store:ident $load_na:ident $store_na:ident;)*) => {$(
        #[doc = concat!("Check a ", $n, "-byte read at `addr`.")]
        #[no_mangle]
        pub extern "C" fn $load(addr: usize) {
            check(addr, $n, Access::Read, None, false);
        }
        #[doc = concat!("Check a ", $n, "-byte write at `addr`.")]
        #[no_mangle]
        pub extern "C" fn $store(addr: usize) {
            check(addr, $n, Access::Write, None, false);
        }
        #[doc = concat!("Check a ", $n, "-byte read at `addr`; never halts.")]
        #[no_mangle]
        pub extern "C" fn $load_na(addr: usize) {
            check(addr, $n, Access::Read, None, true);
        }
        #[doc = concat!("Check a ", $n, "-byte write at `addr`; never halts.")]
        #[no_mangle]
        pub extern "C" fn $store_na(addr: usize) {
            check(addr, $n, Access::Write, None, true);
        }
    )*};
}

sized_checks! {
    1: __copier_san_load1 __copier_san_store1 __copier_san_load1_noabort __copier_san_store1_noabort;
    2: __copier_san_load2 __copier_san_store2 __copier_san_load2_noabort __copier_san_store2_noabort;
    4: __copier_san_load4 __copier_san_store4 __copier_san_load4_noabort __copier_san_store4_noabort;
    8: __copier_san_load8 __copier_san_store8 __copier_san_load8_noabort __copier_san_store8_noabort;
    16: __copier_san_load16 __copier_san_store16 __copier_san_load16_noabort __copier_san_store16_noabort;
}

/// Check a read of `size` bytes at `addr` (memory intrinsics, odd sizes).
#[no_mangle]
pub extern "C" fn __copier_san_loadN(addr: usize, size: usize) {
    check(addr, size, Access::Read, None, false);
}

/// Check a write of `size` bytes at `addr`.
#[no_mangle]
pub extern "C" fn __copier_san_storeN(addr: usize, size: usize) {
    check(addr, size, Access::Write, None, false);
}

/// As [`__copier_san_loadN`]; never halts.
#[no_mangle]
pub extern "C" fn __copier_san_loadN_noabort(addr: usize, size: usize) {
    check(addr, size, Access::Read, None, true);
}

/// As [`__copier_san_storeN`]; never halts.
#[no_mangle]
pub extern "C" fn __copier_san_storeN_noabort(addr: usize, size: usize) {
    check(addr, size, Access::Write, None, true);
}

/// The end of a stack variable's life: `kind` is [`Access::Return`] or
/// [`Access::ScopeEnd`]; `via` names the function that ended it when that
/// is not a return (`longjmp`). Reports if a pending copy still writes or
/// reads a byte of `[addr, addr + size)`; when the program goes on
/// (`recover`, or `halt_on_error=0`), waits for those copies (`csync`), so
/// the copy does not land in a frame the program reuses.
pub(crate) fn frame_end(addr: usize, size: usize, kind: Access, via: Option<&'static str>, recover: bool) {
    if !crate::report::would_report(addr, size, kind) {
        return;
    }
    check(addr, size, kind, via, recover);
    // SAFETY: csync only waits; any range is valid.
    unsafe { csync(addr as *const core::ffi::c_void, size) };
}

/// Called by instrumented code before a function returns (`ret`, `resume`,
/// or a `musttail` call), once for each stack variable (`alloca`) whose
/// address escapes to a call: `return-before-csync` if a pending copy
/// still writes or reads one of its `size` bytes at `addr`. Variables
/// whose address never reaches a call cannot be a copy's buffer and are
/// not checked.
#[no_mangle]
pub extern "C" fn __copier_san_return(addr: usize, size: usize) {
    frame_end(addr, size, Access::Return, None, false);
}

/// As [`__copier_san_return`]; never halts.
#[no_mangle]
pub extern "C" fn __copier_san_return_noabort(addr: usize, size: usize) {
    frame_end(addr, size, Access::Return, None, true);
}

/// Called before `llvm.lifetime.end` of an escaping stack variable (the end
/// of its C/C++ scope) that is not followed by the function's return:
/// `scope-end-before-csync` if a pending copy still writes or reads it.
#[no_mangle]
pub extern "C" fn __copier_san_scope_end(addr: usize, size: usize) {
    frame_end(addr, size, Access::ScopeEnd, None, false);
}

/// As [`__copier_san_scope_end`]; never halts.
#[no_mangle]
pub extern "C" fn __copier_san_scope_end_noabort(addr: usize, size: usize) {
    frame_end(addr, size, Access::ScopeEnd, None, true);
}

extern "C" {
    /// libcopier's `csync` (runtime/include/copier.h), by its reserved
    /// symbol: a program's own `csync` must not take the call.
    #[link_name = "__copier_csync"]
    fn csync(addr: *const core::ffi::c_void, n: usize);
    /// libcopier's entry point (runtime/include/copier.h), linked into the
    /// same archive (its reserved symbol).
    #[link_name = "__copier_csync_ready_end"]
    fn csync_ready_end(addr: *const core::ffi::c_void, n: usize) -> *const core::ffi::c_void;
}

/// What an instrumented module calls instead of `csync_ready_end(addr, n)`.
///
/// libcopier under the sanitizer returns exactly `addr + n` (timing-free),
/// which makes a CopierGen window loop call the runtime once per access
/// (a byte parser: once per byte, tens of times slower than the plain
/// build). This returns a wider window that is still a function of the
/// program's submits and syncs only (see `Tracker::ready_window`: up to the
/// next pending copy when the request meets none; up to
/// [`crate::hooks::READY_WINDOW`] bytes, or up to
/// [`crate::hooks::READY_WINDOW_WALK`] for a walk, of the buffer it meets, a pending
/// destination or source, never into another copy's), after syncing its
/// pending part ([`crate::hooks::ready_end`], which waits like a csync
/// and drives the tracker like one). The caller may use `[addr, end)`,
/// exactly as libcopier's contract allows; an access past the returned end
/// is still reported.
///
/// # Safety
/// As `csync_ready_end`: any `addr` and `n` (nothing is dereferenced).
#[no_mangle]
pub unsafe extern "C" fn __copier_san_ready_end(addr: *const core::ffi::c_void, n: usize) -> *const core::ffi::c_void {
    // No pending copy: every copy the program submitted has been synced
    // (and is complete), so everything is ready, as libcopier answers when
    // nothing is pending. CopierGen's loops ask once per loop entry; zlib's
    // longest_match enters its loop tens of millions of times.
    if crate::LIVE.load(core::sync::atomic::Ordering::Relaxed) == 0 {
        return usize::MAX as *const core::ffi::c_void;
    }
    if n == 0 {
        // SAFETY: forwarded contract.
        return unsafe { csync_ready_end(addr, n) };
    }
    crate::hooks::ready_end(addr as usize, n) as *const core::ffi::c_void
}

/// The check of a copy CopierGen made of the program's `memcpy` (or
/// `memmove`, `via`) of `n` bytes from `src` to `dst`, run by instrumented
/// code right before the pass's submit call (`passes/src/sanitizer/
/// copiergen_calls.rs`): the submit is labelled CopierGen's
/// ([`crate::hooks::expect_copiergen_submit`]), and the copy is checked
/// as the `memcpy` interceptor checks the call it stands for (a read of
/// `src`, a write of `dst`), against the bytes of copies the program
/// submitted itself only: CopierGen's copies may chain on its own pending
/// copies (the runtime orders them), but not hide the program's
/// read-before-csync of a pending destination behind such a chain.
fn copiergen_copy(dst: usize, src: usize, n: usize, via: &'static str, recover: bool) {
    crate::hooks::expect_copiergen_submit(dst, src, n);
    crate::report::check_program(src, n, Access::Read, Some(via), recover);
    crate::report::check_program(dst, n, Access::Write, Some(via), recover);
}

/// Before CopierGen's `__copier_amemcpy_site` or lazy copy (`amemcpy_lazy`)
/// of the program's `memcpy(dst, src, n)`: see [`copiergen_copy`].
#[no_mangle]
pub extern "C" fn __copier_san_copiergen_memcpy(dst: usize, src: usize, n: usize) {
    copiergen_copy(dst, src, n, "memcpy", false);
}

/// Before CopierGen's `__copier_amemmove_site` of the program's
/// `memmove(dst, src, n)`: see [`copiergen_copy`].
#[no_mangle]
pub extern "C" fn __copier_san_copiergen_memmove(dst: usize, src: usize, n: usize) {
    copiergen_copy(dst, src, n, "memmove", false);
}

/// As [`__copier_san_copiergen_memcpy`]; never halts.
#[no_mangle]
pub extern "C" fn __copier_san_copiergen_memcpy_noabort(dst: usize, src: usize, n: usize) {
    copiergen_copy(dst, src, n, "memcpy", true);
}

/// As [`__copier_san_copiergen_memmove`]; never halts.
#[no_mangle]
pub extern "C" fn __copier_san_copiergen_memmove_noabort(dst: usize, src: usize, n: usize) {
    copiergen_copy(dst, src, n, "memmove", true);
}

/// The check of a write/send call CopierGen absorbed (made it call the
/// runtime's entry point `copier_abi::symbols::ABSORBING[which].1`, which
/// reads pending bytes from the copies' sources), run right before it:
/// what the libc call `ABSORBING[which].0` reads (`buf, n`: its buffer and
/// length; for `writev`/`pwritev`, the iovec array and its count; for
/// `sendmsg`, the `msghdr`, `n` unused) is checked as that function's
/// interceptor checks it, against the bytes of copies the program
/// submitted itself only. CopierGen absorbed the call because one of its
/// own copies may be pending there, which is legal; a copy the program
/// left pending is the program's bug, as it is without CopierGen.
///
/// # Safety
/// `buf` and `n` are the arguments of that call, valid as the libc
/// function requires (the array of iovecs, the `msghdr`).
unsafe fn copiergen_io(which: usize, buf: *const core::ffi::c_void, n: usize, recover: bool) {
    if crate::PROGRAM_LIVE.load(core::sync::atomic::Ordering::Relaxed) == 0 {
        return;
    }
    let Some(&(name, _)) = copier_abi::symbols::ABSORBING.get(which) else { return };
    let iov = |iov: *const libc::iovec, cnt: usize| {
        for i in 0..cnt {
            // SAFETY: i < cnt, the call's own count of valid iovecs.
            let v = unsafe { *iov.add(i) };
            crate::report::check_program(v.iov_base as usize, v.iov_len, Access::Read, Some(name), recover);
        }
    };
    match name {
        "writev" | "pwritev" | "pwritev64" => iov(buf.cast(), (n as i32).max(0) as usize),
        "sendmsg" if !buf.is_null() => {
            // SAFETY: buf is the call's valid msghdr.
            let m = unsafe { &*buf.cast::<libc::msghdr>() };
            iov(m.msg_iov, m.msg_iovlen);
        }
        "sendmsg" => {}
        _ => crate::report::check_program(buf as usize, n, Access::Read, Some(name), recover),
    }
}

/// Before a write/send call CopierGen absorbed: see [`copiergen_io`].
///
/// # Safety
/// As [`copiergen_io`].
#[no_mangle]
pub unsafe extern "C" fn __copier_san_copiergen_io(which: usize, buf: *const core::ffi::c_void, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { copiergen_io(which, buf, n, false) }
}

/// As [`__copier_san_copiergen_io`]; never halts.
///
/// # Safety
/// As [`copiergen_io`].
#[no_mangle]
pub unsafe extern "C" fn __copier_san_copiergen_io_noabort(which: usize, buf: *const core::ffi::c_void, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { copiergen_io(which, buf, n, true) }
}
