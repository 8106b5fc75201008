//! The FastClick target of a plan: write a fresh `.click` configuration for a
//! chain ([`emit_chain`]), or rewrite an operator's existing configuration in
//! place ([`rewrite_click`], FlowMage Fig. 7): the `FromDPDKDevice` gets the
//! queue and thread counts and the flow-rules file that programs the plan's
//! RSS (hash types, Toeplitz key, queues); in a rewrite every stateful
//! element of the operator's gets its `SHARED` mode. Only upstream FastClick
//! element classes and parameters appear in an emitted configuration, plus
//! the `Nfc*` classes of the element package written beside it
//! ([`validate_upstream`] checks this against upstream's names, vendored in
//! `data/`). Lives here rather than in the binary because it is pure
//! plan-to-text lowering over `nfc-core` types; `src/emit/fastclick.rs`
//! re-exports it. See `docs/targets/fastclick.md`.

use nfc_core::chain::ChainSpec;
use nfc_core::click::{self, Arg, ByteSpan, ClickConfig, ConfigArgs, Element, Hop, Statement};
use nfc_core::diag::Diagnostic;
use nfc_core::facts::Facts;
use nfc_core::plan::{Plan, Sharing};

/// Upstream FastClick input element whose RSS configuration the plan sets.
pub const FROM_DEVICE: &str = "FromDPDKDevice";
/// Upstream FastClick output element.
pub const TO_DEVICE: &str = "ToDPDKDevice";

/// Quote a value for a Click argument when it is not a plain word.
fn quote(value: &str) -> String {
    let plain = !value.is_empty()
        && value.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | ':' | '-' | '$' | '@')
        });
    if plain {
        value.to_string()
    } else {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// The element class of an NF instance in the generated package:
/// `port_scan_detector` -> `NfcPortScanDetector`, `fw-to-lb` -> `NfcFwToLb`.
pub fn class_name(base: &str) -> String {
    let camel: String = base
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut cs = p.chars();
            cs.next()
                .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!("Nfc{camel}")
}

/// The arguments the plan puts on `FromDPDKDevice`, all upstream: queues
/// and threads for the plan's cores, and the RSS either from the flow-rules
/// file (`MODE flow`, which installs the file's RSS rule: hash types, key,
/// queues) or, without one, the driver's default RSS (`MODE rss`).
fn rss_args(plan: &Plan, rules_file: Option<&str>) -> Vec<(&'static str, String)> {
    let mut args = vec![
        ("N_QUEUES", plan.cores.to_string()),
        ("MAXTHREADS", plan.cores.to_string()),
    ];
    match rules_file {
        Some(f) => {
            args.push(("MODE", "flow".into()));
            args.push(("FLOW_RULES_FILE", quote(f)));
        }
        None => args.push(("MODE", "rss".into())),
    }
    if !plan.rss.reta.is_empty() {
        args.push(("RETA_SIZE", plan.rss.reta.len().to_string()));
    }
    args
}

/// Upstream FastClick's element classes (`EXPORT_ELEMENT`), one per line.
pub const UPSTREAM_ELEMENTS: &str = include_str!("../data/fastclick-elements.txt");
/// Every keyword parameter some upstream element reads, one per line.
pub const UPSTREAM_PARAMETERS: &str = include_str!("../data/fastclick-parameters.txt");

/// Check that `text` uses only upstream FastClick element classes and
/// parameter names, or classes in `own_classes` (the generated package,
/// whose elements take no parameters). One E0511 error per violation.
pub fn validate_upstream(text: &str, file: &str, own_classes: &[String]) -> Vec<Diagnostic> {
    let (config, mut diags) = click::parse(text, file);
    if diags.iter().any(Diagnostic::is_error) {
        return diags;
    }
    diags.clear();
    let upstream = |class: &str| UPSTREAM_ELEMENTS.lines().any(|l| l.trim() == class);
    let parameter = |p: &str| UPSTREAM_PARAMETERS.lines().any(|l| l.trim() == p);
    let mut check = |class: &str, args: Option<&ConfigArgs>, span: ByteSpan| {
        let own = own_classes.iter().any(|c| c == class);
        if !own && !upstream(class) {
            diags.push(
                Diagnostic::error(
                    "E0511",
                    format!("element class `{class}` is neither upstream FastClick's nor in the generated package"),
                )
                .with_span(span.to_span(file, text)),
            );
        }
        for a in args.map(|c| c.args.as_slice()).unwrap_or_default() {
            let Some(k) = &a.keyword else { continue };
            if own || !parameter(k) {
                diags.push(
                    Diagnostic::error(
                        "E0511",
                        format!("`{class}` is given parameter `{k}`, which no upstream FastClick element reads"),
                    )
                    .with_span(a.span.to_span(file, text)),
                );
            }
        }
    };
    for st in &config.statements {
        let Statement::Chain { hops, .. } = st else {
            continue;
        };
        for hop in hops {
            match &hop.element {
                Element::Declaration {
                    class,
                    config,
                    span,
                    ..
                } => check(class, config.as_ref(), *span),
                Element::Anonymous {
                    class,
                    config,
                    span,
                } => check(class, Some(config), *span),
                _ => {}
            }
        }
    }
    diags
}

fn sharing_arg(sharing: Sharing) -> Option<String> {
    match sharing {
        Sharing::SharedNothing => Some("false".into()),
        Sharing::Shared => Some("true".into()),
        Sharing::Stateless => None,
    }
}

fn decl(name: &str, class: &str, args: Vec<Arg>) -> Hop {
    Hop {
        input_port: None,
        element: Element::Declaration {
            names: vec![name.to_string()],
            class: class.to_string(),
            config: Some(ConfigArgs::new(args)),
            span: ByteSpan::default(),
            class_end: 0,
        },
        output_port: None,
    }
}

fn name_hop(name: &str, input_port: Option<u32>, output_port: Option<u32>) -> Hop {
    Hop {
        input_port,
        element: Element::Name {
            name: name.to_string(),
            span: ByteSpan::default(),
        },
        output_port,
    }
}

fn chain_stmt(hops: Vec<Hop>) -> Statement {
    Statement::Chain {
        hops,
        span: ByteSpan::default(),
    }
}

/// A fresh FastClick configuration for `chain` under `plan`: device input
/// with RSS, IPv4 classification, one element per NF (sharing mode, state
/// size, the NF's configuration as keyword arguments), the chain's topology,
/// and device output for every output port the chain leaves unconnected.
///
/// NF elements are the generated package's: `id :: Nfc<Id>` with no
/// arguments (the NF's configuration and its state layout under the plan are
/// compiled into the element). `rules_file` names the flow-rules file that
/// programs RSS (see [`rss_args`]).
pub fn emit_chain(chain: &ChainSpec, plan: &Plan, rules_file: Option<&str>) -> String {
    let input = chain
        .targets
        .fastclick_in
        .clone()
        .unwrap_or_else(|| "0".into());
    let output = chain
        .targets
        .fastclick_out
        .clone()
        .unwrap_or_else(|| input.clone());
    let mut statements = vec![];
    let mut from_args = vec![Arg::positional(quote(&input))];
    from_args.extend(
        rss_args(plan, rules_file)
            .into_iter()
            .map(|(k, v)| Arg::keyword(k, v)),
    );
    from_args.push(Arg::keyword("NDESC", "1024"));
    statements.push(chain_stmt(vec![decl("nfc_in", FROM_DEVICE, from_args)]));
    statements.push(chain_stmt(vec![decl(
        "nfc_out",
        TO_DEVICE,
        vec![Arg::positional(quote(&output))],
    )]));
    statements.push(chain_stmt(vec![decl(
        "nfc_classify",
        "Classifier",
        vec![Arg::positional("12/0800"), Arg::positional("-")],
    )]));
    let order = chain.topo_order();
    for nf in &order {
        let id = &nf.id.0;
        statements.push(chain_stmt(vec![decl(id, &class_name(id), vec![])]));
    }
    statements.push(chain_stmt(vec![
        name_hop("nfc_in", None, None),
        name_hop("nfc_classify", None, None),
    ]));
    statements.push(chain_stmt(vec![
        name_hop("nfc_classify", None, Some(1)),
        name_hop("Discard", None, None),
    ]));
    let entries = chain.entries();
    let mark = Hop {
        input_port: None,
        element: Element::Anonymous {
            class: "MarkIPHeader".into(),
            config: ConfigArgs::new(vec![Arg::keyword("OFFSET", "14")]),
            span: ByteSpan::default(),
        },
        output_port: None,
    };
    match entries.as_slice() {
        [] => statements.push(chain_stmt(vec![
            name_hop("nfc_classify", None, Some(0)),
            mark,
            name_hop("nfc_out", None, None),
        ])),
        [one] => statements.push(chain_stmt(vec![
            name_hop("nfc_classify", None, Some(0)),
            mark,
            name_hop(&one.id.0, None, None),
        ])),
        many => {
            statements.push(chain_stmt(vec![
                name_hop("nfc_classify", None, Some(0)),
                mark,
                decl(
                    "nfc_fanout",
                    "Tee",
                    vec![Arg::positional(many.len().to_string())],
                ),
            ]));
            for (i, e) in many.iter().enumerate() {
                statements.push(chain_stmt(vec![
                    name_hop("nfc_fanout", None, Some(i as u32)),
                    name_hop(&e.id.0, None, None),
                ]));
            }
        }
    }
    for nf in &order {
        let succ = chain.successors(&nf.id.0);
        for port in 0..nf.ports.max(1) {
            let targets: Vec<&str> = succ
                .iter()
                .filter(|(p, _)| *p == port)
                .map(|(_, n)| n.0.as_str())
                .collect();
            let targets = if targets.is_empty() {
                vec!["nfc_out"]
            } else {
                targets
            };
            for t in targets {
                let out_port = if port == 0 { None } else { Some(port) };
                statements.push(chain_stmt(vec![
                    name_hop(&nf.id.0, None, out_port),
                    name_hop(t, None, None),
                ]));
            }
        }
    }
    let config = ClickConfig { statements };
    let mut out = String::new();
    out.push_str(&format!(
        "// nfc: FastClick configuration for chain `{}`\n",
        chain.name
    ));
    for line in &plan.rationale {
        out.push_str(&format!("// {line}\n"));
    }
    out.push_str("// Nfc* elements: the package in nfc-elements/ (see its README); RSS: the flow-rules file\n");
    out.push_str(&click::print(&config));
    out
}

/// One in-place text edit.
struct Edit {
    span: ByteSpan,
    text: String,
}

/// Edits that set `updates` (keyword, value) on an element: replace existing
/// keyword arguments, insert missing ones after the positional arguments.
fn set_args(
    config: Option<&ConfigArgs>,
    class_end: usize,
    updates: &[(&str, String)],
    edits: &mut Vec<Edit>,
) {
    let Some(config) = config else {
        let inner: Vec<String> = updates.iter().map(|(k, v)| format!("{k} {v}")).collect();
        edits.push(Edit {
            span: ByteSpan {
                start: class_end,
                end: class_end,
            },
            text: format!("({})", inner.join(", ")),
        });
        return;
    };
    let mut missing = vec![];
    for (k, v) in updates {
        match config
            .args
            .iter()
            .find(|a| a.keyword.as_deref() == Some(*k))
        {
            Some(arg) if arg.value == *v => {}
            Some(arg) => edits.push(Edit {
                span: arg.span,
                text: format!("{k} {v}"),
            }),
            None => missing.push(format!("{k} {v}")),
        }
    }
    if missing.is_empty() {
        return;
    }
    // After the leading positional arguments (as Fig. 7 places HASHFUNC
    // after `$port`), else after the last argument.
    let anchor = config
        .args
        .iter()
        .take_while(|a| a.keyword.is_none())
        .last()
        .or(config.args.last());
    let (at, text) = match anchor {
        Some(arg) => (arg.span.end, format!(", {}", missing.join(", "))),
        None => (config.span.start, missing.join(", ")),
    };
    edits.push(Edit {
        span: ByteSpan { start: at, end: at },
        text,
    });
}

/// Rewrite an existing FastClick configuration for `plan`, touching only the
/// parameters the plan decides (FlowMage Fig. 7): RSS on every
/// `FromDPDKDevice`, `SHARED` on every stateful element named in
/// `facts_by_element`. Comments and layout are preserved. Parse errors,
/// elements missing from the file and NFs missing from the plan are errors.
pub fn rewrite_click(
    text: &str,
    file: &str,
    facts_by_element: &[(String, Facts)],
    plan: &Plan,
    rules_file: Option<&str>,
) -> Result<String, Vec<Diagnostic>> {
    let (config, diags) = click::parse(text, file);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let mut errors = vec![];
    let mut edits = vec![];
    let from_devices: Vec<_> = config
        .statements
        .iter()
        .filter_map(|st| match st {
            Statement::Chain { hops, .. } => Some(hops),
            Statement::ElementClass { .. } => None,
        })
        .flatten()
        .filter_map(|hop| match &hop.element {
            Element::Declaration {
                class,
                config,
                class_end,
                ..
            } if class == FROM_DEVICE => Some((config.as_ref(), *class_end)),
            Element::Anonymous {
                class,
                config,
                span,
            } if class == FROM_DEVICE => Some((Some(config), span.start + class.len())),
            _ => None,
        })
        .collect();
    if from_devices.is_empty() {
        errors.push(
            Diagnostic::error(
                "E0506",
                format!("no `{FROM_DEVICE}` element to carry the RSS configuration"),
            )
            .with_span(ByteSpan::default().to_span(file, text))
            .with_hint("the FastClick target configures RSS on FromDPDKDevice"),
        );
    }
    let rss = rss_args(plan, rules_file);
    for (cfg, class_end) in from_devices {
        set_args(cfg, class_end, &rss, &mut edits);
    }
    let decls = config.declarations();
    for (element, facts) in facts_by_element {
        let Some(decl) = decls.iter().find(|d| d.name == element) else {
            errors.push(
                Diagnostic::error(
                    "E0521",
                    format!("element `{element}` is not declared in the configuration"),
                )
                .with_span(ByteSpan::default().to_span(file, text)),
            );
            continue;
        };
        if !facts.stateful {
            continue;
        }
        let Some(placement) = plan
            .nfs
            .iter()
            .find(|p| p.nf == *element || p.nf == facts.nf)
        else {
            errors.push(
                Diagnostic::error(
                    "E0522",
                    format!("the plan has no placement for element `{element}`"),
                )
                .with_span(decl.span.to_span(file, text)),
            );
            continue;
        };
        if let Some(shared) = sharing_arg(placement.sharing) {
            set_args(
                decl.config,
                decl.class_end,
                &[("SHARED", shared)],
                &mut edits,
            );
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    edits.sort_by(|a, b| {
        b.span
            .start
            .cmp(&a.span.start)
            .then(b.span.end.cmp(&a.span.end))
    });
    let mut out = text.to_string();
    for e in edits {
        out.replace_range(e.span.start..e.span.end, &e.text);
    }
    Ok(out)
}
