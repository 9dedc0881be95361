//! Absorption across the syscall boundary (issue 10): the plan a
//! `copier_write`-style entry point hands to the kernel instead of waiting
//! for the copies that still write its buffers. The rule and its limits are
//! [`Tracker::read_sources`](crate::tracker::Tracker::read_sources)'s; this
//! module ingests, queries under the tracker lock, and waits (outside it)
//! for the pieces that cannot be absorbed.

use super::csync::wait_ranges;
use super::exec::settle_abandoned_replay;
use crate::clients::{nothing_pending, Busy};
use crate::gate;
use crate::stats::COUNTERS;
use crate::tracker::query::{ReadFrom, ReadPiece};
use crate::tracker::TRACKER;
use core::sync::atomic::Ordering;

/// True when no copy can be pending in the process (the plan of any buffer
/// is the buffer itself).
#[inline]
pub fn none_pending() -> bool {
    gate::no_holds() || nothing_pending()
}

/// Plan the kernel's read of `bufs` (`(addr, len)` pairs, in call order):
/// fills `out` with `(addr, len, from_source)` pieces to read instead, in
/// the same order and of the same total length, and returns how many of
/// their bytes come from a pending copy's source (the pieces marked
/// `from_source`; 0: `out` is `bufs` without empty entries). Pieces
/// that cannot be absorbed were waited for (their copies finished those
/// bytes) and are read in place. The copies whose whole destination lies
/// in one buffer become lazy (`Tracker::defer_writers`; option
/// `defer_absorbed`). Never calls a
/// sanitizer hook: for the program, the copies stay pending.
pub fn read_plan(bufs: &[(usize, usize)], out: &mut Vec<(usize, usize, bool)>) -> usize {
    out.clear();
    let direct = |out: &mut Vec<(usize, usize, bool)>| {
        out.extend(bufs.iter().filter(|b| b.1 != 0).map(|&(a, n)| (a, n, false)));
        0
    };
    if none_pending() {
        return direct(out);
    }
    settle_abandoned_replay();
    let mut pieces: Vec<ReadPiece> = Vec::new();
    {
        // (nested inside the runtime, e.g. a signal handler that interrupted
        // it: read in place, as `csync` would not wait either)
        let Some(_busy) = Busy::enter() else { return direct(out) };
        let mut g = TRACKER.lock();
        g.ingest_all();
        let defer = crate::config::get(&crate::config::values::defer_absorbed) != 0;
        for &(a, n) in bufs {
            g.read_sources(a, a.saturating_add(n), &mut pieces);
            if defer {
                // the kernel now has these bytes: their copies become lazy
                g.defer_writers(a, a.saturating_add(n));
            }
        }
    }
    let waits: Vec<(usize, usize, bool)> = pieces.iter().filter(|p| p.2 == ReadFrom::Wait).map(|p| (p.0, p.1, true)).collect();
    if !waits.is_empty() {
        wait_ranges(&waits, true);
    }
    let mut absorbed = 0;
    for (a, n, from) in pieces {
        let (src, sub) = match from {
            ReadFrom::Source(s) => {
                absorbed += n;
                (s, true)
            }
            ReadFrom::Here | ReadFrom::Wait => (a, false),
        };
        match out.last_mut() {
            Some(last) if last.0 + last.1 == src && last.2 == sub => last.1 += n,
            _ => out.push((src, n, sub)),
        }
    }
    absorbed
}

/// Wait until no pending copy writes a byte of the ranges (`(addr, len)`):
/// what a system call reads in place (an iovec array, a `msghdr`, an
/// address) or a fallback before the plain call. No sanitizer hook.
pub fn wait_reads(ranges: &[(usize, usize)]) {
    if none_pending() {
        return;
    }
    settle_abandoned_replay();
    let v: Vec<(usize, usize, bool)> = ranges.iter().filter(|r| r.1 != 0).map(|&(a, n)| (a, n, true)).collect();
    if !v.is_empty() {
        wait_ranges(&v, true);
    }
}

/// Count `bytes` the kernel read from pending copies' sources
/// (`absorbed_syscall_bytes`).
pub fn note_absorbed(bytes: usize) {
    if bytes != 0 {
        COUNTERS.absorbed_syscall_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }
}
