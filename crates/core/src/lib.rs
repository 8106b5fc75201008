//! `nfc-core` holds the plain-data types that cross stage boundaries in nfc:
//! the validated chain ([`chain::ChainSpec`]), the analyzer's [`facts::Facts`],
//! the reducer's [`reduced::ReducedChain`] summary, the placer's [`plan::Plan`],
//! the predictor's [`prediction::Prediction`], and [`diag::Diagnostic`]s with
//! source [`diag::Span`]s. Every type here is serde-serialisable so each stage's
//! output can be dumped, diffed and golden-tested on its own; no LLVM,
//! tree-sitter or solver type ever appears here.

pub mod chain;
pub mod click;
pub mod diag;
pub mod facts;
pub mod insight;
pub mod plan;
pub mod prediction;
pub mod reduced;
pub mod yaml;

pub use chain::{ChainSpec, NfId};
pub use diag::{Diagnostic, Label, Severity, Span};
pub use facts::Facts;
pub use plan::Plan;
