//! copiergen's errors: each prints as one line naming what is wrong and how to
//! fix it, and maps to a distinct exit code. A tool's own failure (clang,
//! opt, cargo) is not an error here: its exit status is passed through.

use std::path::PathBuf;

/// Exit code for a bad command line (clap's convention).
pub const EXIT_USAGE: i32 = 2;
/// Exit code for a missing tool, plugin, library or header.
pub const EXIT_MISSING: i32 = 3;
/// Exit code for an input that cannot be read or is not LLVM IR.
pub const EXIT_INPUT: i32 = 4;

/// Everything copiergen itself can fail at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad or conflicting option.
    #[error("{0}")]
    Usage(String),
    /// A file or tool copiergen needs is not there.
    #[error("cannot find {what}; {fix}")]
    Missing {
        /// What is missing and where it was looked for.
        what: String,
        /// How to make it available.
        fix: String,
    },
    /// A tool or plugin is there but is not the one copiergen needs (not a
    /// pass plugin, another LLVM version).
    #[error("{what}: {reason}; {fix}")]
    Unusable {
        /// The file or tool, and where it came from.
        what: String,
        /// What is wrong with it.
        reason: String,
        /// How to fix it.
        fix: String,
    },
    /// A program could not be started at all (not found, not executable).
    #[error("cannot run {program}: {source}; {fix}")]
    Spawn {
        /// The program copiergen tried to start.
        program: String,
        /// Why the operating system refused.
        source: std::io::Error,
        /// How to make it available.
        fix: String,
    },
    /// An input file is unreadable or not LLVM IR.
    #[error("{path}: {reason}")]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Any other I/O failure (install).
    #[error("{context}: {source}")]
    Io {
        /// What copiergen was doing.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

impl Error {
    /// A [`Error::Missing`] with its fix hint.
    pub fn missing(what: impl Into<String>, fix: impl Into<String>) -> Error {
        Error::Missing { what: what.into(), fix: fix.into() }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => EXIT_USAGE,
            Error::Missing { .. } | Error::Unusable { .. } | Error::Spawn { .. } => EXIT_MISSING,
            Error::Input { .. } => EXIT_INPUT,
            Error::Io { .. } => 1,
        }
    }
}
