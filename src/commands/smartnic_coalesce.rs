//! `nfc smartnic eval-coalescing`: Clara §4.4 measured on this host. For
//! each NF: profile it instrumented on a synthetic trace, cluster its
//! variables by access vector ([`nfc_smartnic::coalesce`]), generate the
//! packed variant (each cluster's globals moved into one 64-byte-aligned
//! struct, in IR), and compare original vs packed: distinct cache lines of
//! state and globals touched per packet (the instrumented run) and
//! cachegrind's D1 reads/misses per packet (the uninstrumented `.so`s built
//! the same way, run by a small C host under valgrind; per packet =
//! difference between a run of W+M packets and one of W, divided by M, so
//! loading and warm-up cancel).

use super::{out, Format};
use anyhow::Context;
use nfc_reducer::access_profile::{self, AccessProfile, ObjectKind, ProfileOptions};
use nfc_reducer::packets::TestPacket;
use serde::Serialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

#[derive(Debug, clap::Args)]
pub struct CoalesceArgs {
    /// Built-in NFs to measure (default: every built-in NF whose packet path accesses at least two globals).
    #[arg(long = "nf")]
    pub nfs: Vec<String>,
    /// Measured packets (the cachegrind difference is over these).
    #[arg(long, default_value_t = 20_000)]
    pub packets: usize,
    /// Warm-up packets before the measured ones.
    #[arg(long, default_value_t = 5_000)]
    pub warmup: usize,
    /// Skip valgrind (instrumented line counts only).
    #[arg(long)]
    pub no_cachegrind: bool,
    /// Scratch directory (default: a temporary one).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
}

/// The C host cachegrind runs: dlopen the NF, nf_init, run packets.
const HOST_C: &str = r#"
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct nf_packet { uint8_t *data; uint32_t len, cap, in_port, _r; };
struct nf_ctx { void *state; uint64_t now_ns; uint32_t worker, n_workers; };
struct nf_kv { const char *key, *value; };
struct nf_config { const struct nf_kv *items; uint32_t n_items; };
int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: host NF.so CONFIG PACKETS N\n"); return 2; }
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    int (*init)(const struct nf_config *, char *, size_t) = dlsym(h, "nf_init");
    size_t (*size)(void) = dlsym(h, "nf_state_size");
    void (*sinit)(void *) = dlsym(h, "nf_state_init");
    int32_t (*proc)(struct nf_ctx *, struct nf_packet *) = dlsym(h, "nf_process");
    if (!init || !size || !proc) { fprintf(stderr, "missing nf.h entry points\n"); return 1; }
    static char keys[256][128], vals[256][256]; static struct nf_kv kv[256]; uint32_t n = 0;
    FILE *c = fopen(argv[2], "r"); char line[512];
    while (c && n < 256 && fgets(line, sizeof line, c)) {
        char *eq = strchr(line, '='); if (!eq) continue; *eq = 0;
        line[strcspn(line, "\n")] = 0; eq[1 + strcspn(eq + 1, "\n")] = 0;
        snprintf(keys[n], 128, "%s", line); snprintf(vals[n], 256, "%s", eq + 1);
        kv[n].key = keys[n]; kv[n].value = vals[n]; n++;
    }
    if (c) fclose(c);
    struct nf_config cfg = {kv, n}; char err[256] = {0};
    if (init(&cfg, err, sizeof err)) { fprintf(stderr, "nf_init: %s\n", err); return 1; }
    size_t sz = size(); void *st = aligned_alloc(64, (sz + 63) / 64 * 64 + 64); memset(st, 0, sz);
    if (sinit) sinit(st);
    FILE *p = fopen(argv[3], "rb"); if (!p) { perror("packets"); return 1; }
    long limit = atol(argv[4]); long done = 0; uint8_t buf[2048 + 256]; uint32_t len; uint64_t ts;
    struct nf_ctx ctx = {st, 0, 0, 1};
    while (done < limit && fread(&len, 4, 1, p) == 1 && fread(&ts, 8, 1, p) == 1) {
        if (len > 2048 || fread(buf, 1, len, p) != len) return 1;
        struct nf_packet pkt = {buf, len, len + 256, 0, 0}; ctx.now_ns = ts;
        proc(&ctx, &pkt); done++;
    }
    fclose(p);
    return 0;
}
"#;

#[derive(Debug, Serialize)]
struct Cache {
    d_refs: f64,
    d1_misses: f64,
    ll_misses: f64,
}

#[derive(Debug, Serialize)]
struct NfResult {
    nf: String,
    globals_on_path: usize,
    k: usize,
    criterion: String,
    silhouette: Option<f64>,
    packs: Vec<Vec<String>>,
    packed_globals: Vec<Vec<String>>,
    lines_per_packet_original: f64,
    lines_per_packet_packed: f64,
    /// Every global the packet path touches packed into one struct.
    lines_per_packet_all_hot: f64,
    accesses_per_packet_original: f64,
    accesses_per_packet_packed: f64,
    cachegrind_original: Option<Cache>,
    cachegrind_packed: Option<Cache>,
    cachegrind_all_hot: Option<Cache>,
    note: String,
}

fn accesses(p: &AccessProfile) -> f64 {
    p.objects
        .iter()
        .map(|o| o.loads_per_packet + o.stores_per_packet)
        .sum()
}

fn cachegrind(
    host: &Path,
    so: &Path,
    cfg: &Path,
    pk: &Path,
    n: usize,
    dir: &Path,
) -> anyhow::Result<[f64; 3]> {
    let out = dir.join(format!(
        "cg.{}.{n}.out",
        so.file_stem().unwrap_or_default().to_string_lossy()
    ));
    let res = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=yes",
            "--I1=32768,8,64",
            "--D1=32768,8,64",
            "--LL=1048576,16,64",
        ])
        .arg(format!("--cachegrind-out-file={}", out.display()))
        .arg(host)
        .arg(so)
        .arg(cfg)
        .arg(pk)
        .arg(n.to_string())
        .output()
        .context("running valgrind (apt-get install valgrind)")?;
    anyhow::ensure!(
        res.status.success(),
        "valgrind: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    let text = std::fs::read_to_string(&out)?;
    let events: Vec<&str> = text
        .lines()
        .find_map(|l| l.strip_prefix("events:"))
        .context("no events line")?
        .split_whitespace()
        .collect();
    let summary: Vec<f64> = text
        .lines()
        .find_map(|l| l.strip_prefix("summary:"))
        .context("no summary line")?
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0.0))
        .collect();
    let get = |e: &str| {
        events
            .iter()
            .position(|x| *x == e)
            .and_then(|i| summary.get(i))
            .copied()
            .unwrap_or(0.0)
    };
    Ok([
        get("Dr") + get("Dw"),
        get("D1mr") + get("D1mw"),
        get("DLmr") + get("DLmw"),
    ])
}

fn per_packet(
    host: &Path,
    so: &Path,
    cfg: &Path,
    pk: &Path,
    w: usize,
    m: usize,
    dir: &Path,
) -> anyhow::Result<Cache> {
    let a = cachegrind(host, so, cfg, pk, w, dir)?;
    let b = cachegrind(host, so, cfg, pk, w + m, dir)?;
    let d = |i: usize| (b[i] - a[i]) / m.max(1) as f64;
    Ok(Cache {
        d_refs: d(0),
        d1_misses: d(1),
        ll_misses: d(2),
    })
}

pub fn run(a: CoalesceArgs, fmt: Format) -> anyhow::Result<ExitCode> {
    let tmp = tempfile::tempdir()?;
    let dir = a
        .work_dir
        .clone()
        .unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&dir)?;
    let spec = nfc_core::chain::TrafficSpec {
        flows: 4096,
        packets: (a.warmup + a.packets) as u64,
        zipf: 1.1,
        seed: 7,
        ..Default::default()
    };
    let (trace, _) =
        flash_rt::trace::generate_packets(&spec).map_err(|e| anyhow::anyhow!("{e}"))?;
    let packets: Vec<TestPacket> = trace
        .iter()
        .map(|p| TestPacket {
            frame: p.data.to_vec(),
            now_ns: p.ts_ns,
        })
        .collect();
    let pk_file = dir.join("packets.bin");
    let mut bytes = vec![];
    for p in &packets {
        bytes.extend((p.frame.len() as u32).to_le_bytes());
        bytes.extend(p.now_ns.to_le_bytes());
        bytes.extend(&p.frame);
    }
    std::fs::write(&pk_file, bytes)?;
    let host = dir.join("nf_host");
    if !a.no_cachegrind {
        let src = dir.join("nf_host.c");
        std::fs::write(&src, HOST_C)?;
        let res = Command::new("clang-19")
            .args(["-O2", "-g", "-o"])
            .arg(&host)
            .arg(&src)
            .arg("-ldl")
            .output()?;
        anyhow::ensure!(
            res.status.success(),
            "building the host: {}",
            String::from_utf8_lossy(&res.stderr)
        );
    }
    let explicit = !a.nfs.is_empty();
    let names: Vec<String> = if explicit {
        a.nfs.clone()
    } else {
        nfc_nfs::catalog().into_iter().map(|n| n.name).collect()
    };
    let mut skipped = vec![];
    let opts = ProfileOptions {
        clang: "clang-19".into(),
        work_dir: dir.clone(),
    };
    let mut results = vec![];
    for name in &names {
        let nf = nfc_nfs::builtin(name).with_context(|| format!("unknown built-in NF `{name}`"))?;
        let config = match nf.default_config() {
            Some(p) => nfc_nfs::load_config(&p)
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .flatten(),
            None => vec![],
        };
        let built = nfc_nfs::build(
            name,
            &nf.sources,
            &nfc_nfs::BuildOptions {
                out_dir: dir.join("build"),
                sanitize: false,
                extra_cflags: vec![],
            },
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        let orig = match access_profile::profile(&built.ll, name, &config, &packets, &[], &opts) {
            Ok(p) => p.profile,
            Err(e) if !explicit => {
                skipped.push(json!({"nf": name, "error": e.to_string()}));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let globals_on_path = orig
            .objects
            .iter()
            .filter(|o| {
                o.kind == ObjectKind::Global && o.loads_per_packet + o.stores_per_packet > 0.0
            })
            .count();
        if !explicit && globals_on_path < 2 {
            skipped.push(json!({"nf": name, "globals_on_path": globals_on_path}));
            continue;
        }
        let c = nfc_smartnic::coalesce::coalesce(
            &nfc::emit::agilio_profile::coalesce_variables(&orig),
            0x5eed,
        );
        let is_global = |n: &str| {
            orig.objects
                .iter()
                .any(|o| o.name == n && o.kind == ObjectKind::Global)
        };
        let packs: Vec<Vec<String>> = c
            .packs
            .iter()
            .map(|p| p.layout.iter().map(|(n, _)| n.clone()).collect())
            .collect();
        let global_packs: Vec<Vec<String>> = packs
            .iter()
            .map(|p| {
                p.iter()
                    .filter(|n| is_global(n))
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .filter(|p: &Vec<String>| p.len() >= 2)
            .collect();
        let packed =
            access_profile::profile(&built.ll, name, &config, &packets, &global_packs, &opts)?
                .profile;
        // The blunt alternative: every small global the packet path touches
        // in one struct (as for the clusters, nothing over 64 bytes).
        let hot: Vec<Vec<String>> = vec![orig
            .objects
            .iter()
            .filter(|o| {
                o.kind == ObjectKind::Global
                    && o.bytes <= nfc_smartnic::coalesce::MAX_ACCESS
                    && o.loads_per_packet + o.stores_per_packet > 0.0
            })
            .map(|o| o.name.clone())
            .collect()];
        let all_hot =
            access_profile::profile(&built.ll, name, &config, &packets, &hot, &opts)?.profile;
        let cfg_file = dir.join(format!("{name}.cfg"));
        std::fs::write(
            &cfg_file,
            config
                .iter()
                .map(|(k, v)| format!("{k}={v}\n"))
                .collect::<String>(),
        )?;
        let (cg_o, cg_p, cg_h) = if a.no_cachegrind {
            (None, None, None)
        } else {
            let so_o = dir.join(format!("{name}.orig.so"));
            let so_p = dir.join(format!("{name}.packed.so"));
            let so_h = dir.join(format!("{name}.allhot.so"));
            access_profile::build_so(&built.ll, name, &[], &so_o, Path::new("clang-19"))?;
            access_profile::build_so(&built.ll, name, &global_packs, &so_p, Path::new("clang-19"))?;
            access_profile::build_so(&built.ll, name, &hot, &so_h, Path::new("clang-19"))?;
            (
                Some(per_packet(
                    &host, &so_o, &cfg_file, &pk_file, a.warmup, a.packets, &dir,
                )?),
                Some(per_packet(
                    &host, &so_p, &cfg_file, &pk_file, a.warmup, a.packets, &dir,
                )?),
                Some(per_packet(
                    &host, &so_h, &cfg_file, &pk_file, a.warmup, a.packets, &dir,
                )?),
            )
        };
        results.push(NfResult {
            nf: name.clone(),
            globals_on_path,
            k: c.k,
            criterion: c.criterion.clone(),
            silhouette: c.silhouette,
            packs,
            packed_globals: global_packs.clone(),
            lines_per_packet_original: orig.lines_per_packet,
            lines_per_packet_packed: packed.lines_per_packet,
            lines_per_packet_all_hot: all_hot.lines_per_packet,
            accesses_per_packet_original: accesses(&orig),
            accesses_per_packet_packed: accesses(&packed),
            cachegrind_original: cg_o,
            cachegrind_packed: cg_p,
            cachegrind_all_hot: cg_h,
            note: if global_packs.is_empty() {
                "no cluster of two or more globals: nothing to pack (state members stay in the state struct)".into()
            } else {
                "the clusters' globals are moved into one 64-byte-aligned struct each".into()
            },
        });
    }
    let doc = json!({
        "traffic": format!("synthetic: {} flows, zipf 1.1, seed 7; {} warm-up + {} measured packets", spec.flows, a.warmup, a.packets),
        "cache": "cachegrind I1/D1 32 KiB 8-way 64 B, LL 1 MiB 16-way 64 B",
        "nfs": results,
        "skipped": skipped,
    });
    match fmt {
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(&doc)?))?,
        Format::Human => {
            println!(
                "{:<20} {:>3} {:>3} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  packs",
                "nf",
                "glb",
                "k",
                "lines/o",
                "lines/p",
                "lines/h",
                "D1ref/o",
                "D1ref/p",
                "D1ref/h",
                "D1mis/o",
                "D1mis/p",
                "D1mis/h"
            );
            for r in &results {
                let f = |c: &Option<Cache>, m: fn(&Cache) -> f64| {
                    c.as_ref().map_or("-".into(), |c| format!("{:.3}", m(c)))
                };
                println!(
                    "{:<20} {:>3} {:>3} {:>8.3} {:>8.3} {:>8.3} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  {:?}",
                    r.nf,
                    r.globals_on_path,
                    r.k,
                    r.lines_per_packet_original,
                    r.lines_per_packet_packed,
                    r.lines_per_packet_all_hot,
                    f(&r.cachegrind_original, |c| c.d_refs),
                    f(&r.cachegrind_packed, |c| c.d_refs),
                    f(&r.cachegrind_all_hot, |c| c.d_refs),
                    f(&r.cachegrind_original, |c| c.d1_misses),
                    f(&r.cachegrind_packed, |c| c.d1_misses),
                    f(&r.cachegrind_all_hot, |c| c.d1_misses),
                    r.packed_globals
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
