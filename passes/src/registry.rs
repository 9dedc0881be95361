//! The pass registry: every Rust module pass the plugin provides, and so
//! every option.
//!
//! A pass is a `static` value implementing [`ModulePass`], listed in
//! [`PASSES`]. The plugin registers each one with the host's
//! `llvm::PassBuilder` (see [`crate::plugin`]): by name for
//! `-passes=<name>` / `-passes=<name><params>`, and, as its
//! [`crate::pass::Schedule`] asks, at the end of the default optimizer
//! pipeline and of the full-LTO link pipeline. Passes scheduled at the same
//! extension point run in the order of [`PASSES`]. Each pass owns its
//! options ([`ModulePass::options`]); the shim registers them all, in the
//! order of [`PASSES`], when the plugin is loaded
//! ([`copiergen_rust_options`]).

use crate::ffi;
use crate::options::{self, PluginOption};
use crate::pass::ModulePass;

/// Every pass of the plugin, in the order they run at a shared extension
/// point. The CopierSanitizer instrumentation goes after CopierGen so that
/// it sees the `amemcpy`/`csync` calls CopierGen placed.
pub static PASSES: &[&dyn ModulePass] = &[
    &crate::copiergen::CopierGen,
    &crate::sanitizer::CopierSanitizer,
];

/// Every option of every pass, in registration order.
pub fn all_options() -> Vec<&'static PluginOption> {
    PASSES.iter().flat_map(|p| p.options().iter().copied()).collect()
}

/// Called by the shim's static initializer when the plugin is loaded: the
/// option table to register ([`all_options`], installed as the table
/// [`PluginOption`]s read their values from).
///
/// # Safety
/// `count` must be valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn copiergen_rust_options(count: *mut usize) -> *const ffi::CgOptionDesc {
    let descs = options::install(all_options());
    // SAFETY: the caller guarantees `count` is writable.
    unsafe { *count = descs.len() };
    descs.as_ptr()
}

#[cfg(test)]
mod tests {
    use crate::copiergen::options::{GUARD_CALLEES, MAX_NARROW, THRESHOLD, WINDOW};
    use crate::options::apply_text;

    #[test]
    fn every_option_is_registered_once_in_pass_order() {
        let names: Vec<&str> = super::all_options().iter().map(|o| o.name).collect();
        assert_eq!(names.first(), Some(&"copiergen-threshold"));
        assert_eq!(&names[names.len() - 3..], ["copier-sanitizer", "copier-sanitizer-recover", "copier-sanitizer-check-windows"]);
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
    }

    // The unit-test binary links LLVM, so the shim's static initializer has
    // registered every pass's options as real cl::opts.
    #[test]
    fn environment_text_sets_options_and_reports_bad_tokens() {
        assert_eq!(THRESHOLD.uint(), copier_abi::DEFAULT_THRESHOLD as u64);
        let errors = apply_text("-copiergen-threshold=4096 -copiergen-window=false -copiergen-nope -copiergen-max-queries=x");
        assert_eq!(THRESHOLD.uint(), 4096);
        assert!(!WINDOW.bool());
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("unknown option '-copiergen-nope'"));
        assert_eq!(errors[1], "COPIERGEN_OPTIONS: bad value 'x' for option '-copiergen-max-queries' (expected an unsigned integer); ignored");
    }

    /// Trial finding: `COPIERGEN_OPTIONS=-copiergen-threshold=abc` reached
    /// LLVM's parser, which printed a second, nameless line (`: for the
    /// --copiergen-threshold option: …`). Values are checked first, as LLVM
    /// would parse them; rejected ones leave the option unchanged.
    #[test]
    fn values_are_checked_before_llvm_sees_them() {
        let before = MAX_NARROW.uint();
        let errors = apply_text("-copiergen-max-narrow=abc -copiergen-guard-callees=maybe");
        assert_eq!(MAX_NARROW.uint(), before);
        assert!(GUARD_CALLEES.bool());
        assert_eq!(errors, [
            "COPIERGEN_OPTIONS: bad value 'abc' for option '-copiergen-max-narrow' (expected an unsigned integer); ignored",
            "COPIERGEN_OPTIONS: bad value 'maybe' for option '-copiergen-guard-callees' (expected true or false (1 or 0)); ignored",
        ]);
        assert!(apply_text("-copiergen-max-narrow=0x20").is_empty());
        assert_eq!(MAX_NARROW.uint(), 32);
    }

    /// Trial finding: a bare numeric option was reported as "bad value
    /// 'true'", a value the user never wrote. A bare flag still means true.
    #[test]
    fn a_bare_option_that_needs_a_value_says_so() {
        let before = MAX_NARROW.uint();
        let errors = apply_text("-copiergen-max-narrow -copiergen-guard-callees");
        assert_eq!(MAX_NARROW.uint(), before);
        assert!(GUARD_CALLEES.bool());
        assert_eq!(errors, ["COPIERGEN_OPTIONS: option '-copiergen-max-narrow' needs a value ('-copiergen-max-narrow=N'); ignored"]);
    }
}
