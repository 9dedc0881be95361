//! Raw declarations of the C++ shim (`passes/cpp/shim.cpp`, types in
//! `passes/cpp/shim.h`). Nothing outside [`crate::context`], [`crate::plugin`]
//! and [`crate::options`] calls these directly; keep every type in sync with
//! shim.h field by field.
#![doc(hidden)]
#![allow(missing_docs)]
// A mirror of shim.h: every constant is kept even when Rust does not use it.
#![allow(dead_code)]

use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use std::ffi::{c_char, c_void};

/// Opaque `CgFunctionCtx`.
#[repr(C)]
pub struct CgFunctionCtx {
    _private: [u8; 0],
}
/// Opaque `llvm::ModuleAnalysisManager`.
#[repr(C)]
pub struct CgModuleAM {
    _private: [u8; 0],
}
/// Opaque `CgLoopClone` (a loop copy's value map).
#[repr(C)]
pub struct CgLoopClone {
    _private: [u8; 0],
}
/// Opaque `llvm::PassBuilder`.
#[repr(C)]
pub struct CgPassBuilder {
    _private: [u8; 0],
}

pub type CgRunFn = unsafe extern "C" fn(
    data: *mut c_void,
    params: *const c_char,
    params_len: usize,
    module: LLVMModuleRef,
    mam: *mut CgModuleAM,
) -> bool;
pub type CgParseFn = unsafe extern "C" fn(
    data: *mut c_void,
    params: *const c_char,
    params_len: usize,
    err: *mut c_char,
    err_cap: usize,
) -> bool;

pub const CG_SCHEDULE_OPTIMIZER_LAST: u32 = 1 << 0;
pub const CG_SCHEDULE_FULL_LTO_LAST: u32 = 1 << 1;
pub const CG_SCHEDULE_LTO_PRELINK: u32 = 1 << 2;
/// The parameters of a [`CG_SCHEDULE_LTO_PRELINK`] run (shim.h).
pub const CG_LTO_PRELINK_PARAMS: &str = "lto-prelink";
/// Metadata kind on the calls of a copy that runs while nothing is
/// pending (shim.h, `cg_loop_clone_assume_zero`).
pub const CG_NOTHING_PENDING_MD: &str = "copiergen.nothing_pending";

pub const CG_OPTION_UINT: u32 = 0;
pub const CG_OPTION_BOOL: u32 = 1;
pub const CG_OPTION_STRING: u32 = 2;
pub const CG_OPTION_SIZE: u32 = 3;

#[repr(C)]
pub struct CgOptionDesc {
    pub name: *const c_char,
    pub name_len: usize,
    pub help: *const c_char,
    pub help_len: usize,
    pub kind: u32,
    pub default_uint: u64,
    pub default_str: *const c_char,
    pub default_str_len: usize,
}

pub const CG_SIZE_PRECISE: u8 = 0;
pub const CG_SIZE_AFTER_POINTER: u8 = 1;
pub const CG_SIZE_UNKNOWN: u8 = 2;

pub const CG_REF: u8 = 1;
pub const CG_MOD: u8 = 2;

pub const CG_NO_ALIAS: u8 = 0;
pub const CG_MAY_ALIAS: u8 = 1;
pub const CG_PARTIAL_ALIAS: u8 = 2;
pub const CG_MUST_ALIAS: u8 = 3;

pub const CG_OBJECT_UNKNOWN: u8 = 0;
pub const CG_OBJECT_ALLOCA: u8 = 1;
pub const CG_OBJECT_GLOBAL: u8 = 2;
pub const CG_OBJECT_HEAP: u8 = 3;
pub const CG_OBJECT_ARGUMENT: u8 = 4;
pub const CG_OBJECT_THREAD_LOCAL: u8 = 5;

pub const CG_CALL_NOUNWIND: u32 = 1 << 0;
pub const CG_CALL_WILLRETURN: u32 = 1 << 1;
pub const CG_CALL_NORETURN: u32 = 1 << 2;
pub const CG_CALL_MUSTTAIL: u32 = 1 << 3;
pub const CG_CALL_KNOWN_LIBFUNC: u32 = 1 << 4;
pub const CG_CALL_INLINE_ASM: u32 = 1 << 5;
pub const CG_CALL_INDIRECT: u32 = 1 << 6;
pub const CG_CALL_RETURNS_TWICE: u32 = 1 << 7;
pub const CG_CALL_DOES_NOT_ACCESS_MEMORY: u32 = 1 << 8;
pub const CG_CALL_ONLY_READS_MEMORY: u32 = 1 << 9;
pub const CG_CALL_INTRINSIC: u32 = 1 << 10;
pub const CG_CALL_MAY_FREE: u32 = 1 << 11;
pub const CG_CALL_ARGMEM_ONLY: u32 = 1 << 12;
pub const CG_CALL_MEMORY_BUNDLES: u32 = 1 << 13;

pub const CG_ARG_READS: u32 = 1 << 0;
pub const CG_ARG_WRITES: u32 = 1 << 1;

pub const CG_ORDERING_RELEASE: u8 = 5;

pub const CG_BOUND_TRIP_COUNT: u8 = 1 << 0;
pub const CG_BOUND_OBJECT_SIZE: u8 = 1 << 1;

pub const CG_REMARK_PASSED: u8 = 0;
pub const CG_REMARK_MISSED: u8 = 1;
pub const CG_REMARK_ANALYSIS: u8 = 2;

#[repr(C)]
pub struct CgRemarkArg {
    pub key: *const c_char,
    pub key_len: usize,
    pub val: *const c_char,
    pub val_len: usize,
}

pub const CG_SEVERITY_ERROR: u8 = 0;
pub const CG_SEVERITY_WARNING: u8 = 1;

unsafe extern "C" {
    pub fn cg_register_module_pass(
        pb: *mut CgPassBuilder,
        name: *const c_char,
        name_len: usize,
        schedule: u32,
        run: CgRunFn,
        parse: CgParseFn,
        data: *mut c_void,
    );
    pub fn cg_option_uint(idx: usize) -> u64;
    pub fn cg_option_bool(idx: usize) -> bool;
    pub fn cg_option_string(idx: usize, len: *mut usize) -> *const c_char;
    pub fn cg_option_set(idx: usize, value: *const c_char, len: usize) -> bool;
    pub fn cg_option_given(idx: usize) -> bool;

    pub fn cg_function_begin(mam: *mut CgModuleAM, f: LLVMValueRef) -> *mut CgFunctionCtx;
    pub fn cg_function_end(ctx: *mut CgFunctionCtx, changed: bool);
    pub fn cg_mod_ref(
        ctx: *mut CgFunctionCtx,
        inst: LLVMValueRef,
        ptr: LLVMValueRef,
        size: u64,
        kind: u8,
    ) -> u8;
    pub fn cg_alias(
        ctx: *mut CgFunctionCtx,
        p1: LLVMValueRef,
        s1: u64,
        k1: u8,
        p2: LLVMValueRef,
        s2: u64,
        k2: u8,
    ) -> u8;
    pub fn cg_underlying_object(v: LLVMValueRef) -> LLVMValueRef;
    pub fn cg_object_kind(v: LLVMValueRef) -> u8;
    pub fn cg_is_exact_definition(f: LLVMValueRef) -> bool;
    pub fn cg_is_constant_global(v: LLVMValueRef) -> bool;
    pub fn cg_base_offset(m: LLVMModuleRef, v: LLVMValueRef, offset: *mut i64) -> LLVMValueRef;
    pub fn cg_may_be_captured(ctx: *mut CgFunctionCtx, v: LLVMValueRef) -> bool;
    pub fn cg_call_props(ctx: *mut CgFunctionCtx, call: LLVMValueRef) -> u32;
    pub fn cg_call_arg_memory(call: LLVMValueRef, arg_no: u32, size: *mut u64) -> u32;
    pub fn cg_is_library_call(ctx: *mut CgFunctionCtx, call: LLVMValueRef) -> bool;
    pub fn cg_library_routine_usable(ctx: *mut CgFunctionCtx, name: *const c_char, len: usize) -> bool;
    pub fn cg_loop_depth(ctx: *mut CgFunctionCtx, bb: LLVMBasicBlockRef) -> u32;
    pub fn cg_increasing_in_loop(
        ctx: *mut CgFunctionCtx,
        ptr: LLVMValueRef,
        bb: LLVMBasicBlockRef,
        header: *mut LLVMBasicBlockRef,
    ) -> LLVMBasicBlockRef;
    pub fn cg_constant_distance(ctx: *mut CgFunctionCtx, p: LLVMValueRef, q: LLVMValueRef, distance: *mut i64) -> bool;
    pub fn cg_access_within(
        ctx: *mut CgFunctionCtx,
        ptr: LLVMValueRef,
        size_const: u64,
        size_value: LLVMValueRef,
        base: LLVMValueRef,
        len: LLVMValueRef,
        at: LLVMValueRef,
        copy: LLVMValueRef,
    ) -> bool;
    pub fn cg_loop_contains(ctx: *mut CgFunctionCtx, header: LLVMBasicBlockRef, bb: LLVMBasicBlockRef) -> bool;
    pub fn cg_loop_prepare(ctx: *mut CgFunctionCtx, header: LLVMBasicBlockRef, max_insts: usize) -> LLVMBasicBlockRef;
    pub fn cg_loop_max_address(
        ctx: *mut CgFunctionCtx,
        header: LLVMBasicBlockRef,
        max_insts: usize,
        min_trips: u32,
        ptr: LLVMValueRef,
        offset: i64,
        len: u64,
        kinds: *mut u8,
    ) -> LLVMValueRef;
    pub fn cg_delete_if_dead(v: LLVMValueRef);
    pub fn cg_verify_function(f: LLVMValueRef, buf: *mut c_char, cap: usize) -> usize;
    pub fn cg_loop_clone(ctx: *mut CgFunctionCtx, header: LLVMBasicBlockRef, dispatch: *mut LLVMValueRef) -> *mut CgLoopClone;
    pub fn cg_body_clone(ctx: *mut CgFunctionCtx, max_insts: usize, dispatch: *mut LLVMValueRef) -> *mut CgLoopClone;
    pub fn cg_body_clone_bail(clone: *mut CgLoopClone, targets: *const LLVMBasicBlockRef, n: usize);
    pub fn cg_loop_clone_lookup(clone: *mut CgLoopClone, v: LLVMValueRef) -> LLVMValueRef;
    pub fn cg_loop_clone_end(clone: *mut CgLoopClone);
    pub fn cg_loop_clone_repair_ssa(ctx: *mut CgFunctionCtx, clone: *mut CgLoopClone);
    pub fn cg_loop_clone_assume_zero(ctx: *mut CgFunctionCtx, clone: *mut CgLoopClone, word: LLVMValueRef);
    pub fn cg_set_successor(term: LLVMValueRef, index: u32, target: LLVMBasicBlockRef);
    pub fn cg_innermost_loop(ctx: *mut CgFunctionCtx, bb: LLVMBasicBlockRef) -> LLVMBasicBlockRef;
    pub fn cg_outermost_loops_without(
        ctx: *mut CgFunctionCtx,
        blocks: *const LLVMBasicBlockRef,
        n: usize,
        blocked: *const LLVMBasicBlockRef,
        n_blocked: usize,
        max_insts: usize,
        min_per_entry: u32,
        outermost_only: bool,
        out: *mut LLVMBasicBlockRef,
    );
    pub fn cg_atomic_ordering(inst: LLVMValueRef) -> u8;
    pub fn cg_is_single_thread_scope(inst: LLVMValueRef) -> bool;
    pub fn cg_split_if_then(cond: LLVMValueRef, before: LLVMValueRef, unlikely: bool) -> LLVMValueRef;
    pub fn cg_clone_for_dispatch(mam: *mut CgModuleAM, f: LLVMValueRef, name: *const c_char) -> LLVMValueRef;
    pub fn cg_insert_dispatch(f: LLVMValueRef, clone: LLVMValueRef, word: LLVMValueRef, before: LLVMValueRef);
    pub fn cg_dispatch_call(call: LLVMValueRef, clone: LLVMValueRef, word: LLVMValueRef) -> bool;
    pub fn cg_may_reach(ctx: *mut CgFunctionCtx, from: LLVMValueRef, to: LLVMValueRef) -> bool;
    pub fn cg_length_max(ctx: *mut CgFunctionCtx, len: LLVMValueRef, at: LLVMValueRef) -> u64;
    pub fn cg_copy_object_max(ctx: *mut CgFunctionCtx, call: LLVMValueRef) -> u64;
    pub fn cg_split_if_then_else(cond: LLVMValueRef, before: LLVMValueRef, then_term: *mut LLVMValueRef, else_term: *mut LLVMValueRef);
    pub fn cg_make_unconditional(br: LLVMValueRef, succ: u32);
    pub fn cg_promote_allocas(ctx: *mut CgFunctionCtx, allocas: *mut LLVMValueRef, count: usize) -> usize;
    pub fn cg_remarks_enabled(ctx: *mut CgFunctionCtx) -> bool;
    pub fn cg_remark(
        ctx: *mut CgFunctionCtx,
        kind: u8,
        name: *const c_char,
        name_len: usize,
        at: LLVMValueRef,
        args: *const CgRemarkArg,
        count: usize,
    );
    pub fn cg_diagnose(m: LLVMModuleRef, f: LLVMValueRef, severity: u8, msg: *const c_char, len: usize);
    pub fn cg_type_store_size(m: LLVMModuleRef, ty: LLVMTypeRef, fixed: *mut bool) -> u64;
}
