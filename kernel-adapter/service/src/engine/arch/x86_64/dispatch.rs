//! Which routine each engine runs for a copy of `n` bytes: the size
//! thresholds, measured on this project's machines (see `engine`,
//! "Thresholds", and `bench/results/`).

use super::recover::{Routine, MIN_VECTOR_LEN};
use crate::engine::Engine;

/// The synchronous AVX-512 engine runs its vector loop up to this length
/// (bytes) and `rep movsb` above, below `engine::nt_threshold`.
pub const AVX512_LOOP_MAX: usize = 8 << 10;

/// Recoverable copies of the AVX2 engine run the vector loop up to this
/// length (bytes) and `rep movsb` above, below `engine::nt_threshold`.
pub const RC_AVX2_LOOP_MAX: usize = 2048;

/// As [`RC_AVX2_LOOP_MAX`] for the AVX-512 engine.
pub const RC_AVX512_LOOP_MAX: usize = 8 << 10;

/// The recoverable routine engine `e` runs for `n` bytes of a copy of
/// `total` bytes (non-temporal from `engine::nt_threshold` of `total`);
/// `aliasing`: [`aliasing_4k`] holds for its destination and source, so
/// the AVX-512 and AVX2 engines run the 32-byte loop instead of `rep movsb`.
/// Below `MIN_VECTOR_LEN` every engine takes `rep movsb`; ERMS and the
/// portable engine take it at every length (the portable engine has no
/// recoverable routine of its own: `rep movsb` is baseline x86-64).
pub(crate) fn recoverable_routine(e: Engine, n: usize, total: usize, aliasing: bool) -> Routine {
    routine(e, n, total >= crate::engine::nt_threshold(), aliasing)
}

/// [`recoverable_routine`] given whether the copy takes non-temporal
/// stores (`nt`).
fn routine(e: Engine, n: usize, nt: bool, aliasing: bool) -> Routine {
    match e {
        _ if n < MIN_VECTOR_LEN => Routine::Movsb,
        Engine::Avx512 if nt => Routine::Avx512Nt,
        Engine::Avx2 if nt => Routine::Avx2Nt,
        Engine::Avx512 | Engine::Avx2 if aliasing => Routine::Avx2,
        Engine::Avx512 if n <= RC_AVX512_LOOP_MAX => Routine::Avx512,
        Engine::Avx2 if n <= RC_AVX2_LOOP_MAX => Routine::Avx2,
        _ => Routine::Movsb,
    }
}

/// True when this CPU's `rep movsb` runs far slower than the vector loop
/// for a copy whose destination lies a few bytes above its source in page
/// offset ([`aliasing_4k`]): AMD's and Hygon's (Zen) cores. Measured on an
/// AMD EPYC guest with FSRM (`bench/results/engines-2026-12-04-aliasing.txt`):
/// 64 KiB took 1.2 us at distances 0 and 32..4095, 1.6-2.0 us at 16..31
/// and 19 us at 1..15, where the vector loop takes 1.2 us at every
/// distance; glibc 2.36 runs `rep movsb` there up to 768 KiB (and pays the
/// same), its vector loop from 1 MiB. Intel's cores keep `rep movsb`.
pub fn movsb_slow_on_aliasing() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    /// 0: not read yet; 1: no; 2: yes.
    static SLOW: AtomicU8 = AtomicU8::new(0);
    match SLOW.load(Ordering::Relaxed) {
        0 => {
            // CPUID leaf 0: the vendor string in ebx, edx, ecx.
            let r = core::arch::x86_64::__cpuid(0);
            let mut v = [0u8; 12];
            v[..4].copy_from_slice(&r.ebx.to_le_bytes());
            v[4..8].copy_from_slice(&r.edx.to_le_bytes());
            v[8..].copy_from_slice(&r.ecx.to_le_bytes());
            let slow = &v == b"AuthenticAMD" || &v == b"HygonGenuine";
            SLOW.store(if slow { 2 } else { 1 }, Ordering::Relaxed);
            slow
        }
        s => s == 2,
    }
}

/// Largest distance (bytes, in page offset) from a copy's source up to its
/// destination that [`aliasing_4k`] reports.
pub const ALIASING_MAX: usize = 63;

/// True when `dst` lies 1 to [`ALIASING_MAX`] bytes above `src` in page
/// offset (`(dst - src) % 4096`), so a forward copy's loads alias the
/// stores it just issued (4 KiB aliasing), and this CPU's `rep movsb` is
/// slow for such copies ([`movsb_slow_on_aliasing`]): the engines then run
/// their vector loop, which loads ahead of its stores, where they would run
/// `rep movsb`.
#[inline]
pub fn aliasing_4k(dst: *const u8, src: *const u8) -> bool {
    aliasing_distance(dst as usize, src as usize) && movsb_slow_on_aliasing()
}

/// True when `dst` lies 1 to [`ALIASING_MAX`] bytes above `src` in page
/// offset.
#[inline(always)]
fn aliasing_distance(dst: usize, src: usize) -> bool {
    (1..=ALIASING_MAX).contains(&(dst.wrapping_sub(src) % 4096))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliasing_is_a_short_distance_up_in_page_offset() {
        let s = 0x10_0000usize;
        for (d, want) in [(s, false), (s + 1, true), (s + 8, true), (s + 63, true), (s + 64, false), (s + 4096 + 8, true), (s + 72, false), (s - 8, false), (s + 4095, false)] {
            assert_eq!(aliasing_distance(d, s), want, "dst - src = {}", d.wrapping_sub(s) as isize);
        }
        // wrapping: a destination below the source by a page less 8 bytes
        assert!(aliasing_distance(s - 4096 + 8, s));
    }

    #[test]
    fn aliasing_copies_take_the_avx2_loop() {
        for e in [Engine::Avx512, Engine::Avx2] {
            for n in [MIN_VECTOR_LEN, 4096, 12 << 10, 64 << 10, 4 << 20] {
                assert_eq!(routine(e, n, false, true), Routine::Avx2, "{e:?} n={n}");
            }
            // non-temporal stores still go by the whole copy's length
            assert_eq!(routine(e, 64 << 10, true, true), routine(e, 64 << 10, true, false));
            assert_eq!(routine(e, MIN_VECTOR_LEN - 1, false, true), Routine::Movsb);
        }
        assert_eq!(routine(Engine::Avx2, 64 << 10, false, false), Routine::Movsb);
        assert_eq!(routine(Engine::Avx512, 64 << 10, false, false), Routine::Movsb);
        assert_eq!(routine(Engine::Erms, 64 << 10, false, true), Routine::Movsb);
    }
}
