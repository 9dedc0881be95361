//! The plugin's command-line options: one declarative table.
//!
//! Every option is an LLVM `cl::opt` created by the shim when the plugin is
//! loaded, so hosts take it like their own options:
//! `opt-22 -load-pass-plugin=libcopiergen.so -copiergen-threshold=4096 ...`,
//! `clang-22 -fpass-plugin=libcopiergen.so -mllvm -copiergen-threshold=4096`,
//! `ld.lld-22 --load-pass-plugin=... -mllvm=-copiergen-threshold=4096`.
//!
//! ld.lld parses `-mllvm` before it loads pass plugins, so it rejects these
//! names; there (and anywhere) the environment variable
//! [`ENV_VAR`] (`COPIERGEN_OPTIONS="-copiergen-threshold=4096 -copiergen-window=false"`)
//! sets options that were not given on the command line.
//!
//! Names share the `copiergen-` prefix (`sanitizer` options use
//! `copier-sanitizer-`). To add one: declare a `pub static` [`PluginOption`]
//! and append it to [`OPTIONS`]. Model: `cl::opt` in LLVM's
//! `AddressSanitizer.cpp` (name, description, default; an explicit pass
//! parameter overrides the option).

use crate::ffi;
use std::ffi::c_char;
use std::sync::OnceLock;

/// Default value and type of a [`PluginOption`].
#[derive(Debug, Clone, Copy)]
pub enum OptionDefault {
    /// An unsigned integer option (`-name=N`).
    Uint(u64),
    /// A boolean option (`-name`, `-name=false`).
    Bool(bool),
    /// A string option (`-name=text`).
    Str(&'static str),
}

/// One command-line option of the plugin.
#[derive(Debug)]
pub struct PluginOption {
    /// Name without the leading dash, e.g. `copiergen-threshold`.
    pub name: &'static str,
    /// One-line help shown by `opt-22 -load-pass-plugin=... --help-hidden`.
    pub help: &'static str,
    /// Type and default value.
    pub default: OptionDefault,
}

/// `-copiergen-threshold=N`: copies whose length is a compile-time constant
/// below N bytes stay synchronous `memcpy`. Default: the runtime's inline
/// threshold [`copier_abi::DEFAULT_THRESHOLD`], below which submitting costs
/// more than copying. Overridden by the pass parameter
/// `copiergen<threshold=N>`.
pub static THRESHOLD: PluginOption = PluginOption {
    name: "copiergen-threshold",
    help: "Constant-length copies shorter than this many bytes stay synchronous (default: libcopier's inline threshold)",
    default: OptionDefault::Uint(copier_abi::DEFAULT_THRESHOLD as u64),
};

/// `-copiergen-window=false` disables the windowed wait in loops (a cached
/// `[lo, end)` ready window checked inline before each access; a
/// `csync_ready_end` call only when the access leaves it): loops then call
/// `csync` before every guarded access.
pub static WINDOW: PluginOption = PluginOption {
    name: "copiergen-window",
    help: "Guard accesses in loops with an inline ready-window check (csync_ready_end on a miss) instead of a csync call",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-max-queries=N`: alias-analysis budget per function. A function
/// that needs more queries keeps its copies synchronous (missed remark
/// `TooLarge`), so huge generated functions cannot stall the compiler.
pub static MAX_QUERIES: PluginOption = PluginOption {
    name: "copiergen-max-queries",
    help: "Alias queries allowed per function before CopierGen leaves its copies synchronous",
    default: OptionDefault::Uint(4_000_000),
};

/// `-copiergen-min-overlap=N`: the cost model. A copy whose first
/// whole-copy sync (a `csync` of the copy or `csync_all`: before `ret` when
/// the destination escapes, before a call that may read it, before `free`)
/// follows it on **every** path after fewer than N instructions of work
/// stays a synchronous `memcpy` (missed remark `NoOverlap`): waiting at once
/// gains nothing and costs the submission. Work is counted per path
/// (longest path wins); a call to a function (unknown work), inline asm, a
/// variable-length memory intrinsic or a loop without a sync on the way
/// counts as enough work. 0 rewrites every eligible copy. Overridden by the
/// pass parameter `copiergen<min-overlap=N>`.
///
/// Default 256: `bench/compiler/run.sh` (`ONLY=overlap`) measures
/// amemcpy + W instructions of independent straight-line work + csync
/// against memcpy + the same work; on the 2-core reference VM the
/// asynchronous copy of 16-256 KiB was 1.9x-2.3x slower at W = 256 and
/// 1.36x-1.42x at W = 1024, and paid from W = 4096 (0.78x-0.99x) on a
/// quiet machine, later under load (a submission and a waiting csync cost
/// far more than a few hundred instructions). 256 keeps only copies whose
/// overlap surely cannot pay for the submission.
pub static MIN_OVERLAP: PluginOption = PluginOption {
    name: "copiergen-min-overlap",
    help: "Keep a copy synchronous when its whole-copy sync follows on every path after fewer than this many instructions of work, no call or loop (0: never)",
    default: OptionDefault::Uint(256),
};

/// `-copiergen-max-narrow=N`: a function that would need more than N
/// narrow syncs (each a guard in the code) is planned coarsely instead: the
/// first access a pending copy conflicts with waits for the whole copy.
/// Bounds the code (and compile time) the pass adds to large functions.
pub static MAX_NARROW: PluginOption = PluginOption {
    name: "copiergen-max-narrow",
    help: "Narrow syncs allowed per function before it is planned coarsely (whole-copy sync at the first conflicting access)",
    default: OptionDefault::Uint(32),
};

/// `-copiergen-guard-callees=false` turns off guarded callees: every call
/// that may touch a pending copy's buffers waits for the whole copy first.
pub static GUARD_CALLEES: PluginOption = PluginOption {
    name: "copiergen-guard-callees",
    help: "Let module functions called with pending copies wait inside (guarded callees) instead of before the call",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-dispatch=false` turns off the nothing-pending dispatch of
/// guarded callees: each gets an unguarded copy of its body, run when the
/// pending word reads 0 at its entry.
pub static DISPATCH: PluginOption = PluginOption {
    name: "copiergen-dispatch",
    help: "Give each guarded callee an unguarded copy of its body, run when nothing is pending at its entry",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-unguarded-loops=N`: a loop of at most N instructions with
/// increasing-pointer guards (and no copy submitted inside) gets a copy
/// without them, entered from its header once their ready windows cover
/// every address the rest of the loop execution can reach (loop
/// versioning; 0 turns it off).
pub static UNGUARDED_LOOPS: PluginOption = PluginOption {
    name: "copiergen-unguarded-loops",
    help: "Largest loop (instructions) that gets an unguarded copy run once its ready windows cover the rest of the loop (0: none)",
    default: OptionDefault::Uint(2000),
};

/// `-copiergen-disable`: the automatically scheduled run (clang
/// `-fpass-plugin`, LTO) does nothing; `-passes=copiergen` still runs.
pub static DISABLE: PluginOption = PluginOption {
    name: "copiergen-disable",
    help: "Do not run CopierGen from the default pipelines (an explicit -passes=copiergen still runs)",
    default: OptionDefault::Bool(false),
};

/// `-copiergen-verify`: after CopierGen changes a function, run LLVM's IR
/// verifier on it and report invalid IR as an error naming the function
/// (clang runs with `-disable-llvm-verifier`, so a pass bug would otherwise
/// surface as a back-end crash or a silent miscompile). On by default: one
/// linear walk per changed function.
pub static VERIFY: PluginOption = PluginOption {
    name: "copiergen-verify",
    help: "Run the IR verifier on every function CopierGen changed; invalid IR is an error",
    default: OptionDefault::Bool(true),
};

/// Every option of the plugin, in registration order.
pub static OPTIONS: &[&PluginOption] = &[&THRESHOLD, &WINDOW, &MAX_QUERIES, &MIN_OVERLAP, &MAX_NARROW, &GUARD_CALLEES, &DISPATCH, &UNGUARDED_LOOPS, &DISABLE, &VERIFY, &crate::sanitizer::ENABLE, &crate::sanitizer::RECOVER];

impl PluginOption {
    fn index(&'static self) -> usize {
        OPTIONS
            .iter()
            .position(|o| std::ptr::eq(*o, self))
            .unwrap_or_else(|| panic!("option {} is missing from OPTIONS", self.name))
    }

    /// Current value of an [`OptionDefault::Uint`] option.
    ///
    /// # Panics
    /// If the option is not in [`OPTIONS`] or is not a `Uint` option.
    pub fn uint(&'static self) -> u64 {
        assert!(matches!(self.default, OptionDefault::Uint(_)), "{} is not a Uint option", self.name);
        // SAFETY: the index is in OPTIONS, whose entries the shim registered
        // in the same order with the same kind at load time.
        unsafe { ffi::cg_option_uint(self.index()) }
    }

    /// Current value of an [`OptionDefault::Bool`] option.
    ///
    /// # Panics
    /// If the option is not in [`OPTIONS`] or is not a `Bool` option.
    pub fn bool(&'static self) -> bool {
        assert!(matches!(self.default, OptionDefault::Bool(_)), "{} is not a Bool option", self.name);
        // SAFETY: as in `uint`.
        unsafe { ffi::cg_option_bool(self.index()) }
    }

    /// Current value of an [`OptionDefault::Str`] option.
    ///
    /// # Panics
    /// If the option is not in [`OPTIONS`] or is not a `Str` option.
    pub fn string(&'static self) -> String {
        assert!(matches!(self.default, OptionDefault::Str(_)), "{} is not a Str option", self.name);
        let mut len = 0usize;
        // SAFETY: as in `uint`; the returned bytes stay valid until the next
        // command-line parse, and are copied at once.
        unsafe {
            let ptr = ffi::cg_option_string(self.index(), &mut len);
            let bytes = std::slice::from_raw_parts(ptr.cast::<u8>(), len);
            String::from_utf8_lossy(bytes).into_owned()
        }
    }
}

/// Whether boolean environment variable `name` (e.g. `COPIERGEN_SANITIZE`)
/// is on: `1`, `true`, `yes`, `on` are true; unset, empty, `0`, `false`,
/// `no`, `off` false (ASCII case and surrounding whitespace ignored), as
/// `copiergen`'s `COPIERGEN_SHARED`. Anything else is false with one warning
/// line on stderr.
pub fn env_flag(name: &str) -> bool {
    let Some(v) = std::env::var_os(name) else { return false };
    let text = v.to_string_lossy();
    parse_flag(&text).unwrap_or_else(|| {
        eprintln!("copiergen: warning: {name}='{text}' is not a boolean (1, true, yes, on or 0, false, no, off, empty); taken as unset");
        false
    })
}

/// The value of a boolean environment variable (see [`env_flag`]), `None`
/// when it is not one (the syntax copiergen shares, `copier_abi`).
fn parse_flag(value: &str) -> Option<bool> {
    copier_abi::parse_bool(value)
}

/// Environment variable with plugin options (`-name=value` or `-name`,
/// whitespace-separated), applied when the plugin registers its passes to
/// every option not given on the command line.
pub const ENV_VAR: &str = "COPIERGEN_OPTIONS";

/// Applies [`ENV_VAR`]. Returns one message per token it could not apply.
pub fn apply_env() -> Vec<String> {
    let Ok(text) = std::env::var(ENV_VAR) else {
        return Vec::new();
    };
    apply_text(&text)
}

/// An unsigned integer as LLVM's `cl::parser<unsigned long>` reads it
/// (`StringRef::getAsInteger` with radix 0: `0x`/`0X` hexadecimal, `0b`/`0B`
/// binary, `0o`/`0O` or a leading `0` octal, else decimal).
fn llvm_uint(v: &str) -> Option<u64> {
    let lower = v.get(..2).map(str::to_ascii_lowercase);
    let (digits, radix) = match lower.as_deref() {
        Some("0x") => (&v[2..], 16),
        Some("0b") => (&v[2..], 2),
        Some("0o") => (&v[2..], 8),
        _ if v.len() > 1 && v.starts_with('0') => (&v[1..], 8),
        _ => (v, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Check `value` for an option of type `default` as LLVM's parser would
/// (`cl::parser<bool>` takes `true`/`TRUE`/`True`/`1`, `false`/`FALSE`/
/// `False`/`0`), so that a bad value is reported here, once, and never
/// reaches LLVM, whose own message carries no program name inside a host
/// that did not parse its command line (`: for the --copiergen-threshold
/// option: …`). `Err` names the accepted values.
fn check_value(default: OptionDefault, value: &str) -> Result<(), &'static str> {
    match default {
        OptionDefault::Uint(_) => llvm_uint(value).map(drop).ok_or("an unsigned integer"),
        OptionDefault::Bool(_) => match value {
            "true" | "TRUE" | "True" | "1" | "false" | "FALSE" | "False" | "0" => Ok(()),
            _ => Err("true or false (1 or 0)"),
        },
        OptionDefault::Str(_) => Ok(()),
    }
}

fn apply_text(text: &str) -> Vec<String> {
    let mut errors = Vec::new();
    for token in text.split_whitespace() {
        let body = token.trim_start_matches('-');
        let (name, value) = body.split_once('=').unwrap_or((body, "true"));
        let Some(idx) = OPTIONS.iter().position(|o| o.name == name) else {
            errors.push(format!("{ENV_VAR}: unknown option '{token}'; ignored"));
            continue;
        };
        if let Err(want) = check_value(OPTIONS[idx].default, value) {
            errors.push(format!("{ENV_VAR}: bad value '{value}' for option '-{name}' (expected {want}); ignored"));
            continue;
        }
        // SAFETY: idx indexes OPTIONS, registered by the shim in the same
        // order; the value bytes are valid for the call.
        unsafe {
            if ffi::cg_option_given(idx) {
                continue;
            }
            if !ffi::cg_option_set(idx, value.as_ptr().cast::<c_char>(), value.len()) {
                errors.push(format!("{ENV_VAR}: bad value in '{token}'; ignored"));
            }
        }
    }
    errors
}

/// The table in the shim's FFI form; raw pointers into `'static` strings.
struct Descs(Vec<ffi::CgOptionDesc>);
// SAFETY: 1. the descriptors only point at 'static string data;
// 2. they are never mutated after construction.
unsafe impl Send for Descs {}
// SAFETY: as above.
unsafe impl Sync for Descs {}

/// Called by the shim's static initializer when the plugin is loaded: the
/// option table to register.
///
/// # Safety
/// `count` must be valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn copiergen_rust_options(count: *mut usize) -> *const ffi::CgOptionDesc {
    static DESCS: OnceLock<Descs> = OnceLock::new();
    let descs = DESCS.get_or_init(|| {
        Descs(
            OPTIONS
                .iter()
                .map(|o| {
                    let (kind, default_uint, default_str) = match o.default {
                        OptionDefault::Uint(v) => (ffi::CG_OPTION_UINT, v, ""),
                        OptionDefault::Bool(b) => (ffi::CG_OPTION_BOOL, u64::from(b), ""),
                        OptionDefault::Str(s) => (ffi::CG_OPTION_STRING, 0, s),
                    };
                    ffi::CgOptionDesc {
                        name: o.name.as_ptr().cast::<c_char>(),
                        name_len: o.name.len(),
                        help: o.help.as_ptr().cast::<c_char>(),
                        help_len: o.help.len(),
                        kind,
                        default_uint,
                        default_str: default_str.as_ptr().cast::<c_char>(),
                        default_str_len: default_str.len(),
                    }
                })
                .collect(),
        )
    });
    // SAFETY: the caller guarantees `count` is writable.
    unsafe { *count = descs.0.len() };
    descs.0.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The unit-test binary links LLVM, so the shim's static initializer has
    // registered OPTIONS as real cl::opts.
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

    /// Trial finding (for COPIERGEN_SHARED; COPIERGEN_SANITIZE had the same
    /// bug): only `1` turned a boolean variable on.
    #[test]
    fn boolean_environment_values() {
        for t in ["1", "true", "TRUE", "yes", "on", " On "] {
            assert_eq!(parse_flag(t), Some(true), "{t}");
        }
        for f in ["0", "false", "no", "off", "OFF", ""] {
            assert_eq!(parse_flag(f), Some(false), "{f}");
        }
        for bad in ["2", "y", "enable"] {
            assert_eq!(parse_flag(bad), None, "{bad}");
        }
    }

    /// Trial finding: `COPIERGEN_OPTIONS=-copiergen-threshold=abc` reached
    /// LLVM's parser, which printed a second, nameless line (`: for the
    /// --copiergen-threshold option: …`). Values are checked first, as LLVM
    /// would parse them; rejected ones leave the option unchanged.
    #[test]
    fn values_are_checked_before_llvm_sees_them() {
        for (v, ok) in [("abc", None), ("0x10", Some(16)), ("0b101", Some(5)), ("017", Some(15)), ("0o17", Some(15)), ("12", Some(12)),
            ("0", Some(0)), ("", None), ("-1", None), ("1k", None), ("08", None), ("0x", None), ("18446744073709551616", None)] {
            assert_eq!(llvm_uint(v), ok, "'{v}'");
        }
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
}
