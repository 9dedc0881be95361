//! `csync_ready_end` under the sanitizer: its calls go to the runtime's
//! `__copier_san_ready_end`, and a miss is skipped while nothing is pending.

use crate::context::split_if_then;
use crate::ir;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMIntPredicate, LLVMLinkage, LLVMOpcode};

/// libcopier's `csync_ready_end` (its reserved symbol
/// `copier_abi::symbols::CSYNC_READY_END`, which CopierGen and `copier.h`
/// call) and the runtime's replacement
/// `__copier_san_ready_end` (same type), if the module calls the former.
/// Under the sanitizer libcopier returns exactly `addr + n`, so a CopierGen
/// window loop would call the runtime once per access; the replacement
/// returns a window that is wider yet decided by program events only (see
/// `sanitizer/src/interface.rs`).
pub(super) fn replacement(m: LLVMModuleRef) -> Option<(LLVMValueRef, LLVMValueRef)> {
    // SAFETY: m is the live module; the name is NUL-terminated.
    let from = unsafe { c::LLVMGetNamedFunction(m, c"__copier_csync_ready_end".as_ptr()) };
    if from.is_null() {
        return None;
    }
    // SAFETY: from is a function of m.
    let fn_ty = unsafe { c::LLVMGlobalGetValueType(from) };
    // SAFETY: fn_ty is a function type; the arrays have LLVMCountParamTypes entries.
    let (ret, params) = unsafe {
        let n = c::LLVMCountParamTypes(fn_ty) as usize;
        let mut params = vec![std::ptr::null_mut(); n];
        c::LLVMGetParamTypes(fn_ty, params.as_mut_ptr());
        (c::LLVMGetReturnType(fn_ty), params)
    };
    let (to, _) = ir::get_or_declare(m, c"__copier_san_ready_end", ret, &params, &["nounwind"])?;
    // SAFETY: both are functions of m.
    (unsafe { c::LLVMGlobalGetValueType(to) } == fn_ty).then_some((from, to))
}

/// Make a direct call to `from` call `to` (same function type).
pub(super) fn redirect_call(inst: LLVMValueRef, from: LLVMValueRef, to: LLVMValueRef) {
    if ir::opcode(inst) != LLVMOpcode::LLVMCall || ir::called_function(inst) != Some(from) {
        return;
    }
    // SAFETY: the callee is a call's last operand; `to` has the same type.
    unsafe {
        let n = c::LLVMGetNumOperands(inst);
        c::LLVMSetOperand(inst, (n - 1) as u32, to);
    }
}

/// True if `f` is an internal forwarder to `target` (CopierGen's
/// `preserve_allcc` miss helper, [`ir::get_or_define_forwarder`]): one block
/// that calls `target` with its own parameters and returns the result.
pub(super) fn is_forwarder_to(f: LLVMValueRef, target: LLVMValueRef) -> bool {
    if ir::is_declaration(f) {
        return false;
    }
    // SAFETY: f is a function definition of the module.
    let (internal, blocks) = unsafe {
        (c::LLVMGetLinkage(f) == LLVMLinkage::LLVMInternalLinkage || c::LLVMGetLinkage(f) == LLVMLinkage::LLVMPrivateLinkage, c::LLVMCountBasicBlocks(f))
    };
    if !internal || blocks != 1 {
        return false;
    }
    let Some(bb) = ir::blocks(f).next() else { return false };
    let insts: Vec<LLVMValueRef> = ir::instructions(bb).collect();
    let [call, ret] = insts[..] else { return false };
    ir::opcode(call) == LLVMOpcode::LLVMCall
        && ir::called_function(call) == Some(target)
        && (0..ir::num_args(call)).all(|i| ir::param(f, i) == Some(ir::arg(call, i)))
        && ir::opcode(ret) == LLVMOpcode::LLVMRet
        && ir::operand(ret, 0) == call
}

/// Guards a `csync_ready_end` miss (a direct call, or a call of a forwarder
/// to it) with the runtime's pending-copy count: when [`super::LIVE`] is 0 the
/// answer is the whole address space (`(void *)-1`, what
/// `__copier_san_ready_end` returns then) and no call is made; otherwise
/// the call runs as before, on a cold path.
pub(super) fn skip_when_idle(b: &ir::Builder, live: LLVMValueRef, call: LLVMValueRef) {
    let head = ir::parent_block(call);
    let Some(next) = ir::next_instruction(call) else { return };
    // SAFETY: call is a live instruction; live is the module's global.
    let (loc, i64) = unsafe { (di::LLVMInstructionGetDebugLoc(call), c::LLVMGlobalGetValueType(live)) };
    b.position_before_at(call, loc);
    let n = b.load_named(i64, live, c"copier_san.live", 8);
    ir::set_ordering(n, LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic);
    let busy = b.icmp(LLVMIntPredicate::LLVMIntNE, n, b.const_int(i64, 0));
    let term = split_if_then(busy, call, true);
    let cold = ir::parent_block(term);
    ir::remove_from_parent(call);
    b.position_before_at(term, loc);
    b.insert(call);
    // The phi goes at the top of the block the split left `call`'s
    // successors in, whose predecessors are exactly `head` and `cold`.
    b.position_for_phi(next, loc);
    let ty = ir::type_of(call);
    let phi = b.phi(ty, c"copier_san.ready_end");
    ir::replace_all_uses(call, phi);
    // SAFETY: i64 and ty (a pointer type) are types of the module's context.
    let all = unsafe { c::LLVMConstIntToPtr(c::LLVMConstAllOnes(i64), ty) };
    ir::add_incoming(phi, &[(call, cold), (all, head)]);
}
