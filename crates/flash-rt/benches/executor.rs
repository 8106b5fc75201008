//! What nfc's placement is worth in the reference executor (issue 5's
//! "measured benefit"): on both FlowMage chains (`examples/flowmage-2nf.yaml`
//! and `examples/flowmage-3nf.yaml`, their own NF configs and synthetic
//! traffic), two workers running
//!
//! - **default**: RSS on the 5-tuple (Microsoft key, round-robin RETA), every
//!   stateful NF shared (one state table, its lock held for each call);
//! - **plan**: the placement `nfc_placer::place` produces for the chain (its
//!   RSS fields, Toeplitz key and RETA, and its shared / shared-nothing
//!   decision per NF), from the NFs' labelled facts (`nfs/<nf>/facts.yaml`,
//!   which the analyzer's agreement test holds it to) and the chain's traffic;
//!
//! plus, for scale, one worker (no locks); a control with the plan's hash but
//! every NF shared (same per-worker load as the plan, so plan/control is the
//! benefit of the sharing decisions alone, and control/default that of the
//! hash alone); two workers with every NF shared-nothing under the plan's
//! hash (an upper bound that is *incorrect* for NFs the plan shares: it
//! prices the locks the plan keeps); and the executor's own per-packet
//! overhead (three trivial NFs, one worker).
//!
//! Every configuration runs the same packets, interleaved (rotating order)
//! for `REPS` rounds; the reported ratio is the median over rounds of the
//! per-round plan/default ratio, on wall-clock throughput and on throughput
//! per process CPU-second (`getrusage` over the processing window, which
//! stays meaningful when other processes take the cores). Per-worker packet
//! counts, lock contention (acquisitions that found the lock held) and the
//! achieved parallelism (process CPU time / wall time: 2.0 means both workers
//! ran the whole time, below 1.0 means other processes had the cores) are
//! printed so that the ratio can be read against load balance and against
//! whether the two workers actually ran at the same time.
//!
//! Output: tables on stderr, one JSON document as the last stdout line.

use flash_rt::offline::{ExecChain, ExecNf, ExecOptions, ExecReport, Executor};
use flash_rt::trace::{generate_packets, Packets};
use nfc_core::chain::{parse_chain_file, ChainSpec, NfSource, RssInput, Traffic};
use nfc_core::facts::{Facts, Field};
use nfc_core::plan::{Plan, Sharing};
use nfc_placer::{PacketHeader, PlaceOptions, RssInputMode, TrafficProfile};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Interleaved rounds over all configurations.
const REPS: usize = 9;
/// Workers of the multi-worker configurations (issue 5: two).
const WORKERS: u32 = 2;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The chain's NF objects, built as the driver builds them.
fn build_nfs(spec: &ChainSpec, out: &Path) -> Vec<(String, PathBuf)> {
    let opts = nfc_nfs::BuildOptions {
        out_dir: out.to_path_buf(),
        sanitize: false,
        extra_cflags: vec![],
    };
    spec.nfs
        .iter()
        .map(|inst| {
            let NfSource::Builtin { name } = &inst.source else {
                panic!("NF `{}` is not a built-in", inst.id.0)
            };
            let nf = nfc_nfs::builtin(name).expect("built-in NF");
            let built = nfc_nfs::build(&inst.id.0, &nf.sources, &opts)
                .unwrap_or_else(|e| panic!("building {name}: {e}"));
            (inst.id.0.clone(), built.so)
        })
        .collect()
}

/// The labelled facts of the chain's NFs, keyed by instance id.
fn chain_facts(spec: &ChainSpec) -> Vec<(String, Facts)> {
    spec.nfs
        .iter()
        .map(|inst| {
            let NfSource::Builtin { name } = &inst.source else {
                panic!("NF `{}` is not a built-in", inst.id.0)
            };
            let nf = nfc_nfs::builtin(name).expect("built-in NF");
            let mut facts = nfc_nfs::load_facts(&nf.facts_path).expect("labelled facts");
            facts.nf = inst.id.0.clone();
            (inst.id.0.clone(), facts)
        })
        .collect()
}

/// The placer's input profile: header tuples of the packets (as the driver
/// builds it from the chain's traffic).
fn profile(packets: &Packets) -> TrafficProfile {
    TrafficProfile::from_packets(packets.iter().map(|p| PacketHeader::from_frame(p.data)))
}

/// Place the chain as `nfc build` does (NIC's RSS input mode, default options).
fn place(spec: &ChainSpec, traffic: &TrafficProfile) -> Plan {
    let opts = PlaceOptions {
        rss_input: match spec.resources.nic.rss_input {
            RssInput::FieldSelect => RssInputMode::FieldSelect,
            RssInput::Tuple => RssInputMode::Tuple,
        },
        ..PlaceOptions::default()
    };
    let mut resources = spec.resources.clone();
    resources.cores = WORKERS;
    nfc_placer::place(&chain_facts(spec), &resources, traffic, &opts)
        .unwrap_or_else(|e| panic!("placing {}: {e}", spec.name))
        .0
}

fn with_sharing(chain: &ExecChain, f: impl Fn(&ExecNf) -> Sharing) -> ExecChain {
    let mut c = chain.clone();
    for nf in &mut c.nfs {
        nf.sharing = f(nf);
    }
    c
}

struct Config {
    label: String,
    ex: Executor,
    reports: Vec<ExecReport>,
}

struct ChainBench {
    name: String,
    packets: Packets,
    plan: Plan,
    configs: Vec<Config>,
}

const ONE: usize = 0;
const DEFAULT: usize = 1;
const PLAN: usize = 2;
const CONTROL: usize = 3;
const BOUND: usize = 4;

fn chain_bench(file: &str, dir: &Path) -> ChainBench {
    let path = root().join("examples").join(file);
    let names: Vec<String> = nfc_nfs::catalog().into_iter().map(|n| n.name).collect();
    let (spec, diags) = parse_chain_file(&path, &names);
    let spec = spec.unwrap_or_else(|| panic!("{}: {diags:?}", path.display()));
    let Traffic::Synthetic(traffic) = &spec.traffic else {
        panic!("{file}: expected synthetic traffic")
    };
    let packets = generate_packets(traffic).expect("valid traffic spec").0;
    let plan = place(&spec, &profile(&packets));
    let sos = build_nfs(&spec, dir);
    let so_for = |inst: &nfc_core::chain::NfInstance| {
        sos.iter()
            .find(|(id, _)| *id == inst.id.0)
            .map(|(_, p)| p.clone())
            .unwrap_or_default()
    };
    // Without a plan every NF runs shared: the safe default.
    let all_shared = ExecChain::from_spec(&spec, so_for, None);
    let planned = ExecChain::from_spec(&spec, so_for, Some(&plan));
    let bound = with_sharing(&planned, |nf| match nf.sharing {
        Sharing::Stateless => Sharing::Stateless,
        _ => Sharing::SharedNothing,
    });
    let default_opts = ExecOptions {
        workers: WORKERS,
        rss_fields: Field::FIVE_TUPLE.to_vec(),
        ..ExecOptions::default()
    };
    let plan_opts = ExecOptions {
        workers: WORKERS,
        ..ExecOptions::from_plan(&plan)
    };
    let one_opts = ExecOptions::default();
    let fields: Vec<&str> = plan.rss.fields.iter().map(|f| f.name()).collect();
    let fields = format!(
        "{}{}",
        fields.join("+"),
        if plan.rss.symmetric { " sym" } else { "" }
    );
    let configs = [
        ("1 worker, all shared".to_string(), &all_shared, &one_opts),
        (
            "default: 5-tuple, all shared".to_string(),
            &all_shared,
            &default_opts,
        ),
        (format!("plan: {fields}"), &planned, &plan_opts),
        (
            format!("control: {fields}, all shared"),
            &all_shared,
            &plan_opts,
        ),
        (format!("bound: {fields}, all SN (!)"), &bound, &plan_opts),
    ]
    .into_iter()
    .map(|(label, chain, opts)| Config {
        label,
        ex: Executor::new(chain, opts).expect("chain loads"),
        reports: vec![],
    })
    .collect();
    ChainBench {
        name: spec.name.clone(),
        packets,
        plan,
        configs,
    }
}

/// The executor's own per-packet cost: three trivial NFs on one worker.
fn overhead_executor(dir: &Path) -> Executor {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/nfs/marker.c");
    let opts = nfc_nfs::BuildOptions {
        out_dir: dir.to_path_buf(),
        sanitize: false,
        extra_cflags: vec![],
    };
    let so = nfc_nfs::build("marker", &[src], &opts)
        .expect("marker NF builds")
        .so;
    let chain = ExecChain {
        nfs: (0..3)
            .map(|i| ExecNf {
                id: format!("marker{i}"),
                so_path: so.clone(),
                config: vec![
                    ("offset".into(), format!("{}", 50 + i)),
                    ("value".into(), "1".into()),
                ],
                next: if i < 2 { vec![(0, i + 1)] } else { vec![] },
                sharing: Sharing::Stateless,
            })
            .collect(),
        entries: vec![0],
    };
    Executor::new(&chain, &ExecOptions::default()).expect("chain loads")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    v[v.len() / 2]
}

fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let load_before = load_average();
    let mut benches: Vec<ChainBench> = ["flowmage-2nf.yaml", "flowmage-3nf.yaml"]
        .iter()
        .map(|f| chain_bench(f, dir.path()))
        .collect();
    let mut overhead = overhead_executor(dir.path());
    let mut overhead_cpu = vec![];

    for rep in 0..REPS {
        for b in &mut benches {
            let n = b.configs.len();
            for k in 0..n {
                let c = &mut b.configs[(k + rep) % n];
                let r = c.ex.run(&b.packets).expect("run").report;
                c.reports.push(r);
            }
        }
        let r = overhead.run(&benches[0].packets).expect("run").report;
        overhead_cpu.push(r.mpps_per_process_cpu);
    }
    let load_after = load_average();

    let mut out = vec![];
    eprintln!(
        "\nexecutor: plan vs default, {WORKERS} workers, median of {REPS} interleaved rounds \
         (load average {} before, {} after; 2 vCPUs shared with other jobs)",
        load_before.map_or("?".into(), |l| format!("{l:.2}")),
        load_after.map_or("?".into(), |l| format!("{l:.2}")),
    );
    for b in &benches {
        eprintln!(
            "\n{} ({} packets): plan = RSS {:?}{}, {}",
            b.name,
            b.packets.len(),
            b.plan.rss.fields,
            if b.plan.rss.symmetric {
                " symmetric"
            } else {
                ""
            },
            b.plan
                .nfs
                .iter()
                .map(|n| format!("{} {:?}", n.nf, n.sharing))
                .collect::<Vec<_>>()
                .join(", ")
        );
        eprintln!(
            "  {:34} {:>9} {:>11} {:>8} {:>17} {:>16}",
            "configuration",
            "wall Mpps",
            "Mpps/CPU-s",
            "parallel",
            "packets/worker",
            "contended/NF"
        );
        let mut rows = vec![];
        for c in &b.configs {
            let wall = median(c.reports.iter().map(|r| r.mpps).collect());
            let cpu = median(c.reports.iter().map(|r| r.mpps_per_process_cpu).collect());
            let last = c.reports.last().expect("ran");
            let contended: Vec<u64> = (0..last.nfs.len())
                .map(|i| {
                    let v: Vec<f64> = c
                        .reports
                        .iter()
                        .map(|r| r.nfs[i].lock_contended as f64)
                        .collect();
                    median(v) as u64
                })
                .collect();
            let parallel = median(
                c.reports
                    .iter()
                    .map(|r| r.process_cpu_ns as f64 / r.wall_ns.max(1) as f64)
                    .collect(),
            );
            eprintln!(
                "  {:34} {:>9.3} {:>11.3} {:>8.2} {:>17} {:>16}",
                c.label,
                wall,
                cpu,
                parallel,
                format!("{:?}", last.worker_packets),
                format!("{contended:?}")
            );
            rows.push(json!({
                "config": c.label,
                "wall_mpps": wall,
                "mpps_per_process_cpu_s": cpu,
                "worker_packets": last.worker_packets,
                "lock_contended_median": contended,
                "parallelism": parallel,
                "dropped": last.dropped,
            }));
        }
        let ratio = |k: usize, f: fn(&ExecReport) -> f64| {
            median(
                b.configs[k]
                    .reports
                    .iter()
                    .zip(&b.configs[DEFAULT].reports)
                    .map(|(p, d)| f(p) / f(d))
                    .collect(),
            )
        };
        let wall_ratio = ratio(PLAN, |r| r.mpps);
        let cpu_ratio = ratio(PLAN, |r| r.mpps_per_process_cpu);
        let bound_wall = ratio(BOUND, |r| r.mpps);
        let control_wall = ratio(CONTROL, |r| r.mpps);
        let control_cpu = ratio(CONTROL, |r| r.mpps_per_process_cpu);
        let plan_over_control = |f: fn(&ExecReport) -> f64| {
            median(
                b.configs[PLAN]
                    .reports
                    .iter()
                    .zip(&b.configs[CONTROL].reports)
                    .map(|(p, c)| f(p) / f(c))
                    .collect(),
            )
        };
        let sharing_wall = plan_over_control(|r| r.mpps);
        let sharing_cpu = plan_over_control(|r| r.mpps_per_process_cpu);
        let one_wall = ratio(ONE, |r| r.mpps);
        let imbalance = |r: &ExecReport| {
            let max = r.worker_packets.iter().copied().max().unwrap_or(0) as f64;
            max * r.workers as f64 / r.packets.max(1) as f64
        };
        eprintln!(
            "  plan / default: {wall_ratio:.2}x wall, {cpu_ratio:.2}x per CPU-s \
             (all-SN bound {bound_wall:.2}x wall; 1 worker {one_wall:.2}x wall); \
             busiest worker carries {:.2}x / {:.2}x its fair share (default / plan)\n  \
             of which the hash alone (control / default): {control_wall:.2}x wall, {control_cpu:.2}x per CPU-s; \
             the sharing decisions alone (plan / control): {sharing_wall:.2}x wall, {sharing_cpu:.2}x per CPU-s",
            imbalance(&b.configs[DEFAULT].reports[0]),
            imbalance(&b.configs[PLAN].reports[0]),
        );
        out.push(json!({
            "chain": b.name,
            "packets": b.packets.len(),
            "plan": {
                "rss_fields": b.plan.rss.fields,
                "symmetric": b.plan.rss.symmetric,
                "sharing": b.plan.nfs.iter().map(|n| json!({"nf": n.nf, "sharing": n.sharing})).collect::<Vec<_>>(),
            },
            "configs": rows,
            "plan_over_default_wall": wall_ratio,
            "plan_over_default_per_cpu": cpu_ratio,
            "all_sn_bound_over_default_wall": bound_wall,
            "control_over_default_wall": control_wall,
            "control_over_default_per_cpu": control_cpu,
            "plan_over_control_wall": sharing_wall,
            "plan_over_control_per_cpu": sharing_cpu,
            "one_worker_over_default_wall": one_wall,
            "imbalance_default": imbalance(&b.configs[DEFAULT].reports[0]),
            "imbalance_plan": imbalance(&b.configs[PLAN].reports[0]),
        }));
    }
    let overhead_ns = 1e3 / median(overhead_cpu);
    eprintln!("\nexecutor overhead (3 trivial NFs, 1 worker): {overhead_ns:.0} ns/packet of CPU");
    println!(
        "{}",
        json!({
            "workers": WORKERS,
            "reps": REPS,
            "load_average_1m_before": load_before,
            "load_average_1m_after": load_after,
            "chains": out,
            "executor_overhead_ns_per_packet": overhead_ns,
        })
    );
}
