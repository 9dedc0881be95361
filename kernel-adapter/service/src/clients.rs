//! The clients of the in-process service: one per thread that copies
//! asynchronously, each with its copy ring ([`Client`]), found by index in a
//! fixed table of leaked boxes; and the calling thread's own client and its
//! "inside the runtime" mark ([`Busy`]).

use crate::gate::{self, Hold};
use crate::ring::Ring;
use crate::sys::FutexMutex;
use crate::task::{Entry, TaskRef};
use core::cell::Cell;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;

/// Most clients (threads with a copy queue) at once; more threads copy
/// synchronously. A handle stores the client index in 8 bits.
pub const MAX_CLIENTS: usize = 255;

/// A thread that uses Copier: its copy queue and counters.
pub struct Client {
    pub(crate) idx: u16,
    pub(crate) ring: AtomicPtr<Ring<Entry>>,
    pub(crate) inline: CachePadded<AtomicU64>,
    pub(crate) alive: AtomicBool,
    /// Bytes the service executed for this client (fairness). Own line: the
    /// service adds to it every round, and the fields around are read by
    /// this client's every submit.
    pub(crate) charged: CachePadded<AtomicU64>,
    /// Hold on the inline fast path's gate (`gate`): taken by this client's
    /// thread when it queues a task, released once its queue drained.
    pub(crate) hold: Hold,
    /// 1 while this client's thread is between its fork check and the
    /// publish of its task (`Submitting`, see `service::fork_prepare`). Own line:
    /// written twice per submit, while the service reads the fields above
    /// (`ring`) whenever it looks for work.
    pub(crate) submitting: CachePadded<AtomicU32>,
    /// Queue position + 1 of this client's newest task with a completion
    /// handler (0: none). Written by its thread at submit; a waiter that
    /// completed an earlier task retires it itself, since that handler is
    /// queued only once every earlier task is retired (`service::retire`).
    pub(crate) last_handler: CachePadded<AtomicU64>,
}

pub(crate) static CLIENTS: [AtomicPtr<Client>; MAX_CLIENTS] = [const { AtomicPtr::new(core::ptr::null_mut()) }; MAX_CLIENTS];

pub(crate) static NCLIENTS: AtomicUsize = AtomicUsize::new(0);

pub(crate) static CLIENT_LOCK: FutexMutex<()> = FutexMutex::new(());

pub(crate) struct Local {
    pub(crate) client: Cell<*const Client>,
}

impl Drop for Local {
    fn drop(&mut self) {
        let c = self.client.get();
        if !c.is_null() {
            // SAFETY: clients are leaked, never freed.
            let c = unsafe { &*c };
            // the thread's last chance to release its own hold; a queue
            // still busy is released by the idle service later
            release_own_hold(c);
            c.alive.store(false, Ordering::Release);
        }
    }
}

/// Own release (`gate` module docs): the calling thread is `c`'s producer,
/// so nothing can be published while it checks that the queue drained.
pub(crate) fn release_own_hold(c: &Client) {
    if !c.hold.held() {
        return;
    }
    let drained = ring_of(c).is_none_or(|r| r.tail() == r.head());
    if drained && c.hold.begin_release() {
        gate::sub_hold();
    }
}

/// The calling thread's own release, if it has a client.
pub(crate) fn release_own() {
    if let Some((c, _)) = local() {
        // SAFETY: leaked client (or null).
        if let Some(c) = unsafe { c.as_ref() } {
            release_own_hold(c);
        }
    }
}

/// Remote release of every client whose queue drained (the idle service
/// thread; see `gate`): one asymmetric barrier for all of them.
pub(crate) fn release_idle_holds() {
    if !gate::barrier::register() {
        return;
    }
    let mut won: Vec<&'static Client> = Vec::new();
    for c in (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at) {
        if c.hold.held() && ring_of(c).is_none_or(|r| r.tail() == r.head()) && c.hold.begin_release() {
            won.push(c);
        }
    }
    if won.is_empty() {
        return;
    }
    let ok = gate::barrier::heavy();
    for c in won {
        let drained = ok && ring_of(c).is_none_or(|r| r.tail() == r.head());
        c.hold.finish_release(drained, gate::sub_hold);
    }
}

thread_local! {
    pub(crate) static LOCAL: Local = const { Local { client: Cell::new(core::ptr::null()) } };
    /// Inside the runtime: a nested entry (an interposed `memcpy` called by
    /// the runtime itself, or a signal handler that interrupted the runtime
    /// on this thread) copies directly instead of recursing. Its own key
    /// without a destructor, so it still guards after `LOCAL` is torn down
    /// (the exit handler's `csync_all` runs after the main thread's
    /// thread-local destructors) and is safe to read from a signal handler.
    pub(crate) static BUSY: Cell<bool> = const { Cell::new(false) };
}

/// Client by index.
#[inline]
pub(crate) fn client_at(i: usize) -> Option<&'static Client> {
    // SAFETY: clients are leaked boxes, never freed.
    unsafe { CLIENTS.get(i)?.load(Ordering::Acquire).as_ref() }
}

#[inline]
pub(crate) fn ring_of(c: &Client) -> Option<&'static Ring<Entry>> {
    // SAFETY: rings are leaked boxes, never freed.
    unsafe { c.ring.load(Ordering::Acquire).as_ref() }
}

/// The entry a task lives in.
///
/// # Panics
/// If the task's client has no ring (never for a `TaskRef` from the tracker).
#[inline]
pub fn entry(t: TaskRef) -> &'static Entry {
    let c = client_at(t.client as usize).expect("client");
    ring_of(c).expect("ring").slot(t.pos)
}

pub(crate) fn register_client() -> Option<&'static Client> {
    // a memcpy the allocation below makes (interposed by amemcpy) must not
    // come back here while CLIENT_LOCK is held
    let _busy = Busy::enter()?;
    let _g = CLIENT_LOCK.lock();
    let n = NCLIENTS.load(Ordering::Relaxed);
    // adopt a client whose thread exited and whose queue is empty
    for i in 0..n {
        let c = client_at(i)?;
        if !c.alive.load(Ordering::Acquire) && ring_of(c).is_none_or(|r| r.tail() == r.head()) {
            c.alive.store(true, Ordering::Release);
            return Some(c);
        }
    }
    if n >= MAX_CLIENTS {
        return None;
    }
    let c = Box::leak(Box::new(Client {
        idx: n as u16,
        ring: AtomicPtr::new(core::ptr::null_mut()),
        inline: CachePadded::new(AtomicU64::new(0)),
        alive: AtomicBool::new(true),
        charged: CachePadded::new(AtomicU64::new(0)),
        hold: Hold::new(),
        submitting: CachePadded::new(AtomicU32::new(0)),
        last_handler: CachePadded::new(AtomicU64::new(0)),
    }));
    CLIENTS[n].store(c, Ordering::Release);
    NCLIENTS.store(n + 1, Ordering::Release);
    Some(c)
}

/// The calling thread's client and whether the runtime is already entered
/// on this thread. `None` during thread teardown.
#[inline]
pub(crate) fn local() -> Option<(*const Client, bool)> {
    LOCAL.try_with(|l| l.client.get()).ok().map(|c| (c, BUSY.get()))
}

#[inline]
pub(crate) fn local_client() -> Option<&'static Client> {
    let (c, _) = local()?;
    if !c.is_null() {
        // SAFETY: leaked client.
        return Some(unsafe { &*c });
    }
    let c = register_client()?;
    let _ = LOCAL.try_with(|l| l.client.set(c));
    Some(c)
}

/// Marks the runtime entered on this thread for its lifetime.
pub(crate) struct Busy(bool);

impl Busy {
    /// `None` when already entered (nested call).
    pub(crate) fn enter() -> Option<Busy> {
        if BUSY.replace(true) {
            None
        } else {
            Some(Busy(true))
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        if self.0 {
            BUSY.set(false);
        }
    }
}

/// Run `f` with the runtime marked not entered (user callbacks).
pub(crate) fn outside<R>(f: impl FnOnce() -> R) -> R {
    let was = BUSY.replace(false);
    let r = f();
    BUSY.set(was);
    r
}

/// Fork child: zero the per-client inline counters (see `stats::reset`).
pub fn reset_inline_counts() {
    for c in (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at) {
        c.inline.store(0, Ordering::Relaxed);
    }
}

/// Sum of the per-client inline counters.
pub fn inline_total() -> u64 {
    (0..NCLIENTS.load(Ordering::Acquire)).filter_map(client_at).map(|c| c.inline.load(Ordering::Relaxed)).sum()
}

/// True when no task is pending in any queue (lock-free; a few loads per
/// client). Pairs with the retirers' `Release` of `tail`: when it returns
/// true every earlier copy's bytes are visible.
#[inline]
pub fn nothing_pending() -> bool {
    let n = NCLIENTS.load(Ordering::Acquire);
    for i in 0..n {
        if let Some(c) = client_at(i) {
            if let Some(r) = ring_of(c) {
                if r.head() != r.tail() {
                    return false;
                }
            }
        }
    }
    true
}

