//! Per-architecture engines; see `engine` for the dispatch rules.

pub mod all;
#[cfg(target_arch = "x86_64")]
pub mod x86_64;

use crate::engine::{Engine, FaultAt};

/// True when this CPU and OS run engine `e`.
pub(crate) fn is_available(e: Engine) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        x86_64::is_available(e)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        e == Engine::Portable
    }
}

/// The synchronous copy of engine `e` (available).
pub(crate) fn copy_fn(e: Engine) -> unsafe fn(*mut u8, *const u8, usize) {
    #[cfg(target_arch = "x86_64")]
    {
        x86_64::copy_fn(e)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = e;
        all::copy
    }
}

/// Overlapping move; see `engine::move_bytes`.
///
/// # Safety
/// Both ranges valid for `n` bytes.
pub(crate) unsafe fn move_overlapping(dst: *mut u8, src: *const u8, n: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded.
    unsafe {
        x86_64::move_overlapping(dst, src, n)
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: forwarded.
    unsafe {
        all::move_overlapping(dst, src, n)
    }
}

/// Fault-recoverable copy of engine `e`; see `engine::copy_recoverable_in`.
///
/// # Safety
/// Non-overlapping ranges; `e` available.
#[inline]
pub(crate) unsafe fn copy_recoverable(e: Engine, dst: *mut u8, src: *const u8, n: usize, total: usize) -> Result<(), FaultAt> {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded.
    unsafe {
        x86_64::copy_recoverable(e, dst, src, n, total)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // No recovery on this architecture: a fault kills the process from the
        // executor thread. Documented limitation.
        let _ = (e, total);
        // SAFETY: forwarded.
        unsafe { all::copy(dst, src, n) };
        Ok(())
    }
}
