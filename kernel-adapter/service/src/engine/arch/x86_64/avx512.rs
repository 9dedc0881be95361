//! AVX-512 engine: 64-byte vectors. Copies up to 256 bytes take the size
//! classes of `super::copy_le256` (two or four `zmm` from both ends), longer
//! ones the AVX-512 loop of `super::recover` instantiated outside the
//! recoverable range (so a fault in a synchronous copy reaches the program),
//! `rep movsb` from [`LOOP_MAX`] (the 32-byte loop where
//! `dispatch::aliasing_4k`), and the non-temporal loop from
//! `engine::nt_threshold`.

use super::recover::{rc_vector_loop, rc_vector_routines, RcResult};

/// Copies up to this length (bytes) take the vector loop, longer ones
/// `rep movsb` (measured: see `engine`, "Thresholds").
pub const LOOP_MAX: usize = super::dispatch::AVX512_LOOP_MAX;

// The loops of `recover`, in plain `.text`: a fault here is the program's.
core::arch::global_asm!(rc_vector_routines!(
    "__copier_loop_avx2",
    "__copier_loop_avx2_nt",
    "__copier_loop_avx512",
    "__copier_loop_avx512_nt"
));

extern "C" {
    /// (also the AVX2 engine's, `super::avx2`)
    pub(super) fn __copier_loop_avx2(dst: *mut u8, src: *const u8, n: usize) -> RcResult;
    fn __copier_loop_avx512(dst: *mut u8, src: *const u8, n: usize) -> RcResult;
    fn __copier_loop_avx512_nt(dst: *mut u8, src: *const u8, n: usize) -> RcResult;
}

/// True when the CPU has AVX-512F and the OS saves its state (std's
/// detection reads CPUID and checks XCR0's opmask/ZMM bits with `xgetbv`).
pub fn is_available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
}

/// AVX-512 copy (dispatch target).
///
/// # Safety
/// As `memcpy`, and the CPU supports AVX-512F ([`is_available`]).
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: (all arms) caller contract: valid disjoint ranges, AVX-512F;
    // the loops need n >= MIN_VECTOR_LEN (256 < n here) and follow the SysV
    // ABI (see `recover`).
    unsafe {
        if n <= 256 {
            super::copy_le256(dst, src, n, true);
        } else if n <= LOOP_MAX {
            __copier_loop_avx512(dst, src, n);
        } else if n < crate::engine::nt_threshold() {
            if super::dispatch::aliasing_4k(dst, src) {
                __copier_loop_avx2(dst, src, n);
            } else {
                super::erms::rep_movsb(dst, src, n);
            }
        } else {
            __copier_loop_avx512_nt(dst, src, n);
        }
    }
}
