//! Run-time options: one table of name, default and help (after ASan's
//! `asan_flags.inc`), read from `COPIER_OPTIONS=name=value:name=value` and
//! `COPIER_STATS=1` when the library loads, and settable from Rust.
//!
//! Sizes accept a `k`, `m` or `g` suffix (binary units). A flag option
//! given by its bare name (`COPIER_OPTIONS=stats`) means 1; any other
//! option needs `name=value`. Unknown names, bare value options and
//! malformed values are reported on stderr and ignored.

use core::sync::atomic::{AtomicUsize, Ordering};

macro_rules! options {
    ($( $(#[doc = $doc:literal])* $name:ident : $default:expr, $kind:ident ;)*) => {
        /// Current option values (bytes, counts, µs or 0/1 flags).
        #[allow(non_upper_case_globals, missing_docs)]
        pub mod values {
            use core::sync::atomic::AtomicUsize;
            $( $(#[doc = $doc])* pub static $name: AtomicUsize = AtomicUsize::new($default); )*
        }
        /// `(name, default, kind, help)` for every option.
        pub const TABLE: &[(&str, usize, &str, &str)] = &[
            $( (stringify!($name), $default, stringify!($kind), concat!($($doc),*)) ),*
        ];
        fn slot(name: &str) -> Option<(&'static AtomicUsize, &'static str)> {
            match name {
                $( stringify!($name) => Some((&values::$name, stringify!($kind))), )*
                _ => None,
            }
        }
    };
}

options! {
    /// Segment size in bytes (power of two, 64..=1 MiB): the unit of completion tracking and of `csync` waits.
    segment_size: copier_abi::DEFAULT_SEGMENT_SIZE, size;
    /// Copies shorter than this many bytes run inline on the caller.
    threshold: copier_abi::DEFAULT_THRESHOLD, size;
    /// Outstanding asynchronous copies per thread (2..=65536, rounded up to a power of two); a full queue falls back to a synchronous copy.
    queue_depth: 256, count;
    /// 1: print the counters line to stderr at exit.
    stats: 0, flag;
    /// 1: also print one line per CopierGen copy site at exit (COPIER_STATS=sites sets it and stats; a stats file gets the lines instead of stderr).
    sites: 0, flag;
    /// A copy site whose asynchronous copies did not pay in at least 90% of this many observations runs its copies inline from then on (0: never).
    adapt_after: 64, count;
    /// An asynchronous copy paid when the program ran this many nanoseconds or more while it was in flight (its window minus the time spent waiting for it): the submission's cost.
    adapt_gain_ns: 2000, count;
    /// Append the counters line, with ` pid=N`, to this file at exit (O_APPEND: many processes may share it; a relative path is taken from the working directory at start; COPIER_STATS_FILE sets it too, and suits paths with ':' or ','). Reads 1 while a file is set.
    stats_file: 0, path;
    /// 0: no service thread; every copy is synchronous.
    service: 1, flag;
    /// Service of asynchronous copies: auto (the host's /dev/copier when it opens, else in-process), kernel (the same, with a warning when the device cannot be used) or inprocess.
    backend: 0, backend;
    /// 0: queue copies but start no service thread; they run on the threads that wait for them (deterministic; for tests).
    spawn: 1, flag;
    /// 0: disable copy absorption.
    absorb: 1, flag;
    /// A lazy copy nobody needs runs after this many microseconds.
    lazy_window_us: 2000, count;
    /// 1: a copy whose whole destination a copier_write-style call handed to the kernel becomes lazy (runs only when read, dropped when overwritten or discarded). 0: it keeps running in the background, which is faster when the destination is read or waited for afterwards (bench/results/paper-2026-12-01-lazy.txt); copies CopierGen sees die after the write are lazy anyway.
    defer_absorbed: 0, flag;
    /// Most bytes the service copies for one client before it looks at the others (fairness round; at least 1).
    max_round_bytes: 1 << 20, size;
    /// Microseconds the idle service keeps polling before it parks (NAPI-style; a parked service costs the next submit a futex wake-up).
    poll_us: 1000, count;
    /// Most microseconds the idle service polls once submits came soon after it parked (the poll window doubles from poll_us after each park that a submit ended within this long, and halves after each park that timed out; KVM's adaptive halt-polling). 0: never more than poll_us.
    poll_max_us: 4000, count;
    /// 1: the polling service thread moves off a CPU it shares with a busy thread (a sched_yield that returned after more than 200 us) to another CPU of its affinity mask, at once, keeping the mask. 0: the scheduler alone places it.
    migrate: 1, flag;
    /// Copies at least this long use non-temporal stores.
    nt_threshold: 8 << 20, size;
    /// CPU engine of every copy (auto: the best this CPU runs; avx512, avx2, erms, portable).
    engine: 0, engine;
    /// Segments an executor claims first (1..=64); later claims double up to claim_max.
    exec_batch: 4, count;
    /// Most segments an executor claims at once (1..=64): large claims amortize atomics, small ones leave more for helping threads. 64: with 16, a 4 MiB copy that the service and a csync caller share ran at 0.82-0.89x memcpy when the two threads sat on different L3 domains (every claim and completion bounced a line between them), 1.14-1.56x with 64.
    claim_max: 64, count;
}

/// Read an option.
#[inline(always)]
pub fn get(v: &AtomicUsize) -> usize {
    v.load(Ordering::Relaxed)
}

/// Parse a size in bytes (`k`, `m`, `g` suffixes): the syntax shared with
/// `copiergen --copier-threshold`, defined once in `copier_abi`.
pub use copier_abi::parse_size;

/// Error of [`set`]: names the option and the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionError {
    /// No option has this name.
    Unknown(String),
    /// The value does not parse or is out of range for the option:
    /// `(name, value, accepted values)`.
    BadValue(String, String, &'static str),
    /// A value option given by its bare name, without `=value`:
    /// `(name, accepted values)`. Only flag options may omit the value.
    NeedsValue(String, &'static str),
}

impl core::fmt::Display for OptionError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            OptionError::Unknown(n) => {
                write!(f, "unknown option '{n}' (known:")?;
                for (name, ..) in TABLE {
                    write!(f, " {name}")?;
                }
                write!(f, ")")
            }
            OptionError::BadValue(n, v, want) => write!(f, "bad value '{v}' for option '{n}' (expected {want})"),
            OptionError::NeedsValue(n, want) => write!(f, "option '{n}' needs a value ({n}=VALUE, expected {want})"),
        }
    }
}

/// The values option `name` (of `kind`) accepts: a description for error
/// messages and README, and the check of a parsed value.
fn accepted(name: &str, kind: &str) -> (&'static str, fn(usize) -> bool) {
    match (name, kind) {
        ("segment_size", _) => ("a power of two from 64 to 1m", |v| v.is_power_of_two() && (64..=1 << 20).contains(&v)),
        ("queue_depth", _) => ("2 to 65536 (rounded up to a power of two)", |v| (2..=1 << 16).contains(&v)),
        ("exec_batch" | "claim_max", _) => ("1 to 64", |v| (1..=64).contains(&v)),
        ("max_round_bytes", _) => ("a size of at least 1 byte (k, m, g suffixes)", |v| v >= 1),
        (_, "flag") => ("0 or 1 (also false/true, no/yes, off/on, in any case)", |_| true),
        (_, "path") => ("a file path", |_| true),
        (_, "backend") => ("auto, kernel or inprocess", |_| true),
        (_, "engine") => ("auto, avx512, avx2, erms or portable, one this CPU runs", crate::engine::option_ok),
        (_, "size") => ("a size in bytes (k, m, g suffixes)", |_| true),
        _ if is_time(name) => ("a whole number, without a k, m or g suffix", |_| true),
        _ => ("a non-negative integer (k, m, g suffixes multiply by 1024, 1024^2, 1024^3)", |_| true),
    }
}

/// True for the options that hold a time (`*_us`, `*_ns`).
fn is_time(name: &str) -> bool {
    name.ends_with("_us") || name.ends_with("_ns")
}

/// Set one option by name from its textual value.
///
/// # Errors
/// [`OptionError`] for an unknown name, a malformed value, or a value out
/// of the option's range (the error names the accepted values: a segment
/// size is a power of two in 64..=1 MiB, `queue_depth` 2..=65536,
/// `exec_batch`/`claim_max` 1..=64, `max_round_bytes` at least 1).
pub fn set(name: &str, value: &str) -> Result<(), OptionError> {
    let (slot, kind) = slot(name).ok_or_else(|| OptionError::Unknown(name.to_string()))?;
    let bad = || OptionError::BadValue(name.to_string(), value.to_string(), accepted(name, kind).0);
    let v = match kind {
        "path" => {
            let path = set_path(name, value);
            usize::from(path.is_some())
        }
        "flag" => usize::from(copier_abi::parse_flag(value).ok_or_else(bad)?),
        "engine" => crate::engine::option_value(value).ok_or_else(bad)?,
        "backend" => crate::backend::option_value(value).ok_or_else(bad)?,
        // (a time takes no k/m/g suffix: `poll_us=4k` is an error, not 4096 us)
        "count" if is_time(name) && !value.trim().bytes().all(|b| b.is_ascii_digit()) => return Err(bad()),
        _ => match parse_size(value) {
            Some(v) => v,
            None if copier_abi::size_overflows(value) => {
                let want = if kind == "size" { copier_abi::size_expected(value) } else { "a number that fits in 64 bits" };
                return Err(OptionError::BadValue(name.to_string(), value.to_string(), want));
            }
            None => return Err(bad()),
        },
    };
    if !accepted(name, kind).1(v) {
        return Err(bad());
    }
    slot.store(v, Ordering::Relaxed);
    match name {
        "nt_threshold" => crate::engine::NT_THRESHOLD.store(v, Ordering::Relaxed),
        "engine" => {
            crate::engine::set_option(v).map_err(|_| bad())?;
            crate::gate::set_engine();
        }
        // mirrored in the inline fast path's gate
        "threshold" => crate::gate::set_threshold(v),
        "stats" | "stats_file" => crate::gate::set_closed(crate::gate::CLOSED_STATS, stats_on()),
        _ => {}
    }
    Ok(())
}

/// True when the counters are reported at exit (`stats` or `stats_file`):
/// inline copies are then counted too.
pub fn stats_on() -> bool {
    get(&values::stats) != 0 || get(&values::stats_file) != 0
}

static STATS_FILE: std::sync::Mutex<Option<std::path::PathBuf>> = std::sync::Mutex::new(None);

/// Store a path option (`stats_file`): empty clears it; a relative path is
/// made absolute against the current working directory.
fn set_path(_name: &str, value: &str) -> Option<std::path::PathBuf> {
    let v = value.trim();
    let path = if v.is_empty() {
        None
    } else {
        let p = std::path::PathBuf::from(v);
        Some(if p.is_absolute() { p } else { std::env::current_dir().map(|d| d.join(&p)).unwrap_or(p) })
    };
    *STATS_FILE.lock().unwrap_or_else(|e| e.into_inner()) = path.clone();
    path
}

/// The `stats_file` option's path, if set.
pub fn stats_file() -> Option<std::path::PathBuf> {
    STATS_FILE.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Apply a `COPIER_OPTIONS`-style string (`a=1:b=2`, `,` also separates).
/// A bare name (`stats`) sets a flag option to 1; for any other option it
/// is an [`OptionError::NeedsValue`]. Returns the errors (already applied
/// entries stay applied; a rejected entry changes nothing).
pub fn apply(spec: &str) -> Vec<OptionError> {
    let mut errs = Vec::new();
    for item in spec.split([':', ',']).filter(|s| !s.trim().is_empty()) {
        let (n, v) = match item.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v)),
            None => (item.trim(), None),
        };
        if copier_abi::SANITIZER_OPTIONS.contains(&n) {
            continue; // CopierSanitizer's flag: parsed by the sanitizer
        }
        let r = match (v, slot(n)) {
            (Some(v), _) => set(n, v),
            (None, Some((_, "flag"))) => set(n, "1"),
            (None, Some((_, kind))) => Err(OptionError::NeedsValue(n.to_string(), accepted(n, kind).0)),
            (None, None) => Err(OptionError::Unknown(n.to_string())),
        };
        if let Err(e) = r {
            errs.push(e);
        }
    }
    errs
}

/// What `COPIER_STATS=v` asks for: `(stats, sites)`. A flag value as the
/// `COPIERGEN_*` switches take them (`copier_abi::parse_bool`: empty is
/// off), or `sites` (counters and per-site lines), in any case; `None`
/// for anything else.
fn stats_env(v: &str) -> Option<(bool, bool)> {
    if v.trim().eq_ignore_ascii_case("sites") {
        return Some((true, true));
    }
    copier_abi::parse_bool(v).map(|on| (on, false))
}

/// Read `COPIER_OPTIONS`, `COPIER_STATS` and `COPIER_STATS_FILE` from the
/// environment (in that order, so the single-option variables win); report
/// bad entries on stderr. Names no option has are reported only if
/// `report_unknown()` (asked once, and only for such a name) is true: a
/// checker in the process (CopierSanitizer) parses `COPIER_OPTIONS` too and
/// reports them, with its own flags.
pub fn load_env(report_unknown: impl FnOnce() -> bool) {
    if let Ok(spec) = std::env::var("COPIER_OPTIONS") {
        let errors = apply(&spec);
        let unknown = |e: &OptionError| matches!(e, OptionError::Unknown(_));
        let report_unknown = errors.iter().any(unknown) && report_unknown();
        for e in errors {
            if report_unknown || !unknown(&e) {
                eprintln!("copier: COPIER_OPTIONS: {e}; ignored");
            }
        }
    }
    if let Ok(v) = std::env::var("COPIER_STATS") {
        match stats_env(&v) {
            Some((stats, sites)) => {
                if sites {
                    let _ = set("sites", "1");
                }
                let _ = set("stats", if stats { "1" } else { "0" });
            }
            None => eprintln!("copier: COPIER_STATS: bad value '{v}' (expected 0 or 1, false/true, no/yes, off/on, or sites, in any case; empty is 0); ignored"),
        }
    }
    if let Some(v) = std::env::var_os("COPIER_STATS_FILE") {
        match v.into_string() {
            Ok(v) => {
                let _ = set("stats_file", &v);
            }
            Err(_) => eprintln!("copier: COPIER_STATS_FILE: not valid UTF-8; ignored"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_errors() {
        assert_eq!(parse_size("4k"), Some(4096));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("x"), None);
        let errs = apply("lazy_window_us=7:bogus=1:segment_size=3000");
        assert_eq!(get(&values::lazy_window_us), 7);
        assert_eq!(errs.len(), 2);
        assert!(errs[0].to_string().contains("unknown option 'bogus'"));
        assert!(errs[1].to_string().contains("segment_size"));
        assert!(apply("lazy_window_us=2000").is_empty());
    }

    /// Trial finding: `absorb=on` and `absorb=TRUE` were refused, while
    /// copiergen's own switches (COPIERGEN_SHARED) take them.
    #[test]
    fn flags_take_on_off_in_any_case() {
        for (v, want) in [("on", 1), ("TRUE", 1), ("Yes", 1), ("1", 1), ("off", 0), ("False", 0), ("NO", 0), ("0", 0)] {
            assert!(apply(&format!("absorb={v}")).is_empty(), "{v}");
            assert_eq!(get(&values::absorb), want, "{v}");
        }
        assert_eq!(apply("absorb=maybe").len(), 1);
        assert!(apply("absorb=").len() == 1, "an empty value is no flag value");
        assert!(apply("absorb=1").is_empty());
    }

    /// Every rejected value's message names what the option accepts, and
    /// the option keeps its value (review finding: "bad value '1' for
    /// option 'queue_depth'" said nothing about the range; exec_batch=0,
    /// claim_max=0, max_round_bytes=0 were silently accepted).
    #[test]
    fn errors_name_the_accepted_values() {
        for (spec, want) in [
            ("queue_depth=1", "2 to 65536"),
            ("queue_depth=100000000", "2 to 65536"),
            ("segment_size=1g", "a power of two from 64 to 1m"),
            ("segment_size=3000", "a power of two from 64 to 1m"),
            ("exec_batch=0", "1 to 64"),
            ("claim_max=0", "1 to 64"),
            ("claim_max=65", "1 to 64"),
            ("max_round_bytes=0", "a size of at least 1 byte"),
            ("stats=2", "0 or 1"),
            ("threshold=abc", "a size in bytes"),
            ("poll_us=-1", "a whole number"),
            ("poll_us=4k", "a whole number, without a k, m or g suffix"),
            ("adapt_gain_ns=2K", "a whole number, without a k, m or g suffix"),
            ("adapt_after=x", "a non-negative integer"),
            ("backend=dma", "auto, kernel or inprocess"),
        ] {
            let (name, _) = spec.split_once('=').unwrap();
            let (slot, _) = slot(name).unwrap();
            let before = get(slot);
            let errs = apply(spec);
            assert_eq!(errs.len(), 1, "{spec} accepted");
            let msg = errs[0].to_string();
            assert!(msg.contains(&format!("for option '{name}' (expected {want}")), "{spec}: {msg}");
            assert_eq!(get(slot), before, "{spec} changed the option");
        }
    }

    /// Trial finding: `COPIER_STATS=SITES` was refused although flags take
    /// any case, an empty value was an error while `COPIERGEN_SHARED=` is
    /// off, and the message for `2` did not name `sites`.
    #[test]
    fn copier_stats_values() {
        for (v, want) in [("1", Some((true, false))), ("yes", Some((true, false))), ("0", Some((false, false))), ("", Some((false, false))), (" Off ", Some((false, false))), ("sites", Some((true, true))), ("SITES", Some((true, true))), ("2", None), ("site", None)] {
            assert_eq!(stats_env(v), want, "COPIER_STATS={v:?}");
        }
    }

    /// A bare name turns a flag option on, and is reported (and ignored)
    /// for every option that takes a value (trial finding:
    /// `COPIER_OPTIONS=threshold` was silently ignored while
    /// `COPIER_OPTIONS=stats` silently turned stats on).
    #[test]
    fn bare_names_set_flags_and_are_errors_for_value_options() {
        // (absorb is 1 by default: other tests of this process see no change)
        assert!(apply("absorb").is_empty());
        assert_eq!(get(&values::absorb), 1);
        for (name, _, kind, _) in TABLE {
            if *kind == "flag" {
                continue;
            }
            let (slot, _) = slot(name).unwrap();
            let before = get(slot);
            let errs = apply(&format!(" {name} "));
            assert_eq!(errs.len(), 1, "{name} accepted without a value");
            let msg = errs[0].to_string();
            let want = accepted(name, kind).0;
            assert_eq!(msg, format!("option '{name}' needs a value ({name}=VALUE, expected {want})"));
            assert_eq!(get(slot), before, "{name} changed");
        }
        assert!(apply("threshold")[0].to_string().contains("a size in bytes"));
        assert!(matches!(&apply("bogus")[..], [OptionError::Unknown(n)] if n == "bogus"));
        // Sanitizer flags stay the sanitizer's, bare or not.
        for s in copier_abi::SANITIZER_OPTIONS {
            assert!(apply(s).is_empty(), "{s}");
        }
    }

    #[test]
    fn stats_file_is_a_path_option() {
        assert!(apply("stats_file=rel/stats.txt").is_empty());
        let p = stats_file().unwrap();
        assert!(p.is_absolute() && p.ends_with("rel/stats.txt"), "{p:?}");
        assert_eq!(get(&values::stats_file), 1);
        assert!(stats_on());
        assert!(apply("stats_file=").is_empty());
        assert_eq!(stats_file(), None);
        assert_eq!(get(&values::stats_file), 0);
        assert!(TABLE.iter().any(|t| t.0 == "stats_file" && t.2 == "path"));
    }
}
