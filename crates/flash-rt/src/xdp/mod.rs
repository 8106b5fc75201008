//! The AF_XDP layer of the on-line runtime: shared memory (memfd UMEMs and
//! mappings), AF_XDP sockets and their four kernel rings, and the XDP
//! redirect program (clang-built, loaded with aya). The monitor uses the
//! privileged half (create memfds and sockets, register UMEMs, bind, attach
//! XDP, fill XSKMAPs); NF hosts use the unprivileged half (map the fds they
//! were handed and drive the rings).

pub mod loadgen;
pub mod mem;
pub mod program;
pub mod ring;
pub mod socket;

use std::path::PathBuf;

/// Errors of the on-line runtime (monitor, NF hosts, AF_XDP plumbing).
#[derive(Debug, thiserror::Error)]
pub enum FlashError {
    /// The deployment is unreadable or invalid.
    #[error(transparent)]
    Deploy(#[from] crate::deploy::DeployError),
    /// A system call failed.
    #[error("{what}: {source}")]
    Sys {
        /// What the runtime was doing.
        what: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// An interface named in the deployment does not exist.
    #[error(
        "interface `{ifname}` (deployment name `{name}`) does not exist in this network namespace"
    )]
    NoInterface {
        /// Logical name from the deployment.
        name: String,
        /// Kernel interface name.
        ifname: String,
    },
    /// Loading or attaching the XDP program failed.
    #[error("XDP program on `{ifname}`: {message}")]
    Xdp {
        /// Interface.
        ifname: String,
        /// What went wrong.
        message: String,
    },
    /// The monitor refused an NF host or a stats client.
    #[error("monitor refused the request: {0}")]
    Refused(String),
    /// A monitor/NF-host message was malformed.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// Could not connect to the monitor socket. (Front ends add how to
    /// start the monitor in their own terms.)
    #[error("cannot reach the monitor at {path}: {source}")]
    Connect {
        /// Socket path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The NF shared object failed to load or initialise (the message,
    /// from the loader, names the NF).
    #[error("{message}")]
    Nf {
        /// NF id.
        nf: String,
        /// Loader / nf_init message.
        message: String,
    },
    /// The NF host could not enter its sandbox (seccomp).
    #[error(transparent)]
    Sandbox(#[from] crate::host::sandbox::SandboxError),
    /// The NF id is not part of the deployment.
    #[error("no NF `{0}` in the deployment")]
    UnknownNf(String),
}

impl FlashError {
    /// Wrap the last OS error with a description.
    pub fn last_os(what: impl Into<String>) -> FlashError {
        FlashError::Sys {
            what: what.into(),
            source: std::io::Error::last_os_error(),
        }
    }
}

/// Result alias for the on-line runtime.
pub type Result<T, E = FlashError> = std::result::Result<T, E>;
