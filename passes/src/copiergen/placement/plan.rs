//! The placement's result: the copies being rewritten and the syncs to
//! insert ([`Plan`]), shared by the dataflow that computes it, the window
//! cost model that reads it, and emit.

use crate::copiergen::candidates::CopyCall;
use crate::copiergen::effects::{CopyFacts, FullReason, NarrowReason};
use crate::copiergen::size_profile::Verdict;
use crate::context::LoopEntry;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};

/// A copy being rewritten, with what the analysis knows about it.
#[derive(Debug, Clone)]
pub struct PendingCopy {
    /// The call.
    pub call: CopyCall,
    /// Facts for the conflict rules.
    pub facts: CopyFacts,
    /// Its source location (`file:line:col`), if it has debug info.
    pub loc: Option<String>,
    /// What its size profile (`-fprofile-use`) says, for a variable length.
    pub profile: Option<Verdict>,
}

/// The bytes a narrow sync waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncRange {
    /// `len` bytes at `base + offset`: one access, or the hull of several
    /// accesses off one base in one block (constant offsets).
    Bytes {
        /// Base pointer (available at the sync point).
        base: LLVMValueRef,
        /// Byte offset from `base`.
        offset: i64,
        /// Length in bytes.
        len: u64,
    },
    /// `len` (a run-time value) bytes at `ptr`.
    Dynamic {
        /// First byte.
        ptr: LLVMValueRef,
        /// Length in bytes.
        len: LLVMValueRef,
    },
}

/// One narrow sync.
#[derive(Debug, Clone)]
pub struct NarrowSync {
    /// What it waits for.
    pub range: SyncRange,
    /// How many accesses of the block it covers.
    pub covers: usize,
    /// Underlying object of the access pointer (key of its ready window).
    pub object: LLVMValueRef,
    /// In a loop where the synced pointer only grows (ScalarEvolution): the
    /// loop's unique outside predecessor and its header. Its windowed guard
    /// then keeps a window of its own, reset in that predecessor (on every
    /// loop entry), and checks only the end.
    pub monotonic: Option<LoopEntry>,
    /// Why.
    pub reason: NarrowReason,
    /// A copy that needs it (for remarks).
    pub copy: usize,
}

/// The syncs to insert before one instruction.
#[derive(Debug, Clone)]
pub struct SyncPoint {
    /// The guarded instruction.
    pub before: LLVMValueRef,
    /// Narrow syncs of its accesses.
    pub narrow: Vec<NarrowSync>,
    /// Whole-copy syncs: (copy index, reason).
    pub full: Vec<(usize, FullReason)>,
    /// The instruction is inside a natural loop.
    pub in_loop: bool,
    /// Callee name of a call, for remarks.
    pub callee: Option<String>,
    /// A call of the write/send family that reads pending copies: the
    /// runtime entry point it becomes, and those copies (they stay pending).
    pub absorb: Option<(&'static str, Vec<usize>)>,
}

impl Plan {
    /// Number of narrow syncs (the code the guards add grows with it).
    pub fn narrow_count(&self) -> usize {
        self.points.iter().map(|p| p.narrow.len()).sum()
    }
}

/// The result of the placement analysis.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Where to sync, in block order.
    pub points: Vec<SyncPoint>,
    /// Copies that may still be pending from an earlier execution when they
    /// run again (a copy in a loop without a whole-copy sync in between):
    /// their whole-copy syncs use `csync_all`, since one `(dst, len)` cannot
    /// name every pending instance.
    pub multi_instance: Vec<bool>,
    /// Copies in blocks reachable from the entry (others are left alone).
    pub reachable: Vec<bool>,
    /// Calls to the program's own Copier submissions (`amemcpy`, ...):
    /// cached ready windows are reset after them.
    pub user_submissions: Vec<LLVMValueRef>,
    /// Index of the callers' pending copies of a guarded function.
    pub callers: Option<usize>,
    /// Headers of the loops that may get an unguarded copy (emit's loop
    /// versioning): loops with an increasing-pointer guard of constant size
    /// and no submission inside (a submission would invalidate the windows
    /// while the copy runs).
    pub versionable: Vec<LLVMBasicBlockRef>,
}

impl Plan {
    /// Whether the narrow sync at `point` uses a windowed guard (an inline
    /// check of a cached ready window, `csync_ready_end` on a miss) rather
    /// than a `csync` call: inside loops, where later iterations hit the
    /// window. Straight-line code gets plain calls (smaller code).
    pub fn windowed(&self, point: &SyncPoint, window_enabled: bool) -> bool {
        window_enabled && point.in_loop
    }
}
