//! x86-64 engines: ERMS/FSRM `rep movsb`, AVX2, AVX-512, the
//! fault-recoverable executor routines and the size thresholds between
//! them (`dispatch`).

pub mod avx2;
pub mod avx512;
pub mod dispatch;
pub mod erms;
pub mod recover;

use crate::engine::Engine;

/// True when this CPU and OS run engine `e`.
pub(crate) fn is_available(e: Engine) -> bool {
    match e {
        Engine::Avx512 => avx512::is_available(),
        Engine::Avx2 => avx2::is_available(),
        Engine::Erms => erms::is_available(),
        Engine::Portable => true,
    }
}

/// The synchronous copy of engine `e`.
pub(crate) fn copy_fn(e: Engine) -> unsafe fn(*mut u8, *const u8, usize) {
    match e {
        Engine::Avx512 => avx512::copy,
        Engine::Avx2 => avx2::copy,
        Engine::Erms => erms::copy,
        Engine::Portable => super::all::copy,
    }
}

/// Recoverable copy of engine `e`; see `engine::copy_recoverable_in`.
///
/// # Safety
/// Ranges must not overlap; `is_available(e)`.
#[inline]
pub(crate) unsafe fn copy_recoverable(e: Engine, dst: *mut u8, src: *const u8, n: usize, total: usize) -> Result<(), crate::engine::FaultAt> {
    // SAFETY: forwarded; the routine belongs to an available engine.
    unsafe { recover::run(dispatch::recoverable_routine(e, n, total, dispatch::aliasing_4k(dst, src)), dst, src, n) }.map_err(|done| crate::engine::FaultAt { done })
}

/// Copies of at most 32 bytes with two possibly overlapping loads and stores
/// (SSE2 is part of x86-64). Both loads come before both stores, so
/// overlapping ranges move correctly too.
///
/// # Safety
/// Ranges valid for `n <= 32` bytes.
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

/// Copies of at most 256 bytes with the instructions glibc's
/// `memmove-vec-unaligned-erms` (2.36) runs for them, so the inline fast
/// path copies as a `memcpy` call would, without the jump: scalar and
/// 16-byte moves below 32 bytes ([`copy_le32`]), then two, four or eight
/// 32-byte vectors taken from both ends (`wide`, on AVX-512 CPUs where
/// glibc picks its `avx512` variant: two or four 64-byte vectors above 64
/// bytes). Every load of a class comes before its stores, so overlapping
/// ranges move correctly. Each class is its own branch, so the compiler
/// gives each its own return (no jump back); the vector classes are `asm!`
/// so they need no target feature at compile time.
///
/// # Safety
/// Both ranges valid for `n` bytes; `n < 32`, or `n <= 256` on a CPU with
/// AVX (and AVX-512F when `wide`).
#[inline(always)]
pub unsafe fn copy_le256(dst: *mut u8, src: *const u8, n: usize, wide: bool) {
    // SAFETY: (all arms) caller contract: valid ranges, AVX for n >= 32.
    // Layout as glibc's: 32..=64 falls through, the other classes are one
    // taken branch away (`cold_path` only steers the block placement).
    unsafe {
        if n < 32 {
            core::hint::cold_path();
            copy_le32(dst, src, n)
        } else if n > 64 {
            core::hint::cold_path();
            if wide {
                if n <= 128 {
                    zmm_2x(dst, src, n)
                } else {
                    zmm_4x(dst, src, n)
                }
            } else if n <= 128 {
                vec_4x(dst, src, n)
            } else {
                vec_8x(dst, src, n)
            }
        } else {
            vec_2x(dst, src, n)
        }
    }
}

/// `asm!` of a vector copy class: the given load/store lines over `{d}`,
/// `{s}` and `{n}` (registers holding `dst`, `src`, `n`), then `vzeroupper`.
/// vzeroupper clears bits 128.. of every ymm/zmm0-15, so all of xmm0-15 are
/// declared clobbered (caller-saved in the SysV ABI).
macro_rules! vector_copy {
    ($dst:expr, $src:expr, $n:expr, $($line:literal),+ $(,)?) => {
        core::arch::asm!(
            $($line,)+
            "vzeroupper",
            d = in(reg) $dst, s = in(reg) $src, n = in(reg) $n,
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _, out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
            out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _, out("xmm12") _, out("xmm13") _, out("xmm14") _, out("xmm15") _,
            options(nostack, preserves_flags),
        )
    };
}

/// 65..=128 bytes with AVX-512: two 64-byte vectors, from each end.
///
/// # Safety
/// AVX-512F; ranges valid for `64 <= n <= 128` bytes.
#[inline(always)]
unsafe fn zmm_2x(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: accesses [0, 64) and [n - 64, n), n >= 64 (see vec_2x).
    unsafe {
        vector_copy!(
            dst, src, n,
            "vmovdqu64 zmm0, [{s}]",
            "vmovdqu64 zmm1, [{s} + {n} - 64]",
            "vmovdqu64 [{d}], zmm0",
            "vmovdqu64 [{d} + {n} - 64], zmm1",
        );
    }
}

/// 129..=256 bytes with AVX-512: four 64-byte vectors, two from each end.
///
/// # Safety
/// AVX-512F; ranges valid for `128 <= n <= 256` bytes.
#[inline(always)]
unsafe fn zmm_4x(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: accesses [0, 128) and [n - 128, n), n >= 128 (see vec_2x).
    unsafe {
        vector_copy!(
            dst, src, n,
            "vmovdqu64 zmm0, [{s}]",
            "vmovdqu64 zmm1, [{s} + 64]",
            "vmovdqu64 zmm2, [{s} + {n} - 64]",
            "vmovdqu64 zmm3, [{s} + {n} - 128]",
            "vmovdqu64 [{d}], zmm0",
            "vmovdqu64 [{d} + 64], zmm1",
            "vmovdqu64 [{d} + {n} - 64], zmm2",
            "vmovdqu64 [{d} + {n} - 128], zmm3",
        );
    }
}

/// 32..=64 bytes: two 32-byte vectors, from the start and the end.
///
/// # Safety
/// AVX; ranges valid for `32 <= n <= 64` bytes.
#[inline(always)]
unsafe fn vec_2x(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: accesses [0, 32) and [n - 32, n), n >= 32; the clobbered xmm
    // registers cover the ymm ones (caller-saved in the SysV ABI).
    unsafe {
        vector_copy!(
            dst, src, n,
            "vmovdqu ymm0, [{s}]",
            "vmovdqu ymm1, [{s} + {n} - 32]",
            "vmovdqu [{d}], ymm0",
            "vmovdqu [{d} + {n} - 32], ymm1",
        );
    }
}

/// 65..=128 bytes: four 32-byte vectors, two from each end.
///
/// # Safety
/// AVX; ranges valid for `64 <= n <= 128` bytes.
#[inline(always)]
unsafe fn vec_4x(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: accesses [0, 64) and [n - 64, n), n >= 64 (see vec_2x).
    unsafe {
        vector_copy!(
            dst, src, n,
            "vmovdqu ymm0, [{s}]",
            "vmovdqu ymm1, [{s} + 32]",
            "vmovdqu ymm2, [{s} + {n} - 32]",
            "vmovdqu ymm3, [{s} + {n} - 64]",
            "vmovdqu [{d}], ymm0",
            "vmovdqu [{d} + 32], ymm1",
            "vmovdqu [{d} + {n} - 32], ymm2",
            "vmovdqu [{d} + {n} - 64], ymm3",
        );
    }
}

/// 129..=256 bytes: eight 32-byte vectors, four from each end.
///
/// # Safety
/// AVX; ranges valid for `128 <= n <= 256` bytes.
#[inline(always)]
unsafe fn vec_8x(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: accesses [0, 128) and [n - 128, n), n >= 128 (see vec_2x).
    unsafe {
        vector_copy!(
            dst, src, n,
            "vmovdqu ymm0, [{s}]",
            "vmovdqu ymm1, [{s} + 32]",
            "vmovdqu ymm2, [{s} + 64]",
            "vmovdqu ymm3, [{s} + 96]",
            "vmovdqu ymm4, [{s} + {n} - 32]",
            "vmovdqu ymm5, [{s} + {n} - 64]",
            "vmovdqu ymm6, [{s} + {n} - 96]",
            "vmovdqu ymm7, [{s} + {n} - 128]",
            "vmovdqu [{d}], ymm0",
            "vmovdqu [{d} + 32], ymm1",
            "vmovdqu [{d} + 64], ymm2",
            "vmovdqu [{d} + 96], ymm3",
            "vmovdqu [{d} + {n} - 32], ymm4",
            "vmovdqu [{d} + {n} - 64], ymm5",
            "vmovdqu [{d} + {n} - 96], ymm6",
            "vmovdqu [{d} + {n} - 128], ymm7",
        );
    }
}

/// Overlap-safe move: forward `rep movsb` when `dst < src` (its architectural
/// semantics are byte-sequential); backward in 32-byte SSE blocks when the
/// destination lies at least 32 bytes above the source, else a backward
/// byte-sequential `rep movsb` (which runs about 8x slower than memmove).
///
/// # Safety
/// Both ranges valid for `n` bytes.
pub(crate) unsafe fn move_overlapping(dst: *mut u8, src: *const u8, n: usize) {
    if (dst as usize) < (src as usize) {
        // SAFETY: forward rep movsb is a correct memmove when dst < src.
        unsafe { erms::rep_movsb(dst, src, n) };
    } else if dst as usize - src as usize >= 32 {
        // Backward in 32-byte blocks, last first: a block's load and store
        // are disjoint (distance >= 32), and every block still to copy lies
        // below the bytes written so far.
        let mut end = n;
        while end >= 32 {
            end -= 32;
            // SAFETY: [end, end + 32) of both ranges (caller's contract).
            unsafe {
                core::arch::asm!(
                    "movdqu {a}, [{s}]",
                    "movdqu {b}, [{s} + 16]",
                    "movdqu [{d}], {a}",
                    "movdqu [{d} + 16], {b}",
                    s = in(reg) src.add(end),
                    d = in(reg) dst.add(end),
                    a = out(xmm_reg) _,
                    b = out(xmm_reg) _,
                    options(nostack, preserves_flags)
                );
            }
        }
        // SAFETY: the head [0, end), end < 32 <= distance: disjoint ranges.
        unsafe { erms::rep_movsb(dst, src, end) };
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

#[cfg(test)]
mod tests {
    /// Every length 0..=256 at several misalignments, both vector widths,
    /// padded both ends so overruns are caught; and overlapping moves in
    /// both directions against `copy_within`.
    #[test]
    fn copy_le256_all_lengths_and_overlaps() {
        if !std::arch::is_x86_feature_detected!("avx") {
            return;
        }
        let widths: &[bool] = if std::arch::is_x86_feature_detected!("avx512f") { &[false, true] } else { &[false] };
        for &wide in widths {
            for n in 0..=256usize {
                for (da, sa) in [(0, 0), (1, 3), (7, 31), (32, 5), (63, 1)] {
                    let src: Vec<u8> = (0..n + 128).map(|i| (i * 7 + 3) as u8).collect();
                    let mut dst = vec![0xEEu8; n + 128];
                    // SAFETY: in bounds (n + 128 bytes, offsets < 64); AVX checked.
                    unsafe { super::copy_le256(dst.as_mut_ptr().add(da), src.as_ptr().add(sa), n, wide) };
                    assert!(dst[..da].iter().all(|&b| b == 0xEE), "n={n} wide={wide} underrun");
                    assert_eq!(&dst[da..da + n], &src[sa..sa + n], "n={n} da={da} sa={sa} wide={wide}");
                    assert!(dst[da + n..].iter().all(|&b| b == 0xEE), "n={n} wide={wide} overrun");
                }
                for shift in [1usize, 5, 31, 64, 100] {
                    for forward in [true, false] {
                        let mut buf: Vec<u8> = (0..n + 256).map(|i| (i * 13 + 1) as u8).collect();
                        let mut model = buf.clone();
                        let (d, s) = if forward { (0, shift) } else { (shift, 0) };
                        model.copy_within(s..s + n, d);
                        let p = buf.as_mut_ptr();
                        // SAFETY: both ranges inside buf (n + shift <= n + 256).
                        unsafe { super::copy_le256(p.add(d), p.add(s), n, wide) };
                        assert_eq!(buf, model, "overlap n={n} shift={shift} forward={forward} wide={wide}");
                    }
                }
            }
        }
    }
}
