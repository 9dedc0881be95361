//! What a pass of the plugin is: the [`ModulePass`] trait and where it runs
//! ([`Schedule`]). A leaf module: passes implement the trait, the registry
//! ([`crate::registry`]) lists them.

use crate::context::ModuleContext;
use crate::options::PluginOption;

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
    /// At the end of an -flto compile's pipeline (phases `FullLTOPreLink`
    /// and `ThinLTOPreLink`), with the parameters [`LTO_PRELINK`]: the
    /// module is rewritten after the link, so this run only records what
    /// the link must know (libcopier names the module defines before LTO
    /// internalizes them).
    pub lto_prelink: bool,
}

/// The parameters of a [`Schedule::lto_prelink`] run.
pub const LTO_PRELINK: &str = crate::ffi::CG_LTO_PRELINK_PARAMS;

impl Schedule {
    /// Only on request (`-passes=<name>`).
    pub const EXPLICIT_ONLY: Schedule = Schedule { optimizer_last: false, full_lto_last: false, lto_prelink: false };
    /// At the end of every default pipeline, compile time and link time.
    pub const PIPELINE_END: Schedule = Schedule { optimizer_last: true, full_lto_last: true, lto_prelink: false };
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

    /// The command-line options the pass owns (names prefixed with the
    /// pass's name), registered with the host when the plugin loads.
    fn options(&self) -> &'static [&'static PluginOption] {
        &[]
    }
}
