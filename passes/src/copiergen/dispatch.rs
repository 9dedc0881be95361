//! The nothing-pending dispatch of guarded callees.
//!
//! A guarded function checks every access against whatever its callers left
//! pending. When the pending word (`copier_abi::symbols::PENDING`) reads 0
//! at its entry, no copy is pending anywhere, and none of its callers' can
//! become pending while it runs (a callee completes its own copies before
//! it returns; other threads' copies never touch memory this thread uses
//! before a csync hands it over). So the function starts with
//! `if (pending == 0) return tail call f.copiergen.unguarded(args)`: a copy
//! of its body planned like any other function, with syncs only for the
//! copies it makes itself. In that state a call costs one load, a compare
//! and a jump.

use super::emit::Runtime;
use super::remarks;
use super::section;
use crate::context;
use crate::ir;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use std::ffi::CString;

/// The name of `function`'s unguarded copy.
pub fn clone_name(function: LLVMValueRef) -> CString {
    CString::new(format!("{}.copiergen.unguarded", ir::name(function))).unwrap_or_else(|_| c"copiergen.unguarded".to_owned())
}

/// Copies `function`'s body, before the pass changes it (`None`: see
/// [`context::clone_for_dispatch`]).
pub fn clone_body(cx: &context::ModuleContext<'_>, function: LLVMValueRef) -> Option<LLVMValueRef> {
    context::clone_for_dispatch(cx, function, &clone_name(function))
}

/// Makes the instrumented `function` run `clone` when nothing is pending at
/// its entry, and moves `clone` out of the original functions' way
/// ([`section::place_added`]).
pub fn insert(function: LLVMValueRef, clone: LLVMValueRef, rt: &Runtime) {
    context::insert_dispatch(function, clone, rt.pending_word(), ir::entry_insertion_point(function));
    section::place_added(clone);
}

/// Makes every direct call of a function in `clones` (function, its
/// unguarded copy) pick the copy itself when nothing is pending: the test
/// then costs the caller a load, a compare and a branch, and the callee's
/// prologue is not run twice. A loop of at most `max_loop_insts`
/// instructions that makes such calls and submits nothing is versioned
/// ([`version_loops`]): its calls then pay nothing. Returns the functions
/// changed.
pub fn redirect_calls(
    cx: &context::ModuleContext<'_>,
    clones: &std::collections::HashMap<LLVMValueRef, LLVMValueRef>,
    rt: &Runtime,
    max_loop_insts: usize,
) -> Vec<LLVMValueRef> {
    let mut changed = Vec::new();
    let unguarded: std::collections::HashSet<LLVMValueRef> = clones.values().copied().collect();
    for f in ir::functions(cx.raw()).filter(|&f| !ir::is_declaration(f)).collect::<Vec<_>>() {
        let calls: Vec<(LLVMValueRef, LLVMValueRef)> = ir::blocks(f)
            .flat_map(ir::instructions)
            .filter(|&i| ir::opcode(i) == inkwell::llvm_sys::LLVMOpcode::LLVMCall)
            .filter_map(|i| ir::called_function(i).and_then(|g| clones.get(&g)).map(|&c| (i, c)))
            .collect();
        if calls.is_empty() {
            continue;
        }
        // A call in a copy that runs while nothing is pending (a
        // pending-free loop or body copy) needs no test either.
        let (free, calls): (Vec<_>, Vec<_>) =
            calls.into_iter().partition(|&(call, _)| ir::has_md(call, crate::ffi::CG_NOTHING_PENDING_MD));
        for &(call, clone) in &free {
            ir::set_called_function(call, clone);
        }
        if calls.is_empty() {
            changed.push(f);
            continue;
        }
        // An unguarded copy that submits nothing runs with nothing pending
        // from its entry to its return (callees complete their own copies):
        // its calls go to the callees' unguarded copies directly.
        if unguarded.contains(&f) && !submits(f) {
            for &(call, clone) in &calls {
                ir::set_called_function(call, clone);
            }
            changed.push(f);
            continue;
        }
        let fa = cx.analyses(f);
        if unguarded.contains(&f) {
            // (The original's remarks describe its copy's loops.)
            fa.quiet_remarks();
        }
        // (Chosen before the calls' tests split their blocks.)
        let loops = if max_loop_insts > 0 { quiet_loops(&fa, &calls, max_loop_insts) } else { Vec::new() };
        let mut any = false;
        for &(call, clone) in &calls {
            any |= context::dispatch_call(call, clone, rt.pending_word());
        }
        if any {
            fa.mark_changed();
            version_loops(cx.raw(), &fa, &loops, rt, max_loop_insts);
        }
        if any || !free.is_empty() {
            changed.push(f);
        }
    }
    changed
}

/// Fewest expected calls per entry into a loop that pay for its copy: with
/// fewer, the test at each entry costs what the tests at the calls did,
/// and the copy's code costs more. By the static estimate, a loop of
/// unknown trip count runs tens of iterations and a retry loop (it exits
/// once a call returns anything but one value: sqlite3_step's around
/// sqlite3Step) a few; 8 takes the first and not the second. A profile
/// gives the real counts.
pub const MIN_CALLS_PER_ENTRY: u32 = 8;

/// The loops to version for `calls` (call, clone) of `fa`'s function, in
/// the current IR: for each call, the loop around it that lies in no
/// other loop, when it submits nothing, has at most `max_insts`
/// instructions and runs its calls at least [`MIN_CALLS_PER_ENTRY`] times
/// per entry (by the static estimate, which cannot tell a loop of one
/// iteration from one of thirty: a loop inside another is entered on each
/// of the outer one's iterations, as an interpreter's opcode loops are, and
/// its test at entry would cost more than the tests at calls that mostly do
/// not run); each loop
/// once, with its first call and how many of the calls it holds.
fn quiet_loops(
    fa: &context::FunctionAnalyses<'_>,
    calls: &[(LLVMValueRef, LLVMValueRef)],
    max_insts: usize,
) -> Vec<(LLVMBasicBlockRef, LLVMValueRef, usize)> {
    let submitting: Vec<LLVMBasicBlockRef> = ir::blocks(fa.function())
        .filter(|&bb| ir::instructions(bb).any(|i| ir::is_call(i) && is_submit(i)))
        .collect();
    let blocks: Vec<LLVMBasicBlockRef> = calls.iter().map(|&(call, _)| ir::parent_block(call)).collect();
    let mut loops: Vec<(LLVMBasicBlockRef, LLVMValueRef, usize)> = Vec::new();
    for (header, &(call, _)) in fa.outermost_loops_without(&blocks, &submitting, max_insts, MIN_CALLS_PER_ENTRY, true).into_iter().zip(calls) {
        let Some(header) = header else { continue };
        match loops.iter_mut().find(|l| l.0 == header) {
            Some(l) => l.2 += 1,
            None => loops.push((header, call, 1)),
        }
    }
    loops
}

/// Versions each loop of `loops` ([`quiet_loops`], after the calls'
/// tests): its header enters a copy of the loop when the pending word reads
/// 0, and in the copy every load of the word is 0, so its calls go to the
/// unguarded copies directly and the test runs once per entry instead of
/// once per call. Sound as the tests are: the loop submits nothing, and a
/// callee completes its copies before it returns, so nothing becomes
/// pending while the copy runs.
fn version_loops(
    module: inkwell::llvm_sys::prelude::LLVMModuleRef,
    fa: &context::FunctionAnalyses<'_>,
    loops: &[(LLVMBasicBlockRef, LLVMValueRef, usize)],
    rt: &Runtime,
    max_insts: usize,
) {
    let b = ir::Builder::new(module);
    for &(header, first_call, calls) in loops {
        if fa.prepare_loop(header, max_insts).is_none() {
            continue;
        }
        let (clone, dispatch) = fa.clone_loop(header);
        super::pending_free::enter_when_none_pending(fa, &b, &clone, dispatch, rt.pending_word());
        remarks::dispatch_loop(fa, first_call, calls);
    }
}

/// Removes the pass's nothing-pending marks from every call of `module`
/// (they are for [`redirect_calls`] only).
pub fn clear_marks(module: inkwell::llvm_sys::prelude::LLVMModuleRef) {
    for f in ir::functions(module).filter(|&f| !ir::is_declaration(f)) {
        for i in ir::blocks(f).flat_map(ir::instructions).filter(|&i| ir::is_call(i)) {
            ir::clear_md(i, crate::ffi::CG_NOTHING_PENDING_MD);
        }
    }
}

/// Whether `f` calls anything that may submit a copy itself: a Copier entry
/// point that submits (the pass's site entry points, the program's own
/// `amemcpy` family, `copier_submit`).
fn submits(f: LLVMValueRef) -> bool {
    ir::blocks(f).flat_map(ir::instructions).filter(|&i| ir::is_call(i)).any(is_submit)
}

/// Whether the call `call` is one of [`submits`]'s entry points.
fn is_submit(call: LLVMValueRef) -> bool {
    ir::called_function(call).is_some_and(|g| {
        let n = ir::name(g);
        n.starts_with("amemcpy") || n.starts_with("amemmove") || n.starts_with("__copier_amem") || n == "copier_submit" || n == "__copier_submit"
    })
}

/// Deletes an unused copy.
pub fn discard(clone: LLVMValueRef) {
    ir::delete_function(clone);
}
