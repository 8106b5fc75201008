//! The predictor's output: expected throughput and latency of a plan.

use serde::{Deserialize, Serialize};

/// Predicted KPIs of a deployed chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub throughput_mpps: f64,
    pub latency_us: f64,
    /// Which model produced the numbers.
    pub model: String,
}
