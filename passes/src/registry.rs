//! The pass registry: every Rust module pass the plugin provides.
//!
//! A pass is a `static` value implementing [`ModulePass`], listed in
//! [`PASSES`]. The plugin registers each one with the host's
//! `llvm::PassBuilder` (see [`crate::plugin`]): by name for
//! `-passes=<name>` / `-passes=<name><params>`, and, as its [`Schedule`]
//! asks, at the end of the default optimizer pipeline and of the full-LTO
//! link pipeline. Passes scheduled at the same extension point run in the
//! order of [`PASSES`].

use crate::context::ModuleContext;

/// Where a pass runs besides an explicit `-passes=<name>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// At the end of the default optimizer pipeline, phases `None` and
    /// `ThinLTOPostLink` (`registerOptimizerLastEPCallback`): `clang-22
    /// -fpass-plugin=` at -O0 ... -O3, and ThinLTO backends.
    pub optimizer_last: bool,
    /// At the end of the full-LTO link pipeline
    /// (`registerFullLinkTimeOptimizationLastEPCallback`): `ld.lld-22
    /// --load-pass-plugin=` with `-flto`, and rustc `-C linker-plugin-lto`.
    pub full_lto_last: bool,
}

impl Schedule {
    /// Only on request (`-passes=<name>`).
    pub const EXPLICIT_ONLY: Schedule = Schedule { optimizer_last: false, full_lto_last: false };
    /// At the end of every default pipeline, compile time and link time.
    pub const PIPELINE_END: Schedule = Schedule { optimizer_last: true, full_lto_last: true };
}

/// A module pass written in Rust.
pub trait ModulePass: Sync {
    /// Pipeline name, e.g. `copiergen` (`opt-22 -passes=copiergen`).
    fn name(&self) -> &'static str;

    /// Where the pass runs automatically.
    fn schedule(&self) -> Schedule;

    /// Checks the parameters of `-passes=<name><params>` (the text between
    /// the angle brackets, empty without them) when the pipeline is parsed.
    ///
    /// # Errors
    /// A message naming the bad parameter; the host then rejects the
    /// pipeline.
    fn parse_params(&self, params: &str) -> Result<(), String> {
        if params.is_empty() {
            Ok(())
        } else {
            Err(format!("{} takes no parameters", self.name()))
        }
    }

    /// Runs the pass on a module; `params` passed [`Self::parse_params`].
    /// Returns whether the module changed. A pass reports malformed input
    /// with [`ModuleContext::diagnose`] rather than panicking; a panic is
    /// caught and reported as an error diagnostic.
    fn run(&self, module: &ModuleContext<'_>, params: &str) -> bool;
}

/// Every pass of the plugin, in the order they run at a shared extension
/// point. The CopierSanitizer instrumentation goes after CopierGen so that
/// it sees the `amemcpy`/`csync` calls CopierGen placed.
pub static PASSES: &[&dyn ModulePass] = &[
    &crate::copiergen::CopierGen,
    &crate::sanitizer::CopierSanitizer,
];
