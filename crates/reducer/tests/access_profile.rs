//! The access profiler counts exactly what an NF with known accesses does,
//! per state member and per global, and packing globals keeps the counts
//! while moving them into one line.

use nfc_reducer::access_profile::{profile, ObjectKind, ProfileOptions};
use nfc_reducer::packets::TestPacket;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Per packet: one load and one store of `counter`; frames longer than 100
/// bytes also load `g_add` once and load and store one slot of `table`;
/// `g_len_limit` is loaded once per packet; `g_cold` never on the packet path.
/// (Every global is written by nf_init: a global nothing writes is a
/// constant after `default<O2>`, and rightly never loaded.)
const NF: &str = r#"
#include "nf.h"
static uint64_t g_add = 3;
static uint32_t g_len_limit;
static uint32_t g_cold = 7;
static struct nf_info info = {NF_ABI_VERSION, "acc", 1};
struct acc_state {
    uint64_t counter;
    uint8_t gap[200];
    uint64_t table[16];
};
const struct nf_info *nf_describe(void) { return &info; }
int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t v;
    if (nf_config_u64(cfg, "limit", 100, &v))
        return nf_fail(err, err_len, "expected an integer", "limit");
    g_len_limit = (uint32_t)v;
    if (nf_config_u64(cfg, "add", 3, &g_add))
        return nf_fail(err, err_len, "expected an integer", "add");
    g_cold = g_cold + 1;
    return 0;
}
size_t nf_state_size(void) { return sizeof(struct acc_state); }
int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct acc_state *st = ctx->state;
    __asm__ volatile("" ::: "memory");
    st->counter++;
    __asm__ volatile("" ::: "memory");
    if (pkt->len > g_len_limit) {
        st->table[pkt->len % 16] += g_add;
    }
    return pkt->len % 3 == 0 ? NF_DROP : NF_PORT(0);
}
"#;

fn build_ll(dir: &Path) -> PathBuf {
    let src = dir.join("acc.c");
    std::fs::write(&src, NF).unwrap();
    let ll = dir.join("acc.ll");
    let inc = concat!(env!("CARGO_MANIFEST_DIR"), "/../../nfs/include");
    let out = Command::new("clang-19")
        .args([
            "-std=gnu11",
            "-S",
            "-emit-llvm",
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-g",
            "-I",
            inc,
        ])
        .arg(&src)
        .arg("-o")
        .arg(&ll)
        .output()
        .expect("clang-19");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ll
}

fn packets() -> Vec<TestPacket> {
    // Lengths 60..=160: 60 of 101 are longer than 100; 34 are multiples of 3.
    (60..=160)
        .map(|len| TestPacket {
            frame: vec![0u8; len],
            now_ns: 1000 * len as u64,
        })
        .collect()
}

#[test]
fn counts_per_member_and_global_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let ll = build_ll(dir.path());
    let opts = ProfileOptions {
        work_dir: dir.path().to_path_buf(),
        ..Default::default()
    };
    let cfg = vec![("limit".to_string(), "100".to_string())];
    let pk = packets();
    let n = pk.len() as f64;
    let run = profile(&ll, "acc", &cfg, &pk, &[], &opts).unwrap();
    let p = &run.profile;
    assert_eq!(p.packets, 101);
    assert_eq!(p.forwarded, 101 - 34);
    assert_eq!(run.forwarded.len(), 67);
    assert_eq!(p.state_struct.as_deref(), Some("acc_state"));
    let get = |name: &str| {
        p.objects
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("{name} in {:?}", p.objects))
    };
    let counter = get("counter");
    assert_eq!(counter.kind, ObjectKind::State);
    assert_eq!(
        (counter.loads_per_packet, counter.stores_per_packet),
        (1.0, 1.0)
    );
    assert_eq!(counter.bytes, 8);
    let table = get("table");
    assert_eq!(table.offset, 208);
    assert_eq!(table.bytes, 128);
    assert_eq!(table.loads_per_packet * n, 60.0);
    assert_eq!(table.stores_per_packet * n, 60.0);
    assert_eq!(
        get("gap").loads_per_packet + get("gap").stores_per_packet,
        0.0
    );
    let add = get("g_add");
    assert_eq!(add.kind, ObjectKind::Global);
    assert_eq!(add.loads_per_packet * n, 60.0);
    assert_eq!(add.stores_per_packet, 0.0);
    assert_eq!(get("g_len_limit").loads_per_packet, 1.0);
    // Written in nf_init only: init is not per packet.
    assert_eq!(
        get("g_cold").loads_per_packet + get("g_cold").stores_per_packet,
        0.0
    );
    // Block vectors add up to the totals.
    let per_block: u64 = add.per_block.iter().map(|(_, c)| c).sum();
    assert_eq!(per_block, 60);
    assert!(p.instructions_per_packet > p.compute_per_packet && p.compute_per_packet > 0.0);
    assert!(
        p.lines_per_packet >= 2.0,
        "state line + a global line: {}",
        p.lines_per_packet
    );

    // Packing the two hot globals: same counts, now fields of one struct.
    let packed = profile(
        &ll,
        "acc",
        &cfg,
        &pk,
        &[vec!["g_add".into(), "g_len_limit".into()]],
        &opts,
    )
    .unwrap()
    .profile;
    assert_eq!(packed.packed.len(), 1);
    assert_eq!(
        packed.packed[0].1,
        vec!["g_add".to_string(), "g_len_limit".to_string()]
    );
    let pget = |name: &str| packed.objects.iter().find(|o| o.name == name);
    // The packed globals are gone as globals of their own; the struct is one.
    assert!(pget("g_add").is_none());
    let s = pget(&packed.packed[0].0).expect("the packed struct is profiled");
    assert_eq!(s.loads_per_packet * n, 60.0 + 101.0);
    assert!(packed.lines_per_packet <= p.lines_per_packet);
}

#[test]
fn a_bad_config_is_the_nfs_error() {
    let dir = tempfile::tempdir().unwrap();
    let ll = build_ll(dir.path());
    let opts = ProfileOptions {
        work_dir: dir.path().to_path_buf(),
        ..Default::default()
    };
    let cfg = vec![("limit".to_string(), "many".to_string())];
    let err = profile(&ll, "acc", &cfg, &packets(), &[], &opts).unwrap_err();
    assert!(err.to_string().contains("limit"), "{err}");
}
