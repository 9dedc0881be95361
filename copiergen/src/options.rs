//! copiergen's own options, shared by `cc`, `c++` and `cargo`.
//!
//! They all start with `--copier-` (or are `--sanitize`), a prefix clang and
//! cargo do not use, so they can be mixed freely with the wrapped tool's
//! arguments: [`split_copier_args`] takes them out, clap parses them, and the
//! rest passes through unchanged. `COPIERGEN_FLAGS` (whitespace-separated)
//! adds options for builds whose compiler command cannot be changed; options
//! on the command line are applied after it.

use std::ffi::OsString;

use clap::{Args, CommandFactory, FromArgMatches, Parser};

use crate::error::Error;

/// Environment variable with extra copiergen options (whitespace-separated).
pub const ENV_FLAGS: &str = "COPIERGEN_FLAGS";
/// Environment variable equivalent to `--copier-shared` when true
/// (see [`parse_bool`]).
pub const ENV_SHARED: &str = "COPIERGEN_SHARED";

/// A boolean environment value (`1`/`true`/`yes`/`on`, `0`/`false`/`no`/
/// `off`/empty; `None` otherwise), as the plugin reads its own.
pub use copier_abi::parse_bool;

/// Read boolean environment variable `name` (see [`parse_bool`]): unset is
/// false; a value that is not a boolean is false with a one-line warning,
/// returned as the `Err`.
pub fn env_bool(name: &str) -> Result<bool, String> {
    let Some(v) = std::env::var_os(name) else { return Ok(false) };
    let text = v.to_string_lossy();
    parse_bool(&text).ok_or_else(|| {
        format!("{name}='{text}' is not a boolean (1, true, yes, on or 0, false, no, off, empty); taken as unset")
    })
}

/// Parse a size in bytes for `--copier-threshold`: decimal digits with an
/// optional `k`, `m` or `g` suffix (either case, binary units: `16k` is
/// 16384), the parser the runtime's `COPIER_OPTIONS` sizes and the
/// plugin's `-copiergen-threshold` use (`copier_abi::parse_size`; the
/// crate's tests compare the two).
///
/// # Errors
/// A message naming the accepted syntax.
pub fn parse_size(s: &str) -> Result<u64, String> {
    copier_abi::parse_size(s)
        .map(|v| v as u64)
        .ok_or_else(|| format!("expected {}, got '{s}'", copier_abi::size_expected(s)))
}

/// How copiergen passes its options to the pass plugin.
///
/// The plugin's options are LLVM `cl::opt`s named `copiergen-*`
/// (passes/src/copiergen/options.rs). clang's cc1 and opt parse them after loading the
/// plugin (`-Xclang -mllvm -Xclang -copiergen-threshold=N`,
/// `-copiergen-threshold=N`; clang's integrated assembler never loads it), but
/// ld.lld parses `-mllvm` before it loads plugins, so for LTO links (and
/// rustc) the plugin also reads them from [`plugin_env::OPTIONS`].
pub mod plugin_env {
    /// Whitespace-separated plugin options (`-copiergen-threshold=4096 …`),
    /// applied by the plugin to every option not given on its command line.
    pub const OPTIONS: &str = "COPIERGEN_OPTIONS";
    /// Plugin options `--sanitize` adds. Hook for the CopierSanitizer work:
    /// put the option that enables its instrumentation pass here (prefix
    /// `copier-sanitizer-`); the runtime archive already switches to
    /// `libcopier_san.a`.
    pub const SANITIZE_OPTIONS: &[&str] = &["-copier-sanitizer"];

    /// The value of [`OPTIONS`] for a child process: the inherited value
    /// followed by `extra` (which therefore wins for options it repeats).
    pub fn options_value(extra: &[String]) -> Option<std::ffi::OsString> {
        if extra.is_empty() {
            return None;
        }
        let mut v = std::env::var_os(OPTIONS).unwrap_or_default();
        for e in extra {
            if !v.is_empty() {
                v.push(" ");
            }
            v.push(e);
        }
        Some(v)
    }
}

impl CopierOpts {
    /// Plugin options (`-copiergen-…`) these wrapper options ask for.
    pub fn plugin_options(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(t) = self.threshold {
            v.push(format!("-copiergen-threshold={t}"));
        }
        if self.sanitize {
            v.extend(plugin_env::SANITIZE_OPTIONS.iter().map(|s| s.to_string()));
        }
        v
    }
}

/// Options of `copiergen cc`, `copiergen c++` and `copiergen cargo`.
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct CopierOpts {
    /// Rewrite constant-length copies of at least BYTES bytes (default: the
    /// runtime's inline threshold, copier_abi::DEFAULT_THRESHOLD). Copies of
    /// unknown length are rewritten whatever this says. Passed to the plugin in
    /// COPIERGEN_OPTIONS (also read inside lld at LTO links, which parses -mllvm
    /// before loading plugins) and, to clang's compile jobs only (never to the
    /// assembler of .s/.S inputs), as -Xclang -mllvm -Xclang
    /// -copiergen-threshold=BYTES; only on lines where the plugin is loaded.
    /// Takes k, m, g suffixes (16k), as COPIER_OPTIONS sizes.
    #[arg(long = "copier-threshold", value_name = "BYTES", value_parser = parse_size)]
    pub threshold: Option<u64>,

    /// Do not load the pass plugin; still add copier.h and link libcopier, so
    /// the build differs from a plugin build only by the rewrite (an A/B
    /// baseline).
    #[arg(long = "copier-no-rewrite")]
    pub no_rewrite: bool,

    /// Print LLVM remarks: each rewritten copy and placed csync
    /// (-Rpass=copiergen) and why a copy stayed synchronous
    /// (-Rpass-missed=copiergen); at LTO links through lld's -pass-remarks.
    #[arg(long = "copier-remarks")]
    pub remarks: bool,

    /// Link libcopier.so (with an rpath to its directory) instead of the
    /// static libcopier.a. Also enabled by COPIERGEN_SHARED=1 (or true,
    /// yes, on). Refused with --sanitize, whose runtime is static only.
    #[arg(long = "copier-shared")]
    pub shared: bool,

    /// Print the command copiergen runs to stderr first.
    #[arg(long = "copier-verbose")]
    pub verbose: bool,

    /// Build for CopierSanitizer: link libcopier_san.a instead of libcopier.a
    /// and ask the plugin to instrument.
    #[arg(long = "sanitize", alias = "copier-sanitize")]
    pub sanitize: bool,

    /// Print these options and exit (`--help` itself goes to the wrapped tool).
    #[arg(long = "copier-help")]
    pub copier_help: bool,
}

/// Whether `arg` is one of copiergen's own options (see module docs).
fn is_copier_arg(arg: &OsString) -> bool {
    let s = arg.as_encoded_bytes();
    s.starts_with(b"--copier-") || s == b"--sanitize"
}

/// Options of copiergen's that take a value and may give it as the next
/// argument (`--copier-threshold 4096`).
const VALUE_OPTIONS: &[&str] = &["--copier-threshold"];

/// Split `args` into copiergen's options and the wrapped tool's arguments,
/// keeping each group's order. Arguments after a bare `--` belong to the
/// wrapped tool (for cargo: to the program it runs) and are never taken.
pub fn split_copier_args(args: &[OsString]) -> (Vec<OsString>, Vec<OsString>) {
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            theirs.extend_from_slice(&args[i..]);
            break;
        }
        if is_copier_arg(a) {
            ours.push(a.clone());
            if VALUE_OPTIONS.iter().any(|v| a == v) && i + 1 < args.len() {
                ours.push(args[i + 1].clone());
                i += 1;
            }
        } else {
            theirs.push(a.clone());
        }
        i += 1;
    }
    (ours, theirs)
}

// Standalone parser for `CopierOpts`, named after the wrapper for messages
// (a plain comment: a doc comment here would become its `--copier-help` text).
#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true, disable_version_flag = true)]
#[command(args_override_self = true)]
struct OptsOnly {
    #[command(flatten)]
    opts: CopierOpts,
}

/// Parse copiergen's options taken out of a wrapper command line, after those
/// of `COPIERGEN_FLAGS`.
///
/// # Errors
/// [`Error::Usage`] with clap's one-line message (unknown `--copier-` option,
/// with a suggestion; bad value).
pub fn parse_copier_opts(wrapper: &'static str, ours: &[OsString]) -> Result<CopierOpts, Error> {
    let env = std::env::var(ENV_FLAGS).unwrap_or_default();
    let mut all: Vec<OsString> = env.split_whitespace().map(OsString::from).collect();
    if !all.is_empty() {
        env_flags_ok(wrapper, &env, &all)?;
    }
    all.extend_from_slice(ours);
    let cmd = OptsOnly::command().name(wrapper);
    let usage = |e: clap::Error| Error::Usage(clap_one_line(&e.render().to_string(), false));
    let matches = cmd.try_get_matches_from(&all).map_err(usage)?;
    let mut opts = OptsOnly::from_arg_matches(&matches).map_err(usage)?.opts;
    match env_bool(ENV_SHARED) {
        Ok(on) => opts.shared |= on,
        Err(warning) => eprintln!("copiergen: warning: {warning}"),
    }
    Ok(opts)
}

/// Check `COPIERGEN_FLAGS` (`env`, split into `words`) alone, so that an
/// error names it: it takes `--copier-*` options only.
///
/// # Errors
/// [`Error::Usage`] naming the variable and the word it cannot take.
fn env_flags_ok(wrapper: &'static str, env: &str, words: &[OsString]) -> Result<(), Error> {
    let hint = "it takes copiergen's own options (--copier-*, --sanitize) only; compiler flags go on the command line";
    let cmd = OptsOnly::command();
    let ours = |w: &str| {
        w.strip_prefix("--").is_some_and(|l| {
            let l = l.split('=').next().unwrap_or(l);
            l.starts_with("copier") || cmd.get_arguments().any(|a| a.get_long() == Some(l))
        })
    };
    if let Some(w) = words.iter().filter_map(|w| w.to_str()).find(|w| w.starts_with('-') && !ours(w)) {
        return Err(Error::Usage(format!("{ENV_FLAGS}=\"{}\": '{w}' is not a copiergen option ({hint})", env.trim())));
    }
    OptsOnly::command()
        .name(wrapper)
        .try_get_matches_from(words)
        .map(drop)
        .map_err(|e| Error::Usage(format!("{ENV_FLAGS}=\"{}\": {}", env.trim(), clap_one_line(&e.render().to_string(), false))))
}

/// Help text of copiergen's wrapper options (for `--copier-help`): the
/// subcommand's description from `copiergen --help`, then the options.
pub fn copier_help(wrapper: &'static str, about: Option<clap::builder::StyledStr>) -> String {
    let cmd = OptsOnly::command().name(wrapper);
    let cmd = match about {
        Some(a) => cmd.about(a),
        None => cmd,
    };
    cmd
        .override_usage(format!("{wrapper} [--copier-* options] <arguments of the wrapped tool>…"))
        .render_help()
        .to_string()
}

/// A clap error as one line, without its `error: ` prefix: the message with
/// the argument names clap lists under it (`the following required
/// arguments were not provided: -o <OUT>`), clap's `tip:` (it names the
/// likely intended option or value) and, if `with_usage`, the usage line.
pub fn clap_one_line(rendered: &str, with_usage: bool) -> String {
    let mut message: Vec<&str> = Vec::new();
    let mut tips: Vec<&str> = Vec::new();
    let mut usage: Vec<&str> = Vec::new();
    let mut section = 0; // 0: message, 1: after it, 2: in the usage paragraph
    for line in rendered.lines().map(str::trim) {
        if line.is_empty() {
            if section == 0 && !message.is_empty() || section == 2 {
                section = 1;
            }
            continue;
        }
        if let Some(tip) = line.strip_prefix("tip: ") {
            tips.push(tip);
        } else if let Some(u) = line.strip_prefix("Usage: ") {
            usage.push(u);
            section = 2;
        } else if section == 2 {
            usage.push(line);
        } else if section == 0 {
            message.push(line.strip_prefix("error: ").unwrap_or(line));
        }
    }
    let mut out = message.join(" ");
    if out.ends_with(':') && message.len() == 1 {
        out.pop();
    }
    for t in tips {
        out.push_str(&format!(" ({t})"));
    }
    if with_usage && !usage.is_empty() {
        out.push_str(&format!(" (usage: {})", usage.join(" ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn copier_options_are_taken_out_anywhere_and_rest_keeps_order() {
        let (ours, theirs) =
            split_copier_args(&os(&["-O2", "--copier-threshold", "64", "-c", "a.c", "--copier-remarks", "-o", "a.o"]));
        assert_eq!(ours, os(&["--copier-threshold", "64", "--copier-remarks"]));
        assert_eq!(theirs, os(&["-O2", "-c", "a.c", "-o", "a.o"]));
    }

    #[test]
    fn arguments_after_double_dash_are_never_taken() {
        let (ours, theirs) = split_copier_args(&os(&["run", "--", "--copier-remarks"]));
        assert!(ours.is_empty());
        assert_eq!(theirs, os(&["run", "--", "--copier-remarks"]));
    }

    #[test]
    fn parses_values_and_flags() {
        let o = parse_copier_opts("copiergen cc", &os(&["--copier-threshold=1", "--copier-no-rewrite", "--sanitize"])).unwrap();
        assert_eq!(o.threshold, Some(1));
        assert!(o.no_rewrite && o.sanitize && !o.remarks);
    }

    #[test]
    fn unknown_and_bad_options_are_usage_errors_with_one_line() {
        let e = parse_copier_opts("copiergen cc", &os(&["--copier-treshold=4"])).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Usage(_)));
        assert!(msg.contains("--copier-treshold") && msg.contains("--copier-threshold"), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
        let e = parse_copier_opts("copiergen cc", &os(&["--copier-threshold=lots"])).unwrap_err();
        assert!(e.to_string().contains("lots"), "{e}");
    }

    /// Trial finding: `COPIERGEN_SHARED=true` or `=yes` was silently taken
    /// as unset; only `1` worked.
    #[test]
    fn boolean_environment_values() {
        for t in ["1", "true", "TRUE", "yes", "Yes", "on", " on "] {
            assert_eq!(parse_bool(t), Some(true), "{t}");
        }
        for f in ["0", "false", "no", "off", "OFF", ""] {
            assert_eq!(parse_bool(f), Some(false), "{f}");
        }
        for bad in ["2", "y", "enable", "1 0"] {
            assert_eq!(parse_bool(bad), None, "{bad}");
        }
    }

    /// Trial finding: `--copier-threshold=16k` was rejected although the
    /// runtime's `COPIER_OPTIONS` sizes take k/m/g suffixes.
    #[test]
    fn threshold_takes_the_runtime_size_syntax() {
        for (text, bytes) in [("16k", 16384), ("16K", 16384), ("1m", 1 << 20), ("2G", 2u64 << 30), ("4096", 4096), ("0", 0)] {
            let o = parse_copier_opts("copiergen cc", &os(&[&format!("--copier-threshold={text}")])).unwrap();
            assert_eq!(o.threshold, Some(bytes), "{text}");
        }
        let o = parse_copier_opts("copiergen cc", &os(&["--copier-threshold", "64k"])).unwrap();
        assert_eq!(o.threshold, Some(65536));
        for bad in ["16kb", "k", "-1", "1.5k", "0x10"] {
            let e = parse_copier_opts("copiergen cc", &os(&[&format!("--copier-threshold={bad}")])).unwrap_err();
            assert!(matches!(e, Error::Usage(_)) && e.to_string().contains("k, m or g suffix"), "{bad}: {e}");
        }
        let e = parse_copier_opts("copiergen cc", &os(&["--copier-threshold=99999999999999999999g"])).unwrap_err();
        assert!(matches!(e, Error::Usage(_)) && e.to_string().contains("fits in 64 bits"), "{e}");
    }

    /// The copy of the runtime's size parser agrees with it on every input
    /// shape: digits, suffixes of either case, whitespace, signs, overflow.
    #[test]
    fn size_parser_matches_the_runtime() {
        let mut inputs: Vec<String> = Vec::new();
        for num in ["", "0", "1", "16", "007", "+4", "-4", " 8", "1.5", "18446744073709551615", "18446744073709551616", "17179869184"] {
            for suffix in ["", "k", "K", "m", "M", "g", "G", "b", "kb", "t", " ", "k "] {
                inputs.push(format!("{num}{suffix}"));
            }
        }
        for i in inputs {
            let ours = parse_size(&i).ok();
            let runtime = copier_adapter::config::parse_size(&i).map(|v| v as u64);
            assert_eq!(ours, runtime, "'{i}'");
        }
    }

    #[test]
    fn clap_errors_become_one_line_with_argument_names_tip_and_usage() {
        let missing = "error: the following required arguments were not provided:\n  -o <OUT>\n  <INPUT>\n\n\
            Usage: copiergen opt -o <OUT> <INPUT>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            clap_one_line(missing, true),
            "the following required arguments were not provided: -o <OUT> <INPUT> (usage: copiergen opt -o <OUT> <INPUT>)"
        );
        assert_eq!(clap_one_line(missing, false), "the following required arguments were not provided: -o <OUT> <INPUT>");
        let unknown = "error: unexpected argument '--x' found\n\n  tip: a similar argument exists: '--y'\n\n\
            Usage: copiergen cc [OPTIONS]\n\nFor more information, try '--help'.\n";
        assert_eq!(clap_one_line(unknown, false), "unexpected argument '--x' found (a similar argument exists: '--y')");
    }

    #[test]
    fn help_lists_every_option() {
        let h = copier_help("copiergen cc", None);
        for o in ["--copier-threshold", "--copier-no-rewrite", "--copier-remarks", "--copier-shared", "--copier-verbose", "--sanitize"] {
            assert!(h.contains(o), "{o} missing from help");
        }
    }
}
