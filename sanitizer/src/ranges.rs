//! A set of disjoint half-open byte ranges: an interval map keyed by start.
//!
//! A copy's pending bytes start as one range and only ever lose bytes, so
//! ranges never touch and nothing needs merging. A program that syncs a
//! copy in scattered pieces (a strided walk under 1-byte windows) leaves
//! many fragments: every operation here costs O(log n) in the fragment
//! count, plus the pieces it reports.

use std::collections::BTreeMap;

#[cfg(test)]
thread_local! {
    /// Ranges visited by this thread's set operations (tests bound the work
    /// of an event sequence with it).
    pub static VISITED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Count one visited range or piece (tests only).
#[inline]
pub(crate) fn visit() {
    #[cfg(test)]
    VISITED.with(|v| v.set(v.get() + 1));
}

/// Disjoint, non-adjacent, non-empty half-open ranges `[start, end)`,
/// stored as `start -> end`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: BTreeMap<usize, usize>,
}

impl RangeSet {
    /// The set `[start, end)` (empty if `start >= end`).
    pub fn new(start: usize, end: usize) -> Self {
        let mut ranges = BTreeMap::new();
        if start < end {
            ranges.insert(start, end);
        }
        Self { ranges }
    }

    /// True if no byte is in the set.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Number of disjoint ranges (fragments) in the set.
    pub fn fragments(&self) -> usize {
        self.ranges.len()
    }

    /// The ranges, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.ranges.iter().map(|(&s, &e)| {
            visit();
            (s, e)
        })
    }

    /// The first range that ends after `lo`, as its start key.
    fn first_after(&self, lo: usize) -> Option<usize> {
        match self.ranges.range(..=lo).next_back() {
            Some((&s, &e)) if e > lo => Some(s),
            _ => self.ranges.range(lo..).next().map(|(&s, _)| s),
        }
    }

    /// The pieces of the set inside `[lo, hi)`, sorted: O(log n) plus the
    /// pieces returned.
    pub fn within(&self, lo: usize, hi: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let first = if lo < hi { self.first_after(lo).filter(|&s| s < hi) } else { None };
        first
            .into_iter()
            .flat_map(move |s| self.ranges.range(s..hi))
            .map(move |(&s, &e)| {
                visit();
                (s.max(lo), e.min(hi))
            })
            .filter(|&(s, e)| s < e)
    }

    /// True if `x` is in the set.
    pub fn contains(&self, x: usize) -> bool {
        matches!(self.ranges.range(..=x).next_back(), Some((_, &e)) if e > x)
    }

    /// Remove `[lo, hi)`; returns the pieces that were in the set.
    pub fn remove(&mut self, lo: usize, hi: usize) -> Vec<(usize, usize)> {
        let mut removed = Vec::new();
        self.remove_each(lo, hi, |s, e| removed.push((s, e)));
        removed
    }

    /// Remove `[lo, hi)`, calling `f(s, e)` for each piece `[s, e)` that was
    /// in the set, in order: O(log n) per piece (at most one range is split
    /// in two).
    pub fn remove_each(&mut self, lo: usize, hi: usize, mut f: impl FnMut(usize, usize)) {
        if lo >= hi {
            return;
        }
        let mut next = self.first_after(lo);
        while let Some(s) = next {
            if s >= hi {
                break;
            }
            let e = self.ranges.remove(&s).expect("key found just before");
            visit();
            f(s.max(lo), e.min(hi));
            if s < lo {
                self.ranges.insert(s, lo);
            }
            if e > hi {
                self.ranges.insert(hi, e);
                break;
            }
            next = self.ranges.range(e..).next().map(|(&k, _)| k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn remove_matches_bitmap(len in 0usize..200, cuts in prop::collection::vec((0usize..220, 0usize..220), 0..12)) {
            let mut set = RangeSet::new(0, len);
            let mut model: Vec<bool> = (0..220).map(|i| i < len).collect();
            for (a, b) in cuts {
                let (lo, hi) = (a.min(b), a.max(b));
                let removed = set.remove(lo, hi);
                let mut was: Vec<bool> = vec![false; 220];
                for (s, e) in removed { for x in s..e { was[x] = true; } }
                for x in 0..220 {
                    prop_assert_eq!(was[x], model[x] && (lo..hi).contains(&x));
                    if (lo..hi).contains(&x) { model[x] = false; }
                }
                for x in 0..220 { prop_assert_eq!(set.contains(x), model[x]); }
                for (w0, w1) in [(0, 220), (lo, hi), (hi, 220), (lo / 2, lo + 3)] {
                    let inside: Vec<bool> = {
                        let mut v = vec![false; 220];
                        for (s, e) in set.within(w0, w1) { prop_assert!(w0 <= s && s < e && e <= w1.max(w0)); for x in s..e { v[x] = true; } }
                        v
                    };
                    for x in 0..220 { prop_assert_eq!(inside[x], model[x] && (w0..w1).contains(&x)); }
                }
                let v: Vec<_> = set.iter().collect();
                for w in v.windows(2) { prop_assert!(w[0].1 < w[1].0); }
                prop_assert_eq!(set.fragments(), v.len());
                prop_assert_eq!(set.is_empty(), !model.iter().any(|&b| b));
            }
        }
    }
}

#[cfg(test)]
mod cost {
    use super::*;

    /// Cutting one byte out of every third leaves n/3 fragments; each
    /// further cut and query visits only the ranges it touches.
    #[test]
    fn scattered_cuts_visit_only_touched_ranges() {
        let n = 3 << 14;
        let mut set = RangeSet::new(0, n);
        VISITED.with(|v| v.set(0));
        for i in (0..n).step_by(3) {
            set.remove_each(i, i + 1, |_, _| {});
            assert_eq!(set.within(i, i + 3).count(), 1);
        }
        assert_eq!(set.fragments(), n / 3);
        let visited = VISITED.with(std::cell::Cell::get);
        assert!(visited <= 3 * (n as u64 / 3), "{visited} ranges visited for {} cuts", n / 3);
    }
}
