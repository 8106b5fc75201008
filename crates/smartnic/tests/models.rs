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

/// The ranker the agilio plan applies to chain NFs: decomposed on the profile
/// proxies alone. Trained on held-in groups it still beats a random order on
/// held-out groups; ranking a group's NFs by their profiles
/// (`rank_profiles`, the chain path) gives exactly the scores of ranking the
/// group (`group_scores`); the knob-reading rankers refuse profiles; a saved
/// ranker keeps its inputs.
#[test]
fn profile_ranker_on_held_out_groups_and_chain_profiles() {
    use nfc_smartnic::colocation::RankerInputs;
    use nfc_smartnic::features::ProgramProfile;
    let groups: Vec<ColocationGroup> =
        clara_data::load_colocation(&clara().join("nf_colocation/dataset")).unwrap();
    let (train, _, test) = colocation::split_groups(&groups, 5);
    let params = Params::Gbdt {
        iterations: 100,
        max_depth: 4,
        learning_rate: 0.1,
    };
    let ranker = Ranker::train_with(
        RankerKind::Decomposed,
        RankerInputs::Profile,
        params,
        &train,
        5,
    )
    .unwrap();
    assert_eq!(ranker.features.len(), 2 * colocation::PROFILE_INPUTS.len());
    let report = colocation::evaluate(&ranker, &test);
    let random = colocation::random_baseline(&test);
    assert!(report.top1 > random.top1 + 0.15, "{report:?} vs {random:?}");
    assert!(report.top3 > random.top3 + 0.2, "{report:?} vs {random:?}");
    for g in test.iter().take(10) {
        let profiles: Vec<ProgramProfile> =
            g.solo.iter().map(|(p, _)| ProgramProfile::of(p)).collect();
        let ranked = ranker.rank_profiles(&profiles).unwrap();
        let n = profiles.len();
        assert_eq!(ranked.len(), n * (n - 1) / 2);
        let scores = ranker.group_scores(g);
        for (pr, s) in g.pairs.iter().zip(&scores) {
            let mut key = pr.nfs;
            key.sort_unstable();
            let r = ranked.iter().find(|r| r.nfs == key).unwrap();
            assert_eq!(r.predicted_friendliness, *s, "group {}", g.id);
        }
        assert!(ranked
            .windows(2)
            .all(|w| w[0].predicted_friendliness >= w[1].predicted_friendliness));
    }
    let knobs = Ranker::train(RankerKind::Decomposed, params, &train[..20], 5).unwrap();
    assert!(knobs.rank_profiles(&[]).is_err());
    assert!(Ranker::train_with(
        RankerKind::Pairwise,
        RankerInputs::Profile,
        params,
        &train,
        5
    )
    .is_err());
    let loaded = Ranker::from_json(&ranker.to_json().unwrap()).unwrap();
    assert_eq!(loaded.inputs, RankerInputs::Profile);
    assert_eq!(colocation::evaluate(&loaded, &test), report);
}

/// The noise estimate recovers a known noise level from synthetic smooth
/// curves, and an oracle that knows the labels up to no noise is always right.
#[test]
fn noise_estimate_and_noisy_oracle() {
    use nfc_smartnic::clara_data::{Measurement, Program, ScaleOutNf};
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let sigma = 0.01;
    let nfs: Vec<ScaleOutNf> = (0..2000)
        .map(|i| {
            let rate = rng.gen_range(1e5..1e6);
            let curve = (4..=10u32)
                .map(|c| {
                    // A smooth (quadratic) curve times independent noise, from a sum of uniforms.
                    let z: f64 = (0..12).map(|_| rng.gen_range(0.0..1.0)).sum::<f64>() - 6.0;
                    let t = rate * (c as f64) * (1.0 - 0.02 * c as f64) * (1.0 + sigma * z);
                    (
                        c,
                        Measurement {
                            throughput: t,
                            latency: 1.0,
                        },
                    )
                })
                .collect();
            ScaleOutNf {
                id: i,
                program: Program {
                    choices: vec![],
                    configs: vec![],
                },
                curve,
            }
        })
        .collect();
    let est = colocation::noise_from_scale_out(&nfs).unwrap();
    assert_eq!(est.windows, 2000 * 4);
    assert!((est.sigma - sigma).abs() < 0.1 * sigma, "{est:?}");
    assert!((est.sigma_rms - sigma).abs() < 0.1 * sigma, "{est:?}");
    assert!(colocation::noise_from_scale_out(&nfs[..0]).is_none());

    let groups: Vec<ColocationGroup> =
        clara_data::load_colocation(&clara().join("nf_colocation/dataset")).unwrap();
    let exact = colocation::noisy_oracle(&groups[..40], 0.0, 3, 1);
    assert_eq!((exact.oracle.top1, exact.oracle.top3), (1.0, 1.0));
    assert_eq!(exact.near_tie_share, 0.0);
    let noisy = colocation::noisy_oracle(&groups[..40], 0.05, 50, 1);
    assert!(
        noisy.oracle.top1 < 0.9 && noisy.near_tie_share > 0.3,
        "{noisy:?}"
    );
    assert_eq!(noisy, colocation::noisy_oracle(&groups[..40], 0.05, 50, 1));
}
