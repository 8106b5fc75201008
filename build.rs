//! The `nfc` binary, tests and benches link libtorch through nfc-predictor;
//! give them an rpath to it (`LIBTORCH` from `.cargo/config.toml`, filled by
//! `cargo xtask setup`) so they run without LD_LIBRARY_PATH. Link args do not
//! propagate from a dependency's build script, hence this file.

fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    if let Ok(dir) = std::env::var("LIBTORCH") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}/lib");
    }
}
