//! The repository's example chains (`examples/*.yaml`) parsed by nfc-core,
//! turned into executable chains with `ExecChain::from_spec`, and run over
//! the synthetic traffic each example declares, with library NFs built from
//! `nfs/`. Checks packet conservation through the DAG and that
//! `ExecOptions::from_plan`-style layouts give the single-worker output.

mod offline_support;

use flash_rt::offline::{run_packets, ExecChain, ExecOptions};
use flash_rt::trace::generate_packets;
use nfc_core::chain::{parse_chain, ChainSpec, NfSource, Traffic};
use nfc_core::facts::Field;
use nfc_core::plan::Sharing;
use offline_support::*;

fn load(example: &str) -> ChainSpec {
    let path = workspace().join("examples").join(example);
    let text = std::fs::read_to_string(&path).unwrap();
    let catalog: Vec<String> = std::fs::read_dir(workspace().join("nfs"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("facts.yaml").is_file() || e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let (spec, diags) = parse_chain(&text, example, path.parent().unwrap(), &catalog);
    spec.unwrap_or_else(|| panic!("{example} does not parse: {diags:?}"))
}

fn exec_chain(spec: &ChainSpec) -> ExecChain {
    ExecChain::from_spec(
        spec,
        |inst| match &inst.source {
            NfSource::Builtin { name } => {
                library_nf(name).unwrap_or_else(|| panic!("nfs/{name}/{name}.c is missing"))
            }
            other => panic!("example uses a non-builtin NF: {other:?}"),
        },
        None,
    )
}

fn traffic(spec: &ChainSpec, packets: u64) -> flash_rt::trace::Packets {
    let Traffic::Synthetic(t) = &spec.traffic else {
        panic!("example has no synthetic traffic")
    };
    let mut t = t.clone();
    t.packets = packets;
    generate_packets(&t).unwrap().0
}

#[test]
fn flash_dag_example_conserves_packets_through_fan_out_and_fan_in() {
    let spec = load("flash-dag.yaml");
    let chain = exec_chain(&spec);
    assert_eq!(chain.entries.len(), 1);
    let trace = traffic(&spec, 5000);
    let r = run_packets(&chain, &trace, &ExecOptions::default())
        .unwrap()
        .report;
    assert_eq!(
        r.exited + r.dropped,
        5000,
        "every packet exits or is dropped once"
    );
    let by_id = |id: &str| r.nfs.iter().find(|n| n.id == id).unwrap();
    let (fw, lb, out) = (by_id("fw"), by_id("lb"), by_id("out"));
    assert_eq!(fw.rx, 5000);
    assert_eq!(lb.rx, fw.out[0]);
    assert_eq!(by_id("mon_a").rx, lb.out[0]);
    assert_eq!(by_id("count_b").rx, lb.out[1]);
    assert!(
        lb.out[0] > 0 && lb.out[1] > 0,
        "maglev spreads over both backends: {:?}",
        lb.out
    );
    assert_eq!(out.rx, by_id("mon_a").out[0] + by_id("count_b").out[0]);
    assert_eq!(r.exits.keys().collect::<Vec<_>>(), vec!["out.0"]);
}

#[test]
fn flowmage_example_layouts_agree_on_flow_consistent_rss() {
    let spec = load("flowmage-3nf.yaml");
    let trace = traffic(&spec, 20_000);
    // The policer is keyed by dst_ip, so with a src_ip hash it must stay
    // shared; but it is time-driven, and a shared instance sees the two
    // workers' packets interleaved, so compare the layouts on the other two.
    let mut chain = exec_chain(&spec);
    chain.nfs.retain(|n| n.id != "policer");
    chain.nfs[0].next = vec![(0, 1)];
    let single = run_packets(
        &chain,
        &trace,
        &ExecOptions {
            collect_output: true,
            ..ExecOptions::default()
        },
    )
    .unwrap()
    .report;
    for nf in &mut chain.nfs {
        nf.sharing = Sharing::SharedNothing;
    }
    let opts = ExecOptions {
        workers: 2,
        rss_fields: vec![Field::SrcIp],
        collect_output: true,
        ..ExecOptions::default()
    };
    let sn = run_packets(&chain, &trace, &opts).unwrap().report;
    assert_eq!(sn.output_digest, single.output_digest);
    assert_eq!(sn.exited, single.exited);
}
