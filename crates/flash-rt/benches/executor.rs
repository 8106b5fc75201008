//! Executor throughput on the 3-NF FlowMage chain (port_scan_detector ->
//! policer -> flow_counter) over 64-byte packets: packets/s on one worker,
//! and on two workers with every NF shared, with the placement FlowMage's
//! solver picks for RSS on src_ip (port_scan_detector and flow_counter
//! shared-nothing, policer shared because it is keyed by dst_ip), and with
//! every NF shared-nothing (an upper bound that is *incorrect* for the
//! policer; shown only to price the one lock the correct plan keeps).
//!
//! A fifth configuration runs three trivial NFs (the test `marker` NF) on
//! one worker: the executor's own per-packet overhead.
//!
//! Timings come from the executor's own wall clock, which covers packet
//! processing only (state reset and RSS dispatch are excluded). After the
//! criterion groups, a summary prints the median Mpps of each configuration
//! (wall clock, and per CPU-second, which stays meaningful when other
//! processes load the machine) and the ratios, measured in the same run.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flash_rt::offline::{ExecChain, ExecNf, ExecOptions, Executor};
use flash_rt::trace::{generate_packets, Packets};
use nfc_core::chain::{SizeMix, TrafficSpec};
use nfc_core::facts::Field;
use nfc_core::plan::Sharing;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn build(dir: &Path, name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    build_source(dir, name, &root.join(format!("nfs/{name}/{name}.c")))
}

fn build_source(dir: &Path, name: &str, src: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = dir.join(format!("{name}.so"));
    let ok = Command::new("clang-19")
        .args(["-O2", "-fPIC", "-shared", "-I"])
        .arg(root.join("nfs/include"))
        .arg("-o")
        .arg(&out)
        .arg(src)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "clang-19 could not build {}", src.display());
    out
}

fn chain(sos: &[PathBuf; 3], sharing: [Sharing; 3]) -> ExecChain {
    let cfg: [&[(&str, &str)]; 3] = [
        &[("threshold", "64"), ("action", "drop")],
        &[("rate", "100000000000"), ("burst", "100000000")],
        &[],
    ];
    let ids = ["port_scan_detector", "policer", "flow_counter"];
    let nfs = (0..3)
        .map(|i| ExecNf {
            id: ids[i].into(),
            so_path: sos[i].clone(),
            config: cfg[i]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            next: if i < 2 { vec![(0, i + 1)] } else { vec![] },
            sharing: sharing[i],
        })
        .collect();
    ExecChain {
        nfs,
        entries: vec![0],
    }
}

fn trace() -> Packets {
    let spec = TrafficSpec {
        flows: 4096,
        packets: 200_000,
        zipf: 1.0,
        sizes: SizeMix::Fixed(64),
        ..TrafficSpec::default()
    };
    generate_packets(&spec).expect("valid spec").0
}

struct Config {
    name: &'static str,
    workers: u32,
    sharing: [Sharing; 3],
}

const CONFIGS: [Config; 4] = [
    Config {
        name: "1 worker",
        workers: 1,
        sharing: [Sharing::Shared; 3],
    },
    Config {
        name: "2 workers, all shared",
        workers: 2,
        sharing: [Sharing::Shared; 3],
    },
    Config {
        name: "2 workers, plan (rss src_ip)",
        workers: 2,
        sharing: [
            Sharing::SharedNothing,
            Sharing::Shared,
            Sharing::SharedNothing,
        ],
    },
    Config {
        name: "2 workers, all shared-nothing",
        workers: 2,
        sharing: [Sharing::SharedNothing; 3],
    },
];

fn executor(sos: &[PathBuf; 3], c: &Config) -> Executor {
    let opts = ExecOptions {
        workers: c.workers,
        rss_fields: vec![Field::SrcIp],
        ..ExecOptions::default()
    };
    Executor::new(&chain(sos, c.sharing), &opts).expect("chain loads")
}

fn bench(cr: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let sos = ["port_scan_detector", "policer", "flow_counter"].map(|n| build(dir.path(), n));
    let packets = trace();
    let marker = build_source(
        dir.path(),
        "marker",
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/nfs/marker.c"),
    );
    let trivial = ExecChain {
        nfs: (0..3)
            .map(|i| ExecNf {
                id: format!("marker{i}"),
                so_path: marker.clone(),
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
    let mut group = cr.benchmark_group("flowmage_chain_64B");
    group.throughput(Throughput::Elements(packets.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_millis(500));
    for c in &CONFIGS {
        let mut ex = executor(&sos, c);
        group.bench_function(c.name, |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| Duration::from_nanos(ex.run(&packets).expect("run").report.wall_ns))
                    .sum()
            })
        });
    }
    let mut overhead = Executor::new(&trivial, &ExecOptions::default()).expect("chain loads");
    group.bench_function("1 worker, 3 trivial NFs (executor overhead)", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| Duration::from_nanos(overhead.run(&packets).expect("run").report.wall_ns))
                .sum()
        })
    });
    group.finish();

    // Same-run ratios: median of interleaved repetitions (the VM is noisy).
    let mut exs: Vec<Executor> = CONFIGS.iter().map(|c| executor(&sos, c)).collect();
    exs.push(overhead);
    let names: Vec<&str> = CONFIGS
        .iter()
        .map(|c| c.name)
        .chain(["1 worker, 3 trivial NFs"])
        .collect();
    let mut wall: Vec<Vec<f64>> = vec![vec![]; exs.len()];
    let mut cpu: Vec<Vec<f64>> = vec![vec![]; exs.len()];
    for _ in 0..9 {
        for (i, ex) in exs.iter_mut().enumerate() {
            let r = ex.run(&packets).expect("run").report;
            wall[i].push(r.mpps);
            cpu[i].push(r.mpps_per_cpu);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let w: Vec<f64> = wall.iter_mut().map(median).collect();
    let c: Vec<f64> = cpu.iter_mut().map(median).collect();
    println!(
        "\nexecutor summary (median of 9 runs of {} x 64-byte packets):",
        packets.len()
    );
    println!(
        "  {:34} {:>10} {:>14}",
        "configuration", "wall Mpps", "Mpps per CPU-s"
    );
    for (i, name) in names.iter().enumerate() {
        println!("  {:34} {:>10.2} {:>14.2}", name, w[i], c[i]);
    }
    println!(
        "  plan / all-shared, 2 workers (wall):      {:.2}x",
        w[2] / w[1]
    );
    println!(
        "  all-shared-nothing / all-shared (wall):   {:.2}x",
        w[3] / w[1]
    );
    println!(
        "  plan 2 workers / 1 worker (wall):         {:.2}x",
        w[2] / w[0]
    );
    println!(
        "  executor overhead per packet (per CPU):   {:.0} ns",
        1e3 / c[4]
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
