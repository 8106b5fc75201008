//! Proof by execution: run the original chain (one private copy of each NF's
//! shared object, packets routed NF to NF by verdict exactly like the
//! consolidated `nf_process`) and the reduced module over the same packets,
//! and compare every verdict, every output frame and each NF's final state
//! digest. Any difference is a `ReduceError::Mismatch`.

use crate::error::ReduceError;
use crate::native::{LoadedNf, StateBuf};
use crate::packets::TestPacket;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What the differential run checked.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct VerifyReport {
    pub packets: usize,
    pub dropped: usize,
    pub forwarded: usize,
    /// Final per-NF state digests (equal on both sides).
    pub state_digests: Vec<String>,
}

/// Headroom frames may grow into.
const CAP_SLACK: usize = 256;

/// Outcome of running one side.
#[derive(Debug, PartialEq)]
pub struct RunOutcome {
    pub verdicts: Vec<i32>,
    pub frames: Vec<Vec<u8>>,
    pub digests: Vec<String>,
}

fn load(path: &Path) -> Result<LoadedNf, ReduceError> {
    LoadedNf::open(path).map_err(|message| ReduceError::Load {
        path: path.to_path_buf(),
        message,
    })
}

/// One unreduced NF: id, shared object, flattened configuration.
pub type OriginalNf = (String, PathBuf, Vec<(String, String)>);

/// Run the unreduced chain: NF k's non-drop verdict goes to NF k+1 with
/// `in_port` = that verdict; the last verdict is the exit port.
pub fn run_original(sos: &[OriginalNf], packets: &[TestPacket]) -> Result<RunOutcome, ReduceError> {
    let mut nfs = vec![];
    for (id, so, cfg) in sos {
        let nf = load(so)?;
        nf.init(cfg).map_err(|message| ReduceError::Config {
            nf: id.clone(),
            message,
        })?;
        let st = nf.new_state();
        nfs.push((nf, st));
    }
    let mut out = RunOutcome {
        verdicts: vec![],
        frames: vec![],
        digests: vec![],
    };
    for p in packets {
        let mut frame = p.frame.clone();
        let mut in_port = 0u32;
        let mut v = 0;
        for (nf, st) in nfs.iter_mut() {
            v = nf.process(st, p.now_ns, &mut frame, p.frame.len() + CAP_SLACK, in_port);
            if v < 0 {
                break;
            }
            in_port = v as u32;
        }
        out.verdicts.push(v.max(-1));
        out.frames.push(if v >= 0 { frame } else { vec![] });
    }
    out.digests = nfs.iter().map(|(nf, st)| nf.digest(st)).collect();
    Ok(out)
}

/// Run the reduced (consolidated) module.
pub fn run_reduced(
    so: &Path,
    n_nfs: usize,
    packets: &[TestPacket],
) -> Result<RunOutcome, ReduceError> {
    let nf = load(so)?;
    nf.init(&[]).map_err(|message| ReduceError::Config {
        nf: "reduced chain".into(),
        message,
    })?;
    let mut st: StateBuf = nf.new_state();
    let mut out = RunOutcome {
        verdicts: vec![],
        frames: vec![],
        digests: vec![],
    };
    for p in packets {
        let mut frame = p.frame.clone();
        let v = nf.process(&mut st, p.now_ns, &mut frame, p.frame.len() + CAP_SLACK, 0);
        out.verdicts.push(v.max(-1));
        out.frames.push(if v >= 0 { frame } else { vec![] });
    }
    for k in 0..n_nfs {
        let d = nf
            .digest_with(&format!("nfc_state_digest_{k}"), st.as_mut_ptr())
            .ok_or_else(|| ReduceError::Abi {
                nf: "reduced chain".into(),
                message: format!("missing nfc_state_digest_{k}"),
            })?;
        out.digests.push(d);
    }
    Ok(out)
}

/// Compare both sides; the first difference becomes a Mismatch error.
pub fn compare(
    original: &RunOutcome,
    reduced: &RunOutcome,
    packets: &[TestPacket],
    ids: &[String],
) -> Result<VerifyReport, ReduceError> {
    for (i, (a, b)) in original.verdicts.iter().zip(&reduced.verdicts).enumerate() {
        if a != b {
            return Err(ReduceError::Mismatch {
                detail: format!(
                    "packet {i} ({} bytes): verdict {a} originally, {b} reduced",
                    packets[i].frame.len()
                ),
            });
        }
        if original.frames[i] != reduced.frames[i] {
            return Err(ReduceError::Mismatch {
                detail: format!("packet {i}: output bytes differ"),
            });
        }
    }
    if original.verdicts.len() != reduced.verdicts.len() {
        return Err(ReduceError::Mismatch {
            detail: "different packet counts".into(),
        });
    }
    for (k, (a, b)) in original.digests.iter().zip(&reduced.digests).enumerate() {
        if a != b {
            return Err(ReduceError::Mismatch {
                detail: format!(
                    "final state of NF `{}` differs",
                    ids.get(k).map(String::as_str).unwrap_or("?")
                ),
            });
        }
    }
    Ok(VerifyReport {
        packets: packets.len(),
        dropped: original.verdicts.iter().filter(|v| **v < 0).count(),
        forwarded: original.verdicts.iter().filter(|v| **v >= 0).count(),
        state_digests: original.digests.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(v: &[i32], digest: &str) -> RunOutcome {
        RunOutcome {
            verdicts: v.to_vec(),
            frames: v
                .iter()
                .map(|x| if *x >= 0 { vec![1, 2] } else { vec![] })
                .collect(),
            digests: vec![digest.into()],
        }
    }

    #[test]
    fn any_difference_is_a_mismatch() {
        let pkts: Vec<TestPacket> = (0..3)
            .map(|i| TestPacket {
                frame: vec![0; 60],
                now_ns: i,
            })
            .collect();
        let ids = vec!["a".to_string()];
        let ok = compare(
            &outcome(&[0, -1, 1], "d"),
            &outcome(&[0, -1, 1], "d"),
            &pkts,
            &ids,
        )
        .unwrap();
        assert_eq!((ok.packets, ok.dropped, ok.forwarded), (3, 1, 2));
        let e = compare(
            &outcome(&[0, -1, 1], "d"),
            &outcome(&[0, 0, 1], "d"),
            &pkts,
            &ids,
        )
        .unwrap_err();
        assert!(
            matches!(e, ReduceError::Mismatch { .. }) && e.to_string().contains("packet 1"),
            "{e}"
        );
        let e = compare(&outcome(&[0], "d"), &outcome(&[0], "x"), &pkts, &ids).unwrap_err();
        assert!(e.to_string().contains("final state of NF `a`"), "{e}");
        let mut bytes = outcome(&[0], "d");
        bytes.frames[0] = vec![9];
        let e = compare(&outcome(&[0], "d"), &bytes, &pkts, &ids).unwrap_err();
        assert!(e.to_string().contains("output bytes"), "{e}");
    }
}
