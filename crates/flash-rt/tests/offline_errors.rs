//! Error cases of the offline executor: every bad input is a typed
//! `ExecError` naming the NF or file, never a panic.

mod offline_support;

use flash_rt::offline::{run_packets, run_pcap, ExecChain, ExecError, ExecOptions};
use flash_rt::trace::pcap::{self, PcapError};
use nfc_core::plan::Sharing;
use offline_support::*;
use std::path::Path;

fn check(chain: &ExecChain, opts: &ExecOptions, expect: &str) -> ExecError {
    let err = run_packets(chain, &mixed_trace(4, 2), opts).expect_err("run should fail");
    let msg = err.to_string();
    assert!(
        msg.contains(expect),
        "error `{msg}` does not contain `{expect}`"
    );
    err
}

fn one(so: &Path, config: &[(&str, &str)]) -> ExecChain {
    linear(vec![nf("the-nf", so, config, &[], Sharing::Shared)])
}

#[test]
fn nf_init_failure_carries_the_nf_message_and_id() {
    let err = check(
        &one(&test_nf("flowlimit"), &[("fail", "1")]),
        &ExecOptions::default(),
        "asked to fail by config: fail",
    );
    assert!(
        matches!(&err, ExecError::Init { nf, .. } if nf == "the-nf"),
        "{err:?}"
    );
    check(
        &one(&test_nf("marker"), &[]),
        &ExecOptions::default(),
        "NF `the-nf`: nf_init failed: missing required key: value",
    );
    check(
        &one(&test_nf("flowlimit"), &[("key", "dst")]),
        &ExecOptions::default(),
        "key must be 5tuple or src",
    );
    check(
        &one(&test_nf("marker"), &[("value", "a\0b")]),
        &ExecOptions::default(),
        "contains a NUL byte",
    );
}

#[test]
fn missing_object_wrong_abi_and_missing_symbols() {
    let err = check(
        &one(Path::new("/nonexistent/nf.so"), &[]),
        &ExecOptions::default(),
        "not found",
    );
    assert!(matches!(err, ExecError::MissingSo { .. }));
    let err = check(
        &one(&test_nf("wrong_abi"), &[]),
        &ExecOptions::default(),
        "ABI version 99",
    );
    assert!(matches!(
        err,
        ExecError::AbiVersion {
            found: 99,
            expected: 1,
            ..
        }
    ));
    let err = check(
        &one(&test_nf("no_process"), &[]),
        &ExecOptions::default(),
        "does not export `nf_process`",
    );
    assert!(matches!(
        err,
        ExecError::MissingSymbol {
            symbol: "nf_process",
            ..
        }
    ));
    // A file that is not a shared object.
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.so");
    std::fs::write(&junk, b"not an ELF file").unwrap();
    let err = check(&one(&junk, &[]), &ExecOptions::default(), "cannot load");
    assert!(matches!(err, ExecError::Load { .. }));
}

#[test]
fn bad_topologies_are_rejected() {
    let mk = test_nf("marker");
    let cfg = [("value", "1")];
    let cyc = ExecChain {
        nfs: vec![
            nf("a", &mk, &cfg, &[(0, 1)], Sharing::Stateless),
            nf("b", &mk, &cfg, &[(0, 0)], Sharing::Stateless),
        ],
        entries: vec![0],
    };
    check(&cyc, &ExecOptions::default(), "cycle through a, b");
    let out_of_range = ExecChain {
        nfs: vec![nf("a", &mk, &cfg, &[(0, 5)], Sharing::Stateless)],
        entries: vec![0],
    };
    check(&out_of_range, &ExecOptions::default(), "links to index 5");
    let bad_port = ExecChain {
        nfs: vec![
            nf("a", &mk, &cfg, &[(3, 1)], Sharing::Stateless),
            nf("b", &mk, &cfg, &[], Sharing::Stateless),
        ],
        entries: vec![0],
    };
    check(
        &bad_port,
        &ExecOptions::default(),
        "links port 3, but `marker` declares only 1 port",
    );
    check(
        &ExecChain {
            nfs: vec![],
            entries: vec![],
        },
        &ExecOptions::default(),
        "no NFs",
    );
    let no_entry = ExecChain {
        nfs: vec![nf("a", &mk, &cfg, &[], Sharing::Stateless)],
        entries: vec![],
    };
    check(&no_entry, &ExecOptions::default(), "no entry");
}

#[test]
fn bad_options_are_rejected() {
    let chain = one(&test_nf("marker"), &[("value", "1")]);
    check(
        &chain,
        &ExecOptions {
            workers: 0,
            ..ExecOptions::default()
        },
        "workers must be",
    );
    check(
        &chain,
        &ExecOptions {
            workers: 2,
            reta: Some(vec![0, 1, 2]),
            ..ExecOptions::default()
        },
        "queue 2",
    );
    check(
        &chain,
        &ExecOptions {
            workers: 2,
            rss_key: Some(vec![1; 8]),
            ..ExecOptions::default()
        },
        "too short",
    );
}

#[test]
fn malformed_pcaps_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let chain = one(&test_nf("marker"), &[("value", "1")]);
    let good = dir.path().join("good.pcap");
    pcap::write_pcap(&good, &mixed_trace(3, 3)).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    type Case = (&'static str, Vec<u8>, fn(&PcapError) -> bool);
    let cases: Vec<Case> = vec![
        ("short", bytes[..12].to_vec(), |e| {
            matches!(e, PcapError::TruncatedGlobalHeader { .. })
        }),
        (
            "magic",
            [b"\x0a\x0d\x0d\x0a".as_slice(), &bytes[4..]].concat(),
            |e| matches!(e, PcapError::BadMagic { .. }),
        ),
        ("record", bytes[..bytes.len() - 10].to_vec(), |e| {
            matches!(e, PcapError::TruncatedRecord { index: 2, .. })
        }),
        ("header", bytes[..24 + 16 + 64 + 5].to_vec(), |e| {
            matches!(e, PcapError::TruncatedRecordHeader { index: 1, .. })
        }),
    ];
    for (name, data, is) in cases {
        let path = dir.path().join(format!("{name}.pcap"));
        std::fs::write(&path, data).unwrap();
        match run_pcap(&chain, &path, None, &ExecOptions::default()) {
            Err(ExecError::Pcap { path: p, source }) => {
                assert_eq!(p, path);
                assert!(is(&source), "{name}: unexpected {source:?}");
            }
            other => panic!("{name}: expected a pcap error, got {other:?}"),
        }
    }
    let missing = run_pcap(
        &chain,
        &dir.path().join("nope.pcap"),
        None,
        &ExecOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(
        missing,
        ExecError::Pcap {
            source: PcapError::Io(_),
            ..
        }
    ));
    let unwritable = run_pcap(
        &chain,
        &good,
        Some(&dir.path().join("no/such/dir/out.pcap")),
        &ExecOptions::default(),
    );
    assert!(
        matches!(unwritable, Err(ExecError::Output { .. })),
        "{unwritable:?}"
    );
}
