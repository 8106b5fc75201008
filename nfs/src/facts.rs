//! Reading an NF's shipped `facts.yaml` (its ground-truth analysis) into
//! [`nfc_core::Facts`] with `backend = Declared`. The format is strict:
//! unknown keys (`deny_unknown_fields`), unknown fields and contradictions (a
//! stateless NF with a flow key, a stateful one with intensity `none`) are
//! errors with a line and column, so a typo in ground truth cannot silently
//! change what the analyzer is scored against.

use crate::NfsError;
use nfc_core::facts::{Backend, Field, Intensity, SplitHazard, StateObject};
use nfc_core::yaml::{self, FromStrError};
use nfc_core::Facts;
use serde::Deserialize;
use std::path::Path;

/// The file format: what `facts.yaml` may say, and nothing else.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FactsFile {
    nf: String,
    stateful: bool,
    #[serde(default, deserialize_with = "fields")]
    flow_key: Vec<Field>,
    symmetric: bool,
    #[serde(deserialize_with = "intensity")]
    intensity: Intensity,
    pointer_chasing: bool,
    #[serde(default)]
    state_entry_bytes: Option<u64>,
    #[serde(default)]
    state_objects: Vec<ObjectFile>,
    #[serde(default)]
    split_hazards: Vec<HazardFile>,
    /// Free text for people; not part of the facts.
    #[serde(default)]
    #[allow(dead_code)]
    notes: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ObjectFile {
    name: String,
    #[serde(default, deserialize_with = "fields")]
    key: Vec<Field>,
    #[serde(default)]
    entry_bytes: Option<u64>,
    #[serde(default)]
    capacity: Option<u64>,
    per_flow: bool,
    #[serde(default)]
    pointer_chasing: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HazardFile {
    object: String,
    reason: String,
}

/// A sorted, de-duplicated list of field names (the messages of `Field`'s
/// `FromStr`, which list the valid names).
fn fields<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Field>, D::Error> {
    let names = Option::<Vec<String>>::deserialize(d)?.unwrap_or_default();
    let mut out = names
        .iter()
        .map(|s| s.parse::<Field>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(serde::de::Error::custom)?;
    out.sort();
    out.dedup();
    Ok(out)
}

fn intensity<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Intensity, D::Error> {
    String::deserialize(d)?
        .parse()
        .map_err(serde::de::Error::custom)
}

/// Load `facts.yaml` from disk.
pub fn load_facts(path: &Path) -> Result<Facts, NfsError> {
    let text = std::fs::read_to_string(path).map_err(|e| NfsError::io(path, e))?;
    parse_facts(&text, path)
}

/// Parse the text of a `facts.yaml`; `path` is only used in errors.
pub fn parse_facts(text: &str, path: &Path) -> Result<Facts, NfsError> {
    let bad = |message: String| NfsError::InvalidFacts {
        path: path.to_path_buf(),
        message,
    };
    let f: FactsFile = yaml::from_str(text, &path.display().to_string()).map_err(|e| match e {
        FromStrError::Syntax(d) => {
            let message = d.message.trim_start_matches("invalid YAML: ");
            NfsError::Yaml {
                path: path.to_path_buf(),
                message: match &d.span {
                    Some(s) if s.line > 0 => format!("{}:{}: {message}", s.line, s.col),
                    _ => message.to_string(),
                },
            }
        }
        FromStrError::Shape(e) if e.line > 0 => bad(format!("{}:{}: {}", e.line, e.col, e.message)),
        FromStrError::Shape(e) => bad(e.message),
    })?;
    for (i, h) in f.split_hazards.iter().enumerate() {
        if h.object.trim().is_empty() || h.reason.trim().is_empty() {
            return Err(bad(format!(
                "split_hazards[{i}]: object and reason must not be empty"
            )));
        }
    }
    if !f.split_hazards.is_empty() && !f.stateful {
        return Err(bad(
            "split_hazards: a stateless NF keeps no state that could be split".into(),
        ));
    }
    if f.stateful {
        // An empty flow_key on a stateful NF is global state (no field set
        // keeps every entry on one core, e.g. a MAC table learned by source
        // and read by destination): the placer keeps such an NF shared.
        if f.intensity == Intensity::None {
            return Err(bad("a stateful NF cannot have intensity `none`".into()));
        }
    } else if !f.flow_key.is_empty()
        || f.intensity != Intensity::None
        || f.symmetric
        || f.pointer_chasing
    {
        return Err(bad(
            "a stateless NF must have an empty flow_key, intensity `none`, symmetric and pointer_chasing false".into(),
        ));
    }
    Ok(Facts {
        nf: f.nf,
        stateful: f.stateful,
        flow_key: f.flow_key,
        symmetric: f.symmetric,
        intensity: f.intensity,
        pointer_chasing: f.pointer_chasing,
        state_objects: f
            .state_objects
            .into_iter()
            .map(|o| StateObject {
                name: o.name,
                key: o.key,
                entry_bytes: o.entry_bytes,
                capacity: o.capacity,
                per_flow: o.per_flow,
                pointer_chasing: o.pointer_chasing,
            })
            .collect(),
        state_entry_bytes: f.state_entry_bytes,
        per_packet_cost: None,
        source_cost: None,
        accelerators: vec![],
        confidence: 1.0,
        backend: Backend::Declared,
        evidence: vec![],
        split_hazards: f
            .split_hazards
            .into_iter()
            .map(|h| SplitHazard {
                object: h.object,
                reason: h.reason,
                file: None,
                line: None,
            })
            .collect(),
        unknown: vec![],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse `input`; compare the Ok summary or the error text with `expect`.
    fn check(input: &str, expect: &str) {
        let got = match parse_facts(input, Path::new("t.yaml")) {
            Ok(f) => format!(
                "{} stateful={} key={:?} sym={} {} pc={} bytes={:?} objects={}",
                f.nf,
                f.stateful,
                f.flow_key.iter().map(|k| k.name()).collect::<Vec<_>>(),
                f.symmetric,
                f.intensity,
                f.pointer_chasing,
                f.state_entry_bytes,
                f.state_objects.len()
            ),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(got, expect, "input:\n{input}");
    }

    #[test]
    fn parses_and_validates() {
        check(
            "nf: a\nstateful: true\nflow_key: [dst_ip, src_ip]\nsymmetric: false\nintensity: per-flow\npointer_chasing: false\nstate_entry_bytes: 24\nstate_objects:\n  - {name: t, key: [src_ip], entry_bytes: 24, capacity: 8, per_flow: true}\n",
            r#"a stateful=true key=["src_ip", "dst_ip"] sym=false per-flow pc=false bytes=Some(24) objects=1"#,
        );
        check(
            "nf: b\nstateful: false\nflow_key: []\nsymmetric: false\nintensity: none\npointer_chasing: false\n",
            "b stateful=false key=[] sym=false none pc=false bytes=None objects=0",
        );
        check(
            "nf: c\nstateful: false\nflow_key: [src_ip]\nsymmetric: false\nintensity: none\npointer_chasing: false\n",
            "error: t.yaml: invalid facts: a stateless NF must have an empty flow_key, intensity `none`, symmetric and pointer_chasing false",
        );
        check(
            "nf: d\nstateful: true\nflow_key: [src_ip]\nsymmetric: false\nintensity: none\npointer_chasing: false\n",
            "error: t.yaml: invalid facts: a stateful NF cannot have intensity `none`",
        );
        check(
            "nf: e\nstateful: true\nflow_key: [src_addr]\nsymmetric: false\nintensity: per-packet\npointer_chasing: false\n",
            "error: t.yaml: invalid facts: 3:11: unknown field `src_addr` (expected one of: src_ip, dst_ip, src_port, dst_port, proto, src_mac, dst_mac)",
        );
        check(
            "nf: f\nstatefull: true\n",
            "error: t.yaml: invalid facts: 2:1: unknown field `statefull`, expected one of `nf`, `stateful`, `flow_key`, `symmetric`, `intensity`, `pointer_chasing`, `state_entry_bytes`, `state_objects`, `split_hazards`, `notes`",
        );
        let base = "nf: g\nstateful: true\nflow_key: [src_ip]\nsymmetric: false\nintensity: per-flow\npointer_chasing: false\nstate_objects:\n  - {name: cursor, key: [], per_flow: false}\n";
        let hazards = |h: &str| {
            parse_facts(&format!("{base}split_hazards: {h}\n"), Path::new("t.yaml"))
                .map(|f| f.split_hazards.len())
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            hazards("[{object: cursor, reason: global port cursor}]"),
            Ok(1)
        );
        assert!(hazards("[{object: ' ', reason: x}]")
            .unwrap_err()
            .contains("must not be empty"));
        let e = hazards("[{object: cursor}]").unwrap_err();
        assert!(e.contains("9:17: missing field `reason`"), "{e}");
        assert!(hazards("[{object: cursor, reason: x, why: y}]")
            .unwrap_err()
            .contains("9:45: unknown field `why`"));
        let e = hazards("cursor").unwrap_err();
        assert!(
            e.contains("9:16: ") && e.contains("expected a sequence"),
            "{e}"
        );
        check(
            "nf: h\nstateful: false\nflow_key: []\nsymmetric: false\nintensity: none\npointer_chasing: false\nsplit_hazards: [{object: x, reason: y}]\n",
            "error: t.yaml: invalid facts: split_hazards: a stateless NF keeps no state that could be split",
        );
        check(
            "[1, 2",
            "error: t.yaml: invalid YAML: 2:1: while parsing a flow sequence, expected ',' or ']'",
        );
    }
}
