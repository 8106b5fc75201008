//! Reading an NF's shipped `facts.yaml` (its ground-truth analysis) into
//! [`nfc_core::Facts`] with `backend = Declared`. The format is strict:
//! unknown keys, unknown fields and contradictions (a stateless NF with a
//! flow key, a stateful one with intensity `none`) are errors, so a typo in
//! ground truth cannot silently change what the analyzer is scored against.

use crate::NfsError;
use nfc_core::facts::{Backend, Field, Intensity, SplitHazard, StateObject};
use nfc_core::Facts;
use std::path::Path;
use yaml_rust2::{Yaml, YamlLoader};

const TOP_KEYS: &[&str] = &[
    "nf",
    "stateful",
    "flow_key",
    "symmetric",
    "intensity",
    "pointer_chasing",
    "state_entry_bytes",
    "state_objects",
    "split_hazards",
    "notes",
];
const HAZARD_KEYS: &[&str] = &["object", "reason"];
const OBJECT_KEYS: &[&str] = &[
    "name",
    "key",
    "entry_bytes",
    "capacity",
    "per_flow",
    "pointer_chasing",
];

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
    let docs = YamlLoader::load_from_str(text).map_err(|e| NfsError::Yaml {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let doc = docs
        .into_iter()
        .next()
        .ok_or_else(|| bad("empty file".into()))?;
    let map = doc
        .as_hash()
        .ok_or_else(|| bad("expected a mapping at the top level".into()))?;
    for k in map.keys() {
        match k.as_str() {
            Some(k) if TOP_KEYS.contains(&k) => {}
            _ => {
                return Err(bad(format!(
                    "unknown key {k:?} (expected one of: {})",
                    TOP_KEYS.join(", ")
                )))
            }
        }
    }
    let nf = req_str(&doc, "nf").map_err(&bad)?;
    let stateful = req_bool(&doc, "stateful").map_err(&bad)?;
    let symmetric = req_bool(&doc, "symmetric").map_err(&bad)?;
    let pointer_chasing = req_bool(&doc, "pointer_chasing").map_err(&bad)?;
    let intensity: Intensity = req_str(&doc, "intensity")
        .map_err(&bad)?
        .parse()
        .map_err(&bad)?;
    let flow_key = fields(&doc["flow_key"], "flow_key").map_err(&bad)?;
    let state_entry_bytes =
        opt_u64(&doc["state_entry_bytes"], "state_entry_bytes").map_err(&bad)?;

    let mut state_objects = vec![];
    match &doc["state_objects"] {
        Yaml::BadValue | Yaml::Null => {}
        Yaml::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                state_objects.push(state_object(item, i).map_err(&bad)?);
            }
        }
        _ => return Err(bad("state_objects: expected a list".into())),
    }

    let mut split_hazards = vec![];
    match &doc["split_hazards"] {
        Yaml::BadValue | Yaml::Null => {}
        Yaml::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                split_hazards.push(split_hazard(item, i).map_err(&bad)?);
            }
        }
        _ => return Err(bad("split_hazards: expected a list".into())),
    }
    if !split_hazards.is_empty() && !stateful {
        return Err(bad(
            "split_hazards: a stateless NF keeps no state that could be split".into(),
        ));
    }

    if stateful {
        if flow_key.is_empty() {
            return Err(bad("a stateful NF needs a non-empty flow_key".into()));
        }
        if intensity == Intensity::None {
            return Err(bad("a stateful NF cannot have intensity `none`".into()));
        }
    } else if !flow_key.is_empty() || intensity != Intensity::None || symmetric || pointer_chasing {
        return Err(bad(
            "a stateless NF must have an empty flow_key, intensity `none`, symmetric and pointer_chasing false".into(),
        ));
    }

    Ok(Facts {
        nf,
        stateful,
        flow_key,
        symmetric,
        intensity,
        pointer_chasing,
        state_objects,
        state_entry_bytes,
        per_packet_cost: None,
        source_cost: None,
        accelerators: vec![],
        confidence: 1.0,
        backend: Backend::Declared,
        evidence: vec![],
        split_hazards,
        unknown: vec![],
    })
}

fn req_str(doc: &Yaml, key: &str) -> Result<String, String> {
    doc[key]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{key}: expected a string"))
}

fn req_bool(doc: &Yaml, key: &str) -> Result<bool, String> {
    doc[key]
        .as_bool()
        .ok_or_else(|| format!("{key}: expected true or false"))
}

fn opt_u64(v: &Yaml, what: &str) -> Result<Option<u64>, String> {
    match v {
        Yaml::BadValue | Yaml::Null => Ok(None),
        Yaml::Integer(i) if *i >= 0 => Ok(Some(*i as u64)),
        _ => Err(format!("{what}: expected a non-negative integer")),
    }
}

/// A sorted, de-duplicated list of fields.
fn fields(v: &Yaml, what: &str) -> Result<Vec<Field>, String> {
    let items = match v {
        Yaml::BadValue | Yaml::Null => return Ok(vec![]),
        Yaml::Array(items) => items,
        _ => return Err(format!("{what}: expected a list of fields")),
    };
    let mut out = vec![];
    for item in items {
        let s = item
            .as_str()
            .ok_or_else(|| format!("{what}: expected field names"))?;
        out.push(s.parse::<Field>().map_err(|e| format!("{what}: {e}"))?);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn state_object(item: &Yaml, i: usize) -> Result<StateObject, String> {
    let map = item
        .as_hash()
        .ok_or_else(|| format!("state_objects[{i}]: expected a mapping"))?;
    for k in map.keys() {
        match k.as_str() {
            Some(k) if OBJECT_KEYS.contains(&k) => {}
            _ => return Err(format!("state_objects[{i}]: unknown key {k:?}")),
        }
    }
    let ctx = |e: String| format!("state_objects[{i}].{e}");
    Ok(StateObject {
        name: req_str(item, "name").map_err(ctx)?,
        key: fields(&item["key"], "key").map_err(ctx)?,
        entry_bytes: opt_u64(&item["entry_bytes"], "entry_bytes").map_err(ctx)?,
        capacity: opt_u64(&item["capacity"], "capacity").map_err(ctx)?,
        per_flow: req_bool(item, "per_flow").map_err(ctx)?,
        pointer_chasing: item["pointer_chasing"].as_bool().unwrap_or(false),
    })
}

fn split_hazard(item: &Yaml, i: usize) -> Result<SplitHazard, String> {
    let map = item
        .as_hash()
        .ok_or_else(|| format!("split_hazards[{i}]: expected a mapping {{object, reason}}"))?;
    for k in map.keys() {
        match k.as_str() {
            Some(k) if HAZARD_KEYS.contains(&k) => {}
            _ => {
                return Err(format!(
                    "split_hazards[{i}]: unknown key {k:?} (expected object, reason)"
                ))
            }
        }
    }
    let ctx = |e: String| format!("split_hazards[{i}].{e}");
    let object = req_str(item, "object").map_err(ctx)?;
    let reason = req_str(item, "reason").map_err(ctx)?;
    if object.trim().is_empty() || reason.trim().is_empty() {
        return Err(format!(
            "split_hazards[{i}]: object and reason must not be empty"
        ));
    }
    Ok(SplitHazard {
        object,
        reason,
        file: None,
        line: None,
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
            "error: t.yaml: invalid facts: flow_key: unknown field `src_addr` (expected one of: src_ip, dst_ip, src_port, dst_port, proto, src_mac, dst_mac)",
        );
        check(
            "nf: f\nstatefull: true\n",
            "error: t.yaml: invalid facts: unknown key String(\"statefull\") (expected one of: nf, stateful, flow_key, symmetric, intensity, pointer_chasing, state_entry_bytes, state_objects, split_hazards, notes)",
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
        assert!(hazards("[{object: cursor}]")
            .unwrap_err()
            .contains("split_hazards[0].reason"));
        assert!(hazards("[{object: cursor, reason: x, why: y}]")
            .unwrap_err()
            .contains("unknown key"));
        assert!(hazards("cursor").unwrap_err().contains("expected a list"));
        check(
            "nf: h\nstateful: false\nflow_key: []\nsymmetric: false\nintensity: none\npointer_chasing: false\nsplit_hazards: [{object: x, reason: y}]\n",
            "error: t.yaml: invalid facts: split_hazards: a stateless NF keeps no state that could be split",
        );
        check("[1, 2", "error: t.yaml: invalid YAML: while parsing a flow sequence, expected ',' or ']' at byte 5 line 2 column 1");
    }
}
