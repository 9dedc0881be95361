//! Run-time flags: one table of name, type, default and description (after
//! compiler-rt's `asan_flags.inc`), parsed from `COPIER_OPTIONS`
//! (`name=value` items separated by `:` or `,`).
//!
//! `COPIER_OPTIONS` is shared with the runtime: the runtime's own option
//! names are accepted and ignored here; any other unknown name stops the
//! program with a message that lists the sanitizer's flags.

use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicPtr, Ordering::Relaxed};
use std::sync::OnceLock;

macro_rules! flags {
    ($( $(#[doc = $doc:literal])* $name:ident : $ty:ident = $default:expr ;)*) => {
        /// The sanitizer's flag values.
        #[derive(Clone, Debug)]
        pub struct Flags {
            $( $(#[doc = $doc])* pub $name: $ty, )*
        }

        impl Default for Flags {
            fn default() -> Self {
                Self { $( $name: $default, )* }
            }
        }

        /// `(name, type, default, description)` of every flag.
        pub const TABLE: &[(&str, &str, &str, &str)] = &[
            $( (stringify!($name), stringify!($ty), stringify!($default), concat!($($doc),*)) ),*
        ];

        impl Flags {
            fn set(&mut self, name: &str, value: &str) -> Result<bool, String> {
                match name {
                    $( stringify!($name) => {
                        self.$name = <$ty as FlagValue>::parse(value)
                            .ok_or_else(|| format!("bad value '{value}' for flag '{name}' ({})", stringify!($ty)))?;
                        Ok(true)
                    } )*
                    _ => Ok(false),
                }
            }
        }
    };
}

flags! {
    /// Exit after the first report (1). With 0 the program goes on and each distinct site (kind, source line) is reported once.
    halt_on_error: bool = true;
    /// Exit status after a report: at once with halt_on_error=1; at exit (overriding the program's status) if any report was printed with halt_on_error=0.
    exitcode: u8 = 1;
    /// Call abort() instead of _exit(exitcode) after a report (for a core dump).
    abort_on_error: bool = false;
    /// Frames of the submitting stack recorded per copy (0 records none; captured raw, symbolized only in a report).
    copy_stack_depth: usize = 48;
    /// Symbolize stacks (function, file:line) in reports; 0 prints raw addresses.
    symbolize: bool = true;
    /// Print the shadow bytes around the bad address in reports.
    print_shadow: bool = true;
    /// Check buffers passed to intercepted libc functions (free, memcpy, strlen, read, printf %s, ...).
    intercept_libc: bool = true;
    /// 1 prints the shadow layout and the flags at start.
    verbosity: i32 = 0;
}

/// Parse a flag's textual value.
trait FlagValue: Sized {
    fn parse(s: &str) -> Option<Self>;
}

impl FlagValue for bool {
    fn parse(s: &str) -> Option<Self> {
        copier_abi::parse_flag(s)
    }
}

impl FlagValue for u8 {
    fn parse(s: &str) -> Option<Self> {
        s.trim().parse().ok()
    }
}

impl FlagValue for i32 {
    fn parse(s: &str) -> Option<Self> {
        s.trim().parse().ok()
    }
}

impl FlagValue for usize {
    fn parse(s: &str) -> Option<Self> {
        s.trim().parse().ok()
    }
}

/// The runtime's own option names (libcopier's `COPIER_OPTIONS` table):
/// accepted and left to the runtime.
pub fn runtime_option_names() -> Vec<&'static str> {
    crate::hooks::runtime_option_names()
}

/// Parse `spec` (a `COPIER_OPTIONS` value) over the defaults.
///
/// An unknown name (neither a sanitizer flag nor a runtime option) or a
/// malformed value is skipped (the flag keeps its default) and described in
/// the returned warnings, as the runtime does with its own options and ASan
/// with an unrecognized flag.
pub fn parse(spec: &str, runtime_names: &[&str]) -> (Flags, Vec<String>) {
    let mut f = Flags::default();
    let mut warnings = Vec::new();
    for item in spec.split([':', ',']).map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item.split_once('=').unwrap_or((item, "1"));
        let name = name.trim();
        match f.set(name, value) {
            Ok(true) => continue,
            Err(msg) => {
                warnings.push(format!("{msg}; ignored"));
                continue;
            }
            Ok(false) if runtime_names.contains(&name) => continue,
            Ok(false) => {}
        }
        let known: Vec<&str> = TABLE.iter().map(|t| t.0).collect();
        warnings.push(format!(
            "unknown flag '{name}' in COPIER_OPTIONS; ignored. CopierSanitizer flags: {}; runtime options: {}",
            known.join(" "),
            runtime_names.join(" ")
        ));
    }
    (f, warnings)
}

/// Exported by a `--sanitize` executable ([`copier_abi::CHECKER_SYMBOL`]):
/// tells every copy of libcopier in the process that this runtime warns
/// about the `COPIER_OPTIONS` names unknown to both.
#[unsafe(no_mangle)]
#[used]
pub static __copier_san_checks_options: u8 = 1;

static FLAGS: OnceLock<Flags> = OnceLock::new();

/// The flags in force, parsed from `COPIER_OPTIONS` on first use (an
/// interceptor may run before the runtime's constructor).
pub fn get() -> &'static Flags {
    FLAGS.get_or_init(from_env)
}

/// Parse `COPIER_OPTIONS`; an unknown flag or a bad value is reported on
/// stderr and ignored (the program runs on, like the plain runtime).
fn from_env() -> Flags {
    let _g = crate::thread::RuntimeGuard::enter();
    let spec = std::env::var("COPIER_OPTIONS").ok().or_else(|| preinit_env("COPIER_OPTIONS")).unwrap_or_default();
    let (f, warnings) = parse(&spec, &runtime_option_names());
    for w in warnings {
        crate::report::write_stderr(&format!("WARNING: CopierSanitizer: {w}\n"));
    }
    f
}

/// The environment the dynamic loader passed to the `.preinit_array`
/// functions (their third argument), or null. libc's `environ` is still
/// null there (glibc sets it in libc.so's own initializer, which runs
/// after preinit), so the flags are read from this vector instead.
pub(crate) static PREINIT_ENVP: AtomicPtr<*const c_char> = AtomicPtr::new(std::ptr::null_mut());

/// `name`'s value in [`PREINIT_ENVP`], if saved and present.
fn preinit_env(name: &str) -> Option<String> {
    let mut p = PREINIT_ENVP.load(Relaxed).cast_const();
    if p.is_null() {
        return None;
    }
    // SAFETY: the loader's envp is a null-terminated array of C strings
    // that lives (unchanged) for the whole process.
    unsafe {
        while !(*p).is_null() {
            let entry = CStr::from_ptr(*p).to_bytes();
            if let Some(v) = entry.strip_prefix(name.as_bytes()).and_then(|r| r.strip_prefix(b"=")) {
                return Some(String::from_utf8_lossy(v).into_owned());
            }
            p = p.add(1);
        }
    }
    None
}

/// Parse the environment now (the runtime's constructor).
pub(crate) fn init_from_env() {
    let _ = get();
}

/// The table as text, with the values in force (`verbosity=1`).
pub fn describe(f: &Flags) -> String {
    let mut s = format!("{f:?}\n");
    for (name, ty, default, desc) in TABLE {
        s.push_str(&format!("  {name:<18} {ty:<6} default {default:<6} {desc}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_warns() {
        let (f, w) = parse("halt_on_error=0:exitcode=23,threshold=4k", &["threshold"]);
        assert!(!f.halt_on_error && w.is_empty(), "{w:?}");
        assert_eq!(f.exitcode, 23);
        let (f, w) = parse("halt_on_eror=0:exitcode=5", &["threshold"]);
        assert_eq!(f.exitcode, 5);
        assert!(f.halt_on_error);
        assert!(w.len() == 1 && w[0].contains("unknown flag 'halt_on_eror'") && w[0].contains("halt_on_error"), "{w:?}");
        let (f, w) = parse("exitcode=x", &[]);
        assert_eq!(f.exitcode, 1);
        assert!(w.len() == 1 && w[0].contains("bad value 'x' for flag 'exitcode'"), "{w:?}");
        assert!(parse("", &[]).0.halt_on_error);
        // trial finding: exitcode=300 was taken, and the process exited 44
        let (f, w) = parse("exitcode=300", &[]);
        assert_eq!(f.exitcode, 1);
        assert!(w.len() == 1 && w[0].contains("bad value '300' for flag 'exitcode' (u8)"), "{w:?}");
        // trial finding: on/off and any case, as elsewhere
        for (v, want) in [("on", true), ("TRUE", true), ("Yes", true), ("off", false), ("No", false), ("0", false)] {
            let (f, w) = parse(&format!("halt_on_error={v}"), &[]);
            assert!(w.is_empty() && f.halt_on_error == want, "{v}: {w:?}");
        }
    }

    #[test]
    fn the_checker_symbol_is_the_one_copiergen_exports() {
        let name = stringify!(__copier_san_checks_options);
        assert_eq!(name, copier_abi::CHECKER_SYMBOL);
        assert_eq!(__copier_san_checks_options, 1);
    }

    #[test]
    fn table_lists_every_flag() {
        assert!(TABLE.iter().all(|t| !t.3.is_empty()));
        // The runtime skips exactly these names in COPIER_OPTIONS.
        let names: Vec<&str> = TABLE.iter().map(|t| t.0).collect();
        assert_eq!(names, copier_abi::SANITIZER_OPTIONS);
        // No name is both a runtime option and a sanitizer flag.
        let rt = runtime_option_names();
        assert!(names.iter().all(|n| !rt.contains(n)), "{names:?} vs {rt:?}");
        assert!(rt.contains(&"threshold"));
    }
}
