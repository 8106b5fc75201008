//! User input never panics the analyzer: every corpus source truncated at
//! many points, unbalanced macros, binary junk and empty files all analyse
//! to some facts (possibly with diagnostics and low confidence).

use nfc_analyzer::static_analysis::{analyze_static, SourceText};
use std::path::Path;

fn check(name: &str, text: &str, display: &str) {
    let (facts, _diags) = analyze_static(
        name,
        &[SourceText {
            included: false,
            display: display.into(),
            text: text.into(),
        }],
        None,
    );
    assert_eq!(facts.nf, name);
    assert!((0.0..=1.0).contains(&facts.confidence));
}

#[test]
fn truncated_sources_do_not_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut n = 0;
    for d in std::fs::read_dir(&root).unwrap().flatten() {
        for f in std::fs::read_dir(d.path()).unwrap().flatten() {
            let p = f.path();
            let Some(ext) = p.extension().and_then(|e| e.to_str()) else {
                continue;
            };
            if !matches!(ext, "c" | "cc" | "h" | "hh") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            for k in 1..=12 {
                let mut cut = text.len() * k / 13;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                check(
                    "cut",
                    &text[..cut],
                    p.file_name().unwrap().to_str().unwrap(),
                );
                n += 1;
            }
        }
    }
    assert!(n > 100);
}

#[test]
fn junk_empty() {
    check("empty", "", "e.c");
}

#[test]
fn junk_macros_and_binary_do_not_panic() {
    check("macros", "#define F(a, b) struct { a x; b\nVLIB_NODE_FN (x (y) { CLIB_PACKED(struct { int a; }\nF(int,", "m.c");
    check(
        "binary",
        &String::from_utf8_lossy(&(0u8..=255).cycle().take(4096).collect::<Vec<u8>>()),
        "b.c",
    );
}

#[test]
fn junk_recursive_macro_and_deep_nesting() {
    check("recursive_macro", "#define A(x) A(x) + 1\nint nf_process(struct nf_ctx *ctx, struct nf_packet *pkt) { return A(1); }\n", "r.c");
    check(
        "deep",
        &format!(
            "int f(unsigned char *p) {{ return {}0{}; }}",
            "(".repeat(500),
            ")".repeat(500)
        ),
        "d.c",
    );
}

#[test]
fn junk_cpp() {
    check("cpp", "class A : public Element { Packet *simple_action(Packet *p) { return _t[IPFlowID(p)]++, p; } HashMap<IPFlowID, int> _t; };", "a.cc");
}
