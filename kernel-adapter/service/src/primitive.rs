//! The one place the lock-free modules reach atomics from, so `--cfg loom`
//! swaps in loom's model-checked atomics (crossbeam-epoch's `primitive` shim).

#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::atomic::{fence, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::thread::yield_now;
/// loom has no compiler fence: it models every fence as a full one, so
/// its models take the full-fence paths.
#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::atomic::fence as compiler_fence;

#[cfg(not(loom))]
#[allow(unused_imports)]
pub(crate) use core::sync::atomic::{compiler_fence, fence, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
#[allow(unused_imports)]
pub(crate) use std::thread::yield_now;
