//! `copiergen opt`: run the CopierGen passes on LLVM IR (`.ll` or `.bc`)
//! through opt-22 with the plugin loaded.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::Error;
use crate::resources::Layout;

/// Arguments of `copiergen opt`.
#[derive(clap::Args, Debug, Clone)]
pub struct OptArgs {
    /// Input IR: textual (`.ll`) or bitcode (`.bc`), `-` for stdin.
    pub input: PathBuf,
    /// Output file (`-` for stdout).
    #[arg(short = 'o', value_name = "OUT")]
    pub output: PathBuf,
    /// Write textual IR instead of bitcode.
    #[arg(short = 'S')]
    pub text: bool,
    /// Pass pipeline in opt's syntax.
    #[arg(long = "passes", default_value = "copiergen")]
    pub passes: String,
    /// Rewrite constant-length copies of at least BYTES bytes (as for `cc`;
    /// k, m, g suffixes).
    #[arg(long = "copier-threshold", value_name = "BYTES", value_parser = crate::options::parse_size)]
    pub threshold: Option<u64>,
    /// Print remarks for each rewritten copy, csync and missed copy.
    #[arg(long = "copier-remarks")]
    pub remarks: bool,
    /// Print the opt command to stderr first.
    #[arg(long = "copier-verbose")]
    pub verbose: bool,
    /// Further arguments for opt-22, after `--`.
    #[arg(last = true)]
    pub opt_args: Vec<OsString>,
}

/// Bitcode magic (`BC 0xC0DE`) and the bitcode wrapper magic (LLVM
/// BitCodeFormat.rst, "Bitcode Wrapper Format").
fn looks_like_ir(head: &[u8]) -> Result<(), String> {
    if head.starts_with(b"BC\xC0\xDE") || head.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Ok(());
    }
    if head.is_empty() {
        return Ok(()); // an empty module is valid textual IR
    }
    if head.contains(&0) {
        return Err("not LLVM IR (binary data that is neither bitcode nor text)".into());
    }
    Ok(())
}

fn check_input(path: &Path) -> Result<(), Error> {
    if path == Path::new("-") {
        return Ok(());
    }
    let meta = std::fs::metadata(path).map_err(|e| Error::Input { path: path.into(), reason: format!("cannot read: {e}") })?;
    if !meta.is_file() {
        // A pipe or device: reading ahead would take bytes away from opt.
        return Ok(());
    }
    let mut head = vec![0u8; 4096];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .map_err(|e| Error::Input { path: path.into(), reason: format!("cannot read: {e}") })?;
    head.truncate(n);
    looks_like_ir(&head).map_err(|reason| Error::Input { path: path.into(), reason })
}

/// Check that the output can be written before running opt, whose own
/// message for an unwritable output is a bare OS error without the file
/// name. Returns whether copiergen created the file (it did not exist).
///
/// # Errors
/// [`Error::Io`] naming the output file.
fn open_output(path: &Path) -> Result<bool, Error> {
    if path == Path::new("-") {
        return Ok(false);
    }
    let existed = std::fs::symlink_metadata(path).is_ok();
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|source| Error::Io { context: format!("cannot write output {}", path.display()), source })?;
    Ok(!existed)
}

/// Run opt-22 on the input. Returns opt's exit code on success or when opt
/// reports anything other than unreadable input.
///
/// # Errors
/// [`Error::Input`] for an unreadable or non-IR input (with opt's own first
/// error line), [`Error::Missing`]/[`Error::Spawn`] for a missing plugin or opt-22,
/// [`Error::Unusable`] for a `COPIERGEN_OPT` of another LLVM version,
/// [`Error::Io`] for an output that cannot be written.
pub fn run(a: &OptArgs) -> Result<i32, Error> {
    check_input(&a.input)?;
    let plugin = Layout::from_current_exe().plugin()?;
    let overridden = std::env::var_os("COPIERGEN_OPT").filter(|v| !v.is_empty());
    if let Some(o) = &overridden {
        crate::tools::check_llvm_major(o, "COPIERGEN_OPT")?;
    }
    let opt = overridden.unwrap_or_else(|| "opt-22".into());
    let created = open_output(&a.output)?;
    let mut cmd = Command::new(&opt);
    let mut load = OsString::from("-load-pass-plugin=");
    load.push(&plugin);
    cmd.arg(load).arg(format!("-passes={}", a.passes)).arg(&a.input).arg("-o").arg(&a.output);
    if a.text {
        cmd.arg("-S");
    }
    if a.remarks {
        cmd.arg("-pass-remarks=copiergen").arg("-pass-remarks-missed=copiergen");
    }
    cmd.args(&a.opt_args);
    if let Some(t) = a.threshold {
        cmd.arg(format!("-copiergen-threshold={t}"));
    }
    if a.verbose {
        eprintln!("{}", crate::show_command(&cmd));
    }
    let out = cmd.stdout(std::process::Stdio::inherit()).stderr(std::process::Stdio::piped()).spawn();
    let child = out.map_err(|e| Error::Spawn {
        program: opt.to_string_lossy().into_owned(),
        source: e,
        fix: "install llvm-22 (bash scripts/deps.sh) or set COPIERGEN_OPT".into(),
    })?;
    let out = child.wait_with_output().map_err(|e| Error::Io { context: "waiting for opt-22".into(), source: e })?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(1);
    if code != 0 && created {
        // Leave no empty output behind a failed run (opt itself removes a
        // file it created; this one copiergen created).
        let _ = std::fs::remove_file(&a.output);
    }
    if code != 0 {
        // opt reports a parse failure as "<file>:L:C: error: …" or "error: …".
        if let Some(line) = stderr.lines().find(|l| l.contains("error:")) {
            let reason = line.split("error:").nth(1).unwrap_or(line).trim().to_owned();
            if line.contains(&*a.input.to_string_lossy()) || stderr.contains("Invalid bitcode") || stderr.contains("Could not open input") {
                let detail = verifier_detail(&stderr, line);
                return Err(Error::Input { path: a.input.clone(), reason: format!("not valid LLVM IR: {reason}{detail}") });
            }
        }
    }
    eprint!("{stderr}");
    Ok(code)
}

/// Most verifier lines [`verifier_detail`] keeps.
const MAX_VERIFIER_LINES: usize = 8;

/// What opt printed before its `error:` line (for a module that fails
/// verification, the verifier's messages: the rule broken and the
/// instructions involved, `Instruction does not dominate all uses!` then
/// the definition and the use), as one line: ` (line; line; …)`, at most
/// [`MAX_VERIFIER_LINES`] lines with a count of the rest; empty if none.
fn verifier_detail(stderr: &str, error_line: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .take_while(|l| *l != error_line)
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.contains("error:"))
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let mut out = lines.iter().take(MAX_VERIFIER_LINES).copied().collect::<Vec<_>>().join("; ");
    if lines.len() > MAX_VERIFIER_LINES {
        out.push_str(&format!("; … {} more lines", lines.len() - MAX_VERIFIER_LINES));
    }
    format!(" ({out})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_bitcode_text_and_garbage() {
        assert!(looks_like_ir(b"BC\xC0\xDE\x35\x14").is_ok());
        assert!(looks_like_ir(&[0xDE, 0xC0, 0x17, 0x0B, 0, 0]).is_ok());
        assert!(looks_like_ir(b"; ModuleID = 'a'\ndefine void @f() {\n ret void\n}\n").is_ok());
        assert!(looks_like_ir(b"\x7fELF\x02\x01\x01\0\0\0").is_err());
    }

    #[test]
    fn verifier_messages_are_kept_on_one_line() {
        let err = "Instruction does not dominate all uses!\n  %x = add i32 %a, 1\n  %y = add i32 %x, 1\n\
                   opt-22: dom.ll: error: input module is broken!\n";
        let line = err.lines().find(|l| l.contains("error:")).unwrap();
        assert_eq!(verifier_detail(err, line), " (Instruction does not dominate all uses!; %x = add i32 %a, 1; %y = add i32 %x, 1)");
        assert_eq!(verifier_detail("opt-22: a.ll:1:1: error: expected top-level entity\n", "opt-22: a.ll:1:1: error: expected top-level entity"), "");
        let many: String = (0..20).map(|i| format!("line {i}\n")).collect::<String>() + "opt-22: x.ll: error: input module is broken!\n";
        let d = verifier_detail(&many, "opt-22: x.ll: error: input module is broken!");
        assert!(d.ends_with("; line 7; … 12 more lines)") && !d.contains('\n'), "{d}");
    }
}
