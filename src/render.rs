//! Rendering of diagnostics for people (rustc-style, drawn by
//! annotate-snippets: file:line:col, the offending lines with the primary
//! span and every labelled secondary span, notes and the hint) or for tools
//! (one JSON object per line on stderr).

use crate::commands::Format;
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use nfc_core::{Diagnostic, Severity, Span};
use std::collections::HashMap;
use std::io::Write;

/// Render diagnostics on stderr in the chosen format.
pub fn diagnostics(diags: &[Diagnostic], format: Format) {
    let mut err = std::io::stderr().lock();
    let _ = match format {
        Format::Json => writeln!(err, "{}", serde_json::json!({ "diagnostics": diags })),
        Format::Human => {
            let mut sources = Sources::default();
            let mut text = String::new();
            for d in diags {
                text.push_str(&human(d, &mut sources));
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

/// The text of every file a batch of diagnostics points into, each read once
/// (`None` when it cannot be read: the location is then shown without a
/// snippet).
#[derive(Debug, Default)]
pub struct Sources {
    files: HashMap<String, Option<String>>,
}

impl Sources {
    /// Read `file` unless it was read before.
    fn load(&mut self, file: &str) {
        self.files
            .entry(file.to_string())
            .or_insert_with(|| std::fs::read_to_string(file).ok());
    }

    /// The text of a file [`Self::load`] read.
    fn text(&self, file: &str) -> Option<&str> {
        self.files.get(file).and_then(|t| t.as_deref())
    }
}

/// Byte offset of 1-based `line`, `col` (columns count characters) in `text`;
/// `None` past the end of the text.
fn offset(text: &str, line: u32, col: u32) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line as usize - 2)?.0 + 1
    };
    let rest = &text[start..];
    let line_len = rest.find('\n').unwrap_or(rest.len());
    let within = rest[..line_len]
        .char_indices()
        .nth(col.saturating_sub(1) as usize)
        .map_or(line_len, |(i, _)| i);
    Some(start + within)
}

/// The byte range `span` covers in `text`; a point span covers one character.
fn range(text: &str, span: &Span) -> Option<std::ops::Range<usize>> {
    let start = offset(text, span.line, span.col)?;
    let end = offset(text, span.end_line, span.end_col)
        .filter(|e| *e > start)
        .unwrap_or_else(|| {
            text[start..]
                .chars()
                .next()
                .filter(|c| *c != '\n')
                .map_or(start, |c| start + c.len_utf8())
        });
    Some(start..end)
}

/// Human text of one diagnostic, rustc-style: the title, then (when the
/// primary span's file can be read) the snippet annotate-snippets draws with
/// the primary span and the labelled secondary spans, else the location
/// alone; then `= note:` and `= hint:` lines.
pub fn human(d: &Diagnostic, sources: &mut Sources) -> String {
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    for s in d.span.iter().chain(d.labels.iter().map(|l| &l.span)) {
        if s.line > 0 {
            sources.load(&s.file);
        }
    }
    let sources: &Sources = sources;
    let mut out = match d.span.as_ref().and_then(|s| snippet(d, s, sources)) {
        Some(text) => text,
        None => {
            let mut t = format!("{sev}[{}]: {}\n", d.code, d.message);
            if let Some(span) = &d.span {
                t.push_str(&format!("  --> {span}\n"));
            }
            t
        }
    };
    for n in &d.notes {
        out.push_str(&format!("  = note: {n}\n"));
    }
    if let Some(h) = &d.hint {
        out.push_str(&format!("  = hint: {h}\n"));
    }
    out
}

/// The title and source snippet of `d` drawn by annotate-snippets; `None`
/// when the primary span's file cannot be read or the span lies outside it.
fn snippet(d: &Diagnostic, span: &Span, sources: &Sources) -> Option<String> {
    if span.line == 0 {
        return None;
    }
    let text = sources.text(&span.file)?;
    let primary = range(text, span)?;
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
    };
    // Secondary spans in the same file join the primary snippet; those
    // elsewhere get a snippet of their own.
    let mut main = Snippet::source(text)
        .path(span.file.as_str())
        .fold(true)
        .annotation(AnnotationKind::Primary.span(primary));
    let mut others = vec![];
    for l in &d.labels {
        let Some((lt, lr)) = sources
            .text(&l.span.file)
            .filter(|_| l.span.line > 0)
            .and_then(|lt| Some((lt, range(lt, &l.span)?)))
        else {
            continue;
        };
        let a = AnnotationKind::Context.span(lr).label(l.message.as_str());
        if l.span.file == span.file {
            main = main.annotation(a);
        } else {
            others.push(
                Snippet::source(lt)
                    .path(l.span.file.as_str())
                    .fold(true)
                    .annotation(a),
            );
        }
    }
    let report = [
        Group::with_title(level.primary_title(d.message.as_str()).id(d.code.as_str()))
            .element(main)
            .elements(others),
    ];
    let mut out = Renderer::plain().render(&report);
    out.push('\n');
    Some(out)
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
