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

/// Defines an interceptor of an `fread`-style call: after it, the `r`
/// items of `size` bytes it returned are writes into `buf`.
macro_rules! fread_like {
    ($(#[$m:meta])* $name:ident ( $($a:ident : $t:ty),* ) buf=$buf:ident size=$size:ident) => {
        $(#[$m])*
        /// # Safety
        /// As the libc function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> usize {
            // SAFETY: forwarded contract.
            let r = unsafe { real!($name: fn($($t),*) -> usize)($($a),*) };
            check_write!(stringify!($name), $buf, $size.saturating_mul(r));
            r
        }
    };
}

fread_like!(/// Interceptor of `fread`.
    fread(p: *mut c_void, size: usize, n: usize, f: *mut c_void) buf=p size=size);
fread_like!(/// Interceptor of `__fread_chk`.
    __fread_chk(p: *mut c_void, plen: usize, size: usize, n: usize, f: *mut c_void) buf=p size=size);
fread_like!(/// Interceptor of `fread_unlocked`.
    fread_unlocked(p: *mut c_void, size: usize, n: usize, f: *mut c_void) buf=p size=size);
fread_like!(/// Interceptor of `__fread_unlocked_chk`.
    __fread_unlocked_chk(p: *mut c_void, plen: usize, size: usize, n: usize, f: *mut c_void) buf=p size=size);

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

read_like!(/// Interceptor of `__pread_chk`.
    __pread_chk(fd: c_int, buf: *mut c_void, n: usize, off: i64, buflen: usize) buf=buf);
read_like!(/// Interceptor of `__pread64_chk`.
    __pread64_chk(fd: c_int, buf: *mut c_void, n: usize, off: i64, buflen: usize) buf=buf);
read_like!(/// Interceptor of `__recv_chk`.
    __recv_chk(fd: c_int, buf: *mut c_void, n: usize, buflen: usize, flags: c_int) buf=buf);
read_like!(/// Interceptor of `__recvfrom_chk`.
    __recvfrom_chk(fd: c_int, buf: *mut c_void, n: usize, buflen: usize, flags: c_int, from: *mut c_void, fromlen: *mut u32) buf=buf);

/// Check the first `r` bytes the kernel stored into the `cnt` buffers of
/// `iov` (in order, each up to its length) as writes by `name`.
///
/// # Safety
/// `iov` points to `cnt` valid `iovec`s (the call just used them).
unsafe fn iov_written(name: &'static str, iov: *const libc::iovec, cnt: c_int, mut r: usize) {
    for i in 0..cnt.max(0) as usize {
        if r == 0 {
            break;
        }
        // SAFETY: i < cnt.
        let v = unsafe { *iov.add(i) };
        let n = v.iov_len.min(r);
        check_write!(name, v.iov_base, n);
        r -= n;
    }
}

/// Defines an interceptor of a `readv`-style call: the iovec array is read
/// before the call; after it, the first `r` bytes scattered into its
/// buffers are writes.
macro_rules! readv_like {
    ($(#[$m:meta])* $name:ident ( $($a:ident : $t:ty),* ) iov=$iov:ident cnt=$cnt:ident) => {
        $(#[$m])*
        /// # Safety
        /// As the libc function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> Ssize {
            check_read!(stringify!($name), $iov, ($cnt.max(0) as usize).saturating_mul(core::mem::size_of::<libc::iovec>()));
            // SAFETY: forwarded contract.
            let r = unsafe { real!($name: fn($($t),*) -> Ssize)($($a),*) };
            if r > 0 {
                // SAFETY: the call accepted the array.
                unsafe { iov_written(stringify!($name), $iov, $cnt, r as usize) };
            }
            r
        }
    };
}

readv_like!(/// Interceptor of `readv`.
    readv(fd: c_int, iov: *const libc::iovec, cnt: c_int) iov=iov cnt=cnt);
readv_like!(/// Interceptor of `preadv`.
    preadv(fd: c_int, iov: *const libc::iovec, cnt: c_int, off: i64) iov=iov cnt=cnt);
readv_like!(/// Interceptor of `preadv64`.
    preadv64(fd: c_int, iov: *const libc::iovec, cnt: c_int, off: i64) iov=iov cnt=cnt);
readv_like!(/// Interceptor of `preadv2`.
    preadv2(fd: c_int, iov: *const libc::iovec, cnt: c_int, off: i64, flags: c_int) iov=iov cnt=cnt);
readv_like!(/// Interceptor of `preadv64v2`.
    preadv64v2(fd: c_int, iov: *const libc::iovec, cnt: c_int, off: i64, flags: c_int) iov=iov cnt=cnt);

/// Interceptor of `recvmsg`: the message header and its iovec array are
/// read before the call; after it, the first `r` bytes scattered into the
/// buffers, the name (`msg_namelen` as returned) and the control data
/// (`msg_controllen` as returned) are writes.
///
/// # Safety
/// As `recvmsg`.
#[no_mangle]
pub unsafe extern "C" fn recvmsg(fd: c_int, msg: *mut libc::msghdr, flags: c_int) -> Ssize {
    check_read!("recvmsg", msg, core::mem::size_of::<libc::msghdr>());
    if !msg.is_null() {
        // SAFETY: msg is a valid msghdr (recvmsg's contract).
        let m = unsafe { &*msg };
        check_read!("recvmsg", m.msg_iov, m.msg_iovlen.saturating_mul(core::mem::size_of::<libc::iovec>()));
    }
    // SAFETY: forwarded contract.
    let r = unsafe { real!(recvmsg: fn(c_int, *mut libc::msghdr, c_int) -> Ssize)(fd, msg, flags) };
    if r >= 0 && !msg.is_null() {
        // SAFETY: the call filled the valid msghdr.
        let m = unsafe { &*msg };
        check_write!("recvmsg", msg, core::mem::size_of::<libc::msghdr>());
        // SAFETY: msg_iov holds msg_iovlen valid iovecs.
        unsafe { iov_written("recvmsg", m.msg_iov, m.msg_iovlen as c_int, r as usize) };
        if !m.msg_name.is_null() {
            check_write!("recvmsg", m.msg_name, m.msg_namelen as usize);
        }
        if !m.msg_control.is_null() {
            check_write!("recvmsg", m.msg_control, m.msg_controllen);
        }
    }
    r
}

/// Units (`T`) before the first zero among the first `max` at `s`, read
/// with volatile loads (never a libc call, never past `max`).
///
/// # Safety
/// `s` is valid for the units read: up to the first zero or `max`.
unsafe fn zlen<T: Copy + PartialEq + Default>(s: *const T, max: usize) -> usize {
    let mut i = 0;
    // SAFETY: i < max and no zero unit before i (the caller's contract).
    while i < max && unsafe { core::ptr::read_volatile(s.add(i)) } != T::default() {
        i += 1;
    }
    i
}

/// Defines an interceptor of an `fgets`-style call (`T` the unit, `char`
/// or `wchar_t`): on success it stored a line and its terminating zero,
/// at most `n` units, into `s`. Those units are checked as writes after
/// the call; the length is measured within `n - 1` units, so a pending
/// copy that overwrites the line (the very bug reported) before it is
/// measured cannot make the check read past the buffer. The stream's own
/// buffer is libc's (or a `setvbuf` one, checked at that call): which
/// `FILE` is read, and when it was opened, does not matter.
macro_rules! fgets_like {
    ($(#[$m:meta])* $name:ident<$u:ty>(s: $st:ty $(, $pre:ident : $pt:ty)*; n: c_int $(, $post:ident : $qt:ty)*)) => {
        $(#[$m])*
        /// # Safety
        /// As the libc function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(s: $st $(, $pre: $pt)*, n: c_int $(, $post: $qt)*) -> $st {
            // SAFETY: forwarded contract.
            let r = unsafe { real!($name: fn($st $(, $pt)*, c_int $(, $qt)*) -> $st)(s $(, $pre)*, n $(, $post)*) };
            if !r.is_null() && n > 0 {
                // SAFETY: s holds a zero-terminated line of at most n units.
                let len = unsafe { zlen::<$u>(s.cast_const(), n as usize - 1) } + 1;
                check_write!(stringify!($name), s, len * core::mem::size_of::<$u>());
            }
            r
        }
    };
}

fgets_like!(/// Interceptor of `fgets`.
    fgets<c_char>(s: *mut c_char; n: c_int, f: *mut libc::FILE));
fgets_like!(/// Interceptor of `fgets_unlocked`.
    fgets_unlocked<c_char>(s: *mut c_char; n: c_int, f: *mut libc::FILE));
fgets_like!(/// Interceptor of `__fgets_chk` (`_FORTIFY_SOURCE`).
    __fgets_chk<c_char>(s: *mut c_char, size: usize; n: c_int, f: *mut libc::FILE));
fgets_like!(/// Interceptor of `__fgets_unlocked_chk`.
    __fgets_unlocked_chk<c_char>(s: *mut c_char, size: usize; n: c_int, f: *mut libc::FILE));
fgets_like!(/// Interceptor of `fgetws`.
    fgetws<libc::wchar_t>(s: *mut libc::wchar_t; n: c_int, f: *mut libc::FILE));
fgets_like!(/// Interceptor of `fgetws_unlocked`.
    fgetws_unlocked<libc::wchar_t>(s: *mut libc::wchar_t; n: c_int, f: *mut libc::FILE));
fgets_like!(/// Interceptor of `__fgetws_chk`.
    __fgetws_chk<libc::wchar_t>(s: *mut libc::wchar_t, size: usize; n: c_int, f: *mut libc::FILE));
fgets_like!(/// Interceptor of `__fgetws_unlocked_chk`.
    __fgetws_unlocked_chk<libc::wchar_t>(s: *mut libc::wchar_t, size: usize; n: c_int, f: *mut libc::FILE));

/// The checks of a `getdelim`-style call `call`. It reads the slots
/// `*lineptr` and `*n` (checked as reads before the call), may replace the
/// buffer through `realloc` (whose interceptor checks the old one), stores
/// the new pointer and size into the slots when they change (checked as
/// writes), and on success stores `r` bytes and a NUL into the buffer
/// (checked as a write of `r + 1` bytes, ASan's `getdelim` rule).
///
/// # Safety
/// `lineptr` and `n` are valid slots (the function's contract).
#[inline(always)]
unsafe fn getdelim_checked(name: &'static str, lineptr: *mut *mut c_char, n: *mut usize, call: impl FnOnce() -> Ssize) -> Ssize {
    check_read!(name, lineptr, core::mem::size_of::<*mut c_char>());
    check_read!(name, n, core::mem::size_of::<usize>());
    // SAFETY: both slots are valid (the caller's contract).
    let before = unsafe { (lineptr.read(), n.read()) };
    let r = call();
    // SAFETY: as above.
    let after = unsafe { (lineptr.read(), n.read()) };
    if after.0 != before.0 {
        check_write!(name, lineptr, core::mem::size_of::<*mut c_char>());
    }
    if after.1 != before.1 {
        check_write!(name, n, core::mem::size_of::<usize>());
    }
    if r > 0 {
        check_write!(name, after.0, r as usize + 1);
    }
    r
}

/// Interceptor of `getline`.
///
/// # Safety
/// As `getline`.
#[no_mangle]
pub unsafe extern "C" fn getline(lineptr: *mut *mut c_char, n: *mut usize, f: *mut libc::FILE) -> Ssize {
    // SAFETY: forwarded contract.
    unsafe {
        getdelim_checked("getline", lineptr, n, || real!(getline: fn(*mut *mut c_char, *mut usize, *mut libc::FILE) -> Ssize)(lineptr, n, f))
    }
}

macro_rules! getdelim {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        /// # Safety
        /// As the libc function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(lineptr: *mut *mut c_char, n: *mut usize, delim: c_int, f: *mut libc::FILE) -> Ssize {
            // SAFETY: forwarded contract.
            unsafe {
                getdelim_checked(stringify!($name), lineptr, n, || {
                    real!($name: fn(*mut *mut c_char, *mut usize, c_int, *mut libc::FILE) -> Ssize)(lineptr, n, delim, f)
                })
            }
        }
    };
}

getdelim!(/// Interceptor of `getdelim`.
    getdelim);
getdelim!(/// Interceptor of `__getdelim`.
    __getdelim);
