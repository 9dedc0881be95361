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
//! Each pass owns its options, prefixed with its name
//! (`copiergen/options.rs`: `copiergen-`; `sanitizer/options.rs`:
//! `copier-sanitizer-`). To add one: declare a `pub static` [`PluginOption`]
//! there and append it to that pass's list
//! ([`crate::pass::ModulePass::options`]). Model: `cl::opt` in LLVM's
//! `AddressSanitizer.cpp` (name, description, default; an explicit pass
//! parameter overrides the option). This module holds the machinery only:
//! the table the shim registered ([`install`]), reading values, and
//! [`ENV_VAR`].

use crate::ffi;
use std::ffi::c_char;
use std::sync::OnceLock;

/// Default value and type of a [`PluginOption`].
#[derive(Debug, Clone, Copy)]
pub enum OptionDefault {
    /// An unsigned integer option (`-name=N`).
    Uint(u64),
    /// A size in bytes (`-name=16384`, `-name=16k`): the syntax of every
    /// Copier size ([`copier_abi::parse_size`]); read with
    /// [`PluginOption::uint`].
    Size(u64),
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


/// The options the shim registered, in its order ([`install`]).
static TABLE: OnceLock<Registered> = OnceLock::new();

/// The registered table and its FFI form (raw pointers into `'static`
/// strings).
struct Registered {
    options: Vec<&'static PluginOption>,
    descs: Vec<ffi::CgOptionDesc>,
}
// SAFETY: 1. the descriptors only point at 'static string data;
// 2. they are never mutated after construction.
unsafe impl Send for Registered {}
// SAFETY: as above.
unsafe impl Sync for Registered {}

/// Installs `options` as the table the shim registers (once: later calls
/// return the first table) and returns it in the shim's FFI form.
pub fn install(options: Vec<&'static PluginOption>) -> &'static [ffi::CgOptionDesc] {
    let t = TABLE.get_or_init(|| {
        let descs = options
            .iter()
            .map(|o| {
                let (kind, default_uint, default_str) = match o.default {
                    OptionDefault::Uint(v) => (ffi::CG_OPTION_UINT, v, ""),
                    OptionDefault::Size(v) => (ffi::CG_OPTION_SIZE, v, ""),
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
            .collect();
        Registered { options, descs }
    });
    &t.descs
}

/// The registered options (empty before [`install`]).
fn table() -> &'static [&'static PluginOption] {
    TABLE.get().map_or(&[], |t| &t.options[..])
}

impl PluginOption {
    fn index(&'static self) -> usize {
        table()
            .iter()
            .position(|o| std::ptr::eq(*o, self))
            .unwrap_or_else(|| panic!("option {} was not registered (missing from its pass's options())", self.name))
    }

    /// Current value of an [`OptionDefault::Uint`] or
    /// [`OptionDefault::Size`] option.
    ///
    /// # Panics
    /// If the option was not registered or is not a `Uint` or `Size` option.
    pub fn uint(&'static self) -> u64 {
        assert!(matches!(self.default, OptionDefault::Uint(_) | OptionDefault::Size(_)), "{} is not a Uint option", self.name);
        // SAFETY: the index is in the table, whose entries the shim registered
        // in the same order with the same kind at load time.
        unsafe { ffi::cg_option_uint(self.index()) }
    }

    /// Current value of an [`OptionDefault::Bool`] option.
    ///
    /// # Panics
    /// If the option was not registered or is not a `Bool` option.
    pub fn bool(&'static self) -> bool {
        assert!(matches!(self.default, OptionDefault::Bool(_)), "{} is not a Bool option", self.name);
        // SAFETY: as in `uint`.
        unsafe { ffi::cg_option_bool(self.index()) }
    }

    /// Current value of an [`OptionDefault::Str`] option.
    ///
    /// # Panics
    /// If the option was not registered or is not a `Str` option.
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

/// A size option's value ([`OptionDefault::Size`]): [`copier_abi::parse_size`],
/// the parser of `copiergen --copier-threshold` and of the runtime's
/// `COPIER_OPTIONS` sizes, so `16k` means 16384 everywhere.
pub fn parse_size(value: &str) -> Option<u64> {
    copier_abi::parse_size(value).map(|v| v as u64)
}

/// Called by the shim's parser of size options (`SizeParser`): stores the
/// value of the `len` bytes at `text` in `*value` and returns true, or
/// returns false with the accepted syntax in `*syntax`/`*syntax_len`
/// ([`copier_abi::SIZE_SYNTAX`], static text).
///
/// # Safety
/// `text` must be valid for `len` bytes; the three out-pointers valid for
/// a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn copiergen_parse_size(
    text: *const c_char,
    len: usize,
    value: *mut u64,
    syntax: *mut *const c_char,
    syntax_len: *mut usize,
) -> bool {
    // SAFETY: the caller guarantees `text` is valid for `len` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
    let parsed = std::str::from_utf8(bytes).ok().and_then(parse_size);
    // SAFETY: the caller guarantees the out-pointers are writable.
    unsafe {
        match parsed {
            Some(v) => *value = v,
            None => {
                *syntax = copier_abi::SIZE_SYNTAX.as_ptr().cast::<c_char>();
                *syntax_len = copier_abi::SIZE_SYNTAX.len();
            }
        }
    }
    parsed.is_some()
}

/// Check `value` for an option of type `default` as LLVM's parser would
/// (`cl::parser<bool>` takes `true`/`TRUE`/`True`/`1`, `false`/`FALSE`/
/// `False`/`0`; a size option the shim's `SizeParser`, [`parse_size`]), so that a bad value is reported here, once, and never
/// reaches LLVM, whose own message carries no program name inside a host
/// that did not parse its command line (`: for the --copiergen-threshold
/// option: …`). `Err` names the accepted values.
fn check_value(default: OptionDefault, value: &str) -> Result<(), &'static str> {
    match default {
        OptionDefault::Uint(_) => llvm_uint(value).map(drop).ok_or("an unsigned integer"),
        OptionDefault::Size(_) => parse_size(value).map(drop).ok_or(copier_abi::SIZE_SYNTAX),
        OptionDefault::Bool(_) => match value {
            "true" | "TRUE" | "True" | "1" | "false" | "FALSE" | "False" | "0" => Ok(()),
            _ => Err("true or false (1 or 0)"),
        },
        OptionDefault::Str(_) => Ok(()),
    }
}

/// Applies `text` (as [`ENV_VAR`]'s value) to the registered options not
/// given on the command line. Returns one message per token it could not
/// apply.
pub fn apply_text(text: &str) -> Vec<String> {
    let options = table();
    let mut errors = Vec::new();
    for token in text.split_whitespace() {
        let body = token.trim_start_matches('-');
        let (name, value, bare) = match body.split_once('=') {
            Some((name, value)) => (name, value, false),
            None => (body, "true", true),
        };
        let Some(idx) = options.iter().position(|o| o.name == name) else {
            errors.push(format!("{ENV_VAR}: unknown option '{token}'; ignored"));
            continue;
        };
        if bare && !matches!(options[idx].default, OptionDefault::Bool(_)) {
            errors.push(format!("{ENV_VAR}: option '-{name}' needs a value ('-{name}=N'); ignored"));
            continue;
        }
        if let Err(want) = check_value(options[idx].default, value) {
            errors.push(format!("{ENV_VAR}: bad value '{value}' for option '-{name}' (expected {want}); ignored"));
            continue;
        }
        // SAFETY: idx indexes the table, registered by the shim in the same
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Trial finding: `-copiergen-threshold=16k` was refused although
    /// `copiergen cc --copier-threshold=16k` takes it. Size options take
    /// the one Copier size syntax and name it when they refuse a value.
    #[test]
    fn size_values_take_the_copier_size_syntax() {
        let size = OptionDefault::Size(0);
        for (v, n) in [("16k", 16384), ("16K", 16384), ("2m", 2 << 20), ("1g", 1 << 30), ("4096", 4096), ("0", 0)] {
            assert_eq!(parse_size(v), Some(n), "'{v}'");
            assert_eq!(check_value(size, v), Ok(()), "'{v}'");
        }
        for bad in ["16q", "-1", "", "k", "0x10", "18446744073709551616", "17179869184g", "1.5k"] {
            assert_eq!(parse_size(bad), None, "'{bad}'");
            assert_eq!(check_value(size, bad), Err(copier_abi::SIZE_SYNTAX), "'{bad}'");
        }
        let (mut value, mut syntax, mut len) = (0u64, std::ptr::null(), 0usize);
        // SAFETY: the text and the out-pointers are valid for the calls.
        unsafe {
            assert!(copiergen_parse_size(c"16k".as_ptr(), 3, &mut value, &mut syntax, &mut len));
            assert_eq!(value, 16384);
            assert!(!copiergen_parse_size(c"16q".as_ptr(), 3, &mut value, &mut syntax, &mut len));
            let text = std::slice::from_raw_parts(syntax.cast::<u8>(), len);
            assert_eq!(text, copier_abi::SIZE_SYNTAX.as_bytes());
        }
    }

    #[test]
    fn unsigned_values_parse_as_llvm_does() {
        for (v, ok) in [("abc", None), ("0x10", Some(16)), ("0b101", Some(5)), ("017", Some(15)), ("0o17", Some(15)), ("12", Some(12)),
            ("0", Some(0)), ("", None), ("-1", None), ("1k", None), ("08", None), ("0x", None), ("18446744073709551616", None)] {
            assert_eq!(llvm_uint(v), ok, "'{v}'");
        }
    }
}
