//! The plugin entry point (`llvmGetPassPluginInfo`) and the trampolines
//! that let the C++ shim call the Rust passes of [`crate::registry`].
//!
//! LLVM 22 plugin ABI (`llvm/Plugins/PassPlugin.h`): API version 2,
//! `PassPluginLibraryInfo` with five fields. The entry point is defined here
//! because a Rust cdylib exports only Rust-defined `#[no_mangle]` symbols.

use crate::context::{self, ModuleContext, Severity};
use crate::ffi;
use crate::registry::PASSES;
use inkwell::llvm_sys::prelude::LLVMModuleRef;
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `LLVM_PLUGIN_API_VERSION` of LLVM 22.
const LLVM_PLUGIN_API_VERSION: u32 = 2;

/// Mirror of `llvm::PassPluginLibraryInfo` (LLVM 22).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut ffi::CgPassBuilder)>,
    /// `bool (*)(Module &, TargetMachine &, CodeGenFileType, raw_pwrite_stream &)`:
    /// unused.
    pre_code_gen_callback: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, u32, *mut c_void) -> bool>,
}

/// The plugin's entry point, looked up by `llvm::PassPlugin::Load`.
#[unsafe(no_mangle)]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: LLVM_PLUGIN_API_VERSION,
        plugin_name: c"CopierGen".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast::<c_char>(),
        register_pass_builder_callbacks: Some(register_callbacks),
        pre_code_gen_callback: None,
    }
}

/// Messages about [`crate::options::ENV_VAR`] tokens that could not be
/// applied, printed when a pass of the plugin first runs in this process
/// (see [`print_env_warnings`]).
static ENV_WARNINGS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Prints (once per process) the [`ENV_WARNINGS`] kept at registration.
/// They wait for a pass to run: an `-flto` compile loads the plugin but
/// runs only the pre-link glue ([`crate::pass::Schedule::lto_prelink`]),
/// and the link that runs the pass warns, so a build prints each warning
/// once, where the options take effect.
fn print_env_warnings() {
    let pending = std::mem::take(&mut *ENV_WARNINGS.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    for e in pending {
        eprintln!("copiergen: warning: {e}");
    }
}

/// Registers every pass of [`PASSES`] with the host's PassBuilder.
unsafe extern "C" fn register_callbacks(pb: *mut ffi::CgPassBuilder) {
    let errors = crate::options::apply_env();
    ENV_WARNINGS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend(errors);
    for (index, pass) in PASSES.iter().enumerate() {
        let name = pass.name();
        let schedule = pass.schedule();
        let mut bits = 0;
        if schedule.optimizer_last {
            bits |= ffi::CG_SCHEDULE_OPTIMIZER_LAST;
        }
        if schedule.full_lto_last {
            bits |= ffi::CG_SCHEDULE_FULL_LTO_LAST;
        }
        if schedule.lto_prelink {
            bits |= ffi::CG_SCHEDULE_LTO_PRELINK;
        }
        // SAFETY: pb is the host's live PassBuilder; the name is 'static;
        // the data word is the pass's index in PASSES, not a pointer.
        unsafe {
            ffi::cg_register_module_pass(
                pb,
                name.as_ptr().cast::<c_char>(),
                name.len(),
                bits,
                run_trampoline,
                parse_trampoline,
                index as *mut c_void,
            )
        };
    }
}

/// # Safety
/// `ptr` must be valid for `len` bytes.
unsafe fn str_from_raw<'a>(ptr: *const c_char, len: usize) -> std::borrow::Cow<'a, str> {
    if len == 0 {
        return std::borrow::Cow::Borrowed("");
    }
    // SAFETY: the caller guarantees the range is readable.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    String::from_utf8_lossy(bytes)
}

unsafe extern "C" fn parse_trampoline(
    data: *mut c_void,
    params: *const c_char,
    params_len: usize,
    err: *mut c_char,
    err_cap: usize,
) -> bool {
    let pass = PASSES[data as usize];
    // SAFETY: the shim passes the parameter text's bytes.
    let params = unsafe { str_from_raw(params, params_len) };
    match catch_unwind(AssertUnwindSafe(|| pass.parse_params(&params))) {
        Ok(Ok(())) => true,
        Ok(Err(msg)) => {
            let n = msg.len().min(err_cap.saturating_sub(1));
            // SAFETY: err has err_cap writable bytes; n + 1 <= err_cap.
            unsafe {
                std::ptr::copy_nonoverlapping(msg.as_ptr(), err.cast::<u8>(), n);
                *err.add(n) = 0;
            }
            false
        }
        Err(_) => false,
    }
}

unsafe extern "C" fn run_trampoline(
    data: *mut c_void,
    params: *const c_char,
    params_len: usize,
    module: LLVMModuleRef,
    mam: *mut ffi::CgModuleAM,
) -> bool {
    let pass = PASSES[data as usize];
    // SAFETY: the shim passes the parameter text's bytes.
    let params = unsafe { str_from_raw(params, params_len) };
    if params != crate::pass::LTO_PRELINK {
        print_env_warnings();
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the shim passes the module being run and its analysis
        // manager, both live until the pass returns.
        let cx = unsafe { ModuleContext::new(module, mam) };
        pass.run(&cx, &params)
    }));
    match result {
        Ok(changed) => changed,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            context::diagnose(
                module,
                None,
                Severity::Error,
                &format!("internal error in pass '{}': {what}; please report it with the input IR", pass.name()),
            );
            // The IR may be half rewritten: say it changed so nothing stale
            // is trusted; the error stops the compilation.
            true
        }
    }
}
