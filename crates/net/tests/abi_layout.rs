//! The Rust mirror of nf.h (`nfc_net::abi`) against the C header itself:
//! a small C program compiled with clang-19 prints every struct's size and
//! alignment and every field's offset, and each must equal the Rust layout.

use nfc_net::abi::{NfConfig, NfCtx, NfInfo, NfKv, NfPacket, NF_ABI_VERSION, NF_DROP};
use std::collections::BTreeMap;
use std::mem::{align_of, offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = r#"
#include <stdio.h>
#include <stddef.h>
#include "nf.h"
#define S(t) printf("sizeof %s %zu\n", #t, sizeof(struct t)); \
             printf("alignof %s %zu\n", #t, _Alignof(struct t));
#define O(t, f) printf("offsetof %s.%s %zu\n", #t, #f, offsetof(struct t, f));
int main(void) {
    S(nf_packet) O(nf_packet, data) O(nf_packet, len) O(nf_packet, cap)
    O(nf_packet, in_port) O(nf_packet, _reserved)
    S(nf_ctx) O(nf_ctx, state) O(nf_ctx, now_ns) O(nf_ctx, worker) O(nf_ctx, n_workers)
    S(nf_kv) O(nf_kv, key) O(nf_kv, value)
    S(nf_config) O(nf_config, items) O(nf_config, n_items)
    S(nf_info) O(nf_info, abi_version) O(nf_info, name) O(nf_info, n_ports)
    printf("const NF_ABI_VERSION %u\n", NF_ABI_VERSION);
    printf("const NF_DROP %d\n", NF_DROP);
    return 0;
}
"#;

fn clang() -> PathBuf {
    ["/usr/bin/clang-19", "/usr/lib/llvm-19/bin/clang"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .expect("clang-19 is required (cargo xtask setup installs it)")
}

/// `what name` -> value, as the C program prints them.
fn c_layout() -> BTreeMap<String, i64> {
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../nfs/include");
    assert!(include.join("nf.h").is_file(), "{}", include.display());
    let dir = tempfile_dir();
    let src = dir.join("layout.c");
    let exe = dir.join("layout");
    std::fs::write(&src, PROGRAM).unwrap();
    let out = Command::new(clang())
        .arg("-std=c11")
        .arg("-I")
        .arg(&include)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(run.status.success());
    String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let mut w = l.split_whitespace();
            let (what, name, value) = (w.next().unwrap(), w.next().unwrap(), w.next().unwrap());
            (format!("{what} {name}"), value.parse().unwrap())
        })
        .collect()
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nfc-net-abi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn rust_mirror_matches_the_c_header() {
    macro_rules! s {
        ($m:ident, $t:ty, $c:literal) => {
            $m.insert(format!("sizeof {}", $c), size_of::<$t>() as i64);
            $m.insert(format!("alignof {}", $c), align_of::<$t>() as i64);
        };
    }
    macro_rules! o {
        ($m:ident, $t:ty, $c:literal, $f:ident, $cf:literal) => {
            $m.insert(
                format!("offsetof {}.{}", $c, $cf),
                offset_of!($t, $f) as i64,
            );
        };
    }
    let mut rust = BTreeMap::new();
    s!(rust, NfPacket, "nf_packet");
    o!(rust, NfPacket, "nf_packet", data, "data");
    o!(rust, NfPacket, "nf_packet", len, "len");
    o!(rust, NfPacket, "nf_packet", cap, "cap");
    o!(rust, NfPacket, "nf_packet", in_port, "in_port");
    o!(rust, NfPacket, "nf_packet", reserved, "_reserved");
    s!(rust, NfCtx, "nf_ctx");
    o!(rust, NfCtx, "nf_ctx", state, "state");
    o!(rust, NfCtx, "nf_ctx", now_ns, "now_ns");
    o!(rust, NfCtx, "nf_ctx", worker, "worker");
    o!(rust, NfCtx, "nf_ctx", n_workers, "n_workers");
    s!(rust, NfKv, "nf_kv");
    o!(rust, NfKv, "nf_kv", key, "key");
    o!(rust, NfKv, "nf_kv", value, "value");
    s!(rust, NfConfig, "nf_config");
    o!(rust, NfConfig, "nf_config", items, "items");
    o!(rust, NfConfig, "nf_config", n_items, "n_items");
    s!(rust, NfInfo, "nf_info");
    o!(rust, NfInfo, "nf_info", abi_version, "abi_version");
    o!(rust, NfInfo, "nf_info", name, "name");
    o!(rust, NfInfo, "nf_info", n_ports, "n_ports");
    rust.insert("const NF_ABI_VERSION".into(), i64::from(NF_ABI_VERSION));
    rust.insert("const NF_DROP".into(), i64::from(NF_DROP));
    let c = c_layout();
    assert_eq!(c.len(), 28, "the C program printed {c:?}");
    assert_eq!(rust, c, "nfc_net::abi differs from nfs/include/nf.h");
}
