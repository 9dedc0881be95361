//! An open `/dev/copier` client: the file, its mapped area in the UAPI
//! layout (`include/linux/copier.h`, through `copier_abi::uapi`) and the
//! ioctls libcopier uses (`SETUP`, `WAKE`, `WAIT`).

use super::proto::{RingRef, SlotRef};
use crate::desc::Descriptor;
use copier_abi::uapi;
use core::mem::size_of;
use core::sync::atomic::{AtomicU32, AtomicU64};

/// `_IOC(dir, COPIER_IOC_MAGIC, nr, size)` (asm-generic/ioctl.h: nr bits
/// 0-7, type 8-15, size 16-29, direction 30-31).
const fn ioc(dir: u32, nr: u32, size: usize) -> libc::c_ulong {
    ((dir << 30) | ((size as u32) << 16) | (uapi::COPIER_IOC_MAGIC << 8) | nr) as libc::c_ulong
}
const IOC_WRITE: u32 = 1;
const IOC_READ: u32 = 2;
/// `COPIER_IOC_SETUP`: `_IOWR(.., 1, struct copier_setup)`.
pub(crate) const IOC_SETUP: libc::c_ulong = ioc(IOC_READ | IOC_WRITE, 1, size_of::<uapi::copier_setup>());
/// `COPIER_IOC_WAKE`: `_IO(.., 2)`.
pub(crate) const IOC_WAKE: libc::c_ulong = ioc(0, 2, 0);
/// `COPIER_IOC_WAIT`: `_IOW(.., 5, struct copier_wait)`.
pub(crate) const IOC_WAIT: libc::c_ulong = ioc(IOC_WRITE, 5, size_of::<uapi::copier_wait>());

/// The client: file descriptor and mapping. Lives for the process (leaked)
/// once set up; a fork child only closes the file (the mapping is not
/// inherited there).
pub(crate) struct Device {
    fd: libc::c_int,
    ring: *mut uapi::copier_ring,
    entries: *mut uapi::copier_entry,
    descs: *mut Descriptor,
    /// Copy ring slots (a power of two).
    pub nentries: u64,
}

// SAFETY: the pointers address the shared mapping, which lives as long as
// the Device; every shared word is accessed atomically through the views.
unsafe impl Sync for Device {}
// SAFETY: as above.
unsafe impl Send for Device {}

/// Why the device cannot be used: the failing step and its errno (no
/// allocation: the choice may be made inside an interposed `memcpy`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpenError {
    /// The step that failed.
    pub step: &'static str,
    /// Its errno.
    pub errno: i32,
}

impl core::fmt::Display for OpenError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.step, std::io::Error::from_raw_os_error(self.errno))
    }
}

fn errno_text(step: &'static str) -> OpenError {
    OpenError { step, errno: std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO) }
}

impl Device {
    /// Open `/dev/copier`, set up rings of `entries` copy slots (a power of
    /// two, 2..=65536) and map the area.
    ///
    /// # Errors
    /// The step that failed (`open`, `COPIER_IOC_SETUP`, `mmap`, or a
    /// layout this build does not know) with the system's error text.
    pub(crate) fn open(entries: u32) -> Result<Device, OpenError> {
        // SAFETY: open(2) with a NUL-terminated constant path.
        let fd = unsafe { libc::open(c"/dev/copier".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(errno_text("open /dev/copier"));
        }
        let fail = |e: OpenError| {
            // SAFETY: closing the descriptor opened above.
            unsafe { libc::close(fd) };
            Err(e)
        };
        let mut s = uapi::copier_setup {
            version: uapi::COPIER_ABI_VERSION,
            flags: 0,
            copy_entries: entries,
            sync_entries: 2,
            handler_entries: 2,
            reserved: 0,
            map_len: 0,
            copy_ring_off: 0,
            sync_ring_off: 0,
            handler_ring_off: 0,
            desc_off: 0,
        };
        // SAFETY: the SETUP ioctl reads and writes one copier_setup we own.
        if unsafe { libc::ioctl(fd, IOC_SETUP, &mut s as *mut uapi::copier_setup) } < 0 {
            return fail(errno_text("COPIER_IOC_SETUP"));
        }
        let len = s.map_len as usize;
        let descs_end = (s.desc_off as usize).checked_add(entries as usize * size_of::<Descriptor>());
        let ring_end = (s.copy_ring_off as usize).checked_add(size_of::<uapi::copier_ring>() + entries as usize * size_of::<uapi::copier_entry>());
        let aligned = s.copy_ring_off.is_multiple_of(64) && s.desc_off.is_multiple_of(64);
        if !aligned || descs_end.is_none_or(|e| e > len) || ring_end.is_none_or(|e| e > len) {
            return fail(OpenError { step: "COPIER_IOC_SETUP: a layout this libcopier does not know", errno: libc::EPROTO });
        }
        // SAFETY: mmap(2) of the client's area as the module documents it
        // (offset 0, exactly map_len, shared, not executable).
        let map = unsafe { libc::mmap(core::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0) };
        if map == libc::MAP_FAILED {
            return fail(errno_text("mmap /dev/copier"));
        }
        let base = map.cast::<u8>();
        // SAFETY: offsets checked to lie inside the mapping above.
        let (ring, descs) = unsafe { (base.add(s.copy_ring_off as usize).cast::<uapi::copier_ring>(), base.add(s.desc_off as usize).cast::<Descriptor>()) };
        // SAFETY: the copy entries follow the ring header (copier.h).
        let entries_ptr = unsafe { ring.add(1).cast::<uapi::copier_entry>() };
        // SAFETY: the ring header lies in the mapping; plain reads of words
        // the module set before SETUP returned.
        let (got, esize) = unsafe { ((*ring).entries, (*ring).entry_size) };
        if got != entries || esize as usize != size_of::<uapi::copier_entry>() {
            // SAFETY: unmapping what we mapped.
            unsafe { libc::munmap(map, len) };
            return fail(OpenError { step: "COPIER_IOC_SETUP: a ring this libcopier did not ask for", errno: libc::EPROTO });
        }
        Ok(Device { fd, ring, entries: entries_ptr, descs, nentries: entries as u64 })
    }

    /// The copy ring's shared header words.
    pub(crate) fn ring(&self) -> RingRef<'_> {
        // SAFETY: the header lies in the mapping, which outlives `self`;
        // the words are 8- (4-) byte aligned (64-aligned header) and only
        // ever accessed atomically by user space and the module.
        unsafe {
            RingRef {
                head: AtomicU64::from_ptr(&raw mut (*self.ring).head),
                tail: AtomicU64::from_ptr(&raw mut (*self.ring).tail),
                waiters: AtomicU32::from_ptr(&raw mut (*self.ring).waiters),
            }
        }
    }

    /// Slot of position `pos`: its entry's words and descriptor.
    pub(crate) fn slot(&self, pos: u64) -> SlotRef<'_> {
        let i = (pos & (self.nentries - 1)) as usize;
        // SAFETY: i < nentries, both arrays lie in the mapping (checked at
        // open); Descriptor has copier_desc's layout (desc.rs's compile-time
        // check) and is all atomics; the entry's words are aligned and only
        // accessed atomically.
        unsafe {
            let e = self.entries.add(i);
            SlotRef {
                desc: &*self.descs.add(i),
                dst: AtomicU64::from_ptr(&raw mut (*e).dst),
                src: AtomicU64::from_ptr(&raw mut (*e).src),
                len: AtomicU64::from_ptr(&raw mut (*e).len),
                handler: AtomicU64::from_ptr(&raw mut (*e).handler),
                arg: AtomicU64::from_ptr(&raw mut (*e).arg),
                flags: AtomicU32::from_ptr(&raw mut (*e).flags),
                region: AtomicU32::from_ptr(&raw mut (*e).region),
            }
        }
    }

    /// `COPIER_IOC_WAKE`: wake a parked service thread (errors ignored: a
    /// service that cannot be woken still polls, and waiters re-execute
    /// what it leaves).
    pub(crate) fn wake(&self) {
        // SAFETY: an argument-less ioctl on our descriptor.
        unsafe { libc::ioctl(self.fd, IOC_WAKE) };
    }

    /// `COPIER_IOC_WAIT` for the task at `pos`: 0, or the errno (`EINTR`,
    /// `EINVAL` for a position not submitted, `EPERM` in a fork child).
    pub(crate) fn wait(&self, pos: u64) -> i32 {
        let w = uapi::copier_wait { pos, timeout_ns: 0, reserved: [0; 2] };
        // SAFETY: the WAIT ioctl reads one copier_wait we own.
        if unsafe { libc::ioctl(self.fd, IOC_WAIT, &w as *const uapi::copier_wait) } < 0 {
            std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
        } else {
            0
        }
    }

    /// Fork child: close the inherited file (the mapping is not inherited;
    /// the parent's client lives on in the parent).
    pub(crate) fn close_in_child(&self) {
        // SAFETY: closing our descriptor; async-signal-safe.
        unsafe { libc::close(self.fd) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers asm-generic/ioctl.h gives for copier.h's definitions.
    #[test]
    fn ioctl_numbers() {
        assert_eq!(IOC_SETUP, 0xC040_C001);
        assert_eq!(IOC_WAKE, 0x0000_C002);
        assert_eq!(IOC_WAIT, 0x4020_C005);
    }
}
