//! Fault handling for copies executed off the caller's thread (DESIGN.md
//! "proactive fault handling"; article §"主动故障处理": an unrecoverable fault
//! is reported to the client exactly as the synchronous copy would have
//! faulted).
//!
//! The executors copy with `engine::copy_recoverable`. This module installs a
//! SIGSEGV/SIGBUS handler (`SA_SIGINFO | SA_ONSTACK | SA_NODEFER`) that, when
//! the faulting instruction lies inside the recoverable routines, redirects
//! the saved RIP to their fixup (the kernel's exception-table scheme). Every
//! other fault is chained to the handler that was installed before ours; if
//! that was the default action, the default is restored and the instruction
//! re-executes, so the process dies with the faulting thread's own stack,
//! exactly as without Copier.
//!
//! The task whose copy faulted is marked `FAULTED`; the thread that waits on
//! it (`csync`, `csync_all`, `copier_wait`, the exit drain) re-executes the
//! copy with a plain copy on its own thread. If the program's handler leaves
//! that copy by `siglongjmp` (recovering as around a faulting `memcpy`), the
//! next runtime call on that thread finishes the task with a fault (`FAILED`:
//! retired, never re-executed or re-raised; see `service`). A copy that
//! absorbed from a faulted one does not fault on its source a second time:
//! it reads the faulted copy's destination once that copy finished (see
//! `tracker`, "Absorption and faults").

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

static INSTALLED: AtomicBool = AtomicBool::new(false);
static INSTALL: Once = Once::new();
/// The action each of SIGSEGV (`[0]`) and SIGBUS (`[1]`) chains to, double
/// buffered: [`ensure_first`] writes the slot `OLD_IDX` does not name, then
/// flips `OLD_IDX`, so a handler running meanwhile reads a whole action.
static mut OLD: [[core::mem::MaybeUninit<libc::sigaction>; 2]; 2] = [[core::mem::MaybeUninit::zeroed(), core::mem::MaybeUninit::zeroed()], [core::mem::MaybeUninit::zeroed(), core::mem::MaybeUninit::zeroed()]];
static OLD_IDX: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
/// Serializes [`ensure_first`]'s re-installs.
static REINSTALL: crate::sys::FutexMutex<()> = crate::sys::FutexMutex::new(());

fn sig_index(sig: libc::c_int) -> usize {
    usize::from(sig == libc::SIGBUS)
}

/// Our action: `handler`, and a mask holding exactly `SIGRTMAX`, the mark
/// by which another copy of the runtime in the process (a `copiergen cc
/// -shared` object carries its own) recognises it and does not stack on
/// top of it again (two runtimes re-installing over each other would chain
/// in a cycle).
///
/// Filled in place (an out-parameter, not a returned struct: a struct move
/// may compile to a `memcpy` call, which a program may have interposed with
/// `amemcpy`, re-entering the runtime while it starts).
fn our_action(sa: &mut libc::sigaction) {
    sa.sa_sigaction = handler as *const () as usize;
    sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
    // SAFETY: sigemptyset/sigaddset on a mask we own.
    unsafe {
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaddset(&mut sa.sa_mask, libc::SIGRTMAX());
    }
}

/// True when `sa` is a Copier runtime's action (this one's or another
/// copy's, see [`our_action`]).
fn is_copier_action(sa: &libc::sigaction) -> bool {
    if sa.sa_sigaction == handler as *const () as usize {
        return true;
    }
    // SAFETY: sigismember on an initialised set.
    unsafe {
        sa.sa_flags & libc::SA_SIGINFO != 0
            && libc::sigismember(&sa.sa_mask, libc::SIGRTMAX()) == 1
            && libc::sigismember(&sa.sa_mask, libc::SIGRTMAX() - 1) == 0
            && libc::sigismember(&sa.sa_mask, libc::SIGINT) == 0
    }
}

/// Changes of the SIGSEGV/SIGBUS actions the program made through
/// libcopier's `sigaction`/`signal` interposers ([`note_sigaction`]), and
/// the count the last full check of [`ensure_first`] saw.
static WATCH: crate::watch::ChangeWatch = crate::watch::ChangeWatch::new();
/// True once [`install`] saw that the process binds `sigaction` to
/// libcopier's interposer ([`set_interposer`], checked in
/// [`probe_interposer`]); until then, and when it does not (libcopier
/// linked hidden into a shared object, `dlopen`ed, or behind another
/// interposer such as a sanitizer's), every [`ensure_first`] queries the
/// kernel.
static WATCHED: AtomicBool = AtomicBool::new(false);
/// Address of libcopier's `sigaction` interposer (0: none linked).
static INTERPOSER: AtomicUsize = AtomicUsize::new(0);

/// The runtime's init: its `sigaction` interposer is at `addr`.
pub fn set_interposer(addr: usize) {
    INTERPOSER.store(addr, Ordering::Relaxed);
}

/// libcopier's `sigaction`/`signal` interposers: the program called one
/// for `sig`, setting an action (`sets`) or only querying. Call after the
/// real call returned, so a check that reads the new count also sees the
/// new action. Async-signal-safe (two atomics).
pub fn note_sigaction(sig: libc::c_int, sets: bool) {
    if sets && (sig == libc::SIGSEGV || sig == libc::SIGBUS) {
        // (the program's later submit publishes after this in program
        // order: its ingest sees the count)
        WATCH.note();
    }
}

/// `sigaction` as libc defines it (`dlsym(RTLD_NEXT)` from this object:
/// the definition after libcopier's interposer), resolved once.
pub type SigactionFn = unsafe extern "C" fn(libc::c_int, *const libc::sigaction, *mut libc::sigaction) -> libc::c_int;

static REAL_SIGACTION: AtomicUsize = AtomicUsize::new(0);

/// The `sigaction` after libcopier's interposer (libc's): `None` when the
/// dynamic linker has none (then libc's `__sigaction` alias is tried).
pub fn real_sigaction() -> Option<SigactionFn> {
    let mut f = REAL_SIGACTION.load(Ordering::Acquire);
    if f == 0 {
        // SAFETY: dlsym with constant names; the result, if any, is libc's
        // `sigaction` (or its `__sigaction` alias), of the C signature above.
        unsafe {
            f = libc::dlsym(libc::RTLD_NEXT, c"sigaction".as_ptr()) as usize;
            if f == 0 {
                f = libc::dlsym(libc::RTLD_DEFAULT, c"__sigaction".as_ptr()) as usize;
            }
        }
        REAL_SIGACTION.store(f, Ordering::Release);
    }
    // SAFETY: a non-zero value is a resolved `sigaction` (above).
    (f != 0).then(|| unsafe { core::mem::transmute::<usize, SigactionFn>(f) })
}

/// Call libc's `sigaction` directly (not the interposer: libcopier's own
/// calls are no program change).
///
/// # Safety
/// As `sigaction`.
unsafe fn sys_sigaction(sig: libc::c_int, act: *const libc::sigaction, old: *mut libc::sigaction) -> libc::c_int {
    match real_sigaction() {
        // SAFETY: caller contract.
        Some(f) => unsafe { f(sig, act, old) },
        // SAFETY: caller contract (no dynamic libc: nothing interposes).
        None => unsafe { libc::sigaction(sig, act, old) },
    }
}

/// Does every object that calls `sigaction` through the dynamic linker
/// reach libcopier's interposer? True when the global binding
/// (`dlsym(RTLD_DEFAULT)`) is this runtime's interposer. (A program whose
/// own copy of the interposer is not exported, such as a Rust binary
/// linked without `-rdynamic`, reads false: its shared libraries' calls
/// would bypass it.)
fn probe_interposer() -> bool {
    let ours = INTERPOSER.load(Ordering::Relaxed);
    // SAFETY: dlsym with a constant name.
    ours != 0 && unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"sigaction".as_ptr()) } as usize == ours
}

/// Put our handler back in front when the program replaced it after
/// [`install`] (a test harness installs its SIGSEGV handler per case,
/// restores the previous one, installs again...): the program's action
/// becomes the one ours chains to, so a fault of a recoverable copy is
/// still fixed up here and every other fault still reaches the program's
/// handler. Called before tasks are ingested (`Tracker::ingest_all`): a
/// task is executed only after an ingest, and the program's `sigaction`
/// came before its submit, so that copy runs with our handler in front;
/// also by waiters before they execute copies.
///
/// Cost: one load and a compare while the program has not changed either
/// action since the last check (libcopier interposes `sigaction` and the
/// `signal` family and counts the changes, [`note_sigaction`]); otherwise,
/// and when the interposer does not see the process's calls, two
/// `sigaction` queries (~140 ns each here). A program that changes the
/// actions with a raw `rt_sigaction` system call bypasses the count.
#[inline]
pub fn ensure_first() {
    if !installed() {
        return;
    }
    let due = WATCH.due();
    if WATCHED.load(Ordering::Relaxed) && due.is_none() {
        return;
    }
    check_first();
    if let Some(seen) = due {
        WATCH.checked(seen);
    }
}

#[cold]
fn check_first() {
    for sig in [libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: sigaction is plain data; querying the current action.
        let mut cur: libc::sigaction = unsafe { core::mem::zeroed() };
        // SAFETY: valid out-pointer.
        unsafe { sys_sigaction(sig, core::ptr::null(), &mut cur) };
        if is_copier_action(&cur) {
            continue;
        }
        let _g = REINSTALL.lock();
        let i = sig_index(sig);
        let next = 1 - OLD_IDX[i].load(Ordering::Relaxed);
        // SAFETY: plain data, filled next.
        let mut ours: libc::sigaction = unsafe { core::mem::zeroed() };
        our_action(&mut ours);
        // SAFETY: slot `next` is not the one handlers read (OLD_IDX names the
        // other); sigaction writes the replaced action there.
        unsafe {
            let slot = (&raw mut OLD[i][next]).cast::<libc::sigaction>();
            if sys_sigaction(sig, &ours, slot) == 0 {
                if is_copier_action(&*slot) {
                    // (raced with another re-install: keep the chain as it was)
                    continue;
                }
                OLD_IDX[i].store(next, Ordering::Release);
            }
        }
    }
}

/// True once the handler is installed (executors may then use recoverable
/// copies; before that they use plain ones).
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Acquire)
}

/// Install the handler once (idempotent, thread-safe).
pub fn install() {
    INSTALL.call_once(|| {
        // SAFETY: sigaction with a zeroed struct, our handler, and storage for
        // the old action that is written once here before INSTALLED is set
        // (the handler reads it only after INSTALLED).
        unsafe {
            let mut sa: libc::sigaction = core::mem::zeroed();
            our_action(&mut sa);
            let ok1 = sys_sigaction(libc::SIGSEGV, &sa, (&raw mut OLD[0][0]).cast()) == 0;
            let ok2 = sys_sigaction(libc::SIGBUS, &sa, (&raw mut OLD[1][0]).cast()) == 0;
            WATCHED.store(probe_interposer(), Ordering::Relaxed);
            if ok1 && ok2 {
                INSTALLED.store(true, Ordering::Release);
            }
        }
    });
}

#[cfg(target_arch = "x86_64")]
fn try_fixup(ctx: *mut libc::c_void) -> bool {
    if ctx.is_null() {
        return false;
    }
    let (begin, end, fixup) = crate::engine::arch::x86_64::recover::ranges();
    // SAFETY: the kernel passes a valid ucontext_t for SA_SIGINFO handlers.
    unsafe {
        let uc = ctx as *mut libc::ucontext_t;
        let rip = &mut (*uc).uc_mcontext.gregs[libc::REG_RIP as usize];
        let ip = *rip as usize;
        if ip >= begin && ip < end && ip != fixup {
            *rip = fixup as i64;
            return true;
        }
    }
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn try_fixup(_ctx: *mut libc::c_void) -> bool {
    false
}

extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    if try_fixup(ctx) {
        return;
    }
    // Not ours: chain to the previous handler (remembering it, in case it
    // leaves a waiter's re-executed copy by siglongjmp).
    note_fault_delivered();
    // SAFETY: OLD_* were written before INSTALLED; signal handlers may call
    // sigaction (async-signal-safe).
    unsafe {
        let i = sig_index(sig);
        let old = (&raw const OLD[i][OLD_IDX[i].load(Ordering::Acquire)]).cast::<libc::sigaction>();
        let h = (*old).sa_sigaction;
        if h == libc::SIG_DFL || h == libc::SIG_IGN {
            // restore the default and return: the instruction faults again and
            // the kernel applies the default action on this thread.
            let mut sa: libc::sigaction = core::mem::zeroed();
            sa.sa_sigaction = libc::SIG_DFL;
            libc::sigemptyset(&mut sa.sa_mask);
            sys_sigaction(sig, &sa, core::ptr::null_mut());
        } else if (*old).sa_flags & libc::SA_SIGINFO != 0 {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = core::mem::transmute(h);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(libc::c_int) = core::mem::transmute(h);
            f(sig);
        }
        // the program's handler returned (it fixed the fault, e.g. by
        // mprotect): the copy retries and no fault was delivered
        note_fault_returned();
    }
}

thread_local! {
    /// The plain (fault-delivering) copy this thread is executing as a
    /// waiter: `(task handle, first segment, end segment, state)` of the
    /// claim it holds; state 0 none, 1 copying, 2 a SIGSEGV/SIGBUS was
    /// delivered to the program meanwhile. No destructor (read from the
    /// fault handler).
    pub(crate) static REPLAY: core::cell::Cell<(u64, u32, u32, u8)> = const { core::cell::Cell::new((0, 0, 0, 0)) };
}

/// Fault handler: a fault that is not an executor's
/// recoverable copy is being passed to the program's handler. If this thread
/// is re-executing a faulted copy, remember that its fault was delivered.
/// Async-signal-safe (one destructor-free thread-local).
pub fn note_fault_delivered() {
    let _ = REPLAY.try_with(|r| {
        let v = r.get();
        if v.3 == 1 {
            r.set((v.0, v.1, v.2, 2));
        }
    });
}

/// Fault handler: the program's handler returned to the interrupted copy
/// (undoes [`note_fault_delivered`]; the copy retries).
pub fn note_fault_returned() {
    let _ = REPLAY.try_with(|r| {
        let v = r.get();
        if v.3 == 2 {
            r.set((v.0, v.1, v.2, 1));
        }
    });
}

#[cfg(test)]
mod tests {
    /// A recoverable copy from an unmapped page returns `Err(Fault)` instead
    /// of killing the test process; a good copy still succeeds.
    #[test]
    fn recoverable_copy_survives_bad_source() {
        super::install();
        assert!(super::installed());
        let mut dst = vec![0u8; 8192];
        // SAFETY: mmap a PROT_NONE page: any access faults.
        let bad = unsafe {
            libc::mmap(core::ptr::null_mut(), 4096, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
        };
        assert_ne!(bad, libc::MAP_FAILED);
        // SAFETY: dst is valid; the source faults and is recovered.
        let r = unsafe { crate::engine::copy_recoverable(dst.as_mut_ptr(), bad as *const u8, 4096) };
        assert_eq!(r, Err(crate::engine::Fault));
        let src = vec![7u8; 8192];
        // SAFETY: valid disjoint buffers.
        let r = unsafe { crate::engine::copy_recoverable(dst.as_mut_ptr(), src.as_ptr(), 8192) };
        assert_eq!(r, Ok(()));
        assert_eq!(dst, src);
        crate::engine::NT_THRESHOLD.store(1024, core::sync::atomic::Ordering::Relaxed);
        // SAFETY: as above, through the non-temporal routine.
        let r = unsafe { crate::engine::copy_recoverable(dst.as_mut_ptr(), bad as *const u8, 4096) };
        crate::engine::NT_THRESHOLD.store(12 << 20, core::sync::atomic::Ordering::Relaxed);
        assert_eq!(r, Err(crate::engine::Fault));
        // SAFETY: unmapping our own mapping.
        unsafe { libc::munmap(bad, 4096) };
    }
}
