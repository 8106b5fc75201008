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

use nfc_core::prediction::Prediction;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// libtorch's random generator and thread count are process-wide: two
/// trainings at once (tests run in parallel, a library user's threads)
/// would draw from one generator in an interleaved order, and a seed would
/// no longer fix the network. Each seeded training holds this for its
/// whole run, from `manual_seed` to its last step.
fn torch_training() -> MutexGuard<'static, ()> {
    static TRAINING: Mutex<()> = Mutex::new(());
    // A training that panicked leaves nothing behind that the next needs.
    TRAINING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Errors of the predictor.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    /// The predictor stage of `nfc build` has no counters to predict from.
    #[error("the predict stage is not available yet")]
    NotAvailable,
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

/// Predict KPIs of a plan before deployment. Not available: the models here
/// predict from counters measured on a running chain.
pub fn predict(_plan: &nfc_core::Plan) -> Result<Prediction, PredictError> {
    Err(PredictError::NotAvailable)
}
