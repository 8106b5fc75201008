//! `nfc-nfs` is the built-in NF library: C NFs written against
//! `nfs/include/nf.h`, each with its ground-truth `facts.yaml` and example
//! configs, Click-style C++ elements under `nfs/click/`, and the clang-19
//! build that turns NF sources (built-in or user) into a shared object and
//! LLVM IR. Other crates find NFs through [`catalog`] / [`builtin`], read
//! their declared facts with [`load_facts`] and configs with
//! [`load_config`], and compile them with [`build`].

mod build;
mod catalog;
mod config;
mod error;
mod facts;

pub use build::{build, clang, source_closure, BuildOptions, BuiltNf};
pub use catalog::{
    builtin, catalog, click_elements, include_dir, nfs_root, BuiltinNf, ClickElement,
};
pub use config::{load_config, parse_config};
pub use error::NfsError;
pub use facts::{load_facts, parse_facts};
