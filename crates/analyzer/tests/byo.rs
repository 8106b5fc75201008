//! Bring-your-own NFs: nfc-C NFs kept outside nfc's tree (as a user's
//! `source:` would be) find `nf.h` through the include directories the
//! driver passes; without it the header is a located warning and a
//! "stateless" answer becomes "unknown". Each NF is a failure class seen on
//! code nobody here wrote: a global bucket that decides the verdict, a key
//! read through an out-parameter accessor, a key from a helper whose body is
//! not visible.

use nfc_analyzer::{analyze, input_from_paths, AnalyzeOptions};
use nfc_core::facts::{Facts, Field, Intensity, Question};
use std::path::{Path, PathBuf};

fn byo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/byo")
        .join(name)
}

fn nfc_include() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../nfs/include")
}

fn facts_of(name: &str, with_nf_h: bool) -> (Facts, Vec<nfc_core::Diagnostic>) {
    let input = input_from_paths(None, &[byo(name)]).unwrap();
    let opts = AnalyzeOptions {
        include_dirs: if with_nf_h {
            vec![nfc_include()]
        } else {
            vec![]
        },
        ..AnalyzeOptions::default()
    };
    analyze(&input, &opts).unwrap()
}

#[test]
fn a_global_bucket_that_decides_the_verdict_is_not_splittable() {
    let (f, d) = facts_of("global_bucket.c", true);
    assert!(d.iter().all(|d| d.code != "A0106"), "{d:?}");
    assert!(!f.stateful, "no per-flow state: {f:?}");
    assert!(!f.splittable(), "{f:?}");
    let objects: Vec<&str> = f.split_hazards.iter().map(|h| h.object.as_str()).collect();
    assert!(objects.contains(&"credit"), "{objects:?}");
    assert!(
        !objects.contains(&"passed"),
        "a statistics counter is no hazard: {objects:?}"
    );
}

#[test]
fn a_key_read_through_an_out_parameter_accessor_is_found() {
    let (f, _) = facts_of("accessor_table.c", true);
    assert!(f.stateful, "{f:?}");
    assert_eq!(f.flow_key, vec![Field::SrcIp]);
    assert_eq!(f.intensity, Intensity::PerPacket);
    assert!(f.splittable());
}

#[test]
fn a_key_from_an_invisible_helper_is_unknown_not_guessed() {
    let (f, _) = facts_of("hidden_accessor.c", true);
    assert!(f.stateful, "{f:?}");
    assert!(f.is_unknown(Question::FlowKey), "{f:?}");
    assert!(f.flow_key.is_empty());
    assert!(!f.splittable());
}

#[test]
fn without_nf_h_the_header_is_a_located_warning_and_no_answer_is_a_guess() {
    let (f, d) = facts_of("accessor_table.c", false);
    let w = d
        .iter()
        .find(|d| d.code == "A0106")
        .expect("a missing-header warning");
    assert!(w.message.contains("nf.h"), "{w:?}");
    assert!(w.span.as_ref().is_some_and(|s| s.line == 3), "{w:?}");
    assert!(w.hint.is_some());
    // nf_parse is invisible: the source address is packet data of a field
    // the analysis cannot name, so the key is unknown, never a guess.
    assert!(f.stateful || f.is_unknown(Question::Stateful), "{f:?}");
    assert!(f.flow_key.is_empty(), "{f:?}");
    assert!(!f.splittable());
}
