//! The C ABI of `nfs/include/nf.h` (version 1): the one Rust mirror of its
//! structs and entry points, and the calls every host of NF shared objects
//! makes the same way (load a private copy, resolve the entry points,
//! describe, init with a configuration, digest a state instance).
//!
//! `tests/abi_layout.rs` compiles a small C program against the header with
//! clang-19 and checks every size and field offset here against it.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// `NF_ABI_VERSION`.
pub const NF_ABI_VERSION: u32 = 1;
/// `NF_DROP`.
pub const NF_DROP: i32 = -1;
/// Bytes of the error buffer hosts pass to `nf_init`.
pub const INIT_ERR_LEN: usize = 512;

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
pub struct NfKv {
    pub key: *const c_char,
    pub value: *const c_char,
}

/// `struct nf_config`.
#[repr(C)]
#[derive(Debug)]
pub struct NfConfig {
    pub items: *const NfKv,
    pub n_items: u32,
}

/// `struct nf_info`.
#[repr(C)]
#[derive(Debug)]
pub struct NfInfo {
    pub abi_version: u32,
    pub name: *const c_char,
    pub n_ports: u32,
}

/// `nf_describe`.
pub type DescribeFn = unsafe extern "C" fn() -> *const NfInfo;
/// `nf_init`.
pub type InitFn = unsafe extern "C" fn(*const NfConfig, *mut c_char, usize) -> c_int;
/// `nf_state_size`.
pub type StateSizeFn = unsafe extern "C" fn() -> usize;
/// `nf_state_init`.
pub type StateInitFn = unsafe extern "C" fn(*mut c_void);
/// `nf_process`.
pub type ProcessFn = unsafe extern "C" fn(*mut NfCtx, *mut NfPacket) -> i32;
/// The `emit` callback `nf_state_digest` feeds.
pub type EmitFn = unsafe extern "C" fn(*mut c_void, *const c_void, usize);
/// `nf_state_digest`.
pub type DigestFn = unsafe extern "C" fn(*const c_void, EmitFn, *mut c_void);
/// `nf_fini`.
pub type FiniFn = unsafe extern "C" fn();

/// Why an NF object could not be loaded or called.
#[derive(Debug, thiserror::Error)]
pub enum AbiError {
    /// The private copy could not be made.
    #[error("cannot copy {} to {}: {source}", so.display(), copy.display())]
    Copy {
        so: PathBuf,
        copy: PathBuf,
        source: std::io::Error,
    },
    /// dlopen failed.
    #[error("{0}")]
    Open(String),
    /// A required entry point is not exported.
    #[error("missing symbol `{0}`")]
    MissingSymbol(&'static str),
    /// `nf_describe` returned NULL.
    #[error("nf_describe returned NULL")]
    NullInfo,
    /// A configuration key or value holds a NUL byte.
    #[error("configuration key `{0}` (or its value) contains a NUL byte")]
    BadConfig(String),
    /// `nf_init` failed; the message is the NF's own.
    #[error("{message}")]
    Init { rc: c_int, message: String },
}

static COPY_SEQ: AtomicU64 = AtomicU64::new(0);

/// File-name prefix of an NF's private copy (`<prefix><pid>-<seq>-<tag>.so`):
/// profiles (callgrind's per-object costs) tell NFs apart by it.
pub const PRIVATE_COPY_PREFIX: &str = "nfc-nf-";

/// Copy `so` into `scratch` under a fresh name, dlopen the copy (RTLD_NOW, so
/// unresolved symbols are reported here rather than crash later; RTLD_LOCAL)
/// and remove the file again. A private copy has its own inode, so the
/// loader maps it, and its configuration globals, apart from every other
/// instance of the same NF. `tag` goes into the file name (for debugging).
pub fn open_private(
    so: &Path,
    scratch: &Path,
    tag: &str,
) -> Result<libloading::os::unix::Library, AbiError> {
    let seq = COPY_SEQ.fetch_add(1, Ordering::Relaxed);
    let stem: String = tag
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(40)
        .collect();
    let copy = scratch.join(format!(
        "{PRIVATE_COPY_PREFIX}{}-{seq}-{stem}.so",
        std::process::id()
    ));
    std::fs::copy(so, &copy).map_err(|source| AbiError::Copy {
        so: so.to_path_buf(),
        copy: copy.clone(),
        source,
    })?;
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    // SAFETY: loading runs the object's constructors; NF objects are trusted
    // code the operator asked to run.
    let opened = unsafe { Library::open(Some(&copy), RTLD_NOW | RTLD_LOCAL) };
    // The mapping outlives the file; remove the copy at once so nothing is left behind.
    let _ = std::fs::remove_file(&copy);
    opened.map_err(|e| AbiError::Open(e.to_string()))
}

/// A function or data symbol of `lib`, if exported.
///
/// # Safety
/// `T` must be the type the object defines for `name`.
pub unsafe fn symbol<T: Copy>(lib: &libloading::os::unix::Library, name: &str) -> Option<T> {
    let mut cname = name.as_bytes().to_vec();
    cname.push(0);
    // SAFETY: the caller guarantees T.
    unsafe { lib.get::<T>(&cname).ok().map(|s| *s) }
}

/// The entry points of one loaded NF object.
#[derive(Debug, Clone, Copy)]
pub struct EntryPoints {
    pub describe: DescribeFn,
    pub init: InitFn,
    pub state_size: StateSizeFn,
    pub process: ProcessFn,
    pub state_init: Option<StateInitFn>,
    pub state_digest: Option<DigestFn>,
    pub fini: Option<FiniFn>,
}

impl EntryPoints {
    /// Resolve the required and optional entry points nf.h declares.
    pub fn resolve(lib: &libloading::os::unix::Library) -> Result<Self, AbiError> {
        // SAFETY: each type is the one nf.h declares for the symbol.
        unsafe {
            Ok(EntryPoints {
                describe: symbol(lib, "nf_describe")
                    .ok_or(AbiError::MissingSymbol("nf_describe"))?,
                init: symbol(lib, "nf_init").ok_or(AbiError::MissingSymbol("nf_init"))?,
                state_size: symbol(lib, "nf_state_size")
                    .ok_or(AbiError::MissingSymbol("nf_state_size"))?,
                process: symbol(lib, "nf_process").ok_or(AbiError::MissingSymbol("nf_process"))?,
                state_init: symbol(lib, "nf_state_init"),
                state_digest: symbol(lib, "nf_state_digest"),
                fini: symbol(lib, "nf_fini"),
            })
        }
    }
}

/// What `nf_describe` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    pub abi_version: u32,
    /// `None` when the NF's name pointer is NULL.
    pub name: Option<String>,
    pub n_ports: u32,
}

/// Call `nf_describe`.
///
/// # Safety
/// `f` must be the `nf_describe` of a loaded (or JIT-compiled) NF.
pub unsafe fn describe(f: DescribeFn) -> Result<Description, AbiError> {
    // SAFETY: the caller guarantees `f`; the result is NULL or a static struct.
    let info = unsafe { f() };
    if info.is_null() {
        return Err(AbiError::NullInfo);
    }
    // SAFETY: non-null pointer to a static struct nf_info per the ABI.
    let info = unsafe { &*info };
    let name = (!info.name.is_null()).then(|| {
        // SAFETY: the ABI makes `name` a NUL-terminated static string.
        unsafe { CStr::from_ptr(info.name) }
            .to_string_lossy()
            .into_owned()
    });
    Ok(Description {
        abi_version: info.abi_version,
        name,
        n_ports: info.n_ports,
    })
}

/// A configuration as `nf_init` takes it, with the strings it points into.
/// Keep it alive as long as the NF is loaded: an NF may keep pointers to its
/// configuration strings in its globals.
#[derive(Debug)]
pub struct OwnedConfig {
    _strings: Vec<CString>,
    items: Vec<NfKv>,
}

// SAFETY: the pointers in `items` point into `_strings`, owned and never mutated.
unsafe impl Send for OwnedConfig {}
unsafe impl Sync for OwnedConfig {}

impl OwnedConfig {
    /// Flattened key/values; a NUL byte in a key or value names the key.
    pub fn new(config: &[(String, String)]) -> Result<Self, AbiError> {
        let mut strings = Vec::with_capacity(config.len() * 2);
        for (k, v) in config {
            let bad = || AbiError::BadConfig(k.clone());
            strings.push(CString::new(k.as_str()).map_err(|_| bad())?);
            strings.push(CString::new(v.as_str()).map_err(|_| bad())?);
        }
        let items = strings
            .chunks(2)
            .map(|kv| NfKv {
                key: kv[0].as_ptr(),
                value: kv[1].as_ptr(),
            })
            .collect();
        Ok(OwnedConfig {
            _strings: strings,
            items,
        })
    }

    /// The `struct nf_config` pointing into this configuration.
    pub fn raw(&self) -> NfConfig {
        NfConfig {
            items: self.items.as_ptr(),
            n_items: self.items.len() as u32,
        }
    }
}

/// Call `nf_init` with `config`; a non-zero return is [`AbiError::Init`]
/// with the NF's message (or a note that it wrote none).
///
/// # Safety
/// `f` must be the `nf_init` of a loaded (or JIT-compiled) NF.
pub unsafe fn init(f: InitFn, config: &OwnedConfig) -> Result<(), AbiError> {
    let cfg = config.raw();
    let mut err = vec![0 as c_char; INIT_ERR_LEN];
    // SAFETY: cfg and its strings are valid for the call (and after); err has INIT_ERR_LEN bytes.
    let rc = unsafe { f(&cfg, err.as_mut_ptr(), INIT_ERR_LEN) };
    if rc == 0 {
        return Ok(());
    }
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
    Err(AbiError::Init { rc, message })
}

unsafe extern "C" fn emit_into_sha(cb: *mut c_void, bytes: *const c_void, len: usize) {
    use sha2::Digest;
    if cb.is_null() || (bytes.is_null() && len > 0) {
        return;
    }
    // SAFETY: cb is the &mut Sha256 passed by `digest`; bytes/len come from the NF.
    let hasher = unsafe { &mut *cb.cast::<sha2::Sha256>() };
    if len > 0 {
        // SAFETY: the NF promises `len` readable bytes at `bytes`.
        hasher.update(unsafe { std::slice::from_raw_parts(bytes.cast::<u8>(), len) });
    }
}

/// SHA-256 of one state instance: over what `digest` (an `nf_state_digest`,
/// or a digest-shaped export of a reduced module) emits when given, else over
/// the raw `bytes`.
///
/// # Safety
/// `digest` must have the [`DigestFn`] signature and `bytes` must be the state
/// instance it reads.
pub unsafe fn digest_state(digest: Option<DigestFn>, bytes: &[u8]) -> [u8; 32] {
    match digest {
        // SAFETY: the caller guarantees `f` and the instance.
        Some(f) => unsafe { digest_with(f, bytes.as_ptr().cast()) },
        None => {
            use sha2::Digest;
            sha2::Sha256::digest(bytes).into()
        }
    }
}

/// SHA-256 of what the digest-shaped function `f` emits for `state`.
///
/// # Safety
/// `f` must have the [`DigestFn`] signature and `state` point at an instance
/// of the state it reads.
pub unsafe fn digest_with(f: DigestFn, state: *const c_void) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    // SAFETY: the caller guarantees `f`; the callback gets &mut h for the call only.
    unsafe { f(state, emit_into_sha, (&mut h as *mut sha2::Sha256).cast()) };
    h.finalize().into()
}
