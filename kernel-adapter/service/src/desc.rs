//! Task descriptors: the per-segment completion state of one copy task
//! (article §"基于队列的核心抽象设计": a task is split into fixed-size segments
//! and its descriptor records each segment's completion in a bitmap; DESIGN.md
//! "segment").
//!
//! # Protocol
//! A descriptor lives in a ring slot and is reused by later tasks; `pos` (the
//! ring position of the task that occupies it) is its generation.
//!
//! * **claim** (`claimed` bitmap): an executor (the service thread or a
//!   `csync` caller that helps) sets claim bits with `fetch_or` and owns the
//!   segments whose bits were clear. It then re-reads `pos`
//!   (claim-then-validate): if the slot was reused, it gives the bits back and
//!   treats the old task as complete. This is sound because a slot is reused
//!   only after every segment of its task is done, and done implies claimed,
//!   so a stale `fetch_or` either finds its bit already set (before the reset)
//!   or reads the reset store, which is `Release` after the new `pos` store.
//! * **complete** (`done` bitmap, `prefix`, `done_count`): the owner copies,
//!   then sets the done bits (`Release`, pairs with the `Acquire` loads of
//!   waiters so the copied bytes are visible), advances the completed-prefix
//!   counter (CAS loop; any completer may advance it past segments others
//!   finished), and adds to `done_count`. The completer whose addition makes
//!   `done_count == nsegs` is the unique retirer of the task.
//! * **fault**: an executor whose copy faulted sets `FAULTED` and gives its
//!   claim back; the service then skips the task, and a waiter re-executes
//!   the segment with a plain copy on its own thread (it faults there exactly
//!   as `memcpy` would).
//!
//! Invariants: `done ⊆ claimed`; `prefix` never exceeds the first clear done
//! bit; a segment's done bit is set once per task. Bitmap words past the
//! current task's `nsegs` are stale (a reset clears only the words its task
//! uses): every reader bounds its word index by `nsegs`, and a reader whose
//! task may have moved on re-validates `pos` before acting on what it read.

use crate::primitive::{AtomicU32, AtomicU64, Ordering};
use copier_abi::uapi;

/// Most segments one task may have (bits per bitmap). Tasks longer than
/// `MAX_SEGS` segments of the configured size use a larger segment size
/// (`seg_shift` grows), so a descriptor is a fixed 2×128 bytes of bitmaps.
pub const MAX_SEGS: usize = uapi::COPIER_MAX_SEGS as usize;
const WORDS: usize = uapi::COPIER_BITMAP_WORDS as usize;

/// `flags` bit: the copy of some segment faulted on an executor thread.
pub const FAULTED: u32 = uapi::COPIER_D_FAULTED;
/// `flags` bit: the tracker has ingested the task (edges are computed).
pub const INGESTED: u32 = uapi::COPIER_D_INGESTED;
/// `flags` bit: the task's segments have no pending dependencies left.
pub const DEPS_CLEAR: u32 = uapi::COPIER_D_DEPS_CLEAR;
/// `flags` bit: the task was retired (removed from the tracker).
pub const RETIRED: u32 = uapi::COPIER_D_RETIRED;
/// `flags` bit: a lazy task dropped unexecuted (its destination was
/// overwritten first); not counted as an executed task.
pub const DROPPED: u32 = uapi::COPIER_D_DROPPED;
/// `flags` bit: the task finished with a fault. Its fault was delivered to a
/// waiting thread that left the runtime by `siglongjmp` (the program
/// recovered from it, as from a faulting `memcpy`); its remaining segments
/// are completed without copying, so it retires, releases its dependents
/// and is never re-executed or re-raised. Set together with [`FAULTED`].
pub const FAILED: u32 = uapi::COPIER_D_FAILED;

/// Per-task segment state; see the module docs for the protocol.
///
/// The layout of `struct copier_desc` (`include/linux/copier.h`) with each
/// field atomic, checked field by field at compile time against the
/// bindgen struct (`uapi::copier_desc`). The header, then word 0 of both
/// bitmaps, fill the first 48 bytes, so the producer's
/// [`Descriptor::reset`] of a task of up to 64 segments writes one cache
/// line.
#[repr(C)]
pub struct Descriptor {
    /// Generation: ring position of the task in this slot (`u64::MAX` when the
    /// slot never held one).
    pos: AtomicU64,
    nsegs: AtomicU32,
    seg_shift: AtomicU32,
    flags: AtomicU32,
    /// Number of leading segments that are done (completed-prefix counter).
    prefix: AtomicU32,
    /// Number of done segments; reaching `nsegs` elects the retirer.
    done_count: AtomicU32,
    /// `copier_desc.error`: 0 here (copier.ko writes it for region tasks only).
    error: AtomicU32,
    /// Claim and done bitmaps, word by word, interleaved so that a task of
    /// up to 64 segments (the common case) keeps its whole state in the
    /// descriptor's first cache line (see `Entry`'s layout).
    words: [Words; WORDS],
}

/// One word of each bitmap: segments `[64 w, 64 w + 64)`
/// (`struct copier_desc_words`).
#[repr(C)]
struct Words {
    claimed: AtomicU64,
    done: AtomicU64,
}

// The header's layout, field by field (loom's atomics are larger: the model
// checks the protocol, not the layout).
#[cfg(not(loom))]
crate::layout::same_layout!(Descriptor = uapi::copier_desc { pos, nsegs, seg_shift, flags, prefix, done_count, error, words });
#[cfg(not(loom))]
crate::layout::same_layout!(Words = uapi::copier_desc_words { claimed, done });

fn word_mask(lo: u32, hi: u32) -> u64 {
    // bits [lo, hi) of one word, 0 <= lo < hi <= 64
    let width = hi - lo;
    let m = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    m << lo
}

impl Default for Descriptor {
    fn default() -> Self {
        Self::new()
    }
}

impl Descriptor {
    /// An empty descriptor (no task).
    pub fn new() -> Self {
        Descriptor {
            pos: AtomicU64::new(u64::MAX),
            nsegs: AtomicU32::new(0),
            seg_shift: AtomicU32::new(0),
            flags: AtomicU32::new(0),
            prefix: AtomicU32::new(0),
            done_count: AtomicU32::new(0),
            error: AtomicU32::new(0),
            words: core::array::from_fn(|_| Words { claimed: AtomicU64::new(0), done: AtomicU64::new(0) }),
        }
    }

    /// Producer side: make the descriptor describe a new task at ring
    /// position `pos` with `nsegs` segments of `1 << seg_shift` bytes.
    ///
    /// # Panics
    /// If `nsegs` is 0 or exceeds [`MAX_SEGS`].
    pub fn reset(&self, pos: u64, nsegs: u32, seg_shift: u32, flags: u32) {
        assert!(nsegs >= 1 && nsegs as usize <= MAX_SEGS);
        let new_words = (nsegs as usize).div_ceil(64);
        // New generation first: a stale claim that reads the reset below
        // (Release) also sees this store and backs off.
        self.pos.store(pos, Ordering::Release);
        // Only the task's own words: words past them keep an older task's
        // bits, which nothing reads (every access is bounded by `nsegs`), and
        // the producer never loads the previous `nsegs` (a line the executors
        // wrote last: a cache miss on the submit path).
        for w in 0..new_words {
            self.words[w].claimed.store(0, Ordering::Release);
            self.words[w].done.store(0, Ordering::Release);
        }
        self.nsegs.store(nsegs, Ordering::Relaxed);
        self.seg_shift.store(seg_shift, Ordering::Relaxed);
        self.prefix.store(0, Ordering::Relaxed);
        self.done_count.store(0, Ordering::Relaxed);
        self.flags.store(flags, Ordering::Release);
    }

    /// Generation of the current task.
    #[inline]
    pub fn pos(&self) -> u64 {
        self.pos.load(Ordering::Acquire)
    }
    /// Segment count of the current task.
    #[inline]
    pub fn nsegs(&self) -> u32 {
        self.nsegs.load(Ordering::Relaxed)
    }
    /// log2 of the segment size in bytes of the current task.
    #[inline]
    pub fn seg_shift(&self) -> u32 {
        self.seg_shift.load(Ordering::Relaxed)
    }
    /// Flag bits ([`FAULTED`], [`INGESTED`], ...).
    #[inline]
    pub fn flags(&self) -> u32 {
        self.flags.load(Ordering::Acquire)
    }
    /// Set flag bits (`Release`: publishes what was written before).
    #[inline]
    pub fn set_flags(&self, f: u32) {
        self.flags.fetch_or(f, Ordering::AcqRel);
    }
    /// Completed-prefix counter (segments).
    #[inline]
    pub fn prefix(&self) -> u32 {
        self.prefix.load(Ordering::Acquire)
    }

    /// True when the task at `pos` has completed segments `[lo, hi)` (or the
    /// slot moved on, which implies the task completed).
    #[inline]
    pub fn is_done(&self, pos: u64, lo: u32, hi: u32) -> bool {
        if self.pos.load(Ordering::Acquire) != pos {
            return true;
        }
        if self.prefix.load(Ordering::Acquire) >= hi {
            return true;
        }
        self.first_undone(lo, hi).is_none() || self.pos.load(Ordering::Acquire) != pos
    }

    /// First segment in `[lo, hi)` whose done bit is clear.
    pub fn first_undone(&self, lo: u32, hi: u32) -> Option<u32> {
        let mut s = lo.max(self.prefix.load(Ordering::Acquire));
        while s < hi {
            let w = (s / 64) as usize;
            let end = hi.min((w as u32 + 1) * 64);
            let mask = word_mask(s % 64, end - w as u32 * 64);
            let clear = !self.words[w].done.load(Ordering::Acquire) & mask;
            if clear != 0 {
                return Some(w as u32 * 64 + clear.trailing_zeros());
            }
            s = end;
        }
        None
    }

    /// Claim a run of consecutive unclaimed segments starting at the first
    /// unclaimed one in `[lo, hi)`, at most `max` long and within one bitmap
    /// word. Returns the run, or `None` when every segment of `[lo, hi)` is
    /// claimed or the slot no longer holds the task at `pos`.
    pub fn claim_run(&self, pos: u64, lo: u32, hi: u32, max: u32) -> Option<(u32, u32)> {
        let mut s = lo;
        while s < hi {
            let w = (s / 64) as usize;
            let base = w as u32 * 64;
            let end = hi.min(base + 64);
            let cur = self.words[w].claimed.load(Ordering::Relaxed);
            let free = !cur & word_mask(s - base, end - base);
            if free == 0 {
                s = end;
                continue;
            }
            let first = free.trailing_zeros();
            // contiguous free bits from `first`
            let run = (!(free >> first)).trailing_zeros().min(max);
            let mask = word_mask(first, first + run);
            let old = self.words[w].claimed.fetch_or(mask, Ordering::AcqRel);
            let got = mask & !old;
            if got == 0 {
                continue; // raced; reload this word
            }
            // keep the lowest contiguous run of what we got, give back the rest
            let g0 = got.trailing_zeros();
            let glen = (!(got >> g0)).trailing_zeros();
            let keep = word_mask(g0, g0 + glen);
            if got & !keep != 0 {
                self.words[w].claimed.fetch_and(!(got & !keep), Ordering::AcqRel);
            }
            // claim-then-validate (module docs)
            if self.pos.load(Ordering::Acquire) != pos {
                self.words[w].claimed.fetch_and(!keep, Ordering::AcqRel);
                return None;
            }
            return Some((base + g0, base + g0 + glen));
        }
        None
    }

    /// Claim every unclaimed segment (lazy-task drop). Returns the bitmaps of
    /// segments newly claimed, word by word, through `f(word, bits)`.
    pub fn claim_all(&self, mut f: impl FnMut(usize, u64)) {
        let n = self.nsegs();
        for w in 0..(n as usize).div_ceil(64) {
            let end = n.min((w as u32 + 1) * 64) - w as u32 * 64;
            let mask = word_mask(0, end);
            let old = self.words[w].claimed.fetch_or(mask, Ordering::AcqRel);
            let got = mask & !old;
            if got != 0 {
                f(w, got);
            }
        }
    }

    /// True when some segment is claimed but not done (an executor is copying
    /// it, or it faulted).
    pub fn any_in_flight(&self) -> bool {
        let n = self.nsegs();
        (0..(n as usize).div_ceil(64)).any(|w| {
            self.words[w].claimed.load(Ordering::Acquire) != self.words[w].done.load(Ordering::Acquire)
        })
    }

    /// Fork child: no executor survived the fork, so claims that are not done
    /// are orphaned; give them back. The fork may also have caught an
    /// executor between setting its done bits and adding them to
    /// `done_count` (the parent's threads do not stop at a safe point):
    /// recount it from the bitmap, or no later completion would ever see
    /// `done_count == nsegs` and the task would never retire.
    pub fn release_in_flight(&self) {
        let n = self.nsegs();
        let mut count = 0;
        for w in 0..(n as usize).div_ceil(64) {
            let done = self.words[w].done.load(Ordering::Acquire);
            count += done.count_ones();
            self.words[w].claimed.store(done, Ordering::Release);
        }
        self.done_count.store(count, Ordering::Release);
    }

    /// True when some segment of `[lo, hi)` is unclaimed.
    pub fn any_unclaimed(&self, lo: u32, hi: u32) -> bool {
        let mut s = lo;
        while s < hi {
            let w = (s / 64) as usize;
            let base = w as u32 * 64;
            let end = hi.min(base + 64);
            if !self.words[w].claimed.load(Ordering::Acquire) & word_mask(s - base, end - base) != 0 {
                return true;
            }
            s = end;
        }
        false
    }

    /// Give back claimed segments `[lo, hi)` (one word) without completing
    /// them.
    pub fn unclaim(&self, lo: u32, hi: u32) {
        let w = (lo / 64) as usize;
        let base = w as u32 * 64;
        debug_assert!(hi <= base + 64 && lo < hi);
        self.words[w].claimed.fetch_and(!word_mask(lo - base, hi - base), Ordering::AcqRel);
    }

    /// Mark claimed segments `[lo, hi)` (one word) done. Returns true when this
    /// completion finished the task: the caller is then its unique retirer.
    pub fn complete(&self, lo: u32, hi: u32) -> bool {
        self.complete_bits((lo / 64) as usize, word_mask(lo % 64, hi - (lo / 64) * 64))
    }

    /// Mark the segments of `bits` in word `w` done (they must be claimed by
    /// the caller). Returns true when the task became complete.
    pub fn complete_bits(&self, w: usize, bits: u64) -> bool {
        debug_assert_eq!(self.words[w].done.load(Ordering::Relaxed) & bits, 0);
        // Release: the copied bytes happen-before any Acquire of this bit.
        self.words[w].done.fetch_or(bits, Ordering::AcqRel);
        self.advance_prefix();
        let n = bits.count_ones();
        let before = self.done_count.fetch_add(n, Ordering::AcqRel);
        before + n == self.nsegs()
    }

    fn advance_prefix(&self) {
        let n = self.nsegs();
        let mut p = self.prefix.load(Ordering::Acquire);
        loop {
            let mut q = p;
            while q < n {
                let w = (q / 64) as usize;
                let bits = self.words[w].done.load(Ordering::Acquire) >> (q % 64);
                let ones = (!bits).trailing_zeros().min(64 - q % 64);
                if ones == 0 {
                    break;
                }
                q = (q + ones).min(n);
            }
            if q == p {
                return;
            }
            match self.prefix.compare_exchange_weak(p, q, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => p = q, // loop again: others may have completed past q
                Err(cur) => {
                    if cur >= q {
                        return;
                    }
                    p = cur;
                }
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn descriptor_size_is_pinned() {
        // 2 bitmaps of 128 B + header; a ring of 256 slots stays ~75 KiB.
        assert_eq!(core::mem::size_of::<Descriptor>(), 8 + 5 * 4 + 4 + 2 * 128);
        // word 0 of both bitmaps right after the 32-byte header (`Entry`'s
        // two-line submit relies on it)
        assert_eq!(core::mem::offset_of!(Descriptor, words), 32);
        assert_eq!(core::mem::size_of::<Words>(), 16);
    }

    #[test]
    fn claim_complete_prefix_and_retirer() {
        let d = Descriptor::new();
        d.reset(7, 130, 12, 0);
        assert_eq!(d.claim_run(7, 0, 130, 4), Some((0, 4)));
        assert_eq!(d.claim_run(7, 0, 130, 200), Some((4, 64)));
        assert_eq!(d.claim_run(7, 0, 130, 200), Some((64, 128)));
        assert!(!d.complete(4, 64));
        assert_eq!(d.prefix(), 0);
        assert!(!d.is_done(7, 0, 1));
        assert!(d.is_done(7, 4, 64));
        assert!(!d.complete(0, 4));
        assert_eq!(d.prefix(), 64);
        assert_eq!(d.first_undone(0, 130), Some(64));
        assert_eq!(d.claim_run(7, 128, 130, 8), Some((128, 130)));
        assert_eq!(d.claim_run(7, 0, 130, 8), None);
        assert!(!d.complete(128, 130));
        assert!(d.complete(64, 128));
        assert_eq!(d.prefix(), 130);
        // reuse: the old generation reads as done, stale claims back off
        d.reset(8, 2, 12, 0);
        assert!(d.is_done(7, 0, 1));
        assert!(!d.is_done(8, 0, 1));
        assert_eq!(d.claim_run(7, 0, 2, 2), None);
        assert_eq!(d.claim_run(8, 0, 2, 2), Some((0, 2)));
    }

    /// A fork that caught executors mid-way: one between its copy and
    /// `complete` (claim given back, re-executed), one between setting its
    /// done bits and adding them to `done_count`. The child's completion of
    /// the rest must still be the task's unique retirer.
    #[test]
    fn release_in_flight_recounts_done() {
        let d = Descriptor::new();
        d.reset(3, 70, 12, 0);
        assert_eq!(d.claim_run(3, 0, 70, 64), Some((0, 64)));
        assert_eq!(d.claim_run(3, 0, 70, 64), Some((64, 70)));
        assert!(!d.complete(0, 10));
        // executor B, caught after its done bits, before its done_count add
        d.words[0].done.fetch_or(word_mask(10, 64), Ordering::AcqRel);
        // executor C holds [64, 70) in flight: orphaned in the child
        d.release_in_flight();
        assert!(d.any_unclaimed(64, 70) && !d.any_unclaimed(0, 64));
        assert_eq!(d.claim_run(3, 0, 70, 64), Some((64, 70)));
        assert!(d.complete(64, 70), "the child's last completion must retire the task");
        assert_eq!(d.prefix(), 70);
    }

    #[test]
    fn unclaim_and_claim_all() {
        let d = Descriptor::new();
        d.reset(1, 70, 12, 0);
        let (a, b) = d.claim_run(1, 3, 70, 64).unwrap();
        assert_eq!((a, b), (3, 64));
        d.unclaim(10, 64);
        assert!(d.any_unclaimed(0, 70));
        let mut got = 0u32;
        d.claim_all(|_, bits| got += bits.count_ones());
        assert_eq!(got, 70 - 7);
        assert!(d.any_in_flight());
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicUsize;
    use loom::sync::Arc;
    use loom::thread;

    /// Two executors race to claim and complete a 2-segment task while a
    /// waiter polls the last segment: every segment is executed exactly once,
    /// exactly one completer is elected retirer, and a waiter that sees a
    /// segment done sees the bytes its executor wrote.
    #[test]
    fn completion_protocol() {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(|| {
            let d = Arc::new(Descriptor::new());
            d.reset(1, 2, 12, 0);
            let data: Arc<[AtomicUsize; 2]> = Arc::new(core::array::from_fn(|_| AtomicUsize::new(0)));
            let retirers = Arc::new(AtomicUsize::new(0));
            let mut hs = Vec::new();
            for _ in 0..2 {
                let (d, data, retirers) = (d.clone(), data.clone(), retirers.clone());
                hs.push(thread::spawn(move || {
                    while let Some((lo, hi)) = d.claim_run(1, 0, 2, 1) {
                        for s in lo..hi {
                            // "copy": a relaxed write the done bit must publish
                            let prev = data[s as usize].fetch_add(1, Ordering::Relaxed);
                            assert_eq!(prev, 0, "segment executed twice");
                        }
                        if d.complete(lo, hi) {
                            retirers.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }));
            }
            let (d2, data2) = (d.clone(), data.clone());
            let w = thread::spawn(move || {
                if d2.is_done(1, 1, 2) {
                    assert_eq!(data2[1].load(Ordering::Relaxed), 1);
                }
            });
            for h in hs {
                h.join().unwrap();
            }
            w.join().unwrap();
            assert_eq!(retirers.load(Ordering::Relaxed), 1);
            assert_eq!(d.prefix(), 2);
            for s in 0..2 {
                assert_eq!(data[s].load(Ordering::Relaxed), 1);
            }
        });
    }

    /// A stale executor that claims on a reused slot backs off: it never
    /// executes a segment of the new task.
    #[test]
    fn stale_claim_backs_off() {
        loom::model(|| {
            let d = Arc::new(Descriptor::new());
            d.reset(1, 1, 12, 0);
            assert_eq!(d.claim_run(1, 0, 1, 1), Some((0, 1)));
            assert!(d.complete(0, 1));
            let d2 = d.clone();
            let stale = thread::spawn(move || d2.claim_run(1, 0, 1, 1));
            d.reset(2, 1, 12, 0);
            assert_eq!(stale.join().unwrap(), None);
            // whatever the interleaving, the new task's segment is claimable
            let mut got = None;
            while got.is_none() {
                got = d.claim_run(2, 0, 1, 1);
                loom::thread::yield_now();
            }
        });
    }
}
