//! CopierGen's own runtime calls: a copy the pass made of the program's
//! `memcpy`/`memmove` (a site entry point, `copier_abi::site`, or a lazy
//! submit) and a write/send call it absorbed (an entry point of
//! `copier_abi::symbols::ABSORBING`) stand for the program's call, which
//! must not meet bytes the program's own copies left pending. Each gets a
//! call of the runtime's check right before it, carrying its line:
//! ```text
//!   call void @__copier_san_copiergen_memcpy(i64 dst, i64 src, i64 n)
//!   call ptr @__copier_amemcpy_site(ptr dst, ptr src, i64 n, ptr @site)
//! ```
//! (`..._memmove` before `__copier_amemmove_site`; `..._io(i64 which, i64
//! buf, i64 n)` before an absorbed call, with the call's buffer and length,
//! or iovec array and count, or `msghdr`). The runtime labels the submit
//! that follows as CopierGen's and checks the copy against the program's
//! pending copies only (`sanitizer/src/interface.rs`): CopierGen's own
//! chains of pending copies are legal. Calls under names the program may
//! call itself are recognised by CopierGen's [`GENERATED_MD`] marker.

use super::abi::{declare, COPIERGEN_IO, COPIERGEN_MEMCPY, COPIERGEN_MEMMOVE, GENERATED_MD};
use crate::ir;
use copier_abi::symbols::{ABSORBING, AMEMCPY_LAZY};
use inkwell::llvm_sys::prelude::{LLVMMetadataRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};

/// What a CopierGen call stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// The program's `memcpy(dst, src, n)`: arguments 0, 1, 2.
    Copy,
    /// The program's `memmove(dst, src, n)`.
    Move,
    /// The program's `ABSORBING[which].0` call: arguments 1 and 2.
    Io(usize),
}

/// The kind of `inst` when it is a call CopierGen emitted for one of the
/// program's copies or write/send calls.
pub(super) fn classify(inst: LLVMValueRef) -> Option<Kind> {
    let callee = ir::declared_callee(inst)?;
    let name = ir::name(callee);
    if name == copier_abi::site::AMEMCPY && ir::num_args(inst) == 4 {
        return Some(Kind::Copy);
    }
    if name == copier_abi::site::AMEMMOVE && ir::num_args(inst) == 4 {
        return Some(Kind::Move);
    }
    if !ir::has_md(inst, GENERATED_MD) {
        return None;
    }
    if name == AMEMCPY_LAZY && ir::num_args(inst) == 3 {
        return Some(Kind::Copy);
    }
    let which = ABSORBING.iter().position(|&(_, e)| e == name)?;
    (ir::num_args(inst) >= 3).then_some(Kind::Io(which))
}

/// The runtime's checks of CopierGen calls, declared.
pub(super) struct CopierGenChecks {
    i64: LLVMTypeRef,
    memcpy: (LLVMValueRef, LLVMTypeRef),
    memmove: (LLVMValueRef, LLVMTypeRef),
    io: (LLVMValueRef, LLVMTypeRef),
}

impl CopierGenChecks {
    /// Declares the three checks with `suffix` (`_noabort` or empty); `Err`
    /// names one the module defines with another type.
    pub(super) fn declare(m: LLVMModuleRef, i64: LLVMTypeRef, void: LLVMTypeRef, suffix: &str) -> Result<Self, String> {
        let one = |base: &str| {
            let name = format!("{base}{suffix}");
            declare(m, &name, &[i64, i64, i64], void).ok_or(name)
        };
        Ok(CopierGenChecks { i64, memcpy: one(COPIERGEN_MEMCPY)?, memmove: one(COPIERGEN_MEMMOVE)?, io: one(COPIERGEN_IO)? })
    }

    /// Calls the check of `call` (of `kind`) right before it, at `loc`.
    pub(super) fn emit(&self, b: &ir::Builder, call: LLVMValueRef, kind: Kind, loc: LLVMMetadataRef) {
        b.position_before_at(call, loc);
        let word = |v: LLVMValueRef| {
            if ir::is_ptr_as0(v) {
                b.ptr_to_int(v, self.i64)
            } else {
                b.int_cast_signed(v, self.i64)
            }
        };
        let (f, args) = match kind {
            Kind::Copy | Kind::Move => {
                let f = if kind == Kind::Copy { self.memcpy } else { self.memmove };
                (f, [word(ir::arg(call, 0)), word(ir::arg(call, 1)), word(ir::arg(call, 2))])
            }
            Kind::Io(which) => (self.io, [b.const_int(self.i64, which as u64), word(ir::arg(call, 1)), word(ir::arg(call, 2))]),
        };
        b.call(f.1, f.0, &args);
    }
}
