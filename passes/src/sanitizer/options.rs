//! CopierSanitizer's options (prefix `copier-sanitizer-`) and the
//! environment variable that schedules the pass.

use crate::options::{OptionDefault, PluginOption};

/// Environment variable that schedules the pass (`copiergen cc --sanitize`).
pub const ENV_SANITIZE: &str = "COPIERGEN_SANITIZE";

/// `-copier-sanitizer`: run the instrumentation at the end of the default
/// pipelines (like `COPIERGEN_SANITIZE=1`).
pub static ENABLE: PluginOption = PluginOption {
    name: "copier-sanitizer",
    help: "Instrument for CopierSanitizer at the end of the default pipelines (also COPIERGEN_SANITIZE=1)",
    default: OptionDefault::Bool(false),
};

/// `-copier-sanitizer-recover`: call the `_noabort` checks (the program
/// continues after every report). Overridden by `copier-sanitizer<recover>`.
pub static RECOVER: PluginOption = PluginOption {
    name: "copier-sanitizer-recover",
    help: "Call the _noabort checks: the program continues after a CopierSanitizer report",
    default: OptionDefault::Bool(false),
};

/// `-copier-sanitizer-check-windows`: keep the checks of accesses inside a
/// runtime ready window (`windows.rs`), for A/B runs and for finding a
/// window the runtime returned too wide.
pub static CHECK_WINDOWS: PluginOption = PluginOption {
    name: "copier-sanitizer-check-windows",
    help: "Check accesses inside a ready window the runtime returned (skipped by default: the window is clear)",
    default: OptionDefault::Bool(false),
};

/// The pass's options, in registration order.
pub static OPTIONS: &[&PluginOption] = &[&ENABLE, &RECOVER, &CHECK_WINDOWS];

/// True when the pass runs from the default pipelines (`-copier-sanitizer`
/// or [`ENV_SANITIZE`]).
pub(crate) fn enabled() -> bool {
    crate::options::env_flag(ENV_SANITIZE) || ENABLE.bool()
}
