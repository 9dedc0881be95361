//! Non-local jumps (`longjmp`, `_longjmp`, `siglongjmp`, `__longjmp_chk`):
//! the frames the jump leaves die without returning, so the
//! instrumentation's return checks never run for them. As ASan's
//! `__asan_handle_no_return` (compiler-rt `asan_rtl.cpp`), the interceptor
//! acts on the stack the jump abandons before it jumps; where ASan
//! unpoisons the whole stack below the current frame (only missed reports
//! can follow from that), a check must not meet live frames, so it needs
//! the exact target: the stack pointer the jump restores, saved by
//! `setjmp` in the `jmp_buf`. Everything in `[current sp, target sp)` dies
//! with the jump: a pending copy into or from those bytes is reported as
//! `return-before-csync` (the access line names the jump function), and
//! with `halt_on_error=0` waited for, so it does not land in (read) the
//! stack the program reuses.
//!
//! glibc x86-64 stores `rsp` at `__jmpbuf[6]` mangled by `PTR_MANGLE`
//! (`sysdeps/unix/sysv/linux/x86_64/sysdep.h`: `xor %fs:POINTER_GUARD`,
//! then `rol $17`; `POINTER_GUARD` is `tcbhead_t.pointer_guard`, offset
//! 0x30). The demangled value is used only if it lies above the current
//! stack pointer within the current thread's stack; otherwise (a jump
//! from a signal handler running on `sigaltstack`, a `jmp_buf` of another
//! thread, another libc) nothing is checked.
//!
//! C++ exceptions: the frames a thrown exception unwinds die too, and only
//! those with a cleanup (a landing pad that ends in `resume`) run the
//! pass's return checks. The pass calls [`__copier_san_cxx_throw`] before
//! each `__cxa_throw`/`__cxa_rethrow` of instrumented code, with the
//! thrower's stack pointer, and [`__copier_san_cxx_catch`] before each
//! `__cxa_begin_catch`, with the handler frame's: the catch checks
//! `[throw sp, catch sp)`, the frames the exception unwound, and reports
//! `return-before-csync` there. The handler is not known at the throw,
//! and by the catch the unwinder and the handler already run on the dead
//! frames: so the throw (when copies are pending) waits for the copies
//! that touch the stack above it to finish without syncing them
//! ([`crate::hooks::wait_unsynced`]): they stay pending for the checks,
//! but cannot overwrite the frames the catch then reuses. A throw made in
//! uninstrumented code (libstdc++'s own, `std::rethrow_exception`, a
//! foreign exception) records nothing and is not checked; a throw caught
//! inside a destructor that runs during the unwinding of another one
//! replaces the outer throw's record, so the outer catch checks nothing
//! (missed, never false, reports). No C++ runtime function is interposed
//! (`-static-libstdc++` links as without the sanitizer).
//!
//! Not intercepted: `setcontext`/`swapcontext`, `pthread_exit`.

use core::cell::Cell;
use core::ffi::{c_int, c_void};

use crate::errors::Access;
use crate::real;

/// Index of the saved `rsp` in glibc's x86-64 `__jmpbuf`
/// (`sysdeps/x86_64/jmpbuf-offsets.h`: `JB_RSP`).
const JB_RSP: usize = 6;
/// `PTR_MANGLE`'s rotation on x86-64 (`2 * LP_SIZE + 1`).
const MANGLE_ROTATION: u32 = 17;

thread_local! {
    /// `[lo, hi)` of the calling thread's stack, once known.
    static STACK: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// The calling thread's stack pointer.
#[inline(always)]
fn current_sp() -> usize {
    let sp: usize;
    // SAFETY: reads a register.
    unsafe { core::arch::asm!("mov {}, rsp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
    sp
}

/// glibc's pointer guard of the calling thread (`%fs:0x30`).
#[inline(always)]
fn pointer_guard() -> usize {
    let g: usize;
    // SAFETY: on x86-64 Linux %fs points at the thread's tcbhead_t, whose
    // pointer_guard field is at 0x30 (glibc sysdeps/x86_64/nptl/tls.h).
    unsafe { core::arch::asm!("mov {}, qword ptr fs:[0x30]", out(reg) g, options(nostack, readonly, preserves_flags)) };
    g
}

/// The stack pointer a jump to `env` restores.
///
/// # Safety
/// `env` is a `jmp_buf` (or `sigjmp_buf`) filled by setjmp.
unsafe fn target_sp(env: *const c_void) -> usize {
    // SAFETY: a jmp_buf begins with __jmpbuf, 8 machine words.
    let mangled = unsafe { env.cast::<usize>().add(JB_RSP).read() };
    mangled.rotate_right(MANGLE_ROTATION) ^ pointer_guard()
}

/// `[lo, hi)` of the calling thread's stack (`pthread_getattr_np`, once
/// per thread); `(0, 0)` if unknown.
fn stack_bounds() -> (usize, usize) {
    let known = STACK.try_with(Cell::get).unwrap_or((0, 0));
    if known.1 != 0 {
        return known;
    }
    let _g = crate::thread::RuntimeGuard::enter();
    // SAFETY: attr is initialized by pthread_getattr_np before it is read
    // and destroyed once; the out-pointers are valid locals.
    let b = unsafe {
        let mut attr: libc::pthread_attr_t = core::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return (0, 0);
        }
        let mut addr: *mut c_void = core::ptr::null_mut();
        let mut size = 0usize;
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        if !ok {
            return (0, 0);
        }
        (addr as usize, addr as usize + size)
    };
    let _ = STACK.try_with(|s| s.set(b));
    b
}

/// Check the stack a jump to `env` by `via` abandons.
///
/// # Safety
/// `env` is a `jmp_buf` filled by setjmp.
#[inline(always)]
unsafe fn leaving(via: &'static str, env: *const c_void) {
    if crate::LIVE.load(core::sync::atomic::Ordering::Relaxed) == 0 || crate::thread::in_runtime() || env.is_null() {
        return;
    }
    let sp = current_sp();
    // SAFETY: forwarded contract.
    let target = unsafe { target_sp(env) };
    let (lo, hi) = stack_bounds();
    if lo <= sp && sp < target && target <= hi {
        crate::interface::frame_end(sp, target - sp, Access::Return, Some(via), false);
    }
}

macro_rules! jump {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        /// # Safety
        /// As the libc function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(env: *mut c_void, val: c_int) -> ! {
            // SAFETY: forwarded contract.
            unsafe {
                leaving(stringify!($name), env);
                real!($name: fn(*mut c_void, c_int) -> !)(env, val)
            }
        }
    };
}

jump!(/// Interceptor of `longjmp`.
    longjmp);
jump!(/// Interceptor of `_longjmp`.
    _longjmp);
jump!(/// Interceptor of `siglongjmp`.
    siglongjmp);
jump!(/// Interceptor of `__longjmp_chk` (`_FORTIFY_SOURCE`).
    __longjmp_chk);

thread_local! {
    /// Stack pointer of the last C++ throw not yet caught (0: none).
    static THROW_SP: Cell<usize> = const { Cell::new(0) };
}

/// A C++ throw starts (called by instrumented code before `__cxa_throw`/
/// `__cxa_rethrow`, `sp` the thrower's stack pointer): record it, and if
/// a pending copy touches the stack above it, wait for that copy to
/// finish (unsynced).
#[no_mangle]
pub extern "C" fn __copier_san_cxx_throw(sp: usize) {
    let _ = THROW_SP.try_with(|t| t.set(sp));
    if crate::LIVE.load(core::sync::atomic::Ordering::Relaxed) == 0 || crate::thread::in_runtime() {
        return;
    }
    let (lo, hi) = stack_bounds();
    if lo <= sp && sp < hi && crate::report::would_report(sp, hi - sp, Access::Return) {
        crate::hooks::wait_unsynced(sp, hi - sp);
    }
}

/// A catch handler starts (called by instrumented code before
/// `__cxa_begin_catch`, `sp` the handler frame's stack pointer): the
/// frames between the recorded throw and `sp` are dead.
#[no_mangle]
pub extern "C" fn __copier_san_cxx_catch(sp: usize) {
    let thrown = THROW_SP.try_with(|t| t.replace(0)).unwrap_or(0);
    if thrown == 0 || crate::LIVE.load(core::sync::atomic::Ordering::Relaxed) == 0 || crate::thread::in_runtime() {
        return;
    }
    let (lo, hi) = stack_bounds();
    if lo <= thrown && thrown < sp && sp <= hi {
        crate::interface::frame_end(thrown, sp - thrown, Access::Return, Some("__cxa_begin_catch"), false);
    }
}
