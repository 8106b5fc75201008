//! Training, saving and reloading every model kind on a synthetic chain
//! whose throughput is a known function of two counters; Shapley values'
//! efficiency; the censored-latency classifier.

use nfc_predictor::data::{parse, ConflictPolicy, Experiment};
use nfc_predictor::explain::{pca, permutation_importance, shapley};
use nfc_predictor::features::{common_counters, Frame, Target};
use nfc_predictor::metrics::Metrics;
use nfc_predictor::mlp::{Grid, HeadJoin};
use nfc_predictor::model::{train, ModelKind, TrainOptions, TrainedModel};
use nfc_predictor::split::random_60_20_20;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// Throughput falls with the stressed NF's lost cycles and rises with load;
/// latency is censored (15000.0) when the chain is congested.
fn synthetic(seed: u64, rows: usize) -> Experiment {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut s = String::from(",input_rate,output_rate,latency,fw_cycles,fw_cache-misses,fw_LLC-loads,fw_mem-loads,nat_cycles,nat_instructions\n");
    s.push_str("0,100,0,10,1,1,1,0,1,1\n");
    for i in 1..rows {
        let load: f64 = rng.gen_range(500.0..2000.0);
        let stress: f64 = rng.gen_range(0.0..1.0);
        let cycles = 2.9e9 * (1.0 - 0.6 * stress);
        let out = load.min(2100.0 * (1.0 - 0.6 * stress)) * rng.gen_range(0.99..1.01);
        let congested = out < load * 0.8;
        let lat = if congested {
            15000.0
        } else {
            10.0 + load / 100.0
        };
        s.push_str(&format!(
            "{i},{load:.2},{out:.3},{lat},{cycles:.0},{:.0},{:.0},0,{:.0},{:.0}\n",
            load * 1e3 * rng.gen_range(0.95..1.05),
            load * 2e3,
            2.9e9 * rng.gen_range(0.98..1.0),
            out * 4e5
        ));
    }
    parse(
        Path::new(&format!("synthetic-{seed}.csv")),
        s.as_bytes(),
        ConflictPolicy::Reject,
    )
    .unwrap()
    .remove(0)
}

fn frames(target: Target) -> (Frame, Frame, Frame) {
    let exps = vec![synthetic(1, 300), synthetic(2, 300)];
    let f = Frame::build(&exps, &common_counters(&exps), target).unwrap();
    let s = random_60_20_20(f.len(), 3);
    (
        f.subset(&s.train),
        f.subset(&s.validation),
        f.subset(&s.test),
    )
}

fn options(kind: ModelKind, target: Target) -> TrainOptions {
    TrainOptions {
        kind,
        target,
        grid: Grid::tiny(),
        pearson_threshold: 0.3,
        seed: 5,
    }
}

#[test]
fn every_kind_learns_saves_and_reloads_identically() {
    let (tr, va, te) = frames(Target::Throughput);
    let dir = tempfile::tempdir().unwrap();
    for kind in [
        ModelKind::Mlp,
        ModelKind::Gbr,
        ModelKind::Linear,
        ModelKind::Dobrescu,
    ] {
        let m = train(
            &tr,
            &va,
            vec!["synthetic".into()],
            &options(kind, Target::Throughput),
        )
        .unwrap();
        assert!(
            !m.meta.features.iter().any(|f| f.ends_with("mem-loads")),
            "an all-zero column was selected"
        );
        let p = m.predict(&te).unwrap();
        let acc = Metrics::compute(&p, &te.y).accuracy;
        // The synthetic relation is learnable by every kind; a mean
        // predictor scores about 0.7 here.
        assert!(acc > 0.8, "{kind:?}: accuracy {acc}");
        if kind == ModelKind::Gbr {
            // Both targets (ln y and y) × the 4 settings, on the one
            // feature set the tiny grid offers.
            assert_eq!(m.meta.search.as_ref().unwrap().configurations, 8);
        }
        let path = dir.path().join(kind.name());
        m.save(&path).unwrap();
        let back = TrainedModel::load(&path).unwrap();
        assert_eq!(back.meta, m.meta);
        let q = back.predict(&te).unwrap();
        assert_eq!(p, q, "{kind:?}: reloaded predictions differ");
    }
}

#[test]
fn a_model_directory_that_is_not_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(TrainedModel::load(dir.path()).is_err());
    std::fs::write(dir.path().join("model.json"), "{\"format\": 1}").unwrap();
    let e = TrainedModel::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("model.json"), "{e}");
}

#[test]
fn latency_separates_censored_samples() {
    let (tr, va, te) = frames(Target::Latency);
    assert!(tr.censored.iter().any(|c| *c) && tr.censored.iter().any(|c| !*c));
    let m = train(&tr, &va, vec![], &options(ModelKind::Gbr, Target::Latency)).unwrap();
    let prob = m.predict_censored(&te).unwrap().unwrap();
    let correct = (0..te.len())
        .filter(|&i| (prob[i] >= 0.5) == te.censored[i])
        .count();
    assert!(
        correct as f64 / te.len() as f64 > 0.9,
        "{correct}/{}",
        te.len()
    );
    let measured = te.measured();
    let acc = Metrics::compute(&m.predict(&measured).unwrap(), &measured.y).accuracy;
    assert!(acc > 0.9, "latency accuracy {acc}");
}

#[test]
fn shapley_values_add_up_and_importance_ranks_the_driver() {
    let (tr, va, te) = frames(Target::Throughput);
    for kind in [ModelKind::Linear, ModelKind::Gbr] {
        let m = train(&tr, &va, vec![], &options(kind, Target::Throughput)).unwrap();
        let s = shapley(&m, &te, 4, 1).unwrap();
        assert!(s.exact);
        for (_, pred, phi) in &s.rows {
            let sum: f64 = phi.iter().sum();
            assert!(
                (s.baseline + sum - pred).abs() < 1e-6 * pred.abs().max(1.0),
                "{kind:?}: {} + {sum} != {pred}",
                s.baseline
            );
        }
        let imp = permutation_importance(&m, &te, 2, 1).unwrap();
        assert!(imp[0].accuracy_drop > 0.0);
    }
    let p = pca(&te);
    assert!(p.explained[0] >= p.explained[1] && p.explained[0] <= 1.0 && p.explained[1] >= 0.0);
    assert_eq!(p.points.len(), te.len());
}

#[test]
fn an_mlp_ensemble_clamps_to_the_training_range_and_reloads_identically() {
    let (tr, va, te) = frames(Target::Throughput);
    let mut opts = options(ModelKind::Mlp, Target::Throughput);
    opts.grid.loss = vec![nfc_predictor::mlp::Loss::L1];
    opts.grid.ensemble = 3;
    // As the standard grid: the ensemble is kept whatever validation says.
    opts.grid.ensemble_always = true;
    opts.grid.log_inputs = vec![true];
    let m = train(&tr, &va, vec![], &opts).unwrap();
    let c = m.meta.mlp.clone().unwrap();
    assert_eq!(c.members, 3);
    assert_eq!(m.meta.search.as_ref().unwrap().configurations, 3);
    assert!(m.meta.log_inputs);
    let p = m.predict(&te).unwrap();
    let acc = Metrics::compute(&p, &te.y).accuracy;
    assert!(acc > 0.8, "accuracy {acc}");
    // The Shapley baseline is the training mean in counter units.
    let f = nfc_predictor::model::project(&tr.measured(), &m.meta.features).unwrap();
    for (c, b) in m.baseline().iter().enumerate() {
        let (lo, hi) =
            f.x.iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
                    (lo.min(r[c]), hi.max(r[c]))
                });
        assert!(*b >= lo && *b <= hi, "baseline {b} outside {lo}..{hi}");
    }
    // Far outside the training range the prediction is the one at the
    // range's edge, not a linear extrapolation.
    let range = m
        .meta
        .input_range
        .clone()
        .expect("an MLP records its input range");
    let far: Vec<f64> = range.max.iter().map(|hi| hi * 100.0 + 1e9).collect();
    assert_eq!(
        m.predict_raw(&[far]),
        m.predict_raw(std::slice::from_ref(&range.max))
    );
    // The output is clamped to the training fold's target range.
    let ty = &tr.measured().y;
    let (lo, hi) = ty
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        });
    assert_eq!(m.meta.target_range, Some((lo, hi)));
    assert!(p.iter().all(|v| (lo..=hi).contains(v)));
    let dir = tempfile::tempdir().unwrap();
    m.save(dir.path()).unwrap();
    let back = TrainedModel::load(dir.path()).unwrap();
    assert_eq!(back.meta, m.meta);
    assert_eq!(back.predict(&te).unwrap(), p);
    // A narrower range binds: every prediction inside it, some moved.
    let mut narrow = TrainedModel::load(dir.path()).unwrap();
    let (a, b) = p
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        });
    let (nlo, nhi) = (a + 0.25 * (b - a), b - 0.25 * (b - a));
    narrow.meta.target_range = Some((nlo, nhi));
    let q = narrow.predict(&te).unwrap();
    assert!(q.iter().all(|v| (nlo..=nhi).contains(v)));
    assert!(q.iter().zip(&p).any(|(q, p)| q != p));
}

/// Throughput depends on `a_clock` only through a V shape (Pearson r ≈ 0,
/// below any threshold) and on `a_load` weakly (r ≈ 0.4, selected).
fn v_shaped(seed: u64, rows: usize) -> Experiment {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut s = String::from(",input_rate,output_rate,latency,a_load,a_clock\n");
    for i in 0..rows {
        let clock: f64 = rng.gen_range(1.0e9..3.0e9);
        let load: f64 = rng.gen_range(0.0..1.0);
        let out = 1000.0 + 800.0 * ((clock - 2.0e9) / 1.0e9).abs() + 300.0 * load;
        s.push_str(&format!(
            "{i},2000,{out:.3},10,{:.0},{clock:.0}\n",
            load * 1e6
        ));
    }
    parse(
        Path::new(&format!("v-{seed}.csv")),
        s.as_bytes(),
        ConflictPolicy::Reject,
    )
    .unwrap()
    .remove(0)
}

#[test]
fn the_validation_fold_can_keep_a_counter_pearson_drops() {
    let exps = vec![v_shaped(1, 300), v_shaped(2, 300)];
    let f = Frame::build(&exps, &common_counters(&exps), Target::Throughput).unwrap();
    let s = random_60_20_20(f.len(), 3);
    let (tr, va, te) = (
        f.subset(&s.train),
        f.subset(&s.validation),
        f.subset(&s.test),
    );
    for kind in [ModelKind::Mlp, ModelKind::Gbr] {
        let mut opts = options(kind, Target::Throughput);
        opts.grid.max_epochs = 60;
        let pearson_only = train(&tr, &va, vec![], &opts).unwrap();
        assert_eq!(pearson_only.meta.features, vec!["a_load"], "{kind:?}");
        opts.grid.unfiltered = 1;
        let m = train(&tr, &va, vec![], &opts).unwrap();
        assert_eq!(m.meta.features.len(), 2, "{kind:?}: {:?}", m.meta.features);
        assert_eq!(m.meta.selection.as_ref().unwrap().threshold, 0.0);
        let acc = |m: &TrainedModel| Metrics::compute(&m.predict(&te).unwrap(), &te.y).accuracy;
        let (before, after) = (acc(&pearson_only), acc(&m));
        assert!(after > before + 0.05, "{kind:?}: {before} → {after}");
        let dir = tempfile::tempdir().unwrap();
        m.save(dir.path()).unwrap();
        let back = TrainedModel::load(dir.path()).unwrap();
        assert_eq!(back.meta, m.meta);
        assert_eq!(back.predict(&te).unwrap(), m.predict(&te).unwrap());
    }
}

#[test]
fn per_cycle_inputs_ignore_the_sample_length_and_reload_identically() {
    let (tr, va, te) = frames(Target::Throughput);
    for kind in [ModelKind::Mlp, ModelKind::Gbr] {
        let mut opts = options(kind, Target::Throughput);
        opts.grid.per_cycle = true;
        opts.grid.input_noise = vec![0.1];
        opts.grid.mixup = vec![true];
        opts.grid.linear_skip = vec![true];
        let m = train(&tr, &va, vec![], &opts).unwrap();
        let pc = m.meta.per_cycle.clone().expect("per-cycle inputs recorded");
        assert_eq!(pc.columns, vec!["fw_cycles", "nat_cycles"]);
        assert!(pc.columns.iter().all(|c| m.meta.features.contains(c)));
        let p = m.predict(&te).unwrap();
        let acc = Metrics::compute(&p, &te.y).accuracy;
        assert!(acc > 0.7, "{}: accuracy {acc}", kind.name());
        // The same sample counted over a longer period: every counter
        // scaled alike; the prediction must not move.
        let f = nfc_predictor::model::project(&te, &m.meta.features).unwrap();
        let longer: Vec<Vec<f64>> =
            f.x.iter()
                .map(|r| r.iter().map(|v| v * 1.07).collect())
                .collect();
        for (a, b) in m.predict_raw(&f.x).iter().zip(m.predict_raw(&longer)) {
            assert!((a - b).abs() <= 1e-5 * a.abs().max(1.0), "{a} vs {b}");
        }
        if kind == ModelKind::Mlp {
            let c = m.meta.mlp.clone().unwrap();
            assert!(c.linear_skip && c.mixup && c.input_noise == 0.1, "{c:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        m.save(dir.path()).unwrap();
        let back = TrainedModel::load(dir.path()).unwrap();
        assert_eq!(back.meta, m.meta);
        assert_eq!(back.predict(&te).unwrap(), p);
    }
}

/// Per-NF heads are set from the feature names and the target, saved in
/// model.json, and reload to identical predictions.
#[test]
fn per_nf_heads_are_saved_with_the_model_and_reload_identically() {
    let (tr, va, te) = frames(Target::Throughput);
    let mut opts = options(ModelKind::Mlp, Target::Throughput);
    opts.grid.per_nf_heads = true;
    opts.grid.bounded_output = true;
    opts.grid.refit_output = true;
    opts.grid.ensemble = 2;
    opts.grid.ensemble_always = true;
    let m = train(&tr, &va, vec!["synthetic".into()], &opts).unwrap();
    let c = m.meta.mlp.as_ref().unwrap();
    let heads = c.heads.as_ref().expect("per-NF heads");
    assert_eq!(heads.join, HeadJoin::SoftMinimum);
    // Every head reads only its own NF's features.
    for inputs in &heads.inputs {
        let nf = |i: &usize| m.meta.features[*i].rsplit_once('_').unwrap().0.to_string();
        let first = nf(&inputs[0]);
        assert!(
            inputs.iter().all(|i| nf(i) == first),
            "{:?}",
            m.meta.features
        );
    }
    assert_eq!(c.members, 2);
    let p = m.predict(&te).unwrap();
    assert!(Metrics::compute(&p, &te.y).accuracy > 0.8);
    let dir = tempfile::tempdir().unwrap();
    m.save(dir.path()).unwrap();
    let back = TrainedModel::load(dir.path()).unwrap();
    assert_eq!(back.meta, m.meta);
    assert_eq!(back.predict(&te).unwrap(), p);
    // A head reading an input the model does not have is refused.
    let json = dir.path().join("model.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    v["mlp"]["heads"]["inputs"][0][0] = serde_json::json!(999);
    std::fs::write(&json, v.to_string()).unwrap();
    assert!(TrainedModel::load(dir.path()).is_err());
}
