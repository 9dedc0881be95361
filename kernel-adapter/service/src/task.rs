//! A copy task as the service holds it: its ring slot ([`Entry`]: the
//! parameters and descriptor in the UAPI layout, then the tracker's
//! [`TaskExt`]), the [`TaskRef`] that names it, and what the tracker
//! records about it ([`Edge`], [`Redirect`]).

use crate::desc::Descriptor;
use copier_abi::uapi;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// `COPIER_LAZY`: low-priority copy that may be dropped.
pub const FLAG_LAZY: u32 = uapi::COPIER_F_LAZY;

/// `COPIER_MOVE`: the ranges may overlap (memmove semantics).
pub const FLAG_MOVE: u32 = uapi::COPIER_F_MOVE;

/// Internal: source and destination overlap; the task is one segment
/// executed with an overlap-safe move.
pub const FLAG_OVERLAP: u32 = 1 << 16;

/// Internal: set by the ingest when the task absorbed (its `ext.redirects`
/// are not empty), `Release` after writing them; cleared by the next submit
/// into the slot. Lets `service::csync` read the redirects of the tasks
/// that have some only, on the slot's first line, which only the producer
/// writes otherwise.
pub const FLAG_ABSORBS: u32 = 1 << 17;

/// A task: client index and ring position (the position is the slot's
/// generation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskRef {
    /// Client index.
    pub client: u16,
    /// Ring position.
    pub pos: u64,
}

impl TaskRef {
    /// The public descriptor handle: `(pos + 1) << 8 | client`; never 0.
    pub fn handle(self) -> u64 {
        ((self.pos + 1) << 8) | self.client as u64
    }
    /// Decode a handle (`None` for 0).
    pub fn from_handle(h: u64) -> Option<TaskRef> {
        if h == 0 {
            return None;
        }
        Some(TaskRef { client: (h & 0xff) as u16, pos: (h >> 8) - 1 })
    }
}

/// Dependency edge: this task's bytes `[t_off, t_off + len)` touch the older
/// task `t`'s bytes `[e_off, e_off + len)` in a conflicting way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The older task.
    pub t: TaskRef,
    /// Offset in this task.
    pub t_off: usize,
    /// Offset in the older task.
    pub e_off: usize,
    /// Bytes.
    pub len: usize,
}

/// Absorption: this task's bytes `[off, off + len)` are read from `src`
/// instead of the task's own source.
///
/// `from` is the pending copy that writes those bytes of the task's source
/// (its bytes `[from_off, from_off + len)`), `owner` the copy whose own
/// source `src` lies in (`from` itself, or the copy `from` absorbed them
/// from). If `owner`'s copy faulted, the redirect is not used: the piece is
/// read from the task's own source once `from` has finished those bytes
/// (see [`exec_bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// Task offset.
    pub off: usize,
    /// Bytes.
    pub len: usize,
    /// Source address used instead.
    pub src: usize,
    /// The copy that writes this piece of the task's source.
    pub from: TaskRef,
    /// Offset of the piece in `from`.
    pub from_off: usize,
    /// The copy whose own source `src` is.
    pub owner: TaskRef,
}

/// Tracker-owned part of a task (written at ingest under the tracker lock;
/// read by executors only while they hold a claim on the task).
#[derive(Default)]
pub struct TaskExt {
    /// Dependencies.
    pub edges: Vec<Edge>,
    /// Absorbed pieces, sorted by offset.
    pub redirects: Vec<Redirect>,
    /// Ingest order.
    pub seq: u64,
    /// Ingest time (lazy tasks only), ns.
    pub ingest_ns: u64,
}

/// A copy-queue slot: the task's descriptor and parameters.
///
/// Layout (`repr(C)`, cache-line aligned): the parameters as
/// `struct copier_entry` (`include/linux/copier.h`, checked field by field
/// against `uapi::copier_entry`), then the descriptor as
/// `struct copier_desc`, whose header and first bitmap words follow at
/// once, so a submit of up to 64 segments writes two cache lines of its
/// slot and no line of a neighbouring slot (the executors write those); the
/// tracker's `ext` comes last, on lines the submit never touches.
#[repr(C, align(64))]
pub struct Entry {
    pub(crate) dst: AtomicUsize,
    pub(crate) src: AtomicUsize,
    pub(crate) len: AtomicUsize,
    /// Completion handler (`void (*)(void *)` as usize, 0 for none).
    pub handler: AtomicUsize,
    /// Its argument.
    pub arg: AtomicUsize,
    /// `FLAG_*` bits: the header's `COPIER_F_*` below bit 16, the
    /// service's own above.
    pub flags: AtomicU32,
    /// `copier_entry.region`: 0, the in-process service has no shared regions.
    region: AtomicU32,
    /// Segment state.
    pub desc: Descriptor,
    /// Tracker-owned data.
    pub ext: UnsafeCell<TaskExt>,
}

// SAFETY: `ext` is accessed under the tracker lock, or read-only by executors
// holding a claim (which pins the task, see `desc`); everything else is atomic.
unsafe impl Sync for Entry {}
// SAFETY: as above.
unsafe impl Send for Entry {}

crate::layout::same_layout!(Entry: starts with uapi::copier_entry { dst, src, len, handler, arg, flags, region });
const _: () = assert!(core::mem::offset_of!(Entry, desc) == core::mem::size_of::<uapi::copier_entry>());
const _: () = assert!(FLAG_LAZY == uapi::COPIER_F_LAZY && FLAG_MOVE == uapi::COPIER_F_MOVE && FLAG_OVERLAP > uapi::COPIER_F_BARRIER);

impl Entry {
    pub(crate) fn new() -> Self {
        Entry {
            dst: AtomicUsize::new(0),
            src: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            handler: AtomicUsize::new(0),
            arg: AtomicUsize::new(0),
            flags: AtomicU32::new(0),
            region: AtomicU32::new(0),
            desc: Descriptor::new(),
            ext: UnsafeCell::new(TaskExt::default()),
        }
    }
    /// Destination address.
    #[inline]
    pub fn dst(&self) -> usize {
        self.dst.load(Ordering::Relaxed)
    }
    /// Source address.
    #[inline]
    pub fn src(&self) -> usize {
        self.src.load(Ordering::Relaxed)
    }
    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }
    /// True for a zero-length task (never queued).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn entry_layout_keeps_a_small_submit_in_two_lines() {
        // a slot never shares a line with its neighbours ...
        assert_eq!(core::mem::align_of::<Entry>(), 64);
        assert_eq!(core::mem::size_of::<Entry>() % 64, 0);
        // ... and a submit of <= 64 segments writes lines 0 and 1 only: the
        // parameters, the descriptor's 32-byte header and its first 16 bytes
        // of bitmaps (pinned in `desc`)
        let desc = core::mem::offset_of!(Entry, desc);
        assert!(core::mem::offset_of!(Entry, flags) + 4 <= desc);
        assert!(desc + 32 + 16 <= 128, "descriptor at {desc}");
        assert!(core::mem::offset_of!(Entry, ext) >= 128);
    }
}
