//! nfc compiles network-function chains. This library is what the `nfc`
//! binary calls, and what you embed to run nfc's stages from your own Rust
//! code: [`pipeline::Pipeline`] loads and validates a chain, analyzes its NFs,
//! reduces them, places and proves the plan, and emits a target, checking
//! each stage's output; [`driver`] holds the stage functions it calls. Every
//! stage's output is plain data from [`nfc_core`].
//!
//! ```
//! use nfc::driver;
//! // Validate a chain written inline (files work the same way with `load_chain`).
//! let yaml = "nfs:\n  - {id: fw, nf: firewall}\n  - {id: fwd, nf: l2fwd}\nchain: [fw, fwd]\n";
//! let chain = driver::parse_chain_text(yaml, "inline.yaml").expect("valid chain");
//! assert_eq!(chain.nfs.len(), 2);
//! assert_eq!(chain.successors("fw")[0].1 .0, "fwd");
//! // Bad input is a list of diagnostics, never a panic.
//! let err = driver::parse_chain_text("nfs:\n  - {id: x, nf: no_such_nf}\n", "bad.yaml").unwrap_err();
//! assert!(matches!(err, nfc::Failure::Diagnostics(ref d) if d[0].code == "E0011"));
//! ```

pub mod codes;
pub mod driver;
pub mod emit;
pub mod insight;
pub mod monitor;
pub mod online;
pub mod pipeline;
pub mod plan_proof;
pub mod prediction;
pub mod profile;
pub mod reduce;

pub use nfc_core as core;
use nfc_core::Diagnostic;

/// Why a driver call failed.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The input has problems; each diagnostic says where and how to fix it (exit code 1).
    #[error("{} problem(s) in the input", .0.len())]
    Diagnostics(Vec<Diagnostic>),
    /// A file or process operation failed for reasons outside the input (exit code 2).
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// A stage failed internally (exit code 2).
    #[error("{stage}: {message}")]
    Internal {
        stage: &'static str,
        message: String,
    },
}

impl Failure {
    /// One error diagnostic.
    pub fn diag(d: Diagnostic) -> Self {
        Failure::Diagnostics(vec![d])
    }
    /// The plain answer of a stage that is not built yet (never invented output).
    pub fn not_available(stage: &str) -> Self {
        Failure::diag(
            Diagnostic::error("E0900", format!("the {stage} stage is not available yet"))
                .with_hint("this version of nfc does not implement it; see ARCHITECTURE.md for the stage status"),
        )
    }
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Failure::Io {
            context: context.into(),
            source,
        }
    }
}
