//! The write/send family with absorption across the syscall boundary
//! (issue 10; docs/semantics.md "Absorption into write and send"):
//! `copier_write`, `copier_writev`, `copier_pwrite`, `copier_pwritev`,
//! `copier_send`, `copier_sendto`, `copier_sendmsg`, `copier_fwrite`.
//!
//! Each has the libc function's signature and behaves as `csync` of what
//! the call reads followed by the call: same return value, `errno`, partial
//! writes, `EINTR`/`EAGAIN`, `MSG_*` flags and `O_APPEND`. Instead of
//! waiting, the kernel reads every still-pending piece of a buffer from the
//! pending copy's source (`copier_adapter::service::absorb_io::read_plan`),
//! in one vector call (`writev`, `pwritev` or `sendmsg`); the copies stay
//! pending (they still run; a later access of the destination still needs
//! its `csync`). With nothing pending anywhere, one load and a tail call to
//! the libc function.
//!
//! Fallbacks (csync of the buffers, then the call as given): more than
//! `IOV_MAX` pieces; `MSG_ZEROCOPY` (the kernel would read the pages after
//! the call returns); a vector call that fails with `EFAULT` or `EINVAL`
//! after a substitution (a bad source pointer, `O_DIRECT` alignment): the
//! wait then delivers a bad source's fault as `memcpy` would, and the call
//! is repeated on the caller's own buffers.

use crate::capi::__copier_pending;
use copier_adapter::backend;
use copier_adapter::service::absorb_io::{note_absorbed, read_plan};
use core::ffi::{c_int, c_void};
use core::sync::atomic::Ordering;
use libc::{iovec, msghdr, off_t, sockaddr, socklen_t, ssize_t, FILE};

/// Most iovec entries one vector call takes (Linux `UIO_MAXIOV`).
const IOV_MAX: usize = 1024;

/// `sendmsg` flag after which the kernel reads the pages after the call
/// returned (Linux `MSG_ZEROCOPY`).
const MSG_ZEROCOPY: c_int = 0x4000000;

#[inline(always)]
fn maybe_pending() -> bool {
    __copier_pending.load(Ordering::Relaxed) != 0
}

fn errno() -> c_int {
    // SAFETY: the calling thread's errno slot.
    unsafe { *libc::__errno_location() }
}

fn set_errno(e: c_int) {
    // SAFETY: the calling thread's errno slot.
    unsafe { *libc::__errno_location() = e };
}

/// True when no copy can be pending in the process. Under the kernel
/// backend the gate's holds count the device's copies too.
fn none_pending() -> bool {
    if backend::kernel_active() {
        copier_adapter::gate::no_holds()
    } else {
        copier_adapter::service::absorb_io::none_pending()
    }
}

/// Wait for the copies that write `bufs` (`(addr, len)` pairs). Under the
/// kernel backend the device holds them, so this is its `csync`.
fn wait_reads(bufs: &[(usize, usize)]) {
    if backend::kernel_active() {
        bufs.iter().for_each(|&(a, n)| backend::csync(a, n));
    } else {
        copier_adapter::service::absorb_io::wait_reads(bufs);
    }
}

/// The iovec entries of `(addr, len)` pieces.
fn iovecs(pieces: &[(usize, usize, bool)]) -> Vec<iovec> {
    pieces.iter().map(|&(a, n, _)| iovec { iov_base: a as *mut c_void, iov_len: n }).collect()
}

/// A copy of the `count` values at `addr`, read by the kernel
/// (`process_vm_readv` on this process), so an unmapped address gives
/// `None` instead of a fault here; the plain call then reports `EFAULT`,
/// as libc does. Where the kernel refuses the call itself (seccomp), the
/// values are read in place, as the libc call's contract allows. `count` > 0.
fn read_in<T: Copy>(addr: *const T, count: usize) -> Option<Vec<T>> {
    let len = count.checked_mul(core::mem::size_of::<T>())?;
    let mut out: Vec<T> = Vec::with_capacity(count);
    let local = iovec { iov_base: out.as_mut_ptr().cast(), iov_len: len };
    let remote = iovec { iov_base: addr as *mut c_void, iov_len: len };
    let saved = errno();
    // SAFETY: `local` is `out`'s spare capacity of `len` bytes; the kernel
    // checks `remote` (this process's own memory).
    let r = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    let e = errno();
    set_errno(saved);
    if r < 0 && e != libc::EFAULT {
        // (the call is unavailable, e.g. a seccomp filter: read in place)
        // SAFETY: the libc call's own contract: `addr` valid for `count`.
        return Some(unsafe { core::slice::from_raw_parts(addr, count) }.to_vec());
    }
    if r < 0 || r as usize != len {
        return None;
    }
    // SAFETY: the kernel wrote all `len` bytes; T is plain data (Copy).
    unsafe { out.set_len(count) };
    Some(out)
}

/// The `(addr, len)` pairs of a caller's iovec array (`cnt` entries, read
/// after the array's own pending writers finished). Empty for a count a
/// vector call rejects (the call itself then reports `EINVAL`) and for an
/// array that is not readable (the call reports `EFAULT`).
fn user_bufs(iov: *const iovec, cnt: c_int) -> Vec<(usize, usize)> {
    if cnt <= 0 || cnt as usize > IOV_MAX || iov.is_null() {
        return Vec::new();
    }
    let n = cnt as usize;
    wait_reads(&[(iov as usize, n * core::mem::size_of::<iovec>())]);
    read_in(iov, n).map_or_else(Vec::new, |v| v.iter().map(|v| (v.iov_base as usize, v.iov_len)).collect())
}

/// The absorbed call: plan `bufs`, issue `vector` once on the plan, fall
/// back to `orig` after waiting (module docs). `errno` is the caller's
/// until the call that returns.
fn absorbed(bufs: &[(usize, usize)], vector: impl Fn(&[iovec]) -> ssize_t, orig: impl Fn() -> ssize_t) -> ssize_t {
    let saved = errno();
    if backend::kernel_active() {
        // (the device's copies are not in the tracker: no absorption)
        wait_reads(bufs);
        set_errno(saved);
        return orig();
    }
    let mut plan = Vec::new();
    let absorbed = read_plan(bufs, &mut plan);
    if absorbed == 0 {
        set_errno(saved);
        return orig();
    }
    if plan.len() > IOV_MAX {
        wait_reads(bufs);
        set_errno(saved);
        return orig();
    }
    let iov = iovecs(&plan);
    set_errno(saved);
    let r = vector(&iov);
    let e = errno();
    if r < 0 && (e == libc::EFAULT || e == libc::EINVAL) {
        // a bad source faults in the wait, as memcpy would; else the call
        // on the caller's buffers reports what it reports
        wait_reads(bufs);
        set_errno(saved);
        return orig();
    }
    if r > 0 {
        // bytes of the first `r` the kernel read from a source
        let mut left = r as usize;
        let mut from_sources = 0;
        for &(_, n, src) in &plan {
            let k = n.min(left);
            if src {
                from_sources += k;
            }
            left -= k;
            if left == 0 {
                break;
            }
        }
        note_absorbed(from_sources);
    }
    set_errno(e);
    r
}

/// True when a checker (CopierSanitizer) is registered: the libc name may
/// be its interceptor, which would check the pending buffer, so the plain
/// call is made through the vector form instead.
fn checked() -> bool {
    crate::hooks::active()
}

/// As `csync(buf, n)` followed by `write(2)`, without the wait: pieces of
/// `buf` that a pending copy still writes are read by the kernel from that
/// copy's source, in one `writev`, and the copies stay pending (a later
/// access of `buf` still needs its `csync`). Returns what `write` returns,
/// with its `errno` (untouched on success); partial writes, `EINTR`,
/// `EAGAIN` and `O_APPEND` as `write`. With nothing pending anywhere, one
/// load and a tail call to `write`. Fallbacks and limits:
/// docs/semantics.md, "Absorption into write and send".
///
/// # Safety
/// As `write`; the copy contract (no source written or freed before its
/// `csync`) holds for the copies that write `buf`.
#[export_name = "__copier_write"]
pub unsafe extern "C" fn copier_write(fd: c_int, buf: *const c_void, n: usize) -> ssize_t {
    if !maybe_pending() {
        // SAFETY: caller contract.
        return unsafe { libc::write(fd, buf, n) };
    }
    // SAFETY: caller contract.
    unsafe { write_slow(fd, buf, n) }
}

#[cold]
#[inline(never)]
unsafe fn write_slow(fd: c_int, buf: *const c_void, n: usize) -> ssize_t {
    let one = [iovec { iov_base: buf as *mut c_void, iov_len: n }];
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    let orig = || unsafe { if checked() { libc::writev(fd, one.as_ptr(), 1) } else { libc::write(fd, buf, n) } };
    if n == 0 || none_pending() {
        return orig();
    }
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    absorbed(&[(buf as usize, n)], |v| unsafe { libc::writev(fd, v.as_ptr(), v.len() as c_int) }, orig)
}

/// As `pwrite(2)` (`pwrite64`), reading pending pieces of `buf` from their
/// copies' sources. Returns what `pwrite` returns, with its `errno`.
///
/// # Safety
/// As [`copier_write`].
#[export_name = "__copier_pwrite"]
pub unsafe extern "C" fn copier_pwrite(fd: c_int, buf: *const c_void, n: usize, offset: off_t) -> ssize_t {
    if !maybe_pending() {
        // SAFETY: caller contract.
        return unsafe { libc::pwrite(fd, buf, n, offset) };
    }
    // SAFETY: caller contract.
    unsafe { pwrite_slow(fd, buf, n, offset) }
}

#[cold]
#[inline(never)]
unsafe fn pwrite_slow(fd: c_int, buf: *const c_void, n: usize, offset: off_t) -> ssize_t {
    let one = [iovec { iov_base: buf as *mut c_void, iov_len: n }];
    // SAFETY: forwarded caller contract.
    let orig = || unsafe { if checked() { libc::pwritev(fd, one.as_ptr(), 1, offset) } else { libc::pwrite(fd, buf, n, offset) } };
    if n == 0 || none_pending() {
        return orig();
    }
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    absorbed(&[(buf as usize, n)], |v| unsafe { libc::pwritev(fd, v.as_ptr(), v.len() as c_int, offset) }, orig)
}

/// As `writev(2)`, reading pending pieces of the buffers from their copies'
/// sources (the iovec array itself is read in place, after its own pending
/// writers finished). Returns what `writev` returns, with its `errno`.
///
/// # Safety
/// As `writev`, plus the contract of [`copier_write`].
#[export_name = "__copier_writev"]
pub unsafe extern "C" fn copier_writev(fd: c_int, iov: *const iovec, cnt: c_int) -> ssize_t {
    if !maybe_pending() {
        // SAFETY: caller contract.
        return unsafe { libc::writev(fd, iov, cnt) };
    }
    // SAFETY: caller contract.
    unsafe { writev_slow(fd, iov, cnt) }
}

#[cold]
#[inline(never)]
unsafe fn writev_slow(fd: c_int, iov: *const iovec, cnt: c_int) -> ssize_t {
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    let orig = || unsafe { libc::writev(fd, iov, cnt) };
    let bufs = user_bufs(iov, cnt);
    if bufs.is_empty() || none_pending() {
        return orig();
    }
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    absorbed(&bufs, |v| unsafe { libc::writev(fd, v.as_ptr(), v.len() as c_int) }, orig)
}

/// As `pwritev(2)`, reading pending pieces of the buffers from their
/// copies' sources. Returns what `pwritev` returns, with its `errno`.
///
/// # Safety
/// As [`copier_writev`].
#[export_name = "__copier_pwritev"]
pub unsafe extern "C" fn copier_pwritev(fd: c_int, iov: *const iovec, cnt: c_int, offset: off_t) -> ssize_t {
    if !maybe_pending() {
        // SAFETY: caller contract.
        return unsafe { libc::pwritev(fd, iov, cnt, offset) };
    }
    // SAFETY: caller contract.
    unsafe { pwritev_slow(fd, iov, cnt, offset) }
}

#[cold]
#[inline(never)]
unsafe fn pwritev_slow(fd: c_int, iov: *const iovec, cnt: c_int, offset: off_t) -> ssize_t {
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    let orig = || unsafe { libc::pwritev(fd, iov, cnt, offset) };
    let bufs = user_bufs(iov, cnt);
    if bufs.is_empty() || none_pending() {
        return orig();
    }
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    absorbed(&bufs, |v| unsafe { libc::pwritev(fd, v.as_ptr(), v.len() as c_int, offset) }, orig)
}

/// `sendmsg` of `iov` with the rest of the message (`name`, `control`)
/// from `base`, or none.
///
/// # Safety
/// As `sendmsg`.
unsafe fn sendmsg_with(fd: c_int, base: Option<&msghdr>, name: *const sockaddr, namelen: socklen_t, iov: &[iovec], flags: c_int) -> ssize_t {
    // SAFETY: msghdr is plain data; all-zero is an empty message.
    let mut m: msghdr = unsafe { core::mem::zeroed() };
    if let Some(b) = base {
        m = *b;
    } else {
        m.msg_name = name as *mut c_void;
        m.msg_namelen = namelen;
    }
    m.msg_iov = iov.as_ptr() as *mut iovec;
    m.msg_iovlen = iov.len();
    // SAFETY: caller contract.
    unsafe { libc::sendmsg(fd, &m, flags) }
}

/// As `send(2)`, reading pending pieces of `buf` from their copies'
/// sources (one `sendmsg`). Returns what `send` returns, with its `errno`.
///
/// # Safety
/// As [`copier_write`].
#[export_name = "__copier_send"]
pub unsafe extern "C" fn copier_send(fd: c_int, buf: *const c_void, n: usize, flags: c_int) -> ssize_t {
    if !maybe_pending() {
        // SAFETY: caller contract.
        return unsafe { libc::send(fd, buf, n, flags) };
    }
    // SAFETY: caller contract.
    unsafe { sendto_slow(fd, buf, n, flags, core::ptr::null(), 0, false) }
}

/// As `sendto(2)`, reading pending pieces of `buf` from their copies'
/// sources (one `sendmsg`; `addr` is read in place). Returns what `sendto`
/// returns, with its `errno`.
///
/// # Safety
/// As [`copier_write`]; `addr` as for `sendto`.
#[export_name = "__copier_sendto"]
pub unsafe extern "C" fn copier_sendto(
    fd: c_int,
    buf: *const c_void,
    n: usize,
    flags: c_int,
    addr: *const sockaddr,
    addrlen: socklen_t,
) -> ssize_t {
    if !maybe_pending() {
        // SAFETY: caller contract.
        return unsafe { libc::sendto(fd, buf, n, flags, addr, addrlen) };
    }
    // SAFETY: caller contract.
    unsafe { sendto_slow(fd, buf, n, flags, addr, addrlen, true) }
}

#[cold]
#[inline(never)]
unsafe fn sendto_slow(fd: c_int, buf: *const c_void, n: usize, flags: c_int, addr: *const sockaddr, addrlen: socklen_t, to: bool) -> ssize_t {
    let one = [iovec { iov_base: buf as *mut c_void, iov_len: n }];
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    let orig = || unsafe {
        match (checked(), to) {
            (true, _) => sendmsg_with(fd, None, addr, addrlen, &one, flags),
            (false, true) => libc::sendto(fd, buf, n, flags, addr, addrlen),
            (false, false) => libc::send(fd, buf, n, flags),
        }
    };
    if to && !addr.is_null() {
        wait_reads(&[(addr as usize, addrlen as usize)]);
    }
    if n == 0 || none_pending() {
        return orig();
    }
    if flags & MSG_ZEROCOPY != 0 {
        wait_reads(&[(buf as usize, n)]);
        return orig();
    }
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    absorbed(&[(buf as usize, n)], |v| unsafe { sendmsg_with(fd, None, addr, addrlen, v, flags) }, orig)
}

/// As `sendmsg(2)`, reading pending pieces of the message's buffers from
/// their copies' sources (the `msghdr`, its iovec array, name and control
/// data are read in place, after their own pending writers finished).
/// Returns what `sendmsg` returns, with its `errno`.
///
/// # Safety
/// As `sendmsg`, plus the contract of [`copier_write`].
#[export_name = "__copier_sendmsg"]
pub unsafe extern "C" fn copier_sendmsg(fd: c_int, msg: *const msghdr, flags: c_int) -> ssize_t {
    if !maybe_pending() {
        // SAFETY: caller contract.
        return unsafe { libc::sendmsg(fd, msg, flags) };
    }
    // SAFETY: caller contract.
    unsafe { sendmsg_slow(fd, msg, flags) }
}

#[cold]
#[inline(never)]
unsafe fn sendmsg_slow(fd: c_int, msg: *const msghdr, flags: c_int) -> ssize_t {
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    let orig = || unsafe { libc::sendmsg(fd, msg, flags) };
    if msg.is_null() || none_pending() {
        return orig();
    }
    wait_reads(&[(msg as usize, core::mem::size_of::<msghdr>())]);
    let Some(mv) = read_in(msg, 1) else { return orig() };
    let m = &mv[0];
    wait_reads(&[(m.msg_name as usize, m.msg_namelen as usize), (m.msg_control as usize, m.msg_controllen)]);
    if m.msg_iovlen > IOV_MAX || flags & MSG_ZEROCOPY != 0 {
        if m.msg_iovlen <= IOV_MAX {
            let bufs = user_bufs(m.msg_iov, m.msg_iovlen as c_int);
            wait_reads(&bufs);
        }
        return orig();
    }
    let bufs = user_bufs(m.msg_iov, m.msg_iovlen as c_int);
    if bufs.is_empty() {
        return orig();
    }
    // SAFETY: forwarded caller contract; the plan reads the caller's bytes or
    // pending copies' sources of the same lengths (`read_plan`).
    absorbed(&bufs, |v| unsafe { sendmsg_with(fd, Some(m), core::ptr::null(), 0, v, flags) }, orig)
}

/// As `fwrite(3)`. stdio copies the bytes into the stream's buffer (or
/// writes them) at once, so pending pieces of `buf` are waited for first
/// (`csync`, which a checker sees), then `fwrite` runs. Returns what
/// `fwrite` returns.
///
/// # Safety
/// As `fwrite`.
#[export_name = "__copier_fwrite"]
pub unsafe extern "C" fn copier_fwrite(buf: *const c_void, size: usize, nmemb: usize, stream: *mut FILE) -> usize {
    if maybe_pending() {
        let saved = errno();
        crate::capi::csync(buf, size.saturating_mul(nmemb));
        set_errno(saved);
    }
    // SAFETY: caller contract.
    unsafe { libc::fwrite(buf, size, nmemb, stream) }
}
