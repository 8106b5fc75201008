//! `nfc-predictor` will predict a plan's throughput and latency from counters
//! (INFOCOM'24). It is not built yet: [`predict`] says so instead of inventing
//! numbers.

use nfc_core::prediction::Prediction;

/// Errors of the predictor.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    /// The predictor stage has not been implemented in this version of nfc.
    #[error("the predict stage is not available yet")]
    NotAvailable,
}

/// Predict KPIs of a plan. Not available yet.
pub fn predict(_plan: &nfc_core::Plan) -> Result<Prediction, PredictError> {
    Err(PredictError::NotAvailable)
}
