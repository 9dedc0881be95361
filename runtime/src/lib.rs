//! libcopier: asynchronous memory copy as a service (DESIGN.md; the SOSP'25
//! Copier article). `amemcpy` submits a copy and returns at once; `csync`
//! waits only for the bytes about to be touched.
//!
//! * C ABI: [`capi`] (header `runtime/include/copier.h`, `copier.pc`):
//!   reserved `__copier_*` symbols, with the public names as weak
//!   trampolines (`build.rs`).
//! * Safe Rust API: [`scope`] / [`Scope::copy`] / [`Pending::sync`].
//! * Options: `COPIER_OPTIONS=segment_size=4k:threshold=16k:stats=1`
//!   ([`options`]), `COPIER_STATS=1` prints [`stats`] at exit.
//! * Sanitizer hooks: [`hooks::set_hooks`].
//!
//! The service itself (queues, tracker, engines) is the `copier-adapter`
//! crate.

mod absorb_io;
pub mod capi;
mod scope;
mod signals;
pub mod sites;

pub use scope::{scope, Pending, Scope};

/// Sanitizer hooks (see the brief's shared contract).
pub mod hooks {
    pub use copier_adapter::hooks::{active, enter_async_unsafe, get, set_hooks, AsyncUnsafeSection, Hooks};
}

/// Run-time options (`COPIER_OPTIONS`).
pub mod options {
    pub use copier_adapter::config::{apply, set, OptionError, TABLE};
}

/// Counters (`COPIER_STATS`).
pub mod stats {
    pub use copier_adapter::stats::{snapshot, Snapshot};
}

/// Test and diagnostic helpers (not part of the C ABI).
pub mod testing {
    pub use copier_adapter::engine::engine_name;
    pub use copier_adapter::gate::barrier::register as membarrier_available;
    pub use copier_adapter::gate::holds as gate_holds;
    pub use copier_adapter::service::{debug_pending, index_len, index_work, kill_service, nothing_pending, quiesce, retirements_left, service_running};

    /// True while copies below the threshold take the inline fast path
    /// (`copier_adapter::gate`: nothing pending, no hooks, stats off).
    pub fn fast_path_open() -> bool {
        crate::capi::FAST.limit.load(core::sync::atomic::Ordering::Acquire) != 0
    }
}

use core::sync::atomic::{AtomicU8, Ordering};

/// 0: not initialized, 1: initializing, 2: done.
static INIT: AtomicU8 = AtomicU8::new(0);

/// Load options and register the exit and fork handlers (once). Called by
/// the `.init_array` constructor and, in case a static link dropped it, by
/// every submit path (one relaxed load).
#[inline(always)]
pub fn ensure_init() {
    if INIT.load(Ordering::Relaxed) != 2 {
        init_slow(false);
    }
}

#[cold]
fn init_slow(from_ctor: bool) {
    // Never wait here: reading the environment may itself call memcpy, and
    // a program that interposes memcpy with amemcpy re-enters this function
    // (calls made meanwhile use the default options).
    if INIT.compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire).is_err() {
        return;
    }
    // (a checker registered before this, at the sanitizer's preinit, has
    // reported the names unknown to both; so has one this copy of the
    // runtime does not know, the hidden runtime of a shared object)
    copier_adapter::config::load_env(|| !copier_adapter::hooks::active() && !checker_exported());
    // SAFETY: registering plain extern "C" callbacks.
    unsafe {
        libc::atexit(at_exit);
        libc::pthread_atfork(Some(fork_prepare), Some(fork_parent), Some(fork_child));
    }
    copier_adapter::gate::install(&capi::FAST);
    copier_adapter::fault::set_interposer(signals::sigaction as *const () as usize);
    copier_adapter::gate::install_pending(pending_word());
    resolve_libc_routines();
    if from_ctor {
        // the process is (almost always) still single-threaded here, where
        // registration is cheap (~2 us; ~10 ms once threads exist, which
        // the idle service thread pays instead when init runs late)
        copier_adapter::gate::barrier::register();
    }
    INIT.store(2, Ordering::Release);
    copier_adapter::gate::set_closed(copier_adapter::gate::CLOSED_INIT, false);
}

/// Whether the process has a CopierSanitizer executable's
/// [`copier_abi::CHECKER_SYMBOL`] (it warns about unknown `COPIER_OPTIONS`
/// names, also for a copy of libcopier its hooks do not reach).
fn checker_exported() -> bool {
    let name = std::ffi::CString::new(copier_abi::CHECKER_SYMBOL).expect("no NUL in the name");
    // SAFETY: dlsym with a NUL-terminated name; only the result's nullness
    // is used.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }.is_null()
}

/// The instance of the pending word that code linked against this runtime
/// reads. Our own definition when it is not a dynamic symbol (a `-static`
/// program, or the runtime embedded hidden in a shared object: references
/// bind to it directly). When it is exported, references bind through the
/// global scope, which a non-PIC executable that reads the word preempts
/// with a copy of its own (a copy relocation): that copy is what
/// `dlsym(RTLD_DEFAULT)` returns. (The gate adds and removes its
/// contribution, so a word two runtimes share stays correct.)
fn pending_word() -> &'static core::sync::atomic::AtomicUsize {
    let own: &'static core::sync::atomic::AtomicUsize = &capi::__copier_pending;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut info = libc::Dl_info { dli_fname: core::ptr::null(), dli_fbase: core::ptr::null_mut(), dli_sname: core::ptr::null(), dli_saddr: core::ptr::null_mut() };
        // SAFETY: dladdr fills `info` for an address of this process.
        let found = unsafe { libc::dladdr((own as *const core::sync::atomic::AtomicUsize).cast(), &mut info) } != 0;
        let exported = found
            && core::ptr::eq(info.dli_saddr.cast_const().cast::<core::sync::atomic::AtomicUsize>(), own)
            && !info.dli_sname.is_null()
            // SAFETY: dladdr's symbol name is a NUL-terminated string.
            && unsafe { core::ffi::CStr::from_ptr(info.dli_sname) } == c"__copier_pending";
        if exported {
            // SAFETY: dlsym with a NUL-terminated name; a non-null result is
            // the address of the `size_t` object named so, alive for the
            // whole process.
            let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__copier_pending".as_ptr()) };
            if !p.is_null() {
                // SAFETY: see above; AtomicUsize has size_t's layout.
                return unsafe { &*(p as *const core::sync::atomic::AtomicUsize) };
            }
        }
    }
    own
}

/// Point the inline fast path at glibc's own `memcpy`/`memmove` (the
/// routines a plain `memcpy` call reaches), looked up in libc itself so a
/// program that interposes `memcpy` with `amemcpy` cannot make the fast
/// path recurse. Without a dynamic libc (a `-static` program) the engine's
/// copies stay in place.
fn resolve_libc_routines() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: dlopen with RTLD_NOLOAD only returns an already loaded libc;
    // dlsym returns the resolved address of a function with memcpy's C
    // signature (IFUNCs are resolved by dlsym).
    unsafe {
        let h = libc::dlopen(c"libc.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
        if h.is_null() {
            return;
        }
        let (c, m) = (libc::dlsym(h, c"memcpy".as_ptr()), libc::dlsym(h, c"memmove".as_ptr()));
        if !c.is_null() && !m.is_null() {
            copier_adapter::gate::set_routines(
                core::mem::transmute::<*mut libc::c_void, copier_adapter::gate::MemFn>(c),
                core::mem::transmute::<*mut libc::c_void, copier_adapter::gate::MemFn>(m),
            );
        }
    }
}

extern "C" fn at_exit() {
    // pending copies complete before the process goes away
    copier_adapter::backend::csync_all();
    // With a stats file, the counters and site lines go there instead of
    // stderr (docs/statistics.md), COPIER_STATS set or not.
    let file = copier_adapter::config::stats_file();
    if copier_adapter::config::get(&copier_adapter::config::values::stats) != 0 && file.is_none() {
        copier_adapter::stats::print_line();
    }
    let sites = copier_adapter::config::get(&copier_adapter::config::values::sites) != 0;
    let site_lines = if sites || file.is_some() { sites::report(sites && file.is_none()) } else { Vec::new() };
    if let Some(path) = file {
        // One append per process: the counters line, then its site lines.
        let pid = std::process::id();
        let mut text = format!("{} pid={pid}\n", copier_adapter::stats::snapshot().line());
        site_lines.iter().for_each(|l| text.push_str(&format!("{l} pid={pid}\n")));
        copier_adapter::stats::append_text(&path, &text);
    }
}

extern "C" fn fork_prepare() {
    copier_adapter::backend::fork_prepare();
    copier_adapter::service::fork_prepare();
}
extern "C" fn fork_parent() {
    copier_adapter::service::fork_parent();
    copier_adapter::backend::fork_parent();
}
extern "C" fn fork_child() {
    copier_adapter::service::fork_child();
    copier_adapter::backend::fork_child();
    sites::fork_child();
}

extern "C" fn ctor() {
    if INIT.load(Ordering::Relaxed) != 2 {
        init_slow(true);
    }
}

#[used]
#[link_section = ".init_array"]
static CTOR: extern "C" fn() = ctor;

#[cfg(test)]
mod tests {
    #[test]
    fn flags_match_the_shared_abi() {
        assert_eq!(crate::capi::COPIER_LAZY, copier_abi::COPIER_LAZY);
        assert_eq!(crate::capi::COPIER_MOVE, copier_abi::COPIER_MOVE);
    }
}
