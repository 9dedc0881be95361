//! CopierSanitizer runtime: shadow memory that catches any use of a buffer
//! before its `csync` (issue 4), modelled on AddressSanitizer.
//!
//! - [`mapping`]: where the shadow lives (2 bits per application byte at a
//!   fixed offset) and why that granularity is exact.
//! - [`tracker`]: pending copies and the shadow state machine (the
//!   semantics: when a destination or source stops being pending);
//!   [`cover`]: which copies hold each pending byte, [`ranges`]: one
//!   copy's pending bytes.
//! - [`interface`]: the named ABI the instrumentation pass calls.
//! - [`hooks`]: the runtime's submit/sync/handler events; [`deferred`]:
//!   those a signal handler makes where the tracker cannot be locked.
//! - [`interception`]: libc functions that touch memory.
//! - [`errors`], [`report`]: ASan-style reports; [`flags`]: `COPIER_OPTIONS`.
//! - [`fork`]: no sanitizer lock is held by another thread at a `fork`.
//!
//! `libcopier_san.a` contains this crate, libcopier and the Rust standard
//! library: a sanitizer build links it instead of `libcopier.a`.

use std::sync::atomic::AtomicUsize;
use std::sync::{Mutex, MutexGuard, Once};

pub mod cover;
pub mod deferred;
pub mod errors;
pub mod flags;
pub mod fork;
pub mod heap_footer;
pub mod hooks;
#[cfg(not(test))]
pub mod interception;
#[cfg(test)]
pub mod interception {
    //! Unit tests run without the interceptors (the test harness would
    //! otherwise run on them).
    /// Every intercepted function.
    pub const INTERCEPTED: &[&str] = &[];
}
pub mod interface;
pub mod mapping;
pub mod ranges;
pub mod report;
pub mod shadow;
pub mod stack;
pub mod thread;
pub mod tracker;

/// The pending copies of the process, kept in step with the real shadow.
/// Taken through [`lock_tracker`].
static TRACKER: Mutex<tracker::Tracker<shadow::RealShadow>> = Mutex::new(tracker::Tracker::new(shadow::RealShadow));

/// Lock the tracker and apply the hook events queued where it could not be
/// locked ([`deferred`]). Only where the thread may block and allocate:
/// never from a hook that found [`thread::in_runtime`] true.
pub(crate) fn lock_tracker() -> MutexGuard<'static, tracker::Tracker<shadow::RealShadow>> {
    let mut t = TRACKER.lock().unwrap_or_else(|e| e.into_inner());
    deferred::drain(&mut t);
    t
}

/// Number of pending copies, the tracker's ([`publish`]) and those queued
/// for it ([`deferred`]), read without the lock: 0 means the shadow is all
/// clear, and every check returns at once.
/// Part of the ABI as `__copier_san_live`: instrumented code reads it
/// (monotonic) before a `csync_ready_end` miss and skips the call when it
/// is 0 (`passes/src/sanitizer`).
#[export_name = "__copier_san_live"]
pub static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Number of pending copies the program submitted itself
/// ([`tracker::Tracker::program_len`]; updated with [`LIVE`], read without
/// the lock): 0 means a copy CopierGen made cannot be the program's bug,
/// and its check returns at once (`interface::copiergen_copy`).
pub(crate) static PROGRAM_LIVE: AtomicUsize = AtomicUsize::new(0);

/// `t`'s counts as last published ([`publish`]; under the tracker lock).
static PUBLISHED: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

/// Publish `t`'s counts ([`LIVE`], [`PROGRAM_LIVE`]); called under the
/// tracker lock after every change. Adds the change since the last call,
/// as the copies [`deferred`] queues add to the counts without the lock.
pub(crate) fn publish(t: &tracker::Tracker<shadow::RealShadow>) {
    use std::sync::atomic::Ordering::Relaxed;
    for (k, (now, count)) in [(t.len(), &LIVE), (t.program_len(), &PROGRAM_LIVE)].into_iter().enumerate() {
        let before = PUBLISHED[k].swap(now, Relaxed);
        if now != before {
            count.fetch_add(now.wrapping_sub(before), Relaxed);
        }
    }
}

static INIT: Once = Once::new();

/// Initialize the runtime: register the fork handlers, parse
/// `COPIER_OPTIONS`, reserve the shadow, register the runtime hooks,
/// resolve the interceptors' real functions.
/// Idempotent; runs from the executable's `.preinit_array` (before any
/// shared library's constructor, see [`interface::PREINIT`]), else from a
/// constructor before any other constructor, and from every instrumented
/// module's constructor.
pub fn init() {
    INIT.call_once(|| {
        let _g = thread::RuntimeGuard::enter();
        // first: before anything here can start libcopier, which registers
        // its fork handlers when it starts (see [`fork`])
        #[cfg(not(test))]
        fork::register();
        flags::init_from_env();
        if let Err(msg) = mapping::reserve() {
            report::write_stderr(&format!("ERROR: {msg}\n"));
            // SAFETY: _exit has no preconditions.
            unsafe { libc::_exit(1) };
        }
        #[cfg(not(test))]
        interception::init();
        let _ = thread::current();
        hooks::register();
        #[cfg(not(test))]
        // SAFETY: registers a plain extern "C" fn with no captured state.
        unsafe {
            libc::atexit(report::exit_status_on_reports);
        }
        let f = flags::get();
        if f.verbosity > 0 {
            report::write_stderr(&format!(
                "CopierSanitizer: shadow layout\n{}\nCopierSanitizer: flags\n{}",
                mapping::describe(),
                flags::describe(f)
            ));
        }
    });
}

#[cfg(not(test))]
extern "C" fn ctor() {
    init();
}

/// Runs [`init`] before the program's own constructors (priority 1, as
/// ASan's module constructor). The `.preinit_array` entry
/// ([`interface::PREINIT`]) normally runs it earlier still; this one covers
/// a link where preinit functions do not run.
#[cfg(not(test))]
#[used]
#[link_section = ".init_array.00001"]
static CTOR: extern "C" fn() = ctor;
