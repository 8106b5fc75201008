//! Rendering of diagnostics for people (file:line:col, the offending line, a
//! caret and the hint) or for tools (one JSON object per line on stderr).

use crate::commands::Format;
use nfc_core::{Diagnostic, Severity};
use std::io::Write;

/// Render diagnostics on stderr in the chosen format.
pub fn diagnostics(diags: &[Diagnostic], format: Format) {
    let mut err = std::io::stderr().lock();
    let _ = match format {
        Format::Json => writeln!(err, "{}", serde_json::json!({ "diagnostics": diags })),
        Format::Human => {
            let mut text = String::new();
            for d in diags {
                text.push_str(&human(d));
            }
            let errors = diags
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            if errors > 0 {
                text.push_str(&format!(
                    "{errors} error{} found\n",
                    if errors == 1 { "" } else { "s" }
                ));
            }
            err.write_all(text.as_bytes())
        }
    };
}

/// Human text of one diagnostic, rustc-style.
pub fn human(d: &Diagnostic) -> String {
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    let mut out = format!("{sev}[{}]: {}\n", d.code, d.message);
    if let Some(span) = &d.span {
        out.push_str(&format!("  --> {span}\n"));
        if span.line > 0 {
            if let Some(line) = std::fs::read_to_string(&span.file)
                .ok()
                .and_then(|t| t.lines().nth(span.line as usize - 1).map(str::to_string))
            {
                let num = span.line.to_string();
                let pad = " ".repeat(num.len());
                let caret_at = " ".repeat(span.col.saturating_sub(1) as usize);
                out.push_str(&format!("{pad} |\n{num} | {line}\n{pad} | {caret_at}^\n"));
            }
        }
    }
    for n in &d.notes {
        out.push_str(&format!("  = note: {n}\n"));
    }
    if let Some(h) = &d.hint {
        out.push_str(&format!("  = hint: {h}\n"));
    }
    out
}

/// Render an internal error (exit 2): a bug or an environment problem, not bad input.
pub fn internal(err: &anyhow::Error, format: Format) {
    let mut e = std::io::stderr().lock();
    let _ = match format {
        Format::Json => writeln!(e, "{}", serde_json::json!({ "internal_error": format!("{err:#}") })),
        Format::Human => writeln!(e, "internal error: {err:#}\n  = note: this is a bug or an environment problem, not a problem with your input"),
    };
}
