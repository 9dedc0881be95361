//! Fault-recoverable copy routines for the executors (exception-table
//! scheme of the Linux kernel's `copy_user`, see `engine::copy_recoverable`).
//!
//! Both routines are leaf functions that do not touch the stack, placed
//! between `__copier_rc_begin` and `__copier_rc_end`. When a SIGSEGV/SIGBUS
//! hits an instruction in that range, `crate::fault`'s handler sets the saved
//! RIP to `__copier_rc_fixup`, which clears DF, fences, and returns 1.

use crate::engine::Fault;

core::arch::global_asm!(
    ".pushsection .text.copier_rc,\"ax\",@progbits",
    ".p2align 4",
    ".globl __copier_rc_begin",
    ".hidden __copier_rc_begin",
    "__copier_rc_begin:",
    // rdi = dst, rsi = src, rdx = n  ->  eax = 0
    ".globl __copier_rc_movsb",
    ".hidden __copier_rc_movsb",
    "__copier_rc_movsb:",
    "mov rcx, rdx",
    "rep movsb",
    "xor eax, eax",
    "ret",
    // AVX2 non-temporal copy, n >= 128: aligned 32-byte streaming stores.
    ".p2align 4",
    ".globl __copier_rc_nt",
    ".hidden __copier_rc_nt",
    "__copier_rc_nt:",
    "mov rcx, rdi",
    "neg rcx",
    "and rcx, 31",           // head bytes to align dst
    "sub rdx, rcx",
    "rep movsb",             // head
    "2:",
    "cmp rdx, 128",
    "jb 3f",
    "vmovdqu ymm0, [rsi]",
    "vmovdqu ymm1, [rsi + 32]",
    "vmovdqu ymm2, [rsi + 64]",
    "vmovdqu ymm3, [rsi + 96]",
    "vmovntdq [rdi], ymm0",
    "vmovntdq [rdi + 32], ymm1",
    "vmovntdq [rdi + 64], ymm2",
    "vmovntdq [rdi + 96], ymm3",
    "add rsi, 128",
    "add rdi, 128",
    "sub rdx, 128",
    "jmp 2b",
    "3:",
    "sfence",
    "vzeroupper",
    "mov rcx, rdx",
    "rep movsb",             // tail
    "xor eax, eax",
    "ret",
    ".globl __copier_rc_fixup",
    ".hidden __copier_rc_fixup",
    "__copier_rc_fixup:",
    "cld",
    "sfence",
    "mov eax, 1",
    "ret",
    ".globl __copier_rc_end",
    ".hidden __copier_rc_end",
    "__copier_rc_end:",
    ".popsection",
);

extern "C" {
    fn __copier_rc_begin();
    fn __copier_rc_end();
    fn __copier_rc_fixup();
    fn __copier_rc_movsb(dst: *mut u8, src: *const u8, n: usize) -> u32;
    fn __copier_rc_nt(dst: *mut u8, src: *const u8, n: usize) -> u32;
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

/// Recoverable non-overlapping copy (see module docs).
///
/// # Safety
/// Ranges must not overlap.
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) -> Result<(), Fault> {
    let nt = n >= crate::engine::nt_threshold() && n >= 256 && super::avx2::is_available();
    // SAFETY: the routines follow the SysV ABI (rdi, rsi, rdx; eax result),
    // clobber only caller-saved registers, and copy exactly n bytes or stop
    // on a fault; caller guarantees the ranges do not overlap.
    let r = unsafe {
        if nt {
            __copier_rc_nt(dst, src, n)
        } else {
            __copier_rc_movsb(dst, src, n)
        }
    };
    if r == 0 {
        Ok(())
    } else {
        Err(Fault)
    }
}
