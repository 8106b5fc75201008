//! Counter CSVs → experiments of samples.
//!
//! Two layouts are read by one parser, by column name: the onvm datasets
//! (`../shared/data/onvm`: an unnamed row-index column, `input_rate`,
//! `output_rate`, `latency`, then `<nf>_<counter>`) and nfc's own schema (the
//! same without the index column). `latency` may be absent (one onvm file has
//! none). Every other column is a counter, matched across files by name.
//!
//! The quirks of the published data are handled here, in one place:
//! - git merge-conflict markers (`<<<<<<<`, `=======`, `>>>>>>>`): the file
//!   holds two versions of the experiment. [`ConflictPolicy`] rejects them
//!   with the marker's line (the default) or keeps one side or both, each
//!   side an experiment of its own;
//! - latency at or above [`CENSORED_LATENCY`] is the fill value written when
//!   no probe came back: a censored sample ([`Latency::Censored`]), never a
//!   latency;
//! - rows with `output_rate` 0 (the warm-up row) carry no throughput and are
//!   dropped and counted;
//! - all-zero counter columns are kept here and dropped by feature selection
//!   (`features.rs`), which sees only the training fold.
//!
//! A malformed file is an error located at `path:line:column`; the parser
//! never panics (fuzzed by `tests/loader_fuzz.rs`).

use std::fmt;
use std::path::{Path, PathBuf};

/// Latencies at or above this are the "no probe returned" fill value (15000.0
/// in the onvm data, a few rows slightly above it).
pub const CENSORED_LATENCY: f64 = 15000.0;

/// What to do with git merge-conflict markers in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConflictPolicy {
    /// A located error at the first marker.
    #[default]
    Reject,
    /// Keep the side between `<<<<<<<` and `=======`.
    Head,
    /// Keep the side between `=======` and `>>>>>>>`.
    Other,
    /// Keep both sides, each an experiment of its own.
    Both,
}

/// A latency cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Latency {
    /// A measured latency (the unit the file uses).
    Measured(f64),
    /// No probe came back (the fill value): congested or lost.
    Censored,
    /// The file has no latency column.
    Absent,
}

/// One sample (one CSV row).
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// 1-based line in the file.
    pub line: usize,
    pub input_rate: Option<f64>,
    pub output_rate: f64,
    pub latency: Latency,
    /// In the order of [`Experiment::counters`].
    pub counters: Vec<f64>,
}

/// One experiment: a file, or one side of a file with conflict markers.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    /// The path, plus `#head` / `#other` for one side of a conflicted file.
    pub name: String,
    pub path: PathBuf,
    /// Counter column names (`<nf>_<counter>`), in file order.
    pub counters: Vec<String>,
    pub samples: Vec<Sample>,
    /// Rows dropped because `output_rate` was 0 (warm-up).
    pub warmup_dropped: usize,
}

impl Experiment {
    /// Index of a counter column by name.
    pub fn counter_index(&self, name: &str) -> Option<usize> {
        self.counters.iter().position(|c| c == name)
    }
}

/// Where in a file something is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub path: PathBuf,
    pub line: usize,
    /// 1-based column (CSV field), when one field is at fault.
    pub field: Option<usize>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.line)?;
        if let Some(c) = self.field {
            write!(f, " (field {c})")?;
        }
        Ok(())
    }
}

/// Errors of the loader.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{at}: {message}")]
    Malformed { at: Location, message: String },
}

impl DataError {
    /// The location of a malformed-file error.
    pub fn location(&self) -> Option<&Location> {
        match self {
            DataError::Malformed { at, .. } => Some(at),
            DataError::Io { .. } => None,
        }
    }
}

/// Load one CSV file.
pub fn load_file(path: &Path, policy: ConflictPolicy) -> Result<Vec<Experiment>, DataError> {
    let bytes = std::fs::read(path).map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(path, &bytes, policy)
}

/// Load several files (each may give one or two experiments).
pub fn load_files(paths: &[PathBuf], policy: ConflictPolicy) -> Result<Vec<Experiment>, DataError> {
    let mut out = vec![];
    for p in paths {
        out.extend(load_file(p, policy)?);
    }
    Ok(out)
}

/// Which conflict side a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Clean,
    Head,
    Other,
}

/// Roles of the header's columns.
struct Header {
    n_fields: usize,
    index: Option<usize>,
    input_rate: Option<usize>,
    output_rate: usize,
    latency: Option<usize>,
    /// (field, name)
    counters: Vec<(usize, String)>,
}

fn malformed(
    path: &Path,
    line: usize,
    field: Option<usize>,
    message: impl Into<String>,
) -> DataError {
    DataError::Malformed {
        at: Location {
            path: path.to_path_buf(),
            line,
            field,
        },
        message: message.into(),
    }
}

/// Parse a file's bytes (public for the fuzz test, which needs no files).
pub fn parse(
    path: &Path,
    bytes: &[u8],
    policy: ConflictPolicy,
) -> Result<Vec<Experiment>, DataError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            return Err(malformed(path, line, None, "not UTF-8 text"));
        }
    };
    let mut lines = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)));
    let (header_line, header_text) = loop {
        match lines.next() {
            Some((_, l)) if l.trim().is_empty() => continue,
            Some(x) => break x,
            None => {
                return Err(malformed(
                    path,
                    1,
                    None,
                    "empty file: expected a header line",
                ))
            }
        }
    };
    if is_marker(header_text).is_some() {
        return Err(malformed(
            path,
            header_line,
            None,
            "merge-conflict marker where the header should be",
        ));
    }
    let header = parse_header(path, header_line, header_text)?;
    let counter_names: Vec<String> = header.counters.iter().map(|(_, n)| n.clone()).collect();

    let mut side = Side::Clean;
    let mut saw_conflict = false;
    let mut clean = vec![];
    let mut head = vec![];
    let mut other = vec![];
    let mut warm = [0usize; 3];
    for (line, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        if let Some(marker) = is_marker(l) {
            if policy == ConflictPolicy::Reject {
                return Err(malformed(
                    path,
                    line,
                    None,
                    format!("git merge-conflict marker `{}`: the file holds two versions of the experiment (choose a side: conflict policy head, other or both)", l.trim()),
                ));
            }
            side = match (side, marker) {
                (Side::Clean, '<') => {
                    saw_conflict = true;
                    Side::Head
                }
                (Side::Head, '=') => Side::Other,
                (Side::Other, '>') => Side::Clean,
                _ => {
                    return Err(malformed(
                        path,
                        line,
                        None,
                        format!("merge-conflict marker `{}` out of order", l.trim()),
                    ));
                }
            };
            continue;
        }
        let Some(sample) = parse_row(path, line, l, &header)? else {
            let slot = match side {
                Side::Clean => 0,
                Side::Head => 1,
                Side::Other => 2,
            };
            warm[slot] += 1;
            continue;
        };
        match side {
            Side::Clean => clean.push(sample),
            Side::Head => head.push(sample),
            Side::Other => other.push(sample),
        }
    }
    if side != Side::Clean {
        return Err(malformed(
            path,
            text.split('\n').count(),
            None,
            "merge conflict not closed (missing `=======` or `>>>>>>>`)",
        ));
    }
    let display = path.display().to_string();
    let make = |name: String, mut samples: Vec<Sample>, warmup_dropped: usize, extra: &[Sample]| {
        samples.extend_from_slice(extra);
        samples.sort_by_key(|s| s.line);
        Experiment {
            name,
            path: path.to_path_buf(),
            counters: counter_names.clone(),
            samples,
            warmup_dropped,
        }
    };
    let experiments = if !saw_conflict {
        vec![make(display, clean, warm[0], &[])]
    } else {
        // Rows outside the conflict belong to both sides.
        let mut v = vec![];
        if matches!(policy, ConflictPolicy::Head | ConflictPolicy::Both) {
            v.push(make(
                format!("{display}#head"),
                head,
                warm[0] + warm[1],
                &clean,
            ));
        }
        if matches!(policy, ConflictPolicy::Other | ConflictPolicy::Both) {
            v.push(make(
                format!("{display}#other"),
                other,
                warm[0] + warm[2],
                &clean,
            ));
        }
        v
    };
    for e in &experiments {
        if e.samples.is_empty() {
            return Err(malformed(
                path,
                header_line,
                None,
                format!(
                    "no samples in {} (rows with output_rate 0 are warm-up and dropped: {})",
                    e.name, e.warmup_dropped
                ),
            ));
        }
    }
    Ok(experiments)
}

/// `Some('<' | '=' | '>')` when the line is a git conflict marker.
fn is_marker(l: &str) -> Option<char> {
    let t = l.trim_end();
    for (prefix, c) in [("<<<<<<<", '<'), (">>>>>>>", '>')] {
        if t.starts_with(prefix) {
            return Some(c);
        }
    }
    (t == "=======").then_some('=')
}

fn parse_header(path: &Path, line: usize, text: &str) -> Result<Header, DataError> {
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    let mut h = Header {
        n_fields: fields.len(),
        index: None,
        input_rate: None,
        output_rate: usize::MAX,
        latency: None,
        counters: vec![],
    };
    let mut seen = std::collections::HashSet::new();
    for (i, name) in fields.iter().enumerate() {
        let name = name.trim_matches('"');
        if !seen.insert(name) {
            return Err(malformed(
                path,
                line,
                Some(i + 1),
                format!("duplicate column `{name}`"),
            ));
        }
        match name {
            "" | "index" if i == 0 => h.index = Some(i),
            "" => {
                return Err(malformed(
                    path,
                    line,
                    Some(i + 1),
                    "unnamed column (only the first column, the row index, may be unnamed)",
                ))
            }
            "input_rate" => h.input_rate = Some(i),
            "output_rate" => h.output_rate = i,
            "latency" => h.latency = Some(i),
            counter => {
                if !counter.contains('_') || counter.starts_with('_') || counter.ends_with('_') {
                    return Err(malformed(
                        path,
                        line,
                        Some(i + 1),
                        format!("column `{counter}` is not `input_rate`, `output_rate`, `latency` or an `<nf>_<counter>` counter"),
                    ));
                }
                h.counters.push((i, counter.to_string()));
            }
        }
    }
    if h.output_rate == usize::MAX {
        return Err(malformed(
            path,
            line,
            None,
            "no `output_rate` column in the header",
        ));
    }
    if h.counters.is_empty() {
        return Err(malformed(
            path,
            line,
            None,
            "no `<nf>_<counter>` columns in the header",
        ));
    }
    Ok(h)
}

/// One data row; `None` for a warm-up row (output_rate 0).
fn parse_row(
    path: &Path,
    line: usize,
    text: &str,
    h: &Header,
) -> Result<Option<Sample>, DataError> {
    let fields: Vec<&str> = text.split(',').collect();
    if fields.len() != h.n_fields {
        return Err(malformed(
            path,
            line,
            None,
            format!("{} fields, the header has {}", fields.len(), h.n_fields),
        ));
    }
    let num = |i: usize, what: &str| -> Result<f64, DataError> {
        let cell = fields[i].trim();
        let v: f64 = cell.parse().map_err(|_| {
            malformed(
                path,
                line,
                Some(i + 1),
                format!("{what}: `{}` is not a number", truncate(cell)),
            )
        })?;
        if !v.is_finite() {
            return Err(malformed(
                path,
                line,
                Some(i + 1),
                format!("{what}: `{}` is not finite", truncate(cell)),
            ));
        }
        if v < 0.0 {
            return Err(malformed(
                path,
                line,
                Some(i + 1),
                format!("{what}: negative value {v}"),
            ));
        }
        Ok(v)
    };
    if let Some(i) = h.index {
        num(i, "row index")?;
    }
    let input_rate = h.input_rate.map(|i| num(i, "input_rate")).transpose()?;
    let output_rate = num(h.output_rate, "output_rate")?;
    let latency = match h.latency {
        None => Latency::Absent,
        Some(i) => {
            let v = num(i, "latency")?;
            if v >= CENSORED_LATENCY {
                Latency::Censored
            } else {
                Latency::Measured(v)
            }
        }
    };
    let mut counters = Vec::with_capacity(h.counters.len());
    for (i, name) in &h.counters {
        counters.push(num(*i, name)?);
    }
    if output_rate == 0.0 {
        return Ok(None);
    }
    Ok(Some(Sample {
        line,
        input_rate,
        output_rate,
        latency,
        counters,
    }))
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 24 {
        format!("{}…", s.chars().take(24).collect::<String>())
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, policy: ConflictPolicy) -> Result<Vec<Experiment>, DataError> {
        parse(Path::new("t.csv"), text.as_bytes(), policy)
    }

    #[test]
    fn onvm_layout_with_censored_latency_and_warmup() {
        let e = check(
            ",input_rate,output_rate,latency,a_cycles,a_mem-loads\n0,10,0,5,1,0\n1,10,9,15000.0,2,0\n2,10,9.5,7.5,3,0\n",
            ConflictPolicy::Reject,
        )
        .unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].warmup_dropped, 1);
        assert_eq!(e[0].counters, vec!["a_cycles", "a_mem-loads"]);
        assert_eq!(e[0].samples[0].latency, Latency::Censored);
        assert_eq!(e[0].samples[1].latency, Latency::Measured(7.5));
        assert_eq!(e[0].samples[1].line, 4);
    }

    #[test]
    fn nfc_schema_without_index_or_latency() {
        let e = check(
            "input_rate,output_rate,fw_cycles\n1,1,3\n",
            ConflictPolicy::Reject,
        )
        .unwrap();
        assert_eq!(e[0].samples[0].latency, Latency::Absent);
        assert_eq!(e[0].samples[0].counters, vec![3.0]);
    }

    #[test]
    fn conflict_markers_rejected_with_line_or_split() {
        let text = ",output_rate,latency,a_x\n<<<<<<< HEAD\n0,1,2,3\n=======\n0,1,4,3\n1,2,5,6\n>>>>>>> abc\n";
        let err = check(text, ConflictPolicy::Reject).unwrap_err();
        assert_eq!(err.location().unwrap().line, 2);
        assert!(
            err.to_string()
                .contains("t.csv:2: git merge-conflict marker"),
            "{err}"
        );
        let both = check(text, ConflictPolicy::Both).unwrap();
        assert_eq!(both.len(), 2);
        assert_eq!(both[0].name, "t.csv#head");
        assert_eq!(both[0].samples.len(), 1);
        assert_eq!(both[1].samples.len(), 2);
        assert_eq!(
            check(text, ConflictPolicy::Other).unwrap()[0].samples[0].latency,
            Latency::Measured(4.0)
        );
    }

    #[test]
    fn malformed_cells_are_located() {
        let err = check(",output_rate,a_x\n0,1,2\n1,1,zz\n", ConflictPolicy::Reject).unwrap_err();
        assert_eq!(
            err.location(),
            Some(&Location {
                path: "t.csv".into(),
                line: 3,
                field: Some(3)
            })
        );
        let err = check(",output_rate,a_x\n0,1\n", ConflictPolicy::Reject).unwrap_err();
        assert!(
            err.to_string()
                .contains("t.csv:2: 2 fields, the header has 3"),
            "{err}"
        );
        assert!(check("a_x\n1\n", ConflictPolicy::Reject).is_err());
        assert!(check("", ConflictPolicy::Reject).is_err());
        assert!(check(",output_rate,a_x\n0,0,1\n", ConflictPolicy::Reject).is_err());
    }
}
