//! Lazy copies chosen by the compiler (issue 10; DESIGN.md "lazy copy
//! task"): a copy whose destination reaches only calls of the write/send
//! family (absorbed, [`absorb_calls`](super::absorb_calls)) and then the
//! end of its life is submitted with `amemcpy_lazy`, and its whole-copy
//! syncs at that end become `copier_drop`. The kernel has read the bytes
//! from the copy's source, nothing reads the destination afterwards, so
//! the copy never needs to run: libcopier drops it at the `copier_drop`
//! (`lazy_dropped`), unless a later copy reads its bytes, in which case
//! it runs there like a `csync`.
//!
//! A copy is lazy when, in the final [`Plan`]:
//! * it is a single-instance `memcpy` (not `memmove`, not in a loop whose
//!   earlier iterations may leave it pending) and at least one write/send
//!   call absorbs it;
//! * no narrow sync may touch either of its buffers (a read of the
//!   destination would run the lazy copy synchronously, a write of the
//!   source too);
//! * each of its whole-copy syncs is an *end of the destination*: a
//!   `free`/`cfree`/`operator delete` (not `realloc`) of the destination's
//!   heap object, or, for a destination that is an `alloca` of the
//!   function, that object's `llvm.lifetime.end`, a `ret` or a `resume`;
//!   the source lies in another object; the point waits for its copies one
//!   by one (no `csync_all`).
//!
//! Laziness alone never changes what the program sees (a lazy copy still
//! runs for any `csync` or dependent copy); `copier_drop` is legal because
//! the destination is dead after each of those points.

use super::emit;
use super::candidates::CopyKind;
use super::effects::FullReason;
use super::placement::{PendingCopy, Plan};
use crate::context::{self, FunctionAnalyses, LocSize, Location, ObjectKind, RemarkKind};
use crate::ir::{self, Builder};
use copier_abi::symbols;
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMTypeRef, LLVMValueRef};

/// Functions that end a heap object's life without keeping its bytes.
const FREES: &[&str] = &["free", "cfree"];

/// The lazy copies of one function and their drop points.
#[derive(Debug, Clone, Default)]
pub struct LazyPlan {
    /// Per copy (index into the plan's copies): submitted lazy.
    pub lazy: Vec<bool>,
    /// `(instruction, copy)`: the whole-copy sync of `copy` before the
    /// instruction is a `copier_drop`.
    pub drops: Vec<(LLVMValueRef, usize)>,
    /// `amemcpy_lazy` and `copier_drop`: (function, type) each.
    entries: Option<[(LLVMValueRef, LLVMTypeRef); 2]>,
}

impl LazyPlan {
    /// `amemcpy_lazy` for copy `c`, when it is lazy: (function, type).
    pub fn submit_entry(&self, c: usize) -> Option<(LLVMValueRef, LLVMTypeRef)> {
        self.entries.filter(|_| self.lazy.get(c).copied().unwrap_or(false)).map(|e| e[0])
    }

    /// `copier_drop` when the whole-copy sync of copy `c` before `before`
    /// drops it: (function, type).
    pub fn sync_entry(&self, before: LLVMValueRef, c: usize) -> Option<(LLVMValueRef, LLVMTypeRef)> {
        self.entries.filter(|_| self.drops.contains(&(before, c))).map(|e| e[1])
    }
}

/// The pointer argument of `llvm.lifetime.end` (its last pointer operand).
fn lifetime_end_object(inst: LLVMValueRef) -> Option<LLVMValueRef> {
    if ir::opcode(inst) != LLVMOpcode::LLVMCall {
        return None;
    }
    let name = ir::called_function(inst).map(ir::name)?;
    if !name.starts_with("llvm.lifetime.end") {
        return None;
    }
    (0..ir::num_args(inst)).rev().map(|i| ir::arg(inst, i)).find(|&a| ir::address_space(a).is_some()).map(context::underlying_object)
}

/// The object `inst` frees, when it is a call of [`FREES`] or `operator
/// delete`.
fn freed_object(inst: LLVMValueRef) -> Option<LLVMValueRef> {
    if !matches!(ir::opcode(inst), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) || ir::num_args(inst) == 0 {
        return None;
    }
    let name = ir::called_function(inst).map(ir::name)?;
    let frees = FREES.contains(&name.as_str()) || name.starts_with("_ZdlPv") || name.starts_with("_ZdaPv");
    frees.then(|| context::underlying_object(ir::arg(inst, 0)))
}

/// Whether the whole-copy sync of a copy into `dst_obj` before `before`,
/// for `reason`, is at the end of the destination's life.
fn ends_destination(before: LLVMValueRef, reason: FullReason, dst_obj: LLVMValueRef) -> bool {
    match context::object_kind(dst_obj) {
        ObjectKind::Heap => reason == FullReason::Free && freed_object(before) == Some(dst_obj),
        ObjectKind::Alloca => {
            matches!(reason, FullReason::Return | FullReason::Resume) || lifetime_end_object(before) == Some(dst_obj)
        }
        _ => false,
    }
}

/// The drop points of copy `c`, or `None` when it may not be lazy (module
/// docs).
fn drop_points(fa: &FunctionAnalyses<'_>, copies: &[PendingCopy], plan: &Plan, c: usize) -> Option<Vec<LLVMValueRef>> {
    let pc = &copies[c];
    if pc.call.kind != CopyKind::Copy || plan.multi_instance[c] || !plan.reachable[c] || plan.callers == Some(c) {
        return None;
    }
    let dst_obj = context::underlying_object(pc.call.dst);
    let src_obj = context::underlying_object(pc.call.src);
    if dst_obj == src_obj || !matches!(context::object_kind(dst_obj), ObjectKind::Heap | ObjectKind::Alloca) {
        return None;
    }
    let absorbed = plan.points.iter().any(|p| p.absorb.as_ref().is_some_and(|(_, cs)| cs.contains(&c)));
    if !absorbed {
        return None;
    }
    let obj = |p: LLVMValueRef| Location { ptr: p, size: LocSize::Unknown };
    let mut points = Vec::new();
    for p in &plan.points {
        let touches = p.narrow.iter().any(|n| {
            n.copy == c || fa.may_alias(obj(n.object), obj(pc.call.dst)) || fa.may_alias(obj(n.object), obj(pc.call.src))
        });
        if touches {
            return None;
        }
        let mine: Vec<FullReason> = p.full.iter().filter(|&&(k, _)| k == c).map(|&(_, r)| r).collect();
        if mine.is_empty() {
            continue;
        }
        if emit::uses_sync_all(p, plan) || !mine.iter().all(|&r| ends_destination(p.before, r, dst_obj)) {
            return None;
        }
        points.push(p.before);
    }
    Some(points)
}

/// Choose the lazy copies of a planned function (module docs); declares
/// `amemcpy_lazy` and `copier_drop` in `module` when there is one (none
/// when the module has either name with another type or defines it).
/// Remarks `LazyCopy` at each lazy copy.
pub fn choose(module: LLVMModuleRef, fa: &FunctionAnalyses<'_>, copies: &[PendingCopy], plan: &Plan) -> LazyPlan {
    let mut lp = LazyPlan { lazy: vec![false; copies.len()], ..LazyPlan::default() };
    let chosen: Vec<(usize, Vec<LLVMValueRef>)> =
        (0..copies.len()).filter_map(|c| drop_points(fa, copies, plan, c).map(|p| (c, p))).collect();
    if chosen.is_empty() {
        return lp;
    }
    let Some(entries) = declare(module) else { return lp };
    lp.entries = Some(entries);
    for (c, points) in chosen {
        lp.lazy[c] = true;
        if fa.remarks_enabled() {
            let ends = match points.len() {
                1 => "1 point".to_owned(),
                n => format!("{n} points"),
            };
            fa.remark(
                RemarkKind::Passed,
                "LazyCopy",
                Some(copies[c].call.call),
                &[
                    ("String", "copy submitted with ".to_owned()),
                    ("Replacement", symbols::public_name(symbols::AMEMCPY_LAZY).to_owned()),
                    ("String", ": its destination only goes to calls that read it from the copy's source (the write/send family) before it dies at ".to_owned()),
                    ("Ends", ends),
                    ("String", format!(" (a free, the end of its frame), where {} drops the copy unexecuted", symbols::public_name(symbols::DROP))),
                ],
            );
        }
        lp.drops.extend(points.into_iter().map(|p| (p, c)));
    }
    lp
}

/// `amemcpy_lazy` and `copier_drop`, declared (or found as declarations
/// with libcopier's types).
fn declare(module: LLVMModuleRef) -> Option<[(LLVMValueRef, LLVMTypeRef); 2]> {
    let b = Builder::new(module);
    let (ptr, size, void) = (b.ptr_type(), b.intptr_type(), b.void_type());
    let one = |name: &str, ret, params: &[LLVMTypeRef]| {
        let c = std::ffi::CString::new(name).expect("symbol names have no NUL");
        ir::get_or_declare(module, &c, ret, params, &["nounwind", "willreturn"]).filter(|&(f, _)| ir::is_declaration(f))
    };
    Some([one(symbols::AMEMCPY_LAZY, ptr, &[ptr, ptr, size])?, one(symbols::DROP, void, &[ptr, size])?])
}
