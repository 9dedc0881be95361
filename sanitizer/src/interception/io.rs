//! I/O: what the kernel or stdio reads from a buffer (before the call, the
//! full length) and writes into it (after the call, the count it returned).

use core::ffi::{c_char, c_int, c_void};

use crate::{check_read, check_write, real};

type Ssize = isize;

macro_rules! write_like {
    ($(#[$m:meta])* $name:ident ( $($a:ident : $t:ty),* ) buf=$buf:ident len=$len:ident) => {
        $(#[$m])*
        /// # Safety
        /// As the libc function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> Ssize {
            check_read!(stringify!($name), $buf, $len);
            // SAFETY: forwarded contract.
            unsafe { real!($name: fn($($t),*) -> Ssize)($($a),*) }
        }
    };
}

macro_rules! read_like {
    ($(#[$m:meta])* $name:ident ( $($a:ident : $t:ty),* ) buf=$buf:ident) => {
        $(#[$m])*
        /// # Safety
        /// As the libc function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> Ssize {
            // SAFETY: forwarded contract.
            let r = unsafe { real!($name: fn($($t),*) -> Ssize)($($a),*) };
            if r > 0 {
                check_write!(stringify!($name), $buf, r as usize);
            }
            r
        }
    };
}

write_like!(/// Interceptor of `write`.
    write(fd: c_int, buf: *const c_void, n: usize) buf=buf len=n);
write_like!(/// Interceptor of `pwrite`.
    pwrite(fd: c_int, buf: *const c_void, n: usize, off: i64) buf=buf len=n);
write_like!(/// Interceptor of `pwrite64`.
    pwrite64(fd: c_int, buf: *const c_void, n: usize, off: i64) buf=buf len=n);
write_like!(/// Interceptor of `send`.
    send(fd: c_int, buf: *const c_void, n: usize, flags: c_int) buf=buf len=n);
write_like!(/// Interceptor of `sendto`.
    sendto(fd: c_int, buf: *const c_void, n: usize, flags: c_int, to: *const c_void, tolen: u32) buf=buf len=n);
read_like!(/// Interceptor of `read`.
    read(fd: c_int, buf: *mut c_void, n: usize) buf=buf);
read_like!(/// Interceptor of `pread`.
    pread(fd: c_int, buf: *mut c_void, n: usize, off: i64) buf=buf);
read_like!(/// Interceptor of `pread64`.
    pread64(fd: c_int, buf: *mut c_void, n: usize, off: i64) buf=buf);
read_like!(/// Interceptor of `__read_chk`.
    __read_chk(fd: c_int, buf: *mut c_void, n: usize, buflen: usize) buf=buf);
read_like!(/// Interceptor of `recv`.
    recv(fd: c_int, buf: *mut c_void, n: usize, flags: c_int) buf=buf);
read_like!(/// Interceptor of `recvfrom`.
    recvfrom(fd: c_int, buf: *mut c_void, n: usize, flags: c_int, from: *mut c_void, fromlen: *mut u32) buf=buf);

/// Interceptor of `fwrite`.
///
/// # Safety
/// As `fwrite`.
#[no_mangle]
pub unsafe extern "C" fn fwrite(p: *const c_void, size: usize, n: usize, f: *mut c_void) -> usize {
    check_read!("fwrite", p, size.saturating_mul(n));
    // SAFETY: forwarded contract.
    unsafe { real!(fwrite: fn(*const c_void, usize, usize, *mut c_void) -> usize)(p, size, n, f) }
}

/// Interceptor of `fread`.
///
/// # Safety
/// As `fread`.
#[no_mangle]
pub unsafe extern "C" fn fread(p: *mut c_void, size: usize, n: usize, f: *mut c_void) -> usize {
    // SAFETY: forwarded contract.
    let r = unsafe { real!(fread: fn(*mut c_void, usize, usize, *mut c_void) -> usize)(p, size, n, f) };
    check_write!("fread", p, size.saturating_mul(r));
    r
}

/// Interceptor of `__fread_chk`.
///
/// # Safety
/// As `__fread_chk`.
#[no_mangle]
pub unsafe extern "C" fn __fread_chk(p: *mut c_void, plen: usize, size: usize, n: usize, f: *mut c_void) -> usize {
    // SAFETY: forwarded contract.
    let r = unsafe { real!(__fread_chk: fn(*mut c_void, usize, usize, usize, *mut c_void) -> usize)(p, plen, size, n, f) };
    check_write!("__fread_chk", p, size.saturating_mul(r));
    r
}

/// Interceptor of `puts`.
///
/// # Safety
/// As `puts`.
#[no_mangle]
pub unsafe extern "C" fn puts(s: *const c_char) -> c_int {
    // SAFETY: s is a valid C string.
    check_read!("puts", s, unsafe { super::c_strlen(s) });
    // SAFETY: forwarded contract.
    unsafe { real!(puts: fn(*const c_char) -> c_int)(s) }
}

/// Interceptor of `fputs`.
///
/// # Safety
/// As `fputs`.
#[no_mangle]
pub unsafe extern "C" fn fputs(s: *const c_char, f: *mut c_void) -> c_int {
    // SAFETY: s is a valid C string.
    check_read!("fputs", s, unsafe { super::c_strlen(s) });
    // SAFETY: forwarded contract.
    unsafe { real!(fputs: fn(*const c_char, *mut c_void) -> c_int)(s, f) }
}
