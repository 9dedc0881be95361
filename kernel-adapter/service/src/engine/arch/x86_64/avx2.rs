//! AVX2 engine: the size classes of glibc's `memmove-vec-unaligned-erms`
//! (overlapping head/tail vectors for short copies, a 4-vector loop up to
//! [`REP_MOVSB_THRESHOLD`], `rep movsb` in the middle (`recover`'s 32-byte
//! loop where `dispatch::aliasing_4k`), 32-byte non-temporal
//! stores above `engine::nt_threshold`).

use core::arch::x86_64::*;

/// From this length `rep movsb` beats the vector loop (glibc's
/// `x86_rep_movsb_threshold` default for 32-byte vectors).
pub const REP_MOVSB_THRESHOLD: usize = 2048;

/// True when the CPU has AVX2.
pub fn is_available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// AVX2 copy (dispatch target; the CPU must have AVX2).
///
/// # Safety
/// As `memcpy`, and the CPU supports AVX2.
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: only installed by `best()` after `is_available()`.
    unsafe { copy_avx2(dst, src, n) }
}

#[target_feature(enable = "avx2")]
unsafe fn copy_avx2(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: (whole body) every load reads [0, n) of src and every store
    // writes [0, n) of dst; caller guarantees both valid and disjoint.
    unsafe {
        if n <= 32 {
            return super::copy_le32(dst, src, n);
        }
        let ld = |p: *const u8| _mm256_loadu_si256(p as *const __m256i);
        let st = |p: *mut u8, v| _mm256_storeu_si256(p as *mut __m256i, v);
        if n <= 64 {
            let (a, b) = (ld(src), ld(src.add(n - 32)));
            st(dst, a);
            st(dst.add(n - 32), b);
            return;
        }
        if n <= REP_MOVSB_THRESHOLD {
            // tail vectors first (loaded before any store: ranges are disjoint)
            let t0 = ld(src.add(n - 32));
            let t1 = ld(src.add(n - 64));
            let mut i = 0;
            while i + 128 <= n {
                let (a, b, c, d) = (ld(src.add(i)), ld(src.add(i + 32)), ld(src.add(i + 64)), ld(src.add(i + 96)));
                st(dst.add(i), a);
                st(dst.add(i + 32), b);
                st(dst.add(i + 64), c);
                st(dst.add(i + 96), d);
                i += 128;
            }
            while i + 32 <= n {
                st(dst.add(i), ld(src.add(i)));
                i += 32;
            }
            st(dst.add(n - 64), t1);
            st(dst.add(n - 32), t0);
            return;
        }
        if n < crate::engine::nt_threshold() {
            if super::dispatch::aliasing_4k(dst, src) {
                // (n > REP_MOVSB_THRESHOLD >= MIN_VECTOR_LEN; AVX2, ABI as `recover`)
                super::avx512::__copier_loop_avx2(dst, src, n);
                return;
            }
            return super::erms::rep_movsb(dst, src, n);
        }
        // non-temporal: align the destination to 32 bytes, stream, fence
        let head = (32 - (dst as usize & 31)) & 31;
        st(dst, ld(src));
        let (mut d, mut s, mut left) = (dst.add(head), src.add(head), n - head);
        while left >= 128 {
            let (a, b, c, e) = (ld(s), ld(s.add(32)), ld(s.add(64)), ld(s.add(96)));
            _mm256_stream_si256(d as *mut __m256i, a);
            _mm256_stream_si256(d.add(32) as *mut __m256i, b);
            _mm256_stream_si256(d.add(64) as *mut __m256i, c);
            _mm256_stream_si256(d.add(96) as *mut __m256i, e);
            d = d.add(128);
            s = s.add(128);
            left -= 128;
        }
        _mm_sfence();
        if left > 0 {
            st(dst.add(n - 32), ld(src.add(n - 32)));
            while left > 32 {
                st(d, ld(s));
                d = d.add(32);
                s = s.add(32);
                left -= 32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every length 0..=300 and a few big ones, at several misalignments,
    /// padded both ends so overruns are caught (memchr's test style).
    #[test]
    fn all_size_classes() {
        if !super::is_available() {
            return;
        }
        let saved = crate::engine::NT_THRESHOLD.swap(64 << 10, core::sync::atomic::Ordering::Relaxed);
        let lens: Vec<usize> = (0..=300).chain([2047, 2048, 2049, 4096, 65535, 65536, 200_001]).collect();
        for &n in &lens {
            for (da, sa) in [(0, 0), (1, 3), (7, 31), (32, 5)] {
                let src: Vec<u8> = (0..n + 64).map(|i| (i * 7 + 3) as u8).collect();
                let mut dst = vec![0xEEu8; n + 64];
                // SAFETY: in bounds (n + 64 bytes, offsets < 33).
                unsafe { super::copy(dst.as_mut_ptr().add(da), src.as_ptr().add(sa), n) };
                assert!(dst[..da].iter().all(|&b| b == 0xEE), "n={n} underrun");
                assert_eq!(&dst[da..da + n], &src[sa..sa + n], "n={n} da={da} sa={sa}");
                assert!(dst[da + n..].iter().all(|&b| b == 0xEE), "n={n} overrun");
            }
        }
        crate::engine::NT_THRESHOLD.store(saved, core::sync::atomic::Ordering::Relaxed);
    }
}
