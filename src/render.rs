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

/// One progress line of the reduce stage (stderr, human format).
pub fn reduce_progress(p: &nfc::reduce::Progress) -> String {
    use nfc::reduce::Progress;
    match p {
        Progress::Compile { nfs } => format!("reduce: building {nfs} NF(s) with clang-19"),
        Progress::Probe { nfs } => format!("reduce: probing nf_init of {nfs} NF(s) with their configuration"),
        Progress::Passes {
            passes,
            verify_packets,
        } => format!(
            "reduce: running {passes} passes, then the differential check on about {verify_packets} packets"
        ),
    }
}

/// The human summary of a reduction (stderr).
pub fn reduce_summary(s: &nfc::reduce::ReduceSummary, files: &nfc::reduce::ReducedFiles) -> String {
    let pct = |before: u64, after: u64| {
        if before == 0 {
            0.0
        } else {
            100.0 * (before as f64 - after as f64) / before as f64
        }
    };
    let mut t = format!(
        "reduced {} into {}\n",
        s.nfs.join(" → "),
        files.so.display()
    );
    t.push_str(&format!(
        "  passes run: {} ({})\n",
        s.passes.len(),
        s.passes.join(", ")
    ));
    t.push_str(&format!(
        "  instructions: {} → {} ({:.0}% removed)\n  basic blocks: {} → {} ({:.0}% removed)\n",
        s.instructions_before,
        s.instructions_after,
        pct(s.instructions_before, s.instructions_after),
        s.blocks_before,
        s.blocks_after,
        pct(s.blocks_before, s.blocks_after),
    ));
    let total: usize = s.removals_by_pass.values().sum();
    let by: Vec<String> = s
        .removals_by_pass
        .iter()
        .map(|(p, n)| format!("{p} {n}"))
        .collect();
    t.push_str(&format!(
        "  changes reported: {total}{}\n",
        if by.is_empty() {
            String::new()
        } else {
            format!(" ({})", by.join(", "))
        }
    ));
    if s.observability_kept > 0 {
        t.push_str(&format!(
            "  observability logic kept: {} call(s) (--strip-observability removes them)\n",
            s.observability_kept
        ));
    }
    match &s.verification {
        Some(v) => t.push_str(&format!(
            "  differential check: {} packets, 0 mismatches ({} dropped, {} forwarded), final state equal\n",
            v.packets, v.dropped, v.forwarded
        )),
        None => t.push_str("  differential check: not run\n"),
    }
    t.push_str(&format!("  took {} ms\n", s.millis));
    t
}

/// The whole-chain differential check of a reduction (stderr).
pub fn chain_check(c: &nfc::reduce::ChainCheck, segments: usize) -> String {
    format!(
        "reduced chain ({segments} module{}) checked against the original: {} packets, {} exits and {} drops alike ({} ms)",
        if segments == 1 { "" } else { "s" },
        c.packets,
        c.exits,
        c.dropped,
        c.millis
    )
}
