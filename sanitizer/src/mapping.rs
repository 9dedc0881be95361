//! The shadow mapping: where the shadow of an application byte lives.
//!
//! This module is the one place that defines the shadow scale and offset and
//! draws the memory layout (modelled on compiler-rt's `asan_mapping.h`). The
//! instrumentation pass (`passes/src/sanitizer/abi.rs`) repeats [`SHADOW_SCALE`]
//! and [`SHADOW_OFFSET`] as constants atop the pass; a test of the pass links
//! against this runtime, so a mismatch fails there.
//!
//! # Encoding: two bits per application byte, exact at every byte
//!
//! ```text
//! Shadow(addr) = (addr >> SHADOW_SCALE) + SHADOW_OFFSET      SHADOW_SCALE = 2
//!
//! one shadow byte = 4 application bytes a..a+3 (a % 4 == 0):
//!   bit:    7     6     5     4     3     2     1     0
//!         src3  dst3  src2  dst2  src1  dst1  src0  dst0
//!   dstK: byte a+K is a pending destination (no read, no write)
//!   srcK: byte a+K is a pending source      (no write, no free)
//! ```
//!
//! Every application byte has its own two bits, so the state of each byte is
//! exact: a copy, a csync or a partial csync may start and end at any byte
//! and the shadow never rounds a boundary (a granule encoding such as ASan's
//! "first k bytes addressable" cannot express a pending range that starts in
//! the middle of a granule, which copies and csyncs do all the time). The
//! inline fast path may load a wider shadow word than the access needs (it is
//! only a filter: zero means "nothing pending anywhere near"); the runtime's
//! slow path then checks exactly the bytes of the access, so a neighbour's
//! pending byte costs a call but never a report.
//!
//! Memory cost: the shadow is a quarter of the application memory that has
//! ever been part of a pending copy (pages of shadow are committed only when
//! written; reading untouched shadow maps the kernel's zero page). A csync
//! that clears whole shadow pages gives them back with `MADV_DONTNEED`.
//! ASan's 1/8 would need a side table for mixed granules; byte-granular 1:1
//! shadow cannot cover a 47-bit space with a linear map and doubles the
//! bytes written per copy.
//!
//! # Layout on x86-64 Linux (47-bit user space)
//!
//! ```text
//! || [0x2000_7fff_c000, 0x7fff_ffff_ffff] || HighMem    || application: PIE images, heap, mmap, stacks
//! || [0x0800_9fff_7000, 0x2000_7fff_bfff] || HighShadow || shadow of HighMem (+ slack)
//! || [0x0000_9fff_7000, 0x0800_9fff_6fff] || ShadowGap  || PROT_NONE (holds the shadow of the shadow)
//! || [0x0000_7fff_8000, 0x0000_9fff_6fff] || LowShadow  || shadow of LowMem (+1 page of slack)
//! || [0x0000_0000_0000, 0x0000_7fff_7fff] || LowMem     || application: non-PIE images and their brk heap
//! ```
//!
//! The offset is ASan's x86-64 offset (`0x7fff8000`), so the low 2 GiB stay
//! application memory for non-PIE executables. A page of slack after each
//! shadow region lets the fast path over-read a few shadow bytes past the
//! shadow of the last application byte. CopierSanitizer and AddressSanitizer
//! cannot share a process (both reserve the same low shadow).

/// log2 of the number of application bytes per shadow byte.
pub const SHADOW_SCALE: u32 = 2;
/// Added to `addr >> SHADOW_SCALE` to find the shadow byte of `addr`.
pub const SHADOW_OFFSET: usize = 0x7fff_8000;
/// Shadow bits of a pending destination, for all four bytes of a shadow byte.
pub const DST_BITS: u8 = 0x55;
/// Shadow bits of a pending source, for all four bytes of a shadow byte.
pub const SRC_BITS: u8 = 0xAA;
/// Page size the slack and the `MADV_DONTNEED` release use (bytes).
pub const PAGE: usize = 4096;

/// Shadow byte address of application address `addr`.
#[inline(always)]
pub const fn mem_to_shadow(addr: usize) -> usize {
    (addr >> SHADOW_SCALE) + SHADOW_OFFSET
}

/// First byte of the low application region.
pub const LOW_MEM_BEG: usize = 0;
/// Last byte of the low application region (inclusive).
pub const LOW_MEM_END: usize = SHADOW_OFFSET - 1;
/// First byte of the low shadow region.
pub const LOW_SHADOW_BEG: usize = mem_to_shadow(LOW_MEM_BEG);
/// Last byte of the low shadow region, slack page included (inclusive).
pub const LOW_SHADOW_END: usize = mem_to_shadow(LOW_MEM_END) + PAGE;
/// Last byte of user space on x86-64 with 4-level paging (inclusive).
pub const HIGH_MEM_END: usize = 0x7fff_ffff_ffff;
/// First byte of the high application region: the first 16 KiB boundary
/// after the shadow of the last application byte plus a page of slack (so
/// the shadow of `HIGH_MEM_BEG` is page-aligned).
pub const HIGH_MEM_BEG: usize = (mem_to_shadow(HIGH_MEM_END) + 1 + PAGE).next_multiple_of(PAGE << SHADOW_SCALE);
/// Last byte of the high shadow region, slack included (inclusive).
pub const HIGH_SHADOW_END: usize = HIGH_MEM_BEG - 1;
/// First byte of the high shadow region.
pub const HIGH_SHADOW_BEG: usize = mem_to_shadow(HIGH_MEM_BEG);
/// First byte of the protected gap between the two shadow regions.
pub const SHADOW_GAP_BEG: usize = LOW_SHADOW_END + 1;
/// Last byte of the protected gap (inclusive).
pub const SHADOW_GAP_END: usize = HIGH_SHADOW_BEG - 1;

/// True if `addr` is application memory (has a shadow byte).
#[inline(always)]
pub const fn is_app_mem(addr: usize) -> bool {
    addr <= LOW_MEM_END || (addr >= HIGH_MEM_BEG && addr <= HIGH_MEM_END)
}

/// True if the whole range `[addr, addr + len)` is application memory of one
/// region (`len > 0`).
#[inline(always)]
pub const fn is_app_range(addr: usize, len: usize) -> bool {
    let Some(last) = addr.checked_add(len - 1) else { return false };
    (last <= LOW_MEM_END) || (addr >= HIGH_MEM_BEG && last <= HIGH_MEM_END)
}

/// Reserve the shadow regions (read-write, `MAP_NORESERVE`, committed lazily
/// on first write) and protect the gap. Called once by [`crate::init`].
///
/// # Errors
/// The `mmap` that failed, with the range and errno: typically another
/// sanitizer (AddressSanitizer uses the same low shadow) or a mapping the
/// kernel already placed there.
pub(crate) fn reserve() -> Result<(), String> {
    map_fixed(LOW_SHADOW_BEG, LOW_SHADOW_END, libc::PROT_READ | libc::PROT_WRITE, "LowShadow")?;
    map_fixed(HIGH_SHADOW_BEG, HIGH_SHADOW_END, libc::PROT_READ | libc::PROT_WRITE, "HighShadow")?;
    map_fixed(SHADOW_GAP_BEG, SHADOW_GAP_END, libc::PROT_NONE, "ShadowGap")?;
    Ok(())
}

fn map_fixed(beg: usize, end: usize, prot: i32, name: &str) -> Result<(), String> {
    let len = end - beg + 1;
    // SAFETY: 1. MAP_FIXED_NOREPLACE never replaces an existing mapping, so no
    // memory in use is affected; 2. the range is page-aligned (checked by the
    // `layout_is_consistent` test) and inside user space.
    let p = unsafe {
        libc::mmap(
            beg as *mut libc::c_void,
            len,
            prot,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED || p as usize != beg {
        let err = std::io::Error::last_os_error();
        return Err(format!(
            "CopierSanitizer: cannot reserve {name} [{beg:#x}, {:#x}] ({len} bytes): {err}; \
             is the program also built with AddressSanitizer (not supported together)?",
            end
        ));
    }
    // SAFETY: the range was just mapped by us; the advice only changes core
    // dumps and huge-page use.
    unsafe {
        libc::madvise(p, len, libc::MADV_DONTDUMP);
        libc::madvise(p, len, libc::MADV_NOHUGEPAGE);
    }
    Ok(())
}

/// The layout as text, printed with `COPIER_OPTIONS=verbosity=1`.
pub fn describe() -> String {
    format!(
        "|| [{HIGH_MEM_BEG:#016x}, {HIGH_MEM_END:#016x}] || HighMem    ||\n\
         || [{HIGH_SHADOW_BEG:#016x}, {HIGH_SHADOW_END:#016x}] || HighShadow ||\n\
         || [{SHADOW_GAP_BEG:#016x}, {SHADOW_GAP_END:#016x}] || ShadowGap  ||\n\
         || [{LOW_SHADOW_BEG:#016x}, {LOW_SHADOW_END:#016x}] || LowShadow  ||\n\
         || [{LOW_MEM_BEG:#016x}, {LOW_MEM_END:#016x}] || LowMem     ||\n\
         SHADOW_SCALE={SHADOW_SCALE} SHADOW_OFFSET={SHADOW_OFFSET:#x}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_consistent() {
        // Regions are ordered and disjoint.
        assert!(LOW_MEM_END < LOW_SHADOW_BEG);
        assert!(LOW_SHADOW_END < SHADOW_GAP_BEG);
        assert!(SHADOW_GAP_END < HIGH_SHADOW_BEG);
        assert!(HIGH_SHADOW_END < HIGH_MEM_BEG);
        // Shadow and gap boundaries are page-aligned.
        for b in [LOW_SHADOW_BEG, SHADOW_GAP_BEG, HIGH_SHADOW_BEG, HIGH_MEM_BEG] {
            assert_eq!(b % PAGE, 0, "{b:#x}");
        }
        for e in [LOW_SHADOW_END, SHADOW_GAP_END, HIGH_SHADOW_END] {
            assert_eq!((e + 1) % PAGE, 0, "{e:#x}");
        }
        // Every application byte's shadow is in a shadow region, with the
        // fast path's over-read (8 bytes) still inside.
        for a in [LOW_MEM_BEG, LOW_MEM_END, HIGH_MEM_BEG, HIGH_MEM_END] {
            let s = mem_to_shadow(a);
            let in_low = (LOW_SHADOW_BEG..=LOW_SHADOW_END).contains(&s)
                && s + 8 <= LOW_SHADOW_END + 1;
            let in_high = (HIGH_SHADOW_BEG..=HIGH_SHADOW_END).contains(&s)
                && s + 8 <= HIGH_SHADOW_END + 1;
            assert!(in_low || in_high, "{a:#x} -> {s:#x}");
        }
        // The shadow of the shadow is never application memory (it lies in
        // the gap, or in the low slack page), so instrumented code that
        // follows a wild pointer into the shadow faults or reads shadow,
        // never corrupts application bytes.
        for s in [LOW_SHADOW_BEG, LOW_SHADOW_END, HIGH_SHADOW_BEG, HIGH_SHADOW_END] {
            let ss = mem_to_shadow(s);
            assert!(!is_app_mem(ss), "{s:#x} -> {ss:#x}");
            assert!(ss >= mem_to_shadow(LOW_MEM_END) && ss <= SHADOW_GAP_END, "{s:#x} -> {ss:#x}");
        }
        // The drawing in the module docs matches the constants.
        assert_eq!(HIGH_MEM_BEG, 0x2000_7fff_c000);
        assert_eq!(HIGH_SHADOW_BEG, 0x0800_9fff_7000);
        assert_eq!(HIGH_SHADOW_END, 0x2000_7fff_bfff);
        assert_eq!(SHADOW_GAP_BEG, 0x9fff_7000);
        assert_eq!(LOW_SHADOW_END, 0x9fff_6fff);
    }

    #[test]
    fn app_ranges() {
        assert!(is_app_mem(0x40_0000));
        assert!(is_app_mem(0x5555_5555_4000));
        assert!(is_app_mem(0x7ffc_0000_0000));
        assert!(!is_app_mem(LOW_SHADOW_BEG));
        assert!(!is_app_mem(SHADOW_GAP_BEG + 5));
        assert!(!is_app_mem(HIGH_SHADOW_END));
        assert!(!is_app_mem(0xffff_ffff_ff60_0000));
        assert!(is_app_range(0x5555_0000_0000, 4096));
        assert!(!is_app_range(LOW_MEM_END, 2));
        assert!(!is_app_range(usize::MAX, 2));
    }
}
