//! Library calls stay calls, so the runtime's interceptors see them.

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
pub(super) fn keep_libcall(inst: LLVMValueRef) {
    if ir::opcode(inst) != LLVMOpcode::LLVMCall {
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
