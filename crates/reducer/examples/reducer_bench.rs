//! Reducer measurements, printed as JSON (the lead's `cargo xtask bench`
//! collects them): instructions per packet from `valgrind --tool=callgrind`
//! (deterministic on this noisy VM) before and after reduction for
//! - the IDS with L3-only rules,
//! - the IDS and the firewall with TCP-only rules at 0/25/50% UDP,
//! - monitor+IDS and firewall+firewall: spliced (two unreduced NFs called in
//!   sequence) vs consolidated (one module, CSE only) vs reduced;
//!
//! and the wall time of each reduction.
//!
//! `cargo run --release -p nfc-reducer --example reducer_bench [-- PACKETS]`
//! needs clang-19 and valgrind on PATH.

use nfc_reducer::packets::{generate_mix, pools_from_config, Mix};
use nfc_reducer::{reduce, ReduceInput, ReduceOptions};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

struct Bench {
    dir: PathBuf,
    harness: PathBuf,
    packets: usize,
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

    /// Instructions per packet of a chain of (so, config) run by the harness.
    fn ipp(&self, packets: &Path, chain: &[(PathBuf, Vec<(String, String)>)]) -> f64 {
        let out = self.dir.join(format!("cg.{}", std::process::id()));
        let mut cmd = Command::new("valgrind");
        cmd.args(["--tool=callgrind", "--toggle-collect=nfc_bench_loop"])
            .arg(format!("--callgrind-out-file={}", out.display()));
        cmd.arg(&self.harness).arg(packets).arg("1");
        for (k, (so, cfg)) in chain.iter().enumerate() {
            if k > 0 {
                cmd.arg("--");
            }
            // A private copy per instance: two instances of one NF must not share globals.
            let copy = self.dir.join(format!(
                "inst{k}_{}",
                so.file_name().and_then(|n| n.to_str()).unwrap_or("nf.so")
            ));
            std::fs::copy(so, &copy).expect("copy so");
            // valgrind 3.19 cannot read LLVM 19's DWARF 5; symbols are enough.
            let st = Command::new("llvm-strip-19")
                .arg("--strip-debug")
                .arg(&copy)
                .status()
                .expect("llvm-strip-19");
            assert!(st.success());
            cmd.arg(&copy);
            for (a, b) in cfg {
                cmd.arg(format!("{a}={b}"));
            }
        }
        let res = cmd.output().expect("run valgrind");
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

    fn reduce(&self, name: &str, nfs: &[ReduceInput], skip: &[&str]) -> (PathBuf, u128) {
        let opts = ReduceOptions {
            out_dir: self.dir.join(name),
            verify_packets: 3000,
            skip: skip.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let t = Instant::now();
        let (art, _, _) = reduce(nfs, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        (art.so_path.expect("reduced so"), t.elapsed().as_millis())
    }
}

fn input(id: &str, file: &str, config: Vec<(String, String)>) -> ReduceInput {
    ReduceInput {
        id: id.into(),
        sources: vec![data(file)],
        config,
        ..Default::default()
    }
}

fn original_so(b: &Bench, file: &str) -> PathBuf {
    let so = b.dir.join(format!("{file}.orig.so"));
    let inc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../nfs/include");
    let st = Command::new("clang-19")
        .args(["-O2", "-shared", "-fPIC", "-I"])
        .arg(&inc)
        .arg("-o")
        .arg(&so)
        .arg(data(file))
        .status()
        .expect("clang");
    assert!(st.success());
    so
}

fn pct(before: f64, after: f64) -> f64 {
    ((before - after) / before * 1000.0).round() / 10.0
}

fn main() {
    let packets: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5000);
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
    let b = Bench {
        dir: dir.path().to_path_buf(),
        harness,
        packets,
    };
    // The harness's own per-packet cost (frame copy, loop, indirect call),
    // measured with an NF that forwards everything; reported separately so the
    // NF-only ratios can be computed as (x - overhead).
    let null_c = b.dir.join("null.c");
    std::fs::write(
        &null_c,
        "#include \"nf.h\"\nstatic const struct nf_info i = {NF_ABI_VERSION, \"null\", 1};\n\
         const struct nf_info *nf_describe(void) { return &i; }\nsize_t nf_state_size(void) { return 0; }\n\
         int nf_init(const struct nf_config *c, char *e, size_t l) { (void)c; (void)e; (void)l; return 0; }\n\
         int32_t nf_process(struct nf_ctx *c, struct nf_packet *p) { (void)c; (void)p; return 0; }\n",
    )
    .expect("write null NF");
    let null_so = b.dir.join("null.so");
    let st = Command::new("clang-19")
        .args(["-O2", "-shared", "-fPIC", "-I"])
        .arg(&inc)
        .arg("-o")
        .arg(&null_so)
        .arg(&null_c)
        .status()
        .expect("clang");
    assert!(st.success());
    let clean = Mix {
        tcp: 5,
        udp: 3,
        icmp: 1,
        other: 1,
        malformed: false,
    };
    let mut results = vec![];
    let overhead_pkts = b.write_packets("overhead", &[], clean);
    let overhead = b.ipp(&overhead_pkts, &[(null_so, vec![])]);

    // IDS with L3-only rules.
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
    let ids_so = original_so(&b, "ids.c");
    let pk = b.write_packets("ids_l3", &[&ids_l3], clean);
    let before = b.ipp(&pk, &[(ids_so.clone(), ids_l3.clone())]);
    let (red, ms) = b.reduce("ids_l3", &[input("ids", "ids.c", ids_l3.clone())], &[]);
    let after = b.ipp(&pk, &[(red, vec![])]);
    results.push(json!({"case": "ids_l3_only", "ipp_before": before, "ipp_after": after, "reduction_pct": pct(before, after), "reduce_ms": ms}));

    // IDS and firewall with TCP-only rules at 0/25/50% UDP.
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
    let fw_so = original_so(&b, "firewall.c");
    let (ids_red, ids_ms) = b.reduce("ids_tcp", &[input("ids", "ids.c", ids_tcp.clone())], &[]);
    let (fw_red, fw_ms) = b.reduce("fw_tcp", &[input("fw", "firewall.c", fw_tcp.clone())], &[]);
    for udp in [0u64, 25, 50] {
        let mix = Mix {
            tcp: 100 - udp,
            udp,
            icmp: 0,
            other: 0,
            malformed: false,
        };
        let pk = b.write_packets(&format!("tcp_udp{udp}"), &[&ids_tcp, &fw_tcp], mix);
        let before = b.ipp(&pk, &[(ids_so.clone(), ids_tcp.clone())]);
        let after = b.ipp(&pk, &[(ids_red.clone(), vec![])]);
        results.push(json!({"case": format!("ids_tcp_only_udp{udp}"), "ipp_before": before, "ipp_after": after, "reduction_pct": pct(before, after), "reduce_ms": ids_ms}));
        let before = b.ipp(&pk, &[(fw_so.clone(), fw_tcp.clone())]);
        let after = b.ipp(&pk, &[(fw_red.clone(), vec![])]);
        results.push(json!({"case": format!("firewall_tcp_only_udp{udp}"), "ipp_before": before, "ipp_after": after, "reduction_pct": pct(before, after), "reduce_ms": fw_ms}));
    }

    // Chains: spliced vs consolidated vs reduced.
    let mon_so = original_so(&b, "monitor.c");
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
    let consolidate_only = ["config-propagation", "overwritten-logic", "unused-logic"];
    for udp in [0u64, 25, 50] {
        let mix = Mix {
            tcp: 100 - udp,
            udp,
            icmp: 0,
            other: 0,
            malformed: false,
        };
        // monitor + IDS (IDS with TCP-only rules)
        let pk = b.write_packets(&format!("mon_ids{udp}"), &[&mon_cfg, &ids_tcp], mix);
        let spliced = b.ipp(
            &pk,
            &[
                (mon_so.clone(), mon_cfg.clone()),
                (ids_so.clone(), ids_tcp.clone()),
            ],
        );
        let chain = [
            input("monitor", "monitor.c", mon_cfg.clone()),
            input("ids", "ids.c", ids_tcp.clone()),
        ];
        let (con, _) = b.reduce(&format!("mon_ids_con{udp}"), &chain, &consolidate_only);
        let (red, ms) = b.reduce(&format!("mon_ids_red{udp}"), &chain, &[]);
        let consolidated = b.ipp(&pk, &[(con, vec![])]);
        let reduced = b.ipp(&pk, &[(red, vec![])]);
        results.push(json!({"case": format!("monitor+ids_udp{udp}"), "ipp_spliced": spliced, "ipp_consolidated": consolidated, "ipp_reduced": reduced,
            "consolidated_vs_spliced_pct": pct(spliced, consolidated), "reduced_vs_spliced_pct": pct(spliced, reduced), "reduce_ms": ms}));
        // firewall + firewall (second one TCP-only)
        let pk = b.write_packets(&format!("fw_fw{udp}"), &[&fw1, &fw_tcp], mix);
        let spliced = b.ipp(
            &pk,
            &[
                (fw_so.clone(), fw1.clone()),
                (fw_so.clone(), fw_tcp.clone()),
            ],
        );
        let chain = [
            input("fw1", "firewall.c", fw1.clone()),
            input("fw2", "firewall.c", fw_tcp.clone()),
        ];
        let (con, _) = b.reduce(&format!("fw_fw_con{udp}"), &chain, &consolidate_only);
        let (red, ms) = b.reduce(&format!("fw_fw_red{udp}"), &chain, &[]);
        let consolidated = b.ipp(&pk, &[(con, vec![])]);
        let reduced = b.ipp(&pk, &[(red, vec![])]);
        results.push(json!({"case": format!("firewall+firewall_udp{udp}"), "ipp_spliced": spliced, "ipp_consolidated": consolidated, "ipp_reduced": reduced,
            "consolidated_vs_spliced_pct": pct(spliced, consolidated), "reduced_vs_spliced_pct": pct(spliced, reduced),
            "nf_only_consolidated_vs_spliced_pct": pct(spliced - overhead, consolidated - overhead),
            "nf_only_reduced_vs_spliced_pct": pct(spliced - overhead, reduced - overhead), "reduce_ms": ms}));
    }
    println!(
        "{}",
        serde_json::to_string_pretty(
            &json!({"packets": packets, "harness_overhead_ipp": overhead, "results": results})
        )
        .expect("json")
    );
}
