//! Counters behind `COPIER_STATS=1`. The format of the exit line is part of
//! the interface (issue 2):
//! `copier: tasks=N bytes=N inline=N absorbed_bytes=N lazy_dropped=N csync_waits=N csync_wait_ns=N`.

use core::sync::atomic::{AtomicU64, Ordering};
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
    /// Lazy copies dropped because their destination was overwritten first.
    pub lazy_dropped: AtomicU64,
    /// `csync`-family calls that had to wait.
    pub csync_waits: AtomicU64,
    /// Nanoseconds spent in those waits.
    pub csync_wait_ns: AtomicU64,
    /// Bytes the service thread executed (diagnostic, not in the line).
    pub service_bytes: AtomicU64,
    /// Bytes waiting threads executed themselves (diagnostic).
    pub helper_bytes: AtomicU64,
}

/// The counters.
pub static COUNTERS: CachePadded<Counters> = CachePadded::new(Counters {
    tasks: AtomicU64::new(0),
    bytes: AtomicU64::new(0),
    inline: AtomicU64::new(0),
    absorbed_bytes: AtomicU64::new(0),
    lazy_dropped: AtomicU64::new(0),
    csync_waits: AtomicU64::new(0),
    csync_wait_ns: AtomicU64::new(0),
    service_bytes: AtomicU64::new(0),
    helper_bytes: AtomicU64::new(0),
});

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
    /// See [`Counters::lazy_dropped`].
    pub lazy_dropped: u64,
    /// See [`Counters::csync_waits`].
    pub csync_waits: u64,
    /// See [`Counters::csync_wait_ns`].
    pub csync_wait_ns: u64,
}

/// Read every counter (inline counts of all clients included).
pub fn snapshot() -> Snapshot {
    let c = &*COUNTERS;
    Snapshot {
        tasks: c.tasks.load(Ordering::Relaxed),
        bytes: c.bytes.load(Ordering::Relaxed),
        inline: c.inline.load(Ordering::Relaxed) + crate::service::inline_total(),
        absorbed_bytes: c.absorbed_bytes.load(Ordering::Relaxed),
        lazy_dropped: c.lazy_dropped.load(Ordering::Relaxed),
        csync_waits: c.csync_waits.load(Ordering::Relaxed),
        csync_wait_ns: c.csync_wait_ns.load(Ordering::Relaxed),
    }
}

impl Snapshot {
    /// The exit line, without a trailing newline.
    pub fn line(&self) -> String {
        format!(
            "copier: tasks={} bytes={} inline={} absorbed_bytes={} lazy_dropped={} csync_waits={} csync_wait_ns={}",
            self.tasks, self.bytes, self.inline, self.absorbed_bytes, self.lazy_dropped, self.csync_waits, self.csync_wait_ns
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
