//! MLIR diagnostics, captured from the context and printed as `mlir-opt`
//! prints them (`file:line:col: error: message`, notes after their error).

use std::cell::RefCell;
use std::rc::Rc;

use melior::diagnostic::{Diagnostic, DiagnosticSeverity};
use melior::ir::Location;
use melior::Context;

/// One captured diagnostic, already formatted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// `error`, `warning`, `remark` or `note`.
    pub severity: &'static str,
    /// `file:line:col`, or `<unknown>`.
    pub location: String,
    /// The message, without location or severity.
    pub message: String,
}

impl std::fmt::Display for Diag {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.location, self.severity, self.message)
    }
}

/// The diagnostics a context emitted since [`Diagnostics::attach`], in order.
#[derive(Clone, Default)]
pub struct Diagnostics(Rc<RefCell<Vec<Diag>>>);

impl Diagnostics {
    /// Captures every diagnostic of `ctx` from now on (none reaches stderr).
    pub fn attach(ctx: &Context) -> Self {
        let d = Self::default();
        let sink = d.0.clone();
        ctx.attach_diagnostic_handler(move |diag: Diagnostic| {
            push(&sink, &diag);
            true
        });
        d
    }

    /// Takes the diagnostics captured so far.
    pub fn take(&self) -> Vec<Diag> {
        std::mem::take(&mut self.0.borrow_mut())
    }

    /// Whether an error was captured and not yet taken.
    pub fn has_error(&self) -> bool {
        self.0.borrow().iter().any(|d| d.severity == "error")
    }
}

fn push(sink: &Rc<RefCell<Vec<Diag>>>, diag: &Diagnostic) {
    let severity = match diag.severity() {
        DiagnosticSeverity::Error => "error",
        DiagnosticSeverity::Warning => "warning",
        DiagnosticSeverity::Remark => "remark",
        DiagnosticSeverity::Note => "note",
    };
    sink.borrow_mut().push(Diag { severity, location: location_string(diag.location()), message: diag.to_string() });
    for i in 0..diag.note_count() {
        if let Ok(note) = diag.note(i) {
            push(sink, &note);
        }
    }
}

/// `file:line:col` of a location (the first file location inside a name,
/// call-site or fused location), or `<unknown>`.
pub fn location_string(loc: Location) -> String {
    if loc.is_file_line_col_range() {
        return format!(
            "{}:{}:{}",
            loc.file_line_col_range_filename().as_string_ref().as_str().unwrap_or("?"),
            loc.file_line_col_range_start_line(),
            loc.file_line_col_range_start_column()
        );
    }
    if loc.is_name() {
        return location_string(loc.name_child_location());
    }
    if loc.is_call_site() {
        return location_string(loc.call_site_callee());
    }
    if loc.is_fused() {
        for i in 0..loc.fused_num_locations() {
            let s = location_string(loc.fused_location(i));
            if s != "<unknown>" {
                return s;
            }
        }
    }
    "<unknown>".to_owned()
}

/// `line:col` of a location, for remarks that point at another operation.
pub fn line_col(loc: Location) -> String {
    let s = location_string(loc);
    let mut parts = s.rsplitn(3, ':');
    match (parts.next(), parts.next()) {
        (Some(c), Some(l)) if s != "<unknown>" => format!("{l}:{c}"),
        _ => s,
    }
}
