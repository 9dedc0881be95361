//! Ready ranges: the byte ranges known synced at a program point (the
//! must-analysis that lets a narrow sync skip bytes already waited for).

use inkwell::llvm_sys::prelude::LLVMValueRef;

/// Most ready ranges remembered per program point.
const MAX_AVAILABLE: usize = 64;

/// Byte ranges known ready at a program point: synced since the last
/// submission on every path (a must-analysis: intersection at merges).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Ready(pub(super) Vec<(LLVMValueRef, i64, i64)>);

impl Ready {
    /// Whether `[lo, hi)` off `base` is ready.
    pub(super) fn covers(&self, base: LLVMValueRef, lo: i64, hi: i64) -> bool {
        self.0.iter().any(|&(b, l, h)| b == base && l <= lo && hi <= h)
    }
    /// Records `[lo, hi)` off `base` as ready (forgetting the oldest range
    /// past [`MAX_AVAILABLE`]).
    pub(super) fn add(&mut self, base: LLVMValueRef, lo: i64, hi: i64) {
        if !self.covers(base, lo, hi) {
            if self.0.len() == MAX_AVAILABLE {
                self.0.remove(0);
            }
            self.0.push((base, lo, hi));
        }
    }
    /// The ranges ready on both paths (the merge of two predecessors).
    pub(super) fn meet(&self, other: &Ready) -> Ready {
        let mut r = Ready::default();
        for &(b, l, h) in &self.0 {
            if other.covers(b, l, h) {
                r.add(b, l, h);
            }
        }
        for &(b, l, h) in &other.0 {
            if self.covers(b, l, h) {
                r.add(b, l, h);
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_ranges_cover_contained_ranges_and_meet_by_intersection() {
        let (p, q) = (0x1000 as LLVMValueRef, 0x2000 as LLVMValueRef);
        let mut a = Ready::default();
        a.add(p, 0, 16);
        a.add(q, 8, 12);
        assert!(a.covers(p, 4, 8) && a.covers(p, 0, 16));
        assert!(!a.covers(p, 8, 24) && !a.covers(q, 0, 4));
        let mut b = Ready::default();
        b.add(p, 4, 8);
        b.add(q, 0, 32);
        let m = a.meet(&b);
        assert!(m.covers(p, 4, 8) && m.covers(q, 8, 12));
        assert!(!m.covers(p, 0, 16) && !m.covers(q, 0, 32));
    }
}
