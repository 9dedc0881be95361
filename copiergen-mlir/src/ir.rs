//! Small IR queries melior does not offer: where a value is defined, and
//! detaching an operation.

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, Operation, OperationRef, RegionLike, Value, ValueLike};
use mlir_sys::{
    mlirBlockArgumentGetOwner, mlirBlockGetParentOperation, mlirOpResultGetOwner, mlirOperationClone,
    mlirOperationDestroy, mlirOperationGetBlock, mlirOperationGetParentOperation, mlirOperationRemoveFromParent,
    mlirValueIsAOpResult, MlirOperation,
};

/// The operation that defines `v` (its owner, for a result) or that owns
/// the region holding `v`'s block (for a block argument); null at the top.
fn def_anchor(v: Value) -> MlirOperation {
    // SAFETY: v is a live value; the accessors only read IR links.
    unsafe {
        if mlirValueIsAOpResult(v.to_raw()) {
            mlirOpResultGetOwner(v.to_raw())
        } else {
            mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v.to_raw()))
        }
    }
}

/// Whether `v` is defined outside `op` (neither by `op` nor inside one of
/// its regions).
pub fn defined_outside(v: Value, op: OperationRef) -> bool {
    let target = op.to_raw();
    let mut x = def_anchor(v);
    while !x.ptr.is_null() {
        if x.ptr == target.ptr {
            return false;
        }
        // SAFETY: x is a live operation (an ancestor of v's definition).
        x = unsafe { mlirOperationGetParentOperation(x) };
    }
    true
}

/// Whether `v` is the result of an operation directly in `block`.
pub fn result_in_block(v: Value, block: BlockRef) -> bool {
    // SAFETY: v is a live value; the accessors only read IR links.
    unsafe {
        mlirValueIsAOpResult(v.to_raw())
            && mlirOperationGetBlock(mlirOpResultGetOwner(v.to_raw())).ptr == block.to_raw().ptr
    }
}

/// The name of `op` (`memref.copy`).
pub fn name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("?").to_owned()
}

/// Removes `op` from its block and destroys it.
///
/// # Safety
/// `op` has no remaining uses of its results and no reference to it (or to
/// anything nested in it) is used afterwards.
pub unsafe fn erase(op: OperationRef) {
    // SAFETY: the caller guarantees op is unused and unreferenced from now on.
    unsafe {
        mlirOperationRemoveFromParent(op.to_raw());
        mlirOperationDestroy(op.to_raw());
    }
}

/// Calls `f` on `op` and every operation nested in it, parents first.
/// (melior's `walk` hands out references that cannot leave the callback.)
pub fn walk<'c, 'a>(op: OperationRef<'c, 'a>, f: &mut impl FnMut(OperationRef<'c, 'a>) -> bool) -> bool {
    if !f(op) {
        return false;
    }
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            let mut next = b.first_operation();
            while let Some(o) = next {
                next = o.next_in_block();
                if !walk(o, f) {
                    return false;
                }
            }
            block = b.next_in_region();
        }
    }
    true
}

/// An owned copy of `op` (and everything nested in it), in no block.
pub fn clone_op<'c>(op: OperationRef<'c, '_>) -> Operation<'c> {
    // SAFETY: op is live; mlirOperationClone returns a new owned operation.
    unsafe { Operation::from_raw(mlirOperationClone(op.to_raw())) }
}
