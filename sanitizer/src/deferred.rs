//! Hook events that arrive where the sanitizer must neither lock nor
//! allocate: a signal handler that interrupted the sanitizer itself (which
//! may hold the tracker lock) or the program's allocator (glibc's malloc is
//! not async-signal-safe; its interceptors mark the thread as inside the
//! runtime). A hook that finds [`crate::thread::in_runtime`] true puts its
//! event into [`LOG`], a fixed, preallocated lock-free queue; whoever takes
//! the tracker lock next, on any thread ([`crate::lock_tracker`]), applies
//! the queued events in order before its own ([`drain`]), so the tracker
//! ends as if each had been applied where it happened.
//!
//! Until then, the bytes of a queued copy are already pending in the shadow
//! ([`crate::shadow::mark`]) and counted in [`crate::LIVE`]: an access that
//! meets them takes the report path, which drains the queue first, so a
//! read of the copy's destination before its `csync` is reported and one
//! after it is not (the shadow may still show bits that queued events
//! release; only the tracker decides a report). Accesses in such a handler
//! are not checked (reporting locks and allocates).
//!
//! A full queue: a submit is copied at once, before libcopier sees it (the
//! copy is then complete whenever the program looks), and not tracked; a
//! lost sync, wait or handle binding makes the next drain release every
//! pending copy (reports can be missed after it, never made falsely).

use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering::{Acquire, Relaxed, Release}};

use crate::mapping::{DST_BITS, SRC_BITS};
use crate::shadow::{self, RealShadow, ShadowMem};
use crate::tracker::{Origin, Tracker};
use crate::{flags, stack, thread, LIVE, PROGRAM_LIVE};

/// Events the queue holds.
pub const CAPACITY: usize = 512;

/// Submit frames kept per queued copy (the default `copy_stack_depth`).
pub const STACK: usize = 48;

/// One hook call, as the hooks would have applied it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// `on_submit`: copy `id` of `len` bytes from `src` to `dst` by
    /// `thread`, with `depth` frames of its submit stack.
    Submit {
        /// Copy number.
        id: u64,
        /// Destination.
        dst: usize,
        /// Source.
        src: usize,
        /// Bytes.
        len: usize,
        /// Submit flags.
        flags: u32,
        /// Submitting thread.
        thread: u32,
        /// Who submitted it.
        origin: Origin,
        /// Frames of the queued stack.
        depth: usize,
    },
    /// `on_handle`: descriptor `handle` names copy `copy`.
    Handle {
        /// Copy number.
        copy: u64,
        /// Descriptor handle.
        handle: u64,
    },
    /// `on_sync` by `thread` (`every`: inside a completion handler, which
    /// completes every thread's copies).
    Sync {
        /// Start.
        addr: usize,
        /// Bytes.
        len: usize,
        /// Syncing thread.
        thread: u32,
        /// Every thread's copies, not only `thread`'s.
        every: bool,
    },
    /// `on_wait`.
    Wait {
        /// Descriptor handle.
        handle: u64,
        /// Offset in the copy.
        offset: usize,
        /// Bytes.
        len: usize,
    },
    /// `on_submitted` of copy `copy`.
    Published {
        /// Copy number.
        copy: u64,
    },
    /// `on_sync_all` of a `csync_all` that began at publication place
    /// `upto` ([`crate::tracker::Tracker::sync_all_upto`]).
    SyncAll {
        /// The place.
        upto: u64,
    },
}

struct Slot {
    /// Vyukov's sequence number less the slot's index: `lap * CAPACITY`
    /// while free for the producer of lap `lap`, one more once it holds
    /// that lap's event.
    seq: AtomicUsize,
    /// Written by the slot's producer before it publishes.
    event: UnsafeCell<MaybeUninit<Event>>,
    stack: UnsafeCell<[usize; STACK]>,
}

/// A bounded multi-producer queue with one consumer: Dmitry Vyukov's
/// bounded MPMC queue (1024cores.net, "Bounded MPMC queue"; crossbeam's
/// `ArrayQueue` is the same algorithm) with its consumer side used by one
/// thread at a time. Producers claim a slot by a compare-and-swap on `tail`
/// and publish it by its sequence number, so a producer interrupted between
/// the two by a handler that produces too (same thread) only delays the
/// consumer, which stops at the first unpublished slot and never waits.
/// Positions count up without wrapping (2^64 events); position `p` is slot
/// `p % CAPACITY` of lap `p - p % CAPACITY`.
pub struct Log {
    /// Next position a producer claims.
    tail: AtomicUsize,
    /// Next position to consume; only the consumer touches it.
    head: AtomicUsize,
    /// An event found the queue full.
    lost: AtomicBool,
    slots: [Slot; CAPACITY],
}

// SAFETY: 1. a slot's cells are written only by the producer that claimed
// its position (the compare-and-swap on `tail` hands each position to one
// producer), before that producer's `Release` store of `seq`; 2. they are
// read only by the consumer (one at a time: `pop`'s contract) after its
// `Acquire` load saw that store; 3. the consumer's `Release` store of `seq`
// hands the slot back, and a producer of the next lap claims it only after
// its `Acquire` load saw that store.
unsafe impl Sync for Log {}

impl Log {
    /// An empty queue.
    pub const fn new() -> Self {
        Self {
            tail: AtomicUsize::new(0),
            head: AtomicUsize::new(0),
            lost: AtomicBool::new(false),
            slots: [const { Slot { seq: AtomicUsize::new(0), event: UnsafeCell::new(MaybeUninit::uninit()), stack: UnsafeCell::new([0; STACK]) } }; CAPACITY],
        }
    }

    /// Claim a slot, let `fill` write the event (which starts as
    /// [`Event::SyncAll`]) and its stack, publish it. False (and `fill` not
    /// called) if the queue is full. Lock-free, allocation-free, reentrant.
    pub fn push(&self, fill: impl FnOnce(&mut Event, &mut [usize; STACK])) -> bool {
        let mut pos = self.tail.load(Relaxed);
        let (slot, lap) = loop {
            let i = pos % CAPACITY;
            let slot = &self.slots[i];
            let lap = pos - i;
            // (Acquire: pairs with the consumer's release of the slot)
            let seq = slot.seq.load(Acquire);
            if seq == lap {
                // free for this lap: claim `pos` (tail moves to `pos + 1`),
                // or learn the tail another producer moved it to
                match self.tail.compare_exchange_weak(pos, pos + 1, Relaxed, Relaxed) {
                    Ok(_) => break (slot, lap),
                    Err(now) => pos = now,
                }
            } else if seq < lap {
                // still holds the previous lap's event: the queue is full
                return false;
            } else {
                // claimed already (this lap): another producer moved tail
                pos = self.tail.load(Relaxed);
            }
        };
        // SAFETY: this producer claimed the slot (see `impl Sync`, 1).
        unsafe { fill((*slot.event.get()).write(Event::SyncAll { upto: 0 }), &mut *slot.stack.get()) };
        // published: the consumer's Acquire load pairs with this
        slot.seq.store(lap + 1, Release);
        true
    }

    /// Hand the oldest published event to `apply`, then free its slot;
    /// false if there is none (or the oldest is still being written).
    ///
    /// # Safety
    /// No other thread pops from this queue at the same time (the process's
    /// queue is popped under the tracker lock).
    pub unsafe fn pop(&self, apply: impl FnOnce(&Event, &[usize; STACK])) -> bool {
        let pos = self.head.load(Relaxed);
        let i = pos % CAPACITY;
        let slot = &self.slots[i];
        let lap = pos - i;
        if slot.seq.load(Acquire) != lap + 1 {
            return false;
        }
        // SAFETY: 1. published by its producer, which wrote the event; 2.
        // not handed back yet, and no other consumer runs (contract).
        unsafe { apply((*slot.event.get()).assume_init_ref(), &*slot.stack.get()) };
        // free for the next lap's producer, whose Acquire load pairs with this
        slot.seq.store(lap + CAPACITY, Release);
        self.head.store(pos + 1, Relaxed);
        true
    }

    /// True if an event may be queued (one load of each end).
    #[inline(always)]
    pub fn pending(&self) -> bool {
        self.head.load(Relaxed) != self.tail.load(Relaxed) || self.lost.load(Relaxed)
    }

    /// Queue `ev`; when full, remember that an event was lost.
    pub fn record(&self, ev: Event) {
        if !self.push(|e, _| *e = ev) {
            self.lost.store(true, Relaxed);
        }
    }

    /// Publish each position claimed but not yet published as an event that
    /// changes nothing, and count it lost (the next drain releases every
    /// pending copy): in a `fork` child, whose producers of those claims
    /// are gone ([`crate::fork`]).
    ///
    /// # Safety
    /// As [`Log::pop`], and no producer of a claimed position runs any more.
    pub unsafe fn abandon_claims(&self) {
        for pos in self.head.load(Relaxed)..self.tail.load(Relaxed) {
            let i = pos % CAPACITY;
            let slot = &self.slots[i];
            let lap = pos - i;
            if slot.seq.load(Acquire) != lap + 1 {
                // SAFETY: claimed, unpublished, and its producer is gone
                // (contract): nobody else touches the slot.
                unsafe { (*slot.event.get()).write(Event::SyncAll { upto: 0 }) };
                slot.seq.store(lap + 1, Release);
                self.lost.store(true, Relaxed);
            }
        }
    }

    /// Apply every published event to `t` in order; if one was lost,
    /// release every pending copy. Returns the submits applied, and how
    /// many of them were the program's own.
    ///
    /// # Safety
    /// As [`Log::pop`].
    pub unsafe fn drain<S: ShadowMem>(&self, t: &mut Tracker<S>) -> (usize, usize) {
        let mut n = (0, 0);
        // SAFETY: forwarded contract.
        while unsafe {
            self.pop(|ev, stack| {
                if let Event::Submit { origin, .. } = ev {
                    n.0 += 1;
                    n.1 += usize::from(*origin == Origin::Program);
                }
                apply(t, ev, stack);
            })
        } {}
        if self.lost.swap(false, Relaxed) {
            t.sync_all();
        }
        n
    }
}

impl Default for Log {
    fn default() -> Self {
        Self::new()
    }
}

/// The process's queue.
pub static LOG: Log = Log::new();

/// Apply one queued event as its hook would have.
fn apply<S: ShadowMem>(t: &mut Tracker<S>, ev: &Event, stack: &[usize; STACK]) {
    match *ev {
        Event::Submit { id, dst, src, len, flags, thread, origin, depth } => {
            let stack: Box<[usize]> = stack[..depth].into();
            if crate::hooks::overlaps(dst, src, len, flags) {
                crate::report::overlap(dst, src, len, flags, id, thread, stack.clone(), (origin == Origin::CopierGen).then_some("memcpy"));
            }
            t.submit_as(id, dst, src, len, flags, thread, stack, origin);
        }
        Event::Handle { copy, handle } => t.bind_handle(copy, handle),
        Event::Sync { addr, len, thread, every } => {
            if every {
                t.sync(addr, len);
            } else {
                t.sync_thread(addr, len, thread);
            }
        }
        Event::Wait { handle, offset, len } => {
            t.wait(handle, offset, len);
        }
        Event::Published { copy } => t.mark_published(copy, crate::hooks::next_published()),
        Event::SyncAll { upto } => t.sync_all_upto(upto),
    }
}

/// Apply the queued events to the process's tracker, which the caller
/// holds locked (in a context where it may allocate).
#[inline(always)]
pub(crate) fn drain(t: &mut Tracker<RealShadow>) {
    if LOG.pending() {
        drain_slow(t);
    }
}

#[cold]
#[inline(never)]
fn drain_slow(t: &mut Tracker<RealShadow>) {
    // SAFETY: the caller holds the tracker lock, under which alone the
    // process's queue is drained.
    let (submits, program) = unsafe { LOG.drain(t) };
    // the tracker counts them now: publish, then drop the queue's count
    // (never below the true count meanwhile)
    crate::publish(t);
    LIVE.fetch_sub(submits, Relaxed);
    PROGRAM_LIVE.fetch_sub(program, Relaxed);
}

/// Queue the submit of copy `id` (numbered by the caller; its ranges have
/// shadow) and mark its bytes pending; returns `id`. When the queue is
/// full, copies the bytes at once instead and returns 0 (not tracked).
pub(crate) fn submit(id: u64, dst: usize, src: usize, len: usize, flags: u32, origin: Origin) -> u64 {
    let thread = thread::current();
    let depth = flags::get().copy_stack_depth.min(STACK);
    let queued = LOG.push(|ev, frames| {
        // counted before the consumer can see it (and uncount it)
        LIVE.fetch_add(1, Relaxed);
        if origin == Origin::Program {
            PROGRAM_LIVE.fetch_add(1, Relaxed);
        }
        shadow::mark(&RealShadow, dst, len, DST_BITS);
        shadow::mark(&RealShadow, src, len, SRC_BITS);
        let depth = stack::capture_into(&mut frames[..depth]);
        *ev = Event::Submit { id, dst, src, len, flags, thread, origin, depth };
    });
    if queued {
        return id;
    }
    // SAFETY: the program's amemcpy contract: both ranges are valid for
    // `len` bytes (libcopier copies them again, the same bytes, after this
    // returns); `copy` is memmove, so any overlap is fine.
    unsafe { core::ptr::copy(src as *const u8, dst as *mut u8, len) };
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shadow::{state, TestShadow};

    const BASE: usize = 0x10_0000;

    fn submit_ev(id: u64, dst: usize, src: usize, len: usize, thread: u32) -> Event {
        Event::Submit { id, dst, src, len, flags: 0, thread, origin: Origin::Program, depth: 0 }
    }

    /// Events come out in the order they went in, across many laps, and a
    /// full queue refuses an event without overwriting one.
    #[test]
    fn fifo_across_laps_and_full() {
        let log = Box::new(Log::new());
        let mut next_in = 0u64;
        let mut next_out = 0u64;
        for round in 0..5 {
            let n = if round % 2 == 0 { CAPACITY } else { 100 };
            for _ in 0..n {
                let id = next_in;
                assert!(log.push(|e, s| {
                    *e = Event::Handle { copy: id, handle: id + 1 };
                    s[0] = id as usize;
                }));
                next_in += 1;
            }
            if n == CAPACITY {
                assert!(!log.push(|_, _| unreachable!("filled a slot of a full queue")), "a full queue took an event");
            }
            // SAFETY: the test is the queue's only consumer.
            while unsafe {
                log.pop(|e, s| {
                    assert_eq!(*e, Event::Handle { copy: next_out, handle: next_out + 1 });
                    assert_eq!(s[0], next_out as usize);
                })
            } {
                next_out += 1;
            }
            assert_eq!(next_out, next_in);
            assert!(!log.pending());
        }
    }

    /// A slot claimed but not yet published (a producer interrupted by a
    /// signal handler that produces too) stops the consumer until it is
    /// published; the handler's later event then follows it.
    #[test]
    fn consumer_stops_at_an_unpublished_slot() {
        let log = Box::new(Log::new());
        let mut popped = Vec::new();
        assert!(log.push(|outer, _| {
            // the "handler": runs while the outer slot is claimed
            assert!(log.push(|inner, _| *inner = Event::SyncAll { upto: 3 }));
            // SAFETY: the test is the queue's only consumer.
            assert!(!unsafe { log.pop(|_, _| unreachable!("consumed past an unpublished slot")) });
            *outer = Event::Handle { copy: 1, handle: 2 };
        }));
        // SAFETY: the test is the queue's only consumer.
        while unsafe { log.pop(|e, _| popped.push(*e)) } {}
        assert_eq!(popped, [Event::Handle { copy: 1, handle: 2 }, Event::SyncAll { upto: 3 }]);
    }

    /// Replaying a submit and a sync queued by a handler leaves the tracker
    /// as if the hooks had run at once; a copy queued without its sync
    /// stays pending with its number and stack.
    #[test]
    fn drain_applies_events_in_order() {
        let mut t = Tracker::new(TestShadow::new(BASE, 4096));
        let log = Box::new(Log::new());
        t.submit(BASE + 2048, BASE + 3072, 64, 0, 0, Box::new([])).unwrap(); // copy 1, live
        log.record(submit_ev(2, BASE, BASE + 1024, 256, 0));
        log.record(Event::Sync { addr: BASE, len: 256, thread: 0, every: false });
        assert!(log.push(|e, s| {
            s[..2].copy_from_slice(&[0x1234, 0x5678]);
            *e = Event::Submit { id: 3, dst: BASE + 512, src: BASE + 1536, len: 100, flags: 0, thread: 0, origin: Origin::Program, depth: 2 };
        }));
        // SAFETY: the test is the queue's only consumer.
        unsafe { log.drain(&mut t) };
        assert_eq!(t.len(), 2);
        assert!(t.get(2).is_none(), "the queued sync released the queued copy");
        let c = t.get(3).expect("queued copy without its sync stays pending");
        assert_eq!(&c.stack[..], &[0x1234, 0x5678]);
        assert_eq!(state(&t.shadow, BASE + 600), DST_BITS);
        assert_eq!(state(&t.shadow, BASE + 10), 0);
        assert_eq!(t.submit(BASE + 4000, BASE + 3900, 8, 0, 0, Box::new([])), Some(4), "later copies numbered after it");
    }

    /// A slot whose producer is gone (a fork child; here a producer that
    /// panicked) is published as lost by `abandon_claims`: the events after
    /// it are applied, then every copy is released.
    #[test]
    fn abandoned_claim_is_lost_not_stuck() {
        let mut t = Tracker::new(TestShadow::new(BASE, 4096));
        let log = Box::new(Log::new());
        t.submit(BASE, BASE + 1024, 64, 0, 0, Box::new([])).unwrap();
        let gone = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| log.push(|_, _| panic!("producer gone"))));
        assert!(gone.is_err());
        log.record(submit_ev(2, BASE + 2048, BASE + 3072, 64, 0));
        // SAFETY: the test is the queue's only consumer.
        unsafe { log.drain(&mut t) };
        assert!(t.get(2).is_none(), "applied past an unpublished slot");
        // SAFETY: as above; the panicked producer no longer runs.
        unsafe {
            log.abandon_claims();
            log.drain(&mut t);
        }
        assert!(t.is_empty(), "the lost event released every copy");
        assert!(!log.pending());
    }

    /// A lost event (full queue) makes the drain release every copy: a sync
    /// that was lost cannot leave its copy pending for a false report.
    #[test]
    fn lost_event_releases_everything() {
        let mut t = Tracker::new(TestShadow::new(BASE, 4096));
        let log = Box::new(Log::new());
        t.submit(BASE, BASE + 1024, 64, 0, 0, Box::new([])).unwrap();
        while log.push(|e, _| *e = Event::Wait { handle: 99, offset: 0, len: 1 }) {}
        log.record(Event::Sync { addr: BASE, len: 64, thread: 0, every: false });
        assert!(log.pending());
        // SAFETY: the test is the queue's only consumer.
        unsafe { log.drain(&mut t) };
        assert!(t.is_empty());
        assert_eq!(state(&t.shadow, BASE), 0);
        assert!(!log.pending());
    }
}
