//! A minimal in-process host for NF shared objects (the nf.h ABI v1), used
//! twice by the reducer: to run `nf_init` with the real configuration and read
//! back the config globals (config propagation), and to run the original and
//! reduced chains over the same packets (proof by execution).
//!
//! NF configuration lives in globals, so every load copies the `.so` to a
//! private temporary file first: two instances of one NF never share globals.

use libloading::{Library, Symbol};
use sha2::{Digest, Sha256};
use std::ffi::{c_char, c_void, CString};
use std::path::Path;

#[repr(C)]
struct NfKv {
    key: *const c_char,
    value: *const c_char,
}

#[repr(C)]
pub struct NfConfig {
    items: *const NfKv,
    n_items: u32,
}

#[repr(C)]
pub struct NfInfo {
    abi_version: u32,
    name: *const c_char,
    n_ports: u32,
}

/// `struct nf_packet` from nf.h.
#[repr(C)]
pub struct NfPacket {
    pub data: *mut u8,
    pub len: u32,
    pub cap: u32,
    pub in_port: u32,
    pub reserved: u32,
}

/// `struct nf_ctx` from nf.h.
#[repr(C)]
pub struct NfCtx {
    pub state: *mut c_void,
    pub now_ns: u64,
    pub worker: u32,
    pub n_workers: u32,
}

type ProcessFn = unsafe extern "C" fn(*mut NfCtx, *mut NfPacket) -> i32;
type DigestEmit = unsafe extern "C" fn(*mut c_void, *const c_void, usize);
type DigestFn = unsafe extern "C" fn(*const c_void, DigestEmit, *mut c_void);

/// `nf_init` from nf.h.
pub type InitFn = unsafe extern "C" fn(*const NfConfig, *mut c_char, usize) -> i32;
/// `nf_describe` from nf.h.
pub type DescribeFn = unsafe extern "C" fn() -> *const NfInfo;

/// Call an NF's nf_init with flattened key/values; Err carries the NF's message.
///
/// # Safety
/// `f` must be the nf_init of a loaded (or JIT-compiled) NF.
pub unsafe fn call_init(f: InitFn, config: &[(String, String)]) -> Result<(), String> {
    let keys: Vec<CString> = config
        .iter()
        .map(|(k, _)| CString::new(k.as_str()).unwrap_or_default())
        .collect();
    let vals: Vec<CString> = config
        .iter()
        .map(|(_, v)| CString::new(v.as_str()).unwrap_or_default())
        .collect();
    let items: Vec<NfKv> = keys
        .iter()
        .zip(&vals)
        .map(|(k, v)| NfKv {
            key: k.as_ptr(),
            value: v.as_ptr(),
        })
        .collect();
    let cfg = NfConfig {
        items: items.as_ptr(),
        n_items: items.len() as u32,
    };
    let mut err = vec![0u8; 256];
    // SAFETY: all pointers outlive the call (caller guarantees `f`).
    let rc = unsafe { f(&cfg, err.as_mut_ptr() as *mut c_char, err.len()) };
    if rc != 0 {
        let end = err.iter().position(|&b| b == 0).unwrap_or(err.len());
        return Err(String::from_utf8_lossy(&err[..end]).into_owned());
    }
    Ok(())
}

/// (abi_version, n_ports) from an NF's nf_describe.
///
/// # Safety
/// `f` must be the nf_describe of a loaded (or JIT-compiled) NF.
pub unsafe fn call_describe(f: DescribeFn) -> Result<(u32, u32), String> {
    // SAFETY: the returned pointer is static in the NF (caller guarantees `f`).
    unsafe {
        let p = f();
        if p.is_null() {
            return Err("nf_describe returned NULL".into());
        }
        Ok(((*p).abi_version, (*p).n_ports))
    }
}

/// One loaded private copy of an NF shared object.
pub struct LoadedNf {
    lib: Library,
    _dir: tempfile::TempDir,
    process: ProcessFn,
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
    /// Copy `so` to a private file and load it.
    pub fn open(so: &Path) -> Result<Self, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
        let copy = dir.path().join(
            so.file_name()
                .unwrap_or_else(|| std::ffi::OsStr::new("nf.so")),
        );
        std::fs::copy(so, &copy).map_err(|e| format!("copy {}: {e}", so.display()))?;
        // SAFETY: loading runs the NF's constructors; NFs are trusted code compiled for this ABI.
        let lib = unsafe { Library::new(&copy) }.map_err(|e| e.to_string())?;
        // SAFETY: the signature is the one nf.h declares.
        let process = unsafe {
            let s: Symbol<ProcessFn> = lib
                .get(b"nf_process\0")
                .map_err(|e| format!("nf_process: {e}"))?;
            *s
        };
        let nf = LoadedNf {
            lib,
            _dir: dir,
            process,
        };
        let info = nf.describe()?;
        if info.0 != 1 {
            return Err(format!("ABI version {} (expected 1)", info.0));
        }
        Ok(nf)
    }

    /// (abi_version, n_ports) from nf_describe.
    pub fn describe(&self) -> Result<(u32, u32), String> {
        // SAFETY: signature from nf.h; the returned pointer is static in the NF.
        unsafe {
            let f: Symbol<unsafe extern "C" fn() -> *const NfInfo> = self
                .lib
                .get(b"nf_describe\0")
                .map_err(|e| format!("nf_describe: {e}"))?;
            let p = f();
            if p.is_null() {
                return Err("nf_describe returned NULL".into());
            }
            Ok(((*p).abi_version, (*p).n_ports))
        }
    }

    /// Call nf_init with flattened key/values; Err carries the NF's message.
    pub fn init(&self, config: &[(String, String)]) -> Result<(), String> {
        // SAFETY: signature from nf.h.
        let f = unsafe {
            *self
                .lib
                .get::<InitFn>(b"nf_init\0")
                .map_err(|e| format!("nf_init: {e}"))?
        };
        // SAFETY: `f` is this NF's nf_init.
        unsafe { call_init(f, config) }
    }

    pub fn state_size(&self) -> usize {
        // SAFETY: signature from nf.h.
        unsafe {
            match self
                .lib
                .get::<unsafe extern "C" fn() -> usize>(b"nf_state_size\0")
            {
                Ok(f) => f(),
                Err(_) => 0,
            }
        }
    }

    /// A fresh state instance, initialised by nf_state_init when exported.
    pub fn new_state(&self) -> StateBuf {
        let mut st = StateBuf::new(self.state_size());
        // SAFETY: signature from nf.h; the buffer has nf_state_size() bytes.
        unsafe {
            if let Ok(f) = self
                .lib
                .get::<unsafe extern "C" fn(*mut c_void)>(b"nf_state_init\0")
            {
                f(st.as_mut_ptr());
            }
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
        let v = unsafe { (self.process)(&mut ctx, &mut pkt) };
        frame.truncate((pkt.len as usize).min(frame.len()));
        v
    }

    /// Digest of a state instance: nf_state_digest's stream when exported,
    /// else the raw bytes (SHA-256, hex).
    pub fn digest(&self, state: &StateBuf) -> String {
        unsafe extern "C" fn emit(cb: *mut c_void, bytes: *const c_void, len: usize) {
            // SAFETY: cb is the &mut Sha256 passed below; bytes/len come from the NF.
            unsafe {
                let h = &mut *(cb as *mut Sha256);
                if !bytes.is_null() {
                    h.update(std::slice::from_raw_parts(bytes as *const u8, len));
                }
            }
        }
        let mut h = Sha256::new();
        // SAFETY: signature from nf.h.
        unsafe {
            if let Ok(f) = self.lib.get::<DigestFn>(b"nf_state_digest\0") {
                f(
                    state.bytes().as_ptr() as *const c_void,
                    emit,
                    &mut h as *mut Sha256 as *mut c_void,
                );
                return hex::encode(h.finalize());
            }
        }
        h.update(state.bytes());
        hex::encode(h.finalize())
    }

    /// Address of an exported data symbol.
    pub fn symbol_address(&self, name: &str) -> Option<*const u8> {
        let mut n = name.as_bytes().to_vec();
        n.push(0);
        // SAFETY: we only take the address, never call it.
        unsafe { self.lib.get::<*const u8>(&n).ok().map(|s| *s) }
    }

    /// Call a `void(*)(void *state, <emit>, void *cb)` digest-shaped export
    /// named `name` (the consolidated module exports per-NF digests this way).
    pub fn digest_with(&self, name: &str, state: *const c_void) -> Option<String> {
        unsafe extern "C" fn emit(cb: *mut c_void, bytes: *const c_void, len: usize) {
            // SAFETY: as in `digest`.
            unsafe {
                let h = &mut *(cb as *mut Sha256);
                if !bytes.is_null() {
                    h.update(std::slice::from_raw_parts(bytes as *const u8, len));
                }
            }
        }
        let mut n = name.as_bytes().to_vec();
        n.push(0);
        let mut h = Sha256::new();
        // SAFETY: the export has the DigestFn signature (generated by the reducer).
        unsafe {
            let f = self.lib.get::<DigestFn>(&n).ok()?;
            f(state, emit, &mut h as *mut Sha256 as *mut c_void);
        }
        Some(hex::encode(h.finalize()))
    }
}
