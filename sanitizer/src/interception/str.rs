//! String and byte-comparison functions: the bytes they read (up to and
//! including the terminating NUL they reach) and write.

use core::ffi::{c_char, c_int, c_void};

use crate::{check_read, check_write, real};

type CStrPtr = *const c_char;

/// Bytes the real `strlen` counts, NUL included.
///
/// # Safety
/// `s` is a valid C string.
#[inline(always)]
unsafe fn slen(s: CStrPtr) -> usize {
    // SAFETY: forwarded contract.
    unsafe { super::c_strlen(s) }
}

/// Bytes `strnlen(s, n)` examines: up to the NUL (included) or n.
///
/// # Safety
/// `s` is valid for the bytes strnlen reads.
#[inline(always)]
unsafe fn snlen(s: CStrPtr, n: usize) -> usize {
    // SAFETY: forwarded contract.
    let l = unsafe { real!(strnlen: fn(CStrPtr, usize) -> usize)(s, n) };
    (l + 1).min(n)
}

/// Length of the common prefix of a and b up to the first difference or
/// NUL, plus one (the bytes strcmp reads), bounded by `max`.
///
/// # Safety
/// Both are valid C strings (or valid for `max` bytes).
unsafe fn cmp_len(a: CStrPtr, b: CStrPtr, max: usize) -> usize {
    let mut i = 0;
    while i < max {
        // SAFETY: i is within both strings (we stop at the first NUL or
        // difference). Volatile reads keep the loop from becoming a libc call.
        let (x, y) = unsafe { (core::ptr::read_volatile(a.add(i)), core::ptr::read_volatile(b.add(i))) };
        i += 1;
        if x != y || x == 0 {
            break;
        }
    }
    i
}

/// Interceptor of `strlen`.
///
/// # Safety
/// As `strlen`.
#[no_mangle]
pub unsafe extern "C" fn strlen(s: CStrPtr) -> usize {
    // SAFETY: forwarded contract.
    let n = unsafe { real!(strlen: fn(CStrPtr) -> usize)(s) };
    check_read!("strlen", s, n + 1);
    n
}

/// Interceptor of `strnlen`.
///
/// # Safety
/// As `strnlen`.
#[no_mangle]
pub unsafe extern "C" fn strnlen(s: CStrPtr, max: usize) -> usize {
    // SAFETY: forwarded contract.
    let n = unsafe { real!(strnlen: fn(CStrPtr, usize) -> usize)(s, max) };
    check_read!("strnlen", s, (n + 1).min(max));
    n
}

/// Interceptor of `strcpy`.
///
/// # Safety
/// As `strcpy`.
#[no_mangle]
pub unsafe extern "C" fn strcpy(d: *mut c_char, s: CStrPtr) -> *mut c_char {
    // SAFETY: s is a valid C string per strcpy's contract.
    let n = unsafe { slen(s) };
    check_read!("strcpy", s, n);
    check_write!("strcpy", d, n);
    // SAFETY: forwarded contract.
    unsafe { real!(strcpy: fn(*mut c_char, CStrPtr) -> *mut c_char)(d, s) }
}

/// Interceptor of `stpcpy`.
///
/// # Safety
/// As `stpcpy`.
#[no_mangle]
pub unsafe extern "C" fn stpcpy(d: *mut c_char, s: CStrPtr) -> *mut c_char {
    // SAFETY: s is a valid C string per stpcpy's contract.
    let n = unsafe { slen(s) };
    check_read!("stpcpy", s, n);
    check_write!("stpcpy", d, n);
    // SAFETY: forwarded contract.
    unsafe { real!(stpcpy: fn(*mut c_char, CStrPtr) -> *mut c_char)(d, s) }
}

/// Interceptor of `strncpy` (writes all n bytes, padding with NULs).
///
/// # Safety
/// As `strncpy`.
#[no_mangle]
pub unsafe extern "C" fn strncpy(d: *mut c_char, s: CStrPtr, n: usize) -> *mut c_char {
    // SAFETY: s is valid up to its NUL or n bytes.
    let r = unsafe { snlen(s, n) };
    check_read!("strncpy", s, r);
    check_write!("strncpy", d, n);
    // SAFETY: forwarded contract.
    unsafe { real!(strncpy: fn(*mut c_char, CStrPtr, usize) -> *mut c_char)(d, s, n) }
}

/// Interceptor of `strcat`.
///
/// # Safety
/// As `strcat`.
#[no_mangle]
pub unsafe extern "C" fn strcat(d: *mut c_char, s: CStrPtr) -> *mut c_char {
    // SAFETY: both are valid C strings per strcat's contract.
    let (dl, sl) = unsafe { (slen(d), slen(s)) };
    check_read!("strcat", s, sl);
    check_read!("strcat", d, dl);
    check_write!("strcat", d as usize + dl - 1, sl);
    // SAFETY: forwarded contract.
    unsafe { real!(strcat: fn(*mut c_char, CStrPtr) -> *mut c_char)(d, s) }
}

/// Interceptor of `strncat`.
///
/// # Safety
/// As `strncat`.
#[no_mangle]
pub unsafe extern "C" fn strncat(d: *mut c_char, s: CStrPtr, n: usize) -> *mut c_char {
    // SAFETY: d is a valid C string, s valid up to its NUL or n bytes.
    let (dl, sl) = unsafe { (slen(d), snlen(s, n)) };
    check_read!("strncat", s, sl);
    check_read!("strncat", d, dl);
    check_write!("strncat", d as usize + dl - 1, sl.min(n) + 1);
    // SAFETY: forwarded contract.
    unsafe { real!(strncat: fn(*mut c_char, CStrPtr, usize) -> *mut c_char)(d, s, n) }
}

/// Interceptor of `strcmp`.
///
/// # Safety
/// As `strcmp`.
#[no_mangle]
pub unsafe extern "C" fn strcmp(a: CStrPtr, b: CStrPtr) -> c_int {
    // SAFETY: both are valid C strings.
    let n = unsafe { cmp_len(a, b, usize::MAX) };
    check_read!("strcmp", a, n);
    check_read!("strcmp", b, n);
    // SAFETY: forwarded contract.
    unsafe { real!(strcmp: fn(CStrPtr, CStrPtr) -> c_int)(a, b) }
}

/// Interceptor of `strncmp`.
///
/// # Safety
/// As `strncmp`.
#[no_mangle]
pub unsafe extern "C" fn strncmp(a: CStrPtr, b: CStrPtr, max: usize) -> c_int {
    // SAFETY: both valid up to their NUL or max bytes.
    let n = unsafe { cmp_len(a, b, max) };
    check_read!("strncmp", a, n);
    check_read!("strncmp", b, n);
    // SAFETY: forwarded contract.
    unsafe { real!(strncmp: fn(CStrPtr, CStrPtr, usize) -> c_int)(a, b, max) }
}

/// Interceptor of `strchr`.
///
/// # Safety
/// As `strchr`.
#[no_mangle]
pub unsafe extern "C" fn strchr(s: CStrPtr, c: c_int) -> *mut c_char {
    // SAFETY: forwarded contract.
    let r = unsafe { real!(strchr: fn(CStrPtr, c_int) -> *mut c_char)(s, c) };
    // SAFETY: s is a valid C string.
    let n = if r.is_null() { unsafe { slen(s) } } else { r as usize - s as usize + 1 };
    check_read!("strchr", s, n);
    r
}

/// Interceptor of `strrchr`.
///
/// # Safety
/// As `strrchr`.
#[no_mangle]
pub unsafe extern "C" fn strrchr(s: CStrPtr, c: c_int) -> *mut c_char {
    // SAFETY: s is a valid C string.
    check_read!("strrchr", s, unsafe { slen(s) });
    // SAFETY: forwarded contract.
    unsafe { real!(strrchr: fn(CStrPtr, c_int) -> *mut c_char)(s, c) }
}

/// Interceptor of `strstr`.
///
/// # Safety
/// As `strstr`.
#[no_mangle]
pub unsafe extern "C" fn strstr(h: CStrPtr, n: CStrPtr) -> *mut c_char {
    // SAFETY: forwarded contract.
    let r = unsafe { real!(strstr: fn(CStrPtr, CStrPtr) -> *mut c_char)(h, n) };
    // SAFETY: both are valid C strings.
    let (hl, nl) = unsafe { (slen(h), slen(n)) };
    check_read!("strstr", h, if r.is_null() { hl } else { r as usize - h as usize + nl - 1 });
    check_read!("strstr", n, nl);
    r
}

/// Interceptor of `strdup`.
///
/// # Safety
/// As `strdup`.
#[no_mangle]
pub unsafe extern "C" fn strdup(s: CStrPtr) -> *mut c_char {
    // SAFETY: s is a valid C string.
    check_read!("strdup", s, unsafe { slen(s) });
    // SAFETY: forwarded contract.
    unsafe { real!(strdup: fn(CStrPtr) -> *mut c_char)(s) }
}

/// Interceptor of `strndup`.
///
/// # Safety
/// As `strndup`.
#[no_mangle]
pub unsafe extern "C" fn strndup(s: CStrPtr, n: usize) -> *mut c_char {
    // SAFETY: s valid up to its NUL or n bytes.
    check_read!("strndup", s, unsafe { snlen(s, n) });
    // SAFETY: forwarded contract.
    unsafe { real!(strndup: fn(CStrPtr, usize) -> *mut c_char)(s, n) }
}

/// Interceptor of `memcmp` (all n bytes count as read, as ASan's
/// `strict_memcmp=1`).
///
/// # Safety
/// As `memcmp`.
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const c_void, b: *const c_void, n: usize) -> c_int {
    check_read!("memcmp", a, n);
    check_read!("memcmp", b, n);
    // SAFETY: forwarded contract.
    unsafe { real!(memcmp: fn(*const c_void, *const c_void, usize) -> c_int)(a, b, n) }
}

/// Interceptor of `bcmp`.
///
/// # Safety
/// As `bcmp`.
#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const c_void, b: *const c_void, n: usize) -> c_int {
    check_read!("bcmp", a, n);
    check_read!("bcmp", b, n);
    // SAFETY: forwarded contract.
    unsafe { real!(bcmp: fn(*const c_void, *const c_void, usize) -> c_int)(a, b, n) }
}

/// Interceptor of `memchr`.
///
/// # Safety
/// As `memchr`.
#[no_mangle]
pub unsafe extern "C" fn memchr(s: *const c_void, c: c_int, n: usize) -> *mut c_void {
    // SAFETY: forwarded contract.
    let r = unsafe { real!(memchr: fn(*const c_void, c_int, usize) -> *mut c_void)(s, c, n) };
    check_read!("memchr", s, if r.is_null() { n } else { r as usize - s as usize + 1 });
    r
}

/// Interceptor of `memrchr` (scans backwards from `s + n`: reads
/// `[r, s+n)` when it finds the byte, all n bytes when not).
///
/// # Safety
/// As `memrchr`.
#[no_mangle]
pub unsafe extern "C" fn memrchr(s: *const c_void, c: c_int, n: usize) -> *mut c_void {
    // SAFETY: forwarded contract.
    let r = unsafe { real!(memrchr: fn(*const c_void, c_int, usize) -> *mut c_void)(s, c, n) };
    if r.is_null() {
        check_read!("memrchr", s, n);
    } else {
        check_read!("memrchr", r, s as usize + n - r as usize);
    }
    r
}

/// Interceptor of `strspn` (as ASan: the accept set whole, `s` up to the
/// first byte not in it, inclusive).
///
/// # Safety
/// As `strspn`.
#[no_mangle]
pub unsafe extern "C" fn strspn(s: CStrPtr, accept: CStrPtr) -> usize {
    // SAFETY: forwarded contract.
    let r = unsafe { real!(strspn: fn(CStrPtr, CStrPtr) -> usize)(s, accept) };
    // SAFETY: accept is a valid C string.
    check_read!("strspn", accept, unsafe { slen(accept) });
    check_read!("strspn", s, r + 1);
    r
}

/// Interceptor of `strcspn` (the reject set whole, `s` up to the first
/// byte in it or its NUL, inclusive).
///
/// # Safety
/// As `strcspn`.
#[no_mangle]
pub unsafe extern "C" fn strcspn(s: CStrPtr, reject: CStrPtr) -> usize {
    // SAFETY: forwarded contract.
    let r = unsafe { real!(strcspn: fn(CStrPtr, CStrPtr) -> usize)(s, reject) };
    // SAFETY: reject is a valid C string.
    check_read!("strcspn", reject, unsafe { slen(reject) });
    check_read!("strcspn", s, r + 1);
    r
}

/// Interceptor of `strpbrk` (the accept set whole, `s` up to the match or
/// its NUL, inclusive).
///
/// # Safety
/// As `strpbrk`.
#[no_mangle]
pub unsafe extern "C" fn strpbrk(s: CStrPtr, accept: CStrPtr) -> *mut c_char {
    // SAFETY: forwarded contract.
    let r = unsafe { real!(strpbrk: fn(CStrPtr, CStrPtr) -> *mut c_char)(s, accept) };
    // SAFETY: accept is a valid C string.
    check_read!("strpbrk", accept, unsafe { slen(accept) });
    // SAFETY: s is a valid C string.
    let n = if r.is_null() { unsafe { slen(s) } } else { r as usize - s as usize + 1 };
    check_read!("strpbrk", s, n);
    r
}

/// Like [`cmp_len`], comparing bytes case-insensitively (`tolower`), as
/// strcasecmp does.
///
/// # Safety
/// Both are valid C strings (or valid for `max` bytes).
unsafe fn casecmp_len(a: CStrPtr, b: CStrPtr, max: usize) -> usize {
    let mut i = 0;
    while i < max {
        // SAFETY: i is within both strings (we stop at the first NUL or
        // difference). Volatile reads keep the loop from becoming a libc call.
        let (x, y) = unsafe { (core::ptr::read_volatile(a.add(i)) as u8, core::ptr::read_volatile(b.add(i)) as u8) };
        i += 1;
        // SAFETY: tolower takes any unsigned char value.
        let (lx, ly) = unsafe { (libc::tolower(x as c_int), libc::tolower(y as c_int)) };
        if lx != ly || x == 0 {
            break;
        }
    }
    i
}

/// Interceptor of `strcasecmp`.
///
/// # Safety
/// As `strcasecmp`.
#[no_mangle]
pub unsafe extern "C" fn strcasecmp(a: CStrPtr, b: CStrPtr) -> c_int {
    // SAFETY: both are valid C strings.
    let n = unsafe { casecmp_len(a, b, usize::MAX) };
    check_read!("strcasecmp", a, n);
    check_read!("strcasecmp", b, n);
    // SAFETY: forwarded contract.
    unsafe { real!(strcasecmp: fn(CStrPtr, CStrPtr) -> c_int)(a, b) }
}

/// Interceptor of `strncasecmp`.
///
/// # Safety
/// As `strncasecmp`.
#[no_mangle]
pub unsafe extern "C" fn strncasecmp(a: CStrPtr, b: CStrPtr, max: usize) -> c_int {
    // SAFETY: both valid up to their NUL or max bytes.
    let n = unsafe { casecmp_len(a, b, max) };
    check_read!("strncasecmp", a, n);
    check_read!("strncasecmp", b, n);
    // SAFETY: forwarded contract.
    unsafe { real!(strncasecmp: fn(CStrPtr, CStrPtr, usize) -> c_int)(a, b, max) }
}

/// Interceptor of `strcoll` (collation may weigh both strings whole: both
/// count as read up to their NUL).
///
/// # Safety
/// As `strcoll`.
#[no_mangle]
pub unsafe extern "C" fn strcoll(a: CStrPtr, b: CStrPtr) -> c_int {
    // SAFETY: both are valid C strings.
    let (al, bl) = unsafe { (slen(a), slen(b)) };
    check_read!("strcoll", a, al);
    check_read!("strcoll", b, bl);
    // SAFETY: forwarded contract.
    unsafe { real!(strcoll: fn(CStrPtr, CStrPtr) -> c_int)(a, b) }
}
