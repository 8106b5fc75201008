//! The reducer's error type: every way a reduction can fail, typed, so the
//! driver can turn each into a diagnostic (or, with `best_effort`, fall back
//! to the unreduced chain).

use std::path::PathBuf;

/// Why a reduction failed.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError {
    /// The chain to reduce was empty.
    #[error("no NFs to reduce")]
    EmptyChain,
    /// An NF input names neither C sources nor LLVM IR.
    #[error("NF `{nf}` has no sources and no .ll to reduce")]
    NoInput { nf: String },
    /// Reading or writing a file failed.
    #[error("{what} `{path}`: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// clang-19 could not be started or rejected an input.
    #[error("clang-19 failed on NF `{nf}`: {message}")]
    Compile { nf: String, message: String },
    /// LLVM could not parse the textual IR of an NF.
    #[error("LLVM IR of NF `{nf}` does not parse: {message}")]
    Parse { nf: String, message: String },
    /// The IR failed LLVM's verifier (on input, or after a pass).
    #[error("LLVM verifier rejected {stage} for `{nf}`: {message}")]
    Verify {
        nf: String,
        stage: String,
        message: String,
    },
    /// The NF does not follow the nf.h ABI the reducer relies on.
    #[error("NF `{nf}`: {message}")]
    Abi { nf: String, message: String },
    /// nf_init rejected the configuration (message from the NF's `err` buffer).
    #[error("NF `{nf}` rejected its configuration: {message}")]
    Config { nf: String, message: String },
    /// Loading a shared object failed.
    #[error("cannot load `{path}`: {message}")]
    Load { path: PathBuf, message: String },
    /// An LLVM pass pipeline failed to run.
    #[error("LLVM pass pipeline `{pipeline}` failed: {message}")]
    Llvm { pipeline: String, message: String },
    /// `dump_after` names a pass that is not in the pipeline.
    #[error("unknown pass `{0}` for dump_after")]
    UnknownPass(String),
    /// The reduced chain behaved differently from the original on a packet.
    #[error("reduced chain differs from the original: {detail}")]
    Mismatch { detail: String },
}

impl ReduceError {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ReduceError::Io {
            what,
            path: path.into(),
            source,
        }
    }
}
