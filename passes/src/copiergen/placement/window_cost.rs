//! The window cost model (`-copiergen-min-overlap`): how much independent
//! work runs between a copy and its first whole-copy sync, so a copy that
//! nothing would overlap stays `memcpy`.

use super::plan::{PendingCopy, Plan, SyncRange};
use crate::copiergen::candidates::CopyCall;
use crate::ir;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

/// Why a copy stays synchronous under the cost model (`-copiergen-min-overlap`):
/// its whole-copy sync follows it on every path with too little
/// independent work in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuickSync {
    /// Most instructions of work on any path from the copy to a whole-copy
    /// sync of it (the longest such path; fewer than the limit).
    pub work: u64,
    /// Index in [`Plan::points`] of the sync that path ends at.
    pub point: usize,
    /// How many distinct whole-copy sync points the paths reach.
    pub points: usize,
}

/// Work of one instruction for the cost model, in instructions; `None`:
/// unknown or unbounded work (a call that is not a cheap intrinsic,
/// inline asm, a memory intrinsic of variable length).
fn work_of(inst: LLVMValueRef) -> Option<u64> {
    match ir::opcode(inst) {
        LLVMOpcode::LLVMPHI => Some(0),
        LLVMOpcode::LLVMBr => Some(u64::from(ir::num_successors(inst) > 1)),
        LLVMOpcode::LLVMCall if ir::is_debug_or_marker(inst) => Some(0),
        LLVMOpcode::LLVMCall => {
            let callee = ir::called_function(inst)?;
            let name = ir::name(callee);
            if !name.starts_with("llvm.") {
                // A function call: its work is unknown (a library routine
                // may loop, a module function is not inspected).
                return None;
            }
            if name.starts_with("llvm.mem") {
                // llvm.memcpy/memmove/memset(.inline): (dst, src|val, len, ...);
                // about one instruction per 64 bytes (AVX2, two vectors).
                let len = ir::const_int(ir::arg(inst, 2))?;
                return Some(1 + len / 64);
            }
            Some(1)
        }
        LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => None,
        _ => Some(1),
    }
}

/// The cost model: whether copy `c` is waited for whole so soon after it
/// on every path that nothing meaningful would overlap it, so it should
/// stay a synchronous `memcpy` (the submission would only add its cost).
///
/// Walks every CFG path from the instruction after the copy to the first
/// whole-copy sync of `c` in `plan` (a `csync` of the copy or `csync_all`,
/// e.g. before `ret` when the destination escapes, before a call that may
/// read it, before `free`). A path counts its instructions (PHIs, debug
/// and lifetime markers and unconditional branches are free; a constant-
/// length memory intrinsic counts one per 64 bytes). Unknown work ends the
/// walk with "enough overlap": a call to a function (the callee's work is
/// not known), inline asm, a variable-length memory intrinsic, an `invoke`,
/// a CFG cycle without a sync of `c` (a loop; its trip count is unknown),
/// or more than 1024 blocks on one path. A narrow sync ends a path only
/// when it covers the whole destination or source ([`covers_whole`]: a
/// `write(fd, dst, n)` right after the copy); others wait for part of the
/// copy, and the rest still overlaps.
///
/// Returns `Some` when every path reaches such a sync after fewer than
/// `limit` instructions of work (paths that end without one, at
/// `unreachable`, do not count; at least one path must reach one). `None`:
/// enough overlap on some path, `limit` 0, or the copy is unreachable.
pub fn work_before_sync(copies: &[PendingCopy], plan: &Plan, c: usize, limit: u64) -> Option<QuickSync> {
    if limit == 0 || !plan.reachable[c] {
        return None;
    }
    let call = &copies[c].call;
    let syncs: HashMap<LLVMValueRef, usize> = plan
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.full.iter().any(|&(k, _)| k == c) || p.narrow.iter().any(|n| covers_whole(call, n.range)))
        .map(|(i, p)| (p.before, i))
        .collect();
    let mut walk = SyncWalk { syncs: &syncs, limit, memo: HashMap::new(), on_path: HashSet::new(), reached: HashSet::new() };
    let copy = copies[c].call.call;
    let start = ir::next_instruction(copy)?;
    // Coming back to the copy's block is going around a loop.
    walk.on_path.insert(ir::parent_block(copy));
    match walk.from(start, 0)? {
        PathWork::Sync(work, point) => Some(QuickSync { work, point, points: walk.reached.len() }),
        PathWork::NoSync => None,
    }
}

/// Whether a narrow sync waits for the whole destination or the whole
/// source of `call` (e.g. `write(fd, buf, n)` or `memcmp(buf, p, n)` right
/// after `memcpy(buf, src, n)`): the same base and length, or a constant
/// range from the base over at least the constant length. It then waits for
/// the whole copy, like a whole-copy sync.
fn covers_whole(call: &CopyCall, range: SyncRange) -> bool {
    match range {
        SyncRange::Dynamic { ptr, len } => (ptr == call.dst || ptr == call.src) && len == call.len,
        SyncRange::Bytes { base, offset, len } => {
            (base == call.dst || base == call.src) && offset == 0 && call.const_len.is_some_and(|n| len >= n)
        }
    }
}

/// Longest-path work from a program point to a whole-copy sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathWork {
    /// Every path that reaches a sync does so within this many
    /// instructions; the longest ends at this point index.
    Sync(u64, usize),
    /// No path reaches a sync (all end at `unreachable`).
    NoSync,
}

/// The state of [`work_before_sync`]'s depth-first walk. `memo` holds, per
/// block, the longest work from its start (`None`: at least the limit, or
/// unknown); `on_path` the blocks of the current path (reaching one again
/// is a cycle).
struct SyncWalk<'a> {
    syncs: &'a HashMap<LLVMValueRef, usize>,
    limit: u64,
    memo: HashMap<LLVMBasicBlockRef, Option<PathWork>>,
    on_path: HashSet<LLVMBasicBlockRef>,
    reached: HashSet<usize>,
}

impl SyncWalk<'_> {
    /// Most blocks on one path before the walk gives up (enough work).
    const MAX_DEPTH: usize = 1024;

    /// Longest work from `start` (inclusive) to the end of its path,
    /// `None` when it reaches the limit or is unknown.
    fn from(&mut self, start: LLVMValueRef, depth: usize) -> Option<PathWork> {
        let mut work = 0u64;
        let mut inst = Some(start);
        while let Some(i) = inst {
            if let Some(&point) = self.syncs.get(&i) {
                self.reached.insert(point);
                return Some(PathWork::Sync(work, point));
            }
            work = work.saturating_add(work_of(i)?);
            if work >= self.limit {
                return None;
            }
            if ir::is_terminator(i) {
                break;
            }
            inst = ir::next_instruction(i);
        }
        let block = ir::parent_block(start);
        let mut longest = PathWork::NoSync;
        for succ in ir::successors(block) {
            let rest = self.block(succ, depth + 1)?;
            if let PathWork::Sync(w, point) = rest {
                let total = work.saturating_add(w);
                if total >= self.limit {
                    return None;
                }
                if !matches!(longest, PathWork::Sync(l, _) if l >= total) {
                    longest = PathWork::Sync(total, point);
                }
            }
        }
        Some(longest)
    }

    /// Longest work from the start of `block` (memoised per block: it does
    /// not depend on the path that led there).
    fn block(&mut self, block: LLVMBasicBlockRef, depth: usize) -> Option<PathWork> {
        if let Some(&known) = self.memo.get(&block) {
            return known;
        }
        if depth > Self::MAX_DEPTH || self.on_path.contains(&block) {
            // A cycle without a sync: a loop of unknown trip count. (Every
            // block that reaches it gets None too, which is right: from
            // each one, the cycle is a path of unbounded work.)
            return None;
        }
        let first = ir::instructions(block).next()?;
        self.on_path.insert(block);
        let result = self.from(first, depth);
        self.on_path.remove(&block);
        self.memo.insert(block, result);
        result
    }
}
