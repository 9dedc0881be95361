//! The requested-size footer of a heap block (see
//! `interception::malloc`): the last 8 usable bytes of a block allocated
//! `n + FOOTER` bytes hold `n` in the low [`SIZE_BITS`] bits and a 16-bit
//! tag hashed from the block's address and `n` in the high bits, so a word
//! that is not such a footer (a block allocated elsewhere, or overwritten)
//! is told apart, but for a 1 in 65536 chance.

/// Bytes added to every request for the footer.
pub const FOOTER: usize = 8;
/// Bits of the footer holding the requested size.
pub const SIZE_BITS: u32 = 48;
/// Largest request that gets a footer (larger ones fail with `ENOMEM`:
/// x86-64 user space is 47 bits).
pub const MAX_REQUEST: usize = (1 << SIZE_BITS) - 1 - FOOTER;

/// The 16-bit check tag of block `p` with requested size `n`.
#[inline(always)]
fn tag(p: usize, n: usize) -> u64 {
    ((p as u64 ^ (n as u64).rotate_left(29) ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0xff51_afd7_ed55_8ccd)) >> SIZE_BITS
}

/// The footer word of block `p` with requested size `n`.
#[inline(always)]
pub fn footer_word(p: usize, n: usize) -> u64 {
    (tag(p, n) << SIZE_BITS) | n as u64
}

/// The requested size a footer word encodes for block `p` with `usable`
/// usable bytes, if the word is a footer of that block.
#[inline(always)]
pub fn decode(p: usize, usable: usize, w: u64) -> Option<usize> {
    let n = (w & ((1 << SIZE_BITS) - 1)) as usize;
    (usable >= FOOTER && n <= usable - FOOTER && w >> SIZE_BITS == tag(p, n)).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A footer decodes to the size it was written with, for its block.
        #[test]
        fn footer_round_trips(p in 0usize..(1 << 47), n in 0usize..=MAX_REQUEST, slack in 0usize..4096) {
            let usable = n + FOOTER + slack;
            prop_assert_eq!(decode(p, usable, footer_word(p, n)), Some(n));
        }

        /// A footer whose size exceeds the block's usable bytes is rejected.
        #[test]
        fn footer_too_large_rejected(p in 0usize..(1 << 47), n in FOOTER..=MAX_REQUEST) {
            prop_assert_eq!(decode(p, n, footer_word(p, n)), None);
        }
    }

    /// Footers of other blocks and other sizes rarely check out: over 2^16
    /// neighbouring 16-byte-aligned blocks (glibc's chunk alignment) and
    /// over 2^16 sizes, the 16-bit tag collides about once each (asserted:
    /// at most 8, i.e. the tag depends on both the address and the size).
    #[test]
    fn footer_of_other_block_or_size_rejected() {
        for &(p, n) in &[(0x5555_5555_a000usize, 100usize), (0x7f12_3400_0010, 1 << 20), (0x10_0000, 0)] {
            let w = footer_word(p, n);
            let other_blocks = (1..=1usize << 16).filter(|d| decode(p + 16 * d, n + FOOTER, w).is_some()).count();
            let other_sizes = (1..=1u64 << 16).filter(|k| decode(p, n + (1 << 17) + FOOTER, w + k).is_some()).count();
            assert!(other_blocks <= 8, "{other_blocks} of 65536 other blocks accept the footer of {p:#x}");
            assert!(other_sizes <= 8, "{other_sizes} of 65536 other sizes check out at {p:#x}");
        }
    }
}
