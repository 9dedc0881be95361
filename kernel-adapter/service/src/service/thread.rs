//! The service thread: its start and stop, its scheduling loop (promoted
//! ranges first, then the least-charged client, CFS-like), adaptive
//! polling and parking.

use crate::clients::{client_at, entry, release_idle_holds, ring_of, Busy, Client, NCLIENTS, nothing_pending};
use crate::desc::{FAULTED, RETIRED};
use crate::progress::notify_progress;
use crate::sys::{futex_wait, futex_wake, now_ns, FutexMutex};
use crate::task::{TaskRef, FLAG_LAZY};
use crate::tracker::{Tracker, SYNC_QUEUED, TRACKER};
use crate::{config, config::values as opt, fault};
use core::sync::atomic::{AtomicU32, Ordering};
use crossbeam_utils::CachePadded;
use super::handlers::run_handlers;
use super::exec::{Mode, drive};
use super::placement::Placement;
use super::retire;

pub(crate) const ST_NOT_STARTED: u32 = 0;

pub(crate) const ST_RUNNING: u32 = 1;

pub(crate) const ST_DEAD: u32 = 2;

pub(crate) const ST_STOP: u32 = 3;

pub(crate) static STATE: AtomicU32 = AtomicU32::new(ST_NOT_STARTED);

pub(crate) static START_LOCK: FutexMutex<()> = FutexMutex::new(());

/// 1 while the service thread is parked (futex word).
pub(crate) static SLEEPING: CachePadded<AtomicU32> = CachePadded::new(AtomicU32::new(0));

// ------------------------------------------------------------ service thread

/// Wake the service thread if it is parked.
#[inline]
pub(crate) fn wake_service() {
    if SLEEPING.load(Ordering::Relaxed) != 0 && SLEEPING.swap(0, Ordering::SeqCst) != 0 {
        futex_wake(&SLEEPING, 1);
    }
}

pub(crate) fn any_unconsumed() -> bool {
    (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at).filter_map(ring_of).any(|r| r.head() > r.ingested())
}

/// Lock-free hint that [`pick`] may find work: a task not ingested yet, a
/// promoted range, or an ingested task among the first 64 of a queue that
/// is not retired or faulted and has unclaimed segments (as `pick` scans).
/// False while every pending segment is held by other executors (a waiter
/// copying the tasks it csyncs), so that the service loop does not take the
/// tracker lock, which those executors need to retire, on every spin.
pub(crate) fn runnable_hint() -> bool {
    if SYNC_QUEUED.load(Ordering::Relaxed) {
        return true;
    }
    (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at).filter_map(ring_of).any(|r| {
        let (tail, end) = (r.tail(), r.ingested());
        r.head() > end
            || (tail..end.min(tail + 64)).any(|p| {
                let d = &r.slot(p).desc;
                d.pos() == p && d.flags() & (RETIRED | FAULTED) == 0 && d.any_unclaimed(0, d.nsegs())
            })
    })
}

/// What [`pick`] chose: a task's segment range `[lo, hi)` and the client
/// charged for it.
pub(crate) type Picked = ((TaskRef, u32, u32), Option<&'static Client>);

/// Scheduling decision under the tracker lock: promoted (sync-queue) ranges
/// first, then the least-charged client's oldest runnable task (fairness by
/// bytes, CFS-like), lazy tasks only once their window expired.
pub(crate) fn pick(g: &mut Tracker) -> Option<Picked> {
    while let Some((t, lo, hi)) = g.pop_promoted() {
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

pub(crate) fn lazy_pending() -> bool {
    (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at).filter_map(ring_of).any(|r| {
        (r.tail()..r.ingested()).any(|p| {
            let e = r.slot(p);
            e.desc.pos() == p && e.flags.load(Ordering::Relaxed) & FLAG_LAZY != 0 && e.desc.flags() & RETIRED == 0
        })
    })
}

/// Block every signal in the calling thread; returns the previous mask.
pub(crate) fn block_async_signals() -> libc::sigset_t {
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
pub(crate) fn restore_signals(old: &libc::sigset_t) {
    // SAFETY: `old` came from pthread_sigmask.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, old, core::ptr::null_mut());
    }
}

/// Unblock the synchronous signals a fault raises (the service thread's
/// recoverable copies rely on SIGSEGV/SIGBUS, see `fault`).
pub(crate) fn unblock_fault_signals() {
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

pub(crate) fn service_main() {
    fault::install();
    retire::mark_service_thread();
    let _busy = Busy::enter();
    let mut last_work = now_ns();
    let mut idle_timeout: u64 = 1_000_000;
    // the adaptive poll window, ns (see `poll_max_us`)
    let mut poll_ns = config::get(&opt::poll_us) as u64 * 1000;
    let mut place = (config::get(&opt::migrate) != 0).then(Placement::new);
    loop {
        if STATE.load(Ordering::Acquire) != ST_RUNNING {
            break;
        }
        let mut did = false;
        if retire::requested() || (!nothing_pending() && runnable_hint()) {
            let (picked, swept) = {
                let mut g = TRACKER.lock();
                g.ingest_all();
                let swept = retire::sweep(&mut g);
                (pick(&mut g), swept)
            };
            if swept {
                notify_progress();
            }
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
                // application's own, on a loaded machine) have this CPU;
                // a yield that took long shows a thread busy on this CPU
                // (see `placement`)
                let t = now_ns();
                std::thread::yield_now();
                if let Some(p) = place.as_mut() {
                    let now = now_ns();
                    p.yielded(now - t, now);
                }
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
        if any_unconsumed() || retire::pending() || !TRACKER.lock().sync_queue.is_empty() {
            SLEEPING.store(0, Ordering::Relaxed);
            continue;
        }
        let timeout = if lazy_pending() { config::get(&opt::lazy_window_us) as u64 * 1000 } else { idle_timeout };
        let parked = now_ns();
        futex_wait(&SLEEPING, 1, Some(timeout.clamp(10_000, 1_000_000_000)));
        let woken = SLEEPING.swap(0, Ordering::Relaxed) == 0;
        if !woken && only_service_left() {
            // The program's last thread ended (its main thread with
            // pthread_exit): the process ends as it would have without this
            // thread, as if exit(0) were called then (POSIX pthread_exit),
            // which also runs the atexit handlers and libcopier's own.
            // SAFETY: exit(3) may be called from any thread; this one holds
            // no lock here.
            unsafe { libc::exit(0) };
        }
        // Adaptive polling (KVM's halt_poll_ns grow/shrink): a submit that
        // woke the service soon after it parked paid the wake-up (~1 ms on
        // a loaded machine, while its waiting thread copies alone), which a
        // longer poll would have saved; a park that timed out was right.
        let (lo, hi) = (config::get(&opt::poll_us) as u64 * 1000, config::get(&opt::poll_max_us) as u64 * 1000);
        poll_ns = if woken && now_ns() - parked < hi { (poll_ns * 2).min(hi) } else { poll_ns / 2 }.max(lo);
        idle_timeout = if woken || !nothing_pending() { 1_000_000 } else { (idle_timeout * 2).min(1_000_000_000) };
        last_work = now_ns();
    }
    // (after the loop saw STATE != ST_RUNNING: see `retire`'s protocol)
    retire::sweep_now();
    STATE.store(ST_DEAD, Ordering::Release);
    notify_progress();
}

/// True when the program's main thread has ended (`pthread_exit`) and no
/// thread but the calling one (the service thread) is alive, so that only
/// it keeps the process. Reads `/proc/self/task`: one `stat` file while the
/// main thread lives (every idle park that timed out, at most once a
/// second), every thread's once it has ended.
fn only_service_left() -> bool {
    let pid = std::process::id();
    if !task_ended(pid) {
        return false;
    }
    // SAFETY: gettid has no preconditions.
    let me = unsafe { libc::gettid() } as u32;
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else { return false };
    for e in dir.flatten() {
        let Some(tid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        if tid != me && !task_ended(tid) {
            return false;
        }
    }
    true
}

/// Whether thread `tid` of this process has ended: its `stat` state (the
/// field after the command name's closing parenthesis, proc(5)) is zombie
/// or dead, or it is gone.
fn task_ended(tid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")) {
        Ok(s) => s.rfind(')').and_then(|i| s[i + 1..].trim_start().chars().next()).is_some_and(|c| c == 'Z' || c == 'X'),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    }
}

/// Start the service thread if it is not running; false when it cannot run
/// (disabled, dead, or thread creation failed): copies are then synchronous.
#[cold]
pub(crate) fn start_service() -> bool {
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
            STATE.store(ST_DEAD, Ordering::SeqCst);
            retire::sweep_now();
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
pub(crate) fn service_ok() -> bool {
    STATE.load(Ordering::Relaxed) == ST_RUNNING || start_service()
}

/// Test and fault-injection hook: stop the service thread as if it died.
/// Later copies are synchronous; pending ones are executed by the threads
/// that wait on them.
pub fn kill_service() {
    let _g = START_LOCK.lock();
    if STATE.load(Ordering::Acquire) == ST_RUNNING {
        STATE.store(ST_STOP, Ordering::SeqCst);
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

