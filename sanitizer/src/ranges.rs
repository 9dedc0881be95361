//! A small set of disjoint half-open byte ranges, kept sorted.

/// Disjoint, sorted, non-empty half-open ranges `[start, end)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: Vec<(usize, usize)>,
}

impl RangeSet {
    /// The set `[start, end)` (empty if `start >= end`).
    pub fn new(start: usize, end: usize) -> Self {
        Self { ranges: if start < end { vec![(start, end)] } else { Vec::new() } }
    }

    /// True if no byte is in the set.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.ranges.iter().copied()
    }

    /// True if `x` is in the set.
    pub fn contains(&self, x: usize) -> bool {
        let i = self.ranges.partition_point(|&(_, e)| e <= x);
        i < self.ranges.len() && self.ranges[i].0 <= x
    }

    /// Remove `[lo, hi)`; returns the pieces that were in the set.
    pub fn remove(&mut self, lo: usize, hi: usize) -> Vec<(usize, usize)> {
        let mut removed = Vec::new();
        self.remove_each(lo, hi, |s, e| removed.push((s, e)));
        removed
    }

    /// Remove `[lo, hi)`, calling `f(s, e)` for each piece `[s, e)` that was
    /// in the set, in order. Allocates nothing (at most one range is split
    /// in two); trimming the front of a range, the pattern of a parser that
    /// syncs its way through a copy, is O(log n) with no move.
    pub fn remove_each(&mut self, lo: usize, hi: usize, mut f: impl FnMut(usize, usize)) {
        if lo >= hi {
            return;
        }
        let first = self.ranges.partition_point(|&(_, e)| e <= lo);
        let mut i = first;
        while i < self.ranges.len() && self.ranges[i].0 < hi {
            let (s, e) = self.ranges[i];
            f(s.max(lo), e.min(hi));
            i += 1;
        }
        if i == first {
            return;
        }
        let left = (self.ranges[first].0 < lo).then(|| (self.ranges[first].0, lo));
        let right = (self.ranges[i - 1].1 > hi).then(|| (hi, self.ranges[i - 1].1));
        match (left, right) {
            (Some(l), Some(r)) if i - first == 1 => {
                self.ranges[first] = l;
                self.ranges.insert(first + 1, r);
            }
            (Some(l), Some(r)) => {
                self.ranges[first] = l;
                self.ranges[first + 1] = r;
                self.ranges.drain(first + 2..i);
            }
            (Some(one), None) | (None, Some(one)) => {
                self.ranges[first] = one;
                self.ranges.drain(first + 1..i);
            }
            (None, None) => {
                self.ranges.drain(first..i);
            }
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
                let v: Vec<_> = set.iter().collect();
                for w in v.windows(2) { prop_assert!(w[0].1 < w[1].0); }
                prop_assert_eq!(set.is_empty(), !model.iter().any(|&b| b));
            }
        }
    }
}
