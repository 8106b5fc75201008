//! Build script for flash-rt: compiles the XDP redirect program
//! (`bpf/xdp_redirect.c`) with clang-19 into `$OUT_DIR/xdp_redirect.o`, which
//! the monitor embeds with `include_bytes!` and loads with aya. The compiler
//! can be overridden with `FLASH_RT_BPF_CLANG`.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let src = PathBuf::from("bpf/xdp_redirect.c");
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-env-changed=FLASH_RT_BPF_CLANG");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("xdp_redirect.o");
    let clang = std::env::var("FLASH_RT_BPF_CLANG").unwrap_or_else(|_| "clang-19".to_string());
    let status = Command::new(&clang)
        .args([
            "-O2",
            "-g",
            "-target",
            "bpf",
            "-I/usr/include/x86_64-linux-gnu",
            "-c",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!(
            "{clang} failed to compile {} ({s}); is libbpf-dev installed?",
            src.display()
        ),
        Err(e) => panic!(
            "cannot run {clang} to compile {}: {e}; install clang-19 or set FLASH_RT_BPF_CLANG",
            src.display()
        ),
    }
}
