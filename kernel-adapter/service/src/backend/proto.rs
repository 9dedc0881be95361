//! The user side of `/dev/copier`'s copy ring (kernel-adapter/kmod/copier/
//! README.md, "User-space protocol"), over views of the shared words so
//! that loom can check it on its own atomics.
//!
//! * **room**: the producer reuses slot `pos & (entries - 1)` only when
//!   `pos - tail < entries` (`tail` `Acquire`, paired with the module's
//!   release store after it last read the older task's entry).
//! * **publish**: reset the descriptor (`Descriptor::reset`, `pos` first),
//!   a release fence, the entry's words, then `head = pos + 1` (`Release`);
//!   a full fence, then read `waiters` (Dekker with a parking service
//!   thread, which sets `waiters`, fences, and re-reads `head`).
//! * **read** (csync's scan of pending tasks, any thread): a seqlock on the
//!   descriptor's `pos`: load it (`Acquire`), the entry's words, an acquire
//!   fence, `pos` again; equal to the position read for means the words
//!   are that task's (the producer's release fence orders its new `pos`
//!   before any word of the next task).
//! * **wait**: a segment range is done when the descriptor says so
//!   (`Descriptor::is_done`, which pairs with the executors' `Release`
//!   completion).

use crate::desc::Descriptor;
use crate::primitive::{fence, AtomicU32, AtomicU64, Ordering};

/// The ring header words user space touches (`struct copier_ring`).
pub(crate) struct RingRef<'a> {
    /// Next position the producer writes (written by user space only).
    pub head: &'a AtomicU64,
    /// Oldest position not yet retired (written by the module only).
    pub tail: &'a AtomicU64,
    /// Service threads parked on this ring (written by the module).
    pub waiters: &'a AtomicU32,
}

/// One copy slot: its entry's words (`struct copier_entry`) and descriptor.
pub(crate) struct SlotRef<'a> {
    /// The slot's descriptor.
    pub desc: &'a Descriptor,
    /// `copier_entry.dst`.
    pub dst: &'a AtomicU64,
    /// `copier_entry.src`.
    pub src: &'a AtomicU64,
    /// `copier_entry.len`.
    pub len: &'a AtomicU64,
    /// `copier_entry.handler`.
    pub handler: &'a AtomicU64,
    /// `copier_entry.arg`.
    pub arg: &'a AtomicU64,
    /// `copier_entry.flags`.
    pub flags: &'a AtomicU32,
    /// `copier_entry.region` (0: libcopier names no shared region).
    pub region: &'a AtomicU32,
}

/// A task as the producer wrote it: addresses and bytes, with its
/// segmentation (`nsegs` segments of `1 << shift` bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Task {
    /// Destination address.
    pub dst: u64,
    /// Source address.
    pub src: u64,
    /// Bytes.
    pub len: u64,
    /// `COPIER_F_*` bits.
    pub flags: u32,
    /// Segments.
    pub nsegs: u32,
    /// log2 of the segment size.
    pub shift: u32,
}

/// True when the producer may fill position `pos` of a ring of `entries`
/// slots (the module is done with the slot's previous task).
#[inline]
pub(crate) fn has_room(ring: &RingRef<'_>, pos: u64, entries: u64) -> bool {
    pos - ring.tail.load(Ordering::Acquire) < entries
}

/// Publish `t` at position `pos` (the caller is the ring's only producer
/// and checked [`has_room`]). Returns true when a service thread is parked
/// and must be woken (`COPIER_IOC_WAKE`).
pub(crate) fn publish(ring: &RingRef<'_>, slot: &SlotRef<'_>, pos: u64, t: &Task) -> bool {
    slot.desc.reset(pos, t.nsegs, t.shift, 0);
    // seqlock: the new generation before any word of the new task
    fence(Ordering::Release);
    slot.dst.store(t.dst, Ordering::Relaxed);
    slot.src.store(t.src, Ordering::Relaxed);
    slot.len.store(t.len, Ordering::Relaxed);
    slot.handler.store(0, Ordering::Relaxed);
    slot.arg.store(0, Ordering::Relaxed);
    slot.flags.store(t.flags, Ordering::Relaxed);
    slot.region.store(0, Ordering::Relaxed);
    ring.head.store(pos + 1, Ordering::Release);
    // pairs with the service's fence between `waiters = 1` and its re-read
    // of `head`: either it sees this task or this load sees it parked
    fence(Ordering::SeqCst);
    ring.waiters.load(Ordering::Relaxed) != 0
}

/// The task at position `pos`, which the caller saw published (`pos <
/// head`, `Acquire`), or `None` when the slot holds another generation
/// (the task at `pos` completed and its slot was reused).
pub(crate) fn read(slot: &SlotRef<'_>, pos: u64) -> Option<Task> {
    if slot.desc.pos() != pos {
        return None;
    }
    let t = Task {
        dst: slot.dst.load(Ordering::Relaxed),
        src: slot.src.load(Ordering::Relaxed),
        len: slot.len.load(Ordering::Relaxed),
        flags: slot.flags.load(Ordering::Relaxed),
        nsegs: slot.desc.nsegs(),
        shift: slot.desc.seg_shift(),
    };
    fence(Ordering::Acquire);
    (slot.desc.pos() == pos).then_some(t)
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    struct World {
        head: AtomicU64,
        tail: AtomicU64,
        waiters: AtomicU32,
        desc: Descriptor,
        dst: AtomicU64,
        src: AtomicU64,
        len: AtomicU64,
        handler: AtomicU64,
        arg: AtomicU64,
        flags: AtomicU32,
        region: AtomicU32,
        /// the copied byte: the module writes it before completing
        copied: AtomicU64,
    }

    impl World {
        fn new() -> Self {
            World {
                head: AtomicU64::new(0),
                tail: AtomicU64::new(0),
                waiters: AtomicU32::new(0),
                desc: Descriptor::new(),
                dst: AtomicU64::new(0),
                src: AtomicU64::new(0),
                len: AtomicU64::new(0),
                handler: AtomicU64::new(0),
                arg: AtomicU64::new(0),
                flags: AtomicU32::new(0),
                region: AtomicU32::new(0),
                copied: AtomicU64::new(0),
            }
        }
        fn ring(&self) -> RingRef<'_> {
            RingRef { head: &self.head, tail: &self.tail, waiters: &self.waiters }
        }
        fn slot(&self) -> SlotRef<'_> {
            SlotRef {
                desc: &self.desc,
                dst: &self.dst,
                src: &self.src,
                len: &self.len,
                handler: &self.handler,
                arg: &self.arg,
                flags: &self.flags,
                region: &self.region,
            }
        }
    }

    fn task(i: u64) -> Task {
        Task { dst: 10 * i + 1, src: 10 * i + 2, len: 10 * i + 3, flags: 0, nsegs: 1, shift: 12 }
    }

    /// A one-slot ring: the producer publishes task 0, then task 1 into the
    /// same slot once there is room; the module executes what it finds
    /// (reading the entry after `head`, completing, retiring); a csync
    /// scanner reads the slot for position 0 once published (reading it
    /// before, while the producer fills it, is what the loom run of an
    /// unbounded scan found torn: csync scans `tail..head` only). The module only ever reads
    /// whole tasks, the scanner never accepts a mix of two tasks' words,
    /// and a scanner that sees position 0 done sees its bytes copied.
    #[test]
    fn ring_room_publish_and_seqlock_read() {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(|| {
            let w = Arc::new(World::new());
            let wp = w.clone();
            let producer = thread::spawn(move || {
                assert!(has_room(&wp.ring(), 0, 1));
                publish(&wp.ring(), &wp.slot(), 0, &task(0));
                if has_room(&wp.ring(), 1, 1) {
                    publish(&wp.ring(), &wp.slot(), 1, &task(1));
                }
            });
            let wk = w.clone();
            let module = thread::spawn(move || {
                for _ in 0..2 {
                    let (t, h) = (wk.tail.load(Ordering::Relaxed), wk.head.load(Ordering::Acquire));
                    if t == h {
                        return;
                    }
                    let e = (wk.dst.load(Ordering::Relaxed), wk.src.load(Ordering::Relaxed), wk.len.load(Ordering::Relaxed));
                    let want = task(t);
                    assert_eq!(e, (want.dst, want.src, want.len), "the module read a slot the producer reused");
                    let (lo, hi) = wk.desc.claim_run(t, 0, 1, 64).expect("unclaimed");
                    wk.copied.store(t + 1, Ordering::Relaxed);
                    wk.desc.complete(lo, hi);
                    wk.tail.store(t + 1, Ordering::Release);
                }
            });
            let ws = w.clone();
            let scanner = thread::spawn(move || {
                // (csync scans published positions only: tail..head)
                if ws.head.load(Ordering::Acquire) > 0 {
                    if let Some(t) = read(&ws.slot(), 0) {
                        assert_eq!(t, task(0), "torn read of position 0");
                    }
                }
                if ws.desc.pos() == 0 && ws.desc.is_done(0, 0, 1) {
                    assert!(ws.copied.load(Ordering::Relaxed) >= 1, "done before the bytes");
                }
            });
            producer.join().unwrap();
            module.join().unwrap();
            scanner.join().unwrap();
        });
    }

    /// Wake-up: the producer publishes and reads `waiters`; the service
    /// parks (sets `waiters`, a full fence, re-reads `head`). Never both
    /// miss: a parked service with the task unseen is always woken.
    #[test]
    fn publish_never_misses_a_parked_service() {
        loom::model(|| {
            let w = Arc::new(World::new());
            let wp = w.clone();
            let producer = thread::spawn(move || publish(&wp.ring(), &wp.slot(), 0, &task(0)));
            let ws = w.clone();
            let service = thread::spawn(move || {
                ws.waiters.store(1, Ordering::Relaxed);
                fence(Ordering::SeqCst);
                ws.head.load(Ordering::Acquire) != 0
            });
            let woken = producer.join().unwrap();
            let saw = service.join().unwrap();
            assert!(woken || saw, "lost wake-up");
        });
    }
}
