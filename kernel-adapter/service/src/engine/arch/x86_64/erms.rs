//! Enhanced/fast-short `rep movsb` engine (ERMS/FSRM CPUID bits): the CPU's
//! own microcoded copy, which the kernel uses for `copy_user` (seed 002).

/// True when the CPU advertises ERMS.
pub fn is_available() -> bool {
    std::arch::is_x86_feature_detected!("ermsb")
}

/// `rep movsb` of `n` bytes.
///
/// # Safety
/// Both ranges valid for `n` bytes; forward-correct (dst <= src if they overlap).
#[inline(always)]
pub unsafe fn rep_movsb(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: caller contract; DF is clear per the SysV ABI.
    unsafe {
        core::arch::asm!(
            "rep movsb",
            inout("rcx") n => _,
            inout("rdi") dst => _,
            inout("rsi") src => _,
            options(nostack, preserves_flags)
        );
    }
}

/// ERMS engine: short copies inline, the rest with `rep movsb`.
///
/// # Safety
/// As `memcpy`.
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    if n <= 32 {
        // SAFETY: forwarded.
        unsafe { super::copy_le32(dst, src, n) }
    } else {
        // SAFETY: forwarded.
        unsafe { rep_movsb(dst, src, n) }
    }
}
