//! Dependency tracker, copy absorption and lazy-copy dropping (article
//! §"基于依赖跟踪的正确性保证", §"利用全局视图的拷贝吸收机制"; DESIGN.md
//! "dependency", "copy absorption", "lazy copy task").
//!
//! # Index
//! [`RangeMap`] is a map of non-overlapping address runs keyed by start
//! (a `BTreeMap`), each run holding the **last pending writer** of its bytes
//! and the **pending readers since that write** — the classic last-writer /
//! reader-set scheme of dataflow runtimes. Looking up `[lo, hi)` costs
//! O(log n + k) for k runs. A run's readers are kept in ingest order
//! (ingest sequence number), so retiring a task finds its entry in each run
//! by binary search, and a task reads each address at most once (see
//! absorption below): a reader list never holds more entries than there are
//! pending tasks, and a retire visits each run of its ranges once. Because each writer already depends on the
//! previous writer and on the readers it replaced, a new task needs edges
//! only to those: a task that writes `X` depends on `X`'s last writer (WAW)
//! and readers (WAR); a task that reads `X` depends on `X`'s last writer
//! (RAW). Dependencies are resolved per segment: an edge maps a byte range of
//! the new task onto a byte range of the older one, and segment `k` of the
//! new task may run once the older task's segments covering the mapped bytes
//! are done (transitively that covers older writers and readers too).
//!
//! Submodules: [`range_map`] (the index) and its [`fresh`] tasks, [`ingest`] (edges and lazy drop
//! at ingest), [`absorb`] (absorption, and executing a task's bytes through
//! its redirects), [`edges`] (merging edges, finding blocked segments,
//! segment ranges), [`lazy`] (deferring copies whose destination went to
//! the kernel, dropping lazy copies at a discard); each adds the [`Tracker`] methods of its concept.
//! Retiring a task and the handler queue are here.

use crate::clients::{client_at, entry, ring_of, NCLIENTS};
use crate::desc::{DROPPED, RETIRED};
use crate::stats::COUNTERS;
use crate::sys::FutexMutex;
use crate::task::TaskRef;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub mod absorb;
pub mod edges;
pub mod fresh;
pub mod ingest;
pub mod lazy;
pub mod query;
pub mod range_map;

pub use crate::task::Redirect;
pub use absorb::{effective_sources, exec_bytes, ExecStop};
pub use edges::{bytes_done, first_blocked, seg_range};
pub use range_map::{Acc, RangeMap};

/// The tracker lock: everything behind it.
pub(crate) static TRACKER: FutexMutex<Tracker> = FutexMutex::new(Tracker::new());

/// Length of the handler queue, readable without the lock ([`note_handlers`]).
pub(crate) static HANDLERS_QUEUED: AtomicUsize = AtomicUsize::new(0);

/// Tracker lock held: the handler queue now holds `n` handlers (published
/// before the retired task's slot is freed, see `service::csync_all`).
/// Stored only when it changed: every retire calls this, and a store takes
/// the line away from the other core even when it writes the same value. Every writer holds the tracker
/// lock, so the load and the store do not race.
pub fn note_handlers(n: usize) {
    if HANDLERS_QUEUED.load(Ordering::Relaxed) != n {
        HANDLERS_QUEUED.store(n, Ordering::Release);
    }
}

/// A completion handler waiting to run (handler queue).
#[derive(Clone, Copy, Debug)]
pub struct HandlerTask {
    /// `void (*)(void *)`.
    pub f: usize,
    /// Its argument.
    pub arg: usize,
    /// The task's destination, source and length (for the sanitizer hooks).
    pub dst: usize,
    /// Source address.
    pub src: usize,
    /// Length in bytes.
    pub len: usize,
}

/// Everything behind the tracker lock.
pub struct Tracker {
    /// The index of pending accesses.
    pub map: RangeMap,
    /// Sync queue: segment ranges a `csync` waits on, promoted ahead of other
    /// work (article §"同步队列").
    pub sync_queue: std::collections::VecDeque<(TaskRef, u32, u32)>,
    /// Handler queue: callbacks of retired tasks not run yet.
    pub handlers: std::collections::VecDeque<HandlerTask>,
    /// Ingest sequence number.
    pub seq: u64,
}

/// True while [`Tracker::sync_queue`] may hold ranges: set by
/// [`Tracker::promote`], cleared under the lock once the queue drained. A
/// lock-free hint for the service loop (the service thread's `runnable_hint`).
pub(crate) static SYNC_QUEUED: AtomicBool = AtomicBool::new(false);

impl Tracker {
    /// Promote segment ranges `(task, lo, hi)` to the sync queue.
    pub fn promote(&mut self, ranges: impl IntoIterator<Item = (TaskRef, u32, u32)>) {
        self.sync_queue.extend(ranges);
        SYNC_QUEUED.store(!self.sync_queue.is_empty(), Ordering::Relaxed);
    }

    /// The next promoted range, oldest first; clears [`SYNC_QUEUED`] once
    /// the queue is empty.
    pub fn pop_promoted(&mut self) -> Option<(TaskRef, u32, u32)> {
        let r = self.sync_queue.pop_front();
        if r.is_none() {
            SYNC_QUEUED.store(false, Ordering::Relaxed);
        }
        r
    }

    /// An empty tracker.
    pub const fn new() -> Self {
        Tracker {
            map: crate::tracker::RangeMap::new(),
            sync_queue: std::collections::VecDeque::new(),
            handlers: std::collections::VecDeque::new(),
            seq: 0,
        }
    }

    /// Pending segment ranges touching `[lo, hi)`: any access, or writers
    /// only.
    pub(crate) fn collect(&self, lo: usize, hi: usize, writers_only: bool, out: &mut Vec<(TaskRef, u32, u32)>) {
        if lo >= hi {
            return;
        }
        self.map.visit(lo, hi, |a, b, w, readers| {
            let mut push = |acc: crate::tracker::Acc| {
                let e = entry(acc.t);
                if e.desc.pos() != acc.t.pos {
                    return;
                }
                let (slo, shi) = seg_range(acc.off, b - a, e.desc.seg_shift());
                if !e.desc.is_done(acc.t.pos, slo, shi) {
                    out.push((acc.t, slo, shi));
                }
            };
            if let Some(w) = w {
                push(w);
            }
            if !writers_only {
                for r in readers {
                    push(r);
                }
            }
        });
    }

    /// Remove a complete task from the index, queue its handler, count it and
    /// free its ring slot (and any retired slots after it).
    pub fn retire(&mut self, t: TaskRef) {
        let e = entry(t);
        if e.desc.pos() != t.pos || e.desc.flags() & RETIRED != 0 {
            return;
        }
        let (d, s, n) = (e.dst(), e.src(), e.len());
        // SAFETY: under the lock; executors no longer read ext of a complete task.
        let ext = unsafe { &*e.ext.get() };
        // (these ranges are disjoint, except d and s of an overlapping move,
        // which has no redirects: each run is visited about once)
        if !self.map.remove_task(t, s) {
            self.map.remove(d, d + n, t, ext.seq);
            self.map.remove(s, s + n, t, ext.seq);
            for r in &ext.redirects {
                self.map.remove(r.src, r.src + r.len, t, ext.seq);
            }
        }
        if e.desc.flags() & DROPPED == 0 {
            COUNTERS.tasks.fetch_add(1, Ordering::Relaxed);
            COUNTERS.bytes.fetch_add(n as u64, Ordering::Relaxed);
        }
        e.desc.set_flags(RETIRED);
        // (the handler is queued when the slot is freed, see `advance_tail`)
        advance_tail(t.client, &mut self.handlers);
    }

    /// Retire every ingested task of every queue whose segments are all
    /// complete and which is not retired yet (completed by an executor that
    /// left the retirement to the service thread, or that a fork cut off
    /// before it took the lock). Returns true when it retired any.
    pub fn retire_done(&mut self) -> bool {
        let mut any = false;
        for i in 0..NCLIENTS.load(Ordering::Acquire) {
            let Some(r) = client_at(i).and_then(ring_of) else { continue };
            for p in r.tail()..r.ingested() {
                let d = &r.slot(p).desc;
                if d.pos() == p && d.flags() & RETIRED == 0 && d.first_undone(0, d.nsegs()).is_none() {
                    self.retire(TaskRef { client: i as u16, pos: p });
                    any = true;
                }
            }
        }
        note_handlers(self.handlers.len());
        any
    }
}

impl Default for Tracker {
    fn default() -> Self {
        Self::new()
    }
}

/// Free retired slots at the tail of `client`'s ring (tracker lock held),
/// and queue the completion handlers of the freed slots on `handlers`.
///
/// A handler is queued only here, so it runs after its copy AND every copy
/// the same thread submitted before it completed: the handler may free or
/// reuse the copy's source (`amemcpy_handler`: "e.g. to free the source"),
/// which with memcpy every earlier copy had long finished reading, also
/// outside this copy's range (`amemcpy(d1, msg, n); amemcpy_handler(d2, msg +
/// h, n - h, free, msg)`). Copies are retired out of order, slots freed in
/// order.
pub fn advance_tail(client: u16, handlers: &mut std::collections::VecDeque<HandlerTask>) {
    let Some(r) = client_at(client as usize).and_then(ring_of) else { return };
    let mut t = r.tail();
    let end = r.ingested();
    let queued = handlers.len();
    while t < end {
        let e = r.slot(t);
        let d = &e.desc;
        if d.pos() != t || d.flags() & RETIRED == 0 {
            break;
        }
        let f = e.handler.load(Ordering::Relaxed);
        if f != 0 {
            handlers.push_back(HandlerTask { f, arg: e.arg.load(Ordering::Relaxed), dst: e.dst(), src: e.src(), len: e.len() });
        }
        t += 1;
    }
    if handlers.len() != queued {
        note_handlers(handlers.len());
    }
    r.set_tail(t);
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seg_ranges() {
        assert_eq!(seg_range(0, 1, 12), (0, 1));
        assert_eq!(seg_range(4095, 2, 12), (0, 2));
        assert_eq!(seg_range(8192, 4096, 12), (2, 3));
        assert_eq!(seg_range(123, 9999, 63), (0, 1));
    }
}
