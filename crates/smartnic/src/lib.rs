//! `nfc-smartnic`: learned porting advice for a Netronome Agilio SmartNIC
//! (Clara, SOSP'21 §4.2 and §4.5), trained on Clara's released measurements
//! (`shared/data/clara`): how many NIC cores an NF should get (gradient-boosted
//! trees predicting throughput and latency per core count, the suggestion at the
//! knee), and which NFs colocate best (a pairwise learning-to-rank model).
//!
//! It is its own crate rather than part of `nfc-placer` because it is a
//! different kind of component: statistical models with a training data
//! format, a model file format and their own dependency (forust-ml), while
//! the placer is exact optimisation. The SmartNIC state-placement ILP, which
//! is exact, lives in the placer. Its only nfc dependency is `nfc-core`
//! (the plain insight IR types [`accel`] reads); the binary wires it
//! (`nfc smartnic …`).
//!
//! Clara §3 and §4.1 (issue 19): [`synth`] generates NF-like (and naive)
//! training programs, [`similarity`] measures how close their instruction
//! mix is to real NFs' (Table 1), [`accel`] identifies CRC and LPM code,
//! [`word_cost`] predicts compute instructions without libtorch.

pub mod clara_data;
pub mod coalesce;
pub mod colocation;
pub mod features;
pub mod models;
pub mod scale_out;

pub use clara_data::DataError;
pub mod accel;
pub mod similarity;
pub mod synth;
pub mod word_cost;
