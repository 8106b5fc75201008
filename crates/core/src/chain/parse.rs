//! chain.yaml → [`ChainSpec`], collecting every problem as a [`Diagnostic`].
//!
//! The parser walks the located YAML tree ([`crate::yaml`]) by hand instead of
//! deriving serde: that is what lets it report unknown keys with a
//! did-you-mean, wrong types at the value's own line, and all mistakes at once.
//! Diagnostic codes are stable; `docs/chain-format.md` lists them.

use super::*;
use crate::diag::{has_errors, Diagnostic, Label, Span};
use crate::yaml::{self, Node, NodeKind};
use petgraph::graph::DiGraph;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Names of built-in NFs, for validating `nf:` references. The binary passes
/// the NF library's catalog; tests may pass a plain list.
pub trait BuiltinCatalog {
    fn contains(&self, name: &str) -> bool;
    fn names(&self) -> Vec<String>;
}

impl BuiltinCatalog for Vec<String> {
    fn contains(&self, name: &str) -> bool {
        self.iter().any(|n| n == name)
    }
    fn names(&self) -> Vec<String> {
        self.clone()
    }
}

/// Read and parse a chain file. A missing or unreadable file is a diagnostic.
pub fn parse_chain_file(
    path: &Path,
    catalog: &dyn BuiltinCatalog,
) -> (Option<ChainSpec>, Vec<Diagnostic>) {
    let file = path.display().to_string();
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                return (
                    None,
                    vec![Diagnostic::error(
                        "E0001",
                        format!(
                            "the file is not UTF-8 text (invalid byte at offset {})",
                            e.utf8_error().valid_up_to()
                        ),
                    )
                    .with_span(Span::file_only(&file))],
                )
            }
        },
        Err(e) => {
            return (
                None,
                vec![
                    Diagnostic::error("E0006", format!("cannot read the chain file: {e}"))
                        .with_span(Span::file_only(&file))
                        .with_hint(
                            "check the path; chain files are YAML (see docs/chain-format.md)",
                        ),
                ],
            )
        }
    };
    let base = path
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(Path::new("."));
    let (spec, diags) = parse_chain(&text, &file, base, catalog);
    (
        spec.map(|s| ChainSpec {
            path: Some(path.to_path_buf()),
            ..s
        }),
        diags,
    )
}

/// Parse chain.yaml text. `base` resolves relative paths (sources, pcaps).
/// Returns a spec only when there are no errors.
pub fn parse_chain(
    text: &str,
    file: &str,
    base: &Path,
    catalog: &dyn BuiltinCatalog,
) -> (Option<ChainSpec>, Vec<Diagnostic>) {
    let root = match yaml::parse(text, file) {
        Ok(r) => r,
        Err(d) => return (None, vec![d]),
    };
    let mut p = ChainParser {
        file,
        base,
        catalog,
        diags: vec![],
    };
    let spec = p.chain(&root);
    let diags = p.diags;
    if has_errors(&diags) {
        (None, diags)
    } else {
        (spec, diags)
    }
}

struct ChainParser<'a> {
    file: &'a str,
    base: &'a Path,
    catalog: &'a dyn BuiltinCatalog,
    diags: Vec<Diagnostic>,
}

const TOP_KEYS: &[&str] = &[
    "name",
    "nfs",
    "chain",
    "edges",
    "resources",
    "traffic",
    "targets",
];
const NF_KEYS: &[&str] = &["id", "nf", "source", "framework", "config", "sharing"];
const EDGE_KEYS: &[&str] = &["from", "to", "port"];
const RES_KEYS: &[&str] = &["cores", "cpus", "nic", "smartnic"];
const NIC_KEYS: &[&str] = &[
    "name",
    "queues",
    "hash_fields",
    "key_bytes",
    "reta_size",
    "rss_input",
    "symmetric",
];
const SMARTNIC_KEYS: &[&str] = &["model", "cores", "memory"];
/// The Agilio memory levels `resources.smartnic.memory` may override.
pub const SMARTNIC_MEMORY_LEVELS: &[&str] = &["cls", "ctm", "imem", "emem"];
const SMARTNIC_LEVEL_KEYS: &[&str] = &["capacity", "latency"];
const TRAFFIC_KEYS: &[&str] = &["pcap", "synthetic"];
const SYNTH_KEYS: &[&str] = &[
    "flows",
    "packets",
    "zipf",
    "mix",
    "sizes",
    "bidirectional",
    "src_prefix",
    "dst_prefix",
    "src_hosts",
    "dst_hosts",
    "seed",
];
const MIX_KEYS: &[&str] = &["tcp", "udp", "icmp"];
const TARGET_KEYS: &[&str] = &["fastclick", "flash", "agilio"];
const FASTCLICK_KEYS: &[&str] = &["input", "output"];
const FLASH_KEYS: &[&str] = &["ingress", "egress", "mode"];
const AGILIO_KEYS: &[&str] = &[];

/// The closest candidate within a small edit distance, for did-you-mean hints.
pub(crate) fn did_you_mean<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3) && *d < word.chars().count())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

impl<'a> ChainParser<'a> {
    fn span(&self, n: &Node) -> Span {
        n.span(self.file)
    }

    fn err(&mut self, code: &str, at: &Node, msg: impl Into<String>) -> &mut Diagnostic {
        let d = Diagnostic::error(code, msg).with_span(at.span(self.file));
        self.diags.push(d);
        self.diags.last_mut().expect("just pushed")
    }

    /// The entries of a mapping, checking keys against `allowed`.
    fn map<'n>(
        &mut self,
        n: &'n Node,
        what: &str,
        allowed: &[&str],
    ) -> Option<Vec<(&'n str, &'n Node, &'n Node)>> {
        let Some(items) = n.as_map() else {
            self.err(
                "E0003",
                n,
                format!("{what} must be a mapping, found a {}", n.type_name()),
            );
            return None;
        };
        let mut out = vec![];
        let mut seen = BTreeSet::new();
        for (k, v) in items {
            let Some(key) = k.as_scalar() else {
                self.err(
                    "E0003",
                    k,
                    format!(
                        "keys of {what} must be plain words, found a {}",
                        k.type_name()
                    ),
                );
                continue;
            };
            if !allowed.contains(&key) {
                let hint = match did_you_mean(key, allowed.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("allowed keys: {}", allowed.join(", ")),
                };
                self.err("E0004", k, format!("unknown key `{key}` in {what}"))
                    .hint = Some(hint);
                continue;
            }
            if !seen.insert(key) {
                self.err("E0007", k, format!("key `{key}` appears twice in {what}"))
                    .hint = Some("remove one of them".into());
                continue;
            }
            out.push((key, k, v));
        }
        Some(out)
    }

    fn str_value(&mut self, n: &Node, what: &str) -> Option<String> {
        match &n.kind {
            NodeKind::Scalar { value, .. } if !n.is_null() => Some(value.clone()),
            _ => {
                self.err(
                    "E0003",
                    n,
                    format!("{what} must be a string, found a {}", n.type_name()),
                );
                None
            }
        }
    }

    fn uint(&mut self, n: &Node, what: &str, min: u64, max: u64) -> Option<u64> {
        let s = self.str_value(n, what)?;
        let cleaned = s.replace('_', "");
        match cleaned.parse::<u64>() {
            Ok(v) if v >= min && v <= max => Some(v),
            Ok(v) => {
                self.err(
                    "E0031",
                    n,
                    format!("{what} is {v}, which is impossible here"),
                )
                .hint = Some(format!("use a value from {min} to {max}"));
                None
            }
            Err(_) => {
                self.err(
                    "E0041",
                    n,
                    format!("{what} must be a whole number, found `{s}`"),
                );
                None
            }
        }
    }

    fn float(&mut self, n: &Node, what: &str, min: f64, max: f64) -> Option<f64> {
        let s = self.str_value(n, what)?;
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= min && v <= max => Some(v),
            Ok(v) => {
                self.err("E0041", n, format!("{what} is {v}, outside {min}..={max}"));
                None
            }
            Err(_) => {
                self.err("E0041", n, format!("{what} must be a number, found `{s}`"));
                None
            }
        }
    }

    fn chain(&mut self, root: &Node) -> Option<ChainSpec> {
        let entries = self.map(root, "the chain file", TOP_KEYS)?;
        let get = |k: &str| {
            entries
                .iter()
                .find(|(key, _, _)| *key == k)
                .map(|(_, _, v)| *v)
        };

        let name = match get("name") {
            Some(n) => self.str_value(n, "`name`").unwrap_or_default(),
            None => Path::new(self.file)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "chain".into()),
        };

        let Some(nfs_node) = get("nfs") else {
            self.diags.push(
                Diagnostic::error("E0005", "the chain has no `nfs:` list")
                    .with_span(Span::point(self.file, root.line, root.col))
                    .with_hint("add `nfs:` with at least one `- id: ..., nf: ...` entry"),
            );
            return None;
        };
        let (nfs, failed_ids) = self.nfs(nfs_node);

        let graph = self.topology(get("chain"), get("edges"), &nfs, &failed_ids, root);
        let resources = get("resources")
            .map(|n| self.resources(n))
            .unwrap_or_default();
        let traffic = get("traffic").map(|n| self.traffic(n)).unwrap_or_default();
        let targets = get("targets").map(|n| self.targets(n)).unwrap_or_default();

        let mut nfs: Vec<NfInstance> = nfs.into_iter().map(|(inst, _)| inst).collect();
        if let Some(graph) = &graph {
            for node in graph.node_indices() {
                let used = graph
                    .edges(node)
                    .map(|e| e.weight().from_port + 1)
                    .max()
                    .unwrap_or(1);
                nfs[graph[node]].ports = used.max(1);
            }
        }
        Some(ChainSpec {
            name,
            path: None,
            nfs,
            graph: graph?,
            resources,
            traffic,
            targets,
        })
    }

    /// The NF instances, and the ids of instances that had errors (so that
    /// references to them do not cascade into "unknown NF" errors).
    fn nfs(&mut self, n: &Node) -> (Vec<(NfInstance, Node)>, BTreeSet<String>) {
        let mut failed = BTreeSet::new();
        let Some(items) = n.as_seq() else {
            self.err(
                "E0003",
                n,
                format!(
                    "`nfs` must be a list of NF instances, found a {}",
                    n.type_name()
                ),
            )
            .hint = Some("write `nfs:` followed by `- id: fw` lines".into());
            return (vec![], failed);
        };
        if items.is_empty() {
            self.err("E0005", n, "`nfs` is empty").hint =
                Some("a chain needs at least one NF".into());
        }
        let mut out: Vec<(NfInstance, Node)> = vec![];
        let mut ids: BTreeMap<String, Span> = BTreeMap::new();
        for item in items {
            let Some(inst) = self.nf(item) else {
                if let Some(id) = item.get("id").and_then(Node::as_scalar) {
                    failed.insert(id.to_string());
                }
                continue;
            };
            if let Some(first) = ids.get(&inst.id.0) {
                let first = first.clone();
                let d = self.err("E0010", item, format!("duplicate NF id `{}`", inst.id));
                d.notes.push(format!("first defined at {first}"));
                d.labels.push(Label {
                    span: first,
                    message: "first defined here".into(),
                });
                continue;
            }
            ids.insert(inst.id.0.clone(), self.span(item));
            out.push((inst, item.clone()));
        }
        (out, failed)
    }

    fn nf(&mut self, n: &Node) -> Option<NfInstance> {
        let entries = self.map(n, "an NF instance", NF_KEYS)?;
        let get = |k: &str| {
            entries
                .iter()
                .find(|(key, _, _)| *key == k)
                .map(|(_, _, v)| *v)
        };
        let id_node = match get("id") {
            Some(id) => id,
            None => {
                self.err("E0005", n, "NF instance has no `id`").hint =
                    Some("add `id: <name>` (letters, digits, `_`, `-`)".into());
                return None;
            }
        };
        let id = self.str_value(id_node, "`id`")?;
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            || id.starts_with('-')
        {
            self.err("E0015", id_node, format!("invalid NF id `{id}`"))
                .hint = Some(
                "ids use letters, digits, `_` and `-` and start with a letter or digit".into(),
            );
            return None;
        }
        let config = match get("config") {
            Some(c) if c.is_null() => ConfigValue::empty(),
            Some(c) => match &c.kind {
                NodeKind::Map(_) => self.config(c),
                _ => {
                    self.err(
                        "E0003",
                        c,
                        format!(
                            "`config` of `{id}` must be a mapping, found a {}",
                            c.type_name()
                        ),
                    );
                    ConfigValue::empty()
                }
            },
            None => ConfigValue::empty(),
        };
        let source = match (get("nf"), get("source")) {
            (Some(_), Some(src)) => {
                self.err(
                    "E0012",
                    src,
                    format!("NF `{id}` has both `nf:` and `source:`"),
                )
                .hint = Some(
                    "use `nf:` for a built-in NF or `source:` for your own code, not both".into(),
                );
                return None;
            }
            (None, None) => {
                self.err(
                    "E0012",
                    n,
                    format!("NF `{id}` says neither `nf:` nor `source:`"),
                )
                .hint = Some("add `nf: <built-in name>` or `source: <file or dir>`".into());
                return None;
            }
            (Some(nf), None) => {
                if let Some(fw) = get("framework") {
                    self.err(
                        "E0012",
                        fw,
                        format!(
                            "`framework` only applies to `source:` NFs (NF `{id}` is built-in)"
                        ),
                    );
                }
                let name = self.str_value(nf, "`nf`")?;
                if !self.catalog.contains(&name) {
                    let names = self.catalog.names();
                    let hint = match did_you_mean(&name, names.iter().map(String::as_str)) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("built-in NFs: {}", names.join(", ")),
                    };
                    self.err("E0011", nf, format!("unknown NF `{name}`")).hint = Some(hint);
                    return None;
                }
                NfSource::Builtin { name }
            }
            (None, Some(src)) => {
                let paths: Vec<&Node> = match &src.kind {
                    NodeKind::Scalar { .. } => vec![src],
                    NodeKind::Seq(items) => items.iter().collect(),
                    NodeKind::Map(_) => {
                        self.err("E0003", src, "`source` must be a path or a list of paths");
                        return None;
                    }
                };
                if paths.is_empty() {
                    self.err("E0014", src, format!("`source` of `{id}` lists no files"));
                    return None;
                }
                let mut resolved = vec![];
                let mut ok = true;
                for p in paths {
                    let Some(s) = self.str_value(p, "a source path") else {
                        ok = false;
                        continue;
                    };
                    let full = self.base.join(&s);
                    if !full.exists() {
                        self.err(
                            "E0014",
                            p,
                            format!("source `{s}` of NF `{id}` does not exist"),
                        )
                        .hint = Some(format!(
                            "paths are relative to the chain file's directory ({})",
                            self.base.display()
                        ));
                        ok = false;
                        continue;
                    }
                    resolved.push(full);
                }
                let framework = match get("framework") {
                    None => Framework::NfcC,
                    Some(fw) => {
                        let name = self.str_value(fw, "`framework`")?;
                        match Framework::from_name(&name) {
                            Some(f) => f,
                            None => {
                                let hint = match did_you_mean(&name, Framework::NAMES) {
                                    Some(s) => format!("did you mean `{s}`?"),
                                    None => format!("frameworks: {}", Framework::NAMES.join(", ")),
                                };
                                self.err("E0013", fw, format!("unknown framework `{name}`"))
                                    .hint = Some(hint);
                                return None;
                            }
                        }
                    }
                };
                if !ok {
                    return None;
                }
                NfSource::Source {
                    paths: resolved,
                    framework,
                }
            }
        };
        let sharing = match get("sharing") {
            None => None,
            Some(v) => match self.str_value(v, "`sharing`").as_deref() {
                Some("auto") | None => None,
                Some("shared") => Some(crate::plan::Sharing::Shared),
                Some("shared-nothing") => Some(crate::plan::Sharing::SharedNothing),
                Some(other) => {
                    self.err(
                        "E0032",
                        v,
                        format!("unknown sharing mode `{other}` for NF `{id}`"),
                    )
                    .hint = Some(
                        "use `auto` (the placer decides), `shared` or `shared-nothing`".into(),
                    );
                    None
                }
            },
        };
        Some(NfInstance {
            id: NfId(id),
            source,
            config,
            ports: 1,
            span: Some(self.span(n)),
            sharing,
        })
    }

    fn config(&mut self, n: &Node) -> ConfigValue {
        match &n.kind {
            NodeKind::Scalar { value, .. } => ConfigValue::Scalar(if n.is_null() {
                String::new()
            } else {
                value.clone()
            }),
            NodeKind::Seq(items) => {
                ConfigValue::List(items.iter().map(|i| self.config(i)).collect())
            }
            NodeKind::Map(items) => {
                let mut out = vec![];
                for (k, v) in items {
                    match k.as_scalar() {
                        Some(key) if !key.is_empty() && !key.contains('.') => {
                            out.push((key.to_string(), self.config(v)))
                        }
                        _ => {
                            self.err("E0003", k, "config keys must be plain words without dots");
                        }
                    }
                }
                ConfigValue::Map(out)
            }
        }
    }

    /// Build the DAG from `chain:` (linear) or `edges:` (DAG).
    fn topology(
        &mut self,
        chain: Option<&Node>,
        edges: Option<&Node>,
        nfs: &[(NfInstance, Node)],
        failed_ids: &BTreeSet<String>,
        root: &Node,
    ) -> Option<DiGraph<usize, Link>> {
        let mut graph: DiGraph<usize, Link> = DiGraph::new();
        let nodes: Vec<_> = (0..nfs.len()).map(|i| graph.add_node(i)).collect();
        let index: BTreeMap<&str, usize> = nfs
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.id.0.as_str(), i))
            .collect();
        let mut used_ports: BTreeMap<(usize, u32), Span> = BTreeMap::new();
        let mut in_topology = BTreeSet::new();
        let errors_before = self.diags.iter().filter(|d| d.is_error()).count();

        let lookup = |p: &mut Self, n: &Node| -> Option<usize> {
            let name = p.str_value(n, "an NF reference")?;
            match index.get(name.as_str()) {
                Some(i) => Some(*i),
                // Already reported where the NF is defined.
                None if failed_ids.contains(&name) => None,
                None => {
                    let hint = match did_you_mean(&name, index.keys().copied()) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!(
                            "NFs in this chain: {}",
                            index.keys().copied().collect::<Vec<_>>().join(", ")
                        ),
                    };
                    p.err("E0020", n, format!("`{name}` is not an NF of this chain"))
                        .hint = Some(hint);
                    None
                }
            }
        };

        let mut add_edge = |p: &mut Self, at: &Node, from: usize, port: u32, to: usize| {
            if let Some(prev) = used_ports.get(&(from, port)) {
                let prev = prev.clone();
                p.err(
                    "E0025",
                    at,
                    format!("port {port} of `{}` is connected twice", nfs[from].0.id),
                )
                .notes
                .push(format!("first connection at {prev}"));
                p.diags.last_mut().expect("pushed").hint = Some(
                    "each output port feeds one NF; for fan-out use different ports (`port: 1`)"
                        .into(),
                );
                return;
            }
            used_ports.insert((from, port), p.span(at));
            graph.add_edge(nodes[from], nodes[to], Link { from_port: port });
        };

        match (chain, edges) {
            (Some(c), Some(_)) => {
                self.err("E0023", c, "the chain gives both `chain:` and `edges:`")
                    .hint =
                    Some("use `chain:` for a line of NFs or `edges:` for a graph, not both".into());
                return None;
            }
            (Some(c), None) => {
                let Some(items) = c.as_seq() else {
                    self.err(
                        "E0003",
                        c,
                        format!(
                            "`chain` must be a list of NF ids, found a {}",
                            c.type_name()
                        ),
                    );
                    return None;
                };
                let ids: Vec<(Option<usize>, &Node)> =
                    items.iter().map(|i| (lookup(self, i), i)).collect();
                for (i, item) in &ids {
                    if let Some(i) = i {
                        in_topology.insert(*i);
                        let _ = item;
                    }
                }
                for w in ids.windows(2) {
                    if let ((Some(a), _), (Some(b), at)) = (w[0], w[1]) {
                        add_edge(self, at, a, 0, b);
                    }
                }
            }
            (None, Some(e)) => {
                let Some(items) = e.as_seq() else {
                    self.err(
                        "E0003",
                        e,
                        format!(
                            "`edges` must be a list of `{{from, to, port}}` entries, found a {}",
                            e.type_name()
                        ),
                    );
                    return None;
                };
                for item in items {
                    let Some(entries) = self.map(item, "an edge", EDGE_KEYS) else {
                        continue;
                    };
                    let get = |k: &str| {
                        entries
                            .iter()
                            .find(|(key, _, _)| *key == k)
                            .map(|(_, _, v)| *v)
                    };
                    let (Some(from), Some(to)) = (get("from"), get("to")) else {
                        self.err("E0005", item, "an edge needs `from:` and `to:`");
                        continue;
                    };
                    let port = match get("port") {
                        Some(p) => match self.uint(p, "`port`", 0, 63) {
                            Some(v) => v as u32,
                            None => continue,
                        },
                        None => 0,
                    };
                    let (f, t) = (lookup(self, from), lookup(self, to));
                    if let (Some(f), Some(t)) = (f, t) {
                        in_topology.insert(f);
                        in_topology.insert(t);
                        add_edge(self, item, f, port, t);
                    }
                }
            }
            (None, None) => {
                if nfs.len() > 1 {
                    self.diags.push(
                        Diagnostic::error("E0024", "the chain has several NFs but no topology")
                            .with_span(Span::point(self.file, root.line, root.col))
                            .with_hint("add `chain: [a, b, ...]` for a line of NFs, or `edges:` for a graph"),
                    );
                    return None;
                }
                in_topology.extend(0..nfs.len());
            }
        }
        // With broken references or NFs, cycle and reachability checks would only echo them.
        if self.diags.iter().filter(|d| d.is_error()).count() > errors_before
            || !failed_ids.is_empty()
        {
            return None;
        }
        // Cycles: report one NF on each cycle, at its definition.
        let sccs = petgraph::algo::tarjan_scc(&graph);
        let mut cyclic = false;
        for scc in sccs {
            let self_loop = scc.len() == 1 && graph.find_edge(scc[0], scc[0]).is_some();
            if scc.len() > 1 || self_loop {
                cyclic = true;
                let mut names: Vec<String> =
                    scc.iter().map(|n| nfs[graph[*n]].0.id.0.clone()).collect();
                names.sort();
                let first = &nfs[graph[scc[0]]].1;
                self.err(
                    "E0021",
                    first,
                    format!("the topology has a cycle through {}", names.join(" -> ")),
                )
                .hint = Some(
                    "NF chains are DAGs: remove an edge that leads back to an earlier NF".into(),
                );
            }
        }
        if cyclic {
            return None;
        }
        for (i, (inst, node)) in nfs.iter().enumerate() {
            if !in_topology.contains(&i) {
                self.err(
                    "E0022",
                    node,
                    format!(
                        "NF `{}` is not connected to the chain, so no packet reaches it",
                        inst.id
                    ),
                )
                .hint = Some("add it to `chain:`/`edges:` or remove it".into());
            }
        }
        Some(graph)
    }

    fn fields(&mut self, n: &Node) -> Option<Vec<Field>> {
        let Some(items) = n.as_seq() else {
            self.err(
                "E0003",
                n,
                format!(
                    "a field set must be a list like [src_ip, dst_ip], found a {}",
                    n.type_name()
                ),
            );
            return None;
        };
        let mut out = vec![];
        for i in items {
            let s = self.str_value(i, "a field name")?;
            match s.parse::<Field>() {
                Ok(f) => out.push(f),
                Err(_) => {
                    let names = Field::ALL.map(Field::name);
                    let hint = match did_you_mean(&s, names) {
                        Some(c) => format!("did you mean `{c}`?"),
                        None => format!("fields: {}", names.join(", ")),
                    };
                    self.err("E0030", i, format!("invalid field name `{s}`"))
                        .hint = Some(hint);
                    return None;
                }
            }
        }
        if out.is_empty() {
            self.err("E0030", n, "an empty field set cannot be hashed");
            return None;
        }
        out.sort();
        out.dedup();
        Some(out)
    }

    fn resources(&mut self, n: &Node) -> Resources {
        let mut res = Resources::default();
        let Some(entries) = self.map(n, "`resources`", RES_KEYS) else {
            return res;
        };
        for (key, _, v) in entries {
            match key {
                "cores" => {
                    if let Some(c) = self.uint(v, "`cores`", 1, 1024) {
                        res.cores = c as u32;
                    }
                }
                "cpus" => {
                    let Some(items) = v.as_seq() else {
                        self.err(
                            "E0003",
                            v,
                            "`cpus` must be a list of CPU numbers, e.g. [2, 3]",
                        );
                        continue;
                    };
                    if items.is_empty() {
                        self.err("E0031", v, "`cpus` is empty: NFs would have no CPU to run on")
                            .hint = Some("list at least one CPU, or drop `cpus` to leave placement to the kernel".into());
                        continue;
                    }
                    let mut cpus: Vec<u32> = vec![];
                    for item in items {
                        let Some(c) = self.uint(item, "a CPU number", 0, 1023) else {
                            continue;
                        };
                        if cpus.contains(&(c as u32)) {
                            self.err("E0031", item, format!("CPU {c} is listed twice"));
                            continue;
                        }
                        cpus.push(c as u32);
                    }
                    res.cpus = Some(cpus);
                }
                "nic" => {
                    res.nic_span = Some(self.span(v));
                    let Some(nic) = self.map(v, "`nic`", NIC_KEYS) else {
                        continue;
                    };
                    for (k, _, val) in nic {
                        match k {
                            "name" => {
                                res.nic.name = self.str_value(val, "`nic.name`").unwrap_or_default()
                            }
                            "queues" => {
                                if let Some(q) = self.uint(val, "`nic.queues`", 1, 4096) {
                                    res.nic.queues = q as u32;
                                }
                            }
                            "hash_fields" => {
                                let Some(sets) = val.as_seq() else {
                                    self.err("E0003", val, "`hash_fields` must be a list of field sets, e.g. [[src_ip], [src_ip, dst_ip]]");
                                    continue;
                                };
                                if sets.is_empty() {
                                    self.err("E0031", val, "the NIC supports no hash field set, so RSS cannot spread flows")
                                        .hint = Some("list at least one set, e.g. [src_ip, dst_ip]".into());
                                    continue;
                                }
                                let parsed: Vec<(Vec<Field>, &Node)> = sets
                                    .iter()
                                    .filter_map(|s| self.fields(s).map(|f| (f, s)))
                                    .collect();
                                // Toeplitz hashes addresses and ports; a set of
                                // only other fields (proto, MACs) spreads nothing.
                                let hashable = |f: &[Field]| {
                                    f.iter().any(|f| {
                                        matches!(
                                            f,
                                            Field::SrcIp
                                                | Field::DstIp
                                                | Field::SrcPort
                                                | Field::DstPort
                                        )
                                    })
                                };
                                let any_usable = parsed.iter().any(|(f, _)| hashable(f));
                                if !any_usable && parsed.len() == sets.len() {
                                    self.err(
                                        "E0031",
                                        val,
                                        "none of the NIC's field sets can be hashed: a Toeplitz hash covers only src_ip, dst_ip, src_port and dst_port",
                                    )
                                    .hint = Some(
                                        "list at least one set with an address or a port, e.g. [src_ip, dst_ip]".into(),
                                    );
                                } else {
                                    for (f, node) in &parsed {
                                        if !hashable(f) {
                                            let d = Diagnostic::warning(
                                                "E0033",
                                                "this field set has no address or port, so a Toeplitz hash cannot depend on it; the placer skips it",
                                            )
                                            .with_span(self.span(node));
                                            self.diags.push(d);
                                        }
                                    }
                                }
                                res.nic.hash_fields = parsed.into_iter().map(|(f, _)| f).collect();
                            }
                            "key_bytes" => {
                                if let Some(kb) = self.uint(val, "`nic.key_bytes`", 0, 1024) {
                                    if kb != 40 && kb != 52 {
                                        self.err(
                                            "E0031",
                                            val,
                                            format!("Toeplitz keys are 40 or 52 bytes, not {kb}"),
                                        );
                                    } else {
                                        res.nic.key_bytes = kb as u32;
                                    }
                                }
                            }
                            "reta_size" => {
                                if let Some(r) = self.uint(val, "`nic.reta_size`", 1, 65536) {
                                    if !r.is_power_of_two() {
                                        self.err(
                                            "E0031",
                                            val,
                                            format!(
                                                "the RETA size must be a power of two, not {r}"
                                            ),
                                        );
                                    } else {
                                        res.nic.reta_size = r as u32;
                                    }
                                }
                            }
                            "symmetric" => {
                                match self.str_value(val, "`nic.symmetric`").as_deref() {
                                    Some("auto") => res.nic.symmetric = SymmetryDemand::Auto,
                                    Some("required") => {
                                        res.nic.symmetric = SymmetryDemand::Required
                                    }
                                    Some("forbidden") => {
                                        res.nic.symmetric = SymmetryDemand::Forbidden
                                    }
                                    Some(other) => {
                                        self.err("E0032", val, format!("unknown symmetry demand `{other}`"))
                                        .hint = Some("use `auto`, `required` (only symmetric keys) or `forbidden` (only plain keys)".into());
                                    }
                                    None => {}
                                }
                            }
                            "rss_input" => {
                                match self.str_value(val, "`nic.rss_input`").as_deref() {
                                    Some("field-select") => {
                                        res.nic.rss_input = RssInput::FieldSelect
                                    }
                                    Some("tuple") => res.nic.rss_input = RssInput::Tuple,
                                    Some(other) => {
                                        self.err("E0031", val, format!("unknown RSS input mode `{other}`"))
                                        .hint = Some("use `field-select` (the NIC hashes only the chosen fields) or `tuple`".into());
                                    }
                                    None => {}
                                }
                            }
                            _ => unreachable!("keys were checked"),
                        }
                    }
                }
                "smartnic" => {
                    let Some(sn) = self.map(v, "`smartnic`", SMARTNIC_KEYS) else {
                        continue;
                    };
                    let mut s = SmartNic {
                        model: "agilio-cx".into(),
                        cores: 60,
                        memory: Default::default(),
                    };
                    for (k, _, val) in sn {
                        match k {
                            "model" => {
                                s.model =
                                    self.str_value(val, "`smartnic.model`").unwrap_or_default()
                            }
                            "cores" => {
                                if let Some(c) = self.uint(val, "`smartnic.cores`", 1, 4096) {
                                    s.cores = c as u32;
                                }
                            }
                            "memory" => {
                                let Some(levels) =
                                    self.map(val, "`smartnic.memory`", SMARTNIC_MEMORY_LEVELS)
                                else {
                                    continue;
                                };
                                for (level, _, lv) in levels {
                                    let what = format!("smartnic.memory.{level}");
                                    let Some(keys) =
                                        self.map(lv, &format!("`{what}`"), SMARTNIC_LEVEL_KEYS)
                                    else {
                                        continue;
                                    };
                                    let mut o = crate::chain::MemoryLevelOverride::default();
                                    for (k, _, v) in keys {
                                        match k {
                                            "capacity" => {
                                                o.capacity = self.uint(
                                                    v,
                                                    &format!("`{what}.capacity` (bytes)"),
                                                    0,
                                                    1 << 40,
                                                )
                                            }
                                            "latency" => {
                                                o.latency = self.float(
                                                    v,
                                                    &format!("`{what}.latency` (cycles)"),
                                                    0.0,
                                                    1e6,
                                                )
                                            }
                                            _ => unreachable!("keys were checked"),
                                        }
                                    }
                                    s.memory.insert(level.to_string(), o);
                                }
                            }
                            _ => unreachable!("keys were checked"),
                        }
                    }
                    res.smartnic = Some(s);
                }
                _ => unreachable!("keys were checked"),
            }
        }
        if res.cores > res.nic.queues {
            self.err(
                "E0031",
                n,
                format!(
                    "{} cores but the NIC has only {} receive queues",
                    res.cores, res.nic.queues
                ),
            )
            .hint = Some("RSS needs a queue per core: raise `nic.queues` or lower `cores`".into());
        }
        res
    }

    fn traffic(&mut self, n: &Node) -> Traffic {
        let Some(entries) = self.map(n, "`traffic`", TRAFFIC_KEYS) else {
            return Traffic::default();
        };
        if entries.len() > 1 {
            self.err("E0040", n, "`traffic` gives both `pcap` and `synthetic`")
                .hint = Some("choose one".into());
            return Traffic::default();
        }
        let Some((key, _, v)) = entries.first() else {
            return Traffic::default();
        };
        match *key {
            "pcap" => {
                let Some(p) = self.str_value(v, "`traffic.pcap`") else {
                    return Traffic::default();
                };
                let full = self.base.join(&p);
                if !full.is_file() {
                    self.err("E0040", v, format!("pcap `{p}` does not exist"))
                        .hint =
                        Some("generate one with `nfc trace gen`, or use `synthetic:`".into());
                }
                Traffic::Pcap { path: full }
            }
            _ => Traffic::Synthetic(self.synthetic(v)),
        }
    }

    fn synthetic(&mut self, n: &Node) -> TrafficSpec {
        let mut t = TrafficSpec::default();
        let Some(entries) = self.map(n, "`traffic.synthetic`", SYNTH_KEYS) else {
            return t;
        };
        for (key, _, v) in entries {
            match key {
                "flows" => {
                    t.flows = self
                        .uint(v, "`flows`", 1, 100_000_000)
                        .unwrap_or(t.flows as u64) as u32
                }
                "packets" => {
                    t.packets = self
                        .uint(v, "`packets`", 1, 10_000_000_000)
                        .unwrap_or(t.packets)
                }
                "zipf" => t.zipf = self.float(v, "`zipf`", 0.0, 10.0).unwrap_or(t.zipf),
                "bidirectional" => {
                    t.bidirectional = self
                        .float(v, "`bidirectional`", 0.0, 1.0)
                        .unwrap_or(t.bidirectional)
                }
                "src_hosts" => {
                    t.src_hosts =
                        self.uint(v, "`src_hosts`", 0, u32::MAX as u64).unwrap_or(0) as u32
                }
                "dst_hosts" => {
                    t.dst_hosts =
                        self.uint(v, "`dst_hosts`", 0, u32::MAX as u64).unwrap_or(0) as u32
                }
                "seed" => t.seed = self.uint(v, "`seed`", 0, u64::MAX).unwrap_or(t.seed),
                "src_prefix" | "dst_prefix" => {
                    let Some(s) = self.str_value(v, key) else {
                        continue;
                    };
                    if parse_prefix(&s).is_none() {
                        self.err("E0040", v, format!("`{s}` is not an IPv4 prefix"))
                            .hint = Some("write it like 10.0.0.0/8".into());
                    } else if key == "src_prefix" {
                        t.src_prefix = s;
                    } else {
                        t.dst_prefix = s;
                    }
                }
                "mix" => {
                    let Some(mix) = self.map(v, "`mix`", MIX_KEYS) else {
                        continue;
                    };
                    let (mut tcp, mut udp, mut icmp) = (0.0, 0.0, 0.0);
                    for (k, _, val) in mix {
                        let x = self.float(val, k, 0.0, 1.0).unwrap_or(0.0);
                        match k {
                            "tcp" => tcp = x,
                            "udp" => udp = x,
                            _ => icmp = x,
                        }
                    }
                    if ((tcp + udp + icmp) - 1.0f64).abs() > 1e-6 {
                        self.err(
                            "E0040",
                            v,
                            format!("protocol shares sum to {:.3}, not 1", tcp + udp + icmp),
                        )
                        .hint = Some("e.g. {tcp: 0.75, udp: 0.25, icmp: 0}".into());
                    } else {
                        (t.tcp, t.udp, t.icmp) = (tcp, udp, icmp);
                    }
                }
                "sizes" => {
                    match &v.kind {
                        NodeKind::Scalar { value, .. } if value == "imix" => {
                            t.sizes = SizeMix::Imix
                        }
                        NodeKind::Scalar { .. } => {
                            if let Some(b) = self.uint(v, "`sizes`", 60, 9018) {
                                t.sizes = SizeMix::Fixed(b as u32);
                            }
                        }
                        NodeKind::Seq(items) => {
                            let mut w = vec![];
                            for i in items {
                                match i.as_seq() {
                                    Some([b, wt]) => {
                                        if let (Some(b), Some(wt)) = (
                                            self.uint(b, "a frame size", 60, 9018),
                                            self.uint(wt, "a weight", 1, 1_000_000),
                                        ) {
                                            w.push((b as u32, wt as u32));
                                        }
                                    }
                                    _ => {
                                        self.err("E0003", i, "each size entry is [bytes, weight]");
                                    }
                                }
                            }
                            if !w.is_empty() {
                                t.sizes = SizeMix::Weighted(w);
                            }
                        }
                        NodeKind::Map(_) => {
                            self.err("E0003", v, "`sizes` is a frame size (64), `imix`, or a list of [bytes, weight]");
                        }
                    }
                }
                _ => unreachable!("keys were checked"),
            }
        }
        t
    }

    fn targets(&mut self, n: &Node) -> TargetOptions {
        let mut t = TargetOptions::default();
        let Some(entries) = self.map(n, "`targets`", TARGET_KEYS) else {
            return t;
        };
        for (key, _, v) in entries {
            match key {
                "fastclick" => {
                    let Some(fc) = self.map(v, "`targets.fastclick`", FASTCLICK_KEYS) else {
                        continue;
                    };
                    for (k, _, val) in fc {
                        let s = self.str_value(val, k);
                        if k == "input" {
                            t.fastclick_in = s;
                        } else {
                            t.fastclick_out = s;
                        }
                    }
                }
                "flash" => {
                    let Some(fl) = self.map(v, "`targets.flash`", FLASH_KEYS) else {
                        continue;
                    };
                    for (k, _, val) in fl {
                        match k {
                            "ingress" => t.flash_in = self.str_value(val, k),
                            "egress" => t.flash_out = self.str_value(val, k),
                            _ => match self.str_value(val, "`mode`").as_deref() {
                                Some("zero-copy") => t.flash_mode = Some(LinkMode::ZeroCopy),
                                Some("single-copy") => t.flash_mode = Some(LinkMode::SingleCopy),
                                Some(other) => {
                                    self.err(
                                        "E0050",
                                        val,
                                        format!("unknown link mode `{other}`"),
                                    )
                                    .hint = Some("use `zero-copy` or `single-copy`".into());
                                }
                                None => {}
                            },
                        }
                    }
                }
                _ => {
                    self.map(v, "`targets.agilio`", AGILIO_KEYS);
                }
            }
        }
        t
    }
}

/// Parse `a.b.c.d/len` into (address, prefix length).
pub fn parse_prefix(s: &str) -> Option<(u32, u8)> {
    let (addr, len) = match s.split_once('/') {
        Some((a, l)) => (a, l.parse::<u8>().ok().filter(|l| *l <= 32)?),
        None => (s, 32),
    };
    let ip: std::net::Ipv4Addr = addr.parse().ok()?;
    Some((u32::from(ip), len))
}
