//! `nfc-predictor` predicts a chain's throughput and latency from per-NF
//! hardware counters, after "Non-invasive performance prediction of
//! high-speed softwarized network services with limited knowledge"
//! (INFOCOM'24): counter CSVs ([`data`]) → Pearson-selected, standardised
//! features ([`features`]) → an MLP in tch ([`mlp`]), gradient boosting
//! (forust-ml) or least squares ([`linear`]) ([`model`]), evaluated on the
//! paper's random 60/20/20 split and leave-one-experiment-out ([`split`]),
//! explained by permutation importance and Shapley values and a PCA view
//! ([`explain`]), drawn as SVG ([`plot`]).
//!
//! The compiler's predict stage ([`predict`]) needs counters of the chain
//! being built, which `nfc build` does not have before deployment: it says so
//! instead of inventing numbers (live prediction is a later stage).

pub mod data;
pub mod explain;
pub mod features;
pub mod insight;
pub mod linear;
pub mod metrics;
pub mod mlp;
pub mod model;
pub mod plot;
pub mod split;

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// libtorch's random generator and thread count are process-wide: two
/// trainings at once (tests run in parallel, a library user's threads)
/// would draw from one generator in an interleaved order, and a seed would
/// no longer fix the network. Each seeded training holds this for its
/// whole run, from `manual_seed` to its last step, and so does every
/// construction of a network (its initial weights are drawn from the
/// generator even when a load or copy overwrites them next: a model loaded
/// on one thread while another trains would move that training's draws).
/// Re-entrant on one thread: a training constructs networks while holding
/// it.
fn torch_training() -> TorchGuard {
    static TRAINING: Mutex<()> = Mutex::new(());
    thread_local! {
        static HELD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if HELD.with(|h| h.get()) {
        return TorchGuard(None);
    }
    // A training that panicked leaves nothing behind that the next needs.
    let guard = TRAINING.lock().unwrap_or_else(|e| e.into_inner());
    HELD.with(|h| h.set(true));
    TorchGuard(Some((guard, &HELD)))
}

/// Held while libtorch's generator is in use (see [`torch_training`]);
/// `None` when an outer guard on the same thread already holds it.
struct TorchGuard(
    Option<(
        MutexGuard<'static, ()>,
        &'static std::thread::LocalKey<std::cell::Cell<bool>>,
    )>,
);

impl Drop for TorchGuard {
    fn drop(&mut self) {
        if let Some((_, held)) = &self.0 {
            held.with(|h| h.set(false));
        }
    }
}

/// Errors of the predictor.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    #[error(transparent)]
    Data(#[from] data::DataError),
    #[error("the data has no column `{0}`, which the model was trained with")]
    MissingFeature(String),
    #[error(transparent)]
    MissingInExperiment(#[from] features::MissingFeature),
    #[error("{0} training samples with a measured target: too few to train")]
    TooFewSamples(usize),
    #[error("{0}")]
    Model(String),
    #[error("{0}: not a model nfc can read: {1}")]
    BadModel(PathBuf, String),
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
}
