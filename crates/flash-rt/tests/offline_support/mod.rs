//! Shared helpers for the offline executor's integration tests: compile a C
//! NF against `nfs/include/nf.h` with clang-19 (cached by content hash), build
//! chains, and craft small traces.

#![allow(dead_code)]

use flash_rt::offline::{ExecChain, ExecNf};
use flash_rt::trace::craft::PacketBuilder;
use flash_rt::trace::Packets;
use nfc_core::plan::Sharing;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compile `source` (absolute, or relative to the workspace root) into a
/// shared object and return its path. Objects live under cargo's
/// `CARGO_TARGET_TMPDIR`, named by a hash of the source and `nf.h`, so test
/// binaries running in parallel share them and nothing is left in /tmp.
pub fn build_nf(source: &str) -> PathBuf {
    use sha2::{Digest, Sha256};
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    let mut built = built.lock().unwrap();
    if let Some(p) = built.get(source) {
        return p.clone();
    }
    let src = workspace().join(source);
    let header = workspace().join("nfs/include/nf.h");
    let mut h = Sha256::new();
    h.update(std::fs::read(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display())));
    h.update(std::fs::read(&header).unwrap());
    let name = src.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("offline-nfs");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(format!("{name}-{}.so", &hex::encode(h.finalize())[..16]));
    if !out.is_file() {
        // Unique per call: several test threads may build the same NF at once.
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!("{name}.{}.{seq}.tmp", std::process::id()));
        let status = Command::new("clang-19")
            .args([
                "-O2",
                "-fPIC",
                "-shared",
                "-Wall",
                "-Werror=implicit-function-declaration",
                "-I",
            ])
            .arg(workspace().join("nfs/include"))
            .arg("-o")
            .arg(&tmp)
            .arg(&src)
            .status()
            .expect("clang-19 is installed");
        assert!(status.success(), "clang-19 failed on {}", src.display());
        std::fs::rename(&tmp, &out).unwrap();
    }
    built.insert(source.to_string(), out.clone());
    out
}

/// A test NF from `crates/flash-rt/tests/data/nfs/<name>.c`.
pub fn test_nf(name: &str) -> PathBuf {
    build_nf(&format!("crates/flash-rt/tests/data/nfs/{name}.c"))
}

/// A library NF from `nfs/<name>/<name>.c`, when it exists in the tree.
pub fn library_nf(name: &str) -> Option<PathBuf> {
    let rel = format!("nfs/{name}/{name}.c");
    workspace().join(&rel).is_file().then(|| build_nf(&rel))
}

pub fn nf(
    id: &str,
    so: &Path,
    config: &[(&str, &str)],
    next: &[(u32, usize)],
    sharing: Sharing,
) -> ExecNf {
    ExecNf {
        id: id.into(),
        so_path: so.to_path_buf(),
        config: config
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        next: next.to_vec(),
        sharing,
    }
}

/// A linear chain: NF i feeds NF i+1 on port 0.
pub fn linear(mut nfs: Vec<ExecNf>) -> ExecChain {
    let n = nfs.len();
    for (i, nf) in nfs.iter_mut().enumerate() {
        if i + 1 < n && nf.next.is_empty() {
            nf.next = vec![(0, i + 1)];
        }
    }
    ExecChain {
        nfs,
        entries: vec![0],
    }
}

/// `n` packets: flows `i % flows` alternating TCP and UDP, 64 bytes, 1 µs apart.
pub fn mixed_trace(n: usize, flows: u32) -> Packets {
    let mut p = Packets::new();
    for i in 0..n {
        let f = i as u32 % flows;
        let src = std::net::Ipv4Addr::from(0x0a00_0000 + f);
        let dst = std::net::Ipv4Addr::from(0xc0a8_0001);
        let b = if f.is_multiple_of(2) {
            PacketBuilder::tcp(src, dst, 1000 + (f % 50) as u16, 80)
        } else {
            PacketBuilder::udp(src, dst, 2000, 53)
        };
        p.push(1_000_000_000 + i as u64 * 1000, &b.frame_len(64).build());
    }
    p
}
