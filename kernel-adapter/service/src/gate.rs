//! The inline fast path's gate: one read-mostly cache line that proves, with
//! a single load, that no asynchronous copy can be pending, so a copy below
//! the threshold may go straight to glibc's `memcpy` (issue 2: "copies below
//! the threshold cost <= 1.05x memcpy").
//!
//! # The proof
//! Every client (a thread with a copy queue) *holds* the gate while its
//! queue may contain tasks that are not retired. `FastPath::limit` is the
//! inline threshold when no client holds the gate and nothing else forces
//! the slow path (library not initialized yet, a checker's hooks registered,
//! statistics on), and 0 otherwise; a separate word counts the holding
//! clients ([`no_holds`]). Both change only when a client goes idle↔busy, never per submit,
//! so in steady state the line sits shared in every core's cache.
//!
//! # The hold protocol (per client, [`Hold`])
//! * **acquire** — the producer (the client's own thread), before it
//!   publishes a task and again right after: if its hold word is 0 it adds
//!   one to the holds count, then sets the word (CAS 0→1), and subtracts
//!   the one again if the CAS lost. The check after publishing is what
//!   makes a concurrent release safe (below); counting before setting keeps
//!   a releaser that sees the word set again from dropping its reference
//!   before the producer's is counted.
//! * **own release** — the producer itself, whenever it sees its queue
//!   drained (`tail == head`): CAS 1→0, and on winning subtract one. Nothing
//!   can be published meanwhile: the producer is this thread.
//! * **remote release** — any other thread (the service thread when it goes
//!   idle): CAS 1→0 on a client whose queue looked drained, then an
//!   asymmetric full barrier (`membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`,
//!   which executes a memory barrier on every running thread of the process:
//!   the kernel's `Documentation/scheduler/membarrier.rst`, the scheme of
//!   liburcu and of folly's `asymmetricHeavyBarrier`), then it re-reads the
//!   queue. Drained: subtract one. Not drained (the producer published
//!   meanwhile): restore the hold (CAS 0→1) and keep the reference; if that
//!   CAS fails the producer re-acquired on its own and holds a fresh
//!   reference, so subtract ours.
//!
//! Why a remote release never loses a task: the producer's publish (a store
//! to `head`) and its hold check after it (a load) are separated by a
//! compiler barrier only; the releaser's CAS and its `head` load by the
//! membarrier. The membarrier places a full barrier in the producer's
//! instruction stream at some point `P`. If the publish is before `P`, the
//! releaser sees the new `head`; if it is after `P`, so is the producer's
//! hold check, which then sees the releaser's 0 and re-acquires before
//! `amemcpy` returns. Either way, a thread synchronized with the submit's
//! return reads a holds count (and limit) at or after the producer's
//! increment, which is released only after the task retired. The loom model
//! below checks this with the barrier modelled as an `AcqRel` RMW on one
//! shared word by both sides.

use crate::primitive::{AtomicU32, Ordering};

/// A client's hold on the gate: 1 while it (may) have unretired tasks.
pub struct Hold {
    word: AtomicU32,
}

#[cfg(not(loom))]
impl Default for Hold {
    fn default() -> Self {
        Self::new()
    }
}

impl Hold {
    /// A hold word that holds nothing.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Hold { word: AtomicU32::new(0) }
    }
    /// A hold word that holds nothing.
    #[cfg(loom)]
    pub fn new() -> Self {
        Hold { word: AtomicU32::new(0) }
    }

    /// True while held.
    #[inline]
    pub fn held(&self) -> bool {
        self.word.load(Ordering::Relaxed) != 0
    }

    /// Producer: make sure the hold is taken. On a 0 it adds a reference
    /// (`add`) *before* it sets the word, and takes it back (`sub`) if a
    /// remote releaser restored the hold first: a releaser that finds the
    /// word set again and drops its own reference must never bring the
    /// count to 0 while the producer's is still missing (the loom model
    /// found that window).
    #[inline]
    pub fn ensure(&self, add: impl FnOnce(), sub: impl FnOnce()) {
        if self.word.load(Ordering::Relaxed) == 0 {
            self.ensure_slow(add, sub);
        }
    }

    #[cold]
    fn ensure_slow(&self, add: impl FnOnce(), sub: impl FnOnce()) {
        add();
        // Release: a releaser whose restore fails on this 1 (Acquire) drops
        // its reference only after our `add`.
        if self.word.compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            sub();
        }
    }

    /// Begin a release (own or remote): CAS 1→0. True when this call won
    /// the hold's reference; the caller must then call
    /// [`Hold::finish_release`] (remote, after its barrier) or drop the
    /// reference itself (own release).
    #[inline]
    pub fn begin_release(&self) -> bool {
        self.word.load(Ordering::Relaxed) == 1 && self.word.compare_exchange(1, 0, Ordering::AcqRel, Ordering::Relaxed).is_ok()
    }

    /// Remote release, after the barrier: `drained` is the queue re-read
    /// after it. Calls `released` (drop one reference) when the reference
    /// won by [`Hold::begin_release`] is to be dropped; returns true when the
    /// client no longer holds through that reference.
    pub fn finish_release(&self, drained: bool, released: impl FnOnce()) -> bool {
        // Acquire on failure: the producer's `add` precedes our `released`
        if !drained && self.word.compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            return false; // restored: the reference stays
        }
        // drained, or the producer re-acquired with a fresh reference
        released();
        true
    }
}

#[cfg(not(loom))]
pub use imp::*;

#[cfg(not(loom))]
mod imp {
    use crate::sys::FutexMutex;
    use core::ffi::c_void;
    use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

    /// `void *(*)(void *, const void *, size_t)`: `memcpy`/`memmove`.
    pub type MemFn = unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> *mut c_void;

    /// The fast path's line: read by every inline copy, written only on
    /// idle↔busy transitions and option changes. 128-byte alignment keeps
    /// it alone on its line (and the adjacent-line prefetcher's pair) on
    /// x86-64.
    ///
    /// The instance the C entry points read is defined in their own crate
    /// and registered with [`install`]: rustc reaches another crate's static
    /// through the GOT (one more dependent load on the fast path), its own
    /// crate's statics directly.
    #[repr(C, align(128))]
    pub struct FastPath {
        /// Copies shorter than this many bytes may take the fast path (the
        /// threshold, or 0 while the gate is closed).
        pub limit: AtomicUsize,
        /// glibc's `memcpy` (resolved at init) with `engine=auto`, else the
        /// engine's copy (`engine::caller`).
        pub memcpy: AtomicPtr<()>,
        /// glibc's `memmove`, else the engine's move.
        pub memmove: AtomicPtr<()>,
        /// Copies shorter than this many bytes run right in the entry point,
        /// without the jump: `min(limit, vec_limit)` of
        /// `engine::caller::CallerCopy` (257 with AVX, vectors of 32
        /// bytes, `engine::arch::x86_64::copy_le256`; 32 without, or with
        /// `engine=erms`/`portable`), 0 while the gate is closed.
        pub inline_limit: AtomicUsize,
        /// Copies of 65 to 256 bytes use 64-byte vectors
        /// (`engine::caller::CallerCopy::wide`).
        pub wide: AtomicBool,
    }

    impl FastPath {
        /// A closed gate with the engine's copy routines.
        pub const fn new() -> Self {
            FastPath {
                limit: AtomicUsize::new(0),
                memcpy: AtomicPtr::new(fallback_memcpy as *mut ()),
                memmove: AtomicPtr::new(fallback_memmove as *mut ()),
                inline_limit: AtomicUsize::new(0),
                wide: AtomicBool::new(false),
            }
        }
    }

    impl Default for FastPath {
        fn default() -> Self {
            Self::new()
        }
    }

    static OWN: FastPath = FastPath::new();
    /// The installed instance (see [`FastPath`]).
    static FAST: AtomicPtr<FastPath> = AtomicPtr::new(&OWN as *const FastPath as *mut FastPath);
    /// Clients holding the gate (0: no task pending anywhere).
    static HOLDS: AtomicUsize = AtomicUsize::new(0);
    static OWN_PENDING: AtomicUsize = AtomicUsize::new(0);
    /// The pending word compiled programs read (see [`install_pending`]).
    static PENDING: AtomicPtr<AtomicUsize> = AtomicPtr::new(&OWN_PENDING as *const AtomicUsize as *mut AtomicUsize);

    /// Closed until the library initialized (options read).
    pub const CLOSED_INIT: u32 = 1;
    /// Closed while a checker's hooks are registered (every submit must
    /// reach `on_submit`).
    pub const CLOSED_HOOKS: u32 = 2;
    /// Closed while statistics are on (inline copies are counted).
    pub const CLOSED_STATS: u32 = 4;

    struct State {
        holds: usize,
        closed: u32,
        threshold: usize,
        /// Longest copy + 1 the entry points copy themselves.
        vec_limit: usize,
        /// This runtime's 1 is in the pending word.
        published: bool,
        /// glibc's `memcpy` and `memmove` once resolved ([`set_routines`]).
        libc: Option<(MemFn, MemFn)>,
    }

    /// Serializes every write of `FAST.limit`/`FAST.holds`, so the limit
    /// always matches the latest state (transitions are rare).
    static STATE: FutexMutex<State> =
        FutexMutex::new(State { holds: 0, closed: CLOSED_INIT, threshold: copier_abi::DEFAULT_THRESHOLD, vec_limit: 0, published: false, libc: None });

    fn update(f: impl FnOnce(&mut State)) {
        let mut s = STATE.lock();
        f(&mut s);
        publish(&mut s);
    }

    fn fast() -> &'static FastPath {
        // SAFETY: FAST only ever points at 'static instances.
        unsafe { &*FAST.load(Ordering::Acquire) }
    }

    fn publish(s: &mut State) {
        HOLDS.store(s.holds, Ordering::Release);
        // This runtime adds 1 to the pending word while it has something
        // pending, and takes it back after: a word that two runtimes of one
        // process share (two copies of libcopier bound to one symbol) is 0
        // only when neither has. Release: pairs with the compiled program's
        // Acquire load; a reader of 0 sees every copy retired before the
        // last release.
        let pending = s.holds != 0 || s.closed & CLOSED_HOOKS != 0;
        if pending != s.published {
            // SAFETY: PENDING only ever points at 'static words.
            let word = unsafe { &*PENDING.load(Ordering::Acquire) };
            if pending {
                word.fetch_add(1, Ordering::Release);
            } else {
                word.fetch_sub(1, Ordering::Release);
            }
        }
        s.published = pending;
        let lim = if s.holds == 0 && s.closed == 0 { s.threshold } else { 0 };
        // Release: pairs with the fast path's Acquire; a reader of an open
        // limit sees every copy retired before the last release.
        fast().limit.store(lim, Ordering::Release);
        fast().inline_limit.store(lim.min(s.vec_limit), Ordering::Release);
    }

    /// Make `f` the instance the gate publishes to (the C entry points' own
    /// static), copying the routines over. Call once, at init.
    pub fn install(f: &'static FastPath) {
        let mut s = STATE.lock();
        let old = fast();
        FAST.store(f as *const FastPath as *mut FastPath, Ordering::Release);
        old.limit.store(0, Ordering::Release);
        old.inline_limit.store(0, Ordering::Release);
        plan_copies(&mut s);
        publish(&mut s);
    }

    /// Apply the `engine` option's plan for the caller's copies
    /// (`engine::caller`): the size classes and the routine behind them.
    /// Published by the next limit store.
    fn plan_copies(s: &mut State) {
        let plan = crate::engine::caller::CallerCopy::current();
        s.vec_limit = if cfg!(target_arch = "x86_64") { plan.vec_limit } else { 0 };
        let (memcpy, memmove): (MemFn, MemFn) = match (plan.routine, s.libc) {
            (None, Some(libc)) => libc,
            _ => (fallback_memcpy, fallback_memmove),
        };
        let f = fast();
        f.wide.store(plan.wide, Ordering::Relaxed);
        f.memcpy.store(memcpy as *mut (), Ordering::Relaxed);
        f.memmove.store(memmove as *mut (), Ordering::Relaxed);
    }

    /// The `engine` option changed: re-plan the caller's copies.
    pub fn set_engine() {
        update(plan_copies);
    }

    /// Make `word` the pending word the gate publishes (`copier_abi::symbols::
    /// PENDING`: non-zero while a client holds the gate or a checker is
    /// registered, whose hooks must see every sync). Call once, at init.
    pub fn install_pending(word: &'static AtomicUsize) {
        let mut s = STATE.lock();
        if s.published {
            // move our contribution over
            // SAFETY: PENDING only ever points at 'static words.
            unsafe { &*PENDING.load(Ordering::Acquire) }.fetch_sub(1, Ordering::Release);
            s.published = false;
        }
        PENDING.store(word as *const AtomicUsize as *mut AtomicUsize, Ordering::Release);
        publish(&mut s);
    }

    /// One more client holds the gate.
    pub fn add_hold() {
        update(|s| s.holds += 1);
    }

    /// One client fewer holds the gate.
    pub fn sub_hold() {
        update(|s| s.holds = s.holds.saturating_sub(1));
    }

    /// Open (`on = false`) or close a `CLOSED_*` reason.
    pub fn set_closed(bit: u32, on: bool) {
        update(|s| if on { s.closed |= bit } else { s.closed &= !bit });
    }

    /// Mirror of the `threshold` option.
    pub fn set_threshold(v: usize) {
        update(|s| s.threshold = v);
    }

    /// Install the copy routines the fast path jumps to (glibc's, resolved
    /// at init).
    pub fn set_routines(memcpy: MemFn, memmove: MemFn) {
        // the limit store (Release) in `update` publishes them
        update(|s| {
            s.libc = Some((memcpy, memmove));
            plan_copies(s);
        });
    }

    /// True when no client holds the gate: no task is pending anywhere (for
    /// a caller ordered after every submit it cares about).
    #[inline(always)]
    pub fn no_holds() -> bool {
        HOLDS.load(Ordering::Acquire) == 0
    }

    /// Number of clients holding the gate (diagnostics and tests).
    pub fn holds() -> usize {
        HOLDS.load(Ordering::Acquire)
    }

    /// `pthread_atfork` prepare/parent: hold the state lock across fork.
    pub fn fork_lock(lock: bool) {
        if lock {
            STATE.raw_lock();
        } else {
            STATE.raw_unlock();
        }
    }

    /// Fork child: the lock is free again and the holds count is
    /// `holds` (recounted from the clients).
    pub fn fork_child(holds: usize) {
        STATE.reset_in_child();
        update(|s| s.holds = holds);
    }

    unsafe extern "C" fn fallback_memcpy(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void {
        // SAFETY: memcpy's contract, forwarded; overlap-safe anyway.
        unsafe { crate::engine::move_bytes(d.cast(), s.cast(), n) };
        d
    }

    unsafe extern "C" fn fallback_memmove(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void {
        // SAFETY: memmove's contract, forwarded.
        unsafe { crate::engine::move_bytes(d.cast(), s.cast(), n) };
        d
    }

    /// Process-wide asymmetric barrier (see the module docs): registered at
    /// init, when the process is still single-threaded (registration in a
    /// multi-threaded process waits for an RCU grace period, ~10 ms).
    pub mod barrier {
        use core::sync::atomic::{AtomicU8, Ordering};

        /// 0 unknown, 1 registered, 2 unavailable.
        static STATE: AtomicU8 = AtomicU8::new(0);
        const CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
        const CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

        /// Register the process for expedited private membarriers (idempotent).
        pub fn register() -> bool {
            match STATE.load(Ordering::Acquire) {
                1 => return true,
                2 => return false,
                _ => {}
            }
            // SAFETY: membarrier(2) with no pointer arguments.
            let r = unsafe { libc::syscall(libc::SYS_membarrier, CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) };
            STATE.store(if r == 0 { 1 } else { 2 }, Ordering::Release);
            r == 0
        }

        /// True when [`register`] succeeded: [`heavy`] then orders a
        /// compiler barrier of every thread (no registration attempt).
        #[inline]
        pub fn registered() -> bool {
            STATE.load(Ordering::Acquire) == 1
        }

        /// Execute a full memory barrier on every running thread of the
        /// process. False when unavailable (the caller must then assume
        /// nothing about other threads).
        pub fn heavy() -> bool {
            if STATE.load(Ordering::Acquire) != 1 {
                return false;
            }
            // SAFETY: membarrier(2) with no pointer arguments.
            unsafe { libc::syscall(libc::SYS_membarrier, CMD_PRIVATE_EXPEDITED, 0, 0) == 0 }
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::Hold;
    use crate::primitive::{AtomicU64, AtomicUsize, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    struct World {
        hold: Hold,
        /// holds count (the real one is lock-protected; RMWs order alike)
        gate: AtomicUsize,
        head: AtomicU64,
        tail: AtomicU64,
        /// the asymmetric barrier, modelled as an AcqRel RMW by both sides:
        /// whichever comes second in its modification order sees what the
        /// other did before it
        barrier: AtomicUsize,
        /// the producer's "submit returned" signal to the observer
        returned: AtomicU64,
    }

    fn ensure(w: &World) {
        w.hold.ensure(
            || {
                w.gate.fetch_add(1, Ordering::AcqRel);
            },
            || {
                w.gate.fetch_sub(1, Ordering::AcqRel);
            },
        );
    }

    fn submit(w: &World) {
        ensure(w);
        let h = w.head.load(Ordering::Relaxed);
        w.head.store(h + 1, Ordering::Release); // publish
        w.barrier.fetch_add(0, Ordering::AcqRel); // (compiler barrier + membarrier's point)
        ensure(w);
        w.returned.store(h + 1, Ordering::Release);
    }

    fn remote_release(w: &World) {
        if w.tail.load(Ordering::Acquire) != w.head.load(Ordering::Acquire) || !w.hold.begin_release() {
            return;
        }
        w.barrier.fetch_add(0, Ordering::AcqRel); // membarrier
        let drained = w.tail.load(Ordering::Acquire) == w.head.load(Ordering::Acquire);
        w.hold.finish_release(drained, || {
            w.gate.fetch_sub(1, Ordering::AcqRel);
        });
    }

    /// A producer submits two tasks (and releases its own hold when it sees
    /// them retired) while a retirer retires them and tries remote releases,
    /// and an observer that synchronized with a submit's return reads the
    /// holds count: whenever it reads 0, every task submitted before that
    /// return is retired. At the end the count equals the hold word (no
    /// reference lost or leaked).
    #[test]
    fn hold_protocol() {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(std::env::var("COPIER_LOOM_GATE_BOUND").ok().and_then(|v| v.parse().ok()).unwrap_or(3));
        b.check(|| {
            let w = Arc::new(World {
                hold: Hold::new(),
                gate: AtomicUsize::new(0),
                head: AtomicU64::new(0),
                tail: AtomicU64::new(0),
                barrier: AtomicUsize::new(0),
                returned: AtomicU64::new(0),
            });
            let wp = w.clone();
            let producer = thread::spawn(move || {
                submit(&wp);
                submit(&wp);
                // own release once drained
                if wp.tail.load(Ordering::Acquire) == wp.head.load(Ordering::Relaxed) && wp.hold.begin_release() {
                    wp.gate.fetch_sub(1, Ordering::AcqRel);
                }
            });
            let wr = w.clone();
            let retirer = thread::spawn(move || {
                for _ in 0..2 {
                    let h = wr.head.load(Ordering::Acquire);
                    if wr.tail.load(Ordering::Relaxed) < h {
                        wr.tail.store(h, Ordering::Release);
                    }
                    remote_release(&wr);
                    thread::yield_now();
                }
            });
            let wo = w.clone();
            let observer = thread::spawn(move || {
                let seen = wo.returned.load(Ordering::Acquire);
                if seen > 0 && wo.gate.load(Ordering::Acquire) == 0 {
                    assert!(wo.tail.load(Ordering::Acquire) >= seen, "gate open while a returned submit is pending");
                }
            });
            producer.join().unwrap();
            retirer.join().unwrap();
            observer.join().unwrap();
            // drain and release whatever is left, as the idle service would
            let h = w.head.load(Ordering::Acquire);
            w.tail.store(h, Ordering::Release);
            remote_release(&w);
            assert_eq!(w.gate.load(Ordering::Relaxed), 0, "references leaked or lost");
            assert!(!w.hold.held());
        });
    }
}
