//! Counters behind `COPIER_STATS=1` and `COPIER_STATS_FILE`. The format of
//! the exit line is part of the interface (issue 2):
//! `copier: tasks=N bytes=N inline=N absorbed_bytes=N absorbed_syscall_bytes=N lazy_dropped=N lazy_deferred=N csync_waits=N csync_wait_ns=N
//! service_bytes=N waiter_bytes=N engine=E caller=C backend=B device_tasks=N` (E: the engine of asynchronous and synchronous
//! copies, `engine::Engine::name`; C: what the inline fast path runs,
//! `engine::caller::CallerCopy::name`); the stats file's lines end with ` pid=N`.

use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use crossbeam_utils::CachePadded;

/// Process-wide counters (updated off the submit fast path; `inline` is
/// per-client and summed by [`snapshot`]).
pub struct Counters {
    /// Copies executed asynchronously (retired tasks; dropped lazy copies are
    /// counted in `lazy_dropped` instead).
    pub tasks: AtomicU64,
    /// Bytes of those copies.
    pub bytes: AtomicU64,
    /// Inline and synchronous-fallback copies not counted per client.
    pub inline: AtomicU64,
    /// Bytes read from an earlier source instead of an unsynced destination.
    pub absorbed_bytes: AtomicU64,
    /// Bytes a `copier_write`-style call had the kernel read from a pending
    /// copy's source instead of its destination.
    pub absorbed_syscall_bytes: AtomicU64,
    /// Lazy copies dropped because their destination was overwritten or
    /// discarded (`copier_drop`) first.
    pub lazy_dropped: AtomicU64,
    /// Copies made lazy because a `copier_write`-style call handed their
    /// whole destination to the kernel (`Tracker::defer_writers`, option
    /// `defer_absorbed`).
    pub lazy_deferred: AtomicU64,
    /// `csync`-family calls that had to wait, and the ns spent in them.
    /// Own line: written by waiting threads, while retirers (the service)
    /// write `tasks` and `bytes` every task, so a stream of csynced copies
    /// would bounce one line between the two cores twice per task.
    pub csync: CachePadded<WaitCounters>,
    /// Bytes the service thread executed (`service_bytes`). Own
    /// cache line: added to per executed chunk, by a different thread than
    /// `helper_bytes`, so the two executors of one task do not bounce a line.
    pub service_bytes: CachePadded<AtomicU64>,
    /// Bytes waiting threads executed themselves (`waiter_bytes`; own line).
    pub helper_bytes: CachePadded<AtomicU64>,
    /// Copies submitted to `/dev/copier` (also counted in `tasks`).
    pub device_tasks: AtomicU64,
}

/// True while the kernel backend (`/dev/copier`) serves the process.
pub static KERNEL_BACKEND: AtomicBool = AtomicBool::new(false);

/// The counters.
pub static COUNTERS: CachePadded<Counters> = CachePadded::new(Counters {
    tasks: AtomicU64::new(0),
    bytes: AtomicU64::new(0),
    inline: AtomicU64::new(0),
    absorbed_bytes: AtomicU64::new(0),
    absorbed_syscall_bytes: AtomicU64::new(0),
    lazy_dropped: AtomicU64::new(0),
    lazy_deferred: AtomicU64::new(0),
    csync: CachePadded::new(WaitCounters { waits: AtomicU64::new(0), wait_ns: AtomicU64::new(0) }),
    service_bytes: CachePadded::new(AtomicU64::new(0)),
    helper_bytes: CachePadded::new(AtomicU64::new(0)),
    device_tasks: AtomicU64::new(0),
});

/// The waits of the `csync` family (see [`Counters::csync`]).
pub struct WaitCounters {
    /// Calls that had to wait.
    pub waits: AtomicU64,
    /// Nanoseconds spent in those waits.
    pub wait_ns: AtomicU64,
}

impl WaitCounters {
    /// The start of a wait for [`WaitCounters::add`]: the `now_ns` clock
    /// while the counters are reported ([`crate::config::stats_on`]), else
    /// 0, so a wait costs no clock read unless someone asks for `wait_ns`
    /// (two `clock_gettime` calls were about 40 ns of a csync that waits
    /// for a 16 KiB copy, and a quarter of the samples of many threads
    /// csyncing their own copies).
    #[inline]
    pub fn start(&self) -> u64 {
        if crate::config::stats_on() {
            crate::sys::now_ns()
        } else {
            0
        }
    }

    /// Count one wait that started at `t0` ([`WaitCounters::start`]; 0
    /// counts the wait without its time).
    #[inline]
    pub fn add(&self, t0: u64) {
        self.waits.fetch_add(1, Ordering::Relaxed);
        if t0 != 0 {
            self.wait_ns.fetch_add(crate::sys::now_ns().saturating_sub(t0), Ordering::Relaxed);
        }
    }
}

/// A copy of every counter.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    /// See [`Counters::tasks`].
    pub tasks: u64,
    /// See [`Counters::bytes`].
    pub bytes: u64,
    /// Copies executed inline (below the threshold) or synchronously.
    pub inline: u64,
    /// See [`Counters::absorbed_bytes`].
    pub absorbed_bytes: u64,
    /// See [`Counters::absorbed_syscall_bytes`].
    pub absorbed_syscall_bytes: u64,
    /// See [`Counters::lazy_dropped`].
    pub lazy_dropped: u64,
    /// See [`Counters::lazy_deferred`].
    pub lazy_deferred: u64,
    /// See [`WaitCounters::waits`].
    pub csync_waits: u64,
    /// See [`WaitCounters::wait_ns`].
    pub csync_wait_ns: u64,
    /// See [`Counters::service_bytes`].
    pub service_bytes: u64,
    /// See [`Counters::helper_bytes`].
    pub waiter_bytes: u64,
    /// The backend serving the process: `"kernel"` or `"inprocess"`.
    pub backend: &'static str,
    /// See [`Counters::device_tasks`].
    pub device_tasks: u64,
}

/// Read every counter (inline counts of all clients included).
pub fn snapshot() -> Snapshot {
    let c = &*COUNTERS;
    Snapshot {
        tasks: c.tasks.load(Ordering::Relaxed),
        bytes: c.bytes.load(Ordering::Relaxed),
        inline: c.inline.load(Ordering::Relaxed) + crate::clients::inline_total(),
        absorbed_bytes: c.absorbed_bytes.load(Ordering::Relaxed),
        absorbed_syscall_bytes: c.absorbed_syscall_bytes.load(Ordering::Relaxed),
        lazy_dropped: c.lazy_dropped.load(Ordering::Relaxed),
        lazy_deferred: c.lazy_deferred.load(Ordering::Relaxed),
        csync_waits: c.csync.waits.load(Ordering::Relaxed),
        csync_wait_ns: c.csync.wait_ns.load(Ordering::Relaxed),
        service_bytes: c.service_bytes.load(Ordering::Relaxed),
        waiter_bytes: c.helper_bytes.load(Ordering::Relaxed),
        backend: if KERNEL_BACKEND.load(Ordering::Relaxed) { "kernel" } else { "inprocess" },
        device_tasks: c.device_tasks.load(Ordering::Relaxed),
    }
}

impl Snapshot {
    /// The exit line, without a trailing newline; ends with the engines in
    /// use now.
    pub fn line(&self) -> String {
        format!(
            "copier: tasks={} bytes={} inline={} absorbed_bytes={} absorbed_syscall_bytes={} lazy_dropped={} lazy_deferred={} csync_waits={} csync_wait_ns={} service_bytes={} waiter_bytes={} engine={} caller={} backend={} device_tasks={}",
            self.tasks,
            self.bytes,
            self.inline,
            self.absorbed_bytes,
            self.absorbed_syscall_bytes,
            self.lazy_dropped,
            self.lazy_deferred,
            self.csync_waits,
            self.csync_wait_ns,
            self.service_bytes,
            self.waiter_bytes,
            crate::engine::engine_name(),
            crate::engine::caller::CallerCopy::current().name(),
            if self.backend.is_empty() { "inprocess" } else { self.backend },
            self.device_tasks
        )
    }
}

/// Write the stats line to stderr with one `write(2)` (usable at exit).
pub fn print_line() {
    let mut s = snapshot().line();
    s.push('\n');
    // SAFETY: writing our own buffer to fd 2.
    unsafe { libc::write(2, s.as_ptr().cast(), s.len()) };
}

/// Append `text` (whole lines) to `path` with one `write(2)` on an
/// `O_APPEND` descriptor, so the lines of many processes sharing the file
/// never interleave (an appending write positions and writes atomically:
/// POSIX `write`, "If the O_APPEND flag ... is set"). Errors are reported
/// on stderr, once per call; they never abort the exit.
pub fn append_text(path: &std::path::Path, text: &str) {
    use std::os::unix::ffi::OsStrExt;
    let Ok(cpath) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return };
    // SAFETY: open(2) with a NUL-terminated path; write(2) and close(2) on
    // the descriptor we opened, with our own buffer.
    unsafe {
        let fd = libc::open(cpath.as_ptr(), libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC, 0o644);
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            let msg = format!("copier: stats_file {}: {e}\n", path.display());
            libc::write(2, msg.as_ptr().cast(), msg.len());
            return;
        }
        libc::write(fd, text.as_ptr().cast(), text.len());
        libc::close(fd);
    }
}

/// Fork child: start counting from zero, so each process's exit line
/// reports its own copies (the lines of a process tree add up).
pub fn reset() {
    let c = &*COUNTERS;
    for a in [&c.tasks, &c.bytes, &c.inline, &c.absorbed_bytes, &c.absorbed_syscall_bytes, &c.lazy_dropped, &c.lazy_deferred, &c.csync.waits, &c.csync.wait_ns, &*c.service_bytes, &*c.helper_bytes, &c.device_tasks] {
        a.store(0, Ordering::Relaxed);
    }
    crate::clients::reset_inline_counts();
}
