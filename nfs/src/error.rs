//! The crate's error type: every fallible function of `nfc-nfs` returns
//! [`NfsError`], which names the file or NF involved and, for compiler
//! failures, carries clang's stderr.

use std::path::PathBuf;

/// Errors of the NF library.
#[derive(Debug, thiserror::Error)]
pub enum NfsError {
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A YAML file is not well-formed YAML.
    #[error("{}: invalid YAML: {message}", path.display())]
    Yaml { path: PathBuf, message: String },
    /// A `facts.yaml` file is well-formed YAML but not a valid facts record.
    #[error("{}: invalid facts: {message}", path.display())]
    InvalidFacts { path: PathBuf, message: String },
    /// A config file is well-formed YAML but not a valid NF configuration.
    #[error("{}: invalid config: {message}", path.display())]
    InvalidConfig { path: PathBuf, message: String },
    /// clang-19 is not installed where nfc looks for it.
    #[error("clang-19 not found (looked in {searched}); run `cargo xtask setup` to install it")]
    ClangNotFound { searched: String },
    /// The NF was given no source files to compile.
    #[error("NF `{nf}`: no source files to build")]
    NoSources { nf: String },
    /// clang (or llvm-link) rejected the sources.
    #[error("NF `{nf}`: compilation failed: {command}\n{stderr}")]
    Compile {
        nf: String,
        command: String,
        stderr: String,
    },
}

impl NfsError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        NfsError::Io {
            path: path.into(),
            source,
        }
    }
}
