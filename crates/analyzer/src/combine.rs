//! Combining the static and LLM answers. Policy (FlowMage §5): a flow key
//! broader than what the code proves breaks shared-nothing, so an LLM key
//! that is not a subset of the static key is never accepted; a narrower LLM
//! key is safe (RSS on fewer fields still keeps each flow on one core) and is
//! accepted with a note. Other disagreements keep the static answer when the
//! static backend found evidence, and are reported as diagnostics.

use crate::llm::LlmAnswer;
use nfc_core::diag::Diagnostic;
use nfc_core::facts::{Backend, Facts, Intensity};
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
    let static_has_state_evidence = st.stateful;
    if st.stateful != llm.stateful {
        // Statefulness: the static backend proves state by a keyed write; trust it when it found one.
        let keep_static = static_has_state_evidence || st.confidence >= 0.6;
        disagree(
            "statefulness",
            st.stateful.to_string(),
            llm.stateful.to_string(),
            if keep_static { "static" } else { "LLM" },
        );
        if !keep_static {
            out.stateful = llm.stateful;
            out.intensity = llm.intensity;
            out.flow_key = vec![];
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
            disagree(
                "flow key",
                format!("{:?}", names(&st.flow_key)),
                format!("{:?}", names(&llm.flow_key)),
                "static (an LLM key with fields the code does not key on would break shared-nothing, FlowMage §5)",
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
            disagree(
                "symmetry",
                st.symmetric.to_string(),
                sym.to_string(),
                "static",
            );
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
        check(&[Field::SrcIp], &[Field::DstIp], &[Field::SrcIp], 1);
    }

    #[test]
    fn narrower_llm_key_is_accepted_and_agreement_is_silent() {
        check(&Field::FIVE_TUPLE, &[Field::SrcIp], &[Field::SrcIp], 1);
        check(&[Field::DstIp], &[Field::DstIp], &[Field::DstIp], 0);
    }
}
