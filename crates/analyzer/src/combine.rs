//! Combining the static and LLM answers. Policy (FlowMage §5): a flow key
//! broader than what the code proves breaks shared-nothing, so an LLM key
//! that is not a subset of the static key is never accepted; a narrower LLM
//! key is safe (RSS on fewer fields still keeps each flow on one core) and is
//! accepted with a note, and two incomparable keys leave the fields both key
//! on. Whichever backend gave it, the answer that permits the placer less
//! wins: stateful over stateless (with an unknown key when only the LLM saw
//! state), symmetric over not. Cost-model answers (intensity, pointer
//! chasing) keep the static value. Every disagreement is a diagnostic.

use crate::llm::LlmAnswer;
use nfc_core::diag::Diagnostic;
use nfc_core::facts::{Backend, Facts, Intensity, Question};
use std::cmp::Ordering;

/// Merge `llm` into `st`. With `report_all` (backend Both) every
/// disagreement is a warning; otherwise a note.
pub fn combine(st: &Facts, llm: &LlmAnswer, report_all: bool) -> (Facts, Vec<Diagnostic>) {
    let mut out = st.clone();
    out.backend = if report_all {
        Backend::Both
    } else {
        Backend::Llm
    };
    let mut diags = vec![];
    let mut disagree = |what: &str, s: String, l: String, kept: &str| {
        let msg = format!(
            "`{}`: static and LLM disagree on {what} (static {s}, LLM {l}); keeping {kept}",
            st.nf
        );
        diags.push(if report_all {
            Diagnostic::warning("A0201", msg)
        } else {
            Diagnostic::note_diag("A0201", msg)
        });
    };
    // Statefulness: the answer that permits the placer less wins. State only
    // the LLM saw has no key the code proves, so its key is unknown.
    if st.stateful != llm.stateful {
        disagree(
            "statefulness",
            st.stateful.to_string(),
            llm.stateful.to_string(),
            "stateful (the conservative answer)",
        );
        if llm.stateful && !st.stateful {
            out.stateful = true;
            out.intensity = llm.intensity;
            out.mark_unknown(
                Question::FlowKey,
                "only the LLM backend found per-flow state; no key is proven by the code",
            );
        }
    }
    if st.stateful && llm.stateful && st.flow_key != llm.flow_key {
        let subset =
            llm.flow_key.iter().all(|f| st.flow_key.contains(f)) && !llm.flow_key.is_empty();
        if subset {
            disagree(
                "flow key",
                format!("{:?}", names(&st.flow_key)),
                format!("{:?}", names(&llm.flow_key)),
                "the narrower LLM key (safe for shared-nothing)",
            );
            out.flow_key = llm.flow_key.clone();
        } else {
            // Keep only the fields both backends key on: a field one of
            // them does not see as a key may split a flow's state.
            out.flow_key = st
                .flow_key
                .iter()
                .copied()
                .filter(|f| llm.flow_key.contains(f))
                .collect();
            disagree(
                "flow key",
                format!("{:?}", names(&st.flow_key)),
                format!("{:?}", names(&llm.flow_key)),
                &format!(
                    "the fields both key on, {:?} (an LLM key with fields the code does not key on would break shared-nothing, FlowMage §5)",
                    names(&out.flow_key)
                ),
            );
        }
    }
    if out.stateful && st.intensity != llm.intensity && llm.intensity != Intensity::None {
        disagree(
            "write intensity",
            st.intensity.to_string(),
            llm.intensity.to_string(),
            "static",
        );
    }
    if out.stateful && st.pointer_chasing != llm.pointer_chasing {
        disagree(
            "pointer chasing",
            st.pointer_chasing.to_string(),
            llm.pointer_chasing.to_string(),
            "static",
        );
    }
    if let Some(sym) = llm.symmetric {
        if out.stateful && sym != st.symmetric {
            // One state for both directions needs a symmetric hash: the
            // stricter answer wins.
            disagree(
                "symmetry",
                st.symmetric.to_string(),
                sym.to_string(),
                "symmetric (the conservative answer)",
            );
            out.symmetric = true;
        }
    }
    let agree_all = diags.is_empty();
    out.confidence = if agree_all {
        (st.confidence.max(llm.agreement) + 0.1).min(1.0)
    } else {
        (st.confidence * 0.9).max(0.3)
    };
    (out, diags)
}

/// Static fallback for CCE: compare the source cost estimates.
pub fn compare_complexity_static(a: &Facts, b: &Facts) -> Ordering {
    a.cost().cmp(&b.cost())
}

fn names(k: &[nfc_core::facts::Field]) -> Vec<&'static str> {
    k.iter().map(|f| f.name()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfc_core::facts::Field;

    fn stateful(key: &[Field]) -> Facts {
        Facts {
            stateful: true,
            flow_key: key.to_vec(),
            intensity: Intensity::PerPacket,
            confidence: 0.8,
            ..Facts::stateless("psd")
        }
    }
    fn answer(key: &[Field]) -> LlmAnswer {
        LlmAnswer {
            stateful: true,
            intensity: Intensity::PerPacket,
            flow_key: key.to_vec(),
            pointer_chasing: false,
            symmetric: None,
            agreement: 1.0,
        }
    }

    fn check(st: &[Field], llm: &[Field], expect: &[Field], n_diags: usize) {
        let (f, d) = combine(&stateful(st), &answer(llm), true);
        assert_eq!(f.flow_key, expect);
        assert_eq!(d.len(), n_diags, "{d:?}");
    }

    #[test]
    fn broader_llm_key_is_never_accepted() {
        check(
            &[Field::SrcIp],
            &[Field::SrcIp, Field::SrcPort],
            &[Field::SrcIp],
            1,
        );
        check(&[Field::SrcIp], &[Field::DstIp], &[], 1);
        check(
            &[Field::SrcIp, Field::DstIp],
            &[Field::DstIp, Field::DstPort],
            &[Field::DstIp],
            1,
        );
    }

    #[test]
    fn state_only_the_llm_sees_is_stateful_with_an_unknown_key() {
        let (f, d) = combine(&Facts::stateless("psd"), &answer(&[Field::SrcIp]), false);
        assert!(f.stateful);
        assert!(f.flow_key.is_empty());
        assert!(f.is_unknown(Question::FlowKey));
        assert!(!f.splittable());
        assert!(
            d.iter().any(|d| d.message.contains("statefulness")),
            "{d:?}"
        );
    }

    #[test]
    fn narrower_llm_key_is_accepted_and_agreement_is_silent() {
        check(&Field::FIVE_TUPLE, &[Field::SrcIp], &[Field::SrcIp], 1);
        check(&[Field::DstIp], &[Field::DstIp], &[Field::DstIp], 0);
    }
}
