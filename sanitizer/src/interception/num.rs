//! Number parsers (`strto*`, `wcsto*`, their `_l` forms with a locale,
//! `ato*`): the characters they read are the leading
//! whitespace, sign, prefix and digits up to the end pointer they return,
//! plus the character there, which they examined to stop. The end pointer
//! comes from the real function, so the check never covers a byte the
//! parser did not read (a parser that looked further ahead, e.g. at `e+`
//! after `1` in strtod, is checked up to where it stopped).
//!
//! glibc ≥ 2.38 redirects `strtol` and friends to `__isoc23_strtol` under
//! C23 (`-std=c2x`); those names are intercepted too, as are glibc's
//! exported `__strtol_l`-style implementations of the `_l` forms. Wide
//! parsers read `[s, end]` in `wchar_t` units. `atoi`, `atol` and
//! `atoll` become `strtol` calls in glibc's headers when optimizing.

use core::ffi::{c_char, c_double, c_void, c_int, c_long, c_longlong, c_ulong, c_ulonglong};

use libc::{locale_t, wchar_t};

use crate::{check_read, check_write, real};

type CStrPtr = *const c_char;

/// Check the characters (`unit` bytes each) a parser read from `s` up to
/// `end` (inclusive) and the store of `end` through `endptr`.
///
/// # Safety
/// `s..=end` lies within the string the real parser just scanned; `endptr`
/// is null or a writable pointer slot.
#[inline(always)]
unsafe fn checked(name: &'static str, s: usize, end: usize, unit: usize, endptr: *mut usize) {
    check_read!(name, s, end.saturating_sub(s) + unit);
    if !endptr.is_null() {
        check_write!(name, endptr, core::mem::size_of::<usize>());
        // SAFETY: endptr is non-null and, per the parser's contract, writable.
        unsafe { *endptr = end };
    }
}

/// Defines interceptors of parsers `fn(s, endptr, extra args…) -> T` over
/// strings of `C` (char or wchar_t): the real parser runs with a local end
/// pointer, then [`checked`] covers `[s, end]` and the store of `*endptr`.
macro_rules! parser {
    ($($name:ident($c:ty $(, $arg:ident: $at:ty)*) -> $t:ty;)*) => {$(
        #[doc = concat!("Interceptor of `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// As the C function.
        #[no_mangle]
        pub unsafe extern "C" fn $name(s: *const $c, endptr: *mut *mut $c $(, $arg: $at)*) -> $t {
            let mut end: *mut $c = core::ptr::null_mut();
            // SAFETY: forwarded contract; `end` is a valid out-pointer.
            let r = unsafe { real!($name: fn(*const $c, *mut *mut $c $(, $at)*) -> $t)(s, &mut end $(, $arg)*) };
            // SAFETY: the real parser set `end` within the string it read.
            unsafe { checked(stringify!($name), s as usize, end as usize, core::mem::size_of::<$c>(), endptr.cast()) };
            r
        }
    )*};
}

parser! {
    strtol(c_char, base: c_int) -> c_long;
    strtoul(c_char, base: c_int) -> c_ulong;
    strtoll(c_char, base: c_int) -> c_longlong;
    strtoull(c_char, base: c_int) -> c_ulonglong;
    strtoq(c_char, base: c_int) -> c_longlong;
    strtouq(c_char, base: c_int) -> c_ulonglong;
    strtoimax(c_char, base: c_int) -> i64;
    strtoumax(c_char, base: c_int) -> u64;
    __isoc23_strtol(c_char, base: c_int) -> c_long;
    __isoc23_strtoul(c_char, base: c_int) -> c_ulong;
    __isoc23_strtoll(c_char, base: c_int) -> c_longlong;
    __isoc23_strtoull(c_char, base: c_int) -> c_ulonglong;
    __isoc23_strtoimax(c_char, base: c_int) -> i64;
    __isoc23_strtoumax(c_char, base: c_int) -> u64;
    strtod(c_char) -> c_double;
    strtof(c_char) -> f32;
    // With an explicit locale (<stdlib.h> declares the plain names; the
    // __ names are glibc's exported implementations).
    strtol_l(c_char, base: c_int, loc: locale_t) -> c_long;
    strtoul_l(c_char, base: c_int, loc: locale_t) -> c_ulong;
    strtoll_l(c_char, base: c_int, loc: locale_t) -> c_longlong;
    strtoull_l(c_char, base: c_int, loc: locale_t) -> c_ulonglong;
    __strtol_l(c_char, base: c_int, loc: locale_t) -> c_long;
    __strtoul_l(c_char, base: c_int, loc: locale_t) -> c_ulong;
    __strtoll_l(c_char, base: c_int, loc: locale_t) -> c_longlong;
    __strtoull_l(c_char, base: c_int, loc: locale_t) -> c_ulonglong;
    __isoc23_strtol_l(c_char, base: c_int, loc: locale_t) -> c_long;
    __isoc23_strtoul_l(c_char, base: c_int, loc: locale_t) -> c_ulong;
    __isoc23_strtoll_l(c_char, base: c_int, loc: locale_t) -> c_longlong;
    __isoc23_strtoull_l(c_char, base: c_int, loc: locale_t) -> c_ulonglong;
    strtod_l(c_char, loc: locale_t) -> c_double;
    strtof_l(c_char, loc: locale_t) -> f32;
    __strtod_l(c_char, loc: locale_t) -> c_double;
    __strtof_l(c_char, loc: locale_t) -> f32;
    // Wide strings: [s, end] in wchar_t units.
    wcstol(wchar_t, base: c_int) -> c_long;
    wcstoul(wchar_t, base: c_int) -> c_ulong;
    wcstoll(wchar_t, base: c_int) -> c_longlong;
    wcstoull(wchar_t, base: c_int) -> c_ulonglong;
    wcstoq(wchar_t, base: c_int) -> c_longlong;
    wcstouq(wchar_t, base: c_int) -> c_ulonglong;
    wcstoimax(wchar_t, base: c_int) -> i64;
    wcstoumax(wchar_t, base: c_int) -> u64;
    __isoc23_wcstol(wchar_t, base: c_int) -> c_long;
    __isoc23_wcstoul(wchar_t, base: c_int) -> c_ulong;
    __isoc23_wcstoll(wchar_t, base: c_int) -> c_longlong;
    __isoc23_wcstoull(wchar_t, base: c_int) -> c_ulonglong;
    __isoc23_wcstoimax(wchar_t, base: c_int) -> i64;
    __isoc23_wcstoumax(wchar_t, base: c_int) -> u64;
    wcstod(wchar_t) -> c_double;
    wcstof(wchar_t) -> f32;
    wcstol_l(wchar_t, base: c_int, loc: locale_t) -> c_long;
    wcstoul_l(wchar_t, base: c_int, loc: locale_t) -> c_ulong;
    wcstoll_l(wchar_t, base: c_int, loc: locale_t) -> c_longlong;
    wcstoull_l(wchar_t, base: c_int, loc: locale_t) -> c_ulonglong;
    __wcstol_l(wchar_t, base: c_int, loc: locale_t) -> c_long;
    __wcstoul_l(wchar_t, base: c_int, loc: locale_t) -> c_ulong;
    __wcstoll_l(wchar_t, base: c_int, loc: locale_t) -> c_longlong;
    __wcstoull_l(wchar_t, base: c_int, loc: locale_t) -> c_ulonglong;
    __isoc23_wcstol_l(wchar_t, base: c_int, loc: locale_t) -> c_long;
    __isoc23_wcstoul_l(wchar_t, base: c_int, loc: locale_t) -> c_ulong;
    __isoc23_wcstoll_l(wchar_t, base: c_int, loc: locale_t) -> c_longlong;
    __isoc23_wcstoull_l(wchar_t, base: c_int, loc: locale_t) -> c_ulonglong;
    wcstod_l(wchar_t, loc: locale_t) -> c_double;
    wcstof_l(wchar_t, loc: locale_t) -> f32;
    __wcstod_l(wchar_t, loc: locale_t) -> c_double;
    __wcstof_l(wchar_t, loc: locale_t) -> f32;
}

// The `long double` parsers (strtold, strtold_l, wcstold, …) return x87
// `long double`, which Rust cannot spell: they are intercepted in C
// (`scanf.c`), through the same check ([`__copier_san_parsed`]).

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
            unsafe { checked(stringify!($name), s as usize, end as usize, 1, core::ptr::null_mut()) };
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
    unsafe { checked("atof", s as usize, end as usize, 1, core::ptr::null_mut()) };
    r
}

/// The check of a parser implemented in C (the `long double` ones, the
/// scanf family): `[s, end]` (characters of `unit` bytes: 1, or
/// `sizeof(wchar_t)`) was read and `*endptr` (if non-null) is about to be
/// written.
///
/// # Safety
/// `name` is a static NUL-terminated string; `s..=end` lies in one string;
/// `endptr` is null or a writable pointer slot.
#[no_mangle]
pub unsafe extern "C" fn __copier_san_parsed(name: *const c_char, s: *const c_void, end: *mut c_void, unit: usize, endptr: *mut *mut c_void) {
    // SAFETY: the caller passes a static literal.
    let via: &'static str = unsafe { core::ffi::CStr::from_ptr(name) }.to_str().unwrap_or("strtold");
    // SAFETY: forwarded contract.
    unsafe { checked(via, s as usize, end as usize, unit, endptr.cast()) }
}
