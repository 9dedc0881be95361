//! What runs a copy on the calling thread's fast path (the entry points'
//! inline copy: below the threshold, nothing pending; `gate`): size classes
//! up to 256 bytes right in the entry point, then a tail jump to a routine.
//!
//! * `engine=auto` (the default): what a plain `memcpy` call runs on this
//!   CPU, so the fast path costs no more than `memcpy` for any size. The
//!   classes use the vector width glibc 2.36's `memmove` picks (64 bytes
//!   from 65 bytes on when it takes its `avx512` variant: AVX-512F and VL
//!   plus AVX-VNNI, the CPUs that keep their frequency with `zmm` loads
//!   and stores, `sysdeps/x86/cpu-features.c`'s `Prefer_No_AVX512`; 32
//!   bytes on other AVX CPUs; scalar and 16-byte moves below 32 bytes
//!   without AVX), and longer copies jump to glibc's `memcpy`/`memmove`.
//! * `engine=NAME`: that engine in the caller too: `avx512` the 64-byte
//!   classes, `avx2` the 32-byte ones, `erms` and `portable` only the
//!   scalar classes below 32 bytes (no vector register), and every longer
//!   copy below the threshold the engine's own routine (`engine::copy`,
//!   `engine::move_bytes`), never glibc's.
//!
//! Copies the service runs, and the caller's synchronous fallbacks, always
//! use the chosen engine (module `engine`).

use super::Engine;

/// The fast path's plan for copies below the threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallerCopy {
    /// Copies shorter than this many bytes run in the entry point (32, or
    /// 257 with AVX); the gate caps it at the threshold.
    pub vec_limit: usize,
    /// 64-byte vectors for 65..=256 bytes (`arch::x86_64::copy_le256`).
    pub wide: bool,
    /// Where longer copies below the threshold jump: `None` for glibc's
    /// `memcpy`/`memmove` (once resolved; the engine's before), else that
    /// engine's routines.
    pub routine: Option<Engine>,
}

impl CallerCopy {
    /// The plan for engine option `forced` (`None`: `auto`) on this CPU.
    pub fn for_engine(forced: Option<Engine>) -> CallerCopy {
        let avx = has_avx();
        let (vec_limit, wide) = match forced {
            None => (if avx { 257 } else { 32 }, avx && glibc_uses_zmm()),
            Some(Engine::Avx512) => (257, true),
            Some(Engine::Avx2) => (257, false),
            Some(Engine::Erms | Engine::Portable) => (32, false),
        };
        CallerCopy { vec_limit, wide, routine: forced }
    }

    /// The plan of the current `engine` option.
    pub fn current() -> CallerCopy {
        CallerCopy::for_engine(super::forced())
    }

    /// Name for statistics: a forced engine's name, else `libc-` and the
    /// classes' widest register (`libc-zmm`, `libc-ymm`, `libc-xmm`).
    pub fn name(self) -> &'static str {
        match self.routine {
            Some(e) => e.name(),
            None if self.vec_limit <= 32 => "libc-xmm",
            None if self.wide => "libc-zmm",
            None => "libc-ymm",
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn has_avx() -> bool {
    std::arch::is_x86_feature_detected!("avx")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx() -> bool {
    false
}

/// glibc 2.36's `memmove` takes its `avx512` variant (64-byte vectors):
/// AVX-512F and AVX-512VL usable, and `Prefer_No_AVX512` unset, which
/// `init_cpu_features` sets on AVX-512 CPUs without AVX-VNNI (CPUID leaf 7
/// subleaf 1, EAX bit 4) and without AVX512ER. A `GLIBC_TUNABLES` override
/// of the preference is not followed. Asked once per process: under a
/// hypervisor every CPUID exits to it (about 40 us each on the KVM guest
/// of `bench/results/programs-2026-12-01-stop16.txt`).
#[cfg(target_arch = "x86_64")]
fn glibc_uses_zmm() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    /// 0: not asked yet; else 1 + the answer.
    static ZMM: AtomicU8 = AtomicU8::new(0);
    match ZMM.load(Ordering::Relaxed) {
        0 => {
            let z = ask_glibc_uses_zmm();
            ZMM.store(1 + u8::from(z), Ordering::Relaxed);
            z
        }
        v => v == 2,
    }
}

#[cfg(target_arch = "x86_64")]
fn ask_glibc_uses_zmm() -> bool {
    if !(std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vl")) {
        return false;
    }
    // CPUID is safe on x86-64; leaf 7 exists on every CPU with AVX-512F.
    let leaf7 = core::arch::x86_64::__cpuid_count(7, 0);
    let vnni = leaf7.eax >= 1 && core::arch::x86_64::__cpuid_count(7, 1).eax & (1 << 4) != 0;
    // AVX512ER (Xeon Phi): leaf 7 subleaf 0, EBX bit 27.
    let er = leaf7.ebx & (1 << 27) != 0;
    vnni || er
}

#[cfg(test)]
mod tests {
    use super::{CallerCopy, Engine};

    /// A forced engine never reaches glibc and never uses wider vectors
    /// than its own; erms and portable use no vector register.
    #[test]
    fn forced_engines_run_in_the_caller() {
        let plan = |vec_limit, wide, e| CallerCopy { vec_limit, wide, routine: Some(e) };
        assert_eq!(CallerCopy::for_engine(Some(Engine::Avx512)), plan(257, true, Engine::Avx512));
        assert_eq!(CallerCopy::for_engine(Some(Engine::Avx2)), plan(257, false, Engine::Avx2));
        for e in [Engine::Erms, Engine::Portable] {
            assert_eq!(CallerCopy::for_engine(Some(e)), plan(32, false, e));
            assert_eq!(CallerCopy::for_engine(Some(e)).name(), e.name());
        }
        let auto = CallerCopy::for_engine(None);
        assert_eq!(auto.routine, None);
        assert!(auto.vec_limit == 32 || auto.vec_limit == 257);
        assert!(!auto.wide || auto.vec_limit == 257);
        assert!(auto.name().starts_with("libc-"));
    }
}
