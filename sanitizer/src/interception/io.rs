//! I/O: what the kernel or stdio reads from a buffer (before the call, the
//! full length) and writes into it (after the call, the count it returned);
//! buffers a stream will use later inside libc (fmemopen, setvbuf, the
//! open_memstream slots), checked when they are handed over.

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

/// True if a stream opened with `mode` may write its buffer (`w`, `a` or
/// `+` in the mode string, as fopen reads it).
///
/// # Safety
/// `mode` is null or a valid C string.
unsafe fn mode_writes(mode: *const c_char) -> bool {
    if mode.is_null() {
        return false;
    }
    // SAFETY: mode is a valid C string.
    let m = unsafe { core::ffi::CStr::from_ptr(mode) }.to_bytes();
    m.iter().any(|&c| c == b'w' || c == b'a' || c == b'+')
}

/// Interceptor of `fmemopen`: the stream reads (mode `r`) or also writes
/// (`w`, `a`, `+`) `[buf, buf+size)` later, inside libc where no check
/// sees it, so the whole buffer is checked at the call: a read of a pending
/// destination, or a write of a pending destination or source. A null
/// `buf` (libc allocates the buffer) is not checked.
///
/// # Safety
/// As `fmemopen`.
#[no_mangle]
pub unsafe extern "C" fn fmemopen(buf: *mut c_void, size: usize, mode: *const c_char) -> *mut libc::FILE {
    if !buf.is_null() {
        // SAFETY: mode is a valid C string (fmemopen's contract).
        if unsafe { mode_writes(mode) } {
            check_write!("fmemopen", buf, size);
        } else {
            check_read!("fmemopen", buf, size);
        }
    }
    // SAFETY: forwarded contract.
    unsafe { real!(fmemopen: fn(*mut c_void, usize, *const c_char) -> *mut libc::FILE)(buf, size, mode) }
}

/// Defines an interceptor of an `open_memstream`-style function: the stream
/// stores the buffer's address and length through `ptr` and `sizeloc` at
/// each fflush/fclose, inside libc, so both slots are checked as writes at
/// the call.
macro_rules! memstream {
    ($(#[$m:meta])* $name:ident($c:ty)) => {
        $(#[$m])*
        /// # Safety
        /// As the libc function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(ptr: *mut *mut $c, sizeloc: *mut usize) -> *mut libc::FILE {
            check_write!(stringify!($name), ptr, core::mem::size_of::<*mut $c>());
            check_write!(stringify!($name), sizeloc, core::mem::size_of::<usize>());
            // SAFETY: forwarded contract.
            unsafe { real!($name: fn(*mut *mut $c, *mut usize) -> *mut libc::FILE)(ptr, sizeloc) }
        }
    };
}

memstream!(/// Interceptor of `open_memstream`.
    open_memstream(c_char));
memstream!(/// Interceptor of `open_wmemstream`.
    open_wmemstream(libc::wchar_t));

/// Interceptor of `setvbuf`: a user buffer (non-null `buf`, mode other than
/// `_IONBF`) is read and written by the stream later, inside libc, so
/// `[buf, buf+size)` is checked as a write at the call.
///
/// # Safety
/// As `setvbuf`.
#[no_mangle]
pub unsafe extern "C" fn setvbuf(f: *mut libc::FILE, buf: *mut c_char, mode: c_int, size: usize) -> c_int {
    if !buf.is_null() && mode != libc::_IONBF {
        check_write!("setvbuf", buf, size);
    }
    // SAFETY: forwarded contract.
    unsafe { real!(setvbuf: fn(*mut libc::FILE, *mut c_char, c_int, usize) -> c_int)(f, buf, mode, size) }
}

/// Interceptor of `setbuffer` (as [`setvbuf`] with `_IOFBF`).
///
/// # Safety
/// As `setbuffer`.
#[no_mangle]
pub unsafe extern "C" fn setbuffer(f: *mut libc::FILE, buf: *mut c_char, size: usize) {
    if !buf.is_null() {
        check_write!("setbuffer", buf, size);
    }
    // SAFETY: forwarded contract.
    unsafe { real!(setbuffer: fn(*mut libc::FILE, *mut c_char, usize) -> ())(f, buf, size) }
}

/// Interceptor of `setbuf`: `BUFSIZ` bytes (8192 in glibc) at `buf`.
///
/// # Safety
/// As `setbuf`.
#[no_mangle]
pub unsafe extern "C" fn setbuf(f: *mut libc::FILE, buf: *mut c_char) {
    /// glibc's `BUFSIZ` (<stdio.h>).
    const BUFSIZ: usize = 8192;
    if !buf.is_null() {
        check_write!("setbuf", buf, BUFSIZ);
    }
    // SAFETY: forwarded contract.
    unsafe { real!(setbuf: fn(*mut libc::FILE, *mut c_char) -> ())(f, buf) }
}
