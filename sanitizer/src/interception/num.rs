//! Number parsers (`strto*`, `ato*`): the bytes they read are the leading
//! whitespace, sign, prefix and digits up to the end pointer they return,
//! plus the character there, which they examined to stop. The end pointer
//! comes from the real function, so the check never covers a byte the
//! parser did not read (a parser that looked further ahead, e.g. at `e+`
//! after `1` in strtod, is checked up to where it stopped).
//!
//! glibc ≥ 2.38 redirects `strtol` and friends to `__isoc23_strtol` under
//! C23 (`-std=c2x`); those names are intercepted too. `atoi`, `atol` and
//! `atoll` become `strtol` calls in glibc's headers when optimizing.

use core::ffi::{c_char, c_double, c_int, c_long, c_longlong, c_ulong, c_ulonglong};

use crate::{check_read, check_write, real};

type CStrPtr = *const c_char;

/// Check the bytes a parser read from `s` up to `end` (inclusive) and the
/// store of `end` through `endptr`.
///
/// # Safety
/// `s..=end` lies within the string the real parser just scanned.
#[inline(always)]
unsafe fn checked(name: &'static str, s: CStrPtr, end: *mut c_char, endptr: *mut *mut c_char) {
    let n = (end as usize).saturating_sub(s as usize) + 1;
    check_read!(name, s, n);
    if !endptr.is_null() {
        check_write!(name, endptr, core::mem::size_of::<*mut c_char>());
        // SAFETY: endptr is non-null and, per the parser's contract, writable.
        unsafe { *endptr = end };
    }
}

/// Defines an interceptor of an integer parser `fn(s, endptr, base) -> T`.
macro_rules! int_parser {
    ($($name:ident -> $t:ty;)*) => {$(
        #[doc = concat!("Interceptor of `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// As the C function.
        #[no_mangle]
        pub unsafe extern "C" fn $name(s: CStrPtr, endptr: *mut *mut c_char, base: c_int) -> $t {
            let mut end: *mut c_char = core::ptr::null_mut();
            // SAFETY: forwarded contract; `end` is a valid out-pointer.
            let r = unsafe { real!($name: fn(CStrPtr, *mut *mut c_char, c_int) -> $t)(s, &mut end, base) };
            // SAFETY: the real parser set `end` within the string it read.
            unsafe { checked(stringify!($name), s, end, endptr) };
            r
        }
    )*};
}

int_parser! {
    strtol -> c_long;
    strtoul -> c_ulong;
    strtoll -> c_longlong;
    strtoull -> c_ulonglong;
    strtoq -> c_longlong;
    strtouq -> c_ulonglong;
    strtoimax -> i64;
    strtoumax -> u64;
    __isoc23_strtol -> c_long;
    __isoc23_strtoul -> c_ulong;
    __isoc23_strtoll -> c_longlong;
    __isoc23_strtoull -> c_ulonglong;
    __isoc23_strtoimax -> i64;
    __isoc23_strtoumax -> u64;
}

/// Defines an interceptor of a floating-point parser `fn(s, endptr) -> T`.
macro_rules! float_parser {
    ($($name:ident -> $t:ty;)*) => {$(
        #[doc = concat!("Interceptor of `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// As the C function.
        #[no_mangle]
        pub unsafe extern "C" fn $name(s: CStrPtr, endptr: *mut *mut c_char) -> $t {
            let mut end: *mut c_char = core::ptr::null_mut();
            // SAFETY: forwarded contract; `end` is a valid out-pointer.
            let r = unsafe { real!($name: fn(CStrPtr, *mut *mut c_char) -> $t)(s, &mut end) };
            // SAFETY: the real parser set `end` within the string it read.
            unsafe { checked(stringify!($name), s, end, endptr) };
            r
        }
    )*};
}

float_parser! {
    strtod -> c_double;
    strtof -> f32;
}

// `strtold` returns x87 `long double`, which Rust cannot spell: it is
// intercepted in C (`scanf.c`), through the same check.

/// Defines `atoi`-style interceptors through the real `strto*` they are
/// specified by (C11 7.22.1.2: `atoi(s)` is `(int)strtol(s, NULL, 10)`
/// except for errors), so the end of the parsed text is known.
macro_rules! ato {
    ($($name:ident = $via:ident -> $r:ty as $t:ty;)*) => {$(
        #[doc = concat!("Interceptor of `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// As the C function.
        #[no_mangle]
        pub unsafe extern "C" fn $name(s: CStrPtr) -> $t {
            let mut end: *mut c_char = core::ptr::null_mut();
            // SAFETY: forwarded contract; `end` is a valid out-pointer.
            let r = unsafe { real!($via: fn(CStrPtr, *mut *mut c_char, c_int) -> $r)(s, &mut end, 10) };
            // SAFETY: the real parser set `end` within the string it read.
            unsafe { checked(stringify!($name), s, end, core::ptr::null_mut()) };
            r as $t
        }
    )*};
}

ato! {
    atoi = strtol -> c_long as c_int;
    atol = strtol -> c_long as c_long;
    atoll = strtoll -> c_longlong as c_longlong;
}

/// Interceptor of `atof` (`strtod(s, NULL)`).
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn atof(s: CStrPtr) -> c_double {
    let mut end: *mut c_char = core::ptr::null_mut();
    // SAFETY: forwarded contract; `end` is a valid out-pointer.
    let r = unsafe { real!(strtod: fn(CStrPtr, *mut *mut c_char) -> c_double)(s, &mut end) };
    // SAFETY: the real parser set `end` within the string it read.
    unsafe { checked("atof", s, end, core::ptr::null_mut()) };
    r
}

/// The check of a parser implemented in C (`strtold`, the scanf family):
/// `[s, end]` was read and `*endptr` (if non-null) is about to be written.
///
/// # Safety
/// `name` is a static NUL-terminated string; `s..=end` lies in one string.
#[no_mangle]
pub unsafe extern "C" fn __copier_san_parsed(name: *const c_char, s: CStrPtr, end: *mut c_char, endptr: *mut *mut c_char) {
    // SAFETY: the caller passes a static literal.
    let via: &'static str = unsafe { core::ffi::CStr::from_ptr(name) }.to_str().unwrap_or("strtold");
    // SAFETY: forwarded contract.
    unsafe { checked(via, s, end, endptr) }
}
