//! x86-64 engines: ERMS/FSRM `rep movsb`, AVX2, and the fault-recoverable
//! executor routines.

pub mod avx2;
pub mod erms;
pub mod recover;

pub(crate) fn best() -> (&'static str, unsafe fn(*mut u8, *const u8, usize)) {
    if avx2::is_available() {
        ("avx2", avx2::copy)
    } else if erms::is_available() {
        ("erms", erms::copy)
    } else {
        ("portable", super::all::copy)
    }
}

/// Copies of at most 32 bytes with two possibly overlapping loads and stores
/// (SSE2 is part of x86-64).
///
/// # Safety
/// Non-overlapping ranges valid for `n <= 32` bytes.
#[inline(always)]
pub unsafe fn copy_le32(dst: *mut u8, src: *const u8, n: usize) {
    use core::ptr::{read_unaligned as ld, write_unaligned as st};
    // SAFETY: (all arms) every access lies in [0, n) of both ranges.
    unsafe {
        if n >= 16 {
            let a = ld(src as *const u128);
            let b = ld(src.add(n - 16) as *const u128);
            st(dst as *mut u128, a);
            st(dst.add(n - 16) as *mut u128, b);
        } else if n >= 8 {
            let a = ld(src as *const u64);
            let b = ld(src.add(n - 8) as *const u64);
            st(dst as *mut u64, a);
            st(dst.add(n - 8) as *mut u64, b);
        } else if n >= 4 {
            let a = ld(src as *const u32);
            let b = ld(src.add(n - 4) as *const u32);
            st(dst as *mut u32, a);
            st(dst.add(n - 4) as *mut u32, b);
        } else if n >= 2 {
            let a = ld(src as *const u16);
            let b = ld(src.add(n - 2) as *const u16);
            st(dst as *mut u16, a);
            st(dst.add(n - 2) as *mut u16, b);
        } else if n == 1 {
            *dst = *src;
        }
    }
}

/// Overlap-safe move: forward `rep movsb` when `dst < src` (its architectural
/// semantics are byte-sequential), backward otherwise.
///
/// # Safety
/// Both ranges valid for `n` bytes.
pub(crate) unsafe fn move_overlapping(dst: *mut u8, src: *const u8, n: usize) {
    if (dst as usize) < (src as usize) {
        // SAFETY: forward rep movsb is a correct memmove when dst < src.
        unsafe { erms::rep_movsb(dst, src, n) };
    } else {
        // SAFETY: backward byte-sequential copy from the last byte; DF is
        // restored before returning (the ABI requires DF clear).
        unsafe {
            core::arch::asm!(
                "std",
                "rep movsb",
                "cld",
                inout("rcx") n => _,
                inout("rdi") dst.add(n - 1) => _,
                inout("rsi") src.add(n - 1) => _,
                options(nostack, preserves_flags)
            );
        }
    }
}
