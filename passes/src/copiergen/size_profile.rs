//! Memcpy size value profiles (`-fprofile-use`): what LLVM's memop
//! profiling recorded about the lengths of a variable-length copy, and what
//! that means for the rewrite.
//!
//! IR PGO (`-fprofile-generate`, or `-fcs-profile-generate`; the front
//! end's `-fprofile-instr-generate` records no sizes) counts each length of
//! a variable-length memory intrinsic in one of 22 buckets (compiler-rt
//! `InstrProfGetRangeRepValue`, `InstrProfData.inc`): the lengths 0 to 8
//! and the powers of two up to 512 exactly, `2^k+1 ..= 2^(k+1)-1` as
//! `2^k+1`, and every length of 513 or more as 513. `pgo-instr-use` puts
//! the total and the hottest buckets (at most 4, `-memop-max-annotations`)
//! on the call: `!prof !{!"VP", i32 1, i64 total, i64 value, i64 count,
//! ...}` (kind 1 is `IPVK_MemOPSize`). `pgo-memop-opt`, earlier in the
//! pipeline, may version the call for hot lengths up to 128 bytes; the
//! default call keeps the rest of the profile (or none, when every call
//! was versioned). CopierGen runs at the end of the pipeline and reads
//! what is left.
//!
//! Since all lengths from 513 up share one bucket, a profile proves a
//! length at or above the threshold only for thresholds up to 513.

use crate::ir::{self, MdOperand};
use inkwell::llvm_sys::prelude::LLVMValueRef;

/// `IPVK_MemOPSize`, the value kind of memop size profiles.
const IPVK_MEMOP_SIZE: u64 = 1;

/// Share of a site's profiled calls (percent) that must agree for the
/// profile to decide (the rest: other buckets, or calls the metadata does
/// not list).
pub const DECIDING_SHARE: u64 = 95;

/// The size profile of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeProfile {
    /// Calls profiled.
    pub total: u64,
    /// (bucket value, calls): the hottest buckets, as recorded.
    pub buckets: Vec<(u64, u64)>,
}

/// What a size profile says about a copy against the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// At least [`DECIDING_SHARE`] % of the calls were shorter than the
    /// threshold: the copy stays `memcpy`.
    Short {
        /// Calls profiled.
        calls: u64,
        /// Calls in buckets below the threshold.
        short: u64,
        /// Upper bound (bytes) of the largest such bucket.
        max: u64,
    },
    /// At least [`DECIDING_SHARE`] % of the calls were at least the
    /// threshold long: the copy submits without the run-time size split.
    Long {
        /// Calls profiled.
        calls: u64,
        /// Calls in buckets at or above the threshold.
        long: u64,
    },
}

/// The lengths bucket `value` stands for, `(first, last)` in bytes.
pub fn bucket_range(value: u64) -> (u64, u64) {
    if value <= 8 || value.is_power_of_two() {
        (value, value)
    } else if value >= 513 {
        // 513 is "513 or more"; a larger value (not written by LLVM's
        // runtime) is read as "at least that".
        (value, u64::MAX)
    } else {
        // 2^k+1 stands for 2^k+1 ..= 2^(k+1)-1.
        let floor = 1u64 << (63 - value.leading_zeros());
        (value, 2 * floor - 1)
    }
}

impl SizeProfile {
    /// The memop size profile on `call` (`!prof !{!"VP", i32 1, ...}`), if
    /// it has one. Malformed metadata (an odd number of value operands, a
    /// count above the total) reads as none.
    pub fn of(call: LLVMValueRef) -> Option<SizeProfile> {
        let ops = ir::md_operands(call, "prof")?;
        let (MdOperand::Str(tag), MdOperand::Int(kind), MdOperand::Int(total)) = (ops.first()?, ops.get(1)?, ops.get(2)?)
        else {
            return None;
        };
        if tag != "VP" || *kind != IPVK_MEMOP_SIZE || (ops.len() - 3) % 2 != 0 {
            return None;
        }
        let mut buckets = Vec::new();
        for pair in ops[3..].chunks(2) {
            let (MdOperand::Int(v), MdOperand::Int(n)) = (&pair[0], &pair[1]) else { return None };
            buckets.push((*v, *n));
        }
        let listed = buckets.iter().try_fold(0u64, |s, &(_, n)| s.checked_add(n))?;
        (listed <= *total).then_some(SizeProfile { total: *total, buckets })
    }

    /// What the profile says about copies against `threshold` (bytes);
    /// `None` when it decides nothing (no calls, or too few agree).
    pub fn verdict(&self, threshold: u64) -> Option<Verdict> {
        if self.total == 0 {
            return None;
        }
        let decides = |n: u64| u128::from(n) * 100 >= u128::from(self.total) * u128::from(DECIDING_SHARE);
        let short: Vec<(u64, u64)> =
            self.buckets.iter().filter(|&&(v, _)| bucket_range(v).1 < threshold).map(|&(v, n)| (bucket_range(v).1, n)).collect();
        let short_calls = short.iter().map(|&(_, n)| n).sum();
        if decides(short_calls) {
            let max = short.iter().map(|&(m, _)| m).max().unwrap_or(0);
            return Some(Verdict::Short { calls: self.total, short: short_calls, max });
        }
        let long_calls = self.buckets.iter().filter(|&&(v, _)| bucket_range(v).0 >= threshold).map(|&(_, n)| n).sum();
        decides(long_calls).then_some(Verdict::Long { calls: self.total, long: long_calls })
    }
}

/// The verdict for a variable-length copy `call` against `threshold`;
/// `None` under `-copiergen-size-profile=false`.
pub fn verdict(call: LLVMValueRef, threshold: u64) -> Option<Verdict> {
    if !super::options::SIZE_PROFILE.bool() {
        return None;
    }
    SizeProfile::of(call)?.verdict(threshold)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_llvm_memop_ranges() {
        assert_eq!(bucket_range(0), (0, 0));
        assert_eq!(bucket_range(8), (8, 8));
        assert_eq!(bucket_range(9), (9, 15));
        assert_eq!(bucket_range(16), (16, 16));
        assert_eq!(bucket_range(129), (129, 255));
        assert_eq!(bucket_range(257), (257, 511));
        assert_eq!(bucket_range(512), (512, 512));
        assert_eq!(bucket_range(513), (513, u64::MAX));
    }

    fn profile(total: u64, buckets: &[(u64, u64)]) -> SizeProfile {
        SizeProfile { total, buckets: buckets.to_vec() }
    }

    #[test]
    fn short_sites_need_the_deciding_share_below_the_threshold() {
        let p = profile(2000, &[(129, 870), (65, 630), (33, 310), (17, 150)]);
        assert_eq!(p.verdict(16384), Some(Verdict::Short { calls: 2000, short: 1960, max: 255 }));
        // 60 unlisted calls of 1000: too many unknown.
        assert_eq!(profile(1000, &[(129, 900), (65, 40)]).verdict(16384), None);
        // Lengths of 513 or more may reach the threshold.
        assert_eq!(profile(100, &[(513, 50), (64, 50)]).verdict(16384), None);
        assert_eq!(profile(0, &[]).verdict(16384), None);
    }

    #[test]
    fn long_sites_are_known_only_up_to_the_last_bucket() {
        let p = profile(200, &[(513, 200)]);
        assert_eq!(p.verdict(16384), None);
        assert_eq!(p.verdict(512), Some(Verdict::Long { calls: 200, long: 200 }));
        assert_eq!(profile(100, &[(513, 96), (8, 4)]).verdict(513), Some(Verdict::Long { calls: 100, long: 96 }));
        assert_eq!(profile(100, &[(513, 90), (8, 10)]).verdict(513), None);
    }
}
