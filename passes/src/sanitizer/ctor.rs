//! The module constructor (after ASan's `asan.module_ctor`): initializes
//! the runtime and checks its ABI version; and the marker that keeps a
//! module from being instrumented twice.

use super::abi::{declare, CTOR_PRIORITY, INIT, MARKER, MODULE_CTOR, VERSION_CHECK};
use crate::ir;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMLinkage;
use std::ffi::CString;

/// True if the module carries [`MARKER`] (instrumented already).
pub(super) fn is_instrumented(m: LLVMModuleRef) -> bool {
    let marker = CString::new(MARKER).unwrap_or_default();
    // SAFETY: `m` is the live module of this pass run; `marker` is
    // NUL-terminated.
    unsafe { c::LLVMGetNamedMetadataNumOperands(m, marker.as_ptr()) > 0 }
}

/// Adds [`MARKER`] to the module.
pub(super) fn mark_instrumented(m: LLVMModuleRef) {
    // SAFETY: m is live; the marker is a named metadata node with no operands
    // besides an empty tuple.
    unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let node = c::LLVMMDNodeInContext2(ctx, std::ptr::null_mut(), 0);
        let marker = CString::new(MARKER).unwrap_or_default();
        c::LLVMAddNamedMetadataOperand(m, marker.as_ptr(), c::LLVMMetadataAsValue(ctx, node));
    }
}

/// Adds [`MODULE_CTOR`] (calls the runtime's init and version check) to
/// `llvm.global_ctors` with priority [`CTOR_PRIORITY`]; `Err` names a
/// runtime function the module defines with another type.
pub(super) fn add_module_ctor(m: LLVMModuleRef, b: &ir::Builder) -> Result<(), &'static str> {
    let void = b.void_type();
    let (Some((init, init_ty)), Some((check, check_ty))) = (declare(m, INIT, &[], void), declare(m, VERSION_CHECK, &[], void)) else {
        return Err(INIT);
    };
    let name = CString::new(MODULE_CTOR).unwrap_or_default();
    // SAFETY: m is the live module; the function type has no parameters.
    let ctor = unsafe {
        let fn_ty = c::LLVMFunctionType(void, std::ptr::null_mut(), 0, 0);
        let ctor = c::LLVMAddFunction(m, name.as_ptr(), fn_ty);
        c::LLVMSetLinkage(ctor, LLVMLinkage::LLVMInternalLinkage);
        ctor
    };
    let entry = ir::append_block(ctor, c"");
    b.position_at_end(entry, std::ptr::null_mut());
    b.call(init_ty, init, &[]);
    b.call(check_ty, check, &[]);
    b.ret_void();
    // SAFETY: m is the live module; every value built belongs to it.
    unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let i32 = c::LLVMInt32TypeInContext(ctx);
        let ptr = c::LLVMPointerTypeInContext(ctx, 0);
        let mut fields = [i32, ptr, ptr];
        let elem_ty = c::LLVMStructTypeInContext(ctx, fields.as_mut_ptr(), 3, 0);
        let mut elems: Vec<LLVMValueRef> = Vec::new();
        let old = c::LLVMGetNamedGlobal(m, c"llvm.global_ctors".as_ptr());
        if !old.is_null() {
            let init = c::LLVMGetInitializer(old);
            if !init.is_null() && c::LLVMIsAConstantAggregateZero(init).is_null() {
                for i in 0..c::LLVMGetNumOperands(init) {
                    elems.push(c::LLVMGetOperand(init, i as u32));
                }
            }
            c::LLVMSetValueName2(old, c"llvm.global_ctors.old".as_ptr(), "llvm.global_ctors.old".len());
        }
        let mut vals = [c::LLVMConstInt(i32, CTOR_PRIORITY, 0), ctor, c::LLVMConstPointerNull(ptr)];
        elems.push(c::LLVMConstNamedStruct(elem_ty, vals.as_mut_ptr(), 3));
        let arr = c::LLVMConstArray2(elem_ty, elems.as_mut_ptr(), elems.len() as u64);
        let g = c::LLVMAddGlobal(m, c::LLVMTypeOf(arr), c"llvm.global_ctors".as_ptr());
        c::LLVMSetInitializer(g, arr);
        c::LLVMSetLinkage(g, LLVMLinkage::LLVMAppendingLinkage);
        if !old.is_null() {
            c::LLVMDeleteGlobal(old);
        }
    }
    Ok(())
}
