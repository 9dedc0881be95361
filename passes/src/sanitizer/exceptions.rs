//! C++ exceptions: the frames a throw unwinds die without a return, so the
//! stack between the thrower and the handler is checked at the catch.

use super::abi::{declare, CXX_CATCH, CXX_THROW};
use super::checks::no_merge;
use super::sites::{located, located_before, Sites};
use crate::ir;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMOpcode;

/// `__copier_san_cxx_throw` and `__copier_san_cxx_catch`, declared in the
/// module.
pub(super) struct CxxHooks {
    i64: LLVMTypeRef,
    throw: (LLVMValueRef, LLVMTypeRef),
    catch: (LLVMValueRef, LLVMTypeRef),
}

impl CxxHooks {
    /// Declares both; None if the module defines one with another type.
    pub(super) fn declare(m: LLVMModuleRef, i64: LLVMTypeRef, void: LLVMTypeRef) -> Option<CxxHooks> {
        let throw = declare(m, CXX_THROW, &[i64], void);
        let catch = declare(m, CXX_CATCH, &[i64], void);
        Some(CxxHooks { i64, throw: throw?, catch: catch? })
    }
}

/// C++ exceptions (Itanium C++ ABI 2.4): a throw's unwinding kills the
/// frames between the thrower and the handler without running their
/// returns. Before each call (or invoke) of `__cxa_throw`/`__cxa_rethrow`,
/// `__copier_san_cxx_throw(sp)`; before each call of `__cxa_begin_catch`
/// (the handler's first act), `__copier_san_cxx_catch(sp)`; `sp` is the
/// calling frame's stack pointer (`llvm.stacksave`). The runtime checks the
/// stack between the two (`sanitizer/src/interception/jump.rs`). Done in
/// the IR rather than by interposing the C++ runtime, so a program linked
/// with `-static-libstdc++` still links; throws made inside uninstrumented
/// code (libstdc++'s own, `std::rethrow_exception`) are not seen. Returns
/// true if a call was added.
pub(super) fn instrument_exceptions(b: &ir::Builder, m: LLVMModuleRef, f: LLVMValueRef, sites: &Sites, hooks: &CxxHooks) -> bool {
    let mut points = Vec::new();
    for bb in ir::blocks(f) {
        for inst in ir::instructions(bb) {
            if !matches!(ir::opcode(inst), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) {
                continue;
            }
            let Some(g) = ir::called_function(inst) else { continue };
            match ir::name(g).as_str() {
                "__cxa_throw" | "__cxa_rethrow" => points.push((inst, hooks.throw)),
                "__cxa_begin_catch" => points.push((inst, hooks.catch)),
                _ => {}
            }
        }
    }
    if points.is_empty() {
        return false;
    }
    let save_id = ir::intrinsic_id("llvm.stacksave");
    // SAFETY: m is live; the intrinsic is overloaded on one pointer type.
    let (save, save_ty) = unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let mut ptr = c::LLVMPointerTypeInContext(ctx, 0);
        (c::LLVMGetIntrinsicDeclaration(m, save_id, &mut ptr, 1), c::LLVMIntrinsicGetType(ctx, save_id, &mut ptr, 1))
    };
    // The builder goes before live calls of f (never before a landingpad or
    // phi: the calls follow them).
    for (at, (callee, ty)) in points {
        let loc = located(at).or_else(|| located_before(at)).unwrap_or(sites.fallback);
        b.position_before_at(at, loc);
        let sp = b.call(save_ty, save, &[]);
        let sp = b.ptr_to_int(sp, hooks.i64);
        no_merge(b.call(ty, callee, &[sp]));
    }
    true
}
