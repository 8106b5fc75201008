//! libtorch for `crates/predictor` (tch 0.26 needs exactly libtorch 2.13.0),
//! provisioned from PyPI, the only source of it this project can reach.
//!
//! [`ensure_libtorch`] downloads the `torch==2.13.0` cp311 manylinux_2_28
//! wheel and the two small NVIDIA wheels whose sonames `libtorch_cpu.so`
//! needs (`libcudart.so.13`, `libcupti.so.13`) with `pip download`, checks
//! each wheel's pinned sha256 (pip enforces it too), and extracts only what a CPU
//! build links into [`LIBTORCH_DIR`]: `include/`, `libtorch_cpu.so`,
//! `libc10.so`, `libgomp.so.1` and the two CUDA runtime libraries. The
//! wheel's `libtorch.so` only pulls in `libtorch_cuda.so` (470 MB), so an
//! empty stub with the same name stands in for it (torch-sys links `-ltorch`
//! unconditionally). The wheels are deleted after extraction; a marker file
//! makes a second run a fast no-op. Everything is built in a temporary
//! directory and renamed into place only when complete.
//!
//! The path is fixed because `.cargo/config.toml` names it (`[env] LIBTORCH`)
//! and the rpath of every binary that links the predictor points into it.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The libtorch version tch 0.26's torch-sys accepts.
pub const TORCH_VERSION: &str = "2.13.0";

/// Where libtorch lives; `.cargo/config.toml` sets `LIBTORCH` to this path.
pub const LIBTORCH_DIR: &str = "/var/tmp/nfc-libtorch/2.13.0";

/// Written last into [`LIBTORCH_DIR`]; its content names what was extracted.
const MARKER: &str = ".nfc-libtorch-complete";

/// One wheel: PyPI project, version, the file pip picks for our platform
/// tags with its sha256 and size (pinned: pip enforces the hash with
/// `--require-hashes`), and the members to keep (wheel path → path under the
/// libtorch dir; a trailing `/` keeps a tree).
struct Wheel {
    project: &'static str,
    version: &'static str,
    file: &'static str,
    sha256: &'static str,
    size: u64,
    keep: &'static [(&'static str, &'static str)],
}

const WHEELS: &[Wheel] = &[
    Wheel {
        project: "torch",
        version: TORCH_VERSION,
        file: "torch-2.13.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        sha256: "60fcdcb2f3876e21146cb4524ef06397d727ca9ad5f020818547e25075fe3cb7",
        size: 526_574_961,
        keep: &[
            ("torch/include/", "include/"),
            ("torch/lib/libtorch_cpu.so", "lib/libtorch_cpu.so"),
            ("torch/lib/libc10.so", "lib/libc10.so"),
            ("torch/lib/libgomp.so.1", "lib/libgomp.so.1"),
        ],
    },
    Wheel {
        project: "nvidia-cuda-runtime",
        version: "13.0.96",
        file: "nvidia_cuda_runtime-13.0.96-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
        sha256: "7f82250d7782aa23b6cfe765ecc7db554bd3c2870c43f3d1821f1d18aebf0548",
        size: 2_243_632,
        keep: &[("nvidia/cu13/lib/libcudart.so.13", "lib/libcudart.so.13")],
    },
    Wheel {
        project: "nvidia-cuda-cupti",
        version: "13.0.85",
        file: "nvidia_cuda_cupti-13.0.85-py3-none-manylinux_2_25_x86_64.whl",
        sha256: "4eb01c08e859bf924d222250d2e8f8b8ff6d3db4721288cf35d14252a4d933c8",
        size: 10_715_597,
        keep: &[("nvidia/cu13/lib/libcupti.so.13", "lib/libcupti.so.13")],
    },
];

/// pip's platform tags for the wheels above (torch is manylinux_2_28, the
/// NVIDIA wheels 2_25 and 2_17).
const PLATFORMS: &[&str] = &[
    "manylinux_2_28_x86_64",
    "manylinux_2_25_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
];

fn marker_text() -> String {
    WHEELS
        .iter()
        .map(|w| format!("{}=={}\n", w.project, w.version))
        .collect()
}

/// Make sure libtorch is in [`LIBTORCH_DIR`] (idempotent).
pub fn ensure_libtorch() -> Result<PathBuf> {
    let dir = PathBuf::from(LIBTORCH_DIR);
    if std::fs::read_to_string(dir.join(MARKER)).ok().as_deref() == Some(&marker_text()) {
        eprintln!("xtask setup: libtorch {TORCH_VERSION} present in {LIBTORCH_DIR}");
        return Ok(dir);
    }
    if std::env::consts::ARCH != "x86_64" || std::env::consts::OS != "linux" {
        bail!("libtorch provisioning knows only the x86_64 Linux wheels");
    }
    let parent = dir.parent().context("libtorch dir has a parent")?;
    std::fs::create_dir_all(parent)?;
    let wheels_dir = parent.join("wheels");
    std::fs::create_dir_all(&wheels_dir)?;
    let staging = parent.join(format!("{TORCH_VERSION}.partial"));
    if staging.exists() {
        std::fs::remove_dir_all(&staging)?;
    }
    std::fs::create_dir_all(staging.join("lib"))?;

    for wheel in WHEELS {
        let file = wheel.file;
        let path = wheels_dir.join(file);
        if !path.exists() || sha256_of(&path)? != wheel.sha256 {
            eprintln!(
                "xtask setup: downloading {file} ({:.1} MB) from PyPI",
                wheel.size as f64 / 1e6
            );
            let requirement = wheels_dir.join(format!("{}.txt", wheel.project));
            std::fs::write(
                &requirement,
                format!(
                    "{}=={} --hash=sha256:{}\n",
                    wheel.project, wheel.version, wheel.sha256
                ),
            )?;
            let mut pip = Command::new(python()?);
            pip.args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
                .args(["--require-hashes", "--progress-bar", "on"])
                .args(["--python-version", "3.11", "--implementation", "cp"])
                .args(["--abi", "cp311", "--abi", "none"]);
            for p in PLATFORMS {
                pip.args(["--platform", p]);
            }
            pip.arg("-d").arg(&wheels_dir).arg("-r").arg(&requirement);
            super::run_cmd(&mut pip)?;
            if !path.exists() {
                bail!("pip did not produce {}", path.display());
            }
            let got = sha256_of(&path)?;
            if got != wheel.sha256 {
                bail!("{file}: sha256 {got} is not the pinned {}", wheel.sha256);
            }
        }
        eprintln!("xtask setup: {file}: sha256 verified; extracting");
        extract(&path, wheel.keep, &staging)?;
    }

    let lib = staging.join("lib");
    // torch-sys links -ltorch always; the real libtorch.so only adds CUDA.
    let stub_c = staging.join("stub.c");
    std::fs::write(
        &stub_c,
        "/* stands in for libtorch.so, which only links libtorch_cuda */\n",
    )?;
    super::run_cmd(
        Command::new("cc")
            .args(["-shared", "-fPIC", "-Wl,-soname,libtorch.so", "-o"])
            .arg(lib.join("libtorch.so"))
            .arg(&stub_c),
    )?;
    std::fs::remove_file(&stub_c)?;
    // torch-sys links -lgomp; the wheel ships only the versioned soname.
    std::os::unix::fs::symlink("libgomp.so.1", lib.join("libgomp.so"))?;
    eprintln!("xtask setup: stripping debug symbols from libtorch_cpu.so");
    super::run_cmd(
        Command::new("strip")
            .arg("--strip-unneeded")
            .arg(lib.join("libtorch_cpu.so")),
    )?;
    std::fs::write(staging.join("build-version"), format!("{TORCH_VERSION}\n"))?;
    std::fs::write(staging.join(MARKER), marker_text())?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::rename(&staging, &dir)?;
    std::fs::remove_dir_all(&wheels_dir)?;
    eprintln!("xtask setup: libtorch {TORCH_VERSION} ready in {LIBTORCH_DIR}");
    Ok(dir)
}

fn python() -> Result<PathBuf> {
    ["python3", "python"]
        .iter()
        .find_map(|p| super::which(p))
        .context("python3 with pip is needed to download libtorch from PyPI")
}

fn sha256_of(path: &Path) -> Result<String> {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .context("cannot run sha256sum")?;
    if !out.status.success() {
        bail!("sha256sum {} failed", path.display());
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string())
}

/// Extract the `keep` members of a wheel (a zip file) into `dest`.
fn extract(wheel: &Path, keep: &[(&str, &str)], dest: &Path) -> Result<()> {
    let spec: Vec<String> = keep.iter().map(|(f, t)| format!("{f}\t{t}")).collect();
    let script = r#"
import sys, zipfile, os, shutil
wheel, dest, spec = sys.argv[1], sys.argv[2], sys.argv[3:]
keep = [s.split('\t') for s in spec]
found = set()
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if info.is_dir():
            continue
        for src, dst in keep:
            if info.filename == src or (src.endswith('/') and info.filename.startswith(src)):
                target = os.path.join(dest, dst + info.filename[len(src):] if src.endswith('/') else dst)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(info) as r, open(target, 'wb') as w:
                    shutil.copyfileobj(r, w, 1 << 20)
                found.add(src)
missing = [s for s, _ in keep if s not in found]
if missing:
    sys.exit('missing in wheel: ' + ', '.join(missing))
"#;
    super::run_cmd(
        Command::new(python()?)
            .arg("-c")
            .arg(script)
            .arg(wheel)
            .arg(dest)
            .args(&spec),
    )
}
