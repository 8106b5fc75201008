//! The predictor's output: expected throughput and latency of a plan.

use serde::{Deserialize, Serialize};

/// Predicted KPIs of a deployed chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub throughput_mpps: f64,
    pub latency_us: f64,
    /// Which model produced the numbers.
    pub model: String,
    /// The NF the model says limits the chain.
    #[serde(default)]
    pub bottleneck: Option<String>,
    /// The model's measured relative error on chains it was not fitted on
    /// (|predicted − measured| / measured, the largest).
    #[serde(default)]
    pub error: Option<f64>,
    /// The data the model was calibrated on.
    #[serde(default)]
    pub data: Option<String>,
    /// The features per NF the prediction used (name, value).
    #[serde(default)]
    pub features: Vec<(String, Vec<(String, f64)>)>,
}
