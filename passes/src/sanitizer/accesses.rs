//! The accesses to check: what each instruction reads and writes, and
//! which of them no pending copy can reach (after ASan's
//! `getInterestingMemoryOperands`, its stack-safety analysis and its
//! same-address-in-a-block rule).

use super::sites::Site;
use crate::context::ModuleContext;
use crate::ir;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMLinkage, LLVMOpcode};
use std::collections::HashMap;

/// What one instruction does to memory.
pub(super) struct Access {
    pub(super) inst: LLVMValueRef,
    pub(super) ptr: LLVMValueRef,
    pub(super) write: bool,
    /// Constant size in bytes, or
    pub(super) size: Option<u64>,
    /// the length operand of a memory intrinsic.
    pub(super) len: Option<LLVMValueRef>,
    pub(super) align: u32,
    /// The debug location of the check call (see [`Site`]).
    pub(super) site: Site,
    /// Accesses of one block with no call between them share one load of
    /// [`super::LIVE`] (the program's own calls are what submit copies).
    pub(super) run: usize,
}

/// Appends the accesses `inst` makes to `out` (loads from constant
/// globals excluded: never a copy's destination; the two reads of a
/// comparison [`super::libcalls::inline_compare`] checks inline); `memcpy_ids` and
/// `memset_ids` are the intrinsic ids of the memory intrinsics checked.
pub(super) fn collect(cx: &ModuleContext<'_>, inst: LLVMValueRef, memcpy_ids: &[u32], memset_ids: &[u32], out: &mut Vec<Access>) {
    let op = ir::opcode(inst);
    // SAFETY: inst is a live instruction of the module (handle invariant).
    let align = || unsafe { c::LLVMGetAlignment(inst) };
    let sized = |ptr: LLVMValueRef, ty: LLVMTypeRef, write: bool, out: &mut Vec<Access>| {
        if !ir::is_ptr_as0(ptr) {
            return;
        }
        if let Some(size) = cx.store_size(ty).filter(|&s| s > 0) {
            out.push(Access { inst, ptr, write, size: Some(size), len: None, align: align(), site: Site::Fixed(std::ptr::null_mut()), run: 0 });
        }
    };
    match op {
        LLVMOpcode::LLVMLoad => {
            let ptr = ir::operand(inst, 0);
            if !is_constant_global(ptr) {
                sized(ptr, ir::type_of(inst), false, out);
            }
        }
        LLVMOpcode::LLVMStore => sized(ir::operand(inst, 1), ir::type_of(ir::operand(inst, 0)), true, out),
        LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => {
            sized(ir::operand(inst, 0), ir::type_of(ir::operand(inst, 1)), true, out)
        }
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => {
            call_site_args(cx, inst, out);
            if op != LLVMOpcode::LLVMCall {
                return;
            }
            if let Some((a, b, n)) = super::libcalls::inline_compare(inst) {
                for ptr in [a, b] {
                    if !is_constant_global(ptr) {
                        out.push(Access { inst, ptr, write: false, size: Some(n), len: None, align: 1, site: Site::Fixed(std::ptr::null_mut()), run: 0 });
                    }
                }
                return;
            }
            let Some(callee) = ir::called_function(inst) else { return };
            let id = ir::function_intrinsic_id(callee);
            if id == 0 {
                return;
            }
            if memcpy_ids.contains(&id) {
                let (dst, src, len) = (ir::arg(inst, 0), ir::arg(inst, 1), ir::arg(inst, 2));
                if ir::is_ptr_as0(src) {
                    out.push(Access { inst, ptr: src, write: false, size: None, len: Some(len), align: 1, site: Site::Fixed(std::ptr::null_mut()), run: 0 });
                }
                if ir::is_ptr_as0(dst) {
                    out.push(Access { inst, ptr: dst, write: true, size: None, len: Some(len), align: 1, site: Site::Fixed(std::ptr::null_mut()), run: 0 });
                }
            } else if memset_ids.contains(&id) {
                let (dst, len) = (ir::arg(inst, 0), ir::arg(inst, 2));
                if ir::is_ptr_as0(dst) {
                    out.push(Access { inst, ptr: dst, write: true, size: None, len: Some(len), align: 1, site: Site::Fixed(std::ptr::null_mut()), run: 0 });
                }
            }
        }
        _ => {}
    }
}

/// True if `ptr` is a constant global (never a copy's destination).
fn is_constant_global(ptr: LLVMValueRef) -> bool {
    // SAFETY: ptr is a live value.
    unsafe { !c::LLVMIsAGlobalVariable(ptr).is_null() && c::LLVMIsGlobalConstant(ptr) != 0 }
}

/// The accesses a call instruction makes itself, through arguments passed in
/// memory (LangRef, "Parameter Attributes"): a `byval`, `byref`,
/// `preallocated` or `inalloca` argument's bytes are read at the call site
/// (CodeGen lowers a `byval` argument to a copy into the callee's argument
/// area after this pass ran, so no load of the IR shows that read), and an
/// `sret` argument is written by the callee on the call's behalf. Each is
/// checked before the call over the attribute type's store size, as a load
/// or store of that size (as ASan's `-asan-instrument-byval`); the check
/// carries the call's line. Attributes are read from the call site, else
/// from the called function's declaration.
fn call_site_args(cx: &ModuleContext<'_>, inst: LLVMValueRef, out: &mut Vec<Access>) {
    let callee = ir::called_function(inst);
    if callee.is_some_and(|f| ir::function_intrinsic_id(f) != 0) {
        return;
    }
    let kinds = [("byval", false), ("byref", false), ("preallocated", false), ("inalloca", false), ("sret", true)];
    for i in 0..ir::num_args(inst) {
        let ptr = ir::arg(inst, i);
        if !ir::is_ptr_as0(ptr) {
            continue;
        }
        for &(name, write) in &kinds {
            // SAFETY: inst is a live call site and callee (if any) a function
            // of the module; attribute index i + 1 is argument i; a type
            // attribute's value is a type of the module's context.
            let ty = unsafe {
                let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
                let mut attr = c::LLVMGetCallSiteEnumAttribute(inst, i + 1, kind);
                if attr.is_null() {
                    if let Some(f) = callee.filter(|&f| (i as usize) < c::LLVMCountParams(f) as usize) {
                        attr = c::LLVMGetEnumAttributeAtIndex(f, i + 1, kind);
                    }
                }
                if attr.is_null() {
                    continue;
                }
                c::LLVMGetTypeAttributeValue(attr)
            };
            if ty.is_null() {
                continue;
            }
            if let Some(size) = cx.store_size(ty).filter(|&s| s > 0) {
                out.push(Access { inst, ptr, write, size: Some(size), len: None, align: 1, site: Site::Fixed(std::ptr::null_mut()), run: 0 });
            }
            break;
        }
    }
}

/// True if no pending copy can cover the memory `ptr` points into: the
/// object under it (through GEPs and casts) is a stack variable or an
/// internal global whose address is only loaded from and stored to
/// (see [`address_stays_local`]). A copy's buffer reaches `amemcpy`, a
/// call; a copy left pending into a frame that died is reported at that
/// frame's end (`__copier_san_return`). `cache` keeps each object's answer.
pub(super) fn cannot_be_pending(cache: &mut HashMap<LLVMValueRef, bool>, ptr: LLVMValueRef) -> bool {
    let mut v = ptr;
    for _ in 0..64 {
        // SAFETY: v is a live value; a GEP's or cast's operand 0 is its
        // pointer operand.
        let next = unsafe {
            if !c::LLVMIsAGetElementPtrInst(v).is_null() || !c::LLVMIsABitCastInst(v).is_null() || !c::LLVMIsAAddrSpaceCastInst(v).is_null() {
                Some(ir::operand(v, 0))
            } else if !c::LLVMIsAConstantExpr(v).is_null()
                && matches!(c::LLVMGetConstOpcode(v), LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast)
            {
                Some(c::LLVMGetOperand(v, 0))
            } else {
                None
            }
        };
        match next {
            Some(n) => v = n,
            None => break,
        }
    }
    // SAFETY: v is a live value.
    let local = unsafe {
        if !c::LLVMIsAAllocaInst(v).is_null() {
            true
        } else if !c::LLVMIsAGlobalVariable(v).is_null() {
            matches!(c::LLVMGetLinkage(v), LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage)
                && c::LLVMIsThreadLocal(v) == 0
        } else {
            false
        }
    };
    if !local {
        return false;
    }
    *cache.entry(v).or_insert_with(|| address_stays_local(v))
}

/// True if every use of the object `obj`'s address is a load from it, a
/// store to it (not of it), a comparison, a debug or lifetime marker, or a
/// synchronous memory intrinsic, directly or through GEPs, casts, selects
/// and phis: the address never reaches a call (so never `amemcpy`), memory,
/// an integer or another module.
fn address_stays_local(obj: LLVMValueRef) -> bool {
    let mut seen = vec![obj];
    let mut work = vec![obj];
    while let Some(v) = work.pop() {
        for u in ir::users(v) {
            // SAFETY: u is a live user of v.
            let op = unsafe {
                if !c::LLVMIsAConstantExpr(u).is_null() {
                    c::LLVMGetConstOpcode(u)
                } else if !c::LLVMIsAInstruction(u).is_null() {
                    ir::opcode(u)
                } else {
                    return false;
                }
            };
            match op {
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMSelect | LLVMOpcode::LLVMPHI => {
                    if !seen.contains(&u) {
                        if seen.len() >= 256 {
                            return false;
                        }
                        seen.push(u);
                        work.push(u);
                    }
                }
                LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp => {}
                LLVMOpcode::LLVMStore if ir::operand(u, 0) != v => {}
                LLVMOpcode::LLVMCall if ir::is_debug_or_marker(u) => {}
                LLVMOpcode::LLVMCall
                    if ir::called_function(u).is_some_and(|g| {
                        let id = ir::function_intrinsic_id(g);
                        id != 0 && ["llvm.memcpy", "llvm.memmove", "llvm.memset", "llvm.memcpy.inline", "llvm.memset.inline"].iter().any(|n| ir::intrinsic_id(n) == id)
                    }) => {}
                _ => return false,
            }
        }
    }
    true
}

/// The checks made since the last instruction that may change the shadow
/// (a call) in one block: an access whose pointer and size were checked
/// already, for a write or for this kind of access, is skipped (a write
/// check forbids every bit a read check does). ASan skips repeated
/// addresses in a block the same way.
#[derive(Default)]
pub(super) struct Checked(Vec<(LLVMValueRef, Option<u64>, Option<LLVMValueRef>, bool)>);

impl Checked {
    /// True if `a` needs its check (and records it).
    pub(super) fn first(&mut self, a: &Access) -> bool {
        let covered = self.0.iter().any(|&(p, s, l, w)| p == a.ptr && s == a.size && l == a.len && (w || !a.write));
        if !covered {
            self.0.push((a.ptr, a.size, a.len, a.write));
        }
        !covered
    }

    /// Forgets every check after a call that may submit, sync or free;
    /// true if `inst` is one.
    pub(super) fn after(&mut self, inst: LLVMValueRef) -> bool {
        let call = ir::is_call(inst) && !ir::is_debug_or_marker(inst);
        if call {
            self.0.clear();
        }
        call
    }
}
