//! `csync` and handle waits: a lock-free check that nothing is pending;
//! else find the segments covering the range (the caller's own queue
//! lock-free, or the tracker), promote them to the sync queue and help.

use crate::clients::{client_at, entry, local, release_own, ring_of, Busy, nothing_pending};
use crate::progress::wait_until;
use crate::ring::Ring;
use crate::task::{Entry, TaskRef, FLAG_ABSORBS};
use crate::tracker::{seg_range, HANDLERS_QUEUED, TRACKER};
use crate::gate;
use crate::{fault, hooks, stats::COUNTERS};
use core::mem::MaybeUninit;
use core::sync::atomic::Ordering;
use super::handlers::{HANDLERS_RUNNING, run_handlers, in_handler};
use super::exec::{settle_abandoned_replay, Mode, drive, drive_all_pending};
use super::own_index::{OWN_INDEX, MAX_CANDIDATES};

// -------------------------------------------------------------------- csync

/// Wait until no pending copy touches the given ranges (`(addr, len,
/// writers_only)`). Returns true when it had to wait.
pub(crate) fn wait_ranges(ranges: &[(usize, usize, bool)], count: bool) -> bool {
    let Some(_busy) = Busy::enter() else { return false };
    if let Some(waited) = own_fast_wait(ranges, count) {
        return waited;
    }
    // (after the own queue: with many threads this looks at every queue)
    if nothing_pending() {
        return false;
    }
    // this thread's list of targets, reused (a nested wait, from a
    // completion handler, finds it taken and starts an empty one)
    let mut targets = TARGETS.try_with(|l| l.take()).unwrap_or_default();
    targets.clear();
    let waited = wait_tracked(ranges, count, &mut targets);
    let _ = TARGETS.try_with(|l| l.set(targets));
    waited
}

thread_local! {
    static TARGETS: core::cell::Cell<Vec<(TaskRef, u32, u32)>> = const { core::cell::Cell::new(Vec::new()) };
}

/// [`wait_ranges`] through the tracker: every client's tasks.
fn wait_tracked(ranges: &[(usize, usize, bool)], count: bool, targets: &mut Vec<(TaskRef, u32, u32)>) -> bool {
    {
        let mut g = TRACKER.lock();
        g.ingest_all();
        for &(a, n, w) in ranges {
            g.collect(a, a.saturating_add(n), w, targets);
        }
        if targets.is_empty() {
            return false;
        }
        g.promote(targets.iter().copied());
    }
    // (no wake-up: this thread executes what nobody has claimed; a running
    // service picks the promoted ranges from the sync queue)
    fault::ensure_first();
    let t0 = if count { COUNTERS.csync.start() } else { 0 };
    let mut budget = usize::MAX;
    for &t in targets.iter() {
        drive(t, Mode::Waiter, &mut budget);
    }
    if count {
        COUNTERS.csync.add(t0);
    }
    true
}

/// Most tasks of the caller's own queue the lock-free fast path scans.
pub(crate) const FAST_SCAN: u64 = 32;

/// Visit the address ranges task `e` accesses: `f(addr, len, task_off,
/// is_write)`; the nominal source is always included (a superset of what an
/// absorbing task reads), and the absorbed sources once the ingest recorded
/// them ([`FLAG_ABSORBS`]).
pub(crate) fn task_ranges(e: &Entry, mut f: impl FnMut(usize, usize, usize, bool)) {
    let n = e.len();
    f(e.dst(), n, 0, true);
    f(e.src(), n, 0, false);
    if e.flags.load(Ordering::Acquire) & FLAG_ABSORBS != 0 {
        // SAFETY: FLAG_ABSORBS (Acquire) is set after the ingest wrote ext,
        // which stays immutable until this thread reuses the slot.
        for r in unsafe { &(*e.ext.get()).redirects } {
            f(r.src, r.len, r.off, false);
        }
    }
}

/// The caller's own queue: [`Own::Empty`] when nothing of its own is
/// pending (or it never queued a copy), else its tasks, all ingested (it
/// ingests them itself: with `block`, under the tracker lock; else only
/// when the lock is free); `None` otherwise (some not ingested while the
/// lock is busy, or the thread's locals are torn down). Ingested, so every
/// absorbed source a task reads is recorded ([`FLAG_ABSORBS`]:
/// `Ring::ingested` is `Acquire`, after the ingest set the flag). `block`
/// only inside the runtime ([`Busy`]): a nested call would wait for its
/// own caller's lock.
///
/// Other threads' queues are not looked at: a `csync` waits for the
/// caller's own earlier copies only (and, through their edges, for what
/// those depend on). By DESIGN.md's rule a thread csyncs a buffer (or a
/// copy's source) before it hands it to another thread, so another
/// thread's copy the caller may touch has completed; one it has not
/// synced is that thread's own business (`capi::csync`: copies of
/// different threads are ordered only through csync). So threads that
/// each csync their own copies never meet on the tracker lock.
#[inline]
pub(crate) fn own_queue(block: bool) -> Option<Own> {
    let Own::Queue(r, idx, t, h) = own_ring()? else { return Some(Own::Empty) };
    if r.ingested() != h {
        // ingest them here (the service holds the lock only between
        // copies)
        if block {
            TRACKER.lock().ingest_all();
        } else {
            TRACKER.try_lock()?.ingest_all();
        }
        if r.ingested() != h {
            return None;
        }
    }
    Some(Own::Queue(r, idx, t, h))
}

/// The caller's own queue with its pending positions `[tail, head)`, some
/// perhaps not ingested yet; `None` when the thread's locals are torn down.
#[inline]
fn own_ring() -> Option<Own> {
    let (cptr, _) = local()?;
    // SAFETY: leaked client (or null).
    let Some(me) = (unsafe { cptr.as_ref() }) else {
        // never queued a copy (or has no client: its copies run
        // synchronously)
        return Some(Own::Empty);
    };
    let Some(r) = ring_of(me) else { return Some(Own::Empty) };
    let (t, h) = (r.tail(), r.head());
    if t == h {
        return Some(Own::Empty);
    }
    Some(Own::Queue(r, me.idx, t, h))
}

/// The caller's own queue as [`own_queue`] found it.
pub(crate) enum Own {
    /// No task of its own pending.
    Empty,
    /// Its ring, client index and pending positions `[tail, head)`, all
    /// ingested.
    Queue(&'static Ring<Entry>, u16, u64, u64),
}

/// Quick reject of [`own_fast_wait`]'s scan: true when task `e`'s
/// destination or nominal source overlaps one of `ranges`, or it absorbed
/// (its redirects are then looked at in full).
#[inline(always)]
fn touches(e: &Entry, ranges: &[(usize, usize, bool)]) -> bool {
    let (d, s, n) = (e.dst(), e.src(), e.len());
    if e.flags.load(Ordering::Relaxed) & FLAG_ABSORBS != 0 {
        return true;
    }
    ranges.iter().any(|&(a, l, _)| {
        let b = a.saturating_add(l);
        (d < b && a < d + n) || (s < b && a < s + n)
    })
}

/// The segments `[lo, hi)` of own task `e` at position `p` that cover
/// `ranges` and are not done, if any.
#[inline(always)]
fn own_target(e: &Entry, p: u64, ranges: &[(usize, usize, bool)]) -> Option<(u32, u32)> {
    let d = &e.desc;
    // (pos and the shift are on the slot's first line, which only this
    // thread writes; the done bits are read for overlapping tasks only)
    if d.pos() != p || !touches(e, ranges) {
        return None;
    }
    let shift = d.seg_shift();
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    task_ranges(e, |a, l, off, is_write| {
        for &(ra, rn, writers_only) in ranges {
            if writers_only && !is_write {
                continue;
            }
            let x = a.max(ra);
            let y = (a + l).min(ra.saturating_add(rn));
            if x < y {
                let (slo, shi) = seg_range(off + (x - a), y - x, shift);
                lo = lo.min(slo);
                hi = hi.max(shi);
            }
        }
    });
    (lo < hi && !d.is_done(p, lo, hi)).then_some((lo, hi))
}

/// Lock-free `csync` ([`own_ring`]): find the segments of the caller's own
/// tasks covering the ranges ([`own_targets`]) instead of taking the
/// tracker lock, and help or wait for them. Tasks the service has not
/// ingested yet are left to it when they cannot matter, else ingested here
/// first ([`own_queue`]). `None` when the fast path does not apply.
pub(crate) fn own_fast_wait(ranges: &[(usize, usize, bool)], count: bool) -> Option<bool> {
    let Own::Queue(r, idx, t, h) = own_ring()? else { return Some(false) };
    // (uninitialised: zeroing 64 entries cost more than the scan itself)
    let mut targets = [const { MaybeUninit::<(TaskRef, u32, u32)>::uninit() }; MAX_CANDIDATES];
    let k = match own_targets(r, idx, t, r.ingested(), h, ranges, &mut targets) {
        Some(k) => k,
        None => {
            let Own::Queue(r, idx, t, h) = own_queue(true)? else { return Some(false) };
            own_targets(r, idx, t, h, h, ranges, &mut targets)?
        }
    };
    if k == 0 {
        return Some(false);
    }
    // this thread may execute them: our fault handler in front (the
    // program may have replaced it since they were ingested)
    fault::ensure_first();
    let t0 = if count { COUNTERS.csync.start() } else { 0 };
    let mut budget = usize::MAX;
    for t in &targets[..k] {
        // SAFETY: the first k entries were written by own_targets.
        drive(unsafe { t.assume_init() }, Mode::Waiter, &mut budget);
    }
    if count {
        COUNTERS.csync.add(t0);
    }
    Some(true)
}

/// Does `[a, a + n)` intersect `[b, b + m)` (saturating ends)?
#[inline(always)]
fn overlaps(a: usize, n: usize, b: usize, m: usize) -> bool {
    a < b.saturating_add(m) && b < a.saturating_add(n)
}

/// Does `[a, a + n)` intersect the box `[lo, hi)` (empty when `lo >= hi`)?
#[inline(always)]
fn in_box((lo, hi): (usize, usize), a: usize, n: usize) -> bool {
    a < hi && lo < a.saturating_add(n)
}

/// Most tasks not ingested yet that [`own_targets`] decides about without
/// an ingest.
const MAX_UNINGESTED: u64 = 8;

/// Most ranges (the csync's and the sources of tasks not ingested) one
/// [`own_targets`] query looks up.
const MAX_QUERY: usize = 16;

/// The caller's own tasks covering `ranges`, as `(task, lo, hi)` segment
/// ranges not done, into `targets`; returns how many. Its pending positions
/// are `[t, h)`, those below `ing` ingested: up to [`FAST_SCAN`] of them
/// scanned, else the candidates of its
/// [`OwnIndex`](super::own_index::OwnIndex). `None` when it cannot tell:
/// the index gives up, or a task not ingested may matter.
///
/// A task not ingested accesses its destination and its nominal source,
/// and after its ingest also what it absorbs: the sources of earlier pending
/// copies whose destinations its source overlaps (the ingest redirects only
/// segments not done). Those copies are the caller's own (a program reads
/// another thread's copy only after that thread's csync, by DESIGN.md's
/// rule). So a task not ingested cannot matter when neither of its ranges
/// overlaps `ranges` and no earlier own pending task writes into its
/// source; the ingest, whenever it runs, adds no access to `ranges`.
#[allow(clippy::too_many_arguments)]
fn own_targets(
    r: &'static Ring<Entry>,
    idx: u16,
    t: u64,
    ing: u64,
    h: u64,
    ranges: &[(usize, usize, bool)],
    targets: &mut [MaybeUninit<(TaskRef, u32, u32)>; MAX_CANDIDATES],
) -> Option<usize> {
    if h - ing > MAX_UNINGESTED || ranges.len() + (h - ing) as usize > MAX_QUERY {
        return None;
    }
    // the query: `ranges`, then the sources of the tasks not ingested
    // (writers only: what an ingest would absorb from); uninitialised, as
    // zeroing it cost a fifth of the scan
    let mut buf = [const { MaybeUninit::<(usize, usize, bool)>::uninit() }; MAX_QUERY];
    let mut nq = 0;
    if ing != h {
        for &q in ranges {
            buf[nq].write(q);
            nq += 1;
        }
    }
    // bounding boxes `[lo, hi)` of the destinations (of `ing..p`) and of the
    // sources of the tasks not ingested: most tests end at a box
    let (mut dbox, mut sbox) = ((usize::MAX, 0usize), (usize::MAX, 0usize));
    for p in ing..h {
        let e = r.slot(p);
        let (d, s, n) = (e.dst(), e.src(), e.len());
        // (an own position not retired is published, so pos == p; an
        // ingest that sets FLAG_ABSORBS meanwhile only makes it answer yes)
        if e.desc.pos() != p || touches(e, ranges) {
            return None;
        }
        // an earlier task not ingested that writes into its source
        if in_box(dbox, s, n) && (ing..p).any(|q| overlaps(r.slot(q).dst(), r.slot(q).len(), s, n)) {
            return None;
        }
        dbox = (dbox.0.min(d), dbox.1.max(d.saturating_add(n)));
        sbox = (sbox.0.min(s), sbox.1.max(s.saturating_add(n)));
        buf[nq].write((s, n, true));
        nq += 1;
    }
    let query: &[(usize, usize, bool)] = if nq == 0 {
        ranges
    } else {
        // SAFETY: the first nq entries were written above.
        unsafe { core::slice::from_raw_parts(buf.as_ptr().cast(), nq) }
    };
    let sources = &query[ranges.len()..];
    // an ingested task that is pending and writes into such a source
    let writes_source = |e: &Entry| {
        let (d, n) = (e.dst(), e.len());
        in_box(sbox, d, n) && sources.iter().any(|&(s, m, _)| overlaps(d, n, s, m))
    };
    let mut k = 0;
    let mut visit = |p: u64, k: &mut usize| -> bool {
        let e = r.slot(p);
        if e.desc.pos() != p {
            return true;
        }
        if writes_source(e) {
            return false;
        }
        if let Some((lo, hi)) = own_target(e, p, ranges) {
            // (at most MAX_CANDIDATES: FAST_SCAN and the index's bound)
            targets[*k].write((TaskRef { client: idx, pos: p }, lo, hi));
            *k += 1;
        }
        true
    };
    // most pending tasks touch none of the query: rejected inline, before
    // the descriptor is read (their slot fields are this thread's own)
    let quiet = |e: &Entry| {
        let (d, s, n) = (e.dst(), e.src(), e.len());
        e.flags.load(Ordering::Relaxed) & FLAG_ABSORBS == 0
            && !ranges.iter().any(|&(a, l, _)| overlaps(d, n, a, l) || overlaps(s, n, a, l))
            && !writes_source(e)
    };
    if ing - t <= FAST_SCAN {
        for p in t..ing {
            if !quiet(r.slot(p)) && !visit(p, &mut k) {
                return None;
            }
        }
        return Some(k);
    }
    let ok = OWN_INDEX.try_with(|x| {
        let mut x = x.try_borrow_mut().ok()?;
        CANDIDATES
            .try_with(|c| {
                let mut c = c.try_borrow_mut().ok()?;
                if !x.candidates(r, t, ing, query, &mut c) {
                    return None;
                }
                c.iter().all(|&p| quiet(r.slot(p)) || visit(p, &mut k)).then_some(())
            })
            .ok()?
    });
    ok.ok()??;
    Some(k)
}

/// Lock-free test before a short synchronous copy: true when none of the
/// caller's own pending tasks (at most [`FAST_SCAN`]; one not ingested yet
/// by its nominal ranges, unless it [may absorb](may_absorb)) touches
/// `[dst, dst + n)` or `[src, src + n)`, so the copy needs no wait (what
/// [`own_fast_wait`] would find for those ranges); false when it cannot
/// tell. Other threads' copies are not looked at, as in [`own_queue`].
pub(crate) fn own_clear(dst: usize, src: usize, n: usize) -> bool {
    let Some(own) = own_ring() else { return false };
    let Own::Queue(r, _, t, h) = own else { return true };
    if h - t > FAST_SCAN {
        return false;
    }
    let ing = r.ingested();
    let ranges = [(dst, n, false), (src, n, true)];
    (t..h).all(|p| {
        let e = r.slot(p);
        e.desc.pos() != p || !(touches(e, &ranges) || (p >= ing && may_absorb(r, t, p)))
    })
}

/// True when own task `p` (published, perhaps not ingested) may absorb at
/// its ingest: an earlier own task still pending, in `[t, p)`, writes into
/// its source (see [`own_targets`]). Linear in `p - t`.
fn may_absorb(r: &Ring<Entry>, t: u64, p: u64) -> bool {
    let e = r.slot(p);
    (t..p).any(|q| {
        let f = r.slot(q);
        f.desc.pos() == q && overlaps(f.dst(), f.len(), e.src(), e.len())
    })
}

thread_local! {
    /// [`own_fast_wait`]'s candidate list, reused.
    static CANDIDATES: core::cell::RefCell<Vec<u64>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// Lock-free `csync_ready_end` window (see [`own_fast_wait`]): the first
/// address `>= from` that a pending segment of the caller's tasks touches;
/// all-ones only when none is queued, else at most [`NO_END`].
pub(crate) fn own_fast_window(from: usize) -> Option<usize> {
    let Own::Queue(r, _, t, h) = own_ring()? else { return Some(usize::MAX) };
    if h - t > FAST_SCAN {
        return None;
    }
    // (a task not ingested has no segment done and reads its nominal
    // source, unless its ingest may make it absorb)
    let ing = r.ingested();
    let mut end = usize::MAX;
    for p in t..h {
        let e = r.slot(p);
        let d = &e.desc;
        // (a retired task's segments are all done: no first_undone)
        if d.pos() != p {
            continue;
        }
        if p >= ing && may_absorb(r, t, p) {
            return None;
        }
        let shift = d.seg_shift();
        task_ranges(e, |a, l, off, _| {
            if a + l <= from || a >= end {
                return;
            }
            let skip = from.saturating_sub(a);
            let (lo, hi) = seg_range(off + skip, l - skip, shift);
            if let Some(k) = d.first_undone(lo, hi) {
                let seg_start = if shift >= 63 { 0 } else { (k as usize) << shift };
                end = end.min(a + seg_start.saturating_sub(off).max(skip));
            }
        });
    }
    Some(end.min(NO_END))
}

/// The end [`csync_ready_end`] returns when no pending copy touches a byte
/// from the range on but one may lie below it: all-ones says that the
/// calling thread has nothing pending at all (`copier.h`), which CopierGen's
/// guards take as a window open below the range too.
const NO_END: usize = copier_abi::symbols::READY_END_ABOVE;

/// `csync(addr, n)`: return once no earlier copy writes or reads a byte of
/// `[addr, addr + n)`.
pub fn csync(addr: usize, n: usize) {
    // An abandoned replay's task is still queued (a gate hold, not retired),
    // so the settle belongs on the waiting path only, off the finished-data
    // fast path.
    if n != 0 && !gate::no_holds() {
        settle_abandoned_replay();
        wait_ranges(&[(addr, n, false)], true);
    }
    if let Some(f) = hooks::get().and_then(|h| h.on_sync) {
        f(addr, n);
    }
}

/// `csync_all()`: return once every copy submitted before the call (by any
/// thread) is complete and its completion handler has run.
///
/// Called from inside a completion handler, it still waits for every
/// earlier copy and runs the queued handlers (on this thread), but does not
/// wait for handlers that are already running — its own caller is one, and a
/// handler another thread runs may itself be waiting in `csync_all` (both
/// would wait forever).
pub fn csync_all() {
    if let Some(f) = hooks::get().and_then(|h| h.on_sync_all_begin) {
        f();
    }
    settle_abandoned_replay();
    // Order matters: a retirer publishes HANDLERS_QUEUED before it frees
    // the slot (tail), and a handler runner counts itself in
    // HANDLERS_RUNNING before it takes the handler off the queue.
    let nested = in_handler();
    if !(gate::no_holds() || nothing_pending()) || HANDLERS_QUEUED.load(Ordering::Acquire) != 0 || (!nested && HANDLERS_RUNNING.load(Ordering::Acquire) != 0) {
        if let Some(_busy) = Busy::enter() {
            let t0 = COUNTERS.csync.start();
            let waited = drive_all_pending();
            run_handlers();
            if !nested {
                wait_until(|| HANDLERS_RUNNING.load(Ordering::Acquire) == 0);
            }
            release_own();
            if waited {
                COUNTERS.csync.add(t0);
            }
        }
    }
    if let Some(f) = hooks::get().and_then(|h| h.on_sync_all) {
        f();
    }
}

/// `csync_ready_end(addr, n)`: wait like `csync`, then return `end >= addr +
/// n` such that no pending copy writes or reads `[addr, end)` (`usize::MAX`
/// when nothing is pending). Under a registered checker, exactly `addr + n`.
pub fn csync_ready_end(addr: usize, n: usize) -> usize {
    settle_abandoned_replay();
    let want = addr.saturating_add(n);
    // nothing of the caller's own pending (`own_queue`): a reader that
    // checks every few bytes while other threads copy pays this only
    if hooks::get().and_then(|h| h.on_sync).is_none() && (gate::no_holds() || matches!(own_ring(), Some(Own::Empty))) {
        return usize::MAX;
    }
    if n != 0 && !gate::no_holds() {
        if out_of_order(addr) {
            wait_whole(addr, n);
        } else {
            wait_ranges(&[(addr, n, false)], true);
        }
    }
    if let Some(f) = hooks::get().and_then(|h| h.on_sync) {
        f(addr, n);
        return want;
    }
    if gate::no_holds() {
        return usize::MAX;
    }
    if let Some(end) = own_fast_window(want) {
        return end.max(want);
    }
    if nothing_pending() {
        return usize::MAX;
    }
    let Some(_busy) = Busy::enter() else { return want };
    let mut g = TRACKER.lock();
    // Copies still in a submission ring are pending too: with `n == 0`
    // nothing above waited (and so ingested), and the range map alone would
    // report an empty window.
    g.ingest_all();
    const MAX_RUNS: usize = 16;
    let runs = g.map.runs_from(want, MAX_RUNS);
    let mut end = usize::MAX;
    for (s, e, w, readers) in &runs {
        for acc in w.iter().chain(readers.iter()) {
            let d = &entry(acc.t).desc;
            if d.pos() != acc.t.pos {
                continue;
            }
            let a = (*s).max(want);
            let off = acc.off + (a - s);
            let (lo, hi) = seg_range(off, e - a, d.seg_shift());
            if let Some(k) = d.first_undone(lo, hi) {
                let seg_start = if d.seg_shift() >= 63 { 0 } else { (k as usize) << d.seg_shift() };
                end = end.min(a + seg_start.saturating_sub(off));
            }
        }
        if end != usize::MAX {
            break;
        }
    }
    if end == usize::MAX && runs.len() >= MAX_RUNS {
        // looked at MAX_RUNS runs past `want` without finding a pending byte;
        // stop the window at the last one examined
        end = runs.last().map_or(usize::MAX, |r| r.1);
    }
    // (something is pending, below `want` perhaps: not all-ones)
    end.min(NO_END).max(want)
}

/// How far past one of the previous requests a `csync_ready_end` request
/// may start and still count as a forward walk (readahead's case).
const FORWARD_SPAN: usize = 64 << 10;

/// How many of the thread's latest requests [`out_of_order`] remembers.
const RECENT: usize = 4;

thread_local! {
    /// The thread's latest `csync_ready_end` addresses (0: none), the next
    /// slot to overwrite, and how many requests in a row were out of order.
    static READY_LAST: core::cell::Cell<([usize; RECENT], u8, u32)> = const { core::cell::Cell::new(([0; RECENT], 0, 0)) };
}

/// True from the third request in a row that starts neither at nor up to
/// [`FORWARD_SPAN`] bytes after one of the thread's [`RECENT`] previous
/// requests since the last such run: a walk from a buffer's end to its
/// start, or scattered reads.
#[inline]
fn out_of_order(addr: usize) -> bool {
    READY_LAST
        .try_with(|c| {
            let (mut last, i, run) = c.get();
            let forward = last.iter().any(|&p| p != 0 && addr >= p && addr - p <= FORWARD_SPAN);
            let run = if forward { 0 } else { run.saturating_add(1) };
            last[i as usize % RECENT] = addr;
            // (a run that waited starts over: the next copy is judged anew)
            c.set((last, i.wrapping_add(1), if run >= 3 { 0 } else { run }));
            run >= 3
        })
        .unwrap_or(false)
}

/// The wait of an out-of-order request: the whole destination of each of
/// the caller's own copies that writes `addr`, and `[addr, addr + n)`. The
/// window the pass keeps starts at the address it asked for, so a backward
/// or scattered reader would otherwise call at every access, and wait once
/// per segment, until the copy completes; such a reader has no window to
/// lose.
fn wait_whole(addr: usize, n: usize) {
    const MAX: usize = 8;
    let mut ranges = [(0usize, 0usize, false); MAX + 1];
    let mut k = 0;
    if let Some(Own::Queue(r, _, t, h)) = own_queue(false).filter(|o| matches!(o, Own::Queue(_, _, t, h) if h - t <= FAST_SCAN)) {
        for p in t..h {
            let e = r.slot(p);
            let (d, l) = (e.dst(), e.len());
            if e.desc.pos() == p && d <= addr && addr < d + l && k < MAX {
                ranges[k] = (d, l, false);
                k += 1;
            }
        }
    }
    ranges[k] = (addr, n, false);
    wait_ranges(&ranges[..=k], true);
}

pub(crate) fn handle_entry(h: u64) -> Result<Option<(TaskRef, &'static Entry)>, ()> {
    let Some(t) = TaskRef::from_handle(h) else { return Ok(None) };
    let c = client_at(t.client as usize).ok_or(())?;
    let r = ring_of(c).ok_or(())?;
    if t.pos >= r.head() {
        return Err(());
    }
    Ok(Some((t, r.slot(t.pos))))
}

/// True when `[offset, offset + len)` lies inside a copy of `n` bytes (an
/// empty range may sit at `n`).
pub(crate) fn range_inside(offset: usize, len: usize, n: usize) -> bool {
    offset <= n && len <= n - offset
}

/// The task of handle `h` while its slot still holds it, for a range
/// `[offset, offset + len)` inside the copy: `Ok(None)` when the handle
/// reads as complete (its slot moved on, or the null handle), `Err` for a
/// handle never issued or, while the slot still holds the task, a range
/// not inside the copy (a recycled slot no longer knows the length).
fn live_handle(h: u64, offset: usize, len: usize) -> Result<Option<(TaskRef, &'static Entry)>, ()> {
    settle_abandoned_replay();
    let Some((t, e)) = handle_entry(h)? else { return Ok(None) };
    if e.desc.pos() != t.pos {
        return Ok(None);
    }
    if !range_inside(offset, len, e.len()) {
        // (a slot reused meanwhile reads as complete)
        return if e.desc.pos() != t.pos { Ok(None) } else { Err(()) };
    }
    Ok(Some((t, e)))
}

/// `copier_wait(h, offset, len)`: wait until the task's bytes `[offset,
/// offset + len)` are copied. Returns 0; -1 (`EINVAL`-style) for a handle
/// that was never issued, or for a range not inside the copy while the
/// task's slot still holds it (a recycled slot no longer knows the length:
/// the handle then reads as complete, 0).
pub fn wait_handle(h: u64, offset: usize, len: usize) -> i32 {
    let (t, e) = match live_handle(h, offset, len) {
        Err(()) => return -1,
        Ok(None) => {
            // complete (its slot was reused): still the checker's event,
            // whichever thread waits (`hooks::Hooks::on_wait`)
            hooks::waited(h, offset, len);
            return 0;
        }
        Ok(Some(x)) => x,
    };
    let d = &e.desc;
    if len > 0 {
        let (lo, hi) = seg_range(offset, len, d.seg_shift());
        if !d.is_done(t.pos, lo, hi) {
            if let Some(_busy) = Busy::enter() {
                let t0 = COUNTERS.csync.start();
                TRACKER.lock().promote([(t, lo, hi)]);
                fault::ensure_first();
                drive((t, lo, hi), Mode::Waiter, &mut usize::MAX.clone());
                COUNTERS.csync.add(t0);
            }
        }
    }
    hooks::waited(h, offset, len);
    0
}

/// `copier_query(h, offset, len)`: 1 when the bytes are copied, 0 when
/// pending, -1 for a handle that was never issued or a range not inside
/// the copy (checked as in [`wait_handle`]). Never blocks.
pub fn query_handle(h: u64, offset: usize, len: usize) -> i32 {
    let (t, e) = match live_handle(h, offset, len) {
        Err(()) => return -1,
        Ok(None) => return 1,
        Ok(Some(x)) => x,
    };
    let d = &e.desc;
    if len == 0 {
        return 1;
    }
    let (lo, hi) = seg_range(offset, len, d.seg_shift());
    i32::from(d.is_done(t.pos, lo, hi))
}

