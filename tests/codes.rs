//! Every diagnostic code the sources can emit is in the registry
//! (`src/codes.rs`), with a title and an explanation, and
//! docs/diagnostics.md is the registry's current text. The walk reads every
//! `.rs` file under `src/`, `crates/*/src` and `nfs/` for string literals
//! shaped like a code (`"E0401"`, `"P201"`, `"A0103"`, `"R0101"`, `"W0503"`).

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target" && n != "tests") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Code-shaped string literals in `text`: a quote, one of E/P/A/R/W, three
/// or four digits, a quote.
fn code_literals(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut found = vec![];
    for i in 0..b.len() {
        if b[i] != b'"' || i + 1 >= b.len() || !b"EPARW".contains(&b[i + 1]) {
            continue;
        }
        let digits = b[i + 2..].iter().take_while(|c| c.is_ascii_digit()).count();
        if (3..=4).contains(&digits) && b.get(i + 2 + digits) == Some(&b'"') {
            found.push(text[i + 1..i + 2 + digits].to_string());
        }
    }
    found
}

#[test]
fn the_walk_finds_literals() {
    assert_eq!(
        code_literals(r#"error("E0401", x) "E12" "P20100" "X0001" "R0101""#),
        ["E0401", "R0101"]
    );
}

#[test]
fn every_emitted_code_is_registered_and_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("nfs"), &mut files);
    for c in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        rust_files(&c.path().join("src"), &mut files);
    }
    let registry = root.join("src/codes.rs");
    let mut missing = vec![];
    let mut seen = 0;
    for f in files.iter().filter(|f| **f != registry) {
        let text = std::fs::read_to_string(f).unwrap();
        for code in code_literals(&text) {
            seen += 1;
            if nfc::codes::lookup(&code).is_none() {
                missing.push(format!("{code} ({})", f.display()));
            }
        }
    }
    assert!(seen > 100, "the walk found only {seen} code literals");
    assert!(
        missing.is_empty(),
        "codes missing from src/codes.rs: {missing:?}"
    );
    for c in nfc::codes::CODES {
        assert!(!c.title.is_empty() && c.explanation.len() > 20, "{c:?}");
    }
    let mut sorted: Vec<_> = nfc::codes::CODES.iter().map(|c| c.code).collect();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        nfc::codes::CODES.len(),
        "a code is registered twice"
    );
}

#[test]
fn docs_list_the_registry() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diagnostics.md");
    let expect = nfc::codes::markdown();
    if std::env::var_os("UPDATE_CODES_DOC").is_some() {
        std::fs::write(&path, &expect).unwrap();
    }
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        doc == expect,
        "docs/diagnostics.md is out of date: run `UPDATE_CODES_DOC=1 cargo test --test codes`"
    );
}
