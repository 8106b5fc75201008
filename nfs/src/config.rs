//! Reading an NF's example config (`configs/*.yaml`): a YAML mapping exactly
//! as it would appear under an NF's `config:` in chain.yaml, turned into a
//! [`ConfigValue`] tree. Scalars keep their YAML spelling where it matters
//! (integers in decimal, booleans as `true`/`false`); `ConfigValue::flatten`
//! then produces nf.h's key/value form.

use crate::NfsError;
use nfc_core::chain::ConfigValue;
use std::path::Path;
use yaml_rust2::{Yaml, YamlLoader};

/// Load a config file. An empty file is an empty mapping.
pub fn load_config(path: &Path) -> Result<ConfigValue, NfsError> {
    let text = std::fs::read_to_string(path).map_err(|e| NfsError::io(path, e))?;
    parse_config(&text, path)
}

/// Parse config text; `path` is only used in errors.
pub fn parse_config(text: &str, path: &Path) -> Result<ConfigValue, NfsError> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| NfsError::Yaml {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let bad = |message: String| NfsError::InvalidConfig {
        path: path.to_path_buf(),
        message,
    };
    match docs.into_iter().next() {
        None | Some(Yaml::Null) => Ok(ConfigValue::empty()),
        Some(doc @ Yaml::Hash(_)) => convert(&doc, "").map_err(bad),
        Some(_) => Err(bad("expected a mapping at the top level".into())),
    }
}

fn convert(v: &Yaml, at: &str) -> Result<ConfigValue, String> {
    let here = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    Ok(match v {
        Yaml::String(s) | Yaml::Real(s) => ConfigValue::Scalar(s.clone()),
        Yaml::Integer(i) => ConfigValue::Scalar(i.to_string()),
        Yaml::Boolean(b) => ConfigValue::Scalar(b.to_string()),
        Yaml::Null => ConfigValue::Scalar(String::new()),
        Yaml::Array(items) => ConfigValue::List(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| convert(x, &here(&i.to_string())))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(map) => {
            let mut out = Vec::with_capacity(map.len());
            for (k, x) in map {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    _ => {
                        return Err(format!(
                            "{}: keys must be strings",
                            if at.is_empty() { "<top>" } else { at }
                        ))
                    }
                };
                if key.contains('.') {
                    return Err(format!(
                        "{}: keys must not contain '.' (it separates flattened keys)",
                        here(&key)
                    ));
                }
                let child = convert(x, &here(&key))?;
                out.push((key, child));
            }
            ConfigValue::Map(out)
        }
        Yaml::Alias(_) | Yaml::BadValue => return Err(format!("{at}: aliases are not supported")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse `input` and compare its flattened key/values (or the error) with `expect`.
    fn check(input: &str, expect: &str) {
        let got = match parse_config(input, Path::new("c.yaml")) {
            Ok(v) => v
                .flatten()
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(got, expect, "input:\n{input}");
    }

    #[test]
    fn flattens_like_nf_h_expects() {
        check("rate: 1250000\nburst: 0x10\n", "rate=1250000 burst=16");
        check(
            "rules:\n  - {src: 10.0.0.0/8, action: drop}\n  - {dst_port: \"1-1023\", on: true}\n",
            "rules.len=2 rules.0.src=10.0.0.0/8 rules.0.action=drop rules.1.dst_port=1-1023 rules.1.on=true",
        );
        check(
            "ips: [10.0.0.1]\nmac: \"02:00:00:00:00:fe\"\nratio: 0.5\n",
            "ips.len=1 ips.0=10.0.0.1 mac=02:00:00:00:00:fe ratio=0.5",
        );
        check("", "");
        check(
            "- 1\n- 2\n",
            "error: c.yaml: invalid config: expected a mapping at the top level",
        );
        check("a.b: 1\n", "error: c.yaml: invalid config: a.b: keys must not contain '.' (it separates flattened keys)");
    }
}
