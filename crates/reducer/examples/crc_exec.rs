//! Run the behavioural CRC test on every function of C files and print
//! each outcome: `cargo run -p nfc-reducer --example crc_exec -- a.c [-I dir]...`
fn main() {
    let mut opts = nfc_reducer::insight_ir::InsightOptions {
        proxy: false,
        execute: true,
        ..Default::default()
    };
    let mut files = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "-I" {
            opts.include_dirs
                .extend(args.next().map(std::path::PathBuf::from));
        } else {
            files.push(std::path::PathBuf::from(a));
        }
    }
    for p in files {
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let t = std::time::Instant::now();
        match nfc_reducer::insight_ir::prepare_c(&name, &p, &opts) {
            Ok(u) => {
                let n = u.functions.len();
                for f in u.functions {
                    println!("{name}::{} {:?}", f.name, f.behaviour);
                }
                eprintln!("{name}: {n} functions in {:?}", t.elapsed());
            }
            Err(e) => eprintln!("{}: {e}", p.display()),
        }
    }
}
