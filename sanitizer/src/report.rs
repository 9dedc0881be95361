//! Checks and reports: the lock-free check every instrumented access and
//! interceptor runs, and the slow path that finds the culprit copy, prints
//! the report and halts (or, with `halt_on_error=0`, reports each distinct
//! site once and goes on).

use std::collections::HashSet;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Mutex, MutexGuard};

use crate::errors::{self, Access, Common, CopySnapshot, ErrorReport};
use crate::mapping::DST_BITS;
use crate::shadow::{self, RealShadow, ALL_BITS};
use crate::thread::{self, RuntimeGuard};
use crate::tracker::{Origin, Role};
use crate::{flags, lock_tracker, stack, LIVE, PROGRAM_LIVE};

/// Write `s` to stderr with `write(2)` (no buffering, no allocation, no lock
/// that a crashing thread might hold).
pub fn write_stderr(s: &str) {
    let mut b = s.as_bytes();
    while !b.is_empty() {
        // SAFETY: b is a valid readable slice. The raw system call bypasses
        // the `write` interceptor.
        let n = unsafe { libc::syscall(libc::SYS_write, 2, b.as_ptr(), b.len()) } as isize;
        if n <= 0 {
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        b = &b[n as usize..];
    }
}

/// Shadow bits an access of this kind must not meet.
#[inline(always)]
fn forbidden(access: Access) -> u8 {
    match access {
        Access::Read => DST_BITS,
        Access::Write | Access::Free | Access::Return | Access::ScopeEnd => ALL_BITS,
    }
}

/// True while a copy is pending anywhere ([`LIVE`] is nonzero); while it
/// is false the whole shadow is clear and no check can report. The first
/// test of every interceptor's check.
#[inline(always)]
pub fn busy() -> bool {
    LIVE.load(Relaxed) != 0
}

/// Check `[addr, addr + len)` for `access`. Lock-free unless a byte is
/// pending. `via` names the intercepted libc function, if any; `recover`
/// (the `_noabort` entry points) never halts.
#[inline(always)]
pub fn check(addr: usize, len: usize, access: Access, via: Option<&'static str>, recover: bool) {
    if len == 0 || LIVE.load(Relaxed) == 0 || thread::in_runtime() {
        return;
    }
    if shadow::any(&RealShadow, addr, len, forbidden(access)) {
        slow(addr, len, access, via, recover, false);
    }
}

/// True if the check would find a pending byte (used by interceptors that
/// must decide before calling through, e.g. `free`).
#[inline(always)]
pub fn would_report(addr: usize, len: usize, access: Access) -> bool {
    len != 0 && LIVE.load(Relaxed) != 0 && !thread::in_runtime() && shadow::any(&RealShadow, addr, len, forbidden(access))
}

/// As [`check`], counting only bytes pending from copies the program
/// submitted itself ([`Origin::Program`]): the check of a copy CopierGen
/// made of the program's `memcpy`/`memmove`, or of a write/send call it
/// absorbed (`interface::copiergen_copy`), which may meet CopierGen's own
/// pending copies. One load and branch while the program has no copy
/// pending.
#[inline(always)]
pub fn check_program(addr: usize, len: usize, access: Access, via: Option<&'static str>, recover: bool) {
    if len == 0 || PROGRAM_LIVE.load(Relaxed) == 0 || thread::in_runtime() {
        return;
    }
    if shadow::any(&RealShadow, addr, len, forbidden(access)) {
        slow(addr, len, access, via, recover, true);
    }
}

/// The report path of [`check`] (`program_only`: of [`check_program`]).
/// (One frame: `emit` keys a report's stack by its frames past the first
/// two.)
#[cold]
#[inline(never)]
fn slow(addr: usize, len: usize, access: Access, via: Option<&'static str>, recover: bool, program_only: bool) {
    let _g = RuntimeGuard::enter();
    let handlers = thread::handlers();
    let found = {
        let mut t = lock_tracker();
        let own = |c: &crate::tracker::PendingCopy| handlers.iter().any(|&(d, s, n)| c.dst == d && c.src == s && c.len == n);
        // Inside a completion handler its own copy is complete: a free there
        // gives the copy's bytes back (e.g. a handler that frees the source).
        if access == Access::Free && !handlers.is_empty() {
            loop {
                let hit = t
                    .culprit(Role::Destination, addr, len, |c| own(c))
                    .or_else(|| t.culprit(Role::Source, addr, len, |c| own(c)))
                    .map(|(c, _)| c.id);
                match hit {
                    Some(id) => t.release_copy(id, addr, len),
                    None => break,
                }
            }
            crate::publish(&t);
        }
        let not_own = |c: &crate::tracker::PendingCopy| !own(c) && (!program_only || c.origin == Origin::Program);
        let hit = match access {
            Access::Read => t.culprit(Role::Destination, addr, len, not_own).map(|h| (h, Role::Destination)),
            Access::Write | Access::Free | Access::Return | Access::ScopeEnd => t
                .culprit(Role::Destination, addr, len, not_own)
                .map(|h| (h, Role::Destination))
                .or_else(|| t.culprit(Role::Source, addr, len, not_own).map(|h| (h, Role::Source))),
        };
        hit.map(|((c, bad), role)| {
            (
                CopySnapshot {
                    id: c.id,
                    dst: c.dst,
                    src: c.src,
                    len: c.len,
                    flags: c.flags,
                    thread: c.thread,
                    stack: c.stack.clone(),
                    pend_dst: c.pend_dst.iter().collect(),
                    pend_src: c.pend_src.iter().collect(),
                },
                bad,
                role,
            )
        })
    };
    let Some((copy, bad, role)) = found else { return };
    let common = Common { addr, size: len, thread: thread::current(), stack: stack::capture(64), via, bad, role, copy };
    let e: Box<dyn ErrorReport> = match (access, role) {
        (Access::Read, _) => Box::new(errors::ReadBeforeCsync(common)),
        (Access::Write, Role::Destination) => Box::new(errors::WriteBeforeCsync(common)),
        (Access::Write, Role::Source) => Box::new(errors::SourceWriteBeforeCsync(common)),
        (Access::Free, _) => Box::new(errors::FreeBeforeCsync(common)),
        (Access::Return, _) => Box::new(errors::ReturnBeforeCsync(common)),
        (Access::ScopeEnd, _) => Box::new(errors::ScopeEndBeforeCsync(common)),
    };
    emit(&*e, recover);
}

/// Report a copy submitted through an entry point that does not allow
/// overlap (no `COPIER_MOVE` in `flags`) whose destination and source
/// overlap: `memcpy-param-overlap`, as ASan reports `memcpy`. `stack` is the
/// submit stack, `id` the number the copy gets, `call` the program's call
/// the copy stands for when CopierGen made it (`memcpy`; else the entry
/// point's name), `thread` the submitting thread. Halts unless
/// `halt_on_error=0` (then the copy goes on as submitted).
#[allow(clippy::too_many_arguments)]
pub fn overlap(dst: usize, src: usize, len: usize, flags: u32, id: u64, thread: u32, stack: Box<[usize]>, call: Option<&'static str>) {
    let (a, b) = (dst.max(src), (dst + len).min(src + len));
    if flags & copier_abi::COPIER_MOVE != 0 || len == 0 || a >= b || dst == src {
        return;
    }
    let copy = CopySnapshot {
        id,
        dst,
        src,
        len,
        flags,
        thread,
        stack: stack.clone(),
        pend_dst: vec![(0, len)],
        pend_src: vec![(0, len)],
    };
    let common = Common { addr: a, size: b - a, thread, stack, via: call, bad: a, role: Role::Destination, copy };
    emit(&errors::MemcpyParamOverlap(common), false);
}

/// Reports printed so far (each distinct site once with `halt_on_error=0`).
static REPORTED: AtomicUsize = AtomicUsize::new(0);

/// Number of reports printed so far.
pub fn reported() -> usize {
    REPORTED.load(Relaxed)
}

/// Registered with `atexit` when the runtime starts, so it runs after the
/// program's own exit handlers (registered later) and before the
/// destructors `_dl_fini` runs: if a report was printed (the program went
/// on with `halt_on_error=0`, or called the `_noabort` checks), flush stdio
/// and end the process with `exitcode` whatever status the program chose,
/// as ThreadSanitizer does (its `finalize`) and as ASan's `exitcode` flag
/// documents ("override the program exit status if the tool found an
/// error"). A CI run with `halt_on_error=0` therefore fails.
pub extern "C" fn exit_status_on_reports() {
    if reported() == 0 {
        return;
    }
    let f = flags::get();
    let n = reported();
    write_stderr(&format!(
        "CopierSanitizer: {n} report{} above; exiting with exitcode={}\n",
        if n == 1 { "" } else { "s" },
        f.exitcode
    ));
    // SAFETY: fflush(NULL) flushes every open output stream (the program's
    // stdout would otherwise be lost by _exit); _exit has no preconditions.
    unsafe {
        libc::fflush(core::ptr::null_mut());
        libc::_exit(f.exitcode as i32)
    }
}

struct Seen {
    stacks: HashSet<(&'static str, [usize; 4])>,
    sites: HashSet<(&'static str, String)>,
}

static REPORTS: Mutex<Option<Seen>> = Mutex::new(None);

/// The reports lock, held across a `fork` ([`crate::fork`]).
pub(crate) struct ForkHold {
    _g: MutexGuard<'static, Option<Seen>>,
}

/// Take the lock [`emit`] takes, for [`crate::fork`].
pub(crate) fn hold_for_fork() -> ForkHold {
    ForkHold { _g: REPORTS.lock().unwrap_or_else(|e| e.into_inner()) }
}

/// Print a report (one at a time) and halt unless recovering. With
/// `halt_on_error=0`, a site (kind and source line of the access) already
/// reported is skipped.
fn emit(e: &dyn ErrorReport, recover: bool) {
    let f = flags::get();
    let halt = f.halt_on_error && !recover;
    let mut g = REPORTS.lock().unwrap_or_else(|e| e.into_inner());
    let seen = g.get_or_insert_with(|| Seen { stacks: HashSet::new(), sites: HashSet::new() });
    let c = e.common();
    // A submit-time error's stack is the copy's: its leading frames are the
    // runtime's whatever the call site, so it is keyed by its site below.
    let mut key = [0usize; 4];
    if !e.at_submit() {
        for (k, ip) in key.iter_mut().zip(c.stack.iter().skip(2)) {
            *k = *ip;
        }
        if !halt && !seen.stacks.insert((e.kind(), key)) {
            return;
        }
    }
    let access = if e.at_submit() { errors::copy_frames(&c.stack, f.symbolize) } else { errors::access_frames(&c.stack, f.symbolize) };
    let site = errors::summary_frame(&access)
        .map(|s| format!("{}:{}:{}", s.file.as_deref().unwrap_or("?"), s.line.unwrap_or(0), s.name.as_deref().unwrap_or("?")))
        .unwrap_or_default();
    if !halt && !seen.sites.insert((e.kind(), site)) {
        return;
    }
    let copy = errors::copy_frames(&c.copy.stack, f.symbolize);
    let dump = (f.print_shadow && !e.at_submit()).then(|| errors::shadow_dump(c.bad, 1));
    write_stderr(&errors::render(e, &access, &copy, dump));
    REPORTED.fetch_add(1, Relaxed);
    if halt {
        if f.abort_on_error {
            // SAFETY: abort has no preconditions.
            unsafe { libc::abort() };
        }
        // SAFETY: _exit has no preconditions; it skips atexit handlers, which
        // might touch the pending buffers again.
        unsafe { libc::_exit(f.exitcode as i32) };
    }
}
