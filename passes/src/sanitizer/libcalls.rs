//! Library calls stay calls, so the runtime's interceptors see them;
//! short constant-length comparisons are checked inline instead and left to
//! CodeGen's expansion.

use super::checks::INLINE_MAX;
use crate::ir;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::LLVMOpcode;

/// Keeps a call to an external function that takes a pointer a real call,
/// by marking the call site `nobuiltin` (as AddressSanitizer's
/// `maybeMarkSanitizerLibraryCallNoBuiltin`). CodeGen runs after this pass
/// and may expand a recognised library call inline: ExpandMemCmp turns
/// `memcmp`/`bcmp` with a small constant length into plain loads, and
/// SelectionDAG lowers other `mem*`/`str*` calls on some targets. Those
/// loads would be unchecked; as a call, the runtime's interceptor checks
/// it. Calls with the `builtin` attribute (C++ `operator new`) and
/// intrinsics are left alone; a call to a function that is not a library
/// function is unaffected by `nobuiltin`.
/// Calls of [`inline_compare`] stay builtins: their reads are checked
/// before the call.
pub(super) fn keep_libcall(inst: LLVMValueRef) {
    if ir::opcode(inst) != LLVMOpcode::LLVMCall || inline_compare(inst).is_some() {
        return;
    }
    let Some(callee) = ir::called_function(inst) else { return };
    if !ir::is_declaration(callee) || ir::function_intrinsic_id(callee) != 0 {
        return;
    }
    // SAFETY: inst is a live call; the attribute kinds are looked up by name
    // and the parameter array has exactly LLVMCountParamTypes entries.
    unsafe {
        let fn_ty = c::LLVMGetCalledFunctionType(inst);
        let n = c::LLVMCountParamTypes(fn_ty) as usize;
        let mut params = vec![std::ptr::null_mut(); n];
        c::LLVMGetParamTypes(fn_ty, params.as_mut_ptr());
        if !params.iter().any(|&t| ir::type_kind(t) == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind) {
            return;
        }
        let kind = |name: &str| c::LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
        let fn_index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
        let (builtin, nobuiltin) = (kind("builtin"), kind("nobuiltin"));
        if nobuiltin == 0 || !c::LLVMGetCallSiteEnumAttribute(inst, fn_index, builtin).is_null() {
            return;
        }
        let attr = c::LLVMCreateEnumAttribute(c::LLVMGetTypeContext(ir::type_of(inst)), nobuiltin, 0);
        c::LLVMAddCallSiteAttribute(inst, fn_index, attr);
    }
}

/// `(a, b, n)` of a call `memcmp(a, b, n)` or `bcmp(a, b, n)` of the
/// declared library function with a constant `n` in `1..=`[`INLINE_MAX`]
/// (the longest access tested inline):
/// the pass checks both `n`-byte reads before the call (as loads, inline
/// while a copy is pending) and leaves the call a builtin, so CodeGen's
/// ExpandMemCmp turns it into the plain build's loads and compares instead
/// of a call of the interceptor and of libc's `memcmp` (the interceptor
/// checks the same bytes: all `n`, as ASan's `strict_memcmp=1`). Where
/// CodeGen keeps the call (at -O0), the interceptor checks them again.
pub(super) fn inline_compare(inst: LLVMValueRef) -> Option<(LLVMValueRef, LLVMValueRef, u64)> {
    if ir::opcode(inst) != LLVMOpcode::LLVMCall || ir::num_args(inst) != 3 {
        return None;
    }
    let callee = ir::called_function(inst)?;
    if !ir::is_declaration(callee) || !matches!(ir::name(callee).as_str(), "memcmp" | "bcmp") {
        return None;
    }
    let n = ir::const_int(ir::arg(inst, 2)).filter(|n| (1..=INLINE_MAX).contains(n))?;
    let (a, b) = (ir::arg(inst, 0), ir::arg(inst, 1));
    // SAFETY: inst is a live call; the attribute kind is looked up by name.
    let nobuiltin = unsafe {
        let kind = c::LLVMGetEnumAttributeKindForName(c"nobuiltin".as_ptr(), "nobuiltin".len());
        kind != 0 && !c::LLVMGetCallSiteEnumAttribute(inst, inkwell::llvm_sys::LLVMAttributeFunctionIndex, kind).is_null()
    };
    (!nobuiltin && ir::is_ptr_as0(a) && ir::is_ptr_as0(b)).then_some((a, b, n))
}
