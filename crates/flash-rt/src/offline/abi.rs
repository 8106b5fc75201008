//! The C ABI of `nfs/include/nf.h` (version 1) as `#[repr(C)]` Rust types
//! and function-pointer types, and [`NfLibrary`]: one NF shared object loaded
//! privately (its own copy of the file, so its configuration globals are its
//! own), checked against the ABI version and initialised with its config.

use super::ExecError;
use nfc_net::abi::{self as nf, AbiError, EntryPoints, FiniFn, OwnedConfig};
pub use nfc_net::abi::{
    DigestFn, EmitFn, NfCtx, NfPacket, ProcessFn, StateInitFn, NF_ABI_VERSION, NF_DROP,
};
use std::ffi::c_void;
use std::path::Path;

/// A loaded and initialised NF shared object.
pub struct NfLibrary {
    pub name: String,
    pub n_ports: u32,
    pub state_size: usize,
    pub process: ProcessFn,
    pub state_init: Option<StateInitFn>,
    pub state_digest: Option<DigestFn>,
    fini: Option<FiniFn>,
    /// Configuration strings stay alive for the library's lifetime: an NF may
    /// keep pointers to them in its globals.
    _config: OwnedConfig,
    lib: Option<libloading::os::unix::Library>,
}

impl std::fmt::Debug for NfLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NfLibrary")
            .field("name", &self.name)
            .field("n_ports", &self.n_ports)
            .finish()
    }
}

// SAFETY: the library's entry points are plain C functions; configuration is
// read-only after nf_init, so calling nf_process from several threads on
// distinct (or lock-protected) state instances is what the ABI specifies.
unsafe impl Send for NfLibrary {}
unsafe impl Sync for NfLibrary {}

impl NfLibrary {
    /// Load `so` for the NF instance `nf`, check the ABI and run `nf_init`
    /// with `config`.
    pub fn load(
        nf: &str,
        so: &Path,
        config: &[(String, String)],
        scratch: &Path,
    ) -> Result<Self, ExecError> {
        if !so.is_file() {
            return Err(ExecError::MissingSo {
                nf: nf.to_string(),
                path: so.to_path_buf(),
            });
        }
        let lib = nf::open_private(so, scratch, nf).map_err(|e| ExecError::Load {
            nf: nf.to_string(),
            path: so.to_path_buf(),
            message: match e {
                AbiError::Copy { copy, source, .. } => {
                    format!("cannot copy to {}: {source}", copy.display())
                }
                other => other.to_string(),
            },
        })?;
        let entry = EntryPoints::resolve(&lib).map_err(|e| match e {
            AbiError::MissingSymbol(symbol) => ExecError::MissingSymbol {
                nf: nf.to_string(),
                symbol,
            },
            other => ExecError::Abi {
                nf: nf.to_string(),
                message: other.to_string(),
            },
        })?;
        // SAFETY: `describe` is this object's nf_describe.
        let info = unsafe { nf::describe(entry.describe) }.map_err(|e| ExecError::Abi {
            nf: nf.to_string(),
            message: e.to_string(),
        })?;
        if info.abi_version != NF_ABI_VERSION {
            return Err(ExecError::AbiVersion {
                nf: nf.to_string(),
                found: info.abi_version,
                expected: NF_ABI_VERSION,
            });
        }
        let name = info.name.unwrap_or_else(|| nf.to_string());
        let config = OwnedConfig::new(config).map_err(|e| match e {
            AbiError::BadConfig(key) => ExecError::BadConfig {
                nf: nf.to_string(),
                key,
            },
            other => ExecError::Abi {
                nf: nf.to_string(),
                message: other.to_string(),
            },
        })?;
        // SAFETY: `init` is this object's nf_init.
        unsafe { nf::init(entry.init, &config) }.map_err(|e| ExecError::Init {
            nf: nf.to_string(),
            message: e.to_string(),
        })?;
        // The port count may depend on the configuration (e.g. one port per
        // configured backend), so read the description again after nf_init.
        // SAFETY: as above.
        let info = unsafe { nf::describe(entry.describe) }.map_err(|_| ExecError::Abi {
            nf: nf.to_string(),
            message: "nf_describe returned NULL after nf_init".into(),
        })?;
        // SAFETY: takes no arguments.
        let size = unsafe { (entry.state_size)() };
        Ok(NfLibrary {
            name,
            n_ports: info.n_ports.max(1),
            state_size: size,
            process: entry.process,
            state_init: entry.state_init,
            state_digest: entry.state_digest,
            fini: entry.fini,
            _config: config,
            lib: Some(lib),
        })
    }
}

impl Drop for NfLibrary {
    fn drop(&mut self) {
        if let Some(fini) = self.fini {
            // SAFETY: nf_fini takes no arguments; the library is still mapped.
            unsafe { fini() };
        }
        if let Some(lib) = self.lib.take() {
            let _ = lib.close();
        }
    }
}

/// One zero-initialised, 64-byte-aligned state instance.
pub struct StateBlock {
    ptr: *mut u8,
    layout: std::alloc::Layout,
    size: usize,
}

// SAFETY: the block is plain memory; the executor guarantees a block is used
// by one thread at a time (shared-nothing) or under its lock (shared).
unsafe impl Send for StateBlock {}
unsafe impl Sync for StateBlock {}

impl std::fmt::Debug for StateBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StateBlock({} bytes)", self.size)
    }
}

impl StateBlock {
    /// Allocate `size` zeroed bytes (at least one, so the pointer is never NULL).
    pub fn new(size: usize) -> Result<Self, ExecError> {
        let layout = std::alloc::Layout::from_size_align(size.max(1), 64)
            .map_err(|_| ExecError::StateAlloc { bytes: size })?;
        // SAFETY: layout has non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(ExecError::StateAlloc { bytes: size });
        }
        Ok(StateBlock { ptr, layout, size })
    }

    pub fn ptr(&self) -> *mut c_void {
        self.ptr.cast()
    }

    /// Zero the block and run `nf_state_init` on it.
    pub fn reset(&mut self, init: Option<StateInitFn>) {
        // SAFETY: ptr points to layout.size() writable bytes.
        unsafe { std::ptr::write_bytes(self.ptr, 0, self.layout.size()) };
        if let Some(init) = init {
            // SAFETY: a zeroed instance of nf_state_size() bytes, as nf_state_init expects.
            unsafe { init(self.ptr.cast()) };
        }
    }

    /// The state bytes (the NF's nf_state_size(), possibly 0).
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: ptr is valid for `size` bytes; no NF call runs while this borrow lives.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size) }
    }
}

impl Drop for StateBlock {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}

/// SHA-256 of one state instance: over what `nf_state_digest` emits when the
/// NF exports it, else over the raw bytes.
pub fn digest_state(lib: &NfLibrary, block: &StateBlock) -> [u8; 32] {
    // SAFETY: the digest (if any) is this NF's nf_state_digest and the block
    // one of its state instances.
    unsafe { nf::digest_state(lib.state_digest, block.bytes()) }
}
