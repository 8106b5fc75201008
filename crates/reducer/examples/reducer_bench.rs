//! Reducer measurements (the lead's `cargo xtask bench reducer` runs this and
//! reads the JSON document on the LAST stdout line; a human table precedes it).
//!
//! For every NFReducer scenario, on the built-in NFs of `nfs/` (configs from
//! their `configs/*.yaml` or `tests/data/configs/`, flattened as the CLI
//! does) and on the reducer's own test NFs (`tests/data/*.c`, labelled
//! `own/`), it measures each variant of the NF or chain:
//! - instructions per packet with `valgrind --tool=callgrind` (deterministic),
//!   including the harness's own per-packet cost (frame copy, loop, call);
//!   `-NF only` subtracts that cost, measured with a forward-all NF on the
//!   same packets;
//! - a throughput ratio against the scenario's baseline, timed natively by
//!   the harness in the same run: variants interleaved in rotating order,
//!   after a warm-up run each, [`REPEATS`] repeats, median of
//!   the per-repeat ratios (gain = t_before / t_after - 1, NFReducer's
//!   definition); this VM is noisy, so only ratios are meaningful;
//! - the wall time of each reduction per phase (compile, probe, passes,
//!   .so build, differential check).
//!
//! Scenarios: IDS with L3-only rules; IDS and firewall with TCP-only rules at
//! 0/25/50% UDP; monitor+IDS and firewall+firewall (two different rule sets:
//! an address ACL then a port filter) spliced vs consolidated vs reduced.
//!
//! `cargo run --release -p nfc-reducer --example reducer_bench [-- PACKETS] [--skip PASS]...`
//! needs clang-19, llvm-strip-19 and valgrind on PATH.

#[path = "../tests/support/builtin.rs"]
mod builtin;

use nfc_reducer::packets::{generate_mix, pools_from_config, Mix};
use nfc_reducer::{reduce, ReduceInput, ReduceOptions, ReduceTimings};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

type Cfg = Vec<(String, String)>;

/// Timed runs per variant (the median ratio is reported).
const REPEATS: usize = 7;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn kv(pairs: &[(&str, &str)]) -> Cfg {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// One measured variant: a chain of (shared object, nf_init config).
struct Variant {
    label: &'static str,
    chain: Vec<(PathBuf, Cfg)>,
    timings: Option<ReduceTimings>,
}

struct Bench {
    dir: PathBuf,
    harness: PathBuf,
    /// An NF that forwards everything: the harness's own cost per packet.
    null_so: PathBuf,
    packets: usize,
    rows: Vec<serde_json::Value>,
    table: Vec<String>,
    copies: usize,
    /// Passes skipped in every reduction (`--skip PASS`, to measure a pass's effect).
    skip_all: Vec<String>,
}

fn mix(tcp: u64, udp: u64, icmp: u64, other: u64) -> Mix {
    Mix {
        tcp,
        udp,
        icmp,
        other,
        malformed: false,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn pct(before: f64, after: f64) -> f64 {
    ((before - after) / before * 1000.0).round() / 10.0
}

impl Bench {
    fn write_packets(&self, name: &str, cfgs: &[&[(String, String)]], mix: Mix) -> PathBuf {
        let pools = pools_from_config(cfgs);
        let pkts = generate_mix(&pools, self.packets, 42, mix);
        let mut bytes = vec![];
        for p in &pkts {
            bytes.extend((p.frame.len() as u32).to_le_bytes());
            bytes.extend(&p.frame);
        }
        let path = self.dir.join(format!("{name}.pkts"));
        std::fs::write(&path, bytes).expect("write packets");
        path
    }

    /// Harness arguments for a chain: a private, debug-stripped copy of each
    /// object (two instances of one NF must not share globals; valgrind 3.19
    /// cannot read LLVM 19's DWARF 5) followed by its key=value config.
    fn chain_args(&mut self, chain: &[(PathBuf, Cfg)]) -> Vec<String> {
        let mut args = vec![];
        for (k, (so, cfg)) in chain.iter().enumerate() {
            if k > 0 {
                args.push("--".to_string());
            }
            self.copies += 1;
            let copy = self.dir.join(format!("inst{}_{k}.so", self.copies));
            std::fs::copy(so, &copy).expect("copy so");
            let st = Command::new("llvm-strip-19")
                .arg("--strip-debug")
                .arg(&copy)
                .status()
                .expect("llvm-strip-19");
            assert!(st.success());
            args.push(copy.display().to_string());
            args.extend(cfg.iter().map(|(a, b)| format!("{a}={b}")));
        }
        args
    }

    /// Instructions per packet of a chain, from callgrind.
    fn ipp(&self, packets: &Path, args: &[String]) -> f64 {
        let out = self.dir.join(format!("cg.{}", std::process::id()));
        let res = Command::new("valgrind")
            .args(["--tool=callgrind", "--toggle-collect=nfc_bench_loop"])
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg(&self.harness)
            .arg(packets)
            .arg("1")
            .args(args)
            .output()
            .expect("run valgrind");
        assert!(
            res.status.success(),
            "harness failed: {}",
            String::from_utf8_lossy(&res.stderr)
        );
        let text = std::fs::read_to_string(&out).expect("callgrind output");
        let total: u64 = text
            .lines()
            .find_map(|l| {
                l.strip_prefix("totals:")
                    .or_else(|| l.strip_prefix("summary:"))
            })
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .expect("callgrind totals");
        total as f64 / self.packets as f64
    }

    /// Native wall time (ns) of the harness loop over `rounds` passes.
    fn time_ns(&self, packets: &Path, rounds: usize, args: &[String]) -> f64 {
        let res = Command::new(&self.harness)
            .arg(packets)
            .arg(rounds.to_string())
            .args(args)
            .output()
            .expect("run harness");
        assert!(res.status.success(), "harness failed");
        String::from_utf8_lossy(&res.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("elapsed_ns="))
            .and_then(|v| v.trim().parse().ok())
            .expect("elapsed_ns")
    }

    /// Measure every variant against the first one.
    fn scenario(&mut self, case: &str, packets: &Path, variants: Vec<Variant>) {
        let args: Vec<Vec<String>> = variants.iter().map(|v| self.chain_args(&v.chain)).collect();
        let ipps: Vec<f64> = args.iter().map(|a| self.ipp(packets, a)).collect();
        let null = self.chain_args(&[(self.null_so.clone(), vec![])]);
        let overhead = self.ipp(packets, &null);
        // ~1.5M packet visits per timed run (0.1-1 s); one warm-up run each.
        let rounds = (1_500_000 / self.packets).max(1);
        for a in &args {
            self.time_ns(packets, rounds / 4 + 1, a);
        }
        let mut ratios = vec![vec![]; variants.len()];
        for rep in 0..REPEATS {
            // Rotate the order each repeat so no variant always runs first.
            let mut ns = vec![0.0; args.len()];
            for i in 0..args.len() {
                let k = (i + rep) % args.len();
                ns[k] = self.time_ns(packets, rounds, &args[k]);
            }
            for (k, t) in ns.iter().enumerate() {
                ratios[k].push(ns[0] / t);
            }
        }
        let mut out = vec![];
        for (k, v) in variants.iter().enumerate() {
            let gain = (median(ratios[k].clone()) - 1.0) * 100.0;
            let instr = pct(ipps[0], ipps[k]);
            let nf_only = pct(ipps[0] - overhead, ipps[k] - overhead);
            let t = v.timings.map(|t| {
                format!(
                    "{} ms (compile {}, probe {}, passes {}, .so {}, verify {})",
                    t.total_ms, t.compile_ms, t.probe_ms, t.passes_ms, t.codegen_ms, t.verify_ms
                )
            });
            self.table.push(format!(
                "{:<30} {:<13} {:>9.1} {:>7.1}% {:>7.1}% {:>+9.1}%  {}",
                if k == 0 { case } else { "" },
                v.label,
                ipps[k],
                instr,
                nf_only,
                (gain * 10.0).round() / 10.0,
                t.unwrap_or_default()
            ));
            out.push(json!({
                "variant": v.label,
                "ipp": (ipps[k] * 10.0).round() / 10.0,
                "instr_reduction_pct": instr,
                "nf_only_instr_reduction_pct": nf_only,
                "throughput_gain_pct": (gain * 10.0).round() / 10.0,
                "reduce_ms": v.timings,
            }));
        }
        self.rows.push(json!({"case": case, "baseline": variants[0].label, "harness_overhead_ipp": (overhead * 10.0).round() / 10.0, "variants": out}));
    }

    /// Reduce a chain; returns (reduced .so, originals, timings).
    fn reduce(
        &self,
        name: &str,
        nfs: &[ReduceInput],
        skip: &[&str],
    ) -> (PathBuf, Vec<PathBuf>, ReduceTimings) {
        let opts = ReduceOptions {
            out_dir: self.dir.join(name),
            verify_packets: 3000,
            verify_each_pass: false,
            skip: skip
                .iter()
                .map(|s| s.to_string())
                .chain(self.skip_all.iter().cloned())
                .collect(),
            ..Default::default()
        };
        let (art, _, _) = reduce(nfs, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        (
            art.so_path.expect("reduced so"),
            art.original_sos,
            art.timings,
        )
    }

    /// Original vs reduced, one NF.
    fn single(&mut self, case: &str, input: ReduceInput, packets: &Path) {
        let (red, orig, t) = self.reduce(case, std::slice::from_ref(&input), &[]);
        let variants = vec![
            Variant {
                label: "original",
                chain: vec![(orig[0].clone(), input.config.clone())],
                timings: None,
            },
            Variant {
                label: "reduced",
                chain: vec![(red, vec![])],
                timings: Some(t),
            },
        ];
        self.scenario(case, packets, variants);
    }

    /// Spliced (unreduced NFs in sequence) vs consolidated vs reduced.
    fn chain(&mut self, case: &str, inputs: &[ReduceInput], packets: &Path) {
        // "Consolidated": one module with duplicated logic removed (CSE), but no
        // config propagation, overwritten- or unused-logic elimination.
        let consolidate_only = [
            "config-propagation",
            "overwritten-logic",
            "specialise-paths",
            "unused-logic",
        ];
        let (con, orig, tc) = self.reduce(&format!("{case}-con"), inputs, &consolidate_only);
        let (red, _, tr) = self.reduce(&format!("{case}-red"), inputs, &[]);
        let spliced = orig
            .iter()
            .zip(inputs)
            .map(|(so, i)| (so.clone(), i.config.clone()))
            .collect();
        let variants = vec![
            Variant {
                label: "spliced",
                chain: spliced,
                timings: None,
            },
            Variant {
                label: "consolidated",
                chain: vec![(con, vec![])],
                timings: Some(tc),
            },
            Variant {
                label: "reduced",
                chain: vec![(red, vec![])],
                timings: Some(tr),
            },
        ];
        self.scenario(case, packets, variants);
    }
}

fn own(id: &str, file: &str, config: Cfg) -> ReduceInput {
    ReduceInput {
        id: id.into(),
        sources: vec![data(file)],
        config,
        ..Default::default()
    }
}

fn main() {
    let mut packets: usize = 3000;
    let mut skip_all = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--skip" {
            skip_all.extend(args.next());
        } else if let Ok(n) = a.parse() {
            packets = n;
        }
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let harness = dir.path().join("harness");
    let inc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../nfs/include");
    let st = Command::new("clang-19")
        .args(["-O2", "-I"])
        .arg(&inc)
        .arg("-o")
        .arg(&harness)
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/harness.c"))
        .arg("-ldl")
        .status()
        .expect("clang-19");
    assert!(st.success(), "harness build failed");
    let null_c = dir.path().join("null.c");
    std::fs::write(
        &null_c,
        "#include \"nf.h\"\nstatic const struct nf_info i = {NF_ABI_VERSION, \"null\", 1};\n\
         const struct nf_info *nf_describe(void) { return &i; }\nsize_t nf_state_size(void) { return 0; }\n\
         int nf_init(const struct nf_config *c, char *e, size_t l) { (void)c; (void)e; (void)l; return 0; }\n\
         int32_t nf_process(struct nf_ctx *c, struct nf_packet *p) { (void)c; (void)p; return 0; }\n",
    )
    .expect("write null NF");
    let null_so = dir.path().join("null.so");
    let st = Command::new("clang-19")
        .args(["-O2", "-shared", "-fPIC", "-I"])
        .arg(&inc)
        .arg("-o")
        .arg(&null_so)
        .arg(&null_c)
        .status()
        .expect("clang-19");
    assert!(st.success(), "null NF build failed");
    let mut b = Bench {
        dir: dir.path().to_path_buf(),
        harness,
        null_so,
        packets,
        rows: vec![],
        table: vec![],
        copies: 0,
        skip_all,
    };
    let clean = mix(5, 3, 1, 1);
    let cfgs = |p: &str| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/configs")
            .join(p)
    };
    let bi = builtin::builtin_input;

    // ---- built-in NFs (nfs/) ----
    let ids_l3 = bi("ids", "ids", Path::new("l3_only.yaml"));
    let pk = b.write_packets("b_ids_l3", &[&ids_l3.config], clean);
    b.single("builtin/ids_l3_only", ids_l3, &pk);
    let ids_tcp = bi("ids", "ids", &cfgs("ids_tcp_only.yaml"));
    let fw_tcp = bi("fw", "firewall", &cfgs("fw_tcp_only.yaml"));
    for udp in [0u64, 25, 50] {
        let m = mix(100 - udp, udp, 0, 0);
        let pk = b.write_packets(
            &format!("b_tcp{udp}"),
            &[&ids_tcp.config, &fw_tcp.config],
            m,
        );
        b.single(
            &format!("builtin/ids_tcp_only_udp{udp}"),
            ids_tcp.clone(),
            &pk,
        );
        b.single(
            &format!("builtin/firewall_tcp_only_udp{udp}"),
            fw_tcp.clone(),
            &pk,
        );
    }
    let mon = bi("monitor", "flow_monitor", Path::new("default.yaml"));
    let ids = bi("ids", "ids", Path::new("default.yaml"));
    let pk = b.write_packets("b_mon_ids", &[&mon.config, &ids.config], clean);
    b.chain("builtin/monitor+ids", &[mon, ids], &pk);
    let acl = bi("acl", "firewall", Path::new("default.yaml"));
    let ports = bi("ports", "firewall", &cfgs("fw_port_filter.yaml"));
    let pk = b.write_packets("b_fw_fw", &[&acl.config, &ports.config], clean);
    b.chain("builtin/firewall+firewall", &[acl, ports], &pk);

    // ---- the reducer's own test NFs (tests/data/*.c) ----
    let ids_l3 = kv(&[
        ("rules.len", "4"),
        ("rules.0.src", "10.0.0.0/8"),
        ("rules.0.dst", "192.168.1.0/24"),
        ("rules.0.action", "drop"),
        ("rules.1.src", "172.16.0.0/12"),
        ("rules.1.action", "alert"),
        ("rules.2.dst", "8.8.8.8"),
        ("rules.2.action", "pass"),
        ("rules.3.src", "192.168.0.0/16"),
        ("rules.3.dst", "10.1.0.0/16"),
        ("rules.3.action", "drop"),
        ("default", "pass"),
    ]);
    let pk = b.write_packets("o_ids_l3", &[&ids_l3], clean);
    b.single("own/ids_l3_only", own("ids", "ids.c", ids_l3), &pk);
    let ids_tcp = kv(&[
        ("rules.len", "4"),
        ("rules.0.src", "10.0.0.0/8"),
        ("rules.0.proto", "tcp"),
        ("rules.0.dport", "22"),
        ("rules.0.action", "drop"),
        ("rules.1.proto", "tcp"),
        ("rules.1.dport", "80-90"),
        ("rules.1.action", "alert"),
        ("rules.2.dst", "192.168.0.0/16"),
        ("rules.2.proto", "tcp"),
        ("rules.2.sport", "1024-65535"),
        ("rules.2.action", "pass"),
        ("rules.3.proto", "tcp"),
        ("rules.3.dport", "443"),
        ("rules.3.action", "pass"),
        ("default", "pass"),
    ]);
    let fw_tcp = kv(&[
        ("rules.len", "4"),
        ("rules.0.src", "10.0.0.0/8"),
        ("rules.0.proto", "tcp"),
        ("rules.0.dport", "23"),
        ("rules.0.action", "deny"),
        ("rules.1.proto", "tcp"),
        ("rules.1.dport", "80"),
        ("rules.1.action", "allow"),
        ("rules.2.proto", "tcp"),
        ("rules.2.dport", "443"),
        ("rules.2.action", "allow"),
        ("rules.3.dst", "192.168.0.0/16"),
        ("rules.3.proto", "tcp"),
        ("rules.3.action", "allow"),
        ("default", "deny"),
    ]);
    for udp in [0u64, 25, 50] {
        let m = mix(100 - udp, udp, 0, 0);
        let pk = b.write_packets(&format!("o_tcp{udp}"), &[&ids_tcp, &fw_tcp], m);
        b.single(
            &format!("own/ids_tcp_only_udp{udp}"),
            own("ids", "ids.c", ids_tcp.clone()),
            &pk,
        );
        b.single(
            &format!("own/firewall_tcp_only_udp{udp}"),
            own("fw", "firewall.c", fw_tcp.clone()),
            &pk,
        );
    }
    let mon_cfg = kv(&[("log_every", "0")]);
    let fw1 = kv(&[
        ("rules.len", "2"),
        ("rules.0.src", "10.0.0.0/8"),
        ("rules.0.action", "deny"),
        ("rules.1.dst", "192.168.0.0/16"),
        ("rules.1.proto", "tcp"),
        ("rules.1.dport", "22"),
        ("rules.1.action", "deny"),
        ("default", "allow"),
        ("mark_dscp", "46"),
    ]);
    let m = mix(75, 25, 0, 0);
    let pk = b.write_packets("o_mon_ids", &[&mon_cfg, &ids_tcp], m);
    b.chain(
        "own/monitor+ids_udp25",
        &[
            own("monitor", "monitor.c", mon_cfg.clone()),
            own("ids", "ids.c", ids_tcp.clone()),
        ],
        &pk,
    );
    let pk = b.write_packets("o_fw_fw", &[&fw1, &fw_tcp], m);
    b.chain(
        "own/firewall+firewall_udp25",
        &[
            own("fw1", "firewall.c", fw1),
            own("fw2", "firewall.c", fw_tcp),
        ],
        &pk,
    );

    println!(
        "{:<30} {:<13} {:>9} {:>8} {:>8} {:>10}  reduction wall time",
        "case", "variant", "instr/pkt", "-instr", "-NF only", "throughput"
    );
    for line in &b.table {
        println!("{line}");
    }
    println!(
        "{}",
        serde_json::to_string(
            &json!({"packets": packets, "throughput_repeats": REPEATS, "results": b.rows})
        )
        .expect("json")
    );
}
