//! A fixed-size bit set: the set of copies that may be pending at a
//! program point.

/// Copy indices `0..n`, one bit each.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct BitSet(Vec<u64>);

impl BitSet {
    /// The empty set over `0..n`.
    pub(super) fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }
    pub(super) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub(super) fn remove(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    pub(super) fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    /// Adds every member of `o` (a set over the same `n`).
    pub(super) fn union_with(&mut self, o: &BitSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    /// Members in increasing order.
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| (0..64).filter(move |b| bits & (1 << b) != 0).map(move |b| w * 64 + b))
    }
    pub(super) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitset_tracks_members_across_words() {
        let mut s = BitSet::new(130);
        assert!(s.is_empty());
        for i in [0, 63, 64, 129] {
            s.insert(i);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 63, 64, 129]);
        s.remove(63);
        assert!(!s.contains(63) && s.contains(64));
        let mut t = BitSet::new(130);
        t.insert(5);
        t.union_with(&s);
        assert_eq!(t.iter().collect::<Vec<_>>(), vec![0, 5, 64, 129]);
    }
}
