//! The in-process copy service: clients and their copy queues, the tracker
//! lock, executors (service thread and helping `csync` callers), the service
//! thread's scheduling loop, and the `csync` family.
//!
//! # Paths
//! * **fast path** (in the C entry points, `gate`): one load proves that no
//!   copy is pending anywhere and the copy is below the threshold; then the
//!   copy runs with the instructions of glibc's `memcpy` (or jumps to it).
//! * **submit** (`amemcpy`): hooks; below the threshold, or when the service
//!   is unavailable or the queue full, a synchronous copy after waiting for
//!   pending conflicting copies; otherwise the caller fills the next slot of
//!   its own ring and publishes it — no lock, no shared counter. A parked
//!   service thread is woken (one futex call, only when it sleeps).
//! * **ingest**: the tracker-lock holder (service thread, or a `csync` caller
//!   that drains every ring first so it sees every earlier submission) moves
//!   published tasks into the tracker (`tracker::Tracker::ingest`).
//! * **execute**: executors claim segments (`desc`), check their edges, copy,
//!   and mark them done; the completer of the last segment retires the task
//!   and queues its completion handler.
//! * **csync**: a lock-free check that nothing is pending anywhere (the
//!   gate's holds count, then per-client `head == tail`); otherwise ingest, find the segments covering the range,
//!   push them to the sync queue (promotion), and help: claim and execute
//!   unclaimed segments (dependencies first), spin briefly then park on the
//!   completion epoch for segments other executors hold.

use crate::clients::{client_at, entry, local, local_client, outside, release_idle_holds, release_own, ring_of, Busy, Client, BUSY, CLIENT_LOCK, LOCAL, NCLIENTS};
use crate::desc::{Descriptor, DEPS_CLEAR, FAILED, FAULTED, INGESTED, RETIRED};
use crate::fault::REPLAY;
use crate::progress::{notify_progress, wait_until};
use crate::ring::Ring;
use crate::sys::{futex_wait, futex_wake, now_ns, FutexMutex};
use crate::task::{Entry, TaskRef, FLAG_ABSORBS, FLAG_LAZY, FLAG_MOVE, FLAG_OVERLAP};
use crate::tracker::{exec_bytes, first_blocked, note_handlers, seg_range, ExecStop, HandlerTask, Tracker, HANDLERS_QUEUED, TRACKER};
use crate::gate;
use crate::{config, config::values as opt, engine, fault, hooks, stats::COUNTERS};
use core::cell::Cell;
use core::sync::atomic::{compiler_fence, fence, AtomicU32, AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;

pub use crate::clients::{nothing_pending, MAX_CLIENTS};

const ST_NOT_STARTED: u32 = 0;

const ST_RUNNING: u32 = 1;

const ST_DEAD: u32 = 2;

const ST_STOP: u32 = 3;

static STATE: AtomicU32 = AtomicU32::new(ST_NOT_STARTED);

static START_LOCK: FutexMutex<()> = FutexMutex::new(());

/// 1 while the service thread is parked (futex word).
static SLEEPING: CachePadded<AtomicU32> = CachePadded::new(AtomicU32::new(0));

/// 1 while a fork is being prepared (from [`fork_prepare`] to
/// [`fork_parent`] / [`fork_child`]): submits copy synchronously, so no new
/// task is published while the queues drain.
static FORKING: AtomicU32 = AtomicU32::new(0);

static HANDLERS_RUNNING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Completion handlers this thread is running (nesting depth). Its own
    /// key without a destructor, so it stays usable after `LOCAL` is torn
    /// down (handlers run from `csync_all` in the exit handler, after the
    /// main thread's thread-local destructors).
    static IN_HANDLER: Cell<u32> = const { Cell::new(0) };
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
fn settle_abandoned_replay() {
    let Ok(v) = REPLAY.try_with(|r| r.get()) else { return };
    if v.3 == 2 {
        settle_abandoned_replay_slow(v);
    }
}

#[cold]
fn settle_abandoned_replay_slow((h, lo, hi, _): (u64, u32, u32, u8)) {
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
fn finish_failed(d: &Descriptor, pos: u64) -> bool {
    let mut finished = false;
    while let Some((a, b)) = d.claim_run(pos, 0, d.nsegs(), 64) {
        finished |= d.complete(a, b);
    }
    finished
}

/// True when a waiter on segments `[k, hi)` of the task at `pos` has
/// something to do: the task moved on, segment `k` completed, or some
/// segment of the range is unclaimed (given back, faulted, or never taken).
fn can_progress(d: &Descriptor, pos: u64, k: u32, hi: u32) -> bool {
    d.pos() != pos || d.is_done(pos, k, k + 1) || d.any_unclaimed(k, hi)
}

// ---------------------------------------------------------------- executors

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// The service thread: never waits; skips faulted tasks.
    Service,
    /// A thread that must see the range complete: waits, and re-executes a
    /// faulted copy with a plain copy so the fault surfaces here.
    Waiter,
}

/// Complete segments `[lo, hi)` of `t` (and, first, whatever they depend
/// on). Returns false when the service gave up (blocked, faulted, or out of
/// `budget` bytes).
fn drive(target: (TaskRef, u32, u32), mode: Mode, budget: &mut usize) -> bool {
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
type DriveLists = (Vec<(TaskRef, u32, u32)>, Vec<(TaskRef, u32, u32)>);

thread_local! {
    static DRIVE_LISTS: Cell<DriveLists> = const { Cell::new((Vec::new(), Vec::new())) };
}

fn drive_with(target: (TaskRef, u32, u32), mode: Mode, budget: &mut usize, stack: &mut Vec<(TaskRef, u32, u32)>, deps: &mut Vec<(TaskRef, u32, u32)>) -> bool {
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
const HELP_NEWEST: u64 = 4;

/// A waiter whose range other executors hold: execute one claim (up to
/// `batch` segments) of the newest task of the calling thread's own queue
/// that has unclaimed segments (among the [`HELP_NEWEST`] newest). Returns
/// true when it copied something.
fn help_newest(batch: u32) -> bool {
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
fn help_ahead(e: &Entry, t: TaskRef, from: u32, batch: u32) -> bool {
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

fn retire(t: TaskRef) {
    {
        let mut g = TRACKER.lock();
        g.retire(t);
        note_handlers(g.handlers.len());
    }
    notify_progress();
    run_handlers();
}

/// Run queued completion handlers (each exactly once: popped under the lock).
fn run_handlers() {
    while HANDLERS_QUEUED.load(Ordering::Acquire) != 0 {
        let h: Option<HandlerTask> = {
            let mut g = TRACKER.lock();
            let h = g.handlers.pop_front();
            if h.is_some() {
                HANDLERS_RUNNING.fetch_add(1, Ordering::AcqRel);
            }
            note_handlers(g.handlers.len());
            h
        };
        let Some(h) = h else { break };
        call_handler(h);
        HANDLERS_RUNNING.fetch_sub(1, Ordering::AcqRel);
        notify_progress();
    }
}

/// True while the calling thread runs a completion handler.
fn in_handler() -> bool {
    IN_HANDLER.with(|d| d.get() != 0)
}

/// Run a completion handler with the runtime marked not entered (it may
/// call every libcopier function).
fn call_handler(h: HandlerTask) {
    outside(|| invoke_handler(h));
}

/// Run a completion handler as it is: counted in `IN_HANDLER`, between the
/// sanitizer's enter/exit hooks; the caller decides whether the runtime
/// counts as entered meanwhile ([`call_handler`], [`nested_copy`]).
fn invoke_handler(h: HandlerTask) {
    IN_HANDLER.with(|d| d.set(d.get() + 1));
    let hk = hooks::get();
    if let Some(f) = hk.and_then(|x| x.on_handler_enter) {
        f(h.dst, h.src, h.len);
    }
    // SAFETY: the submitter passed a `void (*)(void *)`.
    let f: unsafe extern "C" fn(*mut core::ffi::c_void) = unsafe { core::mem::transmute(h.f) };
    // SAFETY: calling the user's handler with the user's argument.
    unsafe { f(h.arg as *mut core::ffi::c_void) };
    if let Some(f) = hk.and_then(|x| x.on_handler_exit) {
        f();
    }
    IN_HANDLER.with(|d| d.set(d.get() - 1));
}

fn ingest_now() {
    TRACKER.lock().ingest_all();
}

// ------------------------------------------------------------ service thread

/// Wake the service thread if it is parked.
#[inline]
fn wake_service() {
    if SLEEPING.load(Ordering::Relaxed) != 0 && SLEEPING.swap(0, Ordering::SeqCst) != 0 {
        futex_wake(&SLEEPING, 1);
    }
}

fn any_unconsumed() -> bool {
    (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at).filter_map(ring_of).any(|r| r.head() > r.ingested())
}

/// Scheduling decision under the tracker lock: promoted (sync-queue) ranges
/// first, then the least-charged client's oldest runnable task (fairness by
/// bytes, CFS-like), lazy tasks only once their window expired.
fn pick(g: &mut Tracker) -> Option<((TaskRef, u32, u32), Option<&'static Client>)> {
    while let Some((t, lo, hi)) = g.sync_queue.pop_front() {
        let d = &entry(t).desc;
        if d.pos() == t.pos && d.flags() & FAULTED == 0 && d.any_unclaimed(lo, hi) {
            return Some(((t, lo, hi), client_at(t.client as usize)));
        }
    }
    let window = config::get(&opt::lazy_window_us) as u64 * 1000;
    let mut now = 0u64;
    let mut best: Option<((TaskRef, u32, u32), &'static Client)> = None;
    let mut max_charged = 0;
    for i in 0..NCLIENTS.load(Ordering::Acquire) {
        let Some(c) = client_at(i) else { continue };
        let Some(r) = ring_of(c) else { continue };
        max_charged = max_charged.max(c.charged.load(Ordering::Relaxed));
        let (tail, end) = (r.tail(), r.ingested());
        for p in tail..end.min(tail + 64) {
            let e = r.slot(p);
            let d = &e.desc;
            let f = d.flags();
            if d.pos() != p || f & (RETIRED | FAULTED) != 0 || !d.any_unclaimed(0, d.nsegs()) {
                continue;
            }
            if e.flags.load(Ordering::Relaxed) & FLAG_LAZY != 0 {
                if now == 0 {
                    now = now_ns();
                }
                // SAFETY: under the tracker lock.
                let t0 = unsafe { (*e.ext.get()).ingest_ns };
                if now.saturating_sub(t0) < window {
                    continue;
                }
            }
            let cand = ((TaskRef { client: i as u16, pos: p }, 0, d.nsegs()), c);
            if best.is_none_or(|(_, b)| c.charged.load(Ordering::Relaxed) < b.charged.load(Ordering::Relaxed)) {
                best = Some(cand);
            }
            break;
        }
    }
    let (t, c) = best?;
    // a client back from idle starts near the others (CFS's min_vruntime)
    let floor = max_charged.saturating_sub(4 * config::get(&opt::max_round_bytes) as u64);
    if c.charged.load(Ordering::Relaxed) < floor {
        c.charged.store(floor, Ordering::Relaxed);
    }
    Some((t, Some(c)))
}

fn lazy_pending() -> bool {
    (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at).filter_map(ring_of).any(|r| {
        (r.tail()..r.ingested()).any(|p| {
            let e = r.slot(p);
            e.desc.pos() == p && e.flags.load(Ordering::Relaxed) & FLAG_LAZY != 0 && e.desc.flags() & RETIRED == 0
        })
    })
}

/// Block every signal in the calling thread; returns the previous mask.
fn block_async_signals() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data, filled by sigfillset/pthread_sigmask.
    unsafe {
        let mut all: libc::sigset_t = core::mem::zeroed();
        let mut old: libc::sigset_t = core::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
        old
    }
}

/// Restore the mask [`block_async_signals`] returned.
fn restore_signals(old: &libc::sigset_t) {
    // SAFETY: `old` came from pthread_sigmask.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, old, core::ptr::null_mut());
    }
}

/// Unblock the synchronous signals a fault raises (the service thread's
/// recoverable copies rely on SIGSEGV/SIGBUS, see `fault`).
fn unblock_fault_signals() {
    // SAFETY: sigset_t is plain data, filled by sigemptyset/sigaddset.
    unsafe {
        let mut set: libc::sigset_t = core::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGTRAP, libc::SIGSYS] {
            libc::sigaddset(&mut set, sig);
        }
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, core::ptr::null_mut());
    }
}

fn service_main() {
    fault::install();
    let _busy = Busy::enter();
    let mut last_work = now_ns();
    let mut idle_timeout: u64 = 1_000_000;
    // the adaptive poll window, ns (see `poll_max_us`)
    let mut poll_ns = config::get(&opt::poll_us) as u64 * 1000;
    loop {
        if STATE.load(Ordering::Acquire) != ST_RUNNING {
            break;
        }
        let mut did = false;
        if !nothing_pending() {
            let picked = {
                let mut g = TRACKER.lock();
                g.ingest_all();
                pick(&mut g)
            };
            if let Some((target, client)) = picked {
                let round = config::get(&opt::max_round_bytes).max(1);
                let mut budget = round;
                drive(target, Mode::Service, &mut budget);
                if let Some(c) = client {
                    c.charged.fetch_add((round - budget) as u64, Ordering::Relaxed);
                }
                did = round != budget;
            }
        }
        run_handlers();
        let now = now_ns();
        if did {
            last_work = now;
            continue;
        }
        let idle = now - last_work;
        if idle < poll_ns {
            if idle < 50_000 {
                // busy-poll right after work (the next submit is likely close)
                for _ in 0..32 {
                    core::hint::spin_loop();
                }
            } else {
                // keep polling, but let any runnable thread (the
                // application's own, on a loaded machine) have this CPU
                std::thread::yield_now();
            }
            continue;
        }
        // going idle: give back the gate holds of drained queues, so inline
        // copies take the fast path again
        release_idle_holds();
        // park (NAPI-style: after polling without work)
        SLEEPING.store(1, Ordering::SeqCst);
        // Re-check after announcing the park. The submit path reads SLEEPING
        // without a store-load fence (a fence there would wait for the ring
        // line this loop keeps reading): in the rare interleaving where a
        // producer misses SLEEPING == 1, its task waits for the park timeout
        // below, or for the thread that csyncs it, which executes it itself.
        // The timeout starts at 1 ms and doubles while the process stays
        // idle, so an idle process is woken rarely.
        if any_unconsumed() || !TRACKER.lock().sync_queue.is_empty() {
            SLEEPING.store(0, Ordering::Relaxed);
            continue;
        }
        let timeout = if lazy_pending() { config::get(&opt::lazy_window_us) as u64 * 1000 } else { idle_timeout };
        let parked = now_ns();
        futex_wait(&SLEEPING, 1, Some(timeout.clamp(10_000, 1_000_000_000)));
        let woken = SLEEPING.swap(0, Ordering::Relaxed) == 0;
        // Adaptive polling (KVM's halt_poll_ns grow/shrink): a submit that
        // woke the service soon after it parked paid the wake-up (~1 ms on
        // a loaded machine, while its waiting thread copies alone), which a
        // longer poll would have saved; a park that timed out was right.
        let (lo, hi) = (config::get(&opt::poll_us) as u64 * 1000, config::get(&opt::poll_max_us) as u64 * 1000);
        poll_ns = if woken && now_ns() - parked < hi { (poll_ns * 2).min(hi) } else { poll_ns / 2 }.max(lo);
        idle_timeout = if woken || !nothing_pending() { 1_000_000 } else { (idle_timeout * 2).min(1_000_000_000) };
        last_work = now_ns();
    }
    STATE.store(ST_DEAD, Ordering::Release);
    notify_progress();
}

/// Start the service thread if it is not running; false when it cannot run
/// (disabled, dead, or thread creation failed): copies are then synchronous.
#[cold]
fn start_service() -> bool {
    if config::get(&opt::service) == 0 {
        return false;
    }
    if config::get(&opt::spawn) == 0 {
        return true; // queue only; waiters execute
    }
    let _g = START_LOCK.lock();
    match STATE.load(Ordering::Acquire) {
        ST_RUNNING => return true,
        ST_NOT_STARTED => {}
        _ => return false,
    }
    fault::install();
    STATE.store(ST_RUNNING, Ordering::Release);
    // The service thread takes none of the program's asynchronous signals
    // (a process-directed SIGALRM, SIGCHLD, SIGINT... goes to a program
    // thread, whose handler may expect to run there, and never interrupts
    // the service inside the tracker lock). Blocked around the spawn so the
    // thread starts with the mask; synchronous fault signals stay unblocked
    // (a blocked SIGSEGV from a fault kills the process).
    let old_mask = block_async_signals();
    let spawned = std::thread::Builder::new().name("copier-service".into()).spawn(|| {
        unblock_fault_signals();
        let r = std::panic::catch_unwind(service_main);
        if r.is_err() {
            STATE.store(ST_DEAD, Ordering::Release);
            notify_progress();
        }
    });
    restore_signals(&old_mask);
    if spawned.is_err() {
        STATE.store(ST_DEAD, Ordering::Release);
        return false;
    }
    true
}

#[inline]
fn service_ok() -> bool {
    STATE.load(Ordering::Relaxed) == ST_RUNNING || start_service()
}

/// Test and fault-injection hook: stop the service thread as if it died.
/// Later copies are synchronous; pending ones are executed by the threads
/// that wait on them.
pub fn kill_service() {
    let _g = START_LOCK.lock();
    if STATE.load(Ordering::Acquire) == ST_RUNNING {
        STATE.store(ST_STOP, Ordering::Release);
        SLEEPING.store(0, Ordering::SeqCst);
        futex_wake(&SLEEPING, 1);
        while STATE.load(Ordering::Acquire) == ST_STOP {
            std::thread::yield_now();
        }
    } else {
        STATE.store(ST_DEAD, Ordering::Release);
    }
}

/// True while the service thread runs.
pub fn service_running() -> bool {
    STATE.load(Ordering::Acquire) == ST_RUNNING
}

// ------------------------------------------------------------------- submit

#[inline]
fn call_submit_hook(dst: usize, src: usize, n: usize, flags: u32) {
    if let Some(f) = hooks::get().and_then(|h| h.on_submit) {
        f(dst, src, n, flags);
    }
}

/// Submit a copy of `n` bytes from `src` to `dst` (`FLAG_LAZY`, `FLAG_MOVE`),
/// with an optional completion handler. Returns the descriptor handle, or 0
/// when the copy completed synchronously (its handler has then run).
///
/// # Safety
/// As `memcpy` (or `memmove` with `FLAG_MOVE`): both ranges valid for `n`
/// bytes until the copy completes; the caller follows the csync rules.
/// `handler`, if non-zero, is an `extern "C" fn(*mut c_void)`.
pub unsafe fn submit(dst: *mut u8, src: *const u8, n: usize, flags: u32, handler: usize, arg: usize) -> u64 {
    settle_abandoned_replay();
    call_submit_hook(dst as usize, src as usize, n, flags);
    // SAFETY: caller contract.
    if handler == 0 && unsafe { copy_inline(dst, src, n) } {
        return 0;
    }
    if n == 0 || core::ptr::eq(dst.cast_const(), src) {
        if handler != 0 {
            call_handler(HandlerTask { f: handler, arg, dst: dst as usize, src: src as usize, len: n });
        }
        return 0;
    }
    let Some((cptr, busy)) = local() else {
        // thread teardown: copy synchronously
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, None) };
        return 0;
    };
    if busy {
        // nested inside the runtime (interposed memcpy, signal handler):
        // plain copy
        // SAFETY: caller contract.
        unsafe { nested_copy(dst, src, n, handler, arg) };
        return 0;
    }
    let client = if cptr.is_null() {
        local_client()
    } else {
        // SAFETY: leaked client.
        Some(unsafe { &*cptr })
    };
    if n < config::get(&opt::threshold) || !service_ok() {
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, client) };
        return 0;
    }
    let Some(client) = client else {
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, None) };
        return 0;
    };
    let ring = match ring_of(client) {
        Some(r) => r,
        None => {
            // building the ring moves entries with memcpy: an interposed
            // memcpy must not come back here
            let Some(_busy) = Busy::enter() else {
                // SAFETY: caller contract.
                unsafe { engine::move_bytes(dst, src, n) };
                return 0;
            };
            let r: &'static Ring<Entry> = Box::leak(Box::new(Ring::new(config::get(&opt::queue_depth), Entry::new)));
            client.ring.store(r as *const _ as *mut _, Ordering::Release);
            r
        }
    };
    // `submitting` is 1 from here to the publish: a signal handler that
    // interrupted this thread's submit in between sees it and copies
    // synchronously instead of reserving the slot the interrupted submit is
    // filling (only this thread sets it; one load of a line the submit
    // writes anyway, where a `busy` guard cost ~3.5 ns per submit).
    if client.submitting.load(Ordering::Relaxed) != 0 {
        // SAFETY: caller contract.
        unsafe { nested_copy(dst, src, n, handler, arg) };
        return 0;
    }
    // a fork being prepared waits for this submit to publish, or this
    // submit sees the fork and copies synchronously (`fork_prepare`)
    let Some(submitting) = Submitting::enter(client) else {
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, Some(client)) };
        return 0;
    };
    let Some(pos) = ring.reserve() else {
        drop(submitting);
        // full queue: synchronous copy after pending conflicts
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, Some(client)) };
        return 0;
    };
    let (d, s) = (dst as usize, src as usize);
    let mut f = flags & (FLAG_LAZY | FLAG_MOVE);
    let (nsegs, shift) = if d.abs_diff(s) < n {
        f |= FLAG_OVERLAP;
        (1, 63)
    } else {
        let mut shift = config::get(&opt::segment_size).trailing_zeros();
        while n.div_ceil(1 << shift) > crate::desc::MAX_SEGS {
            shift += 1;
        }
        (n.div_ceil(1 << shift) as u32, shift)
    };
    // hold the fast path's gate closed before the task becomes visible ...
    client.hold.ensure(gate::add_hold, gate::sub_hold);
    let e = ring.slot(pos);
    e.desc.reset(pos, nsegs, shift, 0);
    e.dst.store(d, Ordering::Relaxed);
    e.src.store(s, Ordering::Relaxed);
    e.len.store(n, Ordering::Relaxed);
    e.flags.store(f, Ordering::Relaxed);
    e.handler.store(handler, Ordering::Relaxed);
    e.arg.store(arg, Ordering::Relaxed);
    ring.publish(pos);
    if let Some(ahead) = ring.free_ahead(pos, PREFETCH_SLOTS) {
        prefetch_for_write(ring.slot(ahead));
    }
    // ... and after: a remote release may have raced with the publish (see
    // `gate`: this compiler barrier plus the releaser's membarrier order the
    // publish before this load, or the releaser sees the publish)
    compiler_fence(Ordering::SeqCst);
    client.hold.ensure(gate::add_hold, gate::sub_hold);
    drop(submitting);
    // io_uring's need_wakeup pattern, without the store-load fence: see the
    // park in `service_main` for why a rare missed wake-up is harmless.
    if SLEEPING.load(Ordering::Relaxed) != 0 {
        wake_service();
    }
    TaskRef { client: client.idx, pos }.handle()
}

/// A submit made while this thread is inside the runtime (an interposed
/// `memcpy` the runtime calls, or a signal handler that interrupted a
/// runtime call on this thread): copy here with no lock and no queue, then
/// run the completion handler, still marked inside the runtime so that its
/// own submits are plain copies too (the interrupted frame may be halfway
/// through a submit into this thread's queue). Such a copy is not ordered
/// after copies the interrupted code has pending (it cannot wait for them:
/// the interrupted frame may hold the locks a wait takes).
///
/// # Safety
/// As [`submit`].
#[cold]
unsafe fn nested_copy(dst: *mut u8, src: *const u8, n: usize, handler: usize, arg: usize) {
    // SAFETY: caller contract; overlap-safe.
    unsafe { engine::move_bytes(dst, src, n) };
    if handler != 0 {
        invoke_handler(HandlerTask { f: handler, arg, dst: dst as usize, src: src as usize, len: n });
    }
}

/// How many slots ahead a submit prefetches the slot a later submit fills.
const PREFETCH_SLOTS: u64 = 16;

/// Ask for the two cache lines a submit writes in `e` (see [`Entry`]) in
/// exclusive state, ahead of the submit that fills it: the executors wrote
/// them last (completion, retirement), so that submit would otherwise wait
/// for them to cross cores (~55 ns here between the two cores of one L3,
/// more across L3 domains). Only free slots are prefetched
/// ([`Ring::free_ahead`]), so no executor still works on the lines.
#[inline(always)]
fn prefetch_for_write(e: &Entry) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = (e as *const Entry).cast::<u8>();
        // SAFETY: a prefetch is a hint that never faults and changes no
        // state the program sees; `prefetchw` is a NOP on x86-64 CPUs
        // without it (Intel SDM, "PREFETCHW"); both addresses lie in `e`.
        unsafe {
            core::arch::asm!("prefetchw [{0}]", "prefetchw [{0} + 64]", in(reg) p, options(nostack, preserves_flags, readonly));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = e;
}

/// A submit between its fork check and its publish: `client.submitting` is
/// 1 for the guard's life (see [`fork_prepare`]).
struct Submitting<'a>(&'a Client);

impl<'a> Submitting<'a> {
    /// Announce the submit, then look for a fork being prepared: `None`
    /// while one is (the copy must then be synchronous).
    ///
    /// Dekker-style with `fork_prepare` (store `FORKING`, barrier, read
    /// every `submitting`): either the forker sees this 1 and waits for the
    /// publish, or this load sees the forker's 1. The barrier on this side
    /// is a compiler barrier when the process is registered for
    /// `membarrier` (the forker's `membarrier` places a full barrier in this
    /// thread's instruction stream, as for the gate's remote release, see
    /// `gate`), a full fence otherwise.
    #[inline]
    fn enter(c: &'a Client) -> Option<Self> {
        c.submitting.store(1, Ordering::Relaxed);
        if gate::barrier::registered() {
            compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
        if FORKING.load(Ordering::Relaxed) != 0 {
            c.submitting.store(0, Ordering::Release);
            return None;
        }
        Some(Submitting(c))
    }
}

impl Drop for Submitting<'_> {
    fn drop(&mut self) {
        self.0.submitting.store(0, Ordering::Release);
    }
}

/// Inline copy of a submit without handler, off the entry points' fast
/// path (which `gate` closes while statistics are on, hooks are registered,
/// or some copy may be pending): below the threshold and with nothing
/// pending that it could conflict with, copy here — no lock, no allocation,
/// so no re-entrancy concern either — and count it. Returns false when the
/// full submit path must run. The caller has called the submit hook.
///
/// # Safety
/// As [`submit`].
#[inline(always)]
pub unsafe fn copy_inline(dst: *mut u8, src: *const u8, n: usize) -> bool {
    if n >= config::get(&opt::threshold) || !(gate::no_holds() || inline_slow_check()) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if n <= 32 {
        // SAFETY: at most 32 bytes, overlap-safe (caller contract).
        unsafe { engine::arch::x86_64::copy_le32(dst, src, n) };
        count_inline();
        return true;
    }
    // SAFETY: caller contract; overlap-safe.
    unsafe { engine::move_bytes(dst, src, n) };
    count_inline();
    true
}

/// The gate is held: release the caller's own hold if its queue drained,
/// then look at every queue.
#[cold]
fn inline_slow_check() -> bool {
    release_own();
    gate::no_holds() || nothing_pending()
}

#[inline(always)]
fn count_inline() {
    let c = LOCAL.try_with(|l| l.client.get()).unwrap_or(core::ptr::null());
    if c.is_null() {
        count_inline_slow();
    } else {
        // SAFETY: leaked client; only its own thread writes `inline`.
        let c = unsafe { &*c };
        c.inline.store(c.inline.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }
}

#[cold]
fn count_inline_slow() {
    match local_client() {
        Some(c) => c.inline.store(c.inline.load(Ordering::Relaxed) + 1, Ordering::Relaxed),
        None => {
            COUNTERS.inline.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Synchronous copy (inline, full queue, service unavailable): wait for
/// pending copies that write or read `dst` or write `src`, then copy here.
///
/// # Safety
/// As [`submit`].
unsafe fn sync_copy(dst: *mut u8, src: *const u8, n: usize, handler: usize, arg: usize, client: Option<&Client>) {
    if !nothing_pending() {
        wait_ranges(&[(dst as usize, n, false), (src as usize, n, true)], false);
        if handler != 0 {
            // the handler may free the source: as for a queued copy
            // (`advance_tail`), every earlier copy of this thread completes
            // first
            if let Some(c) = client {
                if let Some(_busy) = Busy::enter() {
                    drive_pending_of(Some(c.idx as usize));
                }
            }
        }
    }
    // SAFETY: caller contract; overlap-safe.
    unsafe { engine::move_bytes(dst, src, n) };
    match client {
        Some(c) => c.inline.store(c.inline.load(Ordering::Relaxed) + 1, Ordering::Relaxed),
        None => {
            COUNTERS.inline.fetch_add(1, Ordering::Relaxed);
        }
    }
    if handler != 0 {
        call_handler(HandlerTask { f: handler, arg, dst: dst as usize, src: src as usize, len: n });
    }
}

// -------------------------------------------------------------------- csync

/// Wait until no pending copy touches the given ranges (`(addr, len,
/// writers_only)`). Returns true when it had to wait.
fn wait_ranges(ranges: &[(usize, usize, bool)], count: bool) -> bool {
    let Some(_busy) = Busy::enter() else { return false };
    let mut targets = Vec::new();
    if let Some(waited) = own_fast_wait(ranges, count) {
        return waited;
    }
    {
        let mut g = TRACKER.lock();
        g.ingest_all();
        for &(a, n, w) in ranges {
            g.collect(a, a.saturating_add(n), w, &mut targets);
        }
        if targets.is_empty() {
            return false;
        }
        g.sync_queue.extend(targets.iter().copied());
    }
    // (no wake-up: this thread executes what nobody has claimed; a running
    // service picks the promoted ranges from the sync queue)
    fault::ensure_first();
    let t0 = if count { now_ns() } else { 0 };
    let mut budget = usize::MAX;
    for &t in &targets {
        drive(t, Mode::Waiter, &mut budget);
    }
    if count {
        COUNTERS.csync.add(t0);
    }
    true
}

/// Most tasks of the caller's own queue the lock-free fast path scans.
const FAST_SCAN: u64 = 32;

/// Visit the address ranges task `e` accesses: `f(addr, len, task_off,
/// is_write)`; the nominal source is always included (a superset of what an
/// absorbing task reads), and the absorbed sources once the ingest recorded
/// them ([`FLAG_ABSORBS`]).
fn task_ranges(e: &Entry, mut f: impl FnMut(usize, usize, usize, bool)) {
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

/// The caller's own queue holds every pending task of the process, few,
/// and all ingested (it ingests them itself when the tracker lock is free):
/// return its ring and position range (`None` otherwise). Ingested, so
/// every absorbed source a task reads is recorded ([`FLAG_ABSORBS`]:
/// `Ring::ingested` is `Acquire`, after the ingest set the flag).
fn own_pending_only() -> Option<(&'static Ring<Entry>, u64, u64)> {
    let (cptr, _) = local()?;
    // SAFETY: leaked client.
    let me = unsafe { cptr.as_ref()? };
    let r = ring_of(me)?;
    for i in 0..NCLIENTS.load(Ordering::Acquire) {
        if i != me.idx as usize {
            if let Some(o) = client_at(i).and_then(ring_of) {
                if o.head() != o.tail() {
                    return None;
                }
            }
        }
    }
    let (t, h) = (r.tail(), r.head());
    if h - t > FAST_SCAN {
        return None;
    }
    if r.ingested() != h {
        // ingest them here, unless the lock is busy (the service holds it
        // only between copies)
        TRACKER.try_lock()?.ingest_all();
        if r.ingested() != h {
            return None;
        }
    }
    Some((r, t, h))
}

/// Lock-free `csync`: when the caller's own queue holds every pending task
/// (the common single-producer case), find the segments covering the ranges
/// by scanning those tasks instead of taking the tracker lock, and help or
/// wait for them. `None` when the fast path does not apply.
fn own_fast_wait(ranges: &[(usize, usize, bool)], count: bool) -> Option<bool> {
    let (r, t, h) = own_pending_only()?;
    let mut targets: [(TaskRef, u32, u32); 2 * FAST_SCAN as usize] = [(TaskRef { client: 0, pos: 0 }, 0, 0); 2 * FAST_SCAN as usize];
    let mut k = 0;
    let me = local().map(|(c, _)| c)?;
    // SAFETY: leaked client.
    let idx = unsafe { (*me).idx };
    for p in t..h {
        let e = r.slot(p);
        let d = &e.desc;
        // (pos and the shift are on the slot's first line, which only this
        // thread writes; the done bits are read for overlapping tasks only)
        if d.pos() != p {
            continue;
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
        if lo < hi && !d.is_done(p, lo, hi) && k < targets.len() {
            targets[k] = (TaskRef { client: idx, pos: p }, lo, hi);
            k += 1;
        }
    }
    if k == 0 {
        return Some(false);
    }
    // this thread may execute them: our fault handler in front (the
    // program may have replaced it since they were ingested)
    fault::ensure_first();
    let t0 = if count { now_ns() } else { 0 };
    let mut budget = usize::MAX;
    for &t in &targets[..k] {
        drive(t, Mode::Waiter, &mut budget);
    }
    if count {
        COUNTERS.csync.add(t0);
    }
    Some(true)
}

/// Lock-free `csync_ready_end` window (see [`own_fast_wait`]): the first
/// address `>= from` that a pending segment of the caller's tasks touches.
fn own_fast_window(from: usize) -> Option<usize> {
    let (r, t, h) = own_pending_only()?;
    let mut end = usize::MAX;
    for p in t..h {
        let e = r.slot(p);
        let d = &e.desc;
        // (a retired task's segments are all done: no first_undone)
        if d.pos() != p {
            continue;
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
    Some(end)
}

/// `csync(addr, n)`: return once no earlier copy writes or reads a byte of
/// `[addr, addr + n)`.
pub fn csync(addr: usize, n: usize) {
    // An abandoned replay's task is still queued (a gate hold, not retired),
    // so the settle belongs on the waiting path only, off the finished-data
    // fast path.
    if n != 0 && !gate::no_holds() && !nothing_pending() {
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
    settle_abandoned_replay();
    // Order matters: a retirer publishes HANDLERS_QUEUED before it frees
    // the slot (tail), and a handler runner counts itself in
    // HANDLERS_RUNNING before it takes the handler off the queue.
    let nested = in_handler();
    if !(gate::no_holds() || nothing_pending()) || HANDLERS_QUEUED.load(Ordering::Acquire) != 0 || (!nested && HANDLERS_RUNNING.load(Ordering::Acquire) != 0) {
        if let Some(_busy) = Busy::enter() {
            let t0 = now_ns();
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
    if n != 0 && !gate::no_holds() && !nothing_pending() {
        wait_ranges(&[(addr, n, false)], true);
    }
    if let Some(f) = hooks::get().and_then(|h| h.on_sync) {
        f(addr, n);
        return want;
    }
    if gate::no_holds() || nothing_pending() {
        return usize::MAX;
    }
    if let Some(end) = own_fast_window(want) {
        return end.max(want);
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
    end.max(want)
}

fn handle_entry(h: u64) -> Result<Option<(TaskRef, &'static Entry)>, ()> {
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
fn range_inside(offset: usize, len: usize, n: usize) -> bool {
    offset <= n && len <= n - offset
}

/// `copier_wait(h, offset, len)`: wait until the task's bytes `[offset,
/// offset + len)` are copied. Returns 0; -1 (`EINVAL`-style) for a handle
/// that was never issued, or for a range not inside the copy while the
/// task's slot still holds it (a recycled slot no longer knows the length:
/// the handle then reads as complete, 0).
pub fn wait_handle(h: u64, offset: usize, len: usize) -> i32 {
    settle_abandoned_replay();
    let Ok(x) = handle_entry(h) else { return -1 };
    let Some((t, e)) = x else { return 0 };
    let d = &e.desc;
    let n = e.len();
    if d.pos() != t.pos {
        return 0;
    }
    if !range_inside(offset, len, n) {
        // (a slot reused meanwhile read as complete)
        return if d.pos() != t.pos { 0 } else { -1 };
    }
    if len > 0 {
        let (lo, hi) = seg_range(offset, len, d.seg_shift());
        if !d.is_done(t.pos, lo, hi) {
            if let Some(_busy) = Busy::enter() {
                let t0 = now_ns();
                TRACKER.lock().sync_queue.push_back((t, lo, hi));
                fault::ensure_first();
                drive((t, lo, hi), Mode::Waiter, &mut usize::MAX.clone());
                COUNTERS.csync.add(t0);
            }
        }
        if let Some(f) = hooks::get().and_then(|h| h.on_sync) {
            f(e.dst() + offset, len);
        }
    }
    0
}

/// `copier_query(h, offset, len)`: 1 when the bytes are copied, 0 when
/// pending, -1 for a handle that was never issued or a range not inside
/// the copy (checked as in [`wait_handle`]). Never blocks.
pub fn query_handle(h: u64, offset: usize, len: usize) -> i32 {
    settle_abandoned_replay();
    let Ok(x) = handle_entry(h) else { return -1 };
    let Some((t, e)) = x else { return 1 };
    let d = &e.desc;
    let n = e.len();
    if d.pos() != t.pos {
        return 1;
    }
    if !range_inside(offset, len, n) {
        return if d.pos() != t.pos { 1 } else { -1 };
    }
    if len == 0 {
        return 1;
    }
    let (lo, hi) = seg_range(offset, len, d.seg_shift());
    i32::from(d.is_done(t.pos, lo, hi))
}

// ----------------------------------------------------------- process events

/// `pthread_atfork` prepare: make the fork a point where no copy is in
/// flight, then hold the locks so the child gets a consistent tracker.
///
/// 1. Set `FORKING`: from here on every submit (any thread, completion
///    handlers included) copies synchronously, so no new task is published.
/// 2. Wait for the submits that passed their check before the flag was
///    visible to publish (`Submitting`: a compiler barrier on their side,
///    `membarrier` here; a few instructions each).
/// 3. Drain ([`drain_for_fork`]): execute and retire every queued task and
///    run the queued completion handlers on this thread, as `csync_all`.
///    Afterwards every queue is empty and stays empty, so no executor can
///    hold a claim, be inside a segment or be retiring a task: the child
///    inherits no task at all and starts fresh (a new service thread on its
///    first asynchronous copy).
/// 4. Take the service's locks (and the gate's), so no other thread is
///    inside a critical section at the fork.
///
/// Handlers that other threads are running are not waited for: the caller
/// may itself be one (fork from a completion handler), and a running
/// handler's own submits are synchronous now, so it cannot add a task. A
/// copy whose source or destination faults is re-executed by the drain and
/// faults on the forking thread, as it would in `csync_all`. Called while
/// this thread is inside the runtime (a hook that forks), the drain is
/// skipped; `fork_child` then recovers an interrupted state as before
/// (orphaned claims released, complete tasks retired).
pub fn fork_prepare() {
    FORKING.store(1, Ordering::SeqCst);
    fence(Ordering::SeqCst);
    if gate::barrier::register() {
        gate::barrier::heavy();
    }
    let me = local().map_or(core::ptr::null(), |(c, _)| c);
    for c in (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at) {
        // (this thread is not inside a submit: hooks and handlers run
        // outside the publish window)
        while !core::ptr::eq(c, me) && c.submitting.load(Ordering::Acquire) != 0 {
            std::thread::yield_now();
        }
    }
    drain_for_fork();
    START_LOCK.raw_lock();
    CLIENT_LOCK.raw_lock();
    TRACKER.raw_lock();
    gate::fork_lock(true);
}

/// `fork_prepare`'s drain: with no new task published (`FORKING`), execute
/// every queued task (dependencies first, helping the executors) until every
/// queue is empty, and run the queued completion handlers.
fn drain_for_fork() {
    let Some(_busy) = Busy::enter() else { return };
    while !nothing_pending() || HANDLERS_QUEUED.load(Ordering::Acquire) != 0 {
        drive_all_pending();
        run_handlers();
    }
}

/// Execute every task ingested so far in every client's queue (dependencies
/// first, helping the executors) on the calling thread, then wait until each
/// is retired. Returns whether any task was pending. Used by `csync_all` and
/// by `fork_prepare`'s drain; the caller must hold `Busy`.
fn drive_all_pending() -> bool {
    drive_pending_of(None)
}

/// [`drive_all_pending`] for the tasks of one client's queue (`Some(idx)`)
/// or of every queue (`None`).
fn drive_pending_of(only: Option<usize>) -> bool {
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

/// `pthread_atfork` parent: release the locks; submits are asynchronous
/// again.
pub fn fork_parent() {
    gate::fork_lock(false);
    TRACKER.raw_unlock();
    CLIENT_LOCK.raw_unlock();
    START_LOCK.raw_unlock();
    FORKING.store(0, Ordering::Release);
}

/// `pthread_atfork` child: no service thread and no other executor exist
/// here, and after [`fork_prepare`]'s drain no task either. Other threads'
/// clients are marked dead, the gate is opened for every drained queue, and
/// the next asynchronous copy starts a new service thread. (When the drain
/// was skipped, orphaned claims are released and complete tasks retired.)
pub fn fork_child() {
    TRACKER.reset_in_child();
    CLIENT_LOCK.reset_in_child();
    START_LOCK.reset_in_child();
    FORKING.store(0, Ordering::Relaxed);
    let st = STATE.load(Ordering::Relaxed);
    STATE.store(if st == ST_RUNNING || st == ST_STOP { ST_NOT_STARTED } else { st }, Ordering::Relaxed);
    SLEEPING.store(0, Ordering::Relaxed);
    crate::progress::reset_in_child();
    HANDLERS_RUNNING.store(0, Ordering::Relaxed);
    crate::stats::reset();
    let me = local().map(|(c, _)| c).unwrap_or(core::ptr::null());
    for i in 0..NCLIENTS.load(Ordering::Relaxed) {
        let Some(c) = client_at(i) else { continue };
        if !core::ptr::eq(c, me) {
            c.alive.store(false, Ordering::Relaxed);
        }
        c.submitting.store(0, Ordering::Relaxed);
        if let Some(r) = ring_of(c) {
            r.resync_producer();
            for p in r.tail()..r.ingested() {
                let d = &r.slot(p).desc;
                if d.pos() == p {
                    d.release_in_flight();
                }
            }
        }
    }
    // Only when the drain was skipped (fork from inside the runtime): an
    // executor of the parent may have completed a task's last segment
    // and been waiting for the tracker lock (held across the fork by
    // `fork_prepare`) to retire it: here nobody would, and a `csync_all`
    // waiting for RETIRED would hang. Retire such tasks now (their
    // handlers run in the child too, as for every task the child finishes).
    let mut g = TRACKER.lock();
    for i in 0..NCLIENTS.load(Ordering::Relaxed) {
        let Some(r) = client_at(i).and_then(ring_of) else { continue };
        for p in r.tail()..r.ingested() {
            let d = &r.slot(p).desc;
            if d.pos() == p && d.flags() & RETIRED == 0 && d.first_undone(0, d.nsegs()).is_none() {
                g.retire(TaskRef { client: i as u16, pos: p });
            }
        }
    }
    note_handlers(g.handlers.len());
    drop(g);
    // the only thread left may release every drained queue's hold
    let mut holds = 0;
    for c in (0..NCLIENTS.load(Ordering::Relaxed)).filter_map(client_at) {
        let drained = ring_of(c).is_none_or(|r| r.tail() == r.head());
        if c.hold.held() && !(drained && c.hold.begin_release()) {
            holds += 1;
        }
    }
    gate::fork_child(holds);
}

/// For tests: number of runs in the tracker's index (0 when nothing is
/// pending and every task retired).
pub fn index_len() -> usize {
    TRACKER.lock().map.len()
}

/// For tests: work the tracker's index did retiring tasks so far (runs
/// visited plus reader entries examined, see `RangeMap::work`).
pub fn index_work() -> u64 {
    TRACKER.lock().map.work()
}

/// For tests: wait until every queued task is retired (after `csync_all`
/// the last retirements may still be running on another executor).
pub fn quiesce() {
    csync_all();
    wait_until(nothing_pending);
}

/// For tests: a description of every task not retired yet.
pub fn debug_pending() -> String {
    let mut s = String::new();
    for i in 0..NCLIENTS.load(Ordering::Acquire) {
        let Some(r) = client_at(i).and_then(ring_of) else { continue };
        s += &format!("client {i}: tail {} ingested {} head {}\n", r.tail(), r.ingested(), r.head());
        for p in r.tail()..r.head() {
            let e = r.slot(p);
            let d = &e.desc;
            s += &format!(
                "  pos {p} slotpos {} flags {:#x} uflags {:#x} nsegs {} prefix {} first_undone {:?} dst {:#x} src {:#x} len {}\n",
                d.pos(), d.flags(), e.flags.load(Ordering::Relaxed), d.nsegs(), d.prefix(), d.first_undone(0, d.nsegs()), e.dst(), e.src(), e.len()
            );
        }
    }
    s
}

