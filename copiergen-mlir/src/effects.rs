//! Memory effects and alias analysis of MLIR operations, through the C++
//! helper `cpp/effects.cpp` (MLIR's C API has neither): which operations
//! read, write or free memory that may alias a copy's buffers.

use melior::ir::{Location, OperationRef, Value, ValueLike};
use mlir_sys::{MlirLocation, MlirOperation, MlirStringRef, MlirValue};

mod sys {
    use super::*;
    unsafe extern "C" {
        pub fn copiergen_mlir_alias_new(root: MlirOperation) -> *mut std::ffi::c_void;
        pub fn copiergen_mlir_alias_free(aa: *mut std::ffi::c_void);
        pub fn copiergen_mlir_alias(aa: *mut std::ffi::c_void, a: MlirValue, b: MlirValue) -> i32;
        pub fn copiergen_mlir_effects_on(aa: *mut std::ffi::c_void, op: MlirOperation, v: MlirValue) -> u32;
        pub fn copiergen_mlir_is_memory_effect_free(op: MlirOperation) -> i32;
        pub fn copiergen_mlir_has_known_effects(op: MlirOperation) -> i32;
        pub fn copiergen_mlir_is_terminator(op: MlirOperation) -> i32;
        pub fn copiergen_mlir_remark(loc: MlirLocation, message: MlirStringRef);
    }
}

/// What an operation (with everything nested in it) does to memory that may
/// alias a value: a set of the `READ`, `WRITE`, `FREE`, `UNKNOWN` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Effects(pub u32);

impl Effects {
    /// Reads it.
    pub const READ: u32 = 1;
    /// Writes it.
    pub const WRITE: u32 = 2;
    /// Frees it.
    pub const FREE: u32 = 4;
    /// The effects are not known (no memory-effect interface somewhere
    /// inside, or an effect on a whole resource such as a call's).
    pub const UNKNOWN: u32 = 8;

    /// Whether any bit of `mask` is set.
    pub fn any(self, mask: u32) -> bool {
        self.0 & mask != 0
    }
}

/// MLIR's `AliasAnalysis` (local alias analysis: follows view-like
/// operations such as subviews and casts, region and branch arguments, to the
/// allocations) rooted at one operation, plus effect queries through it.
pub struct Analysis {
    aa: *mut std::ffi::c_void,
}

impl Analysis {
    /// An analysis of everything under `root` (the module); `root` must
    /// outlive it.
    pub fn new(root: OperationRef) -> Self {
        // SAFETY: root is a live operation; the helper only stores it.
        let aa = unsafe { sys::copiergen_mlir_alias_new(root.to_raw()) };
        Self { aa }
    }

    /// Whether `a` and `b` may name overlapping memory.
    pub fn may_alias(&self, a: Value, b: Value) -> bool {
        // SAFETY: self.aa is live until drop; both values belong to the root.
        unsafe { sys::copiergen_mlir_alias(self.aa, a.to_raw(), b.to_raw()) != 0 }
    }

    /// The effects of `op` and its nested operations on memory that may
    /// alias `v` (allocations are not effects here).
    pub fn effects_on(&self, op: OperationRef, v: Value) -> Effects {
        // SAFETY: self.aa is live until drop; op and v are live IR.
        Effects(unsafe { sys::copiergen_mlir_effects_on(self.aa, op.to_raw(), v.to_raw()) })
    }
}

impl Drop for Analysis {
    fn drop(&mut self) {
        // SAFETY: self.aa came from copiergen_mlir_alias_new and is freed once.
        unsafe { sys::copiergen_mlir_alias_free(self.aa) }
    }
}

/// Whether `op` (with its nested operations) has no memory effect at all.
pub fn is_memory_effect_free(op: OperationRef) -> bool {
    // SAFETY: op is a live operation.
    unsafe { sys::copiergen_mlir_is_memory_effect_free(op.to_raw()) != 0 }
}

/// Whether the memory effects of `op` and of everything nested in it are known.
pub fn has_known_effects(op: OperationRef) -> bool {
    // SAFETY: op is a live operation.
    unsafe { sys::copiergen_mlir_has_known_effects(op.to_raw()) != 0 }
}

/// Whether `op` terminates its block (trait `IsTerminator`).
pub fn is_terminator(op: OperationRef) -> bool {
    // SAFETY: op is a live operation.
    unsafe { sys::copiergen_mlir_is_terminator(op.to_raw()) != 0 }
}

/// Emits an MLIR remark at `loc` through the context's diagnostic handlers.
pub fn remark(loc: Location, message: &str) {
    let s = MlirStringRef { data: message.as_ptr().cast(), length: message.len() };
    // SAFETY: loc is a live location; s borrows message for the call only.
    unsafe { sys::copiergen_mlir_remark(loc.to_raw(), s) }
}
