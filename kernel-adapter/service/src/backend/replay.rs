//! Which device tasks a wait re-executes once the module left one faulted
//! (copier.ko orders tasks only across `COPIER_F_BARRIER`, so tasks after
//! a faulted one ran without it): walking the pending tasks in submission
//! order from the first faulted one, a task is re-executed when it is
//! faulted itself, or when it touches bytes an earlier re-execution wrote
//! (it read them stale, or the re-execution overwrote what it wrote).
//! Re-executed in that order, the bytes are those of memcpy order, and the
//! first task that really faults raises memcpy's SIGSEGV.
//!
//! Not covered: a later task that overwrote the *source* of a re-executed
//! one (the old bytes are gone; only a recovered fault reaches that case).

use super::proto::Task;

/// Written ranges kept apart before they are merged.
const CAP: usize = 16;

/// The destinations re-executed so far, as `[start, end)` ranges: up to
/// [`CAP`] of them, then a new range is merged into the nearest one (a
/// superset: more tasks re-executed, never fewer).
pub(crate) struct Written {
    r: [(u64, u64); CAP],
    n: usize,
}

impl Written {
    /// Nothing re-executed yet.
    pub(crate) const fn new() -> Self {
        Written { r: [(0, 0); CAP], n: 0 }
    }

    /// True when `[a, a + len)` meets a written range.
    fn meets(&self, a: u64, len: u64) -> bool {
        let e = a.saturating_add(len);
        self.r[..self.n].iter().any(|&(s, t)| a < t && s < e)
    }

    fn add(&mut self, a: u64, len: u64) {
        let e = a.saturating_add(len);
        if self.n < CAP {
            self.r[self.n] = (a, e);
            self.n += 1;
            return;
        }
        let gap = |&(s, t): &(u64, u64)| if e < s { s - e } else { a.saturating_sub(t) };
        let i = (0..CAP).min_by_key(|&i| gap(&self.r[i])).unwrap_or(0);
        let (s, t) = self.r[i];
        self.r[i] = (s.min(a), t.max(e));
    }

    /// Whether task `t` (next in submission order; `faulted`: the module
    /// left it unfinished) is re-executed, and whether it touched written
    /// bytes (`(redo, stale)`: a stale task is copied again whole, even
    /// the segments the module completed). Records its destination when
    /// it is re-executed.
    pub(crate) fn admit(&mut self, t: &Task, faulted: bool) -> (bool, bool) {
        let stale = self.meets(t.src, t.len) || self.meets(t.dst, t.len);
        if faulted || stale {
            self.add(t.dst, t.len);
        }
        (faulted || stale, stale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(dst: u64, src: u64, len: u64) -> Task {
        Task { dst, src, len, flags: 0, nsegs: 1, shift: 12 }
    }

    #[test]
    fn replays_what_depends_on_a_faulted_task_in_order() {
        let mut w = Written::new();
        // before the first faulted task nothing is re-executed
        assert_eq!(w.admit(&copy(0x9000, 0x8000, 16), false), (false, false));
        // A = copy(bad -> X) faulted
        assert_eq!(w.admit(&copy(0x1000, 0xdead_0000, 0x100), true), (true, false));
        // unrelated copy: left as the module made it
        assert_eq!(w.admit(&copy(0x5000, 0x6000, 0x100), false), (false, false));
        // B = copy(X -> Y) read X stale; C = copy(Y -> Z) through B
        assert_eq!(w.admit(&copy(0x2000, 0x10f0, 0x100), false), (true, true));
        assert_eq!(w.admit(&copy(0x3000, 0x2000, 0x10), false), (true, true));
        // D wrote into X after A: A's re-execution overwrote it
        assert_eq!(w.admit(&copy(0x1080, 0x7000, 0x10), false), (true, true));
        // a later faulted task is re-executed, whole if it is also stale
        assert_eq!(w.admit(&copy(0x4000, 0xbad0_0000, 8), true), (true, false));
        assert_eq!(w.admit(&copy(0x4100, 0x4000, 8), true), (true, true));
        // adjacent is not overlapping
        assert_eq!(w.admit(&copy(0x1100, 0x0f00, 0x100), false), (false, false));
    }

    #[test]
    fn a_full_set_merges_never_forgets() {
        let mut w = Written::new();
        for i in 0..(CAP as u64 + 8) {
            w.admit(&copy(i * 0x10000, 0xdead_0000, 0x100), true);
        }
        for i in 0..(CAP as u64 + 8) {
            assert!(w.meets(i * 0x10000 + 0x80, 1), "range {i} lost");
        }
        assert!(!w.meets(u64::MAX - 4, 4));
    }
}
