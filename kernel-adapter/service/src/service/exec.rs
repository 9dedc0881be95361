//! Executors: the service thread and helping waiters claim segments,
//! check their edges, copy and complete them; the completer of a task's
//! last segment retires it. Also the settling of a fault-delivering copy
//! that the program left by `siglongjmp`.

use crate::clients::{client_at, entry, local, ring_of, BUSY, NCLIENTS};
use crate::desc::{Descriptor, DEPS_CLEAR, FAILED, FAULTED, INGESTED, RETIRED};
use crate::fault::REPLAY;
use crate::progress::{notify_progress, wait_until};
use crate::task::{Entry, TaskRef};
use crate::tracker::{exec_bytes, first_blocked, ExecStop, TRACKER};
use crate::{config, config::values as opt, fault, stats::COUNTERS};
use core::cell::Cell;
use core::sync::atomic::Ordering;
pub(crate) use super::retire::retire;

thread_local! {
    /// Readahead state of a waiter that executes its own range: `(task
    /// handle, segment its next sequential csync starts at, readahead in
    /// segments)`. See `drive`.
    static READ_AHEAD: Cell<(u64, u32, u32)> = const { Cell::new((0, 0, 0)) };
}

/// Called on entry to every runtime call: if this thread left a
/// fault-delivering copy by `siglongjmp` (the program's SIGSEGV handler
/// jumped out of it, as a program recovering around `memcpy` does), that task
/// is finished with a fault: mark it [`FAILED`], complete its remaining
/// segments without copying (the claim this thread still holds included),
/// retire it (its dependents proceed as after a partial `memcpy`) and leave
/// the runtime's per-thread "entered" state as a normal return would have.
/// The copy faulted once, as `memcpy` does; it is never re-executed.
#[inline]
pub(crate) fn settle_abandoned_replay() {
    let Ok(v) = REPLAY.try_with(|r| r.get()) else { return };
    if v.3 == 2 {
        settle_abandoned_replay_slow(v);
    }
}

#[cold]
pub(crate) fn settle_abandoned_replay_slow((h, lo, hi, _): (u64, u32, u32, u8)) {
    let _ = REPLAY.try_with(|r| r.set((0, 0, 0, 0)));
    // the abandoned frames held the runtime "entered" flag
    BUSY.set(false);
    let Some(t) = TaskRef::from_handle(h) else { return };
    let d = &entry(t).desc;
    if d.pos() != t.pos {
        return;
    }
    TRACKER.lock().note_failed(t);
    d.set_flags(FAULTED | FAILED);
    let mut finished = lo < hi && d.complete(lo, hi);
    finished |= finish_failed(d, t.pos);
    notify_progress();
    if finished {
        retire(t);
    }
}

/// Complete every unclaimed segment of a [`FAILED`] task without copying.
/// Returns true when that completed the task (the caller retires it).
pub(crate) fn finish_failed(d: &Descriptor, pos: u64) -> bool {
    let mut finished = false;
    while let Some((a, b)) = d.claim_run(pos, 0, d.nsegs(), 64) {
        finished |= d.complete(a, b);
    }
    finished
}

/// True when a waiter on segments `[k, hi)` of the task at `pos` has
/// something to do: the task moved on, segment `k` completed, or some
/// segment of the range is unclaimed (given back, faulted, or never taken).
pub(crate) fn can_progress(d: &Descriptor, pos: u64, k: u32, hi: u32) -> bool {
    d.pos() != pos || d.is_done(pos, k, k + 1) || d.any_unclaimed(k, hi)
}

// ---------------------------------------------------------------- executors

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    /// The service thread: never waits; skips faulted tasks.
    Service,
    /// A thread that must see the range complete: waits, and re-executes a
    /// faulted copy with a plain copy so the fault surfaces here.
    Waiter,
}

/// Complete segments `[lo, hi)` of `t` (and, first, whatever they depend
/// on). Returns false when the service gave up (blocked, faulted, or out of
/// `budget` bytes).
pub(crate) fn drive(target: (TaskRef, u32, u32), mode: Mode, budget: &mut usize) -> bool {
    // reuse this thread's work lists (a nested drive, from a completion
    // handler, finds them taken and starts empty ones)
    let (mut stack, mut deps) = DRIVE_LISTS.try_with(|l| l.take()).unwrap_or_default();
    stack.clear();
    let r = drive_with(target, mode, budget, &mut stack, &mut deps);
    let _ = DRIVE_LISTS.try_with(|l| l.set((stack, deps)));
    r
}

/// The work lists of [`drive`]: the stack of ranges to complete, and the
/// dependencies found for one claim.
pub(crate) type DriveLists = (Vec<(TaskRef, u32, u32)>, Vec<(TaskRef, u32, u32)>);

thread_local! {
    static DRIVE_LISTS: Cell<DriveLists> = const { Cell::new((Vec::new(), Vec::new())) };
}

pub(crate) fn drive_with(target: (TaskRef, u32, u32), mode: Mode, budget: &mut usize, stack: &mut Vec<(TaskRef, u32, u32)>, deps: &mut Vec<(TaskRef, u32, u32)>) -> bool {
    // Claims start at `exec_batch` segments and double up to `claim_max` (slow start:
    // the first bytes are ready soon, later claims amortize the atomics);
    // completion is published every `sub` segments so readers can follow.
    let base = config::get(&opt::exec_batch).clamp(1, 64) as u32;
    let cap = (config::get(&opt::claim_max).clamp(1, 64) as u32).max(base);
    let mut batch = base;
    let first = target;
    if entry(first.0).desc.is_done(first.0.pos, first.1, first.2) {
        return true;
    }
    stack.push(target);
    while let Some(&(t, lo, hi)) = stack.last() {
        let e = entry(t);
        let d = &e.desc;
        if d.pos() != t.pos {
            stack.pop();
            continue;
        }
        let Some(k) = d.first_undone(lo, hi) else {
            stack.pop();
            batch = base;
            continue;
        };
        let flags = d.flags();
        if flags & FAULTED != 0 && mode == Mode::Service {
            return false;
        }
        if flags & INGESTED == 0 {
            // a handle waited on before the tracker saw it
            ingest_now();
            continue;
        }
        // Readahead (a waiter's own range), after the kernel's sequential
        // file readahead (mm/readahead.c): a thread whose slow-path csyncs
        // walk one copy front to back, each starting where its previous one
        // ended, with the segment unclaimed (no other executor on this part:
        // the service is busy elsewhere, or has no CPU on a loaded machine),
        // will csync what follows next. It then claims past its range,
        // `exec_batch` segments first, doubling up to `claim_max` while the
        // pattern holds. Any other access (first csync, a jump, a segment
        // another executor holds) waits for the covering segments only.
        // Without it such a reader ran the slow path once per segment
        // (copy-then-parse at 0.85x memcpy when the service had no core).
        let ahead = mode == Mode::Waiter && stack.len() == 1;
        let (chi, cmax, ra) = if ahead {
            let (h, expect, ra) = READ_AHEAD.try_with(|r| r.get()).unwrap_or((0, 0, 0));
            let ra = if h == t.handle() && k == expect { ra.clamp(base, cap) } else { 0 };
            (d.nsegs().min(hi.max(k + ra)), batch.max(ra), ra)
        } else {
            (hi, batch, 0)
        };
        let claimed = d.claim_run(t.pos, k, chi, cmax);
        if ahead {
            let next = match claimed {
                Some((a, b)) if a == k => (t.handle(), b, if ra == 0 { base } else { (ra * 2).min(cap) }),
                _ => (0, 0, 0),
            };
            let _ = READ_AHEAD.try_with(|r| r.set(next));
        }
        let Some((a, b)) = claimed else {
            if d.pos() != t.pos {
                stack.pop();
                continue;
            }
            // every undone segment of the range is held by another executor
            if mode == Mode::Service {
                return false;
            }
            // While it finishes, help with the segments after the range
            // (the copy-then-parse reader would otherwise idle): one
            // claim's worth, then look at the range again.
            if hi < d.nsegs() && help_ahead(e, t, hi, base) {
                continue;
            }
            // ... or with the newest copies of this thread's own queue
            // (a stream that keeps copies in flight: the service works
            // oldest first, so both cores copy and rarely meet)
            if help_newest(base) {
                continue;
            }
            wait_until(|| can_progress(d, t.pos, k, hi));
            continue;
        };
        if d.flags() & FAILED != 0 {
            // finished with a fault (delivered once already): no copy
            let mut finished = d.complete(a, b);
            finished |= finish_failed(d, t.pos);
            notify_progress();
            if finished {
                retire(t);
            }
            continue;
        }
        // We hold a claim: the task cannot complete or be recycled, so its
        // ext is stable.
        // SAFETY: see above; ext is only written at ingest (before INGESTED).
        let ext = unsafe { &*e.ext.get() };
        let shift = d.seg_shift();
        let len = e.len();
        let mut end = b;
        if flags & DEPS_CLEAR == 0 {
            deps.clear();
            if let Some(kb) = first_blocked(&ext.edges, shift, len, a, b, deps) {
                d.unclaim(kb, b);
                notify_progress();
                if kb == a {
                    batch = base;
                    if stack.len() > 100_000 {
                        // pathological chain: wait instead of growing
                        wait_until(|| can_progress(d, t.pos, k, hi));
                        continue;
                    }
                    stack.append(deps);
                    continue;
                }
                end = kb;
            }
        }
        batch = (batch * 2).min(cap);
        let recoverable = flags & FAULTED == 0 && fault::installed();
        let sub = base.max((end - a) / 4);
        let mut c = a;
        while c < end {
            let ce = (c + sub).min(end);
            let x = if shift >= 63 { 0 } else { (c as usize) << shift };
            let y = if shift >= 63 { len } else { ((ce as usize) << shift).min(len) };
            // A plain copy may deliver a fault to the program, whose handler
            // may siglongjmp out of it: leave a mark so the next runtime
            // call on this thread settles the task (`settle_abandoned_replay`).
            let mark = !recoverable && mode == Mode::Waiter;
            if mark {
                // (our handler sees the fault first and notes its delivery)
                fault::install();
                let _ = REPLAY.try_with(|r| r.set((t.handle(), c, end, 1)));
            }
            deps.clear();
            // SAFETY: we own the claim on [c, ce) and its dependencies are done.
            let res = unsafe { exec_bytes(e, &ext.redirects, x, y, recoverable, deps) };
            if mark {
                let _ = REPLAY.try_with(|r| r.set((0, 0, 0, 0)));
            }
            match res {
                Ok(()) => {
                    *budget = budget.saturating_sub(y - x);
                    if mode == Mode::Service { &COUNTERS.service_bytes } else { &COUNTERS.helper_bytes }
                        .fetch_add((y - x) as u64, Ordering::Relaxed);
                    let finished = d.complete(c, ce);
                    notify_progress();
                    if finished {
                        retire(t);
                    }
                }
                Err(ExecStop::Fault) => {
                    // give the rest back marked FAULTED; a waiter re-executes
                    d.set_flags(FAULTED);
                    d.unclaim(c, end);
                    notify_progress();
                    if mode == Mode::Service {
                        return false;
                    }
                    break;
                }
                Err(ExecStop::Absorbed) => {
                    // an absorbed piece waits for the (faulted) copy it came
                    // from: give the rest back, execute that copy first
                    d.unclaim(c, end);
                    notify_progress();
                    batch = base;
                    stack.append(deps);
                    break;
                }
            }
            c = ce;
        }
        if mode == Mode::Service && *budget == 0 {
            return false;
        }
    }
    true
}

/// Most of the calling thread's newest tasks [`help_newest`] looks at.
pub(crate) const HELP_NEWEST: u64 = 4;

/// A waiter whose range other executors hold: execute one claim (up to
/// `batch` segments) of the newest task of the calling thread's own queue
/// that has unclaimed segments (among the [`HELP_NEWEST`] newest). Returns
/// true when it copied something.
pub(crate) fn help_newest(batch: u32) -> bool {
    let Some((c, _)) = local() else { return false };
    // SAFETY: leaked client (or null).
    let Some(c) = (unsafe { c.as_ref() }) else { return false };
    let Some(r) = ring_of(c) else { return false };
    let (t, h) = (r.tail(), r.head());
    for p in (t.max(h.saturating_sub(HELP_NEWEST))..h).rev() {
        let e = r.slot(p);
        let d = &e.desc;
        if d.pos() == p && d.any_unclaimed(0, d.nsegs()) && help_ahead(e, TaskRef { client: c.idx, pos: p }, 0, batch) {
            return true;
        }
    }
    false
}

/// Execute one run of up to `batch` unclaimed segments of `t` from `from`
/// on, if their dependencies are done. Returns true when it copied
/// something.
pub(crate) fn help_ahead(e: &Entry, t: TaskRef, from: u32, batch: u32) -> bool {
    let d = &e.desc;
    let flags = d.flags();
    if flags & (FAULTED | INGESTED) != INGESTED {
        return false;
    }
    let Some((a, b)) = d.claim_run(t.pos, from, d.nsegs(), batch) else { return false };
    // SAFETY: we hold a claim on the task (see `drive`).
    let ext = unsafe { &*e.ext.get() };
    let (shift, len) = (d.seg_shift(), e.len());
    let mut end = b;
    if flags & DEPS_CLEAR == 0 {
        let mut deps = Vec::new();
        if let Some(kb) = first_blocked(&ext.edges, shift, len, a, b, &mut deps) {
            d.unclaim(kb, b);
            notify_progress();
            end = kb;
        }
    }
    if end == a {
        return false;
    }
    let x = (a as usize) << shift;
    let y = ((end as usize) << shift).min(len);
    // SAFETY: we own the claim on [a, end) and its dependencies are done.
    match unsafe { exec_bytes(e, &ext.redirects, x, y, fault::installed(), &mut Vec::new()) } {
        Ok(()) => {
            COUNTERS.helper_bytes.fetch_add((y - x) as u64, Ordering::Relaxed);
            let finished = d.complete(a, end);
            notify_progress();
            if finished {
                retire(t);
            }
            true
        }
        Err(ExecStop::Fault) => {
            d.set_flags(FAULTED);
            d.unclaim(a, end);
            notify_progress();
            false
        }
        Err(ExecStop::Absorbed) => {
            d.unclaim(a, end);
            notify_progress();
            false
        }
    }
}

pub(crate) fn ingest_now() {
    TRACKER.lock().ingest_all();
}

/// Execute every task ingested so far in every client's queue (dependencies
/// first, helping the executors) on the calling thread, then wait until each
/// is retired. Returns whether any task was pending. Used by `csync_all` and
/// by `fork_prepare`'s drain; the caller must hold `Busy`.
pub(crate) fn drive_all_pending() -> bool {
    drive_pending_of(None)
}

/// [`drive_all_pending`] for the tasks of one client's queue (`Some(idx)`)
/// or of every queue (`None`).
pub(crate) fn drive_pending_of(only: Option<usize>) -> bool {
    let mut targets = Vec::new();
    {
        let mut g = TRACKER.lock();
        g.ingest_all();
        for i in 0..NCLIENTS.load(Ordering::Acquire) {
            if only.is_some_and(|o| o != i) {
                continue;
            }
            let Some(r) = client_at(i).and_then(ring_of) else { continue };
            for p in r.tail()..r.ingested() {
                let d = &r.slot(p).desc;
                if d.pos() == p && d.flags() & RETIRED == 0 {
                    targets.push((TaskRef { client: i as u16, pos: p }, 0, d.nsegs()));
                }
            }
        }
    }
    if !targets.is_empty() {
        fault::ensure_first();
    }
    let mut budget = usize::MAX;
    for &t in &targets {
        drive(t, Mode::Waiter, &mut budget);
    }
    // what this thread completed may have been left to the service
    // (`retire`): retire it here, not at the service's next pass
    if !targets.is_empty() && TRACKER.lock().retire_done() {
        notify_progress();
    }
    // The last segment's executor may still be retiring a task (and
    // queueing its handler): wait for RETIRED, then take the lock once: the
    // retirer queues handlers (`advance_tail`) after setting RETIRED, in
    // the same critical section.
    for &(t, ..) in &targets {
        let d = &entry(t).desc;
        wait_until(|| d.pos() != t.pos || d.flags() & RETIRED != 0);
    }
    if !targets.is_empty() {
        drop(TRACKER.lock());
    }
    !targets.is_empty()
}

