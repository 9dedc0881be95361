//! Calls of the write/send family that libcopier can absorb (issue 10;
//! docs/copiergen.md "Absorbing writes"): a direct call of the libc
//! declaration `write`, `writev`, `pwrite(64)`, `pwritev(64)`, `send`,
//! `sendto` or `sendmsg` with its x86-64 Linux type is emitted as
//! a call of the runtime's entry point of the same signature
//! (`copier_abi::symbols::ABSORBING`) instead of a `csync` of its buffers
//! and the call. The entry point waits for what the kernel reads in place
//! (an iovec array, a `msghdr`, an address) and has the kernel read the
//! still-pending bytes of the buffers from the copies' sources; the copies
//! stay pending, so the placement keeps them pending after the call.
//! These functions write no memory the program can name (only `errno`),
//! so no sync before them is needed for a copy's source either. `fwrite`
//! keeps its `csync`: stdio takes the bytes at once, so the runtime's
//! `copier_fwrite` would wait there too.

use crate::ir;
use copier_abi::symbols::ABSORBING;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMValueRef;

/// The LLVM function type each libc function has on x86-64 Linux (LP64:
/// `ssize_t`, `size_t` and `off_t` are `i64`, `int` and `socklen_t` `i32`).
const TYPES: &[(&str, &str)] = &[
    ("write", "i64 (i32, ptr, i64)"),
    ("writev", "i64 (i32, ptr, i32)"),
    ("pwrite", "i64 (i32, ptr, i64, i64)"),
    ("pwrite64", "i64 (i32, ptr, i64, i64)"),
    ("pwritev", "i64 (i32, ptr, i32, i64)"),
    ("pwritev64", "i64 (i32, ptr, i32, i64)"),
    ("send", "i64 (i32, ptr, i64, i32)"),
    ("sendto", "i64 (i32, ptr, i64, i32, ptr, i32)"),
    ("sendmsg", "i64 (i32, ptr, i32)"),
];

/// The runtime entry point that stands for `call`, when `call` is a direct
/// `call` (not `invoke`) of a declaration of the family with its libc type.
pub fn absorbing_entry(call: LLVMValueRef) -> Option<&'static str> {
    let callee = ir::declared_callee(call)?;
    let name = ir::name(callee);
    let &(_, want) = TYPES.iter().find(|(n, _)| *n == name)?;
    // SAFETY: handle invariants: `call` is a call instruction, `callee` a
    // function.
    let (call_ty, fn_ty) = unsafe { (c::LLVMGetCalledFunctionType(call), c::LLVMGlobalGetValueType(callee)) };
    if call_ty != fn_ty || ir::type_to_string(fn_ty) != want {
        return None;
    }
    ABSORBING.iter().find(|(n, _)| *n == name).map(|&(_, e)| e)
}

/// Make `call` (matched by [`absorbing_entry`]) call the runtime's
/// `entry`, declared with the call's own function type. False, leaving the
/// call alone, when the module has `entry` with another type.
pub fn retarget(module: inkwell::llvm_sys::prelude::LLVMModuleRef, call: LLVMValueRef, entry: &str) -> bool {
    // SAFETY: handle invariants: `call` is a direct call; the type queries
    // read its function type, whose parameter array has exactly
    // LLVMCountParamTypes entries.
    let (ret, params) = unsafe {
        let ty = c::LLVMGetCalledFunctionType(call);
        let mut params = vec![core::ptr::null_mut(); c::LLVMCountParamTypes(ty) as usize];
        c::LLVMGetParamTypes(ty, params.as_mut_ptr());
        (c::LLVMGetReturnType(ty), params)
    };
    let name = std::ffi::CString::new(entry).expect("symbol names have no NUL");
    match ir::get_or_declare(module, &name, ret, &params, &[]) {
        Some((f, _)) => {
            ir::set_called_function(call, f);
            // The call stands for the program's: CopierSanitizer checks it
            // against the program's own pending copies.
            ir::set_flag_md(call, crate::sanitizer::abi::GENERATED_MD);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every libc name has a type here and an entry point in the ABI list.
    #[test]
    fn tables_agree() {
        assert_eq!(TYPES.len(), ABSORBING.len());
        for ((a, _), (b, _)) in TYPES.iter().zip(ABSORBING) {
            assert_eq!(a, b);
        }
    }
}
