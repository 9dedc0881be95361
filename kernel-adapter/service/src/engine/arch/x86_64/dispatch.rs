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
/// `total` bytes (non-temporal from `engine::nt_threshold` of `total`).
/// Below `MIN_VECTOR_LEN` every engine takes `rep movsb`; ERMS and the
/// portable engine take it at every length (the portable engine has no
/// recoverable routine of its own: `rep movsb` is baseline x86-64).
pub(crate) fn recoverable_routine(e: Engine, n: usize, total: usize) -> Routine {
    let nt = total >= crate::engine::nt_threshold();
    match e {
        _ if n < MIN_VECTOR_LEN => Routine::Movsb,
        Engine::Avx512 if nt => Routine::Avx512Nt,
        Engine::Avx512 if n <= RC_AVX512_LOOP_MAX => Routine::Avx512,
        Engine::Avx2 if nt => Routine::Avx2Nt,
        Engine::Avx2 if n <= RC_AVX2_LOOP_MAX => Routine::Avx2,
        _ => Routine::Movsb,
    }
}
