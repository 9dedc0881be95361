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
use super::section;
use crate::context;
use crate::ir;
use inkwell::llvm_sys::prelude::LLVMValueRef;
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
/// prologue is not run twice. Returns the functions changed.
pub fn redirect_calls(module: inkwell::llvm_sys::prelude::LLVMModuleRef, clones: &std::collections::HashMap<LLVMValueRef, LLVMValueRef>, rt: &Runtime) -> Vec<LLVMValueRef> {
    let mut changed = Vec::new();
    let unguarded: std::collections::HashSet<LLVMValueRef> = clones.values().copied().collect();
    for f in ir::functions(module).filter(|&f| !ir::is_declaration(f)).collect::<Vec<_>>() {
        let calls: Vec<(LLVMValueRef, LLVMValueRef)> = ir::blocks(f)
            .flat_map(ir::instructions)
            .filter(|&i| ir::opcode(i) == inkwell::llvm_sys::LLVMOpcode::LLVMCall)
            .filter_map(|i| ir::called_function(i).and_then(|g| clones.get(&g)).map(|&c| (i, c)))
            .collect();
        // An unguarded copy that submits nothing runs with nothing pending
        // from its entry to its return (callees complete their own copies):
        // its calls go to the callees' unguarded copies directly.
        let quiet = unguarded.contains(&f) && !submits(f);
        let mut any = false;
        for (call, clone) in calls {
            if quiet {
                ir::set_called_function(call, clone);
                any = true;
            } else {
                any |= context::dispatch_call(call, clone, rt.pending_word());
            }
        }
        if any {
            changed.push(f);
        }
    }
    changed
}

/// Whether `f` calls anything that may submit a copy itself: a Copier entry
/// point that submits (the pass's site entry points, the program's own
/// `amemcpy` family, `copier_submit`).
fn submits(f: LLVMValueRef) -> bool {
    ir::blocks(f).flat_map(ir::instructions).filter(|&i| ir::is_call(i)).any(|i| {
        ir::called_function(i).is_some_and(|g| {
            let n = ir::name(g);
            n.starts_with("amemcpy") || n.starts_with("amemmove") || n.starts_with("__copier_amem") || n == "copier_submit" || n == "__copier_submit"
        })
    })
}

/// Deletes an unused copy.
pub fn discard(clone: LLVMValueRef) {
    ir::delete_function(clone);
}
