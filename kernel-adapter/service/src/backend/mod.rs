//! Which service executes asynchronous copies (`COPIER_OPTIONS=backend=`):
//! the host's `/dev/copier` (copier.ko, [`kernel`]) or the in-process
//! service thread ([`crate::service`]).
//!
//! * `auto` (default): the first submit that is not an inline copy opens
//!   `/dev/copier` ([`device`]); the kernel backend serves the process when
//!   that succeeds, the in-process service otherwise (no message).
//! * `kernel`: the same, but a device that cannot be used is reported in
//!   one line on stderr before the in-process service takes over.
//! * `inprocess`: never touch the device.
//!
//! The choice is made once per process, before its first asynchronous copy,
//! so the two services never hold copies at the same time. A fork child
//! cannot use its parent's client (copier.ko refuses it): the parent waits
//! for its device tasks before the fork, and the child continues on the
//! in-process service. Until the choice is made, and with the in-process
//! service, the entry points' fast path is the in-process one unchanged.

#[cfg(not(loom))]
mod device;
#[cfg(not(loom))]
mod kernel;
pub(crate) mod proto;
pub(crate) mod replay;

#[cfg(not(loom))]
pub use imp::*;

#[cfg(not(loom))]
mod imp {
    use super::device::Device;
    use super::kernel;
    use crate::{config, config::values as opt, service};
    use core::sync::atomic::{AtomicI32, AtomicU8, Ordering};

    /// `backend` option values.
    pub const AUTO: usize = 0;
    /// `backend=kernel`.
    pub const KERNEL: usize = 1;
    /// `backend=inprocess`.
    pub const INPROCESS: usize = 2;

    /// The `backend` option's value for `text` (`auto`, `kernel`,
    /// `inprocess`), `None` for anything else.
    pub fn option_value(text: &str) -> Option<usize> {
        match text.trim() {
            "auto" => Some(AUTO),
            "kernel" => Some(KERNEL),
            "inprocess" => Some(INPROCESS),
            _ => None,
        }
    }

    const UNDECIDED: u8 = 0;
    const DECIDING: u8 = 1;
    const ON: u8 = 2;
    const OFF: u8 = 3;
    /// The choice: undecided, being made, kernel (ON) or in-process (OFF).
    static STATE: AtomicU8 = AtomicU8::new(UNDECIDED);
    /// Thread id of the thread making the choice.
    static DECIDER: AtomicI32 = AtomicI32::new(0);
    /// The device once ON (it lives as long as the process).
    static DEVICE: std::sync::OnceLock<Device> = std::sync::OnceLock::new();

    /// The device when the kernel backend serves the process.
    #[inline(always)]
    fn device() -> Option<&'static Device> {
        if STATE.load(Ordering::Acquire) != ON {
            return None;
        }
        DEVICE.get()
    }

    /// True when the kernel backend serves the process; makes the choice
    /// on the first call (opening the device).
    #[inline]
    pub fn kernel_active() -> bool {
        match STATE.load(Ordering::Acquire) {
            ON => true,
            OFF => false,
            // (DECIDING: wait for the choice another thread is making; the
            // VM test found a thread that went in-process meanwhile)
            _ => decide(),
        }
    }

    #[cold]
    fn decide() -> bool {
        // SAFETY: gettid(2) has no arguments.
        let me = unsafe { libc::gettid() };
        if STATE.compare_exchange(UNDECIDED, DECIDING, Ordering::AcqRel, Ordering::Acquire).is_err() {
            // another thread is choosing: wait for its choice (copies of
            // both services at once would not be ordered), unless this is
            // the chooser's own nested call (an interposed memcpy)
            while STATE.load(Ordering::Acquire) == DECIDING && DECIDER.load(Ordering::Relaxed) != me {
                std::thread::yield_now();
            }
            return STATE.load(Ordering::Acquire) == ON;
        }
        DECIDER.store(me, Ordering::Relaxed);
        let want = config::get(&opt::backend);
        // the sanitizer's hooks and service=0 are the in-process service's
        let usable = want != INPROCESS && crate::hooks::get().is_none() && config::get(&opt::service) != 0;
        let dev = if usable {
            let depth = config::get(&opt::queue_depth).next_power_of_two().clamp(2, 1 << 16) as u32;
            match Device::open(depth) {
                Ok(d) => Some(d),
                Err(e) => {
                    if want == KERNEL {
                        let msg = format!("copier: backend=kernel: cannot use /dev/copier ({e}); copies use the in-process service\n");
                        // SAFETY: writing our own buffer to fd 2.
                        unsafe { libc::write(2, msg.as_ptr().cast(), msg.len()) };
                    }
                    None
                }
            }
        } else {
            None
        };
        let on = dev.is_some();
        if let Some(d) = dev {
            let _ = DEVICE.set(d);
            crate::stats::KERNEL_BACKEND.store(true, Ordering::Relaxed);
        }
        STATE.store(if on { ON } else { OFF }, Ordering::Release);
        on
    }

    /// Submit through the chosen backend (see `service::submit`).
    ///
    /// # Safety
    /// As `service::submit`.
    pub unsafe fn submit(dst: *mut u8, src: *const u8, n: usize, flags: u32, handler: usize, arg: usize) -> u64 {
        if kernel_active() {
            if let Some(d) = device() {
                // SAFETY: forwarded caller contract.
                return unsafe { kernel::submit(d, dst, src, n, flags, handler, arg) };
            }
        }
        // SAFETY: forwarded caller contract.
        unsafe { service::submit(dst, src, n, flags, handler, arg) }
    }

    /// [`submit`] for `copier_submit`, whose handle the program gets: the
    /// checker learns which handle names the copy (`service::submit_desc`).
    ///
    /// # Safety
    /// As `service::submit`.
    pub unsafe fn submit_desc(dst: *mut u8, src: *const u8, n: usize, flags: u32, handler: usize, arg: usize) -> u64 {
        if kernel_active() {
            if let Some(d) = device() {
                // SAFETY: forwarded caller contract.
                return unsafe { kernel::submit_desc(d, dst, src, n, flags, handler, arg) };
            }
        }
        // SAFETY: forwarded caller contract.
        unsafe { service::submit_desc(dst, src, n, flags, handler, arg) }
    }

    /// `csync` on the chosen backend.
    #[inline(always)]
    pub fn csync(addr: usize, n: usize) {
        match device() {
            Some(d) => kernel::csync(d, addr, n),
            None => service::csync(addr, n),
        }
    }

    /// `copier_drop` on the chosen backend: the device keeps no lazy
    /// copies to drop, so there it is `csync`.
    pub fn discard(addr: usize, n: usize) {
        match device() {
            Some(d) => kernel::csync(d, addr, n),
            None => service::discard(addr, n),
        }
    }

    /// `csync_all` on the chosen backend.
    pub fn csync_all() {
        match device() {
            Some(d) => kernel::csync_all(d),
            None => service::csync_all(),
        }
    }

    /// `csync_ready_end` on the chosen backend.
    pub fn csync_ready_end(addr: usize, n: usize) -> usize {
        match device() {
            Some(d) => kernel::csync_ready_end(d, addr, n),
            None => service::csync_ready_end(addr, n),
        }
    }

    /// `copier_wait`: device handles carry their own tag.
    pub fn wait_handle(h: u64, off: usize, len: usize) -> i32 {
        match device() {
            Some(d) if h & 0xff == kernel::HANDLE_TAG => kernel::wait_handle(d, h, off, len, true),
            _ => service::wait_handle(h, off, len),
        }
    }

    /// `copier_query`: as [`wait_handle`], without waiting.
    pub fn query_handle(h: u64, off: usize, len: usize) -> i32 {
        match device() {
            Some(d) if h & 0xff == kernel::HANDLE_TAG => kernel::wait_handle(d, h, off, len, false),
            _ => service::query_handle(h, off, len),
        }
    }

    /// `pthread_atfork` prepare (before the in-process service's).
    pub fn fork_prepare() {
        if let Some(d) = device() {
            kernel::fork_prepare(d);
        }
    }

    /// `pthread_atfork` parent (after the in-process service's).
    pub fn fork_parent() {
        if device().is_some() {
            kernel::fork_parent();
        }
    }

    /// `pthread_atfork` child (after the in-process service's): the child
    /// continues on the in-process service.
    pub fn fork_child() {
        if let Some(d) = device() {
            kernel::fork_child(d);
            STATE.store(OFF, Ordering::Release);
            crate::stats::KERNEL_BACKEND.store(false, Ordering::Relaxed);
        }
    }

    /// The backend serving the process: `"kernel"` or `"inprocess"`.
    pub fn name() -> &'static str {
        if device().is_some() {
            "kernel"
        } else {
            "inprocess"
        }
    }
}
