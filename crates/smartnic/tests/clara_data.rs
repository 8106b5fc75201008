//! The Clara data parser: the released format parses, every malformed input
//! is a located error, and no input panics (a mutation test over real files).

use nfc_smartnic::clara_data::{parse_colocation_group, parse_scale_out_nf};
use proptest::prelude::*;
use std::path::Path;

const FEATURE: &str = "4
('choices: ', ['0', '1', '1', '1', '0', '0', '0', '0', '0', '0', '1', '1', '1', '0', '0', '0', '0', '0', '0', '0', '0', '1', '1', '0', '0', '0', '0', '0', '0', '0', '0', '0', '1', '0', '1\\n'])
('configs: ', ['21', '19', '3', '3', '5', '3', '2', '2', '10', '8', '7', '5', '9', '9', '7', '9', '7', '6', '1', '4', '4', '10', '5', '3', '4', '2', '1', '0', '0', '0', '0', '0'])
end of last
5
('choices: ', ['0', '1', '1', '1', '0', '0', '0', '0', '0', '0', '1', '1', '1', '0', '0', '0', '0', '0', '0', '0', '0', '1', '1', '0', '0', '0', '0', '0', '0', '0', '0', '0', '1', '0', '1\\n'])
('configs: ', ['21', '19', '3', '3', '5', '3', '2', '2', '10', '8', '7', '5', '9', '9', '7', '9', '7', '6', '1', '4', '4', '10', '5', '3', '4', '2', '1', '0', '0', '0', '0', '0'])
end of last
";

const TAG: &str = "4
latency_fake: 3024.2; time: 14.4; throughput: 9216735.3; latency: 7955.2; test: 3024.2.
5
latency_fake: 2635.6; time: 14.4; throughput: 11170067.3; latency: 8116.8; test: 2635.6.
";

fn scale_out(feature: &str, tag: &str) -> Result<nfc_smartnic::clara_data::ScaleOutNf, String> {
    parse_scale_out_nf(7, Path::new("f"), feature, Path::new("t"), tag).map_err(|e| e.to_string())
}

#[test]
fn parses_the_released_scale_out_format() {
    let nf = scale_out(FEATURE, TAG).unwrap();
    assert_eq!(nf.program.choices.len(), 35);
    assert_eq!(nf.program.configs.len(), 32);
    assert_eq!(
        nf.program.choices[34], 1,
        "the literal \\n of the last flag is dropped"
    );
    assert_eq!(nf.curve.keys().copied().collect::<Vec<_>>(), vec![4, 5]);
    assert_eq!(nf.curve[&5].throughput, 11170067.3);
    assert_eq!(nf.curve[&4].latency, 7955.2);
}

#[test]
fn malformed_scale_out_input_is_a_located_error() {
    let cases: Vec<(String, String, &str)> = vec![
        (
            FEATURE.replacen("'0', '1', '1'", "'0', '2', '1'", 1),
            TAG.into(),
            "f:2: choices flag 2 is 2",
        ),
        (
            FEATURE.replacen("'21', '19', ", "", 1),
            TAG.into(),
            "f:3: expected 32 configs integers, found 30",
        ),
        (
            FEATURE.replacen("end of last\n5", "5", 1),
            TAG.into(),
            "f:4: expected `end of last`, found `5`",
        ),
        (
            FEATURE.into(),
            TAG.replace("throughput: 11170067.3", "throughput: x"),
            "t:4: value of `throughput` is not a number",
        ),
        (
            FEATURE.into(),
            TAG.replace("latency: 8116.8", "latency: -1"),
            "t:4: run 5: `latency` is -1",
        ),
        (
            FEATURE.into(),
            TAG.replace("5\n", "6\n"),
            "t:3: core count 6 has no program",
        ),
        (
            FEATURE.replacen("'10', '8'", "'10', '9'", 1),
            TAG.into(),
            "f:5: core count 5: the program differs",
        ),
        (
            FEATURE.into(),
            TAG.replace("test: 2635.6.", "test: 2635.6"),
            "t:4: a measurement line ends with `.`",
        ),
        (FEATURE.into(), "".into(), "t:0: no runs"),
        (
            FEATURE.into(),
            TAG.lines().take(2).collect::<Vec<_>>().join("\n"),
            "t:0: fewer than two core counts",
        ),
    ];
    for (f, t, want) in cases {
        let got = scale_out(&f, &t).expect_err(want);
        assert!(got.starts_with(want), "want `{want}…`, got `{got}`");
    }
}

const COLOC_FEATURE: &str = "1
nf1
('choices: ', ['0', '1', '0', '1', '0', '1', '1', '0', '0', '0', '1', '1', '1', '0', '0', '0', '0', '0', '0', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', '0\\n'])
('configs: ', ['14', '29', '5', '1', '5', '5', '5', '16', '10', '6', '21', '17', '18', '12', '11', '2', '7', '24', '26', '6', '22', '25', '11', '30', '5', '15', '3'])
end of last
2
nf1
('choices: ', ['1', '1', '1', '0', '0', '1', '0', '1', '1', '1', '0', '1', '1', '0', '0', '0', '0', '0', '0', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', '0\\n'])
('configs: ', ['31', '31', '5', '5', '4', '4', '3', '2', '2', '2', '1', '1', '2', '1', '2', '1', '2', '1', '1', '1', '2', '2', '1', '1', '1', '2', '1'])
end of last
3
nf1
('choices: ', ['1', '1', '1', '0', '0', '1', '0', '1', '1', '1', '0', '1', '1', '0', '0', '0', '0', '0', '0', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', '0\\n'])
('configs: ', ['31', '31', '5', '5', '4', '4', '3', '2', '2', '2', '1', '1', '2', '1', '2', '1', '2', '1', '1', '1', '2', '2', '1', '1', '1', '2', '1'])
nf2
('choices: ', ['0', '1', '0', '1', '0', '1', '1', '0', '0', '0', '1', '1', '1', '0', '0', '0', '0', '0', '0', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', '0\\n'])
('configs: ', ['14', '29', '5', '1', '5', '5', '5', '16', '10', '6', '21', '17', '18', '12', '11', '2', '7', '24', '26', '6', '22', '25', '11', '30', '5', '15', '3'])
end of last
";

const COLOC_TAG: &str = "1
latency_fake1: 1.0; time1: 14.5; throughput1: 6377711.2; latency1: 14793.28; test1: 1.0.
2
latency_fake1: 1.0; time1: 14.4; throughput1: 4901154.1; latency1: 20062.72; test1: 1.0.
3
latency_fake1: 1.0; time1: 15.3; throughput1: 3595096.4; latency1: 26313.28; test1: 1.0.
latency_fake2: 1.0; time2: 15.3; throughput2: 5241471.8; latency2: 17614.08; test2: 1.0.
";

#[test]
fn parses_the_released_colocation_format() {
    let g = parse_colocation_group(0, Path::new("f"), COLOC_FEATURE, Path::new("t"), COLOC_TAG)
        .unwrap();
    assert_eq!(g.solo.len(), 2);
    assert_eq!(g.pairs.len(), 1);
    // nf1 of the pair is the second solo NF, nf2 the first: matched by program, not by order.
    assert_eq!(g.pairs[0].nfs, [1, 0]);
    assert_eq!(g.pairs[0].measured[1].throughput, 5241471.8);
}

#[test]
fn malformed_colocation_input_is_a_located_error() {
    let cases: Vec<(String, String, &str)> = vec![
        (
            COLOC_FEATURE.replacen("nf2", "nf3", 1),
            COLOC_TAG.into(),
            "f:15: expected `nf2` or `end of last`",
        ),
        (
            COLOC_FEATURE.into(),
            COLOC_TAG.replace("throughput2", "tput2"),
            "t:7: run 3: no `throughput2`",
        ),
        (
            COLOC_FEATURE.into(),
            COLOC_TAG.replace("3\n", "4\n"),
            "t:5: run 4 here is run 3 in f (line 11)",
        ),
        (
            COLOC_FEATURE
                .replacen("'31', '31'", "'31', '30'", 2)
                .replacen("'31', '30'", "'31', '31'", 1),
            COLOC_TAG.into(),
            "f:11: run 3: nf1 was never measured alone",
        ),
    ];
    for (f, t, want) in cases {
        let got = parse_colocation_group(0, Path::new("f"), &f, Path::new("t"), &t)
            .map(|_| ())
            .expect_err(want)
            .to_string();
        assert!(got.starts_with(want), "want `{want}…`, got `{got}`");
    }
}

fn mutate(text: &str, ops: &[(u8, usize, u8)]) -> String {
    let mut b = text.as_bytes().to_vec();
    for &(op, at, byte) in ops {
        if b.is_empty() {
            b.push(byte);
            continue;
        }
        let i = at % b.len();
        match op % 4 {
            0 => b[i] = byte,
            1 => {
                b.remove(i);
            }
            2 => b.insert(i, byte),
            _ => {
                // Duplicate or drop a whole line.
                let start = b[..i]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |p| p + 1);
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| i + p + 1);
                if byte % 2 == 0 {
                    let line = b[start..end].to_vec();
                    b.splice(start..start, line);
                } else {
                    b.drain(start..end);
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

const ALPHABET: &[u8] = b"0123456789'[](),.:;- \nabcdefghijklmnopqrstuvwxyz_\\e";

fn op() -> impl Strategy<Value = (u8, usize, u8)> {
    (any::<u8>(), any::<usize>(), prop::sample::select(ALPHABET))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Any mutation of real files parses or fails with a located error; never a panic.
    #[test]
    fn mutated_files_never_panic(fops in prop::collection::vec(op(), 1..6), tops in prop::collection::vec(op(), 0..4), coloc in any::<bool>()) {
        let result = if coloc {
            parse_colocation_group(0, Path::new("f"), &mutate(COLOC_FEATURE, &fops), Path::new("t"), &mutate(COLOC_TAG, &tops)).map(|_| ())
        } else {
            parse_scale_out_nf(0, Path::new("f"), &mutate(FEATURE, &fops), Path::new("t"), &mutate(TAG, &tops)).map(|_| ())
        };
        if let Err(e) = result {
            prop_assert!(e.file == Path::new("f") || e.file == Path::new("t"));
            prop_assert!(!e.message.is_empty());
        }
    }
}
