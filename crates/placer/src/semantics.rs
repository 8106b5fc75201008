//! The semantics check every emitted plan passes: an NF marked shared-nothing
//! must never see one of its flows on two cores. Checked twice, structurally
//! (every field the queue depends on is in the NF's flow key, and a
//! symmetric NF gets a symmetric hash) and empirically, by hashing packets
//! with the plan's real key and RETA: each traffic record, perturbed in every
//! field outside the NF's key, and reversed for symmetric NFs, must stay on its
//! queue.

use crate::toeplitz::{mirror_closed, Hasher, RssConfig};
use crate::traffic::{PacketHeader, TrafficProfile};
use crate::PlaceError;
use nfc_core::facts::{Facts, Field};

/// Why an NF may not run shared-nothing under `rss`, or `None` when it may.
pub fn shared_nothing_blocker(
    facts: &Facts,
    rss_fields: &[Field],
    symmetric_hash: bool,
) -> Option<String> {
    if let Some(h) = facts.split_hazards.first() {
        return Some(format!(
            "it writes `{}`, which no packet field keys ({})",
            h.object, h.reason
        ));
    }
    if !facts.stateful {
        return None;
    }
    if facts.flow_key.is_empty() {
        return Some("its state is global (no flow key)".into());
    }
    let missing: Vec<&str> = rss_fields
        .iter()
        .filter(|f| !facts.flow_key.contains(f))
        .map(|f| f.name())
        .collect();
    if !missing.is_empty() {
        return Some(format!(
            "RSS field(s) {{{}}} are not in its flow key {{{}}}",
            missing.join(","),
            names(&facts.flow_key)
        ));
    }
    if facts.symmetric {
        if !mirror_closed(&facts.flow_key) {
            return Some(format!(
                "it is marked symmetric but its flow key {{{}}} is not closed under src<->dst",
                names(&facts.flow_key)
            ));
        }
        if !symmetric_hash {
            return Some(
                "it keeps one state for both directions and the hash is not symmetric".into(),
            );
        }
    }
    None
}

pub(crate) fn names(fields: &[Field]) -> String {
    fields
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(",")
}

/// Deterministic perturbations of a header outside `keep`.
fn perturbations(h: PacketHeader, keep: &[Field]) -> impl Iterator<Item = PacketHeader> + '_ {
    const SALTS: [u32; 4] = [0x0000_0001, 0x8000_0000, 0x5a5a_a5a5, 0xffff_ffff];
    SALTS.into_iter().map(move |salt| PacketHeader {
        src_ip: if keep.contains(&Field::SrcIp) {
            h.src_ip
        } else {
            h.src_ip ^ salt
        },
        dst_ip: if keep.contains(&Field::DstIp) {
            h.dst_ip
        } else {
            h.dst_ip ^ salt.rotate_left(7)
        },
        src_port: if keep.contains(&Field::SrcPort) {
            h.src_port
        } else {
            h.src_port ^ (salt as u16 | 1)
        },
        dst_port: if keep.contains(&Field::DstPort) {
            h.dst_port
        } else {
            h.dst_port ^ ((salt >> 16) as u16 | 1)
        },
        proto: if keep.contains(&Field::Proto) {
            h.proto
        } else {
            h.proto ^ 0x11
        },
    })
}

/// Probe headers: the traffic's records (up to a bound) plus a fixed spread
/// of synthetic tuples so the check runs even without traffic.
fn probes(traffic: &TrafficProfile) -> Vec<PacketHeader> {
    let mut out: Vec<PacketHeader> = traffic
        .records
        .iter()
        .take(4096)
        .map(|r| r.header)
        .collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..256 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.push(PacketHeader {
            src_ip: state as u32,
            dst_ip: (state >> 32) as u32,
            src_port: (state >> 7) as u16,
            dst_port: (state >> 23) as u16,
            proto: if state & 1 == 0 { 6 } else { 17 },
        });
    }
    out
}

/// Check that every NF listed as shared-nothing keeps each of its flows on one
/// core under `rss`.
pub fn check_shared_nothing(
    shared_nothing: &[(&str, &Facts)],
    rss: &RssConfig,
    traffic: &TrafficProfile,
) -> Result<(), PlaceError> {
    let hasher: Hasher = rss.hasher();
    let probes = probes(traffic);
    for (id, facts) in shared_nothing {
        if let Some(why) = shared_nothing_blocker(facts, &rss.fields, rss.symmetric) {
            return Err(PlaceError::SemanticViolation {
                nf: id.to_string(),
                detail: why,
            });
        }
        for h in &probes {
            let q = hasher.queue(h);
            for other in perturbations(*h, &facts.flow_key) {
                if hasher.queue(&other) != q {
                    return Err(PlaceError::SemanticViolation {
                        nf: id.to_string(),
                        detail: format!("packets {h:?} and {other:?} share its flow key but reach different cores"),
                    });
                }
            }
            if facts.symmetric && hasher.queue(&h.reversed()) != q {
                return Err(PlaceError::SemanticViolation {
                    nf: id.to_string(),
                    detail: format!("the two directions of {h:?} reach different cores"),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toeplitz::{synthesize, RssInputMode};
    use nfc_core::facts::Intensity;

    fn nf(name: &str, key: &[Field], symmetric: bool) -> Facts {
        Facts {
            stateful: true,
            flow_key: key.to_vec(),
            symmetric,
            intensity: Intensity::PerPacket,
            ..Facts::stateless(name)
        }
    }

    #[test]
    fn blockers() {
        use Field::*;
        let check = |f: Facts, fields: &[Field], sym: bool, expect: Option<&str>| {
            let got = shared_nothing_blocker(&f, fields, sym);
            match expect {
                None => assert_eq!(got, None),
                Some(e) => assert!(
                    got.as_deref().is_some_and(|g| g.contains(e)),
                    "{got:?} lacks {e}"
                ),
            }
        };
        check(nf("psd", &[SrcIp], false), &[SrcIp], false, None);
        check(
            nf("pol", &[DstIp], false),
            &[SrcIp],
            false,
            Some("{src_ip} are not in its flow key {dst_ip}"),
        );
        check(
            nf("fw", &[SrcIp, DstIp], true),
            &[SrcIp, DstIp],
            false,
            Some("not symmetric"),
        );
        check(nf("fw", &[SrcIp, DstIp], true), &[SrcIp, DstIp], true, None);
        check(
            nf("odd", &[SrcIp], true),
            &[SrcIp],
            false,
            Some("not closed"),
        );
        check(nf("glob", &[], false), &[SrcIp], false, Some("global"));
        check(Facts::stateless("x"), &[SrcIp], false, None);
    }

    #[test]
    fn a_wrong_shared_nothing_marking_is_rejected() {
        let rss = synthesize(&[Field::SrcIp], false, RssInputMode::FieldSelect, 4, 128).unwrap();
        let ok = nf("psd", &[Field::SrcIp], false);
        let bad = nf("policer", &[Field::DstIp], false);
        assert!(check_shared_nothing(&[("psd", &ok)], &rss, &TrafficProfile::new()).is_ok());
        let err = check_shared_nothing(
            &[("psd", &ok), ("policer", &bad)],
            &rss,
            &TrafficProfile::new(),
        )
        .unwrap_err();
        assert!(
            matches!(err, PlaceError::SemanticViolation { ref nf, .. } if nf == "policer"),
            "{err}"
        );
    }

    #[test]
    fn a_key_that_leaks_other_fields_is_caught_empirically() {
        // Structurally fine (fields say src_ip) but the key is the default one,
        // which hashes every field: the probe packets expose it.
        let mut rss = synthesize(&[Field::SrcIp], false, RssInputMode::Tuple, 4, 128).unwrap();
        rss.layout = crate::toeplitz::layout_for(&Field::FIVE_TUPLE, RssInputMode::Tuple);
        rss.key52 = vec![
            0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43,
        ];
        rss.key52.resize(52, 0xa5);
        let psd = nf("psd", &[Field::SrcIp], false);
        let err = check_shared_nothing(&[("psd", &psd)], &rss, &TrafficProfile::new()).unwrap_err();
        assert!(err.to_string().contains("different cores"), "{err}");
    }
}
