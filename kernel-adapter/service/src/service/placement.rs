//! Where the service thread runs: it leaves a CPU it shares with a busy
//! thread.
//!
//! The idle service polls with `sched_yield` (see `thread`). A yield that
//! returns only after a long time means another runnable thread holds this
//! CPU, usually the program thread whose copies it should be running. A
//! scheduler that packs tasks onto few CPUs (guests whose kernel packs
//! vCPUs), or a stale load balance, can keep the two on one CPU for a whole
//! run while another CPU idles: the program then executes its copies itself
//! at `csync` and no copy overlaps anything. The thread then moves off its
//! CPU: `sched_setaffinity` to its mask without that CPU migrates it at
//! once, and the mask is put back at once (the thread keeps running where
//! it went; the scheduler stays free to place it later). Moves back off
//! exponentially while they keep being needed, so on a machine whose every
//! CPU is busy the thread does not bounce.

/// A `sched_yield` that took longer than this, ns, shows a busy thread on
/// the same CPU (a yield with nothing else runnable returns in ~1 us; a
/// scheduler slice is 0.75-3 ms).
pub(crate) const SHARED_GAP_NS: u64 = 200_000;

/// Least time between two moves, ns; doubles up to [`MAX_BACKOFF_NS`] while
/// moves keep being needed, and falls back after a quiet [`CALM_NS`].
const MIN_BACKOFF_NS: u64 = 2_000_000;
const MAX_BACKOFF_NS: u64 = 1_000_000_000;
const CALM_NS: u64 = 200_000_000;

/// The service thread's placement state (its own; not shared).
pub(crate) struct Placement {
    /// No move before this time (ns, `now_ns`).
    next_ok: u64,
    backoff: u64,
    last_move: u64,
    /// Moves made.
    pub(crate) moves: u64,
    /// The CPUs the last move left and reached (-1 before any).
    pub(crate) last: (i32, i32),
}

impl Placement {
    pub(crate) const fn new() -> Placement {
        Placement { next_ok: 0, backoff: MIN_BACKOFF_NS, last_move: 0, moves: 0, last: (-1, -1) }
    }

    /// A poll's `sched_yield` took `gap_ns`, ending at `now` (ns,
    /// `now_ns`): move off this CPU when that shows a busy thread here, the
    /// back-off allows, and the thread's affinity mask (read now: the
    /// program or the user may have bound the thread since) holds another
    /// CPU. Returns true when the thread moved.
    pub(crate) fn yielded(&mut self, gap_ns: u64, now: u64) -> bool {
        if gap_ns < SHARED_GAP_NS || now < self.next_ok {
            return false;
        }
        self.backoff = if now - self.last_move > CALM_NS { MIN_BACKOFF_NS } else { (self.backoff * 2).min(MAX_BACKOFF_NS) };
        self.next_ok = now + self.backoff;
        self.last_move = now;
        let Some(allowed) = own_mask().filter(|m| cpus(m) >= 2) else { return false };
        // SAFETY: sched_getcpu has no preconditions.
        let cpu = unsafe { libc::sched_getcpu() };
        if cpu < 0 || cpu as usize >= libc::CPU_SETSIZE as usize || !has_cpu(&allowed, cpu as usize) {
            return false;
        }
        let mut elsewhere = allowed;
        clear_cpu(&mut elsewhere, cpu as usize);
        // (the first call migrates the thread before it returns; the second
        // widens the mask again and moves nothing)
        if !set_own_mask(&elsewhere) {
            return false;
        }
        // SAFETY: as above.
        self.last = (cpu, unsafe { libc::sched_getcpu() });
        set_own_mask(&allowed);
        self.moves += 1;
        true
    }
}

/// The calling thread's affinity mask.
fn own_mask() -> Option<libc::cpu_set_t> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it.
    unsafe {
        let mut m: libc::cpu_set_t = core::mem::zeroed();
        (libc::sched_getaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &mut m) == 0).then_some(m)
    }
}

/// How many CPUs `m` holds.
fn cpus(m: &libc::cpu_set_t) -> u32 {
    // SAFETY: `m` is a valid cpu_set_t.
    unsafe { libc::CPU_COUNT(m) as u32 }
}

/// Whether `m` holds `cpu` (below `CPU_SETSIZE`).
fn has_cpu(m: &libc::cpu_set_t, cpu: usize) -> bool {
    // SAFETY: `m` is a valid cpu_set_t; the macro checks `cpu` against its size.
    unsafe { libc::CPU_ISSET(cpu, m) }
}

/// Take `cpu` (below `CPU_SETSIZE`) out of `m`.
fn clear_cpu(m: &mut libc::cpu_set_t, cpu: usize) {
    // SAFETY: as in `has_cpu`.
    unsafe { libc::CPU_CLR(cpu, m) }
}

/// Set the calling thread's affinity mask; false when the kernel refused.
fn set_own_mask(m: &libc::cpu_set_t) -> bool {
    // SAFETY: `m` is a valid cpu_set_t of the size passed.
    unsafe { libc::sched_setaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), m) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::now_ns;

    #[test]
    fn a_short_yield_never_moves() {
        let mut p = Placement::new();
        assert!(!p.yielded(SHARED_GAP_NS - 1, now_ns()));
        assert_eq!(p.moves, 0);
    }

    #[test]
    fn a_long_yield_moves_off_the_cpu_and_restores_the_mask() {
        let before = own_mask().expect("mask");
        let mut p = Placement::new();
        if cpus(&before) < 2 {
            return; // one CPU: nothing to move to (the next test checks that case)
        }
        assert!(p.yielded(SHARED_GAP_NS, now_ns()));
        let (from, to) = p.last;
        assert!(from >= 0 && to >= 0);
        // (read while the narrowed mask held: the thread cannot be on `from`)
        assert_ne!(from, to, "the thread moved off its CPU");
        // SAFETY: valid sets.
        assert!(unsafe { libc::CPU_ISSET(from as usize, &before) && libc::CPU_ISSET(to as usize, &before) });
        let after = own_mask().expect("mask");
        // SAFETY: valid sets.
        assert!(unsafe { libc::CPU_EQUAL(&before, &after) }, "the mask is restored");
        assert_eq!(p.moves, 1);
    }

    #[test]
    fn moves_back_off_while_needed_and_reset_after_a_calm() {
        let mut p = Placement::new();
        if cpus(&own_mask().expect("mask")) < 2 {
            return;
        }
        let t = 10 * CALM_NS;
        assert!(p.yielded(SHARED_GAP_NS, t));
        // within the back-off: no move
        assert!(!p.yielded(SHARED_GAP_NS, t + MIN_BACKOFF_NS - 1));
        // after it: a move, and the back-off doubles
        assert!(p.yielded(SHARED_GAP_NS, t + MIN_BACKOFF_NS));
        let t2 = t + MIN_BACKOFF_NS;
        assert!(!p.yielded(SHARED_GAP_NS, t2 + 2 * MIN_BACKOFF_NS - 1));
        assert!(p.yielded(SHARED_GAP_NS, t2 + 2 * MIN_BACKOFF_NS));
        // a calm longer than CALM_NS starts from the least back-off again
        let t3 = t2 + 2 * MIN_BACKOFF_NS + CALM_NS + 1;
        assert!(p.yielded(SHARED_GAP_NS, t3));
        assert!(p.yielded(SHARED_GAP_NS, t3 + MIN_BACKOFF_NS));
        assert_eq!(p.moves, 5);
    }

    #[test]
    fn a_thread_bound_to_one_cpu_never_moves() {
        std::thread::spawn(|| {
            // SAFETY: cpu_set_t is plain data.
            let mut one: libc::cpu_set_t = unsafe { core::mem::zeroed() };
            // SAFETY: no preconditions.
            let cpu = unsafe { libc::sched_getcpu() } as usize;
            // SAFETY: a valid set; cpu is below CPU_SETSIZE.
            unsafe { libc::CPU_SET(cpu, &mut one) };
            assert!(set_own_mask(&one));
            let mut p = Placement::new();
            assert!(!p.yielded(u64::MAX / 2, now_ns()));
            assert_eq!(p.moves, 0);
            let after = own_mask().expect("mask");
            // SAFETY: valid sets.
            assert!(unsafe { libc::CPU_EQUAL(&one, &after) });
        })
        .join()
        .unwrap();
    }
}
