//! The `copiergen` command: builds C, C++ and Rust programs through the
//! CopierGen pass plugin (`libcopiergen.so`) and links libcopier, so their
//! large copies become `amemcpy` + `csync`.
//!
//! Entry points: `copiergen cc|c++ <clang arguments>` (also the executables
//! `copiergen-cc`, `copiergen-cxx` and, installed as symlinks,
//! `copiergen-c++`, for build systems that want one path as the compiler),
//! `copiergen opt`, `copiergen cargo`, `copiergen mlir`, `copiergen install`,
//! `copiergen report`, `copiergen print`.
//! See `copiergen --help`.

pub mod args;
pub mod cargo;
pub mod cc;
pub mod error;
pub mod install;
pub mod link_names;
pub mod mlir;
pub mod opt;
pub mod options;
pub mod report;
pub mod resources;
pub mod tools;

use std::ffi::OsString;
use std::process::Command;

use clap::{Parser, Subcommand};

pub use cc::Lang;
use error::Error;
use options::CopierOpts;

/// copiergen: build C, C++ and Rust programs so that their large memory
/// copies run asynchronously on Copier (memcpy → amemcpy + csync).
#[derive(Parser, Debug)]
#[command(name = "copiergen", version, about, long_about = None)]
#[command(after_help = "Resources are found next to the executable (cargo layout target/<profile>/ \
or install layout <prefix>/bin); override with COPIERGEN_PLUGIN (file), COPIER_LIB_DIR and \
COPIER_INCLUDE_DIR (directories). Tools: COPIERGEN_CLANG, COPIERGEN_CLANGXX, COPIERGEN_OPT, CARGO. \
Extra wrapper options for whole builds: COPIERGEN_FLAGS=\"--copier-…\".")]
pub struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Compile and link C like clang-22 (every clang argument passes through),
    /// with the pass plugin, copier.h and libcopier added.
    Cc(WrapperArgs),
    /// Compile and link C++ like clang++-22, with the pass plugin, copier.h and libcopier.
    #[command(name = "c++", alias = "cxx")]
    Cxx(WrapperArgs),
    /// Run the CopierGen passes on LLVM IR (.ll or .bc) through opt-22.
    Opt(opt::OptArgs),
    /// Run cargo so the crate is built through the plugin (linker-plugin LTO
    /// with lld) and linked with libcopier.so; adds --target <host>.
    Cargo(WrapperArgs),
    /// Rewrite memref copies of an MLIR file into asynchronous copies with
    /// waits (runs copiergen-mlir; `copiergen mlir --help` for its options).
    #[command(disable_help_flag = true)]
    Mlir(WrapperArgs),
    /// Install copiergen, its compiler entry points, the plugin, libcopier and
    /// copier.h under a prefix (bin/, lib/, include/).
    Install(install::InstallArgs),
    /// Print the per-site table (copies, bytes, async share, windows, waits,
    /// state) of stats files written by programs built with copiergen.
    Report(report::ReportArgs),
    /// Print a resource path or flag set, for scripts.
    Print {
        /// What to print.
        #[arg(value_enum)]
        what: PrintWhat,
    },
}

/// Options of a wrapper; the wrapped tool's arguments follow.
#[derive(clap::Args, Debug)]
struct WrapperArgs {
    #[command(flatten)]
    opts: CopierOpts,
    /// Arguments for the wrapped tool (clang or cargo), passed through unchanged.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
    rest: Vec<OsString>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum PrintWhat {
    /// The pass plugin file.
    Plugin,
    /// The directory holding libcopier.{a,so}.
    LibDir,
    /// The directory holding copier.h.
    IncludeDir,
    /// RUSTFLAGS (space-separated) equivalent to `copiergen cargo`, without --target.
    Rustflags,
}

/// Render a command for `--copier-verbose`.
pub fn show_command(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            s.push_str(&format!("{}={} ", k.to_string_lossy(), v.to_string_lossy()));
        }
    }
    s.push_str(&cmd.get_program().to_string_lossy());
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

fn fail(e: &Error) -> i32 {
    eprintln!("copiergen: error: {e}");
    e.exit_code()
}

/// Run a compiler wrapper on its raw arguments; returns the exit code on failure
/// (on success the process has become clang).
pub fn run_wrapper(lang: Lang, args: &[OsString]) -> i32 {
    let (ours, theirs) = options::split_copier_args(args);
    let opts = match options::parse_copier_opts(lang.wrapper(), &ours) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    if opts.copier_help {
        print!("{}", options::copier_help(lang.wrapper(), subcommand_about(lang.wrapper())));
        return 0;
    }
    fail(&cc::run(lang, &theirs, &opts))
}

fn run_cargo(args: &[OsString]) -> i32 {
    let (ours, theirs) = options::split_copier_args(args);
    let opts = match options::parse_copier_opts("copiergen cargo", &ours) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    if opts.copier_help {
        print!("{}", options::copier_help("copiergen cargo", subcommand_about("copiergen cargo")));
        return 0;
    }
    fail(&cargo::run(&theirs, &opts))
}

/// The description `copiergen help <sub>` shows for a wrapper
/// (`copiergen cc` → the `cc` subcommand's).
fn subcommand_about(wrapper: &str) -> Option<clap::builder::StyledStr> {
    use clap::CommandFactory;
    let name = wrapper.rsplit(' ').next()?;
    Cli::command().find_subcommand(name).and_then(|c| c.get_about().cloned())
}

/// Which wrapper an executable name selects (`copiergen-cc`, `copiergen-c++`, …).
pub fn lang_for_program(argv0: &std::ffi::OsStr) -> Option<Lang> {
    let name = std::path::Path::new(argv0).file_name()?.to_str()?;
    match name {
        "copiergen-cc" | "copiergen-clang" => Some(Lang::C),
        "copiergen-c++" | "copiergen-cxx" | "copiergen-clang++" => Some(Lang::Cxx),
        _ => None,
    }
}

/// Exit code of an internal error (a bug in copiergen, or stdout closed
/// under a `print`): one line on stderr, no backtrace.
pub const EXIT_INTERNAL: i32 = 70;

/// Replace Rust's panic report with one line and [`EXIT_INTERNAL`], so no
/// backtrace or "run with RUST_BACKTRACE" hint ever reaches a build log.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("copiergen: internal error: {msg}{at}; please report it");
        std::process::exit(EXIT_INTERNAL);
    }));
}

/// copiergen's `main`: dispatch on the program name, then on the subcommand.
/// Returns the process exit code.
pub fn main_with(argv: Vec<OsString>) -> i32 {
    if let Some(lang) = argv.first().and_then(|a| lang_for_program(a)) {
        return run_wrapper(lang, &argv[1..]);
    }
    // The wrappers bypass clap so that clang's own `--help`, `-v` etc. pass
    // through; `copiergen help cc` documents them.
    match argv.get(1).and_then(|a| a.to_str()) {
        Some("cc") => return run_wrapper(Lang::C, &argv[2..]),
        Some("c++") | Some("cxx") => return run_wrapper(Lang::Cxx, &argv[2..]),
        Some("cargo") => return run_cargo(&argv[2..]),
        // The MLIR front end parses its own options (`copiergen mlir --help`).
        Some("mlir") => return fail(&mlir::run(&argv[2..])),
        _ => {}
    }
    let cli = match Cli::try_parse_from(&argv) {
        Ok(c) => c,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // Bare `copiergen`: the usage and the subcommands are the answer.
            let _ = e.print();
            return error::EXIT_USAGE;
        }
        Err(e) if e.use_stderr() => {
            return fail(&Error::Usage(options::clap_one_line(&e.render().to_string(), true)));
        }
        Err(e) => {
            // --help, --version: clap's output on stdout.
            let _ = e.print();
            return e.exit_code();
        }
    };
    let result = match cli.command {
        Cmd::Cc(w) | Cmd::Cxx(w) | Cmd::Cargo(w) | Cmd::Mlir(w) => {
            // Reached only through global options before the subcommand.
            let _ = w;
            Err(Error::Usage("put `cc`, `c++` or `cargo` first: copiergen cc <clang arguments>".into()))
        }
        Cmd::Opt(a) => opt::run(&a),
        Cmd::Install(a) => install::run(&a).map(|()| 0),
        Cmd::Report(a) => report::run(&a),
        Cmd::Print { what } => print(what).map(|()| 0),
    };
    match result {
        Ok(code) => code,
        Err(e) => fail(&e),
    }
}

fn print(what: PrintWhat) -> Result<(), Error> {
    let layout = resources::Layout::from_current_exe();
    match what {
        PrintWhat::Plugin => println!("{}", layout.plugin()?.display()),
        PrintWhat::LibDir => println!("{}", layout.lib_dir_with("libcopier.a")?.display()),
        PrintWhat::IncludeDir => println!("{}", layout.include_dir()?.display()),
        PrintWhat::Rustflags => println!("{}", cargo::rustflags(&layout, &CopierOpts::default())?.join(" ")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_name_selects_wrapper() {
        assert_eq!(lang_for_program("/usr/bin/copiergen-cc".as_ref()), Some(Lang::C));
        assert_eq!(lang_for_program("copiergen-c++".as_ref()), Some(Lang::Cxx));
        assert_eq!(lang_for_program("target/release/copiergen-cxx".as_ref()), Some(Lang::Cxx));
        assert_eq!(lang_for_program("copiergen".as_ref()), None);
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
