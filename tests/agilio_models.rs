//! The agilio plan's learned parts on chain NFs: the accelerator classifier
//! over an NF's insight IR (a CRC loop is flagged, a firewall is not), and
//! the core-count mapping (a suggestion within Clara's measured core counts,
//! with its range), and the colocation ranking of mapped profiles.

use nfc::driver::Workspace;
use nfc::emit::agilio_models;
use nfc_core::chain::{ConfigValue, Framework, NfId, NfInstance, NfSource};
use nfc_smartnic::accel::AccelKind;
use nfc_smartnic::features::{NfMeasures, ProgramProfile, COMPUTE_INSTRUCTIONS_PER_UNIT};
use nfc_smartnic::scale_out::suggest_for_profile;
use std::path::Path;

fn inst(id: &str, source: NfSource) -> NfInstance {
    NfInstance {
        id: NfId(id.into()),
        source,
        config: ConfigValue::Map(vec![]),
        ports: 1,
        span: None,
        sharing: None,
    }
}

#[test]
fn accelerator_rewrites_on_chain_nfs() {
    let ws = tempfile::tempdir().unwrap();
    let model = agilio_models::accel(&Workspace::new(ws.path())).unwrap();
    let crc = inst(
        "crc",
        NfSource::Source {
            paths: vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/agilio/crc_tagger")],
            framework: Framework::NfcC,
        },
    );
    let found = agilio_models::classify_nf(&model, &crc).unwrap();
    assert!(
        found
            .iter()
            .any(|f| f.function == "crc32_frame" && f.kind == AccelKind::Crc && f.confidence > 0.5),
        "{found:?}"
    );
    assert!(found.iter().all(|f| f.function != "nf_init"), "{found:?}");
    let fw = inst(
        "fw",
        NfSource::Builtin {
            name: "firewall".into(),
        },
    );
    assert_eq!(agilio_models::classify_nf(&model, &fw).unwrap(), vec![]);
    // A cached model is the trained one.
    let again = agilio_models::accel(&Workspace::new(ws.path())).unwrap();
    assert_eq!(
        serde_json::to_string(&model).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}

#[test]
fn core_suggestion_for_a_mapped_profile() {
    let Ok(_) = agilio_models::clara_root(None) else {
        panic!("Clara's data is expected beside the repository (../shared/data/clara)");
    };
    let ws = tempfile::tempdir().unwrap();
    let so = agilio_models::scale_out(&Workspace::new(ws.path())).unwrap();
    assert!(so.cores.len() >= 5, "{:?}", so.cores);
    // A training program's own profile is its own nearest neighbour.
    let own = ProgramProfile::of(&so.programs[0]);
    let s = suggest_for_profile(&so.model, &so.programs, &own, &so.cores, 15).unwrap();
    assert_eq!(s.distance.0, 0.0);
    assert!(so.cores.contains(&s.cores) && s.quartiles.0 <= s.cores && s.cores <= s.quartiles.1);
    // A measured NF (the policer's profile on flowmage-3nf's traffic).
    let m = NfMeasures {
        compute_instructions: 167.0,
        state_accesses: 15.6,
        accelerator_calls: 0.0,
        state_objects: 3.0,
        on_chip_objects: 3.0,
    };
    let p = ProgramProfile::from_measures(&m, COMPUTE_INSTRUCTIONS_PER_UNIT);
    assert_eq!(p.compute_work, 16.7);
    let s = suggest_for_profile(&so.model, &so.programs, &p, &so.cores, 15).unwrap();
    assert_eq!(s.knees.len(), 15);
    assert!(so.cores.contains(&s.cores), "{s:?}");
}

/// The colocation ranker the plan applies: decomposed on profile inputs,
/// trained on Clara's groups and cached; it ranks every pair of mapped chain
/// NF profiles, and the cached ranker ranks exactly as the trained one.
#[test]
fn colocation_ranking_of_mapped_profiles() {
    use nfc_smartnic::colocation::{RankerInputs, RankerKind};
    let ws = tempfile::tempdir().unwrap();
    let ranker = agilio_models::colocation(&Workspace::new(ws.path())).unwrap();
    assert_eq!(
        (ranker.kind, ranker.inputs),
        (RankerKind::Decomposed, RankerInputs::Profile)
    );
    // flowmage-3nf's three NFs, roughly (compute, state accesses, objects).
    let profiles: Vec<ProgramProfile> =
        [(240.0, 11.2, 2.0), (167.0, 15.6, 3.0), (120.0, 11.5, 1.0)]
            .iter()
            .map(|&(c, a, o)| {
                let m = NfMeasures {
                    compute_instructions: c,
                    state_accesses: a,
                    accelerator_calls: 0.0,
                    state_objects: o,
                    on_chip_objects: o,
                };
                ProgramProfile::from_measures(&m, COMPUTE_INSTRUCTIONS_PER_UNIT)
            })
            .collect();
    let ranked = ranker.rank_profiles(&profiles).unwrap();
    let mut pairs: Vec<[usize; 2]> = ranked.iter().map(|r| r.nfs).collect();
    pairs.sort_unstable();
    assert_eq!(pairs, vec![[0, 1], [0, 2], [1, 2]]);
    assert!(
        ranked
            .iter()
            .all(|r| r.predicted_friendliness > 0.0 && r.predicted_friendliness < 1.5),
        "{ranked:?}"
    );
    let again = agilio_models::colocation(&Workspace::new(ws.path())).unwrap();
    assert_eq!(again.rank_profiles(&profiles).unwrap(), ranked);
}
