//! The compute-instruction models on small seeded data (fast; the real
//! comparison on synthesised programs and held-out NFs is the bench's).
//! Units are built here with a known cost per word plus a context effect
//! (a `load` right after a `store` is free, as a forwarded value would be), so
//! a model that does not learn fails.

use nfc_core::insight::{InstrClass, IrBlock, IrFunction, IrUnit, ProxyCounts};
use nfc_predictor::insight::{
    evaluate, evaluate_models, samples, Arch, LstmShape, SeqModel, TrainConfig,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const WORDS: [(&str, u32); 6] = [
    ("add i32 i32 const", 1),
    ("load i32 ptr", 1),
    ("store i32 ptr", 1),
    ("mul i32 i32 i32", 3),
    ("br cond", 2),
    ("call fw:nf_parse a2", 6),
];

fn unit(name: &str, rng: &mut ChaCha8Rng, functions: usize) -> IrUnit {
    let mut fs = vec![];
    for fi in 0..functions {
        let mut blocks = vec![];
        let mut cost = 2; // prologue and return
        for bi in 0..rng.gen_range(1..4) {
            let mut words = vec![];
            let mut prev = "";
            for _ in 0..rng.gen_range(2..12) {
                let (w, c) = WORDS[rng.gen_range(0..WORDS.len())];
                cost += if w.starts_with("load") && prev.starts_with("store") {
                    0
                } else {
                    c
                };
                words.push(w.to_string());
                prev = w;
            }
            let n = words.len();
            blocks.push(IrBlock {
                name: format!("b{bi}"),
                words,
                classes: vec![InstrClass::Compute; n],
                memory_words: 0,
            });
        }
        fs.push(IrFunction {
            name: format!("f{fi}"),
            framework: false,
            blocks,
            proxy: Some(ProxyCounts {
                instructions: cost,
                memory: 0,
            }),
            callees: vec![],
            signals: Default::default(),
            inlined_blocks: vec![],
            behaviour: None,
        });
    }
    IrUnit {
        name: name.into(),
        target: "riscv32-unknown-elf".into(),
        functions: fs,
    }
}

fn data(seed: u64) -> (Vec<IrUnit>, Vec<IrUnit>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let synth = (0..40)
        .map(|i| unit(&format!("p{i}"), &mut rng, 3))
        .collect();
    let held = (0..3)
        .map(|i| unit(&format!("nf{i}"), &mut rng, 4))
        .collect();
    (synth, held)
}

fn cfg() -> TrainConfig {
    TrainConfig {
        hidden: 12,
        epochs: 12,
        batch: 16,
        learning_rate: 1e-2,
        seed: 7,
        progress: false,
        patience: 0,
        lr_decay: 1.0,
        hidden_grid: vec![],
        lstm: LstmShape::default(),
        clip: 0.0,
    }
}

#[test]
fn models_learn_costs_and_are_scored_per_held_out_nf() {
    let (synth, held) = data(1);
    let (eval, _) = evaluate(&synth, &held, &cfg(), None).expect("trains");
    eprintln!("WMAPE {:?}", eval.overall);
    assert_eq!(eval.per_nf.len(), 3);
    assert_eq!(eval.vocabulary, WORDS.len() + 2);
    for m in ["LSTM", "DNN", "CNN", "GBDT"] {
        assert!(eval.overall[m].is_finite(), "{m}: {:?}", eval.overall);
    }
    // Predicting every function's mean cost scores ≈ 40% here; learning must do much better.
    assert!(eval.overall["LSTM"] < 0.15, "LSTM WMAPE {:?}", eval.overall);
    // Every validation and held-out function is listed once, with every
    // model's prediction, and its held-out errors are the per-NF figures'.
    let held_rows: Vec<_> = eval
        .functions
        .iter()
        .filter(|r| r.set == "heldout")
        .collect();
    let n_held: usize = eval.per_nf.iter().map(|n| n.functions).sum();
    assert_eq!(held_rows.len(), n_held);
    assert_eq!(eval.functions.len() - held_rows.len(), eval.val_functions);
    for r in &eval.functions {
        assert_eq!(r.predictions.len(), 4, "{r:?}");
        assert!(r.words > 0 && r.blocks > 0 && r.longest_block <= r.words);
    }
    let nf = &eval.per_nf[0];
    let (err, y) = held_rows
        .iter()
        .filter(|r| r.unit == nf.nf)
        .fold((0.0, 0.0), |(e, t), r| {
            (e + (r.predictions["LSTM"] - r.y).abs(), t + r.y)
        });
    assert!((err / y - nf.wmape["LSTM"]).abs() < 1e-12);
}

#[test]
fn same_input_same_prediction_after_save_and_load() {
    let (synth, held) = data(2);
    let dir = tempfile::tempdir().expect("tmp");
    let (_, lstm) = evaluate(
        &synth,
        &held,
        &TrainConfig { epochs: 3, ..cfg() },
        Some(dir.path()),
    )
    .expect("trains");
    let s = samples(&held, &lstm.vocab, true);
    let a = lstm.predict(&s);
    let loaded = SeqModel::load(dir.path(), Arch::Lstm).expect("loads");
    assert_eq!(a, loaded.predict(&s));
    assert_eq!(loaded.predict(&s), loaded.predict(&s));
    // Per-block predictions add up to the function's.
    let blocks = loaded.predict_blocks(&s[0]).expect("lstm predicts blocks");
    assert!((blocks.iter().sum::<f64>() - a[0]).abs() < 1e-3 * a[0].abs().max(1.0));
    // A directory without a model is a typed error, not a panic.
    assert!(SeqModel::load(&dir.path().join("nope"), Arch::Lstm).is_err());
}

#[test]
fn seeded_training_is_reproducible() {
    let (synth, held) = data(3);
    let c = TrainConfig { epochs: 2, ..cfg() };
    let (a, _) = evaluate(&synth, &held, &c, None).expect("trains");
    let (b, _) = evaluate(&synth, &held, &c, None).expect("trains");
    assert_eq!(a.overall, b.overall);
}

#[test]
fn early_stopping_and_the_hidden_grid_are_chosen_on_validation() {
    let (synth, held) = data(4);
    let c = TrainConfig {
        epochs: 30,
        patience: 2,
        lr_decay: 0.5,
        hidden_grid: vec![4, 12],
        ..cfg()
    };
    let (eval, lstm) = evaluate(&synth, &held, &c, None).expect("trains");
    for m in ["LSTM", "DNN", "CNN"] {
        let tried = &eval.selection[m];
        assert_eq!(tried.len(), 2, "{m}: {tried:?}");
        let best = tried
            .iter()
            .map(|t| t.val_wmape)
            .fold(f64::INFINITY, f64::min);
        assert_eq!(eval.validation[m].0, best, "{m} keeps the best candidate");
    }
    assert_eq!(eval.selection["GBDT"].len(), 6);
    // Early stopping: training ended `patience` epochs after the kept epoch
    // (or at the last epoch).
    assert!(
        lstm.epochs_run == c.epochs || lstm.epochs_run == lstm.best_epoch + c.patience,
        "ran {} epochs, kept {}",
        lstm.epochs_run,
        lstm.best_epoch
    );
    assert!(eval.overall["LSTM"] < 0.2, "{:?}", eval.overall);
}

#[test]
fn lstm_shapes_round_trip_and_bad_specs_are_errors() {
    for spec in [
        "block",
        "function",
        "function,block-readout",
        "function,bidir,layers2,embed32,block-readout",
        "block,unk5",
        "block,function-term",
    ] {
        let s = LstmShape::parse(spec).expect(spec);
        assert_eq!(s.spec(), spec);
    }
    assert_eq!(LstmShape::parse("").unwrap(), LstmShape::default());
    for bad in [
        "funktion",
        "layers0",
        "embedx",
        "layers99999",
        "unk0",
        "unk51",
    ] {
        let e = LstmShape::parse(bad).expect_err(bad);
        assert!(e.contains(bad), "{e}");
    }
}

#[test]
fn function_sequence_lstm_with_block_readout_learns_and_reloads() {
    let (synth, held) = data(5);
    let dir = tempfile::tempdir().expect("tmp");
    let c = TrainConfig {
        lstm: LstmShape::parse("function,bidir,block-readout").unwrap(),
        clip: 1.0,
        ..cfg()
    };
    let (eval, lstm) =
        evaluate_models(&synth, &held, &c, Some(dir.path()), &["LSTM"]).expect("trains");
    assert_eq!(eval.overall.keys().collect::<Vec<_>>(), ["LSTM"]);
    // Predicting every function's mean cost scores ≈ 40% here.
    assert!(eval.overall["LSTM"] < 0.15, "{:?}", eval.overall);
    let lstm = lstm.expect("the LSTM was trained");
    let s = samples(&held, &lstm.vocab, true);
    let a = lstm.predict(&s);
    let loaded = SeqModel::load(dir.path(), Arch::Lstm).expect("loads");
    assert_eq!(loaded.config.lstm, c.lstm);
    assert_eq!(a, loaded.predict(&s));
    for (i, s) in s.iter().enumerate() {
        let blocks = loaded.predict_blocks(s).expect("lstm predicts blocks");
        assert_eq!(blocks.len(), s.blocks.len());
        assert!((blocks.iter().sum::<f64>() - a[i]).abs() < 1e-3 * a[i].abs().max(1.0));
    }
    // An unknown model name is a typed error, not a panic.
    assert!(evaluate_models(&synth, &held, &c, None, &["RNN"]).is_err());
}
