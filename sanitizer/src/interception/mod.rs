//! Interceptors: what uninstrumented code (libc, other libraries, the
//! runtime's callers) does with memory, checked against the shadow.
//!
//! # How interception works here (after compiler-rt's `interception.h`)
//! `libcopier_san.a` is linked into the executable, so a function defined
//! here with a libc name (`#[no_mangle] extern "C" fn free`) takes the place
//! of libc's for every call from the executable, from libraries that call
//! through the PLT (glibc's own malloc calls do), and from the Rust runtime
//! linked in with it. The interceptor checks the buffer with
//! [`crate::report::check`] and then calls the real function, found once
//! with `dlsym(RTLD_NEXT, name)` and cached ([`real!`]).
//!
//! # Adding an interceptor
//! 1. Define it in the file of its family (`malloc.rs`, `mem.rs`, `str.rs`,
//!    `io.rs`, `num.rs`, `pthread.rs`, `jump.rs`; C-variadic ones in `printf.c` or
//!    `scanf.c`), with the exact
//!    C prototype, `#[no_mangle] pub unsafe extern "C"`.
//! 2. Check with `check_read!`/`check_write!`/`check_free!` (macros, so they
//!    add no frame), before the call for what the function will read or
//!    free, after it (with the real count) for what it wrote.
//! 3. Call the real function with `real!(name: fn(args) -> ret)(args)`.
//! 4. Add the name to [`INTERCEPTED`] (report stacks drop these frames).
//!
//! # Recursion rules
//! - Interceptors pass straight through while the sanitizer itself runs on
//!   the thread ([`crate::thread::in_runtime`]): its own allocations,
//!   formatting and symbolization call malloc, free, memcpy and strlen.
//! - `dlsym` itself may allocate and free: `free`/`realloc` therefore call
//!   glibc's exported `__libc_free`/`__libc_realloc`, never `dlsym`, and
//!   `memcpy`/`memmove`/`memset` fall back to `rep movsb`/`rep stosb` until
//!   their real function is resolved.
//! - The Copier runtime's own engine copies write pending destinations by
//!   design: a memcpy/memmove/memset whose caller is a runtime function is
//!   exempt (decided once per call site, see `mem.rs`).

use core::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

pub mod io;
pub mod jump;
pub mod malloc;
pub mod mem;
pub mod num;
pub mod pthread;
pub mod str;

/// Every intercepted function (access stacks drop frames with these names).
pub const INTERCEPTED: &[&str] = &[
    "malloc", "calloc", "free", "realloc", "reallocarray", "memalign", "aligned_alloc", "posix_memalign",
    "valloc", "pvalloc", "malloc_usable_size", "munmap",
    "memcpy", "memmove", "memset", "__memcpy_chk", "__memmove_chk", "__memset_chk",
    "strlen", "strnlen", "strcpy", "strncpy", "stpcpy", "strcat", "strncat", "strcmp", "strncmp",
    "strchr", "strrchr", "strstr", "strdup", "strndup", "memcmp", "bcmp", "memchr",
    "memrchr", "strspn", "strcspn", "strpbrk", "strcasecmp", "strncasecmp", "strcoll",
    "read", "pread", "pread64", "write", "pwrite", "pwrite64", "send", "sendto", "recv", "recvfrom",
    "fread", "fwrite", "__read_chk", "__fread_chk", "puts", "fputs",
    "__pread_chk", "__pread64_chk", "__recv_chk", "__recvfrom_chk", "readv", "preadv", "preadv64", "preadv2", "preadv64v2",
    "recvmsg", "fread_unlocked", "__fread_unlocked_chk", "fgets", "fgets_unlocked", "__fgets_chk", "__fgets_unlocked_chk",
    "fgetws", "fgetws_unlocked", "__fgetws_chk", "__fgetws_unlocked_chk", "getline", "getdelim", "__getdelim",
    "fmemopen", "open_memstream", "open_wmemstream", "setvbuf", "setbuffer", "setbuf",
    "printf", "fprintf", "dprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vdprintf", "vsprintf", "vsnprintf",
    "__printf_chk", "__fprintf_chk", "__dprintf_chk", "__sprintf_chk", "__snprintf_chk",
    "__vprintf_chk", "__vfprintf_chk", "__vdprintf_chk", "__vsprintf_chk", "__vsnprintf_chk",
    "strtol", "strtoul", "strtoll", "strtoull", "strtoq", "strtouq", "strtoimax", "strtoumax",
    "__isoc23_strtol", "__isoc23_strtoul", "__isoc23_strtoll", "__isoc23_strtoull", "__isoc23_strtoimax", "__isoc23_strtoumax",
    "strtod", "strtof", "strtold", "atoi", "atol", "atoll", "atof",
    "strtol_l", "strtoul_l", "strtoll_l", "strtoull_l", "__strtol_l", "__strtoul_l", "__strtoll_l", "__strtoull_l",
    "__isoc23_strtol_l", "__isoc23_strtoul_l", "__isoc23_strtoll_l", "__isoc23_strtoull_l",
    "strtod_l", "strtof_l", "strtold_l", "__strtod_l", "__strtof_l", "__strtold_l",
    "wcstol", "wcstoul", "wcstoll", "wcstoull", "wcstoq", "wcstouq", "wcstoimax", "wcstoumax",
    "__isoc23_wcstol", "__isoc23_wcstoul", "__isoc23_wcstoll", "__isoc23_wcstoull", "__isoc23_wcstoimax", "__isoc23_wcstoumax",
    "wcstod", "wcstof", "wcstold", "wcstol_l", "wcstoul_l", "wcstoll_l", "wcstoull_l", "__wcstol_l", "__wcstoul_l",
    "__wcstoll_l", "__wcstoull_l", "__isoc23_wcstol_l", "__isoc23_wcstoul_l", "__isoc23_wcstoll_l", "__isoc23_wcstoull_l",
    "wcstod_l", "wcstof_l", "wcstold_l", "__wcstod_l", "__wcstof_l", "__wcstold_l",
    "sscanf", "vsscanf", "__isoc99_sscanf", "__isoc99_vsscanf", "__isoc23_sscanf", "__isoc23_vsscanf",
    "scanf", "vscanf", "fscanf", "vfscanf", "__isoc99_scanf", "__isoc99_vscanf", "__isoc99_fscanf", "__isoc99_vfscanf",
    "__isoc23_scanf", "__isoc23_vscanf", "__isoc23_fscanf", "__isoc23_vfscanf",
    "pthread_create", "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
];

/// Find the next definition of `name` (NUL-terminated) after this object.
/// Exits with a message if there is none.
pub fn resolve(name: &'static [u8]) -> usize {
    let _g = crate::thread::RuntimeGuard::enter();
    // SAFETY: name is NUL-terminated (all callers pass `concat!(…, "\0")`).
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr().cast()) };
    if p.is_null() {
        let n = CStr::from_bytes_with_nul(name).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
        crate::report::write_stderr(&format!("ERROR: CopierSanitizer: cannot find the real '{n}' (dlsym RTLD_NEXT)\n"));
        // SAFETY: _exit has no preconditions.
        unsafe { libc::_exit(1) };
    }
    p as usize
}

/// The real function `name` with the given C prototype (resolved once).
#[macro_export]
#[doc(hidden)]
macro_rules! real {
    ($name:ident : fn($($a:ty),*) -> $r:ty) => {{
        static P: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);
        let mut p = P.load(core::sync::atomic::Ordering::Relaxed);
        if p == 0 {
            p = $crate::interception::resolve(concat!(stringify!($name), "\0").as_bytes());
            P.store(p, core::sync::atomic::Ordering::Relaxed);
        }
        // SAFETY: p is the address of the C function `$name`, whose prototype
        // is the one spelled at the call site.
        #[allow(unused_unsafe)]
        let f = unsafe { core::mem::transmute::<usize, unsafe extern "C" fn($($a),*) -> $r>(p) };
        f
    }};
}

/// Check that an intercepted function may read `[p, p+n)`. While nothing
/// is pending ([`crate::report::busy`]) this is one load and one branch.
#[macro_export]
#[doc(hidden)]
macro_rules! check_read {
    ($name:expr, $p:expr, $n:expr) => {
        if $crate::report::busy() && !$crate::thread::in_runtime() && $crate::flags::get().intercept_libc {
            $crate::report::check($p as usize, $n as usize, $crate::errors::Access::Read, Some($name), false)
        }
    };
}

/// Check that an intercepted function may write `[p, p+n)`.
#[macro_export]
#[doc(hidden)]
macro_rules! check_write {
    ($name:expr, $p:expr, $n:expr) => {
        if $crate::report::busy() && !$crate::thread::in_runtime() && $crate::flags::get().intercept_libc {
            $crate::report::check($p as usize, $n as usize, $crate::errors::Access::Write, Some($name), false)
        }
    };
}

/// Check that an intercepted function may free `[p, p+n)`.
#[macro_export]
#[doc(hidden)]
macro_rules! check_free {
    ($name:expr, $p:expr, $n:expr) => {
        $crate::report::check($p as usize, $n as usize, $crate::errors::Access::Free, Some($name), false)
    };
}

/// Entry point for the C interceptors (`printf.c`): check a read
/// (`is_write == 0`) or write of `[p, p+n)` on behalf of function `name`.
///
/// # Safety
/// `name` is a NUL-terminated string with static lifetime.
#[no_mangle]
pub unsafe extern "C" fn __copier_san_intercept_check(p: *const c_void, n: usize, is_write: i32, name: *const c_char) {
    if !crate::report::busy() || crate::thread::in_runtime() || !crate::flags::get().intercept_libc {
        return;
    }
    // SAFETY: the caller passes a static NUL-terminated literal.
    let via: Option<&'static str> = unsafe { CStr::from_ptr(name) }.to_str().ok();
    let access = if is_write != 0 { crate::errors::Access::Write } else { crate::errors::Access::Read };
    crate::report::check(p as usize, n, access, via, false);
}

/// Units (of `unit` bytes: 1 for `char`, 4 for `wchar_t`) before the first
/// zero unit of the string a scanf-family conversion stored at `p`, at most
/// `max`. A pending copy may have overwritten the string's tail (the very
/// bug being reported) before it is measured: the measure therefore never
/// leaves a run of pending destination bytes it entered (those are mapped:
/// the copy writes them); past the run it stops, having covered the
/// pending bytes the check must report. Bytes outside pending runs are
/// intact, so the string's own zero ends the measure there.
///
/// # Safety
/// `p` holds a string the call just stored (its units up to its zero, or
/// up to `max`, are readable).
#[no_mangle]
pub unsafe extern "C" fn __copier_san_stored_len(p: *const c_void, unit: usize, max: usize) -> usize {
    use crate::shadow::{self, RealShadow};
    let live = crate::LIVE.load(Relaxed) != 0;
    let mut in_run = false;
    let mut i = 0;
    while i < max {
        let a = (p as usize).wrapping_add(i.wrapping_mul(unit));
        if live {
            if shadow::any(&RealShadow, a, unit, crate::mapping::DST_BITS) {
                in_run = true;
            } else if in_run {
                return i;
            }
        }
        // SAFETY: unit i is part of the stored string (no zero unit before
        // it), or inside a pending destination run (mapped).
        let zero = unsafe {
            match unit {
                4 => core::ptr::read_volatile(a as *const u32) == 0,
                _ => core::ptr::read_volatile(a as *const u8) == 0,
            }
        };
        if zero {
            return i;
        }
        i += 1;
    }
    max
}

/// Bytes of the NUL-terminated string at `s`, NUL included, read with the
/// real `strlen` (never the interceptor).
///
/// # Safety
/// `s` is a valid C string.
pub unsafe fn c_strlen(s: *const c_char) -> usize {
    // SAFETY: forwarded contract.
    unsafe { real!(strlen: fn(*const c_char) -> usize)(s) + 1 }
}

static INIT_DONE: AtomicUsize = AtomicUsize::new(0);

/// Resolve the real functions the interceptors need early.
pub fn init() {
    if INIT_DONE.swap(1, Relaxed) == 0 {
        mem::init();
        malloc::init();
    }
}
