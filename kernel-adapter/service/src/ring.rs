//! Per-thread bounded copy queue: a single-producer ring of task slots
//! (Lamport's SPSC ring buffer, as in the article's copy queue and in seed 003's
//! shared-memory SPSC ring; index layout after crossbeam's `ArrayQueue`).
//!
//! Three monotonically increasing 64-bit positions (a slot is `pos & mask`,
//! the lap is `pos >> log2(cap)`, so a position is also the generation of the
//! task in its slot):
//! * `head` — next position the producer (the owning client thread) writes;
//!   written only by the producer, `Release` after the slot's fields.
//! * `ingested` — next position the consumer (whoever holds the tracker
//!   lock) reads; consumers are serialized by that lock, so the ring is SPSC.
//! * `tail` — oldest position not yet retired; slots below it are free. A
//!   task is retired once complete, so the ring bounds the number of
//!   *outstanding* tasks of a thread, not just queued ones: a full ring makes
//!   the producer fall back to a synchronous copy.
//!
//! `head` and `tail` sit on separate cache lines (`CachePadded`, whose line
//! size per architecture is documented in crossbeam-utils) so the producer and
//! retirers do not false-share. The producer caches `tail` to avoid reading
//! the retirers' line on every push.

use crate::primitive::{AtomicU64, Ordering};
use crossbeam_utils::CachePadded;

/// A bounded single-producer ring of `T` slots.
pub struct Ring<T> {
    head: CachePadded<AtomicU64>,
    /// Producer-private copy of `tail` (only the producer touches it).
    tail_cache: CachePadded<AtomicU64>,
    tail: CachePadded<AtomicU64>,
    /// Own line: the consumer writes it at every ingest, and `mask` and
    /// `slots` beside it are read by every push.
    ingested: CachePadded<AtomicU64>,
    mask: u64,
    slots: Box<[T]>,
}

impl<T> Ring<T> {
    /// A ring of `cap` slots built by `make` (`cap` is rounded up to a power of
    /// two, at least 2).
    pub fn new(cap: usize, make: impl FnMut() -> T) -> Self {
        let cap = cap.max(2).next_power_of_two();
        let mut make = make;
        Ring {
            head: CachePadded::new(AtomicU64::new(0)),
            tail_cache: CachePadded::new(AtomicU64::new(0)),
            tail: CachePadded::new(AtomicU64::new(0)),
            ingested: CachePadded::new(AtomicU64::new(0)),
            mask: cap as u64 - 1,
            slots: (0..cap).map(|_| make()).collect(),
        }
    }

    /// Slot count.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// The slot that position `pos` maps to.
    #[inline]
    pub fn slot(&self, pos: u64) -> &T {
        &self.slots[(pos & self.mask) as usize]
    }

    /// Producer only: the next free position, or `None` when the ring is full
    /// (every slot holds a task that is not retired yet). The caller fills
    /// `slot(pos)` and then calls [`Ring::publish`].
    #[inline]
    pub fn reserve(&self) -> Option<u64> {
        let head = self.head.load(Ordering::Relaxed);
        let cap = self.mask + 1;
        if head - self.tail_cache.load(Ordering::Relaxed) >= cap {
            // Acquire pairs with the retirer's Release in `set_tail`: the slot's
            // previous task is fully retired before we overwrite it.
            let tail = self.tail.load(Ordering::Acquire);
            self.tail_cache.store(tail, Ordering::Relaxed);
            if head - tail >= cap {
                return None;
            }
        }
        Some(head)
    }

    /// Producer only: position `pos + k`, if its slot is free by the
    /// producer's cached view of `tail` (its last task retired), else
    /// `None`. For prefetching the slot a later push fills.
    #[inline]
    pub fn free_ahead(&self, pos: u64, k: u64) -> Option<u64> {
        let p = pos + k;
        (p - self.tail_cache.load(Ordering::Relaxed) < self.mask + 1).then_some(p)
    }

    /// Producer only: make position `pos` (from [`Ring::reserve`]) visible to
    /// the consumer. `Release` pairs with the `Acquire` in [`Ring::head`].
    #[inline]
    pub fn publish(&self, pos: u64) {
        self.head.store(pos + 1, Ordering::Release);
    }

    /// Positions below the returned value are published.
    #[inline]
    pub fn head(&self) -> u64 {
        self.head.load(Ordering::Acquire)
    }

    /// Next position to ingest. `Acquire` pairs with [`Ring::set_ingested`]:
    /// what the ingest of the positions below wrote is visible (the
    /// producer's lock-free csync reads it).
    #[inline]
    pub fn ingested(&self) -> u64 {
        self.ingested.load(Ordering::Acquire)
    }

    /// Consumer (serialized): record that positions below `pos` are ingested.
    #[inline]
    pub fn set_ingested(&self, pos: u64) {
        self.ingested.store(pos, Ordering::Release);
    }

    /// Oldest position not retired yet.
    #[inline]
    pub fn tail(&self) -> u64 {
        self.tail.load(Ordering::Acquire)
    }

    /// Retirer (serialized): free the slots below `pos`. `Release` pairs with
    /// the producer's `Acquire` in [`Ring::reserve`] and with `csync`'s
    /// nothing-pending check.
    #[inline]
    pub fn set_tail(&self, pos: u64) {
        self.tail.store(pos, Ordering::Release);
    }

    /// Fork child only: the parent's producer may have been interrupted, and
    /// the producer cache must agree with `tail`.
    pub fn resync_producer(&self) {
        self.tail_cache.store(self.tail.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use core::sync::atomic::AtomicUsize;

    #[test]
    fn free_ahead_only_names_free_slots() {
        let r: Ring<AtomicUsize> = Ring::new(8, || AtomicUsize::new(0));
        // empty ring: every slot up to a lap ahead is free
        assert_eq!(r.free_ahead(0, 7), Some(7));
        assert_eq!(r.free_ahead(0, 8), None, "a lap ahead is slot 0 itself");
        for _ in 0..6 {
            let p = r.reserve().unwrap();
            r.publish(p);
        }
        // 6 outstanding, none retired: position 6 + 2 = 8 maps to slot 0,
        // which still holds task 0
        assert_eq!(r.free_ahead(5, 2), Some(7));
        assert_eq!(r.free_ahead(6, 2), None);
        r.set_ingested(6);
        r.set_tail(3);
        // the producer's cached tail moves on at its next full check only
        assert_eq!(r.free_ahead(6, 2), None);
        while r.reserve().is_some_and(|p| {
            r.publish(p);
            true
        }) {}
        assert_eq!(r.head(), 11, "3 more fit after tail 3");
        assert_eq!(r.free_ahead(10, 1), None, "ring full");
    }

    #[test]
    fn bounded_fifo_and_reuse() {
        let r: Ring<AtomicUsize> = Ring::new(3, || AtomicUsize::new(0));
        assert_eq!(r.capacity(), 4);
        for i in 0..4 {
            let p = r.reserve().unwrap();
            assert_eq!(p, i);
            r.slot(p).store(i as usize * 10, Ordering::Relaxed);
            r.publish(p);
        }
        assert_eq!(r.reserve(), None, "full: 4 outstanding");
        assert_eq!(r.head(), 4);
        r.set_ingested(4);
        r.set_tail(1);
        let p = r.reserve().unwrap();
        assert_eq!(p, 4);
        assert_eq!(r.slot(p).load(Ordering::Relaxed), 0, "slot 0 reused");
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::primitive::AtomicUsize;
    use loom::sync::Arc;
    use loom::thread;

    /// Producer pushes 3 payloads through a 2-slot ring while a consumer
    /// ingests and retires them: FIFO order, no loss, no overwrite of an
    /// unretired slot, and the consumer always sees the payload written before
    /// `publish`.
    #[test]
    fn spsc_ring() {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(|| {
            let r: Arc<Ring<AtomicUsize>> = Arc::new(Ring::new(2, || AtomicUsize::new(0)));
            let r2 = r.clone();
            let prod = thread::spawn(move || {
                for v in 1..=3usize {
                    let pos = loop {
                        if let Some(p) = r2.reserve() {
                            break p;
                        }
                        loom::thread::yield_now();
                    };
                    r2.slot(pos).store(v, Ordering::Relaxed);
                    r2.publish(pos);
                }
            });
            let mut seen = Vec::new();
            while seen.len() < 3 {
                let head = r.head();
                let mut pos = r.ingested();
                while pos < head {
                    seen.push(r.slot(pos).load(Ordering::Relaxed));
                    pos += 1;
                }
                r.set_ingested(pos);
                r.set_tail(pos); // retire at once
                loom::thread::yield_now();
            }
            prod.join().unwrap();
            assert_eq!(seen, vec![1, 2, 3]);
        });
    }

    /// The producer's lock-free csync (`service::csync`, `own_pending_only`) reads
    /// what an ingest recorded about its tasks (the `FLAG_ABSORBS` bit and
    /// the redirects) once `ingested` covers them: the consumer publishes
    /// with `set_ingested` after writing, so a reader that sees the new
    /// position sees the payload.
    #[test]
    fn ingested_publishes_what_the_ingest_wrote() {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(|| {
            let r: Arc<Ring<AtomicUsize>> = Arc::new(Ring::new(2, || AtomicUsize::new(0)));
            let p = r.reserve().unwrap();
            r.publish(p);
            let r2 = r.clone();
            let consumer = thread::spawn(move || {
                // the ingest's record (the redirect and its flag)
                r2.slot(0).store(0xa, Ordering::Relaxed);
                r2.set_ingested(1);
            });
            if r.ingested() == r.head() {
                assert_eq!(r.slot(0).load(Ordering::Relaxed), 0xa, "ingest record not visible");
            }
            consumer.join().unwrap();
        });
    }
}
