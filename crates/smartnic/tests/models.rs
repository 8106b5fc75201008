//! The knee, the models and the rankers: definitions, determinism, saved
//! models predicting what the trained ones did, and learning something on
//! Clara's released data (held-out NFs and groups, a fixed small budget).

use nfc_smartnic::clara_data::{self, ColocationGroup};
use nfc_smartnic::colocation::{self, Ranker, RankerKind};
use nfc_smartnic::models::{ModelKind, Params};
use nfc_smartnic::scale_out::{self, knee, LabelledNf, ScaleOutModel, Suggester};
use std::path::PathBuf;

fn clara() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/clara");
    assert!(
        root.is_dir(),
        "Clara's data is expected at {} (shared/ beside the repository)",
        root.display()
    );
    root
}

#[test]
fn knee_is_the_power_maximum_with_ties_to_fewer_cores() {
    // power = thr/lat: 1.0, 1.5, 1.5, 1.2 → 5 (tie with 6 goes to fewer cores).
    assert_eq!(
        knee(&[
            (4, 10.0, 10.0),
            (5, 15.0, 10.0),
            (6, 18.0, 12.0),
            (7, 18.0, 15.0)
        ]),
        Some(5)
    );
    // More throughput with disproportionately more latency is past the knee.
    assert_eq!(
        knee(&[(4, 10.0, 1.0), (8, 19.0, 2.0), (10, 20.0, 3.0)]),
        Some(4)
    );
    assert_eq!(knee(&[]), None);
}

fn nfs(n: usize) -> Vec<LabelledNf> {
    let mut out = Vec::new();
    for (w, d) in [
        (0.0, "scale_out/dataset_hit"),
        (1.0, "scale_out/dataset_miss"),
    ] {
        let all = clara_data::load_scale_out(&clara().join(d)).unwrap();
        out.extend(all.into_iter().take(n).map(|nf| LabelledNf {
            name: format!("{d}/{}", nf.id),
            nf,
            workload: w,
        }));
    }
    out
}

#[test]
fn scale_out_models_learn_the_knee_on_held_out_nfs_and_save_exactly() {
    let data = nfs(150);
    let split = scale_out::split_by_nf(&data, 3);
    let names: std::collections::HashSet<&str> =
        split.train.iter().map(|n| n.name.as_str()).collect();
    assert!(
        split.test.iter().all(|n| !names.contains(n.name.as_str())),
        "split by NF"
    );
    let constant = scale_out::evaluate(
        &Suggester::Constant(scale_out::most_common_knee(&split.train)),
        &split.test,
    );
    let params = Params::Gbdt {
        iterations: 100,
        max_depth: 5,
        learning_rate: 0.15,
    };
    let gbdt = ScaleOutModel::train(ModelKind::Gbdt, params, &split.train, 3, false).unwrap();
    let report = scale_out::evaluate(&Suggester::Model(&gbdt), &split.test);
    assert!(
        report.mean_power_loss < constant.mean_power_loss,
        "GBDT {} vs constant {}",
        report.mean_power_loss,
        constant.mean_power_loss
    );
    // Deterministic, and a saved model suggests exactly what the trained one did.
    let again = ScaleOutModel::train(ModelKind::Gbdt, params, &split.train, 3, false).unwrap();
    assert_eq!(
        scale_out::evaluate(&Suggester::Model(&again), &split.test),
        report
    );
    let loaded = ScaleOutModel::from_json(&gbdt.to_json().unwrap()).unwrap();
    assert_eq!(
        scale_out::evaluate(&Suggester::Model(&loaded), &split.test),
        report
    );
    assert_eq!(loaded.features.len(), 35 + 32 + 6 + 1);
    // The baselines train and save too.
    for (kind, p) in [
        (ModelKind::Knn, Params::Knn { k: 5 }),
        (ModelKind::Linear, Params::Linear { l2: 1.0 }),
        (
            ModelKind::Mlp,
            Params::Mlp {
                hidden: 8,
                epochs: 5,
                learning_rate: 0.003,
            },
        ),
    ] {
        let m = ScaleOutModel::train(kind, p, &split.train, 3, true).unwrap();
        let r = scale_out::evaluate(&Suggester::Model(&m), &split.test);
        let l = ScaleOutModel::from_json(&m.to_json().unwrap()).unwrap();
        assert_eq!(
            scale_out::evaluate(&Suggester::Model(&l), &split.test),
            r,
            "{kind:?}"
        );
        assert!(r.mean_power_loss.is_finite());
    }
}

#[test]
fn pairwise_ranker_beats_a_random_order_on_held_out_groups() {
    let groups: Vec<ColocationGroup> =
        clara_data::load_colocation(&clara().join("nf_colocation/dataset")).unwrap();
    assert_eq!(groups.len(), 440);
    let (train, _, test) = colocation::split_groups(&groups, 5);
    let ids: std::collections::HashSet<u64> = train.iter().map(|g| g.id).collect();
    assert!(test.iter().all(|g| !ids.contains(&g.id)), "split by group");
    let params = Params::Gbdt {
        iterations: 50,
        max_depth: 4,
        learning_rate: 0.2,
    };
    let ranker = Ranker::train(RankerKind::Pairwise, params, &train, 5).unwrap();
    let report = colocation::evaluate(&ranker, &test);
    let random = colocation::random_baseline(&test);
    assert!(report.top1 > random.top1 + 0.1, "{report:?} vs {random:?}");
    assert!(report.top3 > random.top3 + 0.1, "{report:?} vs {random:?}");
    let loaded = Ranker::from_json(&ranker.to_json().unwrap()).unwrap();
    assert_eq!(colocation::evaluate(&loaded, &test), report);
}

/// The default (decomposed) ranker: trained on held-in groups only, it beats a
/// random order on held-out groups by a wide margin, never reads the ranked
/// groups' measured solo throughputs (scrambling them changes nothing), and a
/// saved ranker ranks exactly as the trained one.
#[test]
fn decomposed_ranker_on_held_out_groups() {
    let groups: Vec<ColocationGroup> =
        clara_data::load_colocation(&clara().join("nf_colocation/dataset")).unwrap();
    let (train, _, test) = colocation::split_groups(&groups, 5);
    let params = Params::Gbdt {
        iterations: 100,
        max_depth: 4,
        learning_rate: 0.1,
    };
    let ranker = Ranker::train(RankerKind::Decomposed, params, &train, 5).unwrap();
    let report = colocation::evaluate(&ranker, &test);
    let random = colocation::random_baseline(&test);
    assert!(report.top1 > random.top1 + 0.25, "{report:?} vs {random:?}");
    assert!(report.top3 > random.top3 + 0.3, "{report:?} vs {random:?}");
    let mut scrambled = test.clone();
    for g in &mut scrambled {
        for (_, m) in &mut g.solo {
            m.throughput = 1.0;
        }
    }
    for (a, b) in test.iter().zip(&scrambled) {
        assert_eq!(ranker.group_scores(a), ranker.group_scores(b));
    }
    let loaded = Ranker::from_json(&ranker.to_json().unwrap()).unwrap();
    assert_eq!(colocation::evaluate(&loaded, &test), report);
}
