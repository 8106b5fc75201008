//! Gives this crate's tests, examples and benches an rpath to libtorch (the
//! `LIBTORCH` that `.cargo/config.toml` sets and `cargo xtask setup` fills),
//! so they run without LD_LIBRARY_PATH. Link args do not propagate to
//! dependents, so crates/predictor-cli (the `nfc-predict` binary) names this
//! file as its own build script.

fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    if let Ok(dir) = std::env::var("LIBTORCH") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}/lib");
    }
}
