//! The checks: the inline shadow test of each access and the call to the
//! runtime on its cold path (after ASan's `instrumentAddress`), all behind
//! the runtime's pending-copy count.

use super::abi::{declare, DST_BITS, LIVE, LOAD, SHADOW_OFFSET, SHADOW_SCALE, STORE};
use super::accesses::Access;
use super::sites::Site;
use crate::context::split_if_then;
use crate::ir;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::{LLVMMetadataRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMIntPredicate};
use std::collections::HashMap;
use std::ffi::CString;

/// The runtime's check functions, declared in the module.
pub(super) struct Checks {
    pub(super) i64: LLVMTypeRef,
    /// [`LIVE`], the runtime's pending-copy count.
    pub(super) live: LLVMValueRef,
    /// `__copier_san_{load,store}{1,2,4,8,16}{suffix}`, by `[write][size]`.
    pub(super) sized: [[(LLVMValueRef, LLVMTypeRef); 5]; 2],
    /// `__copier_san_{load,store}N{suffix}`, by `[write]`.
    pub(super) n: [(LLVMValueRef, LLVMTypeRef); 2],
}

/// The sized and `N` check functions with `suffix` (`_noabort` or empty),
/// declared; `Err` names one the module defines with another type.
#[allow(clippy::type_complexity)]
pub(super) fn declare_checks(
    m: LLVMModuleRef,
    i64: LLVMTypeRef,
    void: LLVMTypeRef,
    suffix: &str,
) -> Result<([[(LLVMValueRef, LLVMTypeRef); 5]; 2], [(LLVMValueRef, LLVMTypeRef); 2]), String> {
    let mut sized = [[(std::ptr::null_mut(), std::ptr::null_mut()); 5]; 2];
    let mut n = [(std::ptr::null_mut(), std::ptr::null_mut()); 2];
    for (w, prefix) in [LOAD, STORE].iter().enumerate() {
        for (k, size) in [1, 2, 4, 8, 16].iter().enumerate() {
            let name = format!("{prefix}{size}{suffix}");
            sized[w][k] = declare(m, &name, &[i64], void).ok_or(name)?;
        }
        let name = format!("{prefix}N{suffix}");
        n[w] = declare(m, &name, &[i64, i64], void).ok_or(name)?;
    }
    Ok((sized, n))
}

/// The runtime's pending-copy count [`LIVE`], declared as an external
/// `i64` global (None if the module defines the name otherwise).
pub(super) fn live_word(m: LLVMModuleRef, i64: LLVMTypeRef) -> Option<LLVMValueRef> {
    let name = CString::new(LIVE).ok()?;
    // SAFETY: m is the live module; the name is NUL-terminated.
    unsafe {
        let g = c::LLVMGetNamedGlobal(m, name.as_ptr());
        if !g.is_null() {
            return (c::LLVMGlobalGetValueType(g) == i64).then_some(g);
        }
        if !c::LLVMGetNamedFunction(m, name.as_ptr()).is_null() {
            return None;
        }
        Some(c::LLVMAddGlobal(m, i64, name.as_ptr()))
    }
}

/// Longest access (bytes) the fast path tests inline; longer ones and
/// memory intrinsics call the runtime behind the count test.
pub(super) const INLINE_MAX: u64 = 16;

/// Shadow bits (a power of two, at most 64) the fast path loads for an
/// access of `size` bytes (`1..=`[`INLINE_MAX`]) at alignment `align`:
/// every shadow byte from the first byte's to the last one's.
fn shadow_width_bits(size: u64, align: u32) -> u32 {
    // The first byte's offset inside its 4-byte shadow group, at most.
    let head = if align >= 4 { 0 } else { 3 };
    let bytes = ((head + size - 1) >> SHADOW_SCALE) + 1;
    (bytes.next_power_of_two() * 8) as u32
}

/// Emits the check of `a`; `runs` holds the [`LIVE`] load of each run of
/// accesses (see [`Access::run`]) built so far.
pub(super) fn emit_check(b: &ir::Builder, k: &Checks, a: &Access, runs: &mut HashMap<usize, LLVMValueRef>) {
    if a.size.is_none() && a.len.is_none() {
        return;
    }
    let w = usize::from(a.write);
    // SAFETY: a.inst is a live instruction in a block.
    let loc = unsafe { di::LLVMInstructionGetDebugLoc(a.inst) };
    // The fast path: nothing pending anywhere, the whole shadow is clear.
    b.position_before_at(a.inst, loc);
    let n = *runs.entry(a.run).or_insert_with(|| load_live(b, k));
    let busy = when_busy(b, k, a.inst, loc, n);
    b.position_before_at(busy, loc);
    let addr = b.ptr_to_int(a.ptr, k.i64);
    let Some(size) = a.size.filter(|s| (1..=INLINE_MAX).contains(s)) else {
        // Memory intrinsics and long accesses: the runtime does the shadow test.
        let len = match (a.size, a.len) {
            (Some(s), _) => b.const_int(k.i64, s),
            (None, Some(l)) => b.int_cast(l, k.i64),
            (None, None) => return,
        };
        let (f, ty) = k.n[w];
        b.position_before_at(busy, a.site.first());
        no_merge(b.call(ty, f, &[addr, len]));
        return;
    };
    // The cold call: the sized entry point, or `N` with the size (odd sizes:
    // an inlined `memcmp` of 15 bytes).
    let (f, ty, args) = match [1u64, 2, 4, 8, 16].iter().position(|&x| x == size) {
        Some(i) => (k.sized[w][i].0, k.sized[w][i].1, vec![addr]),
        None => (k.n[w].0, k.n[w].1, vec![addr, b.const_int(k.i64, size)]),
    };
    let bits = shadow_width_bits(size, a.align);
    // The shadow address is in the runtime's mapped shadow for every
    // application address.
    let wty = b.int_type(bits);
    let sh = b.lshr(addr, b.const_int(k.i64, SHADOW_SCALE));
    let sa = b.add(sh, b.const_int(k.i64, SHADOW_OFFSET));
    let sp = b.int_to_ptr(sa);
    let v = b.load_named(wty, sp, c"copier_san.shadow", 1);
    let v = if a.write {
        v
    } else {
        let mask = u64::from_ne_bytes([DST_BITS; 8]) >> (64 - bits);
        b.and(v, b.const_int(wty, mask))
    };
    let cond = b.icmp(LLVMIntPredicate::LLVMIntNE, v, b.const_int(wty, 0));
    let term = split_if_then(cond, busy, true);
    match &a.site {
        // term is the new block's terminator; the call takes the site's
        // debug location so the report names its line.
        Site::Fixed(loc) => {
            b.position_before_at(term, *loc);
            no_merge(b.call(ty, f, &args));
        }
        // The cold block ends in `br cont`; it is replaced by a switch on
        // the site phi (defined at the top of a block that dominates the
        // access) to one call block per location, each branching to `cont`.
        Site::ByPredecessor { phi, locs } => {
            let cold = ir::parent_block(term);
            let cont = ir::successors(cold)[0];
            let func = ir::parent_function(term);
            ir::erase(term);
            let mut targets = Vec::with_capacity(locs.len());
            for &loc in locs {
                let bb = ir::append_block(func, c"copier_san.report");
                b.position_at_end(bb, loc);
                no_merge(b.call(ty, f, &args));
                b.br(cont);
                targets.push(bb);
            }
            b.position_at_end(cold, std::ptr::null_mut());
            let i32 = ir::type_of(*phi);
            let cases: Vec<_> = targets.iter().enumerate().skip(1).map(|(j, &t)| (b.const_int(i32, j as u64), t)).collect();
            b.switch(*phi, targets[0], &cases);
        }
    }
}

/// Loads [`LIVE`] at the builder's position. The load is `unordered`:
/// when it reads 0 no copy is pending and the whole shadow is clear; a copy
/// another thread submits is seen through the synchronization that hands
/// its buffer over, and only the program's own calls submit on this thread.
pub(super) fn load_live(b: &ir::Builder, k: &Checks) -> LLVMValueRef {
    let n = b.load_named(k.i64, k.live, c"copier_san.live", 8);
    ir::set_ordering(n, LLVMAtomicOrdering::LLVMAtomicOrderingUnordered);
    n
}

/// Splits before `inst`: `if (live != 0) { new block } inst...`, and
/// returns the new block's terminator (the checks go before it). `live` is
/// a load of [`LIVE`] that dominates `inst` with no call between.
pub(super) fn when_busy(b: &ir::Builder, k: &Checks, inst: LLVMValueRef, loc: LLVMMetadataRef, live: LLVMValueRef) -> LLVMValueRef {
    b.position_before_at(inst, loc);
    let busy = b.icmp(LLVMIntPredicate::LLVMIntNE, live, b.const_int(k.i64, 0));
    split_if_then(busy, inst, true)
}

/// Marks a check call `nomerge`: CodeGen's tail merging (BranchFolding)
/// and SimplifyCFG otherwise fold identical check calls of different
/// source lines into one with a merged (line 0) location, and the report
/// would lose its line.
pub(super) fn no_merge(call: LLVMValueRef) {
    // SAFETY: call is a live call instruction; the kind is looked up by name.
    unsafe {
        let kind = c::LLVMGetEnumAttributeKindForName(c"nomerge".as_ptr(), "nomerge".len());
        if kind != 0 {
            let attr = c::LLVMCreateEnumAttribute(c::LLVMGetTypeContext(ir::type_of(call)), kind, 0);
            c::LLVMAddCallSiteAttribute(call, inkwell::llvm_sys::LLVMAttributeFunctionIndex, attr);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadow_width_covers_every_shadow_byte() {
        for size in 1..=INLINE_MAX {
            for align in [1u32, 2, 4, 8, 16] {
                let bits = shadow_width_bits(size, align);
                for addr in 0u64..64 {
                    if addr % u64::from(align) != 0 {
                        continue;
                    }
                    let first = addr >> SHADOW_SCALE;
                    let last = (addr + size - 1) >> SHADOW_SCALE;
                    assert!(last - first < u64::from(bits / 8), "size {size} align {align} addr {addr}");
                    assert!(bits <= 64);
                }
            }
        }
    }
}
