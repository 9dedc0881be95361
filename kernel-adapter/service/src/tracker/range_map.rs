//! The tracker's index: non-overlapping address runs, each with its last
//! pending writer and its readers since (see the [tracker](super) docs).
//!
//! # Fresh tasks
//! A task whose source and destination overlap nothing pending (a stream
//! of copies into buffers no other pending copy touches) is one reader run
//! and one writer run of its own. Up to [`FRESH_MAX`] such tasks are kept
//! beside the `BTreeMap` instead, in a list indexed by address
//! ([`FreshSet`]): a few compares each, where two inserts and two removes in
//! the tree cost ~2,000 instructions per task (bench/results). Invariant:
//! the ranges of the listed tasks overlap no run and no other listed range.
//! Every method that adds runs first moves the listed tasks it touches
//! into the tree ([`RangeMap::spill`]); the read-only ones see both.

use super::fresh::{Fresh, FreshSet};
use crate::task::TaskRef;
use std::collections::{BTreeMap, VecDeque};

pub use super::fresh::FRESH_MAX;

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
    /// task being ingested, which has the highest `seq` so far). A deque:
    /// tasks mostly retire oldest first, and a run read by hundreds of
    /// pending copies (one source, many destinations) would otherwise shift
    /// its whole list at each retire.
    readers: VecDeque<Acc>,
}

fn shift_acc(a: Acc, by: usize) -> Acc {
    Acc { off: a.off + by, ..a }
}

/// Non-overlapping runs of pending accesses keyed by start address.
#[derive(Default)]
pub struct RangeMap {
    runs: BTreeMap<usize, Run>,
    /// Fresh tasks kept out of `runs` (module docs), at most [`FRESH_MAX`].
    fresh: FreshSet,
    work: u64,
    /// Empty reader lists of removed runs, reused by new runs (a stream of
    /// copies would otherwise allocate and free one per task).
    spare: Vec<VecDeque<Acc>>,
}

/// Runs above which a removal merges the runs it leaves equal
/// ([`RangeMap::coalesce`]); below it the boundaries stay (a few more runs
/// cost less than the merge's searches on every removal).
const COALESCE_RUNS: usize = 1024;

/// Most reader lists [`RangeMap`] keeps for reuse.
const SPARE_READERS: usize = 256;

impl RangeMap {
    /// An empty map.
    pub const fn new() -> Self {
        RangeMap { runs: BTreeMap::new(), fresh: FreshSet::new(), work: 0, spare: Vec::new() }
    }

    /// True when some recorded access overlaps `[lo, hi)` (one search: runs
    /// do not overlap, so only the last run starting before `hi` can reach
    /// `lo`; plus the fresh list).
    #[inline]
    pub fn overlaps(&self, lo: usize, hi: usize) -> bool {
        lo < hi && (self.runs.range(..hi).next_back().is_some_and(|(_, r)| r.end > lo) || self.fresh.any_touching(lo, hi))
    }

    /// Record task `a.t` (offset 0) reading `[src, src + len)` and writing
    /// `[dst, dst + len)`, where nothing recorded overlaps either range
    /// (the caller checked [`RangeMap::overlaps`]) and the two ranges are
    /// disjoint: on the fresh list while it has room, else as two runs.
    #[inline]
    pub fn insert_task(&mut self, src: usize, dst: usize, len: usize, a: Acc) {
        debug_assert!(a.off == 0 && len != 0 && (src + len <= dst || dst + len <= src));
        if self.fresh.fits(len) {
            self.fresh.push(Fresh { src, dst, len, acc: a });
            return;
        }
        self.insert_fresh(src, src + len, a, false);
        self.insert_fresh(dst, dst + len, a, true);
    }

    /// Forget task `t`, which reads from `src`, if it is on the fresh
    /// list; false when it is not (its accesses are runs:
    /// [`RangeMap::remove`] them).
    #[inline]
    pub fn remove_task(&mut self, t: TaskRef, src: usize) -> bool {
        match self.fresh.find(t, src) {
            Some(i) => {
                self.fresh.remove_at(i);
                self.work += 1;
                true
            }
            None => false,
        }
    }

    /// Move the fresh tasks touching `[lo, hi)` into the tree as runs, so
    /// a visit of `[lo, hi)` sees every access there as runs in address
    /// order (and runs may be added there).
    pub fn spill(&mut self, lo: usize, hi: usize) {
        if lo >= hi || self.fresh.is_empty() {
            return;
        }
        let mut hit: Vec<usize> = Vec::new();
        self.fresh.each_touching(lo, hi, |i, _| hit.push(i));
        if hit.is_empty() {
            return;
        }
        // (highest position first: a removal moves the last task only)
        hit.sort_unstable_by(|a, b| b.cmp(a));
        hit.dedup();
        for i in hit {
            let f = self.fresh.remove_at(i);
            self.insert_fresh(f.src, f.src + f.len, f.acc, false);
            self.insert_fresh(f.dst, f.dst + f.len, f.acc, true);
        }
    }

    /// A new run `[lo, hi)` with one access, where no run overlaps (the
    /// caller checked [`RangeMap::overlaps`]): `a` as its writer or as its
    /// only reader.
    #[inline]
    pub fn insert_fresh(&mut self, lo: usize, hi: usize, a: Acc, write: bool) {
        debug_assert!(lo < hi && !self.overlaps(lo, hi));
        let mut readers = self.spare.pop().unwrap_or_default();
        let writer = if write {
            Some(a)
        } else {
            readers.push_back(a);
            None
        };
        self.runs.insert(lo, Run { end: hi, writer, readers });
    }

    /// Keep an emptied run's reader list for reuse.
    fn recycle(&mut self, mut v: VecDeque<Acc>) {
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

    /// Number of runs, a fresh task counting two (for tests and leak
    /// checks).
    pub fn len(&self) -> usize {
        self.runs.len() + 2 * self.fresh.len()
    }
    /// True when no pending access is recorded.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty() && self.fresh.is_empty()
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
    #[inline]
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
        // then the fresh tasks (not in address order: callers that need
        // the order spill first)
        if self.fresh.is_empty() {
            return;
        }
        let all = self.fresh.all();
        self.fresh.each_touching(lo, hi, |i, write| {
            let x = &all[i];
            let base = if write { x.dst } else { x.src };
            let (a, b) = (base.max(lo), (base + x.len).min(hi));
            let acc = shift_acc(x.acc, a - base);
            if write {
                f(a, b, Some(acc), &mut core::iter::empty());
            } else {
                f(a, b, None, &mut core::iter::once(acc));
            }
        });
    }

    /// True when some pending task writes a byte of `[lo, hi)`.
    pub fn has_writer(&self, lo: usize, hi: usize) -> bool {
        let mut any = false;
        self.visit(lo, hi, |_, _, w, _| any |= w.is_some());
        any
    }

    fn cover(&mut self, lo: usize, hi: usize, mut f: impl FnMut(usize, &mut Run)) {
        self.spill(lo, hi);
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
                debug_assert!(r.readers.back().is_none_or(|l| l.seq <= a.seq), "readers out of ingest order");
                r.readers.push_back(shift_acc(a, s - lo));
            });
        }
    }

    /// Smallest ingest sequence number of a task with a recorded access
    /// (every pending task writes its destination), `None` when empty.
    pub fn min_seq(&self) -> Option<u64> {
        let runs = self.runs.values().flat_map(|r| r.writer.iter().chain(r.readers.front())).map(|a| a.seq).min();
        let fresh = self.fresh.all().iter().map(|f| f.acc.seq).min();
        runs.into_iter().chain(fresh).min()
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
                } else {
                    self.coalesce_around(lo, hi);
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
            } else {
                self.coalesce(s);
            }
        }
        if self.runs.len() > COALESCE_RUNS {
            if let Some((&s, _)) = self.runs.range(hi..).next() {
                self.coalesce(s);
            }
        }
    }

    /// [`RangeMap::coalesce`] at both ends of the run `[lo, hi)`.
    fn coalesce_around(&mut self, lo: usize, hi: usize) {
        if self.runs.len() <= COALESCE_RUNS {
            return;
        }
        if self.runs.contains_key(&hi) {
            self.coalesce(hi);
        }
        self.coalesce(lo);
    }

    /// Merge the run starting at `s` into the run that ends there when both
    /// hold the same accesses (the same writer and readers, at offsets that
    /// continue across the boundary). Without it, the boundaries of every
    /// task that ever read a buffer that always has some pending reader (one
    /// source, many copies) would stay, and each later task would visit them
    /// all.
    fn coalesce(&mut self, s: usize) {
        if self.runs.len() <= COALESCE_RUNS {
            return;
        }
        let Some((&p, prev)) = self.runs.range(..s).next_back() else { return };
        if prev.end != s {
            return;
        }
        let cur = &self.runs[&s];
        let by = s - p;
        let same = |a: &Acc, b: &Acc| a.t == b.t && a.seq == b.seq && a.off + by == b.off;
        let writers = match (&prev.writer, &cur.writer) {
            (None, None) => true,
            (Some(a), Some(b)) => same(a, b),
            _ => false,
        };
        if !writers || prev.readers.len() != cur.readers.len() || !prev.readers.iter().zip(cur.readers.iter()).all(|(a, b)| same(a, b)) {
            return;
        }
        let cur = self.runs.remove(&s).expect("run");
        self.runs.get_mut(&p).expect("run").end = cur.end;
        self.recycle(cur.readers);
    }

    /// Forget `t`'s accesses recorded in `r`; returns the work done (runs
    /// visited plus reader entries examined).
    fn forget(r: &mut Run, t: TaskRef, seq: u64) -> u64 {
        if r.writer.is_some_and(|a| a.t == t) {
            r.writer = None;
        }
        let a = r.readers.partition_point(|x| x.seq < seq);
        let b = a + r.readers.range(a..).take_while(|x| x.seq == seq).count();
        debug_assert!(r.readers.range(a..b).all(|x| x.t == t));
        let work = 1 + u64::from(r.readers.len().max(1).ilog2()) + 1 + (b - a) as u64;
        r.readers.drain(a..b);
        work
    }

    /// The first run starting at or after `x`, and the run containing `x`.
    pub fn runs_from(&self, x: usize, max: usize) -> Vec<(usize, usize, Option<Acc>, Vec<Acc>)> {
        let mut v = Vec::new();
        if let Some((&s, r)) = self.runs.range(..x).next_back() {
            if r.end > x {
                v.push((s, r.end, r.writer, r.readers.iter().copied().collect()));
            }
        }
        for (&s, r) in self.runs.range(x..).take(max) {
            v.push((s, r.end, r.writer, r.readers.iter().copied().collect()));
        }
        if !self.fresh.is_empty() {
            for f in self.fresh.all() {
                for (base, write) in f.ranges() {
                    if base + f.len > x {
                        let (w, r) = if write { (Some(f.acc), Vec::new()) } else { (None, vec![f.acc]) };
                        v.push((base, base + f.len, w, r));
                    }
                }
            }
            v.sort_unstable_by_key(|r| r.0);
            v.truncate(max + 1);
        }
        v
    }
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
        // [150,200) [200,300); retiring task 1 visits the first two only,
        // (the two runs left with task 2 alone stay apart: few runs)
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
    fn retired_boundaries_inside_a_long_lived_access_merge_away() {
        // task 1 reads [0, 1 MiB) all along; 6000 tasks read 64 KiB at
        // shifting offsets inside it and retire in order: past
        // COALESCE_RUNS their boundaries go with them, so no later task
        // visits thousands of runs
        let mut m = RangeMap::new();
        let lo_of = |p: u64| (p as usize * 509) % (1 << 19) + p as usize % 7;
        m.add_reader(0, 1 << 20, acc(1, 0));
        for p in 2..6002u64 {
            m.add_reader(lo_of(p), lo_of(p) + 65536, acc(p, 0));
            if p >= 34 {
                let q = p - 32;
                m.remove(lo_of(q), lo_of(q) + 65536, tr(q), q);
            }
            assert!(m.runs.len() <= COALESCE_RUNS + 2 * 33 + 2, "{} runs with 33 tasks pending", m.runs.len());
        }
        for q in 5970..6002u64 {
            m.remove(lo_of(q), lo_of(q) + 65536, tr(q), q);
        }
        assert!(m.runs.len() <= COALESCE_RUNS + 1, "{} runs left", m.runs.len());
        let mut end = 0;
        m.visit(0, 1 << 21, |a, b, w, r| {
            assert!(a == end && w.is_none());
            assert_eq!(r.map(|x| (x.t.pos, x.off)).collect::<Vec<_>>(), vec![(1, a)]);
            end = b;
        });
        assert_eq!(end, 1 << 20);
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

    /// Fresh tasks live on the list until something else touches their
    /// bytes: every method sees them, and an add over them moves them into
    /// the tree first, where they are removed as runs.
    #[test]
    fn fresh_tasks_are_seen_and_spilled() {
        let mut m = RangeMap::new();
        m.insert_task(0, 1000, 100, acc(1, 0));
        m.insert_task(200, 1200, 100, acc(2, 0));
        assert_eq!(m.len(), 4);
        assert!(m.overlaps(50, 60) && m.overlaps(1099, 1100) && !m.overlaps(100, 200) && !m.overlaps(300, 1000));
        assert!(m.has_writer(1050, 1051) && !m.has_writer(50, 60));
        assert_eq!(m.min_seq(), Some(1));
        let mut seen = Vec::new();
        m.visit(1050, 1250, |a, b, w, r| seen.push((a, b, w.map(|x| (x.t.pos, x.off)), r.count())));
        seen.sort();
        assert_eq!(seen, vec![(1050, 1100, Some((1, 50)), 0), (1200, 1250, Some((2, 0)), 0)]);
        let w = m.runs_from(1050, 16);
        assert_eq!(w.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(), vec![(1000, 1100), (1200, 1300)]);
        // a reader of task 2's destination: task 2 moves into the tree
        m.add_reader(1250, 1260, acc(3, 0));
        assert!(m.remove_task(tr(1), 0));
        assert!(!m.remove_task(tr(2), 200), "task 2 was spilled");
        m.remove(1200, 1300, tr(2), 2);
        m.remove(200, 300, tr(2), 2);
        m.remove(1250, 1260, tr(3), 3);
        assert!(m.is_empty());
        // a full list puts further tasks in the tree
        for p in 0..FRESH_MAX as u64 + 2 {
            let a = p as usize * 1000;
            m.insert_task(a, a + 500, 100, acc(p, 0));
        }
        assert_eq!(m.len(), 2 * (FRESH_MAX + 2));
        for p in 0..FRESH_MAX as u64 + 2 {
            let a = p as usize * 1000;
            if !m.remove_task(tr(p), a) {
                m.remove(a, a + 100, tr(p), p);
                m.remove(a + 500, a + 600, tr(p), p);
            }
        }
        assert!(m.is_empty());
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
}
