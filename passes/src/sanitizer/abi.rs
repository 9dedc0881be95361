//! The named ABI between the pass and the runtime (after
//! `AddressSanitizer.cpp` and `asan_interface.inc`): one prefix, access kind
//! and size in each name, a `_noabort` variant, a version-check symbol;
//! `sanitizer/src/interface.rs` keeps the same names, and stage 80 checks
//! that the runtime defines them.

use crate::ir;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use std::ffi::CString;

/// log2 of application bytes per shadow byte (runtime: `mapping::SHADOW_SCALE`).
pub const SHADOW_SCALE: u64 = 2;
/// Shadow offset (runtime: `mapping::SHADOW_OFFSET`).
pub const SHADOW_OFFSET: u64 = 0x7fff_8000;
/// Pending-destination bit of every application byte of a shadow byte.
pub const DST_BITS: u8 = 0x55;
/// Prefix of every runtime entry point.
pub const PREFIX: &str = "__copier_san_";
/// `__copier_san_load{1,2,4,8,16,N}`.
pub const LOAD: &str = "__copier_san_load";
/// `__copier_san_store{1,2,4,8,16,N}`.
pub const STORE: &str = "__copier_san_store";
/// Suffix of the variants that never halt the program.
pub const NOABORT: &str = "_noabort";
/// `__copier_san_return(addr, size)`: called before a function returns,
/// once per stack variable whose address escapes to a call.
pub const RETURN: &str = "__copier_san_return";
/// `__copier_san_scope_end(addr, size)`: called before `llvm.lifetime.end`
/// of such a variable in the middle of a function.
pub const SCOPE_END: &str = "__copier_san_scope_end";
/// `__copier_san_cxx_throw(sp)`: called before each call of
/// `__cxa_throw`/`__cxa_rethrow` with the thrower's stack pointer.
pub const CXX_THROW: &str = "__copier_san_cxx_throw";
/// `__copier_san_cxx_catch(sp)`: called before each call of
/// `__cxa_begin_catch` with the handler frame's stack pointer.
pub const CXX_CATCH: &str = "__copier_san_cxx_catch";
/// `__copier_san_live`: the runtime's count of pending copies (an `i64`
/// read with monotonic loads; 0: nothing is pending and the whole shadow
/// is clear).
pub const LIVE: &str = "__copier_san_live";
/// `__copier_san_copiergen_memcpy(dst, src, n)`: called right before a
/// copy CopierGen made of the program's `memcpy` (its site entry point or
/// lazy submit); `..._memmove` likewise for `memmove`.
pub const COPIERGEN_MEMCPY: &str = "__copier_san_copiergen_memcpy";
/// See [`COPIERGEN_MEMCPY`].
pub const COPIERGEN_MEMMOVE: &str = "__copier_san_copiergen_memmove";
/// `__copier_san_copiergen_io(which, buf, n)`: called right before a
/// write/send call CopierGen absorbed, `which` its index in
/// `copier_abi::symbols::ABSORBING`.
pub const COPIERGEN_IO: &str = "__copier_san_copiergen_io";
/// Instruction metadata (`!copier.generated !{}`) CopierGen puts on the
/// runtime calls it emits under names the program may call too
/// (`amemcpy_lazy`, the absorbing write/send entry points), so this pass
/// tells them from the program's own calls.
pub const GENERATED_MD: &str = "copier.generated";
/// Runtime initializer, called from the module constructor.
pub const INIT: &str = "__copier_san_init";
/// ABI version check, called from the module constructor.
pub const VERSION_CHECK: &str = "__copier_san_version_mismatch_check_v1";
/// The module constructor the pass adds.
pub const MODULE_CTOR: &str = "copier_san.module_ctor";
/// Named metadata marking an instrumented module (never instrument twice).
pub const MARKER: &str = "copier.sanitizer.instrumented";
/// Priority of the module constructor (ASan's `kAsanCtorAndDtorPriority`).
pub const CTOR_PRIORITY: u64 = 1;

/// Declares the runtime function `name(params) -> void` (`nounwind`), or
/// None if the module defines `name` with another type.
pub(super) fn declare(m: LLVMModuleRef, name: &str, params: &[LLVMTypeRef], void: LLVMTypeRef) -> Option<(LLVMValueRef, LLVMTypeRef)> {
    let name = CString::new(name).ok()?;
    ir::get_or_declare(m, &name, void, params, &["nounwind"])
}
