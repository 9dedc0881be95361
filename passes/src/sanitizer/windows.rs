//! Accesses inside a ready window: a byte CopierGen's window test just
//! found below the end that `__copier_san_ready_end` returned needs no
//! shadow test.
//!
//! The runtime's window is clear when it is returned (it syncs every copy
//! it meets up to its end, or ends before the next pending copy; with
//! nothing pending, everything is clear) and a byte turns pending only
//! through a submit, which is a call. So an access needs no check when its
//! pointer `p` is the one of the window test before it,
//!
//! ```text
//! X:  %end = load ptr, ptr %slot          ; no call since the slot's store
//!     %miss = icmp ugt ptr %p, %end
//!     br i1 %miss, label %M, label %B
//! M:  %w = call @csync_ready_end(ptr %p, i64 N)   ; or CopierGen's forwarder
//!     %e = getelementptr i8, ptr %w, i64 -N
//!     store ptr %e, ptr %slot
//!     br label %B
//! B:  load iN*8, ptr %p                    ; no call before it in B
//! ```
//!
//! and every path that reaches the load of `%slot` from a call (or from the
//! function's entry) stores to the slot after that call: null (forces a
//! miss), a refreshed end, or the entry block's `select` on the runtime's
//! count (everything ready only while nothing is pending). Calls of the
//! runtime's release-only entry points (the ready functions, `csync`,
//! `csync_all`: they make bytes complete and submit nothing themselves; a
//! completion handler they run may submit, as during the refresh call)
//! are not such calls, so a hand-written window refresh or a CopierGen
//! guard between two window tests keeps the slot fresh. The runtime's
//! answer is trusted, CopierGen's is not: a slot that a call may have made
//! stale keeps its checks, and an access without its window test (a
//! CopierGen bug) keeps its check.

use super::accesses::Access;
use crate::ir;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use std::collections::{HashMap, HashSet};

/// What one function's window tests look like.
pub(super) struct Windows {
    /// Predecessors of each block.
    preds: HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>>,
    entry: LLVMBasicBlockRef,
    /// The functions whose result is a runtime window (`csync_ready_end`,
    /// its replacement and CopierGen's forwarders to it).
    ready: Vec<LLVMValueRef>,
    /// The runtime's count global.
    live: LLVMValueRef,
    /// Each slot's answer: every store to it is a refresh, null or the
    /// count select.
    slots: HashMap<LLVMValueRef, bool>,
}

impl Windows {
    /// The window tests of `f`; `ready` as on [`Windows::ready`].
    pub(super) fn new(f: LLVMValueRef, ready: Vec<LLVMValueRef>, live: LLVMValueRef) -> Self {
        let mut preds: HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>> = HashMap::new();
        for bb in ir::blocks(f) {
            for s in ir::successors(bb) {
                preds.entry(s).or_default().push(bb);
            }
        }
        // SAFETY: f is a live function definition.
        let entry = unsafe { c::LLVMGetEntryBasicBlock(f) };
        Windows { preds, entry, ready, live, slots: HashMap::new() }
    }

    /// True if `a` is an access of N bytes inside a runtime window (see the
    /// module documentation); it then needs no check.
    pub(super) fn covers(&mut self, a: &Access) -> bool {
        let Some(n) = a.size.filter(|&n| (1..=16).contains(&n) && a.len.is_none()) else { return false };
        let b = ir::parent_block(a.inst);
        if self.calls_between(first_instruction(b), Some(a.inst)) {
            return false;
        }
        let preds = self.preds.get(&b).cloned().unwrap_or_default();
        if preds.len() != 2 {
            return false;
        }
        for (x, m) in [(preds[0], preds[1]), (preds[1], preds[0])] {
            if let Some(slot) = self.window_test(x, m, b, a.ptr, n) {
                return self.slot_ok(slot) && self.fresh_at(slot, x);
            }
        }
        false
    }

    /// The slot of `x`'s window test of `p` whose miss block is `m` and
    /// whose hit edge goes to `b`.
    fn window_test(&self, x: LLVMBasicBlockRef, m: LLVMBasicBlockRef, b: LLVMBasicBlockRef, p: LLVMValueRef, n: u64) -> Option<LLVMValueRef> {
        // SAFETY: x and m are live blocks; operands are read within bounds.
        unsafe {
            let br = c::LLVMGetBasicBlockTerminator(x);
            if br.is_null() || c::LLVMIsConditional(br) == 0 || c::LLVMGetSuccessor(br, 0) != m || c::LLVMGetSuccessor(br, 1) != b {
                return None;
            }
            let cmp = c::LLVMGetCondition(br);
            if c::LLVMIsAICmpInst(cmp).is_null() || c::LLVMGetICmpPredicate(cmp) != LLVMIntPredicate::LLVMIntUGT || ir::operand(cmp, 0) != p {
                return None;
            }
            let end = ir::operand(cmp, 1);
            if c::LLVMIsALoadInst(end).is_null() || ir::parent_block(end) != x {
                return None;
            }
            let slot = ir::operand(end, 0);
            // The load's block up to the branch: no call.
            if self.calls_between(Some(end), Some(br)) {
                return None;
            }
            // The miss block: the refresh of this slot for p, then back to b.
            if self.preds.get(&m).map(Vec::as_slice) != Some(&[x]) || ir::successors(m) != [b] {
                return None;
            }
            let mut refreshed = false;
            for i in ir::instructions(m) {
                if self.breaks(i) && !self.is_refresh_call(i, p, n) {
                    return None;
                }
                if ir::opcode(i) == LLVMOpcode::LLVMStore && ir::operand(i, 1) == slot {
                    refreshed = self.is_refresh_value(ir::operand(i, 0), Some((p, n)));
                }
            }
            refreshed.then_some(slot)
        }
    }

    /// `call ready(p, n)`.
    fn is_refresh_call(&self, i: LLVMValueRef, p: LLVMValueRef, n: u64) -> bool {
        ir::opcode(i) == LLVMOpcode::LLVMCall
            && ir::called_function(i).is_some_and(|g| self.ready.contains(&g))
            && ir::num_args(i) == 2
            && ir::arg(i, 0) == p
            && ir::const_int(ir::arg(i, 1)) == Some(n)
    }

    /// `getelementptr i8, (call ready(p, n)), -n` (any `p` and `n` when
    /// None).
    fn is_refresh_value(&self, v: LLVMValueRef, p: Option<(LLVMValueRef, u64)>) -> bool {
        // SAFETY: v is a live value; a GEP's operands are its base and indices.
        unsafe {
            if c::LLVMIsAGetElementPtrInst(v).is_null() || c::LLVMGetNumOperands(v) != 2 {
                return false;
            }
            let Some(back) = ir::const_int(ir::operand(v, 1)).map(|k| (k as i64).unsigned_abs()) else { return false };
            let w = ir::operand(v, 0);
            if c::LLVMIsACallInst(w).is_null() || ir::num_args(w) != 2 {
                return false;
            }
            match p {
                Some((p, n)) => back == n && ir::const_int(ir::operand(v, 1)).map(|k| k as i64) == Some(-(n as i64)) && self.is_refresh_call(w, p, n),
                None => {
                    ir::called_function(w).is_some_and(|g| self.ready.contains(&g))
                        && ir::const_int(ir::operand(v, 1)).map(|k| k as i64) == Some(-(back as i64))
                        && ir::const_int(ir::arg(w, 1)) == Some(back)
                        && back >= 1
                }
            }
        }
    }

    /// True if `slot` is an entry alloca whose address is only loaded from
    /// and stored to, and every stored value is a refresh, null, or a
    /// `select(count != 0, null, -1)` (see [`Windows::is_count_select`]).
    fn slot_ok(&mut self, slot: LLVMValueRef) -> bool {
        if let Some(&ok) = self.slots.get(&slot) {
            return ok;
        }
        // SAFETY: slot is a live value.
        let ok = unsafe { !c::LLVMIsAAllocaInst(slot).is_null() }
            && ir::parent_block(slot) == self.entry
            && ir::users(slot).into_iter().all(|u| match ir::opcode(u) {
                LLVMOpcode::LLVMLoad => true,
                LLVMOpcode::LLVMStore => {
                    let v = ir::operand(u, 0);
                    ir::operand(u, 1) == slot && v != slot && (is_null(v) || self.is_refresh_value(v, None) || self.is_count_select(v, u))
                }
                _ => false,
            });
        self.slots.insert(slot, ok);
        ok
    }

    /// `select(icmp ne (load count), 0), null, -1` stored by `store`, the
    /// count loaded in the store's block with no call between the load and
    /// the store (CopierGen's reset at entry and after a submit).
    fn is_count_select(&self, v: LLVMValueRef, store: LLVMValueRef) -> bool {
        // SAFETY: v is a live value; a select's operands are cond, then, else.
        unsafe {
            if c::LLVMIsASelectInst(v).is_null() {
                return false;
            }
            let (cond, t, e) = (ir::operand(v, 0), ir::operand(v, 1), ir::operand(v, 2));
            if !is_null(t) || !is_all_ones_ptr(e) || c::LLVMIsAICmpInst(cond).is_null() {
                return false;
            }
            let n = ir::operand(cond, 0);
            c::LLVMGetICmpPredicate(cond) == LLVMIntPredicate::LLVMIntNE
                && ir::const_int(ir::operand(cond, 1)) == Some(0)
                && !c::LLVMIsALoadInst(n).is_null()
                && ir::operand(n, 0) == self.live
                && ir::parent_block(n) == ir::parent_block(store)
                && !self.calls_between(Some(n), Some(store))
        }
    }

    /// True if every path to `x`'s terminator from a call or the function's
    /// entry stores to `slot` after it (the load before `x`'s window test
    /// was checked call-free by [`Windows::window_test`]).
    fn fresh_at(&self, slot: LLVMValueRef, x: LLVMBasicBlockRef) -> bool {
        let mut seen = HashSet::new();
        let mut work = vec![(x, true)];
        while let Some((bb, from_end)) = work.pop() {
            if !from_end && !seen.insert(bb) {
                continue;
            }
            // Backwards through the block: a store to the slot ends this
            // path, a call before one fails it.
            let mut stored = false;
            let mut i = last_instruction(bb);
            while let Some(inst) = i {
                if ir::opcode(inst) == LLVMOpcode::LLVMStore && ir::operand(inst, 1) == slot {
                    stored = true;
                    break;
                }
                if self.breaks(inst) {
                    return false;
                }
                // SAFETY: inst is a live instruction.
                i = nonnull(unsafe { c::LLVMGetPreviousInstruction(inst) });
            }
            if stored {
                continue;
            }
            if bb == self.entry {
                return false;
            }
            match self.preds.get(&bb) {
                Some(p) if !p.is_empty() => work.extend(p.iter().map(|&p| (p, false))),
                _ => return false,
            }
        }
        true
    }

    /// True if `inst` is a call that may submit a copy ([`breaks`]), other
    /// than a call of the runtime's release-only entry points: the ready
    /// functions and the declared `csync` and `csync_all`. Those only make
    /// bytes complete, as the refresh call itself does.
    fn breaks(&self, inst: LLVMValueRef) -> bool {
        breaks(inst)
            && !ir::called_function(inst).is_some_and(|g| self.ready.contains(&g) || (ir::is_declaration(g) && RELEASE_ONLY.contains(&ir::name(g).as_str())))
    }

    /// True if an instruction from `from` up to (not including) `to`, in
    /// one block, is a call that [`Windows::breaks`].
    fn calls_between(&self, from: Option<LLVMValueRef>, to: Option<LLVMValueRef>) -> bool {
        let mut i = from;
        while let Some(inst) = i {
            if Some(inst) == to {
                return false;
            }
            if self.breaks(inst) {
                return true;
            }
            i = ir::next_instruction(inst);
        }
        false
    }
}

/// libcopier's entry points that wait for copies and submit none
/// (runtime/include/copier.h), trusted by their reserved symbols when
/// declared, not defined (a public `csync` may be the program's own).
const RELEASE_ONLY: &[&str] = &[copier_abi::symbols::CSYNC, copier_abi::symbols::CSYNC_ALL];

fn nonnull(v: LLVMValueRef) -> Option<LLVMValueRef> {
    (!v.is_null()).then_some(v)
}

fn first_instruction(bb: LLVMBasicBlockRef) -> Option<LLVMValueRef> {
    // SAFETY: bb is a live block.
    nonnull(unsafe { c::LLVMGetFirstInstruction(bb) })
}

fn last_instruction(bb: LLVMBasicBlockRef) -> Option<LLVMValueRef> {
    // SAFETY: bb is a live block.
    nonnull(unsafe { c::LLVMGetLastInstruction(bb) })
}

/// `inttoptr (i64 -1 to ptr)`: "everything ready".
fn is_all_ones_ptr(v: LLVMValueRef) -> bool {
    // SAFETY: v is a live value; a constant expression's operand 0 exists.
    unsafe { !c::LLVMIsAConstantExpr(v).is_null() && c::LLVMGetConstOpcode(v) == LLVMOpcode::LLVMIntToPtr && ir::const_int(c::LLVMGetOperand(v, 0)) == Some(u64::MAX) }
}

fn is_null(v: LLVMValueRef) -> bool {
    // SAFETY: v is a live value.
    unsafe { c::LLVMIsNull(v) != 0 && c::LLVMGetTypeKind(c::LLVMTypeOf(v)) == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind }
}

/// True if `inst` is a call that may submit a copy: any call but a debug
/// or lifetime marker, the integer intrinsics CopierGen's window bounds
/// use (no memory access), and calls of a declared function whose
/// `memory(...)` attribute writes nothing (`bcmp`, `strlen`: a submit
/// writes the runtime's queues).
fn breaks(inst: LLVMValueRef) -> bool {
    const PURE: &[&str] = &["llvm.umin.", "llvm.umax.", "llvm.smin.", "llvm.smax.", "llvm.abs.", "llvm.expect.", "llvm.assume", "llvm.ctlz.", "llvm.cttz.", "llvm.ctpop.", "llvm.bswap."];
    ir::is_call(inst)
        && !ir::is_debug_or_marker(inst)
        && !ir::called_function(inst).is_some_and(|g| (ir::function_intrinsic_id(g) != 0 && PURE.iter().any(|p| ir::name(g).starts_with(p))) || (ir::is_declaration(g) && writes_nothing(g)))
}

/// True if function `f` carries a `memory(...)` attribute without a write
/// to any location (LLVM's `MemoryEffects` encoding: two bits per
/// location, `Mod` the higher one; llvm/Support/ModRef.h).
fn writes_nothing(f: LLVMValueRef) -> bool {
    const MOD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    // SAFETY: f is a live function; the kind is looked up by name.
    unsafe {
        let kind = c::LLVMGetEnumAttributeKindForName(c"memory".as_ptr(), "memory".len());
        if kind == 0 {
            return false;
        }
        let attr = c::LLVMGetEnumAttributeAtIndex(f, inkwell::llvm_sys::LLVMAttributeFunctionIndex, kind);
        !attr.is_null() && c::LLVMGetEnumAttributeValue(attr) & MOD_BITS == 0
    }
}
