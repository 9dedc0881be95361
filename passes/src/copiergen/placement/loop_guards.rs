//! The loop-guard cost rule: a copy of run-time length whose guards run on
//! every iteration of its own loop stays `memcpy`.
//!
//! Such a copy runs once per iteration, and so do the ready-window checks of
//! the loads and stores it may overlap (two compares and two branches each,
//! with the window often spilled, pending copies or not). The pass cannot
//! tell whether the copies are long: where it cannot (no constant length,
//! no profile), a loop that pays a check on every access per copy is the
//! shape of a decoder's or encoder's inner loop (LZ literal and match copies
//! of a few bytes next to hash-table and output accesses), which the checks
//! make slower whatever the copy does. A coarse plan's whole-copy syncs
//! before such accesses count the same (a pending-word check each, with
//! the copy's destination and length carried around the loop). Only guards
//! of other objects count:
//! accesses to objects the alias analysis cannot tell apart from the copy's
//! destination or source (a hash table, a decoding table), not those of the
//! copy's own buffers, which a parse of the copied bytes needs (the copy
//! then pays for its window where it has one). Increasing-pointer guards
//! (one compare, and removed by loop versioning once the window covers the
//! loop) and guards before calls (whose own work dwarfs a check) do not
//! count either. A loop whose iteration calls a function before the copy
//! (on the straight path into the copy's block: a `read`, a lock) is left
//! alone too, when the copy runs on every iteration: the call's own work
//! dwarfs the checks, and such loops (a producer, a double-buffered
//! consumer, `copy_parse.c`) are where an asynchronous copy pays. A copy on
//! a branch of its iteration is not: the iterations that skip it pay the
//! checks beside no call. A size profile proving the copy long
//! (`ProfiledLong`) exempts it: its copies pay for their checks. Unoptimised functions (`optnone`, `-O0`) are left alone:
//! their pointers come out of stack slots, so no access names its object.

use super::plan::{PendingCopy, Plan};
use crate::context::{self, FunctionAnalyses};
use crate::copiergen::effects::FullReason;
use crate::copiergen::size_profile::Verdict;
use crate::ir;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMOpcode;

/// The loads and stores a copy would guard on every iteration of its loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopGuards {
    /// How many guarded loads and stores (sync points) there are.
    pub guards: usize,
    /// Index in [`Plan::points`] of the first one.
    pub point: usize,
    /// Every one is a whole-copy sync of a coarse plan (a pending-word
    /// check), none a ready-window check.
    pub whole: bool,
}

/// Whether copy `c` (of run-time length, inside a loop) needs ready-window
/// guards of loads or stores of other objects than its destination's and
/// source's (underlying objects) inside the innermost loop that contains
/// it, nested loops included (windowed checks, or whole-copy syncs of a
/// coarse plan): `Some` names them, `None` when the copy has a constant
/// length, a size profile proving it long (`ProfiledLong`), is outside
/// loops, is in an `optnone` function or needs no such guard. Uses the loop
/// info of the IR as it was before any change.
pub fn guards_every_iteration(
    fa: &FunctionAnalyses<'_>,
    copies: &[PendingCopy],
    plan: &Plan,
    c: usize,
) -> Option<LoopGuards> {
    let call = &copies[c].call;
    let profiled_long = matches!(copies[c].profile, Some(Verdict::Long { .. }));
    if call.const_len.is_some() || profiled_long || !plan.reachable[c] || ir::has_fn_attr(fa.function(), "optnone") {
        return None;
    }
    let block = ir::parent_block(call.call);
    let depth = fa.loop_depth(block);
    if depth == 0 {
        return None;
    }
    let own = [
        context::underlying_object(call.dst),
        context::underlying_object(call.src),
    ];
    let header = ir::blocks(fa.function()).find(|&h| fa.loop_depth(h) == depth && fa.loop_contains(h, block))?;
    if runs_every_iteration(fa, header, block) && calls_before(fa, header, call.call) {
        return None;
    }
    let mut found: Option<LoopGuards> = None;
    for (i, point) in plan.points.iter().enumerate() {
        let Some(ptr) = access_pointer(point.before) else { continue };
        let windowed = point.narrow.iter().any(|n| n.copy == c && n.monotonic.is_none() && !own.contains(&n.object));
        // A coarse plan waits for the whole copy before such an access: a
        // check of the pending word, with the copy's (dst, len) carried
        // around the loop in registers.
        let coarse = point.full.iter().any(|&(k, r)| k == c && matches!(r, FullReason::CoarseAccess(_)))
            && !own.contains(&context::underlying_object(ptr));
        if !windowed && !coarse {
            continue;
        }
        if !fa.loop_contains(header, ir::parent_block(point.before)) {
            continue;
        }
        match &mut found {
            Some(g) => {
                g.guards += 1;
                g.whole &= !windowed;
            }
            None => found = Some(LoopGuards { guards: 1, point: i, whole: !windowed }),
        }
    }
    found
}

/// Whether a call to a function (not an intrinsic) runs before `copy` in
/// its iteration of the loop headed by `header` on every path: in its block
/// before it, or in the chain of single predecessors inside the loop that
/// leads to that block.
fn calls_before(fa: &FunctionAnalyses<'_>, header: LLVMBasicBlockRef, copy: LLVMValueRef) -> bool {
    let is_work_call = |i: LLVMValueRef| {
        ir::opcode(i) == LLVMOpcode::LLVMCall
            && i != copy
            && !ir::called_function(i).is_some_and(|f| ir::name(f).starts_with("llvm."))
    };
    let function = fa.function();
    let mut block = ir::parent_block(copy);
    if ir::instructions(block).take_while(|&i| i != copy).any(is_work_call) {
        return true;
    }
    // At most one walk over the loop's blocks (a chain never repeats).
    for _ in ir::blocks(function) {
        if block == header {
            return false;
        }
        let [pred] = ir::predecessors(block)[..] else { return false };
        if !fa.loop_contains(header, pred) {
            return false;
        }
        if ir::instructions(pred).any(is_work_call) {
            return true;
        }
        block = pred;
    }
    false
}

/// The pointer operand of a load or store; `None` for other instructions.
fn access_pointer(inst: LLVMValueRef) -> Option<LLVMValueRef> {
    match ir::opcode(inst) {
        LLVMOpcode::LLVMLoad => Some(ir::operand(inst, 0)),
        LLVMOpcode::LLVMStore => Some(ir::operand(inst, 1)),
        _ => None,
    }
}

/// Whether `block` runs on every iteration of the loop headed by `header`:
/// no path from the header back to it avoids `block` (it dominates every
/// latch). A copy on a branch of its iteration (protobuf-c's unknown
/// fields) leaves the other iterations paying its guards with no call's
/// work beside them.
fn runs_every_iteration(fa: &FunctionAnalyses<'_>, header: LLVMBasicBlockRef, block: LLVMBasicBlockRef) -> bool {
    if block == header {
        return true;
    }
    let mut seen = std::collections::HashSet::from([header, block]);
    let mut work = vec![header];
    while let Some(b) = work.pop() {
        for s in ir::successors(b) {
            if s == header {
                return false;
            }
            if fa.loop_contains(header, s) && seen.insert(s) {
                work.push(s);
            }
        }
    }
    true
}
