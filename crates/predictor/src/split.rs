//! Train/validation/test splits, seeded: the paper's random 60/20/20 over
//! all samples, and leave-one-experiment-out, which is what a deployment
//! faces (the test experiment's samples are never seen in training or in
//! the hyper-parameter search).

use crate::features::Frame;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Row indices of one split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// e.g. `random 60/20/20` or `held out: <experiment>`.
    pub name: String,
    pub train: Vec<usize>,
    pub validation: Vec<usize>,
    pub test: Vec<usize>,
}

/// Shuffle rows with a seed and cut 60/20/20.
pub fn random_60_20_20(n: usize, seed: u64) -> Split {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let (a, b) = (n * 6 / 10, n * 8 / 10);
    Split {
        name: "random 60/20/20".into(),
        train: idx[..a].to_vec(),
        validation: idx[a..b].to_vec(),
        test: idx[b..].to_vec(),
    }
}

/// Leave experiments out: with `experiments` ≤ `max_folds` one fold per
/// experiment, else experiments (in order) dealt round-robin into
/// `max_folds` groups and one group held out per fold. The training
/// experiments' rows are shuffled and a quarter kept for validation.
pub fn leave_experiment_out(
    frame: &Frame,
    names: &[String],
    max_folds: usize,
    seed: u64,
) -> Vec<Split> {
    let n_exp = names.len();
    let folds = n_exp.min(max_folds.max(2));
    if n_exp < 2 {
        return vec![];
    }
    (0..folds)
        .map(|fold| {
            let held: Vec<usize> = (0..n_exp).filter(|e| e % folds == fold).collect();
            let test: Vec<usize> = (0..frame.len())
                .filter(|&i| held.contains(&frame.experiment[i]))
                .collect();
            let mut rest: Vec<usize> = (0..frame.len())
                .filter(|&i| !held.contains(&frame.experiment[i]))
                .collect();
            rest.shuffle(&mut ChaCha8Rng::seed_from_u64(seed ^ fold as u64));
            let cut = rest.len() * 3 / 4;
            Split {
                name: format!(
                    "held out: {}",
                    held.iter()
                        .map(|&e| names[e].as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                train: rest[..cut].to_vec(),
                validation: rest[cut..].to_vec(),
                test,
            }
        })
        .collect()
}

/// The experiments of a split's training and validation rows, sorted.
fn training_experiments(frame: &Frame, split: &Split) -> Vec<usize> {
    let mut exps: Vec<usize> = split
        .train
        .iter()
        .chain(&split.validation)
        .map(|&i| frame.experiment[i])
        .collect();
    exps.sort_unstable();
    exps.dedup();
    exps
}

/// The same split with its validation fold made of whole training
/// experiments instead of a random quarter of their rows: every fourth of
/// the training experiments (seeded order), at least one, when there are at
/// least four; with fewer the split is returned unchanged (holding one of
/// two or three out would take a third or more of the training rows). A
/// row-wise validation fold shares its experiments with training, so it
/// cannot see how a model does on an experiment it never saw, which is what
/// the test fold asks.
pub fn validate_by_experiment(frame: &Frame, split: &Split, seed: u64) -> Split {
    let mut exps = training_experiments(frame, split);
    if exps.len() < 4 {
        return split.clone();
    }
    exps.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let held = &exps[..exps.len() / 4];
    let (mut train, mut validation) = (vec![], vec![]);
    for &i in split.train.iter().chain(&split.validation) {
        if held.contains(&frame.experiment[i]) {
            validation.push(i);
        } else {
            train.push(i);
        }
    }
    train.sort_unstable();
    validation.sort_unstable();
    Split {
        name: split.name.clone(),
        train,
        validation,
        test: split.test.clone(),
    }
}

/// Nested leave-one-experiment-out inside a split's training experiments
/// (its training and validation rows; its test rows are never used): the
/// experiments, in order, dealt round-robin into min(#experiments,
/// `max_folds`) inner folds; each inner split tests on one inner fold's
/// whole experiments and trains on the rest, a seeded random quarter of
/// which is its validation fold (as in [`leave_experiment_out`]). A
/// validation design that faces what the test fold faces, runs it never
/// saw, for choices a row-wise validation fold cannot make (docs/predictor.md,
/// "Choosing remedies for extrapolation"). Empty with fewer than two
/// training experiments.
pub fn inner_folds(frame: &Frame, split: &Split, max_folds: usize, seed: u64) -> Vec<Split> {
    let exps = training_experiments(frame, split);
    let folds = exps.len().min(max_folds.max(2));
    if exps.len() < 2 {
        return vec![];
    }
    let mut rows: Vec<usize> = split
        .train
        .iter()
        .chain(&split.validation)
        .copied()
        .collect();
    rows.sort_unstable();
    (0..folds)
        .map(|fold| {
            let held: Vec<usize> = exps
                .iter()
                .enumerate()
                .filter(|(k, _)| k % folds == fold)
                .map(|(_, &e)| e)
                .collect();
            let test: Vec<usize> = rows
                .iter()
                .copied()
                .filter(|&i| held.contains(&frame.experiment[i]))
                .collect();
            let mut rest: Vec<usize> = rows
                .iter()
                .copied()
                .filter(|&i| !held.contains(&frame.experiment[i]))
                .collect();
            rest.shuffle(&mut ChaCha8Rng::seed_from_u64(seed ^ ((fold as u64) << 8)));
            let cut = rest.len() * 3 / 4;
            Split {
                name: format!("{} / inner {fold}", split.name),
                train: rest[..cut].to_vec(),
                validation: rest[cut..].to_vec(),
                test,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_split_is_a_seeded_partition() {
        let s = random_60_20_20(100, 7);
        assert_eq!(
            (s.train.len(), s.validation.len(), s.test.len()),
            (60, 20, 20)
        );
        let mut all: Vec<usize> = s
            .train
            .iter()
            .chain(&s.validation)
            .chain(&s.test)
            .copied()
            .collect();
        all.sort();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
        assert_eq!(s, random_60_20_20(100, 7));
        assert_ne!(s, random_60_20_20(100, 8));
    }

    #[test]
    fn held_out_experiments_never_train() {
        let frame = Frame {
            experiment: (0..30).map(|i| i % 3).collect(),
            y: vec![1.0; 30],
            ..Frame::default()
        };
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let folds = leave_experiment_out(&frame, &names, 5, 1);
        assert_eq!(folds.len(), 3);
        for (k, f) in folds.iter().enumerate() {
            assert!(f.test.iter().all(|&i| frame.experiment[i] == k));
            assert!(f
                .train
                .iter()
                .chain(&f.validation)
                .all(|&i| frame.experiment[i] != k));
            assert_eq!(f.test.len() + f.train.len() + f.validation.len(), 30);
        }
    }

    #[test]
    fn inner_folds_never_touch_the_outer_test_and_hold_out_whole_experiments() {
        let frame = Frame {
            experiment: (0..90).map(|i| i % 9).collect(),
            y: vec![1.0; 90],
            ..Frame::default()
        };
        let names: Vec<String> = (0..9).map(|e| format!("e{e}")).collect();
        for outer in leave_experiment_out(&frame, &names, 5, 1) {
            let inner = inner_folds(&frame, &outer, 4, 3);
            assert_eq!(inner.len(), 4);
            let mut tested = vec![];
            for s in &inner {
                assert!(s
                    .train
                    .iter()
                    .chain(&s.validation)
                    .chain(&s.test)
                    .all(|i| !outer.test.contains(i)));
                for &i in &s.test {
                    let e = frame.experiment[i];
                    assert!(s
                        .train
                        .iter()
                        .chain(&s.validation)
                        .all(|&j| frame.experiment[j] != e));
                }
                assert_eq!(
                    s.train.len() + s.validation.len() + s.test.len(),
                    outer.train.len() + outer.validation.len()
                );
                tested.extend(s.test.iter().copied());
            }
            tested.sort_unstable();
            let mut all: Vec<usize> = outer
                .train
                .iter()
                .chain(&outer.validation)
                .copied()
                .collect();
            all.sort_unstable();
            assert_eq!(tested, all, "every training row is tested once");
        }
    }

    #[test]
    fn validation_by_experiment_holds_out_whole_training_experiments() {
        let frame = Frame {
            experiment: (0..60).map(|i| i % 6).collect(),
            y: vec![1.0; 60],
            ..Frame::default()
        };
        let names: Vec<String> = (0..6).map(|e| format!("e{e}")).collect();
        let folds = leave_experiment_out(&frame, &names, 5, 1);
        for f in &folds {
            let g = validate_by_experiment(&frame, f, 2);
            assert_eq!(g.test, f.test);
            let exp = |rows: &[usize]| {
                let mut e: Vec<usize> = rows.iter().map(|&i| frame.experiment[i]).collect();
                e.sort_unstable();
                e.dedup();
                e
            };
            let (tr, va) = (exp(&g.train), exp(&g.validation));
            assert_eq!(va.len(), exp(&f.train).len() / 4, "{va:?}");
            assert!(va
                .iter()
                .all(|e| !tr.contains(e) && !exp(&f.test).contains(e)));
            assert_eq!(
                g.train.len() + g.validation.len(),
                f.train.len() + f.validation.len()
            );
        }
        // Three training experiments: unchanged.
        let four = Frame {
            experiment: (0..40).map(|i| i % 4).collect(),
            y: vec![1.0; 40],
            ..Frame::default()
        };
        let three = leave_experiment_out(&four, &names[..4], 5, 1);
        assert_eq!(validate_by_experiment(&four, &three[0], 2), three[0]);
    }
}
