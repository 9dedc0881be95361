//! A change count and the count a checker last acted on: the fault
//! handling's proof that the program changed no SIGSEGV/SIGBUS action since
//! the last check (`fault::ensure_first`), with one load and a compare.
//!
//! # Protocol
//! * **note** — whoever changed the watched state (libcopier's `sigaction`
//!   interposers, after the real call returned) adds one to `changes`
//!   (`Release`).
//! * **check** — a checker reads `changes` (`Acquire`) as `seen`; when it
//!   equals `checked` (`Acquire`) nothing changed since a check that saw
//!   every change up to `seen`, and the checker is done. Otherwise it
//!   examines the state itself and then stores `seen` into `checked`
//!   (`Release`).
//!
//! A change is counted after it took effect, so a checker that reads a
//! count also sees the changes it counts; a thread that learns of a change
//! through a happens-before edge (the program's submit after its
//! `sigaction`, published with `Release`) reads that count or a later one.
//! Racing checkers may store an older `seen` after a newer one: that costs
//! one more check, never a missed change, because `checked` only ever
//! holds counts whose changes a check saw. The loom model below checks
//! this with two checkers.

use crate::primitive::{AtomicU64, Ordering};

/// See the module docs.
pub struct ChangeWatch {
    changes: AtomicU64,
    checked: AtomicU64,
}

impl ChangeWatch {
    /// A watch whose first check is due.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        ChangeWatch { changes: AtomicU64::new(0), checked: AtomicU64::new(u64::MAX) }
    }
    /// A watch whose first check is due.
    #[cfg(loom)]
    pub fn new() -> Self {
        ChangeWatch { changes: AtomicU64::new(0), checked: AtomicU64::new(u64::MAX) }
    }

    /// Count one change (after it took effect).
    #[inline]
    pub fn note(&self) {
        self.changes.fetch_add(1, Ordering::Release);
    }

    /// `None` when no change happened since a completed check; otherwise
    /// the count to pass to [`ChangeWatch::checked`] after checking.
    #[inline]
    pub fn due(&self) -> Option<u64> {
        let seen = self.changes.load(Ordering::Acquire);
        (self.checked.load(Ordering::Acquire) != seen).then_some(seen)
    }

    /// A check that began with `due() == Some(seen)` is complete.
    #[inline]
    pub fn checked(&self, seen: u64) {
        self.checked.store(seen, Ordering::Release);
    }
}

#[cfg(not(loom))]
impl Default for ChangeWatch {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::ChangeWatch;
    use crate::primitive::{AtomicU32, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    const OURS: u32 = 1;
    const PROGRAM: u32 = 2;

    /// The program replaces the action (ours) with its own, counts the
    /// change and publishes a task; two checkers that see the task each run
    /// the check (put ours back in front when the program's is there) and
    /// must then find ours in front, whether they examined it themselves or
    /// skipped because the other's check was complete.
    #[test]
    fn a_change_before_a_publish_is_checked() {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(|| {
            let w = Arc::new(ChangeWatch::new());
            let action = Arc::new(AtomicU32::new(OURS));
            let head = Arc::new(AtomicU32::new(0));
            // a first check before anything changed
            if let Some(s) = w.due() {
                w.checked(s);
            }
            let checker = |w: Arc<ChangeWatch>, action: Arc<AtomicU32>, head: Arc<AtomicU32>| {
                move || {
                    if head.load(Ordering::Acquire) == 0 {
                        return;
                    }
                    if let Some(s) = w.due() {
                        // (the sigaction query and re-install: one atomic
                        // system call each, sequentially consistent)
                        let _ = action.compare_exchange(PROGRAM, OURS, Ordering::SeqCst, Ordering::SeqCst);
                        w.checked(s);
                    }
                    assert_eq!(action.load(Ordering::SeqCst), OURS, "a copy would run with the program's handler in front");
                }
            };
            let c1 = thread::spawn(checker(w.clone(), action.clone(), head.clone()));
            let c2 = thread::spawn(checker(w.clone(), action.clone(), head.clone()));
            action.store(PROGRAM, Ordering::SeqCst);
            w.note();
            head.store(1, Ordering::Release);
            c1.join().unwrap();
            c2.join().unwrap();
        });
    }
}
