//! The FastClick target: FlowMage Fig. 7's in-place rewrite, emission of a
//! fresh configuration for a chain (parsed back and checked), and errors.

use nfc_core::chain::{
    ChainSpec, ConfigValue, Link, NfId, NfInstance, NfSource, Resources, TargetOptions, Traffic,
};
use nfc_core::click::{self, Element, Statement};
use nfc_core::facts::{Facts, Field, Intensity, StateObject};
use nfc_core::plan::Plan;
use nfc_placer::fastclick::{emit_chain, rewrite_click};
use nfc_placer::{place, PacketHeader, PlaceOptions, TrafficProfile};
use petgraph::graph::DiGraph;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn nf(id: &str, key: &[Field], cost: u64, capacity: u64) -> Facts {
    Facts {
        stateful: true,
        flow_key: key.to_vec(),
        intensity: Intensity::PerPacket,
        per_packet_cost: Some(cost),
        state_objects: vec![StateObject {
            name: "table".into(),
            key: key.to_vec(),
            entry_bytes: Some(64),
            capacity: Some(capacity),
            per_flow: true,
            pointer_chasing: false,
        }],
        ..Facts::stateless(id)
    }
}

fn facts() -> Vec<(String, Facts)> {
    vec![
        (
            "psd".to_string(),
            nf("psd", &[Field::SrcIp], 400, 8_000_000),
        ),
        (
            "policer".to_string(),
            nf("policer", &[Field::DstIp], 150, 8_000_000),
        ),
        (
            "flowCounter".to_string(),
            nf("flowCounter", &Field::FIVE_TUPLE, 100, 64_000_000),
        ),
    ]
}

fn plan_for(cores: u32) -> Plan {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut t = TrafficProfile::new();
    for _ in 0..2000 {
        t.push(
            PacketHeader {
                src_ip: rng.gen(),
                dst_ip: rng.gen(),
                src_port: rng.gen(),
                dst_port: rng.gen(),
                proto: 6,
            },
            1,
        );
    }
    place(
        &facts(),
        &Resources {
            cores,
            ..Resources::default()
        },
        &t,
        &PlaceOptions::default(),
    )
    .unwrap()
    .0
}

#[test]
fn fig7_is_rewritten_in_place() {
    let input = include_str!("data/fig7_input.click");
    let plan = plan_for(16);
    let out = rewrite_click(
        input,
        "fig7_input.click",
        &facts(),
        &plan,
        Some("rules.txt"),
    )
    .unwrap();
    let expected = String::from(
        "// FlowMage Fig. 7: input FastClick configuration
fd0 :: FromDPDKDevice($port, N_QUEUES 16, MODE flow, FLOW_RULES_FILE rules.txt, RETA_SIZE 128, MAXTHREADS 16, NDESC 256)
    -> Classifier(12/0800)
    -> MarkIPHeader(OFFSET 14)
    -> psd :: IPortScanDetector(SIZE 8000000, SHARED false)
    -> policer :: IPolicer(SIZE 8000000, SHARED true)
    -> flowCounter :: IFlowCounter(SIZE 64000000, SHARED false)
    -> td0 :: ToDPDKDevice($port, VERBOSE 99, TIMEOUT -1);
"
    );
    assert_eq!(out, expected);
    // Rewriting again with the same plan changes nothing.
    assert_eq!(
        rewrite_click(&out, "again.click", &facts(), &plan, Some("rules.txt")).unwrap(),
        out
    );
    // A plan for fewer cores replaces the existing values in place.
    let plan4 = plan_for(4);
    let out4 = rewrite_click(&out, "again.click", &facts(), &plan4, Some("rules.txt")).unwrap();
    assert!(
        out4.contains("N_QUEUES 4,") && out4.contains("MAXTHREADS 4,"),
        "{out4}"
    );
}

#[test]
fn rewrite_reports_problems() {
    let plan = plan_for(4);
    let err = rewrite_click("a :: Counter(\n", "bad.click", &facts(), &plan, None).unwrap_err();
    assert!(
        err.iter()
            .any(|d| d.code == "E0520" && d.span.as_ref().unwrap().file == "bad.click"),
        "{err:?}"
    );
    let err = rewrite_click(
        "src :: FromDPDKDevice(0) -> psd :: X -> Discard;",
        "x.click",
        &facts(),
        &plan,
        None,
    )
    .unwrap_err();
    let codes: Vec<&str> = err.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes,
        ["E0521", "E0521"],
        "policer and flowCounter are missing: {err:?}"
    );
    let err = rewrite_click("a :: Counter -> Discard;", "x.click", &[], &plan, None).unwrap_err();
    assert_eq!(err[0].code, "E0506");
    // An element declared without arguments gets a parenthesised list.
    let text = "in :: FromDPDKDevice(0); psd :: IPortScanDetector; policer :: IPolicer(); flowCounter :: C(1); in -> psd -> policer -> flowCounter -> Discard;";
    let out = rewrite_click(text, "x.click", &facts(), &plan, None).unwrap();
    assert!(
        out.contains("psd :: IPortScanDetector(SHARED false);"),
        "{out}"
    );
    assert!(out.contains("policer :: IPolicer(SHARED true);"), "{out}");
    assert!(out.contains("flowCounter :: C(1, SHARED false);"), "{out}");
}

fn instance(id: &str, builtin: &str, ports: u32, config: ConfigValue) -> NfInstance {
    NfInstance {
        id: NfId(id.into()),
        source: NfSource::Builtin {
            name: builtin.into(),
        },
        config,
        ports,
        span: None,
        sharing: None,
    }
}

#[test]
fn emitted_config_parses_and_carries_the_plan() {
    let mut graph = DiGraph::new();
    let nodes: Vec<_> = (0..4).map(|i| graph.add_node(i)).collect();
    graph.add_edge(nodes[0], nodes[1], Link { from_port: 0 });
    graph.add_edge(nodes[1], nodes[2], Link { from_port: 0 });
    graph.add_edge(nodes[2], nodes[3], Link { from_port: 0 });
    let threshold = ConfigValue::Map(vec![("threshold".into(), ConfigValue::Scalar("20".into()))]);
    let rules = ConfigValue::Map(vec![(
        "rules".into(),
        ConfigValue::List(vec![ConfigValue::Scalar("deny 10.0.0.0/8".into())]),
    )]);
    let chain = ChainSpec {
        name: "flowmage".into(),
        path: None,
        nfs: vec![
            instance("fw", "acl_firewall", 2, rules),
            instance("psd", "port_scan_detector", 1, threshold),
            instance("policer", "policer", 1, ConfigValue::empty()),
            instance("flowCounter", "flow_counter", 1, ConfigValue::empty()),
        ],
        graph,
        resources: Resources {
            cores: 4,
            ..Resources::default()
        },
        traffic: Traffic::default(),
        targets: TargetOptions {
            fastclick_in: Some("0".into()),
            fastclick_out: Some("1".into()),
            ..TargetOptions::default()
        },
    };
    let mut all = facts();
    all.push(("fw".into(), Facts::stateless("fw")));
    let plan = place(
        &all,
        &chain.resources,
        &TrafficProfile::new(),
        &PlaceOptions::default(),
    )
    .unwrap()
    .0;
    let text = emit_chain(&chain, &plan, Some("rules.txt"));
    let own: Vec<String> = ["fw", "psd", "policer", "flowCounter"]
        .iter()
        .map(|id| nfc_placer::fastclick::class_name(id))
        .collect();
    let problems = nfc_placer::fastclick::validate_upstream(&text, "out.click", &own);
    assert!(problems.is_empty(), "{problems:?}\n{text}");
    let (config, diags) = click::parse(&text, "out.click");
    assert!(diags.is_empty(), "{diags:?}\n{text}");
    let decls = config.declarations();
    let get = |name: &str| {
        decls
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("{name} missing\n{text}"))
    };
    let input = get("nfc_in").config.unwrap();
    assert_eq!(get("nfc_in").class, "FromDPDKDevice");
    assert_eq!(input.get("MAXTHREADS"), Some("4"));
    assert_eq!(input.get("N_QUEUES"), Some("4"));
    assert_eq!(input.get("MODE"), Some("flow"));
    assert_eq!(input.get("FLOW_RULES_FILE"), Some("rules.txt"));
    assert_eq!(input.get("RETA_SIZE"), Some("128"));
    assert_eq!(get("nfc_out").config.unwrap().args[0].value, "1");
    // NF elements are the generated package's, with everything compiled in.
    assert_eq!(get("psd").class, "NfcPsd");
    assert_eq!(get("flowCounter").class, "NfcFlowCounter");
    assert!(get("fw").config.is_none_or(|c| c.args.is_empty()), "{text}");
    // Connections: fw's unconnected port 1 and the last NF go to the output.
    let conns: Vec<String> = config
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Chain { hops, .. } if hops.len() > 1 => Some(
                hops.iter()
                    .map(|h| {
                        let name = match &h.element {
                            Element::Name { name, .. } => name.clone(),
                            Element::Anonymous { class, .. } => class.clone(),
                            Element::Declaration { names, .. } => names[0].clone(),
                        };
                        match h.output_port {
                            Some(p) => format!("{name}[{p}]"),
                            None => name,
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" -> "),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(
        conns,
        [
            "nfc_in -> nfc_classify",
            "nfc_classify[1] -> Discard",
            "nfc_classify[0] -> MarkIPHeader -> fw",
            "fw -> psd",
            "fw[1] -> nfc_out",
            "psd -> policer",
            "policer -> flowCounter",
            "flowCounter -> nfc_out",
        ],
        "{text}"
    );
}

#[test]
fn nfs_without_facts_are_reported() {
    let mut graph = DiGraph::new();
    let a = graph.add_node(0);
    let b = graph.add_node(1);
    graph.add_edge(a, b, Link { from_port: 0 });
    let chain = ChainSpec {
        name: "two".into(),
        path: None,
        nfs: vec![
            instance("nat", "nat", 1, ConfigValue::empty()),
            instance("lb", "lb", 1, ConfigValue::empty()),
        ],
        graph,
        resources: Resources::default(),
        traffic: Traffic::default(),
        targets: TargetOptions::default(),
    };
    let err = nfc_placer::facts_for_chain(&chain, &[Facts::stateless("lb")]).unwrap_err();
    assert_eq!(
        err,
        nfc_placer::PlaceError::MissingFacts {
            nfs: vec!["nat".into()]
        }
    );
    assert_eq!(err.to_string(), "no facts for NF(s) nat");
    let ok =
        nfc_placer::facts_for_chain(&chain, &[Facts::stateless("lb"), Facts::stateless("nat")])
            .unwrap();
    assert_eq!(
        ok.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(),
        ["nat", "lb"]
    );
}
