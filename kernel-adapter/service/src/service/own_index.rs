//! The calling thread's index of its own pending tasks by address, for a
//! `csync` with more of them pending than it scans linearly (`FAST_SCAN`):
//! a stream keeping 128 copies in flight finds the few tasks touching the
//! range it syncs without the tracker lock and without a scan of its queue.
//!
//! # Structure
//! Addresses are cut into grains of `1 << GRAIN_SHIFT` bytes; a grain
//! hashes to one of [`BUCKETS`] buckets, each holding the ring positions of
//! the tasks that write (`writes`) or read (`reads`) a byte of a grain of
//! that bucket (a superset: hash collisions and tasks retired since are
//! filtered by the caller, which checks every candidate against its slot).
//! A range longer than [`MAX_GRAINS`] grains puts its task on the `wide`
//! list instead, looked at by every query. A task writes its destination
//! and reads its source and, once ingested, the sources it absorbed from
//! (`FLAG_ABSORBS`). A query for writers only (the sources of copies not
//! ingested yet, which an ingest would absorb from) looks at `writes`.
//!
//! Only the owning thread reads or writes the index (a thread-local), and
//! only the owning thread fills slots of its ring, so a position `p` with
//! `tail <= p < head` names the task the index recorded for it. Positions
//! are added in increasing order, so every bucket (and `wide`) is sorted,
//! and the positions below the ring's `tail` (retired and free) are a
//! prefix, dropped when the bucket is next touched.

use crate::ring::Ring;
use crate::task::{Entry, FLAG_ABSORBS};
use core::sync::atomic::Ordering;
use std::collections::VecDeque;

/// log2 of a grain's size in bytes (64 KiB: a 16 KiB copy touches one or
/// two grains, a 256 KiB copy five).
const GRAIN_SHIFT: u32 = 16;

/// Most grains a range indexes in buckets; a longer one goes to `wide`.
pub(crate) const MAX_GRAINS: usize = 8;

/// Number of buckets (a power of two).
const BUCKETS: usize = 256;

/// Most tasks on the wide list a query looks at; with more, [`OwnIndex::candidates`]
/// gives up (the caller takes the tracker path).
const WIDE_MAX: usize = 32;

/// Most candidates a query returns; with more, it gives up.
pub(crate) const MAX_CANDIDATES: usize = 64;

/// The index (module docs) of one thread's ring.
pub(crate) struct OwnIndex {
    /// The ring indexed (null: none yet).
    ring: *const Ring<Entry>,
    /// Positions below this one were added (or retired before they were).
    indexed: u64,
    /// Per bucket, the tasks writing into one of its grains.
    writes: [VecDeque<u64>; BUCKETS],
    /// Per bucket, the tasks reading one of its grains.
    reads: [VecDeque<u64>; BUCKETS],
    wide: VecDeque<u64>,
    /// Per slot, the last query that returned its task (dedup).
    seen: Vec<u32>,
    /// This query's number (never 0 while `seen` is in use).
    query: u32,
}

thread_local! {
    /// The calling thread's index.
    pub(crate) static OWN_INDEX: core::cell::RefCell<OwnIndex> = const { core::cell::RefCell::new(OwnIndex::new()) };
}

#[inline(always)]
fn bucket_of(grain: usize) -> usize {
    // (Fibonacci hashing: neighbouring grains of two buffers rarely share)
    (grain.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (usize::BITS - BUCKETS.trailing_zeros())) & (BUCKETS - 1)
}

/// Grains `[g0, g1]` of a non-empty range.
#[inline(always)]
fn grains(a: usize, n: usize) -> (usize, usize) {
    (a >> GRAIN_SHIFT, (a + (n - 1)) >> GRAIN_SHIFT)
}

/// Drop the positions below `tail` (a sorted prefix).
#[inline(always)]
fn prune(q: &mut VecDeque<u64>, tail: u64) {
    while q.front().is_some_and(|&p| p < tail) {
        q.pop_front();
    }
}

impl OwnIndex {
    const fn new() -> Self {
        OwnIndex { ring: core::ptr::null(), indexed: 0, writes: [const { VecDeque::new() }; BUCKETS], reads: [const { VecDeque::new() }; BUCKETS], wide: VecDeque::new(), seen: Vec::new(), query: 0 }
    }

    /// Record that task `p` writes (`write`) or reads `[a, a + n)`.
    fn add(&mut self, p: u64, a: usize, n: usize, write: bool, tail: u64) {
        if n == 0 {
            return;
        }
        let (g0, g1) = grains(a, n);
        if g1 - g0 >= MAX_GRAINS {
            prune(&mut self.wide, tail);
            if self.wide.back() != Some(&p) {
                self.wide.push_back(p);
            }
            return;
        }
        let buckets = if write { &mut self.writes } else { &mut self.reads };
        for g in g0..=g1 {
            let q = &mut buckets[bucket_of(g)];
            prune(q, tail);
            if q.back() != Some(&p) {
                q.push_back(p);
            }
        }
    }

    /// Bring the index up to date with ring `r`'s pending positions
    /// `[tail, head)`, every one of them ingested (the caller checked
    /// `ingested == head`, `Acquire`: the absorbed sources are recorded).
    fn catch_up(&mut self, r: &Ring<Entry>, tail: u64, head: u64) {
        if !core::ptr::eq(self.ring, r) {
            // (a thread keeps its client; defensive)
            *self = OwnIndex::new();
            self.ring = r;
        }
        if self.seen.len() != r.capacity() {
            self.seen = vec![0; r.capacity()];
        }
        for p in self.indexed.max(tail)..head {
            let e = r.slot(p);
            if e.desc.pos() != p {
                continue;
            }
            let n = e.len();
            self.add(p, e.dst(), n, true, tail);
            self.add(p, e.src(), n, false, tail);
            if e.flags.load(Ordering::Acquire) & FLAG_ABSORBS != 0 {
                // SAFETY: FLAG_ABSORBS (Acquire) is set after the ingest
                // wrote ext, which stays immutable until this thread
                // reuses the slot.
                for rd in unsafe { &(*e.ext.get()).redirects } {
                    self.add(p, rd.src, rd.len, false, tail);
                }
            }
        }
        self.indexed = self.indexed.max(head);
    }

    /// The positions in `[tail, head)` of ring `r` whose tasks may touch one
    /// of `ranges` (`(addr, len, writers_only)`: with `writers_only`, only
    /// tasks that may write into it), each once, into `out` (cleared
    /// first); false when the query gives up (a range over more than
    /// [`MAX_GRAINS`] grains, too many wide tasks or candidates), leaving
    /// `out` unspecified. Every pending position must be ingested.
    pub(crate) fn candidates(&mut self, r: &Ring<Entry>, tail: u64, head: u64, ranges: &[(usize, usize, bool)], out: &mut Vec<u64>) -> bool {
        self.catch_up(r, tail, head);
        out.clear();
        self.query = self.query.wrapping_add(1);
        if self.query == 0 {
            self.seen.fill(0);
            self.query = 1;
        }
        let (mask, query) = (self.seen.len() as u64 - 1, self.query);
        let seen = &mut self.seen;
        let mut take = |p: u64, out: &mut Vec<u64>| {
            let s = &mut seen[(p & mask) as usize];
            if *s != query {
                *s = query;
                out.push(p);
            }
        };
        prune(&mut self.wide, tail);
        if self.wide.len() > WIDE_MAX {
            return false;
        }
        for &p in &self.wide {
            take(p, out);
        }
        for &(a, n, writers_only) in ranges {
            if n == 0 {
                continue;
            }
            let (g0, g1) = grains(a, n.min(usize::MAX - a));
            if g1 - g0 >= MAX_GRAINS {
                return false;
            }
            for g in g0..=g1 {
                let b = bucket_of(g);
                for q in [Some(&mut self.writes[b]), (!writers_only).then_some(&mut self.reads[b])].into_iter().flatten() {
                    prune(q, tail);
                    for &p in q.iter() {
                        take(p, out);
                        if out.len() > MAX_CANDIDATES {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn grains_and_buckets() {
        assert_eq!(grains(0, 1), (0, 0));
        assert_eq!(grains(0xffff, 2), (0, 1));
        assert_eq!(grains(0x10000, 0x10000), (1, 1));
        assert!((0..4096).all(|g| bucket_of(g) < BUCKETS));
    }

    /// A ring holding the copies `(dst, src, len)` at positions 0.., each
    /// published (pos set) as a submit leaves it.
    fn ring_of(copies: &[(usize, usize, usize)]) -> Ring<Entry> {
        let r = Ring::new(16, Entry::new);
        for &(d, s, n) in copies {
            let p = r.reserve().unwrap();
            let e = r.slot(p);
            e.desc.reset(p, 1, 20, 0);
            e.dst.store(d, Ordering::Relaxed);
            e.src.store(s, Ordering::Relaxed);
            e.len.store(n, Ordering::Relaxed);
            r.publish(p);
        }
        r
    }

    #[test]
    fn writers_only_queries_skip_tasks_that_only_read_the_range() {
        const K: usize = 1 << GRAIN_SHIFT;
        // task 0 reads grain 10 and writes grain 20; task 1 writes grain 10
        // and reads grain 30
        let r = ring_of(&[(20 * K, 10 * K, 4096), (10 * K + 8192, 30 * K, 4096)]);
        let (mut x, mut out) = (OwnIndex::new(), Vec::new());
        // (in no particular order)
        assert!(x.candidates(&r, 0, 2, &[(10 * K, 100, false)], &mut out));
        out.sort();
        assert_eq!(out, [0, 1]);
        assert!(x.candidates(&r, 0, 2, &[(10 * K, 100, true)], &mut out));
        assert_eq!(out, [1]);
        // the source it reads is not a write
        assert!(x.candidates(&r, 0, 2, &[(30 * K, 100, true)], &mut out));
        assert!(out.is_empty());
        assert!(x.candidates(&r, 0, 2, &[(20 * K, 100, true), (30 * K, 1, false)], &mut out));
        out.sort();
        assert_eq!(out, [0, 1]);
    }

    #[test]
    fn prune_drops_the_retired_prefix_only() {
        let mut q: VecDeque<u64> = [3, 5, 9].into_iter().collect();
        prune(&mut q, 5);
        assert_eq!(q, [5, 9]);
        prune(&mut q, 10);
        assert!(q.is_empty());
    }
}
