//! AF_XDP throughput of a chain deployed unreduced vs reduced, in one run:
//! examples/ids-firewall.yaml (firewall → IDS) built through the library's
//! [`nfc::pipeline::Pipeline`] twice — `ReducePolicy::Off` (two NF hosts)
//! and the default (one NF host running the reduced module) — each
//! deployment served by `nfc run` in a network namespace between two veth
//! pairs, with real IPv4/TCP frames (port 80, a payload the IDS scans and
//! passes) from flash-rt's AF_XDP generator in the peer namespace and
//! counted by its AF_XDP sink on the egress side.
//!
//! Closed loop (`flash_rt::xdp::loadgen::ClosedLoop`: at most 1024 frames
//! in flight, frames known by their IPv4 identification, a missing frame
//! lost and its slot freed once later frames came back, RACK-style), 1 s
//! warm-up then 3 s measured per run (`--secs S`); the two configurations alternate, the
//! first of each pair swapping every repeat (`--repeats N`, default 5).
//! Reported: per-run Mpps, medians, and the reduced/original ratio per
//! pair and its median. The VM has 2 CPUs shared with the generator and,
//! while other engineers compile, with their builds: the load average is
//! printed before and after; read the ratio, not the absolute numbers.
//!
//! Needs root (namespaces, XDP); otherwise prints `{"skipped": ...}` and
//! exits 0. Without `--bench` (`cargo test` mode) it does nothing. The JSON
//! document is the last stdout line (`cargo xtask bench reduced-flash`).

use flash_rt::trace::craft::PacketBuilder;
use flash_rt::xdp::loadgen::{ClosedLoop, LoadGen, LoadGenConfig};
use nfc::pipeline::{Pipeline, PipelineOptions, ReducePolicy, Target};
use std::path::{Path, PathBuf};

#[path = "../crates/flash-rt/tests/netns_common/mod.rs"]
mod netns_common;
#[path = "common/nfc_run.rs"]
mod nfc_run;

use netns_common::{in_netns, quiet, Topo};

/// Build the chain through the pipeline into `out` (reduced or not).
fn build(chain: &Path, cache: &Path, out: &Path, reduce: bool) -> usize {
    let mut opts = PipelineOptions::new(cache, out);
    if !reduce {
        opts.reduce = ReducePolicy::Off;
    }
    let mut p = Pipeline::new(opts);
    p.load(chain).expect("chain loads");
    p.emit(Target::Flash).expect("flash target");
    p.deployed_chain().expect("deployed").nfs.len()
}

/// Closed-loop Mpps over `secs` after `warm` seconds: `ClosedLoop`, the
/// one closed loop of the benches and `nfc profile` (at most 1024 frames
/// in flight; a frame, known by its IPv4 identification, still missing
/// once later frames came back (RACK-style) counts as lost and frees its
/// slot).
fn throughput(g: &mut LoadGen, warm: f64, secs: f64) -> (f64, u64) {
    let mut cl = ClosedLoop::default();
    cl.run_for(g, warm, None);
    let w = cl.run_for(g, secs, None);
    while g.wait_rx(20) {
        cl.recv(g, usize::MAX, None);
    }
    (w.delivered_pps() / 1e6, w.lost)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let opt = |name: &str, default: f64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let repeats = opt("--repeats", 5.0) as usize;
    let secs = opt("--secs", 3.0);
    // SAFETY: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("reduced_flash: SKIPPED: needs root (network namespaces, AF_XDP)");
        println!("{}", serde_json::json!({"skipped": "needs root"}));
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir_in("/tmp").expect("tempdir");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
    }
    let example =
        std::fs::read_to_string(root.join("examples/ids-firewall.yaml")).expect("example");
    let chain = work.path().join("ids-firewall.yaml");
    std::fs::write(
        &chain,
        format!("{example}targets:\n  flash: {{ingress: vi1, egress: vo1}}\n"),
    )
    .expect("chain");
    let cache = work.path().join("cache");
    let configs: Vec<(&str, PathBuf, usize)> = [("original", false), ("reduced", true)]
        .into_iter()
        .map(|(name, reduce)| {
            let dir = work.path().join(name);
            let nfs = build(&chain, &cache, &dir, reduce);
            // A socket of its own, so one run's leftovers cannot meet the next.
            let path = dir.join("deployment.json");
            let mut dep = flash_rt::deploy::Deployment::load(&path).expect("deployment");
            dep.monitor.socket = dir.join("mon.sock");
            std::fs::write(&path, dep.to_json()).expect("deployment");
            (name, dir, nfs)
        })
        .collect();
    eprintln!(
        "original: {} NF host(s); reduced: {} NF host(s); load average before: {}",
        configs[0].2,
        configs[1].2,
        loadavg()
    );
    let frame = PacketBuilder::tcp([10, 1, 0, 1].into(), [192, 168, 2, 1].into(), 40000, 80)
        .payload(b"GET /index.html HTTP/1.1\r\nHost: example\r\n\r\n")
        .frame_len(128)
        .build();
    let net = Topo::new();
    quiet(&net);
    let mut runs: Vec<Vec<f64>> = vec![vec![], vec![]];
    let mut lost_frames = [0u64; 2];
    let mut ratios = vec![];
    for r in 0..repeats {
        let order: [usize; 2] = if r % 2 == 0 { [0, 1] } else { [1, 0] };
        let mut pair = [0.0; 2];
        for k in order {
            let (name, dir, nfs) = &configs[k];
            let child =
                nfc_run::serve(&net.dut.name, dir, *nfs, 300).unwrap_or_else(|e| panic!("{e}"));
            let f = frame.clone();
            let (mpps, lost) = in_netns(&net.peer.name, move || {
                let cfg = LoadGenConfig {
                    stamp: false,
                    ip_id_seq: true,
                    ..LoadGenConfig::default()
                };
                let mut g = LoadGen::new("vi0", "vo0", &f, &cfg).expect("load generator");
                throughput(&mut g, 1.0, secs)
            });
            nfc_run::stop(child);
            eprintln!("repeat {r}: {name:<8} {mpps:.3} Mpps, {lost} frames lost");
            lost_frames[k] += lost;
            runs[k].push(mpps);
            pair[k] = mpps;
        }
        if pair[0] > 0.0 {
            ratios.push(pair[1] / pair[0]);
        }
    }
    let after = loadavg();
    let (mo, mr) = (median(&runs[0]), median(&runs[1]));
    eprintln!("\nconfig     NF hosts  median Mpps   runs");
    for (k, (name, _, nfs)) in configs.iter().enumerate() {
        eprintln!(
            "{name:<10} {nfs:>8}  {:>11.3}   {:?}",
            median(&runs[k]),
            runs[k]
                .iter()
                .map(|x| (x * 1000.0).round() / 1000.0)
                .collect::<Vec<_>>()
        );
    }
    eprintln!(
        "reduced/original: median of per-pair ratios {:.3} (pairs: {:?}); load average after: {after}",
        median(&ratios),
        ratios.iter().map(|x| (x * 1000.0).round() / 1000.0).collect::<Vec<_>>()
    );
    println!(
        "{}",
        serde_json::json!({
            "chain": "examples/ids-firewall.yaml",
            "repeats": repeats,
            "secs": secs,
            "original": {"nf_hosts": configs[0].2, "mpps": runs[0], "median_mpps": mo, "lost_frames": lost_frames[0]},
            "reduced": {"nf_hosts": configs[1].2, "mpps": runs[1], "median_mpps": mr, "lost_frames": lost_frames[1]},
            "ratio_per_pair": ratios,
            "median_ratio": median(&ratios),
            "loadavg_after": after,
        })
    );
}
