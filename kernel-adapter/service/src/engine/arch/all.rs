//! Portable fallback engine: word-at-a-time volatile copies. Volatile keeps
//! LLVM's loop-idiom pass from turning the loops back into `memcpy` calls
//! (which would recurse under interposition). Slow but correct; used only on
//! architectures without a dedicated engine.

/// Forward copy (also correct for overlapping ranges with `dst < src`).
///
/// # Safety
/// Both ranges valid for `n` bytes; if they overlap, `dst <= src`.
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n, caller guarantees validity.
        unsafe {
            let v = core::ptr::read_volatile(src.add(i) as *const [u8; 8]);
            core::ptr::write_volatile(dst.add(i) as *mut [u8; 8], v);
        }
        i += 8;
    }
    while i < n {
        // SAFETY: i < n.
        unsafe { core::ptr::write_volatile(dst.add(i), core::ptr::read_volatile(src.add(i))) };
        i += 1;
    }
}

/// Overlap-safe move.
///
/// # Safety
/// Both ranges valid for `n` bytes.
pub unsafe fn move_overlapping(dst: *mut u8, src: *const u8, n: usize) {
    if (dst as usize) <= (src as usize) {
        // SAFETY: forward copy is correct when dst <= src.
        unsafe { copy(dst, src, n) };
    } else {
        let mut i = n;
        while i > 0 {
            i -= 1;
            // SAFETY: i < n.
            unsafe { core::ptr::write_volatile(dst.add(i), core::ptr::read_volatile(src.add(i))) };
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn portable_copy_and_move() {
        let src: Vec<u8> = (0..100u8).collect();
        let mut dst = vec![0u8; 100];
        // SAFETY: both buffers hold 100 bytes.
        unsafe { super::copy(dst.as_mut_ptr(), src.as_ptr(), 100) };
        assert_eq!(dst, src);
        let mut b: Vec<u8> = (0..100u8).collect();
        // SAFETY: inside b.
        unsafe { super::move_overlapping(b.as_mut_ptr().add(3), b.as_ptr(), 90) };
        let mut want: Vec<u8> = (0..100u8).collect();
        want.copy_within(0..90, 3);
        assert_eq!(b, want);
    }
}
