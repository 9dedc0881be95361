//! Frame ends: a stack variable that may be a copy's buffer is checked
//! when its frame or scope dies (after ASan's stack poisoning at returns and
//! `llvm.lifetime.end`, and its `DynamicAllocaLayout` for dynamic allocas).

use super::abi::{declare, RETURN, SCOPE_END};
use super::checks::{load_live, no_merge, when_busy, Checks};
use super::sites::{located, located_before, Sites};
use crate::context::ModuleContext;
use crate::ir;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};

/// `__copier_san_return{suffix}` and `__copier_san_scope_end{suffix}`,
/// declared in the module.
pub(super) struct FrameEnds {
    i64: LLVMTypeRef,
    frame_end: (LLVMValueRef, LLVMTypeRef),
    scope_end: (LLVMValueRef, LLVMTypeRef),
}

impl FrameEnds {
    /// Declares both (`suffix`: `_noabort` or empty); None if the module
    /// defines one with another type.
    pub(super) fn declare(m: LLVMModuleRef, i64: LLVMTypeRef, void: LLVMTypeRef, suffix: &str) -> Option<FrameEnds> {
        let frame_end = declare(m, &format!("{RETURN}{suffix}"), &[i64, i64], void);
        let scope_end = declare(m, &format!("{SCOPE_END}{suffix}"), &[i64, i64], void);
        Some(FrameEnds { i64, frame_end: frame_end?, scope_end: scope_end? })
    }
}

/// Moves the static allocas of `f`'s entry block (constant size) to its
/// top, as ASan's stack instrumentation does. A check splits its block
/// before the access; an alloca left below a check in the entry block
/// would land in another block and become dynamic (a frame pointer, and
/// no promotion to a register: CopierGen's window slots are such allocas).
pub(super) fn hoist_static_allocas(f: LLVMValueRef) {
    // SAFETY: f is a live function definition with an entry block; each
    // moved alloca has only constant operands, so it is valid anywhere in
    // the entry block, and it is reinserted before another instruction of
    // that block.
    unsafe {
        let entry = c::LLVMGetEntryBasicBlock(f);
        let statics: Vec<LLVMValueRef> = ir::instructions(entry)
            .filter(|&i| ir::opcode(i) == LLVMOpcode::LLVMAlloca && ir::const_int(ir::operand(i, 0)).is_some())
            .collect();
        let mut anchor = c::LLVMGetFirstInstruction(entry);
        let b = c::LLVMCreateBuilderInContext(c::LLVMGetTypeContext(c::LLVMTypeOf(f)));
        for a in statics {
            if a == anchor {
                anchor = c::LLVMGetNextInstruction(anchor);
                continue;
            }
            // Reinserting renames: keep the name (CopierGen's slot names).
            let mut len = 0;
            let name = std::ffi::CStr::from_ptr(c::LLVMGetValueName2(a, &mut len)).to_owned();
            c::LLVMInstructionRemoveFromParent(a);
            c::LLVMPositionBuilderBefore(b, anchor);
            c::LLVMInsertIntoBuilderWithName(b, a, name.as_ptr());
        }
        c::LLVMDisposeBuilder(b);
    }
}

/// The static stack variables of `f` (allocas in the entry block with a
/// constant size) whose address escapes to a call: passed (directly or
/// through GEPs, casts, selects and phis) as an argument of a call that is
/// not an intrinsic, stored to memory, or turned into an integer. Only those
/// can be a pending copy's buffer when the frame dies. Returns each with
/// its size in bytes. (Dynamic allocas: [`escaping_dynamic_allocas`].)
pub(super) fn escaping_allocas(cx: &ModuleContext<'_>, f: LLVMValueRef) -> Vec<(LLVMValueRef, u64)> {
    // SAFETY: f is a live function definition with an entry block.
    let entry = unsafe { c::LLVMGetEntryBasicBlock(f) };
    let mut out = Vec::new();
    for inst in ir::instructions(entry) {
        if ir::opcode(inst) != LLVMOpcode::LLVMAlloca || !ir::is_ptr_as0(inst) {
            continue;
        }
        let Some(count) = ir::const_int(ir::operand(inst, 0)) else { continue };
        // SAFETY: inst is an alloca.
        let ty = unsafe { c::LLVMGetAllocatedType(inst) };
        let Some(size) = cx.store_size(ty).map(|s| s.saturating_mul(count)).filter(|&s| s > 0) else { continue };
        if escapes_to_call(inst) {
            out.push((inst, size));
        }
    }
    out
}

fn escapes_to_call(alloca: LLVMValueRef) -> bool {
    let mut seen = vec![alloca];
    let mut work = vec![alloca];
    while let Some(v) = work.pop() {
        for u in ir::users(v) {
            match ir::opcode(u) {
                LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMAddrSpaceCast
                | LLVMOpcode::LLVMSelect
                | LLVMOpcode::LLVMPHI
                    if !seen.contains(&u) =>
                {
                    // Too many derived pointers to follow: assume it escapes.
                    if seen.len() >= 256 {
                        return true;
                    }
                    seen.push(u);
                    work.push(u);
                }
                LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr
                    if (0..ir::num_args(u)).any(|i| ir::arg(u, i) == v)
                        && ir::called_function(u).is_none_or(|g| ir::function_intrinsic_id(g) == 0) =>
                {
                    return true;
                }
                LLVMOpcode::LLVMStore if ir::operand(u, 0) == v => return true,
                LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg if ir::operand(u, 0) != v => return true,
                LLVMOpcode::LLVMPtrToInt | LLVMOpcode::LLVMInsertValue | LLVMOpcode::LLVMInsertElement | LLVMOpcode::LLVMRet => return true,
                _ => {}
            }
        }
    }
    false
}

/// The dynamic stack allocations of `f` (every `alloca` in address space 0
/// that is not an entry-block one of constant size: `alloca()`, VLAs, and
/// allocas a loop scope brackets with `llvm.stacksave`/`stackrestore`)
/// whose address escapes to a call (see [`escapes_to_call`]).
pub(super) fn escaping_dynamic_allocas(f: LLVMValueRef) -> Vec<LLVMValueRef> {
    // SAFETY: f is a live function definition with an entry block.
    let entry = unsafe { c::LLVMGetEntryBasicBlock(f) };
    let mut out = Vec::new();
    for bb in ir::blocks(f) {
        for inst in ir::instructions(bb) {
            if ir::opcode(inst) != LLVMOpcode::LLVMAlloca || !ir::is_ptr_as0(inst) {
                continue;
            }
            if bb == entry && ir::const_int(ir::operand(inst, 0)).is_some() {
                continue;
            }
            if escapes_to_call(inst) {
                out.push(inst);
            }
        }
    }
    out
}

/// The frame-end checks of the dynamic stack area (after ASan's
/// `DynamicAllocaLayout`, which unpoisons `[last alloca, frame)` at each
/// return and `llvm.stackrestore`). The size of a dynamic allocation is a
/// run-time value and an `alloca()` in a loop allocates anew at each
/// iteration, so the checks cover the area rather than each variable:
/// the stack pointer at entry (`llvm.stacksave`, after the static frame)
/// is the area's top, and a slot in the frame holds its lowest live
/// address, lowered after each escaping dynamic `alloca`. Before every
/// `ret`/`resume` (before a `musttail` call) `__copier_san_return(low, top
/// - low)`; before every `llvm.stackrestore(p)` (the end of a VLA's scope)
/// `__copier_san_scope_end(low, p - low)` for what the restore frees, and
/// the slot rises to `p`. Returns true if `f` was instrumented.
pub(super) fn instrument_dynamic_area(b: &ir::Builder, m: LLVMModuleRef, f: LLVMValueRef, allocas: &[LLVMValueRef], sites: &Sites, ends: &FrameEnds) -> bool {
    if allocas.is_empty() {
        return false;
    }
    let i64 = ends.i64;
    let save_id = ir::intrinsic_id("llvm.stacksave");
    let restore_id = ir::intrinsic_id("llvm.stackrestore");
    if save_id == 0 || restore_id == 0 {
        return false;
    }
    let mut points: Vec<(LLVMValueRef, Option<LLVMValueRef>)> = Vec::new();
    for bb in ir::blocks(f) {
        for inst in ir::instructions(bb) {
            match ir::opcode(inst) {
                LLVMOpcode::LLVMRet | LLVMOpcode::LLVMResume => points.push((exit_point(inst), None)),
                LLVMOpcode::LLVMCall
                    if ir::num_args(inst) == 1 && ir::called_function(inst).is_some_and(|g| ir::function_intrinsic_id(g) == restore_id) =>
                {
                    points.push((inst, Some(ir::arg(inst, 0))));
                }
                _ => {}
            }
        }
    }
    // SAFETY: m is live; the intrinsic is overloaded on one pointer type.
    let (save, save_ty) = unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let mut ptr = c::LLVMPointerTypeInContext(ctx, 0);
        (c::LLVMGetIntrinsicDeclaration(m, save_id, &mut ptr, 1), c::LLVMIntrinsicGetType(ctx, save_id, &mut ptr, 1))
    };
    // Before the first instruction that is not a static alloca (a dynamic
    // alloca may be in the entry block too). `top` and `slot` are built
    // there, hence before every dynamic alloca: they dominate every use
    // built below.
    // SAFETY: f is a live function definition.
    let entry = unsafe { c::LLVMGetEntryBasicBlock(f) };
    let Some(first) = ir::instructions(entry).find(|&i| ir::opcode(i) != LLVMOpcode::LLVMAlloca || ir::const_int(ir::operand(i, 0)).is_none())
    else {
        return false;
    };
    b.position_before_at(first, sites.fallback);
    let slot = b.alloca(i64, c"copier_san.dynamic_low");
    let top = b.call(save_ty, save, &[]);
    ir::set_name(top, c"copier_san.dynamic_top");
    let top_int = b.ptr_to_int(top, i64);
    b.store(top_int, slot);
    for &a in allocas {
        let Some(next) = ir::next_instruction(a) else { continue };
        b.position_before_at(next, located(a).unwrap_or(sites.fallback));
        let addr = b.ptr_to_int(a, i64);
        let low = b.load(i64, slot);
        let below = b.icmp(LLVMIntPredicate::LLVMIntULT, addr, low);
        let new = b.select(below, addr, low);
        b.store(new, slot);
    }
    for (at, restored) in points {
        let loc = located(at).or_else(|| located_before(at)).unwrap_or(sites.fallback);
        b.position_before_at(at, loc);
        let low = b.load(i64, slot);
        let (end, (callee, ty)) = match restored {
            Some(p) => (b.ptr_to_int(p, i64), ends.scope_end),
            None => (b.ptr_to_int(top, i64), ends.frame_end),
        };
        let above = b.icmp(LLVMIntPredicate::LLVMIntUGT, end, low);
        let diff = b.sub(end, low);
        let size = b.select(above, diff, b.const_int(i64, 0));
        no_merge(b.call(ty, callee, &[low, size]));
        if restored.is_some() {
            let new = b.select(above, end, low);
            b.store(new, slot);
        }
    }
    true
}

/// Where the checks of a way out of the function go: before `ret`/`resume`
/// `inst`, or before the `musttail` call that precedes it.
pub(super) fn exit_point(inst: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: inst is a live instruction.
    let prev = unsafe { c::LLVMGetPreviousInstruction(inst) };
    // SAFETY: prev, when not null, is a live instruction.
    let musttail = !prev.is_null()
        && ir::opcode(prev) == LLVMOpcode::LLVMCall
        && unsafe { c::LLVMGetTailCallKind(prev) } == inkwell::llvm_sys::LLVMTailCallKind::LLVMTailCallKindMustTail;
    if musttail {
        prev
    } else {
        inst
    }
}

/// True if only markers (lifetime ends, debug intrinsics) separate `inst`
/// from its block's `ret`.
fn followed_by_return(inst: LLVMValueRef) -> bool {
    let mut i = ir::next_instruction(inst);
    while let Some(n) = i {
        match ir::opcode(n) {
            LLVMOpcode::LLVMRet => return true,
            LLVMOpcode::LLVMCall if ir::is_debug_or_marker(n) => i = ir::next_instruction(n),
            _ => return false,
        }
    }
    false
}

/// Before every way out of `f` (`ret`, `resume`; before a `musttail` call
/// that precedes a `ret`), call `__copier_san_return(addr, size)` for each
/// escaping stack variable, and before an `llvm.lifetime.end` of one that is
/// not right before a return, `__copier_san_scope_end(addr, size)`: a copy
/// still pending into (or from) the variable when its frame or scope ends
/// would land in (read) memory the program reuses. The calls carry the
/// `ret`'s (the marker's) line. Returns true if any call was added.
pub(super) fn instrument_frame_ends(b: &ir::Builder, k: &Checks, f: LLVMValueRef, vars: &[(LLVMValueRef, u64)], sites: &Sites, ends: &FrameEnds) -> bool {
    if vars.is_empty() {
        return false;
    }
    let i64 = ends.i64;
    let lifetime_end = ir::intrinsic_id("llvm.lifetime.end");
    let mut points: Vec<(LLVMValueRef, Option<LLVMValueRef>)> = Vec::new();
    for bb in ir::blocks(f) {
        for inst in ir::instructions(bb) {
            match ir::opcode(inst) {
                LLVMOpcode::LLVMRet | LLVMOpcode::LLVMResume => points.push((exit_point(inst), None)),
                LLVMOpcode::LLVMCall => {
                    let Some(g) = ir::called_function(inst) else { continue };
                    if ir::function_intrinsic_id(g) != lifetime_end || ir::num_args(inst) == 0 || followed_by_return(inst) {
                        continue;
                    }
                    let ptr = ir::arg(inst, ir::num_args(inst) - 1);
                    if vars.iter().any(|&(a, _)| a == ptr) {
                        points.push((inst, Some(ptr)));
                    }
                }
                _ => {}
            }
        }
    }
    for (at, only) in points {
        let loc = located(at).or_else(|| located_before(at)).unwrap_or(sites.fallback);
        let (callee, ty) = if only.is_some() { ends.scope_end } else { ends.frame_end };
        // Nothing pending: no frame can die with a copy in it.
        b.position_before_at(at, loc);
        let busy = when_busy(b, k, at, loc, load_live(b, k));
        // `a` is an entry-block alloca of f, which dominates every
        // instruction but the allocas before it (and `busy` is none of
        // those).
        for &(a, size) in vars.iter().filter(|(a, _)| only.is_none_or(|p| p == *a)) {
            b.position_before_at(busy, loc);
            let addr = b.ptr_to_int(a, i64);
            no_merge(b.call(ty, callee, &[addr, b.const_int(i64, size)]));
        }
    }
    true
}
