//! Dump the insight IR (words, classes, proxy counts) of C files as JSON:
//! `cargo run -p nfc-reducer --example insight_dump -- nfs/nat/nat.c ...`
fn main() {
    let opts = nfc_reducer::insight_ir::InsightOptions::default();
    let mut units = vec![];
    for a in std::env::args().skip(1) {
        let p = std::path::PathBuf::from(&a);
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match nfc_reducer::insight_ir::prepare_c(&name, &p, &opts) {
            Ok(u) => units.push(u),
            Err(e) => eprintln!("{a}: {e}"),
        }
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&units).expect("serialisable")
    );
}
