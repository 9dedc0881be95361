//! Per-architecture engines; see `engine` for the dispatch rules.

pub mod all;
#[cfg(target_arch = "x86_64")]
pub mod x86_64;

/// The best engine of this CPU: (name, function).
pub(crate) fn best() -> (&'static str, unsafe fn(*mut u8, *const u8, usize)) {
    #[cfg(target_arch = "x86_64")]
    {
        x86_64::best()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        ("portable", all::copy)
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

/// Fault-recoverable copy; see `engine::copy_recoverable`.
///
/// # Safety
/// Non-overlapping ranges.
pub(crate) unsafe fn copy_recoverable(
    dst: *mut u8,
    src: *const u8,
    n: usize,
) -> Result<(), crate::engine::Fault> {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded.
    unsafe {
        x86_64::recover::copy(dst, src, n)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // No recovery on this architecture: a fault kills the process from the
        // executor thread. Documented limitation.
        // SAFETY: forwarded.
        unsafe { all::copy(dst, src, n) };
        Ok(())
    }
}
