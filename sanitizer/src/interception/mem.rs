//! `memcpy`, `memmove`, `memset` (and their `_chk` forms).
//!
//! The Copier runtime linked into the same program executes the copies and
//! so writes pending destinations through these very functions. Those calls
//! must not be reported: the entry points are naked trampolines that pass
//! the caller's return address along, and a call whose caller is a function
//! of the runtime (`copier::…`, `copier_adapter::…`, the C entry points) is
//! exempt. The decision is made by symbolizing the call site once and
//! caching it, and only when the shadow says a byte is pending.

use core::ffi::c_void;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use crate::errors::Access;
use crate::report::would_report;
use crate::{check_read, check_write, real};

/// C entry points of libcopier (their code is runtime code too), by their
/// reserved symbols (the public names are trampolines that jump there).
const RUNTIME_ENTRY_POINTS: &[&str] = &[
    "__copier_amemcpy",
    "__copier_amemmove",
    "__copier_amemcpy_lazy",
    "__copier_amemcpy_handler",
    "__copier_submit",
    "__copier_wait",
    "__copier_csync",
    "__copier_csync_all",
    "__copier_csync_ready_end",
    "__copier_amemcpy_site",
    "__copier_amemmove_site",
];

static RUNTIME_PCS: Mutex<Option<HashMap<usize, bool>>> = Mutex::new(None);

/// The call-site cache's lock, held across a `fork` ([`crate::fork`]).
pub(crate) struct ForkHold {
    _g: MutexGuard<'static, Option<HashMap<usize, bool>>>,
}

/// Take the lock [`from_copier_runtime`] takes, for [`crate::fork`].
pub(crate) fn hold_for_fork() -> ForkHold {
    ForkHold { _g: RUNTIME_PCS.lock().unwrap_or_else(|e| e.into_inner()) }
}

/// True if the call site `pc` (a return address) is in the Copier runtime.
pub fn from_copier_runtime(pc: usize) -> bool {
    let _g = crate::thread::RuntimeGuard::enter();
    let mut g = RUNTIME_PCS.lock().unwrap_or_else(|e| e.into_inner());
    let map = g.get_or_insert_with(HashMap::new);
    if let Some(&v) = map.get(&pc) {
        return v;
    }
    let name = crate::stack::function_at(pc).unwrap_or_default();
    let v = ["copier::", "<copier::", "copier_adapter::", "<copier_adapter::"].iter().any(|p| name.starts_with(p))
        || RUNTIME_ENTRY_POINTS.contains(&name.as_str());
    map.insert(pc, v);
    v
}

pub(crate) fn init() {
    // Resolve early, while nothing else runs, so the fallbacks below serve
    // only calls made before the constructor.
    let _ = real!(memcpy: fn(*mut c_void, *const c_void, usize) -> *mut c_void);
    let _ = real!(memmove: fn(*mut c_void, *const c_void, usize) -> *mut c_void);
    let _ = real!(memset: fn(*mut c_void, i32, usize) -> *mut c_void);
}

/// `rep movsb` copy used before the real memmove is known (handles overlap).
///
/// # Safety
/// As `memmove`.
unsafe fn fallback_move(d: *mut c_void, s: *const c_void, n: usize) {
    if (d as usize).wrapping_sub(s as usize) >= n {
        // SAFETY: forward copy of n bytes between valid ranges; DF is clear
        // per the ABI.
        unsafe { core::arch::asm!("rep movsb", inout("rcx") n => _, inout("rdi") d => _, inout("rsi") s => _, options(nostack)) };
    } else if n > 0 {
        // SAFETY: backward copy (dst above src, overlapping); DF restored.
        unsafe {
            core::arch::asm!("std", "rep movsb", "cld",
                inout("rcx") n => _, inout("rdi") (d as usize + n - 1) => _, inout("rsi") (s as usize + n - 1) => _, options(nostack))
        };
    }
}

macro_rules! trampoline {
    ($name:ident => $imp:ident) => {
        /// Interceptor entry: passes the caller's return address in the
        /// fourth argument register and jumps to the implementation.
        ///
        /// # Safety
        /// As the libc function of the same name.
        #[unsafe(naked)]
        #[no_mangle]
        pub unsafe extern "C" fn $name(a: *mut c_void, b: usize, n: usize) -> *mut c_void {
            core::arch::naked_asm!("mov rcx, qword ptr [rsp]", "jmp {imp}", imp = sym $imp)
        }
    };
}

trampoline!(memcpy => memcpy_impl);
trampoline!(memmove => memmove_impl);
trampoline!(memset => memset_impl);

/// A memcpy/memmove the sanitizer must not report: made by the sanitizer
/// itself, by a function of the runtime, or executing (a segment of) a
/// pending copy — the last catches engines that reach memcpy through a tail
/// call, whose return address is the runtime's caller.
#[inline(never)]
fn exempt(pc: usize, d: usize, s: usize, n: usize) -> bool {
    if crate::thread::in_runtime() {
        return true;
    }
    let execution = {
        let _g = crate::thread::RuntimeGuard::enter();
        crate::lock_tracker().is_execution(d, s, n)
    };
    execution || from_copier_runtime(pc)
}

unsafe extern "C" fn memcpy_impl(d: *mut c_void, s: *const c_void, n: usize, pc: usize) -> *mut c_void {
    if (would_report(s as usize, n, Access::Read) || would_report(d as usize, n, Access::Write)) && !exempt(pc, d as usize, s as usize, n) {
        check_read!("memcpy", s, n);
        check_write!("memcpy", d, n);
    }
    // SAFETY: forwarded memcpy contract.
    unsafe { real_memmove_or_copy::<false>(d, s, n) }
}

unsafe extern "C" fn memmove_impl(d: *mut c_void, s: *const c_void, n: usize, pc: usize) -> *mut c_void {
    if (would_report(s as usize, n, Access::Read) || would_report(d as usize, n, Access::Write)) && !exempt(pc, d as usize, s as usize, n) {
        check_read!("memmove", s, n);
        check_write!("memmove", d, n);
    }
    // SAFETY: forwarded memmove contract.
    unsafe { real_memmove_or_copy::<true>(d, s, n) }
}

unsafe extern "C" fn memset_impl(d: *mut c_void, c: i32, n: usize, pc: usize) -> *mut c_void {
    if would_report(d as usize, n, Access::Write) && !crate::thread::in_runtime() && !from_copier_runtime(pc) {
        check_write!("memset", d, n);
    }
    static P: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);
    let p = P.load(core::sync::atomic::Ordering::Relaxed);
    if p == 0 {
        if crate::thread::in_runtime() {
            // SAFETY: rep stosb of n bytes into the caller's valid buffer.
            unsafe { core::arch::asm!("rep stosb", inout("rcx") n => _, inout("rdi") d => _, in("al") c as u8, options(nostack)) };
            return d;
        }
        P.store(real!(memset: fn(*mut c_void, i32, usize) -> *mut c_void) as usize, core::sync::atomic::Ordering::Relaxed);
    }
    // SAFETY: the real memset, with the caller's arguments.
    unsafe { core::mem::transmute::<usize, unsafe extern "C" fn(*mut c_void, i32, usize) -> *mut c_void>(P.load(core::sync::atomic::Ordering::Relaxed))(d, c, n) }
}

#[inline(always)]
unsafe fn real_memmove_or_copy<const MOVE: bool>(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void {
    static CPY: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);
    static MOV: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);
    let slot = if MOVE { &MOV } else { &CPY };
    let mut p = slot.load(core::sync::atomic::Ordering::Relaxed);
    if p == 0 {
        if crate::thread::in_runtime() {
            // Resolving (dlsym) is in progress on this thread: copy by hand.
            // SAFETY: forwarded memcpy/memmove contract.
            unsafe { fallback_move(d, s, n) };
            return d;
        }
        p = if MOVE {
            real!(memmove: fn(*mut c_void, *const c_void, usize) -> *mut c_void) as usize
        } else {
            real!(memcpy: fn(*mut c_void, *const c_void, usize) -> *mut c_void) as usize
        };
        slot.store(p, core::sync::atomic::Ordering::Relaxed);
    }
    // SAFETY: p is the real memcpy/memmove; the caller upholds its contract.
    unsafe { core::mem::transmute::<usize, unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> *mut c_void>(p)(d, s, n) }
}

/// Interceptor of `__memcpy_chk`.
///
/// # Safety
/// As `__memcpy_chk`.
#[no_mangle]
pub unsafe extern "C" fn __memcpy_chk(d: *mut c_void, s: *const c_void, n: usize, dlen: usize) -> *mut c_void {
    check_read!("__memcpy_chk", s, n);
    check_write!("__memcpy_chk", d, n);
    // SAFETY: forwarded contract.
    unsafe { real!(__memcpy_chk: fn(*mut c_void, *const c_void, usize, usize) -> *mut c_void)(d, s, n, dlen) }
}

/// Interceptor of `__memmove_chk`.
///
/// # Safety
/// As `__memmove_chk`.
#[no_mangle]
pub unsafe extern "C" fn __memmove_chk(d: *mut c_void, s: *const c_void, n: usize, dlen: usize) -> *mut c_void {
    check_read!("__memmove_chk", s, n);
    check_write!("__memmove_chk", d, n);
    // SAFETY: forwarded contract.
    unsafe { real!(__memmove_chk: fn(*mut c_void, *const c_void, usize, usize) -> *mut c_void)(d, s, n, dlen) }
}

/// Interceptor of `__memset_chk`.
///
/// # Safety
/// As `__memset_chk`.
#[no_mangle]
pub unsafe extern "C" fn __memset_chk(d: *mut c_void, c: i32, n: usize, dlen: usize) -> *mut c_void {
    check_write!("__memset_chk", d, n);
    // SAFETY: forwarded contract.
    unsafe { real!(__memset_chk: fn(*mut c_void, i32, usize, usize) -> *mut c_void)(d, c, n, dlen) }
}
