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
//! # Absorption (layered, per piece)
//! At ingest of `B`, for each piece of `B`'s source whose last writer `A` is
//! still pending, `B` reads `A`'s *effective* source for that piece instead
//! (`A`'s source, or what `A` itself absorbed from — the newest correct
//! source), provided that source has no pending writer and does not overlap
//! `B`'s destination. `B` then has no edge on `A` for the piece and is
//! registered as a reader of that source, so a later write to it waits for
//! `B`. It also stays a reader of the piece of its own source, exactly as
//! without absorption: in the program's view `B` reads `A`'s destination,
//! so a csync there waits for `B` — a program that csyncs `A`'s destination
//! may then write or free `A`'s source, which `B` really reads. Pieces whose
//! writer already completed are read normally.
//!
//! Absorption keeps a task's reads one-to-one: a piece is absorbed only if
//! its effective source overlaps neither the task's own source range nor a
//! source the task already absorbed from. Without that rule, a task reading
//! bytes that several pending copies wrote from the same (or overlapping)
//! source — fan-in, e.g. a buffer assembled from shifted copies of one
//! source — would read that source many times, and each layer of a copy
//! chain multiplies the repeats: reader lists grew to hundreds of entries of
//! the same few tasks and retire went quadratic (30-50 s stalls). Refused
//! pieces fall back to a dependency edge, which is always correct.
//! Adjacent redirects that continue each other are coalesced.
//!
//! # Absorption and faults
//! A redirect reads another copy's source, so a bad pointer there is that
//! copy's fault, not the absorbing copy's. `B` reading `A`'s destination
//! must behave like `memcpy(B.dst, A.dst, n)` run after `A`'s copy, faulted
//! or not (never fault a second time on `A`'s source). Each [`Redirect`]
//! names `A` (`from`) and the copy whose source it reads (`owner`: `A`, or
//! the copy `A` absorbed the piece from). At execution ([`exec_bytes`]):
//! * owner clean: read the redirected source with the recoverable copy;
//! * owner faulted, not finished: wait for `A`'s bytes (the waiter
//!   executing `A` delivers its fault once, as `memcpy` would), then as
//!   below;
//! * owner failed, or the redirected read faulted (the owner had not run
//!   yet, or faulted after `B`'s redirect was computed): read `B`'s own
//!   source, `A`'s destination as `A` left it, once `A` finished those bytes
//!   (`B` waits for `A`, so `A`'s own execution faults first).
//!
//! A failed copy ([`Tracker::note_failed`]) is remembered after its slot is
//! reused. The copies that absorbed from it are already readers of the
//! pieces of their own source they now read (see above), so a write there
//! ingested later waits for them. Limits: a piece `B` copied before `A`
//! faulted keeps the bytes of `A`'s source (as if that part of `A` had
//! completed first); a write into `A`'s destination ingested before `A`
//! failed is ordered after `A` only, not after `B`.

//! # Lazy drop
//! When `C` writes over the whole destination of a pending lazy task `W`,
//! and `W`'s destination has no reader since `W` and no later writer, the
//! unclaimed segments of `W` are dropped (claimed and marked done unexecuted).
//! `C` inherits `W`'s edges so whatever `W` waited for still orders `C`.

use crate::desc::{DEPS_CLEAR, DROPPED, FAULTED, INGESTED, RETIRED};
use crate::service::{entry, Edge, Entry, TaskRef, FLAG_ABSORBS, FLAG_LAZY, FLAG_OVERLAP};
use crate::stats::COUNTERS;
use crate::sys::FutexMutex;
use core::sync::atomic::{AtomicUsize, Ordering};
use std::collections::BTreeMap;

/// Absorption: this task's bytes `[off, off + len)` are read from `src`
/// instead of the task's own source.
///
/// `from` is the pending copy that writes those bytes of the task's source
/// (its bytes `[from_off, from_off + len)`), `owner` the copy whose own
/// source `src` lies in (`from` itself, or the copy `from` absorbed them
/// from). If `owner`'s copy faulted, the redirect is not used: the piece is
/// read from the task's own source once `from` has finished those bytes
/// (see [`exec_bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// Task offset.
    pub off: usize,
    /// Bytes.
    pub len: usize,
    /// Source address used instead.
    pub src: usize,
    /// The copy that writes this piece of the task's source.
    pub from: TaskRef,
    /// Offset of the piece in `from`.
    pub from_off: usize,
    /// The copy whose own source `src` is.
    pub owner: TaskRef,
}

/// An access of a task to a run: which task, its ingest sequence number,
/// and the task offset (bytes) of the run's first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acc {
    /// The task.
    pub t: TaskRef,
    /// The task's ingest sequence number (`TaskExt::seq`): orders a run's
    /// readers.
    pub seq: u64,
    /// Task offset of the run's start.
    pub off: usize,
}

#[derive(Clone, Debug, Default)]
struct Run {
    end: usize,
    writer: Option<Acc>,
    /// Sorted by `seq` (ingest order; readers are only ever appended by the
    /// task being ingested, which has the highest `seq` so far).
    readers: Vec<Acc>,
}

fn shift_acc(a: Acc, by: usize) -> Acc {
    Acc { off: a.off + by, ..a }
}

/// Non-overlapping runs of pending accesses keyed by start address.
#[derive(Default)]
pub struct RangeMap {
    runs: BTreeMap<usize, Run>,
    work: u64,
    /// Empty reader lists of removed runs, reused by new runs (a stream of
    /// copies would otherwise allocate and free one per task).
    spare: Vec<Vec<Acc>>,
}

/// Most reader lists [`RangeMap`] keeps for reuse.
const SPARE_READERS: usize = 256;

impl RangeMap {
    /// An empty map.
    pub const fn new() -> Self {
        RangeMap { runs: BTreeMap::new(), work: 0, spare: Vec::new() }
    }

    /// True when some run overlaps `[lo, hi)` (one search: runs do not
    /// overlap, so only the last run starting before `hi` can reach `lo`).
    pub fn overlaps(&self, lo: usize, hi: usize) -> bool {
        lo < hi && self.runs.range(..hi).next_back().is_some_and(|(_, r)| r.end > lo)
    }

    /// A new run `[lo, hi)` with one access, where no run overlaps (the
    /// caller checked [`RangeMap::overlaps`]): `a` as its writer or as its
    /// only reader.
    pub fn insert_fresh(&mut self, lo: usize, hi: usize, a: Acc, write: bool) {
        debug_assert!(lo < hi && !self.overlaps(lo, hi));
        let mut readers = self.spare.pop().unwrap_or_default();
        let writer = if write {
            Some(a)
        } else {
            readers.push(a);
            None
        };
        self.runs.insert(lo, Run { end: hi, writer, readers });
    }

    /// Keep an emptied run's reader list for reuse.
    fn recycle(&mut self, mut v: Vec<Acc>) {
        if self.spare.len() < SPARE_READERS && v.capacity() != 0 {
            v.clear();
            self.spare.push(v);
        }
    }

    /// Work done by [`RangeMap::remove`] so far: runs visited plus reader
    /// entries examined (binary-search probes and entries removed). A test
    /// hook for complexity bounds (no timing needed).
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Number of runs (for tests and leak checks).
    pub fn len(&self) -> usize {
        self.runs.len()
    }
    /// True when no pending access is recorded.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Make `x` a run boundary if a run strictly contains it.
    fn split(&mut self, x: usize) {
        let Some((&s, r)) = self.runs.range_mut(..x).next_back() else { return };
        if r.end <= x {
            return;
        }
        let by = x - s;
        let tail = Run {
            end: r.end,
            writer: r.writer.map(|a| shift_acc(a, by)),
            readers: r.readers.iter().map(|&a| shift_acc(a, by)).collect(),
        };
        r.end = x;
        self.runs.insert(x, tail);
    }

    /// Visit the runs overlapping `[lo, hi)` clipped to it: `f(a, b, writer,
    /// readers)` with accesses already shifted to `a`.
    pub fn visit(&self, lo: usize, hi: usize, mut f: impl FnMut(usize, usize, Option<Acc>, &mut dyn Iterator<Item = Acc>)) {
        if lo >= hi {
            return;
        }
        let first = self.runs.range(..lo).next_back().filter(|(_, r)| r.end > lo);
        for (&s, r) in first.into_iter().chain(self.runs.range(lo..hi)) {
            let a = s.max(lo);
            let b = r.end.min(hi);
            let by = a - s;
            let w = r.writer.map(|x| shift_acc(x, by));
            let mut it = r.readers.iter().map(move |&x| shift_acc(x, by));
            f(a, b, w, &mut it);
        }
    }

    /// True when some pending task writes a byte of `[lo, hi)`.
    pub fn has_writer(&self, lo: usize, hi: usize) -> bool {
        let mut any = false;
        self.visit(lo, hi, |_, _, w, _| any |= w.is_some());
        any
    }

    fn cover(&mut self, lo: usize, hi: usize, mut f: impl FnMut(usize, &mut Run)) {
        self.split(lo);
        self.split(hi);
        let mut cur = lo;
        let existing: Vec<usize> = self.runs.range(lo..hi).map(|(&s, _)| s).collect();
        for s in existing {
            if s > cur {
                let mut r = Run { end: s, ..Default::default() };
                f(cur, &mut r);
                self.runs.insert(cur, r);
            }
            let r = self.runs.get_mut(&s).expect("run");
            f(s, r);
            cur = r.end;
        }
        if cur < hi {
            let mut r = Run { end: hi, ..Default::default() };
            f(cur, &mut r);
            self.runs.insert(cur, r);
        }
    }

    /// Record `a.t` as the last writer of `[lo, hi)`, `a.off` being its task
    /// offset at `lo`. Clears the readers (they are now ordered before it).
    pub fn add_writer(&mut self, lo: usize, hi: usize, a: Acc) {
        if lo < hi {
            self.cover(lo, hi, |s, r| {
                r.writer = Some(shift_acc(a, s - lo));
                r.readers.clear();
            });
        }
    }

    /// Record `a.t` as a reader of `[lo, hi)` (task offset `a.off` at `lo`).
    /// `a.seq` must be at least every reader's already recorded (the task
    /// being ingested).
    pub fn add_reader(&mut self, lo: usize, hi: usize, a: Acc) {
        if lo < hi {
            self.cover(lo, hi, |s, r| {
                debug_assert!(r.readers.last().is_none_or(|l| l.seq <= a.seq), "readers out of ingest order");
                r.readers.push(shift_acc(a, s - lo));
            });
        }
    }

    /// Smallest ingest sequence number of a task with a recorded access
    /// (every pending task writes its destination), `None` when empty.
    pub fn min_seq(&self) -> Option<u64> {
        self.runs.values().flat_map(|r| r.writer.iter().chain(r.readers.first())).map(|a| a.seq).min()
    }

    /// Forget every access of task `t` (ingest sequence number `seq`) to
    /// `[lo, hi)`; drop runs left empty. Costs O(log n + k log m) for k runs
    /// of at most m readers (plus moving the tail of each reader list).
    pub fn remove(&mut self, lo: usize, hi: usize, t: TaskRef, seq: u64) {
        if lo >= hi {
            return;
        }
        // the common case: the task's range is one run of its own
        if let std::collections::btree_map::Entry::Occupied(mut o) = self.runs.entry(lo) {
            if o.get().end == hi {
                let r = o.get_mut();
                self.work += Self::forget(r, t, seq);
                if r.writer.is_none() && r.readers.is_empty() {
                    let r = o.remove();
                    self.recycle(r.readers);
                }
                return;
            }
        }
        let mut x = self.runs.range(..lo).next_back().filter(|(_, r)| r.end > lo).map_or(lo, |(&s, _)| s);
        while x < hi {
            let Some((&s, r)) = self.runs.range_mut(x..hi).next() else { break };
            self.work += Self::forget(r, t, seq);
            x = r.end;
            if r.writer.is_none() && r.readers.is_empty() {
                let r = self.runs.remove(&s).expect("run");
                self.recycle(r.readers);
            }
        }
    }

    /// Forget `t`'s accesses recorded in `r`; returns the work done (runs
    /// visited plus reader entries examined).
    fn forget(r: &mut Run, t: TaskRef, seq: u64) -> u64 {
        if r.writer.is_some_and(|a| a.t == t) {
            r.writer = None;
        }
        let a = r.readers.partition_point(|x| x.seq < seq);
        let b = a + r.readers[a..].iter().take_while(|x| x.seq == seq).count();
        debug_assert!(r.readers[a..b].iter().all(|x| x.t == t));
        let work = 1 + u64::from(r.readers.len().max(1).ilog2()) + 1 + (b - a) as u64;
        r.readers.drain(a..b);
        work
    }

    /// The first run starting at or after `x`, and the run containing `x`.
    pub fn runs_from(&self, x: usize, max: usize) -> Vec<(usize, usize, Option<Acc>, Vec<Acc>)> {
        let mut v = Vec::new();
        if let Some((&s, r)) = self.runs.range(..x).next_back() {
            if r.end > x {
                v.push((s, r.end, r.writer, r.readers.clone()));
            }
        }
        for (&s, r) in self.runs.range(x..).take(max) {
            v.push((s, r.end, r.writer, r.readers.clone()));
        }
        v
    }
}

/// Segment range `[lo, hi)` covering task bytes `[off, off + len)`.
#[inline]
pub fn seg_range(off: usize, len: usize, shift: u32) -> (u32, u32) {
    debug_assert!(len > 0);
    let lo = if shift >= 63 { 0 } else { off >> shift };
    let hi = if shift >= 63 { 1 } else { ((off + len - 1) >> shift) + 1 };
    (lo as u32, hi as u32)
}

/// True when task `t` has completed its bytes `[off, off + len)`.
pub fn bytes_done(t: TaskRef, off: usize, len: usize) -> bool {
    let e = entry(t);
    let d = &e.desc;
    if d.pos() != t.pos {
        return true;
    }
    let (lo, hi) = seg_range(off, len, d.seg_shift());
    d.is_done(t.pos, lo, hi)
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

/// Does `[a, a+n)` intersect `[b, b+m)`?
#[inline]
fn overlaps(a: usize, n: usize, b: usize, m: usize) -> bool {
    a < b + m && b < a + n
}

impl Tracker {
    /// Ingest the published task at `t`: compute its edges, absorb, drop
    /// overwritten lazy copies, and register its accesses.
    ///
    /// # Safety
    /// The caller holds the tracker lock and `t` is published and not yet
    /// ingested (so its `ext` is ours to write).
    pub unsafe fn ingest(&mut self, t: TaskRef, absorb: bool) {
        let e = entry(t);
        let (d, s, n) = (e.dst(), e.src(), e.len());
        let flags = e.flags.load(Ordering::Relaxed);
        // SAFETY: under the tracker lock; not visible to executors before
        // INGESTED is set below.
        let ext = unsafe { &mut *e.ext.get() };
        ext.edges.clear();
        ext.redirects.clear();
        ext.seq = self.seq;
        self.seq += 1;
        ext.ingest_ns = if flags & FLAG_LAZY != 0 { crate::sys::now_ns() } else { 0 };

        // 0. no pending access touches either range (a stream of copies
        // into fresh buffers): no edge, nothing to absorb or drop; record
        // the read and the write, two searches and two inserts. (What the
        // steps below compute for such a task, without their allocations.)
        if flags & FLAG_OVERLAP == 0 && !self.map.overlaps(s, s + n) && !self.map.overlaps(d, d + n) {
            let me = Acc { t, seq: ext.seq, off: 0 };
            self.map.insert_fresh(s, s + n, me, false);
            self.map.insert_fresh(d, d + n, me, true);
            e.desc.set_flags(INGESTED | DEPS_CLEAR);
            return;
        }

        // 1. source side: RAW on last writers, or absorb.
        let mut reads: Vec<(usize, usize, usize)> = Vec::new(); // (addr, len, task off)
        let mut pieces: Vec<(usize, usize, Acc)> = Vec::new();
        let mut plain: Vec<(usize, usize)> = Vec::new(); // source pieces read in place
        {
            let mut covered = s;
            self.map.visit(s, s + n, |a, b, w, _| {
                if let Some(w) = w {
                    if a > covered {
                        plain.push((covered, a));
                    }
                    pieces.push((a, b, w));
                    covered = b;
                }
            });
            if covered < s + n {
                plain.push((covered, s + n));
            }
        }
        for (a, b) in plain {
            reads.push((a, b - a, a - s));
        }
        // source addresses absorbed from so far (start -> end), disjoint
        let mut absorbed: BTreeMap<usize, usize> = BTreeMap::new();
        for (a, b, w) in pieces {
            // Per segment of the writer: a done segment may have been synced
            // and its source rewritten since, so it is read in place (layered
            // absorption); a pending one still guarantees its source holds
            // the bytes it will copy.
            let we = entry(w.t);
            let wshift = we.desc.seg_shift();
            let mut x = a;
            while x < b {
                let woff = w.off + (x - a);
                let y = if wshift >= 63 { b } else { b.min(x + (((woff >> wshift) + 1) << wshift) - woff) };
                let (len, t_off) = (y - x, x - s);
                let wacc = Acc { off: woff, ..w };
                if bytes_done(w.t, woff, len) {
                    reads.push((x, len, t_off));
                } else {
                    self.absorb_or_depend(ext, (d, s, n), flags, absorb, x, len, t_off, wacc, &mut reads, &mut absorbed);
                }
                x = y;
            }
        }
        ext.redirects.sort_by_key(|r| r.off);
        coalesce_redirects(&mut ext.redirects);
        if !ext.redirects.is_empty() {
            // Release: `own_fast_wait` reads the redirects after this bit
            e.flags.fetch_or(FLAG_ABSORBS, Ordering::Release);
        }

        // tasks whose output this task reads (never dropped below)
        let raw_on: Vec<TaskRef> = ext.edges.iter().map(|e| e.t).collect();

        // 1b. a copy with a completion handler also waits for the earlier
        // copies that read its source: the handler may free or reuse the
        // source as soon as this copy completes ("e.g. to free the source",
        // `amemcpy_handler`), which the program may do because with memcpy
        // every earlier copy had long read it (amemcpy(d1, msg);
        // amemcpy_handler(d2, msg, n, free, msg)). Earlier readers include
        // copies that absorbed from this source. (Edges point to earlier
        // tasks only, so no cycle.)
        if e.handler.load(Ordering::Relaxed) != 0 {
            self.map.visit(s, s + n, |a, b, _, readers| {
                for r in readers {
                    if r.t != t && !bytes_done(r.t, r.off, b - a) {
                        ext.edges.push(Edge { t: r.t, t_off: a - s, e_off: r.off, len: b - a });
                    }
                }
            });
        }

        // 2. destination side: WAW on the last writer, WAR on readers.
        let mut lazy_cands: Vec<TaskRef> = Vec::new();
        self.map.visit(d, d + n, |a, b, w, readers| {
            let len = b - a;
            let t_off = a - d;
            if let Some(w) = w {
                if !bytes_done(w.t, w.off, len) {
                    ext.edges.push(Edge { t: w.t, t_off, e_off: w.off, len });
                    if entry(w.t).flags.load(Ordering::Relaxed) & FLAG_LAZY != 0 && !lazy_cands.contains(&w.t) {
                        lazy_cands.push(w.t);
                    }
                }
            }
            for r in readers {
                if r.t != t && !bytes_done(r.t, r.off, len) {
                    ext.edges.push(Edge { t: r.t, t_off, e_off: r.off, len });
                }
            }
        });

        // 3. lazy drop
        for w in lazy_cands {
            let we = entry(w);
            let (wd, wn) = (we.dst(), we.len());
            if wd < d || wd + wn > d + n || we.desc.pos() != w.pos || raw_on.contains(&w) {
                continue;
            }
            let mut sole = true;
            let mut seen = 0usize;
            self.map.visit(wd, wd + wn, |a, b, wr, readers| {
                seen += b - a;
                if wr.map(|x| x.t) != Some(w) || readers.next().is_some() {
                    sole = false;
                }
            });
            if !sole || seen != wn {
                continue;
            }
            // inherit w's edges, then drop its unclaimed segments
            // SAFETY: w is ingested and we hold the lock.
            let wext = unsafe { &*we.ext.get() };
            // (edge offsets move from w's offset space to ours: w's byte o is
            // our byte wd - d + o)
            ext.edges.extend(wext.edges.iter().map(|e| Edge { t_off: e.t_off + (wd - d), ..*e }));
            let mut finished = false;
            let mut dropped = false;
            we.desc.claim_all(|word, bits| {
                dropped = true;
                finished |= we.desc.complete_bits(word, bits);
            });
            if dropped {
                we.desc.set_flags(DROPPED);
                COUNTERS.lazy_dropped.fetch_add(1, Ordering::Relaxed);
                crate::service::notify_progress();
            }
            if finished {
                self.retire(w);
            }
        }

        // 4. merge edges
        merge_edges(&mut ext.edges);
        let mut f = INGESTED;
        if ext.edges.is_empty() {
            f |= DEPS_CLEAR;
        }

        // 5. register accesses: reads first, then the write (a self-overlapping
        // move is then recorded as the writer of the overlap).
        reads.sort_unstable_by_key(|r| r.0);
        let me = Acc { t, seq: ext.seq, off: 0 };
        let mut i = 0;
        while i < reads.len() {
            // coalesce reads that continue each other (fewer run splits)
            let (addr, mut l, off) = reads[i];
            i += 1;
            while i < reads.len() && reads[i].0 == addr + l && reads[i].2 == off + l {
                l += reads[i].1;
                i += 1;
            }
            self.map.add_reader(addr, addr + l, Acc { off, ..me });
        }
        self.map.add_writer(d, d + n, me);
        e.desc.set_flags(f);
    }

    /// Source piece `[x, x + len)` (task offset `t_off`) of the task being
    /// ingested has the pending writer `w`: read `w`'s effective source
    /// instead where it is clean, else depend on `w`.
    #[allow(clippy::too_many_arguments)]
    fn absorb_or_depend(
        &self,
        ext: &mut crate::service::TaskExt,
        (d, s, n): (usize, usize, usize),
        flags: u32,
        absorb: bool,
        x: usize,
        len: usize,
        t_off: usize,
        w: Acc,
        reads: &mut Vec<(usize, usize, usize)>,
        absorbed: &mut BTreeMap<usize, usize>,
    ) {
        let we = entry(w.t);
        // Never from a copy with a completion handler: the handler runs as
        // soon as that copy completes and may free or reuse its source
        // ("e.g. to free the source", `amemcpy_handler`), while an
        // absorbing copy would still read it. (Absorbed pieces only ever
        // name handler-less owners, so a chain through redirects is safe.)
        let can_absorb = absorb
            && flags & FLAG_OVERLAP == 0
            && we.flags.load(Ordering::Relaxed) & FLAG_OVERLAP == 0
            && we.handler.load(Ordering::Relaxed) == 0
            && we.desc.flags() & FAULTED == 0;
        if !can_absorb {
            ext.edges.push(Edge { t: w.t, t_off, e_off: w.off, len });
            reads.push((x, len, t_off));
            return;
        }
        // SAFETY: w is ingested (it is in the map) and the caller holds the lock.
        let wext = unsafe { &*we.ext.get() };
        for (o, l, addr, via) in effective_sources(we.src(), &wext.redirects, w.off, len) {
            let owner = via.map_or(w.t, |r| r.owner);
            // one read per address (see the module docs): not our own
            // source, not a source already absorbed from
            let fresh = !overlaps(addr, l, s, n)
                && absorbed.range(..addr + l).next_back().is_none_or(|(_, &e)| e <= addr);
            let clean = fresh
                && !self.map.has_writer(addr, addr + l)
                && !overlaps(addr, l, d, n)
                && !owner_faulted(owner);
            if clean {
                absorbed.insert(addr, addr + l);
                ext.redirects.push(Redirect { off: t_off + o, len: l, src: addr, from: w.t, from_off: w.off + o, owner });
                COUNTERS.absorbed_bytes.fetch_add(l as u64, Ordering::Relaxed);
                reads.push((addr, l, t_off + o));
                // still a reader of its own source piece, as without
                // absorption (module docs)
                reads.push((x + o, l, t_off + o));
            } else {
                ext.edges.push(Edge { t: w.t, t_off: t_off + o, e_off: w.off + o, len: l });
                reads.push((x + o, l, t_off + o));
            }
        }
    }

    /// The copy `t` (ingested, not retired) finished with a fault
    /// ([`FAILED`](crate::desc::FAILED); called before its segments are
    /// completed): remember it for `exec_bytes` after its slot is reused
    /// (module docs, "Absorption and faults").
    pub fn note_failed(&mut self, t: TaskRef) {
        if entry(t).desc.pos() != t.pos {
            return;
        }
        // a copy that may hold a redirect owned by a failed one was ingested
        // before that failure: keep the entries newer than the oldest
        // pending copy
        let oldest = self.map.min_seq();
        let mut f = FAILED_TASKS.lock();
        f.retain(|&(_, seq)| oldest.is_some_and(|o| o < seq));
        f.push((t, self.seq));
        FAILED_ANY.store(f.len(), Ordering::Release);
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
        self.map.remove(d, d + n, t, ext.seq);
        self.map.remove(s, s + n, t, ext.seq);
        for r in &ext.redirects {
            self.map.remove(r.src, r.src + r.len, t, ext.seq);
        }
        if e.desc.flags() & DROPPED == 0 {
            COUNTERS.tasks.fetch_add(1, Ordering::Relaxed);
            COUNTERS.bytes.fetch_add(n as u64, Ordering::Relaxed);
        }
        e.desc.set_flags(RETIRED);
        // (the handler is queued when the slot is freed, see `advance_tail`)
        crate::service::advance_tail(t.client, &mut self.handlers);
    }
}

/// Split task bytes `[off, off + len)` of a task with source `src` and
/// absorption `redirects` into `(piece offset, piece len, source address,
/// redirect)`: `redirect` is the one the piece lies in, `None` for pieces
/// read from `src`.
pub fn effective_sources(src: usize, redirects: &[Redirect], off: usize, len: usize) -> Vec<(usize, usize, usize, Option<&Redirect>)> {
    let mut v = Vec::new();
    let end = off + len;
    let mut x = off;
    for r in redirects {
        if r.off + r.len <= x {
            continue;
        }
        if r.off >= end {
            break;
        }
        if r.off > x {
            v.push((x - off, r.off - x, src + x, None));
            x = r.off;
        }
        let e = (r.off + r.len).min(end);
        v.push((x - off, e - x, r.src + (x - r.off), Some(r)));
        x = e;
    }
    if x < end {
        v.push((x - off, end - x, src + x, None));
    }
    v
}

/// Merge redirects (sorted by offset) that continue each other in the task,
/// the source and the copy they come from.
fn coalesce_redirects(v: &mut Vec<Redirect>) {
    v.dedup_by(|next, prev| {
        if prev.off + prev.len == next.off
            && prev.src + prev.len == next.src
            && prev.from == next.from
            && prev.from_off + prev.len == next.from_off
            && prev.owner == next.owner
        {
            prev.len += next.len;
            true
        } else {
            false
        }
    });
}

fn merge_edges(edges: &mut Vec<Edge>) {
    if edges.len() < 2 {
        return;
    }
    edges.sort_by_key(|e| (e.t.client, e.t.pos, e.t_off));
    let mut out: Vec<Edge> = Vec::with_capacity(edges.len());
    for e in edges.drain(..) {
        if let Some(l) = out.last_mut() {
            if l.t == e.t && l.t_off + l.len == e.t_off && l.e_off + l.len == e.e_off {
                l.len += e.len;
                continue;
            }
            if *l == e {
                continue;
            }
        }
        out.push(e);
    }
    *edges = out;
}

/// For segment range `[lo, hi)` (segment shift `shift`) of a task with
/// `edges`, the first segment that has an unfinished dependency, and those
/// dependencies as `(task, seg lo, seg hi)` of the older task.
pub fn first_blocked(edges: &[Edge], shift: u32, len: usize, lo: u32, hi: u32, deps: &mut Vec<(TaskRef, u32, u32)>) -> Option<u32> {
    let seg_bytes = |k: u32| -> (usize, usize) {
        if shift >= 63 {
            (0, len)
        } else {
            let a = (k as usize) << shift;
            (a, (a + (1usize << shift)).min(len))
        }
    };
    for k in lo..hi {
        let (a, b) = seg_bytes(k);
        let mut blocked = false;
        for ed in edges {
            let x = a.max(ed.t_off);
            let y = b.min(ed.t_off + ed.len);
            if x >= y {
                continue;
            }
            let eoff = ed.e_off + (x - ed.t_off);
            let ee = entry(ed.t);
            if ee.desc.pos() != ed.t.pos {
                continue;
            }
            let (elo, ehi) = seg_range(eoff, y - x, ee.desc.seg_shift());
            if !ee.desc.is_done(ed.t.pos, elo, ehi) {
                blocked = true;
                deps.push((ed.t, elo, ehi));
            }
        }
        if blocked {
            return Some(k);
        }
    }
    None
}

/// Why [`exec_bytes`] stopped before copying every byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecStop {
    /// The recoverable copy faulted on the task's own source or destination
    /// (with `recoverable == false` the signal is delivered instead).
    Fault,
    /// A redirected piece must first wait for the copy it was absorbed from
    /// (see the module docs, "Absorption and faults"); its segments were
    /// pushed to `deps`. Bytes before the piece may have been written.
    Absorbed,
}

/// What became of a copy whose source a redirect reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OwnerState {
    /// Not faulted (pending or complete).
    Clean,
    /// Its copy faulted on an executor; a waiter has not finished it yet
    /// (it may still fail, or succeed after the program's handler fixed
    /// the fault).
    Faulted,
    /// Finished with a fault ([`FAILED`](crate::desc::FAILED)), also after
    /// its slot was reused.
    Failed,
}

fn owner_state(t: TaskRef) -> OwnerState {
    let d = &entry(t).desc;
    // flags before pos: a reset stores pos first, so flags of a newer task
    // come with a pos that no longer matches
    let f = d.flags();
    if d.pos() == t.pos {
        return if f & crate::desc::FAILED != 0 {
            OwnerState::Failed
        } else if f & FAULTED != 0 {
            OwnerState::Faulted
        } else {
            OwnerState::Clean
        };
    }
    if FAILED_ANY.load(Ordering::Acquire) != 0 && FAILED_TASKS.lock().iter().any(|&(x, _)| x == t) {
        OwnerState::Failed
    } else {
        OwnerState::Clean
    }
}

/// True when the copy `t` faulted (see [`OwnerState`]).
fn owner_faulted(t: TaskRef) -> bool {
    owner_state(t) != OwnerState::Clean
}

/// Copies that failed ([`FAILED`](crate::desc::FAILED)) with the tracker's ingest sequence number
/// at the failure: a copy ingested before it may hold redirects owned by
/// it. Pruned in [`Tracker::note_failed`] once every such copy retired.
static FAILED_TASKS: FutexMutex<Vec<(TaskRef, u64)>> = FutexMutex::new(Vec::new());
/// `FAILED_TASKS.len()`, read without the lock.
static FAILED_ANY: AtomicUsize = AtomicUsize::new(0);

/// Copy task bytes `[a, b)` of entry `e` (applying absorption redirects).
///
/// A redirected piece is read with the recoverable copy from the redirect's
/// source while its owner is clean (or faulted but then finished without
/// failing); if the owner failed or that read faults, it is read from the
/// task's own source instead once the copy it was absorbed from finished
/// it. Until then (and while a faulted owner is unfinished) it returns
/// `Err(ExecStop::Absorbed)` with that copy's segments pushed to `deps`.
///
/// # Safety
/// The caller owns the claim on the segments covering `[a, b)` and the task's
/// dependencies for them are done.
pub unsafe fn exec_bytes(
    e: &Entry,
    redirects: &[Redirect],
    a: usize,
    b: usize,
    recoverable: bool,
    deps: &mut Vec<(TaskRef, u32, u32)>,
) -> Result<(), ExecStop> {
    let (d, s) = (e.dst(), e.src());
    let overlap = e.flags.load(Ordering::Relaxed) & FLAG_OVERLAP != 0;
    if overlap {
        // single-segment memmove with overlapping ranges: a plain move
        // SAFETY: the task's ranges are valid per the submit contract.
        unsafe { crate::engine::move_bytes(d as *mut u8, s as *const u8, e.len()) };
        return Ok(());
    }
    let copy = |dst: usize, src: usize, l: usize| -> Result<(), ExecStop> {
        if l == 0 {
            return Ok(());
        }
        // SAFETY: inside the task's ranges (or an absorbed source of the same
        // length); ranges do not overlap (checked at submit and at absorption).
        unsafe {
            if recoverable {
                crate::engine::copy_recoverable(dst as *mut u8, src as *const u8, l).map_err(|_| ExecStop::Fault)
            } else {
                crate::engine::copy(dst as *mut u8, src as *const u8, l);
                Ok(())
            }
        }
    };
    if redirects.is_empty() {
        return copy(d + a, s + a, b - a);
    }
    // a fault reading another copy's source is that copy's to deliver
    crate::fault::install();
    let guarded = crate::fault::installed();
    for (o, l, src, via) in effective_sources(s, redirects, a, b - a) {
        let (to, own) = (d + a + o, s + a + o);
        let Some(r) = via else {
            copy(to, own, l)?;
            continue;
        };
        if !guarded {
            copy(to, src, l)?;
            continue;
        }
        let from_off = r.from_off + (a + o - r.off);
        // A faulted owner may still fail: wait for `from` before reading
        // its source again. A failed one left its destination as it was
        // (uncopied segments included): read that.
        let state = owner_state(r.owner);
        if state == OwnerState::Clean || (state == OwnerState::Faulted && bytes_done(r.from, from_off, l)) {
            // SAFETY: as `copy` above; a fault is recovered.
            if unsafe { crate::engine::copy_recoverable(to as *mut u8, src as *const u8, l) }.is_ok() {
                continue;
            }
        }
        // the redirected source is bad: read our own source (the bytes the
        // copy we absorbed from left there) once that copy finished them
        if !bytes_done(r.from, from_off, l) {
            let (lo, hi) = seg_range(from_off, l, entry(r.from).desc.seg_shift());
            deps.push((r.from, lo, hi));
            return Err(ExecStop::Absorbed);
        }
        copy(to, own, l)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tr(p: u64) -> TaskRef {
        TaskRef { client: 0, pos: p }
    }
    /// Task `p` with ingest sequence number `p`, task offset `off`.
    fn acc(p: u64, off: usize) -> Acc {
        Acc { t: tr(p), seq: p, off }
    }

    #[test]
    fn range_map_last_writer_and_readers() {
        let mut m = RangeMap::new();
        m.add_writer(100, 200, acc(1, 0));
        m.add_reader(150, 250, acc(2, 10));
        let mut seen = Vec::new();
        m.visit(0, 300, |a, b, w, r| seen.push((a, b, w.map(|x| (x.t.pos, x.off)), r.map(|x| (x.t.pos, x.off)).collect::<Vec<_>>())));
        assert_eq!(
            seen,
            vec![
                (100, 150, Some((1, 0)), vec![]),
                (150, 200, Some((1, 50)), vec![(2, 10)]),
                (200, 250, None, vec![(2, 60)]),
            ]
        );
        m.add_writer(120, 180, acc(3, 0));
        assert!(m.has_writer(170, 171));
        m.remove(0, 1000, tr(1), 1);
        m.remove(0, 1000, tr(2), 2);
        assert!(!m.has_writer(100, 120));
        m.remove(120, 180, tr(3), 3);
        assert!(m.is_empty(), "every run removed");
    }

    #[test]
    fn remove_stops_inside_a_run_that_reaches_past_the_range() {
        // task 1 reads [100, 200); task 2 writes [150, 300): runs [100,150)
        // [150,200) [200,300); retiring task 1 visits the first two only
        let mut m = RangeMap::new();
        m.add_reader(100, 200, acc(1, 0));
        m.add_writer(150, 300, acc(2, 0));
        m.remove(100, 200, tr(1), 1);
        let mut seen = Vec::new();
        m.visit(0, 400, |a, b, w, r| seen.push((a, b, w.map(|x| x.t.pos), r.count())));
        assert_eq!(seen, vec![(150, 200, Some(2), 0), (200, 300, Some(2), 0)]);
        // a fresh range is one run of its own, removed with one search
        assert!(!m.overlaps(300, 400) && m.overlaps(299, 301));
        m.insert_fresh(300, 400, acc(3, 0), false);
        m.remove(300, 400, tr(3), 3);
        m.remove(150, 300, tr(2), 2);
        assert!(m.is_empty());
    }

    #[test]
    fn remove_finds_readers_by_ingest_order() {
        // 2000 pending readers of one range, retired out of order: each
        // removal examines O(log readers) entries, not the whole list.
        let mut m = RangeMap::new();
        let k = 2000u64;
        for p in 1..=k {
            m.add_reader(0, 4096, acc(p, 0));
        }
        m.add_reader(1000, 2000, acc(k + 1, 7));
        let before = m.work();
        for p in (1..=k).rev().step_by(2).chain((1..=k).step_by(2)) {
            m.remove(0, 4096, tr(p), p);
        }
        let per_remove = (m.work() - before) as f64 / k as f64;
        // 3 runs each: 1 visit + ~log2(2001) probes + 1 entry removed
        assert!(per_remove <= 3.0 * 16.0, "remove examined {per_remove} entries per call");
        let mut left = Vec::new();
        m.visit(0, 4096, |a, b, w, r| left.push((a, b, w, r.collect::<Vec<_>>())));
        assert_eq!(left, vec![(1000, 2000, None, vec![acc(k + 1, 7)])]);
        m.remove(0, 4096, tr(k + 1), k + 1);
        assert!(m.is_empty());
    }

    /// A redirect from copy `from` (offset `from_off`), source owned by `owner`.
    fn red(off: usize, len: usize, src: usize, from: u64, from_off: usize, owner: u64) -> Redirect {
        Redirect { off, len, src, from: tr(from), from_off, owner: tr(owner) }
    }

    #[test]
    fn redirects_coalesce() {
        let mut v = vec![
            red(0, 10, 100, 1, 0, 1),
            red(10, 5, 110, 1, 10, 1),
            red(15, 5, 500, 1, 15, 1),
            red(20, 5, 505, 2, 0, 2), // continues in the source, not in the copy
            red(25, 5, 510, 3, 0, 3),
            red(30, 5, 515, 3, 5, 4), // another owner
        ];
        coalesce_redirects(&mut v);
        assert_eq!(
            v,
            vec![red(0, 15, 100, 1, 0, 1), red(15, 5, 500, 1, 15, 1), red(20, 5, 505, 2, 0, 2), red(25, 5, 510, 3, 0, 3), red(30, 5, 515, 3, 5, 4)]
        );
    }

    #[test]
    fn effective_sources_layers() {
        let r = [red(10, 10, 5000, 1, 0, 1), red(30, 5, 7000, 2, 0, 3)];
        let got: Vec<_> = effective_sources(1000, &r, 5, 30).into_iter().map(|(o, l, a, v)| (o, l, a, v.map(|x| x.owner.pos))).collect();
        assert_eq!(got, vec![(0, 5, 1005, None), (5, 10, 5000, Some(1)), (15, 10, 1020, None), (25, 5, 7000, Some(3))]);
    }

    /// `min_seq` (pruning of the failed-copy record) follows the oldest
    /// task with an access left in the index.
    #[test]
    fn min_seq_is_the_oldest_access() {
        let mut m = RangeMap::new();
        assert_eq!(m.min_seq(), None);
        m.add_writer(0, 100, acc(1, 0));
        m.add_reader(0, 100, acc(3, 0));
        m.add_reader(50, 150, acc(5, 0));
        assert_eq!(m.min_seq(), Some(1));
        m.remove(0, 200, tr(1), 1);
        assert_eq!(m.min_seq(), Some(3));
        for p in [3, 5] {
            m.remove(0, 200, tr(p), p);
        }
        assert!(m.is_empty());
        assert_eq!(m.min_seq(), None);
    }

    #[test]
    fn seg_ranges() {
        assert_eq!(seg_range(0, 1, 12), (0, 1));
        assert_eq!(seg_range(4095, 2, 12), (0, 2));
        assert_eq!(seg_range(8192, 4096, 12), (2, 3));
        assert_eq!(seg_range(123, 9999, 63), (0, 1));
    }
}
