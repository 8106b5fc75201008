//! Reduce a chain of C NFs from the command line and print the removal
//! report (a debugging aid for the reducer itself):
//! `cargo run -p nfc-reducer --example reduce_one -- OUT_DIR [--dump-after PASS] [--skip PASS]... NF.c key=value ... [-- NF2.c key=value ...]`

use nfc_reducer::{reduce, ReduceInput, ReduceOptions};
use std::path::PathBuf;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: reduce_one OUT_DIR [--dump-after PASS] [--skip PASS]... NF.c key=value ... [-- NF2.c ...]");
        std::process::exit(2);
    }
    let out = PathBuf::from(args.remove(0));
    let mut opts = ReduceOptions {
        out_dir: out,
        ..Default::default()
    };
    loop {
        match args.first().map(String::as_str) {
            Some("--dump-after") => {
                args.remove(0);
                opts.dump_after = Some(args.remove(0));
            }
            Some("--skip") => {
                args.remove(0);
                opts.skip.push(args.remove(0));
            }
            _ => break,
        }
    }
    let mut nfs = vec![];
    for group in args.split(|a| a == "--") {
        let Some((src, kvs)) = group.split_first() else {
            continue;
        };
        let config = kvs
            .iter()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        nfs.push(ReduceInput {
            id: format!("nf{}", nfs.len()),
            sources: vec![PathBuf::from(src)],
            config,
            ..Default::default()
        });
    }
    match reduce(&nfs, &opts) {
        Ok((art, chain, diags)) => {
            for d in &diags {
                println!("{d}");
                for n in &d.notes {
                    println!("  note: {n}");
                }
            }
            for r in &chain.removals {
                println!(
                    "[{}] {}: {} {}",
                    r.pass,
                    r.nf,
                    r.what,
                    r.location.clone().unwrap_or_default()
                );
            }
            println!(
                "IR instructions {} -> {}, {} ms",
                chain.modules[0].ir_instructions_before,
                chain.modules[0].ir_instructions_after,
                chain.millis
            );
            println!(
                "reduced: {}",
                art.ll_path
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            );
            if let Some(d) = art.dump {
                std::fs::write(opts.out_dir.join("dump.ll"), d).ok();
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
