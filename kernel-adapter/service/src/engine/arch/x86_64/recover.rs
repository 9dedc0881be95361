//! Fault-recoverable copy routines for the executors (exception-table
//! scheme of the Linux kernel's `copy_user`, see `engine::copy_recoverable`).
//!
//! The routines are leaf functions that do not touch the stack, placed
//! between `__copier_rc_begin` and `__copier_rc_end`. When a SIGSEGV/SIGBUS
//! hits an instruction in that range, `crate::fault`'s handler sets the saved
//! RIP to `__copier_rc_fixup`, which clears DF, ends the vector state
//! (`vzeroupper`, when the CPU has AVX), fences the non-temporal stores and
//! returns a fault with the completed prefix.
//!
//! Register protocol of every routine: `rdi` = dst, `rsi` = src, `rdx` = n
//! (SysV); `r8` holds dst for the whole routine, and every byte of dst below
//! `rdi` is stored whenever an instruction may fault. The fixup therefore
//! returns `rdi - r8` as the completed prefix: the fault lies at or after
//! it (within two loop blocks of the vector routines, [`RcResult`]).
//!
//! The vector routines (`avx2`, `avx512`, each temporal and non-temporal)
//! are one loop text ([`rc_vector_loop!`]) instantiated per vector width:
//! one unaligned head vector, a loop of four vectors with the destination
//! aligned to the vector width (loading a block ahead of its stores), and the last four vectors taken from the end
//! (which may overlap bytes the loop wrote). They need `n >= 4 * width`
//! ([`MIN_VECTOR_LEN`] covers both widths); shorter copies take `rep movsb`.
//! The same loops, outside the recoverable range, are the synchronous
//! AVX-512 engine's (`super::avx512`).

use core::sync::atomic::AtomicBool;

/// Shortest copy the vector routines accept (bytes): four 64-byte vectors.
pub const MIN_VECTOR_LEN: usize = 256;

/// True when the fixup must run `vzeroupper` (set before any vector
/// routine can run: the CPU has AVX).
pub(crate) static FIXUP_VZEROUPPER: AtomicBool = AtomicBool::new(false);

/// Text of one vector copy routine named `$name`: `$w` is the vector width
/// in bytes and `$w2`..`$w7` its multiples, `$v0`..`$v7` the registers,
/// `$movu` the unaligned move (head, tail), `$movr` a register move, `$st`
/// the loop's (aligned) store, `$fence` what ends the loop (`sfence` after
/// non-temporal stores). The loop loads each block of four vectors before
/// it stores the previous one: a destination a few bytes above its source
/// in page offset (4 KiB aliasing) would otherwise make every block's loads
/// wait for the stores just issued (64 KiB at a distance of 8 bytes: 2.3
/// us against 1.2 us, `copier-bench engines --regime aliased`). See the
/// module docs for the register protocol.
macro_rules! rc_vector_loop {
    ($name:literal, $w:literal, $w2:literal, $w3:literal, $w4:literal, $w5:literal, $w6:literal, $w7:literal,
     $v0:literal, $v1:literal, $v2:literal, $v3:literal, $v4:literal, $v5:literal, $v6:literal, $v7:literal,
     $movu:literal, $movr:literal, $st:literal, $fence:literal) => {
        concat!(
            ".p2align 5\n",
            ".globl ", $name, "\n",
            ".hidden ", $name, "\n",
            $name, ":\n",
            "mov r8, rdi\n",
            "lea r9, [rdi + rdx]\n",             // dst end
            "lea r10, [rsi + rdx]\n",            // src end
            $movu, " ", $v0, ", [rsi]\n",          // head vector
            $movu, " [rdi], ", $v0, "\n",
            "mov rcx, rdi\n",                    // rdi = next aligned dst
            "add rdi, ", $w, "\n",
            "and rdi, -", $w, "\n",
            "sub rcx, rdi\n",
            "sub rsi, rcx\n",                    // rsi follows rdi
            "lea rcx, [r9 - ", $w4, "]\n",       // last start of a full block
            "cmp rdi, rcx\n",
            "ja 3f\n",
            $movu, " ", $v0, ", [rsi]\n",          // the first block
            $movu, " ", $v1, ", [rsi + ", $w, "]\n",
            $movu, " ", $v2, ", [rsi + ", $w2, "]\n",
            $movu, " ", $v3, ", [rsi + ", $w3, "]\n",
            "jmp 4f\n",
            ".p2align 4\n",
            "2:\n",
            $movu, " ", $v4, ", [rsi + ", $w4, "]\n", // the next block, then this one's stores
            $movu, " ", $v5, ", [rsi + ", $w5, "]\n",
            $movu, " ", $v6, ", [rsi + ", $w6, "]\n",
            $movu, " ", $v7, ", [rsi + ", $w7, "]\n",
            $st, " [rdi], ", $v0, "\n",
            $st, " [rdi + ", $w, "], ", $v1, "\n",
            $st, " [rdi + ", $w2, "], ", $v2, "\n",
            $st, " [rdi + ", $w3, "], ", $v3, "\n",
            "add rsi, ", $w4, "\n",
            "add rdi, ", $w4, "\n",
            $movr, " ", $v0, ", ", $v4, "\n",
            $movr, " ", $v1, ", ", $v5, "\n",
            $movr, " ", $v2, ", ", $v6, "\n",
            $movr, " ", $v3, ", ", $v7, "\n",
            "4:\n",
            "lea rax, [rdi + ", $w4, "]\n",      // is there a next full block?
            "cmp rax, rcx\n",
            "jbe 2b\n",
            $st, " [rdi], ", $v0, "\n",            // the last full block
            $st, " [rdi + ", $w, "], ", $v1, "\n",
            $st, " [rdi + ", $w2, "], ", $v2, "\n",
            $st, " [rdi + ", $w3, "], ", $v3, "\n",
            "add rdi, ", $w4, "\n",
            "3:\n",
            $fence, "\n",
            $movu, " ", $v0, ", [r10 - ", $w4, "]\n", // last four vectors
            $movu, " ", $v1, ", [r10 - ", $w3, "]\n",
            $movu, " ", $v2, ", [r10 - ", $w2, "]\n",
            $movu, " ", $v3, ", [r10 - ", $w, "]\n",
            $movu, " [r9 - ", $w4, "], ", $v0, "\n",
            $movu, " [r9 - ", $w3, "], ", $v1, "\n",
            $movu, " [r9 - ", $w2, "], ", $v2, "\n",
            $movu, " [r9 - ", $w, "], ", $v3, "\n",
            "vzeroupper\n",
            "xor eax, eax\n",
            "ret\n",
        )
    };
}

/// The four vector routines named `$prefix` + `avx2`, `avx2_nt`, `avx512`,
/// `avx512_nt` (one `concat!` string).
macro_rules! rc_vector_routines {
    ($avx2:literal, $avx2_nt:literal, $avx512:literal, $avx512_nt:literal) => {
        concat!(
            rc_vector_loop!($avx2, "32", "64", "96", "128", "160", "192", "224",
                "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "vmovdqu", "vmovdqa", "vmovdqa", ""),
            rc_vector_loop!($avx2_nt, "32", "64", "96", "128", "160", "192", "224",
                "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "vmovdqu", "vmovdqa", "vmovntdq", "sfence"),
            rc_vector_loop!($avx512, "64", "128", "192", "256", "320", "384", "448",
                "zmm16", "zmm17", "zmm18", "zmm19", "zmm20", "zmm21", "zmm22", "zmm23", "vmovdqu64", "vmovdqa64", "vmovdqa64", ""),
            rc_vector_loop!($avx512_nt, "64", "128", "192", "256", "320", "384", "448",
                "zmm16", "zmm17", "zmm18", "zmm19", "zmm20", "zmm21", "zmm22", "zmm23", "vmovdqu64", "vmovdqa64", "vmovntdq", "sfence"),
        )
    };
}
pub(crate) use {rc_vector_loop, rc_vector_routines};

// The AVX-512 loops use zmm16-19: registers without a legacy-SSE alias, so
// they leave no dirty upper state of their own (glibc's `evex` variants do
// the same); the routines still end with `vzeroupper` for the ymm ones.
core::arch::global_asm!(
    ".pushsection .text.copier_rc,\"ax\",@progbits",
    ".p2align 5",
    ".globl __copier_rc_begin",
    ".hidden __copier_rc_begin",
    "__copier_rc_begin:",
    ".globl __copier_rc_movsb",
    ".hidden __copier_rc_movsb",
    "__copier_rc_movsb:",
    "mov r8, rdi",
    "mov rcx, rdx",
    "rep movsb",
    "xor eax, eax",
    "ret",
    rc_vector_routines!("__copier_rc_avx2", "__copier_rc_avx2_nt", "__copier_rc_avx512", "__copier_rc_avx512_nt"),
    ".p2align 4",
    ".globl __copier_rc_fixup",
    ".hidden __copier_rc_fixup",
    "__copier_rc_fixup:",
    "cld",
    "cmp byte ptr [rip + {vzu}], 0",
    "je 2f",
    "vzeroupper",
    "2:",
    "sfence",
    "mov rdx, rdi",
    "sub rdx, r8",
    "mov eax, 1",
    "ret",
    ".globl __copier_rc_end",
    ".hidden __copier_rc_end",
    "__copier_rc_end:",
    ".popsection",
    vzu = sym FIXUP_VZEROUPPER,
);

/// What a routine returns (`rax`, `rdx` in the SysV ABI): `fault` 0 when
/// all `n` bytes were copied; 1 after a fault, with `done` bytes of dst
/// already holding src's (the faulting access lies in `[done, n)`, at most
/// two loop blocks, eight vectors, past `done`: the loop loads a block
/// ahead).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RcResult {
    /// 0: copied; 1: faulted.
    pub fault: usize,
    /// Completed prefix in bytes (meaningful when `fault` is 1).
    pub done: usize,
}

/// A routine of this file: `(dst, src, n)`.
pub type RcFn = unsafe extern "C" fn(*mut u8, *const u8, usize) -> RcResult;

extern "C" {
    fn __copier_rc_begin();
    fn __copier_rc_end();
    fn __copier_rc_fixup();
    fn __copier_rc_movsb(dst: *mut u8, src: *const u8, n: usize) -> RcResult;
    fn __copier_rc_avx2(dst: *mut u8, src: *const u8, n: usize) -> RcResult;
    fn __copier_rc_avx2_nt(dst: *mut u8, src: *const u8, n: usize) -> RcResult;
    fn __copier_rc_avx512(dst: *mut u8, src: *const u8, n: usize) -> RcResult;
    fn __copier_rc_avx512_nt(dst: *mut u8, src: *const u8, n: usize) -> RcResult;
}

/// `[begin, end)` code range of the recoverable routines and the fixup
/// address (for the fault handler).
pub(crate) fn ranges() -> (usize, usize, usize) {
    (
        __copier_rc_begin as *const () as usize,
        __copier_rc_end as *const () as usize,
        __copier_rc_fixup as *const () as usize,
    )
}

/// A recoverable routine: which loop, and whether its stores are
/// non-temporal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Routine {
    /// `rep movsb` (any length; ERMS/FSRM make it fast).
    Movsb,
    /// AVX2 loop, 32-byte temporal stores.
    Avx2,
    /// AVX2 loop, 32-byte non-temporal stores.
    Avx2Nt,
    /// AVX-512 loop, 64-byte temporal stores.
    Avx512,
    /// AVX-512 loop, 64-byte non-temporal stores.
    Avx512Nt,
}

impl Routine {
    /// Every routine, for tests and benchmarks.
    pub const ALL: [Routine; 5] = [Routine::Movsb, Routine::Avx2, Routine::Avx2Nt, Routine::Avx512, Routine::Avx512Nt];

    /// Short name (`movsb`, `avx2`, `avx2-nt`, `avx512`, `avx512-nt`).
    pub fn name(self) -> &'static str {
        match self {
            Routine::Movsb => "movsb",
            Routine::Avx2 => "avx2",
            Routine::Avx2Nt => "avx2-nt",
            Routine::Avx512 => "avx512",
            Routine::Avx512Nt => "avx512-nt",
        }
    }

    /// True when this CPU and OS run it (`super::avx2` / `super::avx512`
    /// availability; `rep movsb` is baseline x86-64).
    pub fn is_available(self) -> bool {
        match self {
            Routine::Movsb => true,
            Routine::Avx2 | Routine::Avx2Nt => super::avx2::is_available(),
            Routine::Avx512 | Routine::Avx512Nt => super::avx512::is_available(),
        }
    }

    fn entry(self) -> RcFn {
        match self {
            Routine::Movsb => __copier_rc_movsb,
            Routine::Avx2 => __copier_rc_avx2,
            Routine::Avx2Nt => __copier_rc_avx2_nt,
            Routine::Avx512 => __copier_rc_avx512,
            Routine::Avx512Nt => __copier_rc_avx512_nt,
        }
    }
}

/// Run routine `r` on `n` bytes (below [`MIN_VECTOR_LEN`] a vector routine
/// hands the copy to `rep movsb`). `Err(done)`: a fault stopped it with the
/// first `done` bytes copied (see [`RcResult`]).
///
/// # Safety
/// Ranges must not overlap; `r.is_available()`. Without the fault handler
/// installed (`crate::fault`) a bad address kills the process.
#[inline]
pub unsafe fn run(r: Routine, dst: *mut u8, src: *const u8, n: usize) -> Result<(), usize> {
    let r = if n < MIN_VECTOR_LEN { Routine::Movsb } else { r };
    if r != Routine::Movsb && !FIXUP_VZEROUPPER.load(core::sync::atomic::Ordering::Relaxed) {
        FIXUP_VZEROUPPER.store(true, core::sync::atomic::Ordering::Relaxed);
    }
    // SAFETY: the routines follow the SysV ABI (rdi, rsi, rdx; rax:rdx
    // result), clobber only caller-saved registers (rcx, r8-r10, the vector
    // registers; vzeroupper on exit), touch no stack, and copy exactly n
    // bytes or stop on a fault; the vector ones get n >= MIN_VECTOR_LEN and
    // run only where available (caller contract); ranges do not overlap.
    let res = unsafe { (r.entry())(dst, src, n) };
    if res.fault == 0 {
        Ok(())
    } else {
        Err(res.done.min(n))
    }
}

#[cfg(test)]
mod tests {
    use super::{run, Routine};

    /// `pages` anonymous pages with page `bad` made PROT_NONE; unmapped on drop.
    struct Guarded {
        base: *mut u8,
        len: usize,
    }

    impl Guarded {
        fn new(pages: usize, bad: usize) -> Guarded {
            let len = pages * 4096;
            // SAFETY: anonymous private mapping; mprotect of a page inside it.
            unsafe {
                let p = libc::mmap(core::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
                assert_ne!(p, libc::MAP_FAILED);
                let p = p as *mut u8;
                for i in 0..len {
                    *p.add(i) = (i * 7 + 1) as u8;
                }
                assert_eq!(libc::mprotect(p.add(bad * 4096).cast(), 4096, libc::PROT_NONE), 0);
                Guarded { base: p, len }
            }
        }
    }

    impl Drop for Guarded {
        fn drop(&mut self) {
            // SAFETY: our own mapping.
            unsafe { libc::munmap(self.base.cast(), self.len) };
        }
    }

    /// Every routine, with a PROT_NONE page in the destination or in the
    /// source at several distances from the start: the copy returns the
    /// fault (the process survives), the reported prefix is copied, and the
    /// fault lies within two loop blocks (eight vectors) after it.
    #[test]
    fn fault_reports_completed_prefix() {
        crate::fault::install();
        assert!(crate::fault::installed());
        for r in Routine::ALL.into_iter().filter(|r| r.is_available()) {
            for start in [0usize, 1, 33, 100, 4095 - 300, 4096 - 64, 4096 - 1] {
                for n in [300usize, 5000, 3 * 4096] {
                    for bad_dst in [true, false] {
                        // page 1 is bad; the copy starts `start` bytes into page 0
                        let g = Guarded::new(4, 1);
                        let other = vec![0x5Au8; n + 4096];
                        let fault_off = 4096 - start;
                        if fault_off >= n {
                            continue;
                        }
                        // SAFETY: page 0 and `other` are valid; the copy runs into
                        // the PROT_NONE page 1 and is recovered.
                        let (res, copied) = unsafe {
                            if bad_dst {
                                let d = g.base.add(start);
                                let res = run(r, d, other.as_ptr(), n);
                                (res, core::slice::from_raw_parts(d, fault_off).to_vec())
                            } else {
                                let mut dst = vec![0u8; n];
                                let res = run(r, dst.as_mut_ptr(), g.base.add(start), n);
                                dst.truncate(fault_off);
                                (res, dst)
                            }
                        };
                        let what = format!("{} start={start} n={n} bad_dst={bad_dst}", r.name());
                        let done = res.expect_err(&what);
                        assert!(done <= fault_off, "{what}: done {done} past the fault at {fault_off}");
                        let bound = match r {
                            Routine::Movsb => 256,
                            Routine::Avx2 | Routine::Avx2Nt => 8 * 32,
                            Routine::Avx512 | Routine::Avx512Nt => 8 * 64,
                        };
                        assert!(fault_off - done <= bound, "{what}: done {done}, fault at {fault_off}");
                        let want: Vec<u8> = if bad_dst {
                            other[..done].to_vec()
                        } else {
                            (0..done).map(|i| ((start + i) * 7 + 1) as u8).collect()
                        };
                        assert_eq!(&copied[..done], &want[..], "{what}: prefix");
                    }
                }
            }
        }
    }

    /// Every routine copies every length 0..=600 and a few long ones at
    /// several misalignments, padded both ends so overruns are caught.
    #[test]
    fn routines_copy_exactly() {
        let lens: Vec<usize> = (0..=600).chain([4095, 4096, 65537, 1 << 20]).collect();
        for r in Routine::ALL.into_iter().filter(|r| r.is_available()) {
            for &n in &lens {
                for (da, sa) in [(0, 0), (1, 3), (7, 63), (64, 5), (33, 0)] {
                    let src: Vec<u8> = (0..n + 128).map(|i| (i * 13 + 5) as u8).collect();
                    let mut dst = vec![0xEEu8; n + 128];
                    // SAFETY: in bounds (n + 128 bytes, offsets < 65), disjoint.
                    let res = unsafe { run(r, dst.as_mut_ptr().add(da), src.as_ptr().add(sa), n) };
                    assert_eq!(res, Ok(()), "{} n={n}", r.name());
                    assert!(dst[..da].iter().all(|&b| b == 0xEE), "{} n={n} underrun", r.name());
                    assert_eq!(&dst[da..da + n], &src[sa..sa + n], "{} n={n} da={da} sa={sa}", r.name());
                    assert!(dst[da + n..].iter().all(|&b| b == 0xEE), "{} n={n} overrun", r.name());
                }
            }
        }
    }
}
