//! The C ABI of `nfs/include/nf.h` (version 1) as `#[repr(C)]` Rust types
//! and function-pointer types, and [`NfLibrary`]: one NF shared object loaded
//! privately (its own copy of the file, so its configuration globals are its
//! own), checked against the ABI version and initialised with its config.

use super::ExecError;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// `NF_ABI_VERSION` this runtime speaks.
pub const NF_ABI_VERSION: u32 = 1;
/// `NF_DROP`.
pub const NF_DROP: i32 = -1;

/// `struct nf_packet`.
#[repr(C)]
#[derive(Debug)]
pub struct NfPacket {
    pub data: *mut u8,
    pub len: u32,
    pub cap: u32,
    pub in_port: u32,
    pub reserved: u32,
}

/// `struct nf_ctx`.
#[repr(C)]
#[derive(Debug)]
pub struct NfCtx {
    pub state: *mut c_void,
    pub now_ns: u64,
    pub worker: u32,
    pub n_workers: u32,
}

/// `struct nf_kv`.
#[repr(C)]
#[derive(Debug)]
struct NfKv {
    key: *const c_char,
    value: *const c_char,
}

/// `struct nf_config`.
#[repr(C)]
#[derive(Debug)]
struct NfConfig {
    items: *const NfKv,
    n_items: u32,
}

/// `struct nf_info`.
#[repr(C)]
#[derive(Debug)]
struct NfInfo {
    abi_version: u32,
    name: *const c_char,
    n_ports: u32,
}

type DescribeFn = unsafe extern "C" fn() -> *const NfInfo;
type InitFn = unsafe extern "C" fn(*const NfConfig, *mut c_char, usize) -> c_int;
type StateSizeFn = unsafe extern "C" fn() -> usize;
pub type StateInitFn = unsafe extern "C" fn(*mut c_void);
pub type ProcessFn = unsafe extern "C" fn(*mut NfCtx, *mut NfPacket) -> i32;
pub type EmitFn = unsafe extern "C" fn(*mut c_void, *const c_void, usize);
pub type DigestFn = unsafe extern "C" fn(*const c_void, EmitFn, *mut c_void);
type FiniFn = unsafe extern "C" fn();

/// Longest error message an NF may write from `nf_init`.
const INIT_ERR_LEN: usize = 512;

static COPY_SEQ: AtomicU64 = AtomicU64::new(0);

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
    _config: (Vec<CString>, Vec<NfKv>),
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

fn sym<T: Copy>(lib: &libloading::os::unix::Library, name: &str) -> Option<T> {
    let mut cname = name.as_bytes().to_vec();
    cname.push(0);
    // SAFETY: T is the function-pointer type nf.h declares for this symbol.
    unsafe { lib.get::<T>(&cname).ok().map(|s| *s) }
}

/// Copy `so` to a fresh file in `scratch` and return its path. A private
/// copy has its own inode, so the dynamic loader maps it (and its globals)
/// separately from any other instance of the same NF.
fn private_copy(nf: &str, so: &Path, scratch: &Path) -> Result<PathBuf, ExecError> {
    let seq = COPY_SEQ.fetch_add(1, Ordering::Relaxed);
    let stem: String = nf
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(40)
        .collect();
    let dst = scratch.join(format!("nfc-exec-{}-{seq}-{stem}.so", std::process::id()));
    std::fs::copy(so, &dst).map_err(|e| ExecError::Load {
        nf: nf.to_string(),
        path: so.to_path_buf(),
        message: format!("cannot copy to {}: {e}", dst.display()),
    })?;
    Ok(dst)
}

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
        let copy = private_copy(nf, so, scratch)?;
        // RTLD_NOW reports unresolved symbols here instead of crashing later.
        // SAFETY: loading runs the object's constructors; NF objects are
        // trusted code the operator asked to run.
        let opened = unsafe {
            libloading::os::unix::Library::open(Some(&copy), libc::RTLD_NOW | libc::RTLD_LOCAL)
        };
        // The mapping outlives the file; remove the copy at once so nothing is left behind.
        let _ = std::fs::remove_file(&copy);
        let lib = opened.map_err(|e| ExecError::Load {
            nf: nf.to_string(),
            path: so.to_path_buf(),
            message: e.to_string(),
        })?;
        let need = |name: &'static str| ExecError::MissingSymbol {
            nf: nf.to_string(),
            symbol: name,
        };
        let describe: DescribeFn = sym(&lib, "nf_describe").ok_or_else(|| need("nf_describe"))?;
        let init: InitFn = sym(&lib, "nf_init").ok_or_else(|| need("nf_init"))?;
        let state_size: StateSizeFn =
            sym(&lib, "nf_state_size").ok_or_else(|| need("nf_state_size"))?;
        let process: ProcessFn = sym(&lib, "nf_process").ok_or_else(|| need("nf_process"))?;
        // SAFETY: nf_describe takes no arguments and returns a static description or NULL.
        let info = unsafe { describe() };
        if info.is_null() {
            return Err(ExecError::Abi {
                nf: nf.to_string(),
                message: "nf_describe returned NULL".into(),
            });
        }
        // SAFETY: non-null pointer to a static struct nf_info per the ABI.
        let info = unsafe { &*info };
        if info.abi_version != NF_ABI_VERSION {
            return Err(ExecError::AbiVersion {
                nf: nf.to_string(),
                found: info.abi_version,
                expected: NF_ABI_VERSION,
            });
        }
        let name = if info.name.is_null() {
            nf.to_string()
        } else {
            // SAFETY: the ABI makes `name` a NUL-terminated static string.
            unsafe { CStr::from_ptr(info.name) }
                .to_string_lossy()
                .into_owned()
        };

        let mut strings = Vec::with_capacity(config.len() * 2);
        for (k, v) in config {
            let bad = || ExecError::BadConfig {
                nf: nf.to_string(),
                key: k.clone(),
            };
            strings.push(CString::new(k.as_str()).map_err(|_| bad())?);
            strings.push(CString::new(v.as_str()).map_err(|_| bad())?);
        }
        let items: Vec<NfKv> = strings
            .chunks(2)
            .map(|kv| NfKv {
                key: kv[0].as_ptr(),
                value: kv[1].as_ptr(),
            })
            .collect();
        let cfg = NfConfig {
            items: items.as_ptr(),
            n_items: items.len() as u32,
        };
        let mut err = vec![0 as c_char; INIT_ERR_LEN];
        // SAFETY: cfg and its strings are valid for the call (and after); err has INIT_ERR_LEN bytes.
        let rc = unsafe { init(&cfg, err.as_mut_ptr(), INIT_ERR_LEN) };
        if rc != 0 {
            err[INIT_ERR_LEN - 1] = 0;
            // SAFETY: err is NUL-terminated (forced above).
            let msg = unsafe { CStr::from_ptr(err.as_ptr()) }
                .to_string_lossy()
                .into_owned();
            let message = if msg.is_empty() {
                format!("nf_init returned {rc} without a message")
            } else {
                msg
            };
            return Err(ExecError::Init {
                nf: nf.to_string(),
                message,
            });
        }
        // The port count may depend on the configuration (e.g. one port per
        // configured backend), so read the description again after nf_init.
        // SAFETY: as above; the description is static in the library.
        let info = unsafe { describe() };
        if info.is_null() {
            return Err(ExecError::Abi {
                nf: nf.to_string(),
                message: "nf_describe returned NULL after nf_init".into(),
            });
        }
        // SAFETY: non-null pointer to the library's struct nf_info.
        let n_ports = unsafe { (*info).n_ports }.max(1);
        // SAFETY: takes no arguments.
        let size = unsafe { state_size() };
        Ok(NfLibrary {
            name,
            n_ports,
            state_size: size,
            process,
            state_init: sym(&lib, "nf_state_init"),
            state_digest: sym(&lib, "nf_state_digest"),
            fini: sym(&lib, "nf_fini"),
            _config: (strings, items),
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

unsafe extern "C" fn emit_into_sha(cb: *mut c_void, bytes: *const c_void, len: usize) {
    use sha2::Digest;
    if cb.is_null() || (bytes.is_null() && len > 0) {
        return;
    }
    // SAFETY: cb is the &mut Sha256 passed by `digest_state`; bytes/len come from the NF.
    let hasher = unsafe { &mut *cb.cast::<sha2::Sha256>() };
    if len > 0 {
        // SAFETY: the NF promises `len` readable bytes at `bytes`.
        hasher.update(unsafe { std::slice::from_raw_parts(bytes.cast::<u8>(), len) });
    }
}

/// SHA-256 of one state instance: over what `nf_state_digest` emits when the
/// NF exports it, else over the raw bytes.
pub fn digest_state(lib: &NfLibrary, block: &StateBlock) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    match lib.state_digest {
        Some(f) => {
            // SAFETY: block holds a state instance of this NF; the callback
            // receives &mut h for the duration of the call only.
            unsafe {
                f(
                    block.ptr().cast_const(),
                    emit_into_sha,
                    (&mut h as *mut sha2::Sha256).cast(),
                )
            };
        }
        None => h.update(block.bytes()),
    }
    h.finalize().into()
}
