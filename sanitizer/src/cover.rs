//! The cover of one role: the pending bytes of every copy in that role
//! (destination or source), as disjoint pieces, each with the copies that
//! hold it.
//!
//! The shadow shows the union of the copies' pending bytes; the cover is
//! that union with its holders, so a query over `[a, b)` (which copies
//! hold a byte of it, which bytes nobody holds) visits only the pieces
//! inside `[a, b)`: O(log n) plus the pieces and holders it returns. An
//! index by the copies' whole ranges visits every copy whose range spans
//! `[a, b)`, even the ones with nothing pending there (a buffer copied into
//! many times, each copy left with a few bytes the program never synced).
//!
//! Adjacent pieces with the same holders are merged, so the pieces are
//! exactly the runs where the set of holders is constant.

use std::collections::BTreeMap;

use crate::ranges::visit;

/// One piece: `[start, end)` (start is the map key) and its holders.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Piece {
    end: usize,
    ids: Holders,
}

/// Copy ids in ascending order, never empty; one id (the common case) is
/// kept inline, so splitting a piece allocates nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Holders {
    One(u64),
    /// At least two ids.
    Many(Vec<u64>),
}

impl Holders {
    fn as_slice(&self) -> &[u64] {
        match self {
            Holders::One(id) => std::slice::from_ref(id),
            Holders::Many(ids) => ids,
        }
    }

    fn insert(&mut self, id: u64) {
        match self {
            Holders::One(x) if *x == id => {}
            Holders::One(x) => *self = Holders::Many(if *x < id { vec![*x, id] } else { vec![id, *x] }),
            Holders::Many(ids) => {
                if let Err(i) = ids.binary_search(&id) {
                    ids.insert(i, id);
                }
            }
        }
    }

    /// Remove `id`; true if no id is left.
    fn remove(&mut self, id: u64) -> bool {
        match self {
            Holders::One(x) => *x == id,
            Holders::Many(ids) => {
                if let Ok(i) = ids.binary_search(&id) {
                    ids.remove(i);
                }
                if ids.len() == 1 {
                    *self = Holders::One(ids[0]);
                }
                false
            }
        }
    }
}

/// Disjoint non-empty pieces `start -> (end, holders)`.
#[derive(Debug, Default)]
pub struct Cover {
    pieces: BTreeMap<usize, Piece>,
}

impl Cover {
    /// An empty cover.
    pub const fn new() -> Self {
        Self { pieces: BTreeMap::new() }
    }

    /// True if no byte is held.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Number of pieces.
    pub fn pieces(&self) -> usize {
        self.pieces.len()
    }

    /// Drop every piece.
    pub fn clear(&mut self) {
        self.pieces.clear();
    }

    /// Start of the piece holding `x`, if any.
    fn holding(&self, x: usize) -> Option<usize> {
        match self.pieces.range(..=x).next_back() {
            Some((&s, p)) if p.end > x => Some(s),
            _ => None,
        }
    }

    /// The pieces overlapping `[a, b)`, clipped to it, in address order, as
    /// `(start, end, holders)`.
    pub fn within(&self, a: usize, b: usize) -> impl Iterator<Item = (usize, usize, &[u64])> + '_ {
        let (lo, hi) = if a < b { (self.holding(a).unwrap_or(a), b) } else { (a, a) };
        self.pieces.range(lo..hi.max(lo)).map(move |(&s, p)| {
            visit();
            (s.max(a), p.end.min(b), p.ids.as_slice())
        })
    }

    /// Start of the first piece at or after `x` (`usize::MAX` if none); a
    /// piece holding `x` itself counts only if it starts at `x`.
    pub fn next_start(&self, x: usize) -> usize {
        self.pieces.range(x..).next().map_or(usize::MAX, |(&s, _)| s)
    }

    /// The ids holding byte `x`, ascending (tests).
    #[cfg(test)]
    pub fn holders(&self, x: usize) -> &[u64] {
        self.holding(x).map_or(&[], |s| self.pieces[&s].ids.as_slice())
    }

    /// Split the piece holding `x` so that a piece starts at `x`.
    fn split_at(&mut self, x: usize) {
        let Some(s) = self.holding(x) else { return };
        if s == x {
            return;
        }
        let p = self.pieces.get_mut(&s).expect("piece found just before");
        let right = Piece { end: p.end, ids: p.ids.clone() };
        p.end = x;
        visit();
        self.pieces.insert(x, right);
    }

    /// Merge equal neighbours among the pieces that end or start in
    /// `[a, b]`.
    fn merge_span(&mut self, a: usize, b: usize) {
        let mut cur = match self.pieces.range(..a).next_back() {
            Some((&s, p)) if p.end == a => Some(s),
            _ => self.pieces.range(a..).next().map(|(&s, _)| s),
        };
        while let Some(s) = cur {
            if s > b {
                break;
            }
            visit();
            let end = self.pieces[&s].end;
            if self.pieces.get(&end).is_some_and(|n| n.ids == self.pieces[&s].ids) {
                let n = self.pieces.remove(&end).expect("neighbour found just before");
                self.pieces.get_mut(&s).expect("piece found just before").end = n.end;
                continue;
            }
            if end >= b {
                break;
            }
            cur = self.pieces.range(end..).next().map(|(&k, _)| k);
        }
    }

    /// Merge equal neighbours at `a` and `b`, or anywhere in `[a, b]` if
    /// `inside`.
    fn merge_ends(&mut self, a: usize, b: usize, inside: bool) {
        if inside {
            self.merge_span(a, b);
        } else {
            self.merge_span(a, a);
            self.merge_span(b, b);
        }
    }

    /// Copy `id` now holds `[a, b)`. Ids are added in ascending order of
    /// submission, so `id` is larger than every holder already present.
    pub fn add(&mut self, a: usize, b: usize, id: u64) {
        if a >= b {
            return;
        }
        self.split_at(a);
        self.split_at(b);
        // Pieces that all gain `id` stay distinct from each other: only the
        // ends can merge, unless some piece held `id` already.
        let mut had = false;
        let mut at = a;
        while at < b {
            let next = self.pieces.range(at..b).next().map(|(&s, p)| (s, p.end));
            let Some((s, e)) = next else {
                self.pieces.insert(at, Piece { end: b, ids: Holders::One(id) });
                break;
            };
            visit();
            if s > at {
                self.pieces.insert(at, Piece { end: s, ids: Holders::One(id) });
            }
            let ids = &mut self.pieces.get_mut(&s).expect("piece found just before").ids;
            had |= ids.as_slice().binary_search(&id).is_ok();
            ids.insert(id);
            at = e;
        }
        self.merge_ends(a, b, had);
    }

    /// Copy `id` no longer holds `[a, b)`.
    pub fn remove(&mut self, a: usize, b: usize, id: u64) {
        if a >= b {
            return;
        }
        // One piece held by `id` alone spans [a, b) (a walk releasing a
        // source piece by piece): cut a hole, nothing to merge.
        if let Some(s) = self.holding(a) {
            let p = &self.pieces[&s];
            if p.end >= b && p.ids == Holders::One(id) {
                self.clear_range(a, b);
                return;
            }
        }
        self.split_at(a);
        self.split_at(b);
        // Pieces that all lose `id` stay distinct from each other (or
        // vanish): only the ends can merge, unless some piece lacked `id`.
        let mut lacked = false;
        let mut at = a;
        while let Some((s, e)) = self.pieces.range(at..b).next().map(|(&s, p)| (s, p.end)) {
            visit();
            let ids = &mut self.pieces.get_mut(&s).expect("piece found just before").ids;
            lacked |= ids.as_slice().binary_search(&id).is_err();
            if ids.remove(id) {
                self.pieces.remove(&s);
            }
            at = e;
        }
        self.merge_ends(a, b, lacked);
    }

    /// Nobody holds `[a, b)` any more.
    pub fn clear_range(&mut self, a: usize, b: usize) {
        if a >= b {
            return;
        }
        // A piece reaching into [a, b) from the left keeps its part before
        // a (and, if it runs past b, its part after b).
        if let Some(s) = self.holding(a).filter(|&s| s < a) {
            visit();
            let p = self.pieces.get_mut(&s).expect("piece found just before");
            let e = std::mem::replace(&mut p.end, a);
            if e > b {
                let right = Piece { end: e, ids: p.ids.clone() };
                self.pieces.insert(b, right);
                return;
            }
        }
        while let Some(s) = self.pieces.range(a..b).next().map(|(&s, _)| s) {
            visit();
            let p = self.pieces.remove(&s).expect("piece found just before");
            if p.end > b {
                self.pieces.insert(b, p);
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Add(usize, usize),
        Remove(usize, usize, u64),
        Clear(usize, usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0usize..64, 0usize..64).prop_map(|(a, b)| Op::Add(a.min(b), a.max(b))),
            (0usize..64, 0usize..64, 1u64..8).prop_map(|(a, b, i)| Op::Remove(a.min(b), a.max(b), i)),
            (0usize..64, 0usize..64).prop_map(|(a, b)| Op::Clear(a.min(b), a.max(b))),
        ]
    }

    proptest! {
        /// Holders of every byte match a bitmap model, pieces are disjoint,
        /// non-empty and maximal, and `within` returns exactly the held
        /// bytes of its range.
        #[test]
        fn matches_model(ops in prop::collection::vec(op(), 1..30)) {
            let mut c = Cover::new();
            let mut model: Vec<Vec<u64>> = vec![Vec::new(); 64];
            let mut next = 1u64;
            for op in ops {
                match op {
                    Op::Add(a, b) => {
                        c.add(a, b, next);
                        for x in a..b { model[x].push(next); }
                        next += 1;
                    }
                    Op::Remove(a, b, id) => {
                        c.remove(a, b, id);
                        for x in a..b { model[x].retain(|&i| i != id); }
                    }
                    Op::Clear(a, b) => {
                        c.clear_range(a, b);
                        for x in a..b { model[x].clear(); }
                    }
                }
                for x in 0..64 { prop_assert_eq!(c.holders(x), &model[x][..], "byte {}", x); }
                let all: Vec<_> = c.within(0, 64).map(|(s, e, ids)| (s, e, ids.to_vec())).collect();
                for w in all.windows(2) {
                    prop_assert!(w[0].1 <= w[1].0);
                    prop_assert!(w[0].1 < w[1].0 || w[0].2 != w[1].2, "equal neighbours not merged");
                }
                for (lo, hi) in [(0, 64), (5, 9), (17, 40)] {
                    let mut held = vec![false; 64];
                    for (s, e, ids) in c.within(lo, hi) {
                        prop_assert!(lo <= s && s < e && e <= hi && !ids.is_empty());
                        for x in s..e { held[x] = true; }
                    }
                    for x in 0..64 { prop_assert_eq!(held[x], (lo..hi).contains(&x) && !model[x].is_empty()); }
                }
            }
        }
    }
}
