//! Gives this crate's tests, examples and benches an rpath to libtorch (the
//! `LIBTORCH` that `.cargo/config.toml` sets and `cargo xtask setup` fills),
//! so they run without LD_LIBRARY_PATH. Binaries of other packages that link
//! the predictor need the same line in their own build script (link args do
//! not propagate to dependents): see the workspace root's build.rs.

fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    if let Ok(dir) = std::env::var("LIBTORCH") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}/lib");
    }
}
