//! The one place the lock-free modules reach atomics from, so `--cfg loom`
//! swaps in loom's model-checked atomics (crossbeam-epoch's `primitive` shim).

#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

#[cfg(not(loom))]
#[allow(unused_imports)]
pub(crate) use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
