//! Lazy copies after absorption into a system call, and lazy copies
//! dropped when their destination is discarded (issue 10; DESIGN.md "lazy
//! copy task").
//!
//! # Deferring
//! Once the kernel has read a buffer from the pending copies' sources
//! (`copier_write` and kin), the copies that write it are needed only by a
//! later reader of the destination. With `defer_absorbed=1`,
//! [`Tracker::defer_writers`] makes every
//! pending copy whose whole destination lies in the buffer lazy: it then
//! runs only when a `csync` or a dependent copy needs it, or after
//! `lazy_window_us`, and may be dropped (ingest's lazy drop, or
//! [`Tracker::drop_discarded`]). Laziness only delays execution; every
//! ordering rule stays as it was, so this is correct whatever the call did
//! with the bytes.
//!
//! # Dropping at a discard
//! `copier_drop(p, n)` says the program will not read `[p, p + n)` again
//! before writing it (it frees the buffer, or the buffer's lifetime ends).
//! A pending lazy copy whose whole destination lies in the range, and that
//! is still the last writer of all of it with no pending reader since
//! (so no later copy reads its bytes, as in ingest's lazy drop), and that
//! waits for no other copy (an earlier writer it replaced in the index),
//! has its unclaimed segments claimed and marked done unexecuted. Copies with a
//! completion handler, overlapping moves and faulted copies are never
//! dropped. Whatever else touches the range is waited for by the caller,
//! as by `csync` (segments an executor already claimed included).

use super::edges::bytes_done;
use super::Tracker;
use crate::clients::entry;
use crate::desc::{DROPPED, FAULTED, RETIRED};
use crate::stats::COUNTERS;
use crate::task::{TaskRef, FLAG_LAZY, FLAG_OVERLAP};
use core::sync::atomic::Ordering;

impl Tracker {
    /// The distinct pending writers of `[lo, hi)` whose whole destination
    /// lies in it and that may be deferred or dropped (no completion
    /// handler, not an overlapping move, not faulted, not retired).
    fn contained_writers(&self, lo: usize, hi: usize) -> Vec<TaskRef> {
        let mut ws: Vec<TaskRef> = Vec::new();
        self.map.visit(lo, hi, |_, _, w, _| {
            if let Some(w) = w {
                if !ws.contains(&w.t) {
                    ws.push(w.t);
                }
            }
        });
        ws.retain(|&t| {
            let e = entry(t);
            let (d, n) = (e.dst(), e.len());
            e.desc.pos() == t.pos
                && e.desc.flags() & (RETIRED | FAULTED) == 0
                && e.handler.load(Ordering::Relaxed) == 0
                && e.flags.load(Ordering::Relaxed) & FLAG_OVERLAP == 0
                && d >= lo
                && d + n <= hi
        });
        ws
    }

    /// Make the pending copies whose whole destination lies in `[lo, hi)`
    /// lazy (module docs); returns how many were not lazy before. Call
    /// under the tracker lock with every published task ingested.
    pub fn defer_writers(&mut self, lo: usize, hi: usize) -> usize {
        if lo >= hi {
            return 0;
        }
        let mut now = 0;
        let mut deferred = 0;
        for t in self.contained_writers(lo, hi) {
            let e = entry(t);
            if e.flags.load(Ordering::Relaxed) & FLAG_LAZY != 0 || !e.desc.any_unclaimed(0, e.desc.nsegs()) {
                continue;
            }
            if now == 0 {
                now = crate::sys::now_ns();
            }
            // SAFETY: under the tracker lock, which owns `ext` of an
            // ingested task; executors never read `ingest_ns`.
            unsafe { (*e.ext.get()).ingest_ns = now };
            // (the slot is not reused before the task retires, which needs
            // this lock: the bit lands on this task; the service's pick
            // reads it under the lock)
            e.flags.fetch_or(FLAG_LAZY, Ordering::Relaxed);
            deferred += 1;
        }
        if deferred != 0 {
            COUNTERS.lazy_deferred.fetch_add(deferred as u64, Ordering::Relaxed);
        }
        deferred
    }

    /// Drop the lazy copies that only write bytes of `[lo, hi)` nobody
    /// reads any more (module docs); returns how many were dropped. Call
    /// under the tracker lock with every published task ingested.
    pub fn drop_discarded(&mut self, lo: usize, hi: usize) -> usize {
        if lo >= hi {
            return 0;
        }
        let mut dropped_n = 0;
        for w in self.contained_writers(lo, hi) {
            let we = entry(w);
            if we.flags.load(Ordering::Relaxed) & FLAG_LAZY == 0 {
                continue;
            }
            let (wd, wn) = (we.dst(), we.len());
            let sole = self.sole_writer(w, wd, wn);
            // SAFETY: `w` is ingested and the caller holds the tracker lock.
            let wext = unsafe { &*we.ext.get() };
            // (a copy `w` still waits for, e.g. an earlier writer of its
            // destination, would outlive the discard unseen: `w` replaced
            // it in the index; such a `w` is waited for instead)
            let waits = wext.edges.iter().any(|x| !bytes_done(x.t, x.e_off, x.len));
            if !sole || waits {
                continue;
            }
            if self.drop_unclaimed(w) {
                dropped_n += 1;
            }
        }
        dropped_n
    }

    /// Whether `w` is the last writer of every byte of its destination
    /// `[wd, wd + wn)` and no later task reads any of them (the tracker
    /// lock held, `w` ingested).
    pub(super) fn sole_writer(&self, w: TaskRef, wd: usize, wn: usize) -> bool {
        let mut sole = true;
        let mut seen = 0usize;
        self.map.visit(wd, wd + wn, |a, b, wr, readers| {
            seen += b - a;
            if wr.map(|x| x.t) != Some(w) || readers.next().is_some() {
                sole = false;
            }
        });
        sole && seen == wn
    }

    /// Drops the segments of lazy task `w` that nobody claimed yet (its
    /// writes are dead): they complete without running, `w` is marked
    /// `DROPPED` and counted in `lazy_dropped`, and retired when that
    /// completes it. Returns whether any segment was dropped. The caller
    /// holds the tracker lock and has ingested `w`.
    pub(super) fn drop_unclaimed(&mut self, w: TaskRef) -> bool {
        let we = entry(w);
        let mut finished = false;
        let mut dropped = false;
        we.desc.claim_all(|word, bits| {
            dropped = true;
            finished |= we.desc.complete_bits(word, bits);
        });
        if dropped {
            we.desc.set_flags(DROPPED);
            COUNTERS.lazy_dropped.fetch_add(1, Ordering::Relaxed);
            crate::progress::notify_progress();
        }
        if finished {
            self.retire(w);
        }
        dropped
    }
}
