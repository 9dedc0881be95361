//! Private buffers: a memref whose allocation (`memref.alloc`, `memref.alloca`)
//! never escapes. Every alias of it is then visible, so an operation with
//! unknown effects (a call) that is not handed one of them cannot touch it.
//!
//! The allocation is found through view operations (operand 0 of a subview,
//! cast, reshape, …). It escapes when an alias reaches anything but an
//! operation with known effects that returns no memref: a call, a
//! terminator (return, yield, branch), an op that takes its address, or an op
//! whose regions receive memrefs (loop-carried buffers).

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, RegionLike, Value, ValueLike};
use mlir_sys::{
    mlirOpOperandGetNextUse, mlirOpOperandGetOperandNumber, mlirOpOperandGetOwner, mlirOpOperandIsNull,
    mlirOpResultGetOwner, mlirValueGetFirstUse, mlirValueIsAOpResult, MlirValue,
};

use crate::effects::{has_known_effects, is_terminator};
use crate::ir::name;
use crate::memref::MemrefInfo;

/// Operations whose result 0 views their operand 0.
const VIEWS: &[&str] = &[
    "memref.subview",
    "memref.cast",
    "memref.reinterpret_cast",
    "memref.collapse_shape",
    "memref.expand_shape",
    "memref.transpose",
    "memref.view",
    "memref.memory_space_cast",
];

fn owner<'c, 'a>(v: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // SAFETY: v is live; for a result, its owner is a live operation.
    unsafe {
        if mlirValueIsAOpResult(v.to_raw()) {
            Some(OperationRef::from_raw(mlirOpResultGetOwner(v.to_raw())))
        } else {
            None
        }
    }
}

/// Whether `v` views a private allocation.
pub fn is_private(v: Value) -> bool {
    let mut root = v;
    let alloc = loop {
        let Some(op) = owner(root) else { return false };
        let n = name(op);
        if n == "memref.alloc" || n == "memref.alloca" {
            break op;
        }
        if !VIEWS.contains(&n.as_str()) {
            return false;
        }
        match op.operand(0) {
            Ok(src) => root = src,
            Err(_) => return false,
        }
    };
    let mut work: Vec<MlirValue> = vec![alloc.result(0).map(|r| r.to_raw()).unwrap_or(root.to_raw())];
    let mut seen = 0usize;
    while let Some(w) = work.pop() {
        seen += 1;
        if seen > 10_000 {
            return false;
        }
        // SAFETY: w is a live value; the use list is read, not changed.
        let mut u = unsafe { mlirValueGetFirstUse(w) };
        // SAFETY: u is a use of w (or null), read only.
        while !unsafe { mlirOpOperandIsNull(u) } {
            // SAFETY: u is a live use.
            let (user, index) =
                unsafe { (OperationRef::from_raw(mlirOpOperandGetOwner(u)), mlirOpOperandGetOperandNumber(u)) };
            // SAFETY: u is a live use.
            u = unsafe { mlirOpOperandGetNextUse(u) };
            let n = name(user);
            if VIEWS.contains(&n.as_str()) && index == 0 {
                if let Ok(r) = user.result(0) {
                    work.push(r.to_raw());
                }
                continue;
            }
            if !keeps_private(user) {
                return false;
            }
        }
    }
    true
}

/// Whether `user` may take an alias as an operand without letting it escape.
fn keeps_private(user: OperationRef) -> bool {
    let n = name(user);
    if n.starts_with("llvm.")
        || n == "memref.extract_aligned_pointer_as_index"
        || n == "builtin.unrealized_conversion_cast"
        || is_terminator(user)
        || !has_known_effects(user)
        || user.results().any(|r| is_memref(r.into()))
    {
        return false;
    }
    for region in user.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            for i in 0..b.argument_count() {
                if b.argument(i).map(|a| is_memref(a.into())).unwrap_or(true) {
                    return false;
                }
            }
            block = b.next_in_region();
        }
    }
    true
}

fn is_memref(v: Value) -> bool {
    MemrefInfo::of(v.r#type()).is_some() || v.r#type().to_string().starts_with("memref<*")
}
