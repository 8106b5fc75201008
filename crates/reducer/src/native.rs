//! A minimal in-process host for NF shared objects (the nf.h ABI v1), used
//! twice by the reducer: to run `nf_init` with the real configuration and read
//! back the config globals (config propagation), and to run the original and
//! reduced chains over the same packets (proof by execution).
//!
//! NF configuration lives in globals, so every load copies the `.so` to a
//! private temporary file first: two instances of one NF never share globals.

use nfc_net::abi::{self as nf, EntryPoints, NfCtx, NfPacket, OwnedConfig, NF_ABI_VERSION};
use std::ffi::c_void;
use std::path::Path;

pub use nfc_net::abi::{DescribeFn, InitFn};

/// Call an NF's nf_init with flattened key/values; Err carries the NF's message.
///
/// # Safety
/// `f` must be the nf_init of a loaded (or JIT-compiled) NF.
pub unsafe fn call_init(f: InitFn, config: &[(String, String)]) -> Result<(), String> {
    let cfg = OwnedConfig::new(config).map_err(|e| e.to_string())?;
    // SAFETY: the caller guarantees `f`.
    unsafe { nf::init(f, &cfg) }.map_err(|e| e.to_string())
}

/// (abi_version, n_ports) from an NF's nf_describe.
///
/// # Safety
/// `f` must be the nf_describe of a loaded (or JIT-compiled) NF.
pub unsafe fn call_describe(f: DescribeFn) -> Result<(u32, u32), String> {
    // SAFETY: the caller guarantees `f`.
    unsafe { nf::describe(f) }
        .map(|d| (d.abi_version, d.n_ports))
        .map_err(|e| e.to_string())
}

/// One loaded private copy of an NF shared object.
pub struct LoadedNf {
    lib: libloading::os::unix::Library,
    entry: EntryPoints,
}

/// Zeroed, 16-byte aligned state instance.
pub struct StateBuf {
    words: Vec<u128>,
    len: usize,
}

impl StateBuf {
    pub fn new(len: usize) -> Self {
        StateBuf {
            words: vec![0u128; len.div_ceil(16).max(1)],
            len,
        }
    }
    pub fn as_mut_ptr(&mut self) -> *mut c_void {
        self.words.as_mut_ptr() as *mut c_void
    }
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the Vec holds at least `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
    }
}

impl LoadedNf {
    /// Load a private copy of `so` (its globals are its own).
    pub fn open(so: &Path) -> Result<Self, String> {
        let tag = so
            .file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default();
        let lib = nf::open_private(so, &std::env::temp_dir(), &tag).map_err(|e| e.to_string())?;
        let entry = EntryPoints::resolve(&lib).map_err(|e| e.to_string())?;
        let nf = LoadedNf { lib, entry };
        let info = nf.describe()?;
        if info.0 != NF_ABI_VERSION {
            return Err(format!(
                "ABI version {} (expected {NF_ABI_VERSION})",
                info.0
            ));
        }
        Ok(nf)
    }

    /// (abi_version, n_ports) from nf_describe.
    pub fn describe(&self) -> Result<(u32, u32), String> {
        // SAFETY: this object's nf_describe.
        unsafe { call_describe(self.entry.describe) }
    }

    /// Call nf_init with flattened key/values; Err carries the NF's message.
    pub fn init(&self, config: &[(String, String)]) -> Result<(), String> {
        // SAFETY: this object's nf_init.
        unsafe { call_init(self.entry.init, config) }
    }

    pub fn state_size(&self) -> usize {
        // SAFETY: this object's nf_state_size; it takes no arguments.
        unsafe { (self.entry.state_size)() }
    }

    /// A fresh state instance, initialised by nf_state_init when exported.
    pub fn new_state(&self) -> StateBuf {
        let mut st = StateBuf::new(self.state_size());
        if let Some(f) = self.entry.state_init {
            // SAFETY: a zeroed buffer of nf_state_size() bytes, as nf_state_init expects.
            unsafe { f(st.as_mut_ptr()) };
        }
        st
    }

    /// Process one packet in place; returns the verdict.
    pub fn process(
        &self,
        state: &mut StateBuf,
        now_ns: u64,
        frame: &mut Vec<u8>,
        cap: usize,
        in_port: u32,
    ) -> i32 {
        let len = frame.len();
        frame.resize(cap.max(len), 0);
        let mut pkt = NfPacket {
            data: frame.as_mut_ptr(),
            len: len as u32,
            cap: frame.len() as u32,
            in_port,
            reserved: 0,
        };
        let mut ctx = NfCtx {
            state: state.as_mut_ptr(),
            now_ns,
            worker: 0,
            n_workers: 1,
        };
        // SAFETY: the ABI contract: the NF touches only data[0..cap) and its state.
        let v = unsafe { (self.entry.process)(&mut ctx, &mut pkt) };
        frame.truncate((pkt.len as usize).min(frame.len()));
        v
    }

    /// Digest of a state instance: nf_state_digest's stream when exported,
    /// else the raw bytes (SHA-256, hex).
    pub fn digest(&self, state: &StateBuf) -> String {
        // SAFETY: the digest is this NF's and the buffer one of its instances.
        hex::encode(unsafe { nf::digest_state(self.entry.state_digest, state.bytes()) })
    }

    /// Address of an exported data symbol.
    pub fn symbol_address(&self, name: &str) -> Option<*const u8> {
        // SAFETY: we only take the address, never call it.
        unsafe { nf::symbol::<*const u8>(&self.lib, name) }
    }

    /// Call a `void(*)(void *state, <emit>, void *cb)` digest-shaped export
    /// named `name` (the consolidated module exports per-NF digests this way).
    pub fn digest_with(&self, name: &str, state: *const c_void) -> Option<String> {
        // SAFETY: the export has the DigestFn signature (generated by the reducer).
        let f = unsafe { nf::symbol::<nf::DigestFn>(&self.lib, name) }?;
        // SAFETY: `state` is an instance of the consolidated module's state.
        Some(hex::encode(unsafe { nf::digest_with(f, state) }))
    }
}
