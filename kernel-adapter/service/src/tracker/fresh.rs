//! The range map's fresh tasks (see [`RangeMap`](super::RangeMap)): tasks
//! whose source and destination overlap nothing else pending, kept out of
//! the `BTreeMap` in an unsorted list with an index by address, so a
//! stream of copies keeping many in flight pays neither tree inserts and
//! removes nor a scan of the whole list per ingest.
//!
//! # Index
//! Addresses are cut into grains of `1 << GRAIN_SHIFT` bytes; each grain
//! hashes to one of [`BUCKETS`] buckets holding the list positions of the
//! tasks with a range touching a grain of that bucket (a superset: hash
//! collisions are filtered by an exact overlap test). A task's two ranges
//! cover at most [`MAX_GRAINS`] grains each (longer tasks go to the tree).
//! A query over at most [`QUERY_GRAINS`] grains looks in the buckets of its
//! grains and reports a (task, range) pair only from the bucket of the
//! first grain the two share, so each pair once; a longer query scans the
//! list. Removal swaps the last task into the freed position and rewrites
//! its bucket entries. Up to [`LINEAR_MAX`] tasks (a stream keeping 16
//! copies in flight) are scanned without an index, which is built when the
//! list grows past that and dropped when it empties.

/// log2 of a grain's size in bytes (64 KiB: a 16 KiB range touches one or
/// two grains, a 256 KiB range five).
const GRAIN_SHIFT: u32 = 16;

/// Number of buckets (a power of two).
const BUCKETS: usize = 512;

/// Most grains one range of a fresh task covers (a task longer than 448
/// KiB goes to the tree).
pub const MAX_GRAINS: usize = 8;

/// Most grains a query looks up bucket by bucket; a longer one scans the list.
const QUERY_GRAINS: usize = 32;

/// Most tasks scanned without the index.
const LINEAR_MAX: usize = 24;

/// Most fresh tasks (the bound of the long queries' scan); more go to the
/// tree.
pub const FRESH_MAX: usize = 256;

/// A fresh task: it reads `[src, src + len)` and writes `[dst, dst + len)`,
/// both at task offset 0 (`acc.off == 0`).
#[derive(Clone, Copy, Debug)]
pub struct Fresh {
    /// Source address.
    pub src: usize,
    /// Destination address.
    pub dst: usize,
    /// Length in bytes (non-zero).
    pub len: usize,
    /// The task's access.
    pub acc: super::Acc,
}

impl Fresh {
    /// True when a range of the task overlaps `[lo, hi)`.
    #[inline(always)]
    pub fn touches(&self, lo: usize, hi: usize) -> bool {
        (self.src < hi && lo < self.src + self.len) || (self.dst < hi && lo < self.dst + self.len)
    }

    /// Its ranges as `(start, is_write)`.
    #[inline(always)]
    pub fn ranges(&self) -> [(usize, bool); 2] {
        [(self.src, false), (self.dst, true)]
    }
}

#[inline(always)]
fn bucket_of(grain: usize) -> usize {
    // (Fibonacci hashing: neighbouring grains of two buffers rarely share)
    (grain.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (usize::BITS - BUCKETS.trailing_zeros())) & (BUCKETS - 1)
}

/// Grains `[g0, g1]` of the non-empty range `[lo, hi)`.
#[inline(always)]
fn grains(lo: usize, hi: usize) -> (usize, usize) {
    (lo >> GRAIN_SHIFT, (hi - 1) >> GRAIN_SHIFT)
}

/// The fresh tasks and their index (module docs).
pub struct FreshSet {
    list: Vec<Fresh>,
    /// True while `buckets` index `list`.
    indexed: bool,
    buckets: [Vec<u32>; BUCKETS],
}

impl Default for FreshSet {
    fn default() -> Self {
        Self::new()
    }
}

impl FreshSet {
    /// An empty set.
    pub const fn new() -> Self {
        FreshSet { list: Vec::new(), indexed: false, buckets: [const { Vec::new() }; BUCKETS] }
    }

    /// The tasks, in no order.
    #[inline]
    pub fn all(&self) -> &[Fresh] {
        &self.list
    }

    /// Number of tasks.
    #[inline]
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when there is none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// True when `f` may join: room left and both ranges short enough.
    #[inline]
    pub fn fits(&self, len: usize) -> bool {
        self.list.len() < FRESH_MAX && len != 0 && (len - 1) >> GRAIN_SHIFT < MAX_GRAINS - 1
    }

    /// Add `f` (the caller checked [`FreshSet::fits`] and that nothing
    /// recorded overlaps its ranges).
    pub fn push(&mut self, f: Fresh) {
        debug_assert!(self.fits(f.len));
        if self.list.capacity() == 0 {
            self.list.reserve_exact(FRESH_MAX);
        }
        let i = self.list.len();
        self.list.push(f);
        if self.indexed {
            self.index(i);
        } else if self.list.len() > LINEAR_MAX {
            self.indexed = true;
            for k in 0..self.list.len() {
                self.index(k);
            }
        }
    }

    /// Enter the task at position `i` in the buckets of its grains.
    fn index(&mut self, i: usize) {
        let f = self.list[i];
        let i = i as u32;
        for (base, _) in f.ranges() {
            let (g0, g1) = grains(base, base + f.len);
            for g in g0..=g1 {
                let b = &mut self.buckets[bucket_of(g)];
                if !b.contains(&i) {
                    b.push(i);
                }
            }
        }
    }

    /// Call `f(position, is_write)` once for each range of a task that
    /// overlaps `[lo, hi)` (non-empty).
    #[inline]
    pub fn each_touching(&self, lo: usize, hi: usize, mut f: impl FnMut(usize, bool)) {
        let (g0, g1) = grains(lo, hi);
        if !self.indexed || g1 - g0 >= QUERY_GRAINS {
            for (i, x) in self.list.iter().enumerate() {
                for (base, w) in x.ranges() {
                    if base < hi && lo < base + x.len {
                        f(i, w);
                    }
                }
            }
            return;
        }
        for g in g0..=g1 {
            for &i in &self.buckets[bucket_of(g)] {
                let x = &self.list[i as usize];
                for (base, w) in x.ranges() {
                    // (reported from the first grain the two ranges share)
                    if base < hi && lo < base + x.len && (base.max(lo) >> GRAIN_SHIFT) == g {
                        f(i as usize, w);
                    }
                }
            }
        }
    }

    /// True when a range of some task overlaps `[lo, hi)` (non-empty).
    #[inline]
    pub fn any_touching(&self, lo: usize, hi: usize) -> bool {
        if self.list.is_empty() {
            return false;
        }
        let (g0, g1) = grains(lo, hi);
        if !self.indexed || g1 - g0 >= QUERY_GRAINS {
            return self.list.iter().any(|x| x.touches(lo, hi));
        }
        (g0..=g1).any(|g| self.buckets[bucket_of(g)].iter().any(|&i| self.list[i as usize].touches(lo, hi)))
    }

    /// The position of task `t`, which reads from `src`, if it is here.
    #[inline]
    pub fn find(&self, t: crate::task::TaskRef, src: usize) -> Option<usize> {
        if !self.indexed {
            return self.list.iter().position(|f| f.acc.t == t);
        }
        self.buckets[bucket_of(src >> GRAIN_SHIFT)].iter().map(|&i| i as usize).find(|&i| self.list[i].acc.t == t)
    }

    /// Remove and return the task at position `i` (the last task takes its
    /// position).
    pub fn remove_at(&mut self, i: usize) -> Fresh {
        let f = self.list[i];
        if !self.indexed {
            self.list.swap_remove(i);
            return f;
        }
        let iu = i as u32;
        for (base, _) in f.ranges() {
            let (g0, g1) = grains(base, base + f.len);
            for g in g0..=g1 {
                let b = &mut self.buckets[bucket_of(g)];
                if let Some(k) = b.iter().position(|&x| x == iu) {
                    b.swap_remove(k);
                }
            }
        }
        let last = self.list.len() - 1;
        self.list.swap_remove(i);
        if i != last {
            let m = self.list[i];
            let lu = last as u32;
            for (base, _) in m.ranges() {
                let (g0, g1) = grains(base, base + m.len);
                for g in g0..=g1 {
                    for x in self.buckets[bucket_of(g)].iter_mut() {
                        if *x == lu {
                            *x = iu;
                        }
                    }
                }
            }
        }
        if self.list.is_empty() {
            // (every bucket is empty again)
            self.indexed = false;
        }
        f
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::task::TaskRef;
    use crate::tracker::Acc;

    fn fr(p: u64, src: usize, dst: usize, len: usize) -> Fresh {
        Fresh { src, dst, len, acc: Acc { t: TaskRef { client: 0, pos: p }, seq: p, off: 0 } }
    }

    /// Every (task, range) overlapping a query is reported once, by the
    /// bucket path and by the scan alike, also after removals moved tasks.
    #[test]
    fn queries_report_each_range_once() {
        let mut s = FreshSet::new();
        let k = 16 << 10;
        for p in 0..200u64 {
            let a = p as usize * k;
            s.push(fr(p, 0x1000_0000 + a, 0x4000_0000 + a, k));
        }
        for p in (0..200).step_by(3) {
            let i = s.find(TaskRef { client: 0, pos: p }, 0x1000_0000 + p as usize * k).expect("listed");
            s.remove_at(i);
        }
        assert_eq!(s.len(), 200 - 67);
        for (lo, hi) in [(0x1000_0000 + 5 * k + 7, 0x1000_0000 + 9 * k), (0x4000_0000, 0x4000_0000 + 40 * k), (0x1000_0000, 0x5000_0000), (0x3000_0000, 0x3000_1000)] {
            let mut got = Vec::new();
            s.each_touching(lo, hi, |i, w| got.push((s.all()[i].acc.t.pos, w)));
            got.sort();
            let mut want = Vec::new();
            for x in s.all() {
                for (base, w) in x.ranges() {
                    if base < hi && lo < base + x.len {
                        want.push((x.acc.t.pos, w));
                    }
                }
            }
            want.sort();
            assert_eq!(got, want, "query {lo:#x}..{hi:#x}");
            assert_eq!(s.any_touching(lo, hi), !want.is_empty());
        }
        while !s.is_empty() {
            s.remove_at(0);
        }
        assert!(s.buckets.iter().all(|b| b.is_empty()), "no bucket entry left");
        assert!(!s.indexed);
    }

    #[test]
    fn long_ranges_do_not_fit() {
        let s = FreshSet::new();
        assert!(s.fits(16 << 10) && s.fits(256 << 10) && s.fits((MAX_GRAINS - 1) << GRAIN_SHIFT));
        assert!(!s.fits(0) && !s.fits(MAX_GRAINS << GRAIN_SHIFT));
    }
}
