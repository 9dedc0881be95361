//! Pending-free loop copies: loop versioning on "nothing is pending".
//!
//! A loop whose copies all have run-time lengths (each split at the call
//! site: below the threshold with nothing pending it is the inline
//! `llvm.memcpy`) pays, on every iteration, for the split's pending test
//! and for the checks of its accesses, even when no copy is ever long. The
//! loop is copied without any of that: its header, after the PHIs, enters
//! the copy when the pending word reads 0, and in the copy every load of
//! the word is 0 (the window resets become "everything ready", the
//! `if (pending)` syncs and the windowed checks go). A copy's split in the
//! copy is then only `len >= threshold`; its long side is a *bail edge*
//! into the original loop's submitting block, where the copy is submitted
//! as before and the checked loop runs on (the next header enters the copy
//! again once nothing is pending). SSA values of the original loop that a
//! bail edge reaches get PHIs of both versions (`LoopClone::repair_ssa`).
//!
//! Sound for the reason guarded-callee dispatch is: a 0 proves every copy
//! this thread submitted has completed; nothing in the copy submits (the
//! program's own submissions and lazy copies keep a loop out), a callee
//! completes its copies before it returns, and other threads' copies touch
//! nothing this thread uses before a sync hands it over. So no access of
//! the copy can meet a pending copy, and the cached windows the copy does
//! not update stay valid for the checked loop after a bail.
//!
//! A function whose copies all split gets the same treatment as a whole
//! (function versioning): its body is copied, the entry enters the copy
//! when the word reads 0, and every split's long side bails into the
//! original body. The checks after a short inline copy then cost nothing
//! (a straight-line function pays for each one otherwise: a load and a
//! compare of the word). The entry's static allocas are shared, so the
//! slots the copy wrote are the ones the original reads after a bail.

use super::candidates::CopyCall;
use super::lazy_copies::LazyPlan;
use super::placement::{PendingCopy, Plan};
use crate::context::{self, FunctionAnalyses};
use crate::ir::{self, Builder};
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMIntPredicate;
use std::collections::HashMap;

/// A loop to version, chosen on the IR as written: its header and the
/// copies it contains (indices into the function's pending copies).
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Header of an innermost natural loop.
    pub header: LLVMBasicBlockRef,
    /// Every copy of the loop: each one split at run time.
    pub copies: Vec<usize>,
}

/// Whether copy `i` gets the run-time split (the inline copy below the
/// threshold while nothing is pending): variable length, not proven long
/// by a size profile, not lazy. Must match the split `emit::apply` makes.
pub fn is_split(pc: &PendingCopy, i: usize, lazy: &LazyPlan) -> bool {
    let c: &CopyCall = &pc.call;
    ir::const_int(c.len).is_none()
        && !matches!(pc.profile, Some(super::size_profile::Verdict::Long { .. }))
        && lazy.submit_entry(i).is_none()
}

/// The innermost loops (no inner loop) that contain a copy, every copy of
/// which is split, and none of the program's own submissions. Call before
/// the IR changes.
pub fn candidates(fa: &FunctionAnalyses<'_>, copies: &[PendingCopy], plan: &Plan, lazy: &LazyPlan) -> Vec<Candidate> {
    let mut loops: Vec<(Candidate, bool)> = Vec::new();
    for (i, pc) in copies.iter().enumerate() {
        if !plan.reachable[i] {
            continue;
        }
        let Some(header) = fa.innermost_loop(ir::parent_block(pc.call.call)) else { continue };
        let ok = is_split(pc, i, lazy);
        match loops.iter_mut().find(|(c, _)| c.header == header) {
            Some((c, all)) => {
                c.copies.push(i);
                *all &= ok;
            }
            None => loops.push((Candidate { header, copies: vec![i] }, ok)),
        }
    }
    loops
        .into_iter()
        .filter(|(c, all)| {
            *all && !plan.versionable.contains(&c.header)
                && !plan.user_submissions.iter().any(|&s| fa.loop_contains(c.header, ir::parent_block(s)))
        })
        .map(|(c, _)| c)
        .collect()
}

/// Whether the function's body is a candidate for [`version_body`]: it has
/// a copy, every copy is split ([`is_split`]), and it makes none of the
/// program's own submissions. Call before the IR changes.
pub fn body_candidate(copies: &[PendingCopy], plan: &Plan, lazy: &LazyPlan) -> bool {
    let mut reachable = copies.iter().enumerate().filter(|&(i, _)| plan.reachable[i]).peekable();
    reachable.peek().is_some() && reachable.all(|(i, pc)| is_split(pc, i, lazy)) && plan.user_submissions.is_empty()
}

/// Fewest checks (loads of the pending word besides the splits') that pay
/// for a copy of a function's body. Every function with a split copy has
/// one or two (the whole-copy csync before its returns); a copy of the body
/// for those would double its code to save a load and a branch per call.
pub const MIN_BODY_CHECKS: usize = 4;

/// Versions the body of a [`body_candidate`] function, after the loops
/// (`splits` and `guard_branches` as for [`version`]; a loop copy's bail
/// edges bail into the original body too). Only when the body has at most
/// `max_insts` instructions and at least [`MIN_BODY_CHECKS`] checks besides
/// its splits' pending tests would go. Returns the first submitting call (for the
/// remark) and the number of checks (loads of the word) the copy drops.
pub fn version_body(
    fa: &FunctionAnalyses<'_>,
    b: &Builder,
    pending_word: LLVMValueRef,
    splits: &HashMap<usize, (LLVMValueRef, LLVMValueRef)>,
    guard_branches: &[LLVMValueRef],
    max_insts: usize,
) -> Option<(LLVMValueRef, usize)> {
    let function = fa.function();
    let loads = ir::blocks(function)
        .flat_map(ir::instructions)
        .filter(|&i| ir::opcode(i) == inkwell::llvm_sys::LLVMOpcode::LLVMLoad && ir::operand(i, 0) == pending_word)
        .count();
    let first = splits.keys().min().map(|i| splits[i].1)?;
    if loads < splits.len() + MIN_BODY_CHECKS {
        return None;
    }
    let submits: Vec<LLVMBasicBlockRef> =
        splits.values().map(|&(br, _)| ir::successors(ir::parent_block(br))[0]).collect();
    let (clone, dispatch) = fa.clone_body(max_insts)?;
    let checks: Vec<LLVMValueRef> = guard_branches.iter().map(|&br| clone.lookup(br)).collect();
    // Every edge of the copy into a copied submitting block (a split's, or
    // a loop copy's bail edge) goes to the original block instead.
    clone.bail_to(&submits);
    finish(fa, b, &clone, dispatch, &checks, pending_word);
    Some((first, loads - splits.len()))
}

/// After the bail edges are set: repairs SSA, makes the copy's windowed
/// checks (`checks`) hits, sets `dispatch` to enter the copy when the
/// pending word reads 0, and folds the copy with the word 0.
fn finish(
    fa: &FunctionAnalyses<'_>,
    b: &Builder,
    clone: &context::LoopClone,
    dispatch: LLVMValueRef,
    checks: &[LLVMValueRef],
    pending_word: LLVMValueRef,
) {
    clone.repair_ssa(fa);
    for &br in checks {
        context::make_unconditional(br, 1);
    }
    enter_when_none_pending(fa, b, clone, dispatch, pending_word);
}

/// Sets the condition of `dispatch` (the branch into `clone`) to "the
/// pending word reads 0", then makes every load of the word in the copy 0
/// (its checks fold away).
pub fn enter_when_none_pending(
    fa: &FunctionAnalyses<'_>,
    b: &Builder,
    clone: &context::LoopClone,
    dispatch: LLVMValueRef,
    pending_word: LLVMValueRef,
) {
    // (The condition first: the clean-up folds a constant dispatch.)
    b.position_before_no_loc(dispatch);
    let size = b.intptr_type();
    let word = b.load_acquire(size, pending_word, 8);
    let none = b.icmp(LLVMIntPredicate::LLVMIntEQ, word, b.const_int(size, 0));
    ir::set_condition(dispatch, none);
    clone.assume_zero(fa, pending_word);
}

/// Versions each candidate loop (at most `max_insts` instructions, in the
/// current IR). `splits`: per copy, the conditional branch of its split
/// (successor 0: the submitting side) and its submitting call; `guard_branches`: the conditional
/// branches of every windowed check (successor 1: the hit). Returns the
/// versioned loops' first submitting calls and copy counts (for remarks).
pub fn version(
    fa: &FunctionAnalyses<'_>,
    b: &Builder,
    pending_word: LLVMValueRef,
    loops: &[Candidate],
    splits: &HashMap<usize, (LLVMValueRef, LLVMValueRef)>,
    guard_branches: &[LLVMValueRef],
    max_insts: usize,
) -> Vec<(LLVMValueRef, usize)> {
    let mut done = Vec::new();
    for cand in loops {
        let branches: Vec<LLVMValueRef> = cand.copies.iter().filter_map(|i| splits.get(i).map(|&(br, _)| br)).collect();
        if branches.len() != cand.copies.len() || fa.prepare_loop(cand.header, max_insts).is_none() {
            continue;
        }
        let (clone, dispatch) = fa.clone_loop(cand.header);
        // Everything looked up before the copy changes.
        let bails: Vec<(LLVMValueRef, LLVMBasicBlockRef)> =
            branches.iter().map(|&br| (clone.lookup(br), ir::successors(ir::parent_block(br))[0])).collect();
        let checks: Vec<LLVMValueRef> =
            guard_branches.iter().map(|&br| clone.lookup(br)).filter(|c| !guard_branches.contains(c)).collect();
        for &(br, submit) in &bails {
            context::set_successor(br, 0, submit);
        }
        finish(fa, b, &clone, dispatch, &checks, pending_word);
        drop(clone);
        done.push((splits[&cand.copies[0]].1, cand.copies.len()));
    }
    done
}
