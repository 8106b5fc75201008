//! The FastClick target's output is something real tools accept: the
//! `.click` uses only upstream FastClick element classes and parameters plus
//! the generated package's classes, and the flow rules that program RSS are
//! accepted by DPDK's own flow parser (`dpdk-testpmd` on a null device, no
//! hugepages, no NIC: the parser runs fully; the null PMD then answers
//! "Function not implemented", which the test counts as "parsed"). A
//! corrupted rule must be refused by the same parser, so the check can fail.

use nfc_core::facts::Field;
use std::path::Path;
use std::process::Command;

fn nfc() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_nfc"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Feed `rules` to testpmd as `flow validate 0 <rule>` commands; returns, per
/// rule, whether DPDK's parser accepted it.
fn testpmd_parses(rules: &[String]) -> Vec<bool> {
    let testpmd = "dpdk-testpmd";
    if Command::new(testpmd).arg("--version").output().is_err() {
        panic!(
            "cannot run {testpmd}: DPDK's parser is needed for this test; `cargo xtask setup` installs it (Debian package dpdk-dev)"
        );
    }
    // One stream for testpmd's answers (parse errors on stdout, PMD errors on
    // stderr), so each follows its command.
    let cmd = format!(
        "exec {testpmd} --no-huge -m 128 --no-pci --file-prefix nfc-test-{} --vdev net_null0 -l 0-1 \
         --log-level=lib.eal:error -- -i --rxq 4 --txq 4 --total-num-mbufs=2048 2>&1",
        std::process::id()
    );
    let mut child = Command::new("sh")
        .args(["-c", &cmd])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let stdin = child.stdin.as_mut().unwrap();
        for r in rules {
            writeln!(stdin, "flow validate 0 {r}").unwrap();
        }
        writeln!(stdin, "quit").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // testpmd echoes each command after its prompt; the lines up to the next
    // prompt are its answer.
    let answers: Vec<&str> = text.split("testpmd> ").skip(1).collect();
    assert!(
        answers.len() > rules.len(),
        "testpmd did not take the commands:\n{text}"
    );
    answers[..rules.len()]
        .iter()
        .map(|a| {
            !a.contains("Bad arguments")
                && (a.contains("Flow rule validated") || a.contains("Caught PMD error"))
        })
        .collect()
}

fn plan_with(fields: &[Field], symmetric: bool) -> nfc_core::Plan {
    let key: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x6d).collect();
    serde_json::from_value(serde_json::json!({
        "cores": 4,
        "rss": {"fields": fields, "symmetric": symmetric, "key40": key, "key52": [], "reta": [0, 1, 2, 3, 0, 1, 2, 3]},
        "nfs": [], "total_cost": 0.0, "candidates": [], "rationale": []
    }))
    .unwrap()
}

#[test]
fn flow_rules_are_accepted_by_dpdks_parser() {
    use Field::*;
    let mut rules: Vec<String> = [
        vec![SrcIp],
        vec![DstIp],
        vec![SrcIp, DstIp],
        vec![SrcIp, DstIp, SrcPort, DstPort, Proto],
        vec![SrcIp, DstPort],
        vec![SrcPort],
    ]
    .iter()
    .map(|f| nfc::emit::rss::flow_rule(&plan_with(f, false)))
    .collect();
    rules.push(nfc::emit::rss::flow_rule(&plan_with(&[SrcIp, DstIp], true)));
    // What the target wrote for a real chain, too.
    let dir = tempfile::tempdir().unwrap();
    let o = nfc()
        .args([
            "build",
            "examples/flowmage-3nf.yaml",
            "--target",
            "fastclick",
            "--cache-dir",
        ])
        .arg(dir.path().join("cache"))
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = std::fs::read_to_string(dir.path().join("flow-rules.txt")).unwrap();
    let written: Vec<String> = file
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    assert_eq!(written.len(), 1, "{file}");
    rules.extend(written);
    // The negative control: the same rule with a misspelt keyword.
    let broken = rules[0].replace("types", "typo");
    rules.push(broken);
    let parsed = testpmd_parses(&rules);
    let n = rules.len();
    for (r, ok) in rules[..n - 1].iter().zip(&parsed) {
        assert!(ok, "DPDK's parser refused: {r}");
    }
    assert!(
        !parsed[n - 1],
        "the corrupted rule was accepted: {}",
        rules[n - 1]
    );
}

/// Every element class of the emitted `.click` is upstream FastClick's or
/// one the package defines (`EXPORT_ELEMENT` in its sources), and no
/// parameter outside upstream's names appears (in particular none of the
/// FlowMage fork's HASHFUNC, RSS_KEY, RSS_SYMMETRIC, SHARED). A reduced chain
/// is one element hosting the reduced module.
#[test]
fn click_uses_only_upstream_names_and_the_package() {
    for (chain, expect) in [
        (
            "examples/flowmage-3nf.yaml",
            vec!["NfcPsd", "NfcPolicer", "NfcCounter"],
        ),
        ("examples/ids-firewall.yaml", vec!["NfcReduced"]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = nfc()
            .args(["build", chain, "--target", "fastclick", "--cache-dir"])
            .arg(dir.path().join("cache"))
            .arg("-o")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let name = Path::new(chain).file_stem().unwrap().to_string_lossy();
        let text = std::fs::read_to_string(dir.path().join(format!("{name}.click"))).unwrap();
        let mut own = vec![];
        for e in std::fs::read_dir(dir.path().join("nfc-elements")).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "cc") {
                let src = std::fs::read_to_string(&p).unwrap();
                let class = src
                    .split("EXPORT_ELEMENT(")
                    .nth(1)
                    .and_then(|r| r.split(')').next())
                    .unwrap()
                    .to_string();
                own.push(class);
            }
        }
        own.sort();
        let mut want: Vec<String> = expect.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(own, want, "{text}");
        let problems = nfc::emit::fastclick::validate_upstream(&text, "x.click", &own);
        assert!(problems.is_empty(), "{problems:?}\n{text}");
        for invented in ["HASHFUNC", "RSS_KEY", "RSS_SYMMETRIC", "SHARED"] {
            assert!(!text.contains(invented), "{invented} in\n{text}");
        }
        // The validator is not vacuous: an invented parameter and class fail.
        let bad = text.replace("MODE flow", "MODE flow, HASHFUNC src_ip");
        assert_eq!(
            nfc::emit::fastclick::validate_upstream(&bad, "x.click", &own)[0].code,
            "E0511"
        );
        let bad = text.replace(&own[0], "NfcNoSuchElement");
        assert!(!nfc::emit::fastclick::validate_upstream(&bad, "x.click", &own).is_empty());
    }
}
