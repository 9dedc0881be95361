//! The LLVM tools copiergen runs (clang-22, clang++-22, opt-22), and the
//! check that an overridden one (`COPIERGEN_CLANG`, `COPIERGEN_CLANGXX`,
//! `COPIERGEN_OPT`) is LLVM 22: the plugin is built against LLVM 22's pass
//! plugin API, and an older opt or clang fails on it with errors that blame
//! the input instead.

use std::ffi::OsStr;
use std::process::Command;

use crate::error::Error;

/// The LLVM major version the plugin is built for.
pub const LLVM_MAJOR: u32 = 22;

/// The LLVM major version in a `--version` text: the number after "clang
/// version " or "LLVM version " (`Debian clang version 22.1.0 (…)`,
/// `Ubuntu LLVM version 14.0.6`); `None` for a tool that is not LLVM's.
pub fn parse_major(version_text: &str) -> Option<u32> {
    ["clang version ", "LLVM version "].iter().find_map(|key| {
        let at = version_text.find(key)? + key.len();
        let digits: String = version_text[at..].chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

/// Run `program --version` and check it reports LLVM [`LLVM_MAJOR`].
///
/// # Errors
/// [`Error::Spawn`] when it cannot be run; [`Error::Unusable`] when it
/// reports another version or none, naming `var`.
pub fn check_llvm_major(program: &OsStr, var: &str) -> Result<(), Error> {
    let name = program.to_string_lossy().into_owned();
    let fix = format!("set {var} to the LLVM {LLVM_MAJOR} tool or unset it");
    let out = Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| Error::Spawn { program: name.clone(), source, fix: fix.clone() })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let reason = match parse_major(&text) {
        Some(LLVM_MAJOR) => return Ok(()),
        Some(v) => format!("LLVM {v}, but the pass plugin needs LLVM {LLVM_MAJOR}"),
        None => format!("not an LLVM tool (`--version` names no LLVM version); the pass plugin needs LLVM {LLVM_MAJOR}"),
    };
    Err(Error::Unusable { what: format!("{var}={name}"), reason, fix })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn major_version_from_version_banners() {
        assert_eq!(parse_major("Debian clang version 22.1.0 (++20251201)\nTarget: x86_64"), Some(22));
        assert_eq!(parse_major("Debian LLVM version 22.0.0git\n  Optimized build."), Some(22));
        assert_eq!(parse_major("LLVM (http://llvm.org/):\n  Ubuntu LLVM version 14.0.6\n"), Some(14));
        assert_eq!(parse_major("true (GNU coreutils) 9.1\nLicense GPLv3+: GNU GPL version 3 or later"), None);
    }
}
