//! Measured memory accesses per state object (Clara §4.3–4.4 inputs): an IR
//! instrumentation pass and a run of the instrumented NF over packets.
//!
//! The NF's unoptimised IR (what `nfc_nfs::build` writes next to its `.so`)
//! is optimised with LLVM's `default<O2>` (the code the NF really runs), then
//! every load, store, atomic and memory builtin (`llvm.mem*`, `memcmp`,
//! `bcmp`, `memcpy`, `memmove`, `memset`) gets a call to a hook first, with
//! the address, the byte count, load/store and the id of its basic block;
//! every basic block also reports its entry. The instrumented module is
//! compiled to a shared object and run in process (the reducer's nf.h host,
//! [`crate::native`]) over the packets; the hook classifies each address
//! exactly, by address range, so no static pointer analysis can be wrong:
//!
//! - inside the state instance: the top-level member of the NF's state
//!   struct at that offset (the struct whose DWARF size is `nf_state_size()`,
//!   members and offsets from the IR's debug info);
//! - inside a global: that global (the addresses come from a table the pass
//!   adds to the module);
//! - inside the packet buffer: packet data;
//! - anything else (stack, the per-call context, thread-local scratch): other.
//!
//! Only accesses made inside `nf_process` count (init and state init are not
//! per-packet). Per object it reports loads, stores and bytes per packet, the
//! vector of accesses per basic block (the input of access coalescing), and
//! per packet the number of distinct 64-byte cache lines of state and globals
//! touched; per NF the executed instructions per packet split into compute
//! and memory. [`Pack`] optionally rewrites globals into one 64-byte-aligned
//! struct per cluster first, so the same measurement runs on a packed
//! variant; [`build_so`] builds either variant uninstrumented (for cachegrind).
//!
//! Limits: accesses inside other external calls (none in nf.h NFs on the
//! packet path besides the builtins above) are not seen; the counts are those
//! of this host's `default<O2>` code, not of a Netronome compiler's.

use crate::error::ReduceError;
use crate::ir;
use crate::llvm_util::{self, Builder, Opcode, Val};
use crate::native::LoadedNf;
use crate::packets::TestPacket;
use inkwell::context::Context;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Headroom frames may grow into (as in the differential check).
const CAP_SLACK: usize = 256;
/// Cache line used for line-touch counts.
pub const LINE: u64 = 64;

const HOOK: &str = "__nfc_ap_hook";
const TABLE: &str = "__nfc_ap_globals";
const ACCESS_FN: &str = "__nfc_ap_access";
const KIND_LOAD: u32 = 0;
const KIND_STORE: u32 = 1;
const KIND_BLOCK: u32 = 2;

/// Clusters of global names to pack into one struct each (may be empty).
pub type Pack = [Vec<String>];

/// Where an object lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    /// A top-level member of the NF's state struct (per-flow state).
    State,
    /// A global variable (configuration, tables, counters).
    Global,
}

/// Measured accesses to one object.
#[derive(Debug, Clone, Serialize)]
pub struct ObjectAccesses {
    pub name: String,
    pub kind: ObjectKind,
    /// Byte offset in the state instance (state members) or 0.
    pub offset: u64,
    pub bytes: u64,
    pub loads_per_packet: f64,
    pub stores_per_packet: f64,
    pub bytes_per_packet: f64,
    /// Accesses per basic block over the run: (block index into
    /// [`AccessProfile::blocks`], count), blocks with no access omitted.
    pub per_block: Vec<(u32, u64)>,
}

/// Accesses per packet of one class of memory that is not a state object.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ClassAccesses {
    pub loads_per_packet: f64,
    pub stores_per_packet: f64,
}

/// What one instrumented run measured for one NF.
#[derive(Debug, Clone, Serialize)]
pub struct AccessProfile {
    pub nf: String,
    /// Packets the NF processed.
    pub packets: u64,
    /// Packets it forwarded (non-drop verdicts).
    pub forwarded: u64,
    pub state_size: u64,
    /// Name of the state struct found in the debug info (None: stateless,
    /// or no struct of `nf_state_size()` bytes; then the whole instance is one object `state`).
    pub state_struct: Option<String>,
    /// State members and globals, in layout order (state first).
    pub objects: Vec<ObjectAccesses>,
    pub packet_data: ClassAccesses,
    /// Stack, context and thread-local scratch.
    pub other: ClassAccesses,
    /// Executed LLVM instructions per packet (after `default<O2>`), all of them.
    pub instructions_per_packet: f64,
    /// Of those, instructions that are not memory accesses, calls or phis.
    pub compute_per_packet: f64,
    /// Distinct 64-byte lines of state and globals touched per packet (state
    /// lines counted from a line-aligned instance, as a runtime allocates it).
    pub lines_per_packet: f64,
    /// `function:index (file:line)` of every basic block, by block id.
    pub blocks: Vec<String>,
    /// Structs this run packed globals into: (struct name, members).
    pub packed: Vec<(String, Vec<String>)>,
}

/// A profile and the frames the NF forwarded (the next NF's input).
#[derive(Debug)]
pub struct Profiled {
    pub profile: AccessProfile,
    pub forwarded: Vec<TestPacket>,
}

/// How to build the instrumented NF.
#[derive(Debug, Clone)]
pub struct ProfileOptions {
    pub clang: PathBuf,
    /// Scratch directory for the instrumented `.ll`/`.so` (must exist).
    pub work_dir: PathBuf,
}

impl Default for ProfileOptions {
    fn default() -> Self {
        ProfileOptions {
            clang: PathBuf::from("clang-19"),
            work_dir: std::env::temp_dir(),
        }
    }
}

// ------------------------------------------------------------- debug info

/// A top-level member of the state struct.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    pub offset: u64,
    pub size: u64,
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let i = line.find(key)? + key.len();
    let rest = &line[i..];
    if let Some(r) = rest.strip_prefix('"') {
        return r.find('"').map(|e| &r[..e]);
    }
    let end = rest.find([',', ')']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// The members of the struct of `state_size` bytes in the IR's debug info:
/// (struct name, members). Several candidates: one named `*state*` wins.
pub fn state_members(ll_text: &str, state_size: u64) -> Option<(String, Vec<Member>)> {
    let mut nodes: HashMap<&str, &str> = HashMap::new();
    for line in ll_text.lines() {
        if let Some((id, body)) = line.split_once(" = ") {
            if id.starts_with('!') {
                nodes.insert(id.trim(), body);
            }
        }
    }
    let bits = (state_size * 8).to_string();
    let mut candidates: Vec<(&str, &str)> = nodes
        .values()
        .filter(|b| b.contains("!DICompositeType(tag: DW_TAG_structure_type"))
        .filter(|b| field(b, "size: ") == Some(bits.as_str()) && b.contains("elements: "))
        .filter_map(|b| Some((field(b, "name: ")?, *b)))
        .collect();
    candidates.sort_by_key(|(n, _)| (!n.contains("state"), n.to_string()));
    let (name, body) = candidates.first()?;
    let elems = nodes.get(field(body, "elements: ")?)?;
    let list = elems.trim().trim_start_matches('!').trim_start_matches('{');
    let list = list.trim_end_matches('}');
    let mut members = vec![];
    for id in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some(m) = nodes.get(id) else { continue };
        if !m.contains("tag: DW_TAG_member") {
            continue;
        }
        let parse = |k: &str| field(m, k).and_then(|v| v.parse::<u64>().ok());
        members.push(Member {
            name: field(m, "name: ").unwrap_or("?").to_string(),
            offset: parse("offset: ").unwrap_or(0) / 8,
            size: parse("size: ").unwrap_or(0) / 8,
        });
    }
    if members.is_empty() {
        return None;
    }
    Some((name.to_string(), members))
}

// ---------------------------------------------------------- the IR passes

fn cstr(s: &str) -> std::ffi::CString {
    std::ffi::CString::new(s).unwrap_or_default()
}

fn i32_const(ctx: inkwell::llvm_sys::prelude::LLVMContextRef, v: u64) -> LLVMValueRef {
    unsafe { c::LLVMConstInt(c::LLVMInt32TypeInContext(ctx), v, 0) }
}

/// Globals the profile can name: defined, not thread-local, not LLVM's own,
/// not string literals.
fn nameable_globals(m: LLVMModuleRef) -> Vec<Val> {
    llvm_util::globals(m)
        .into_iter()
        .filter(|g| {
            let n = g.name();
            !g.is_declaration()
                && unsafe { c::LLVMIsThreadLocal(g.0) } == 0
                && !n.starts_with("llvm.")
                && !n.starts_with(".str")
                && !n.starts_with("__nfc_ap_")
                && !n.is_empty()
        })
        .collect()
}

/// A struct a cluster of globals was packed into.
#[derive(Debug, Clone)]
pub struct PackedStruct {
    pub name: String,
    pub members: Vec<String>,
    pub bytes: u64,
}

/// Move each cluster's globals into one 64-byte-aligned struct global
/// (fields by decreasing alignment, then name, each at its global's own
/// alignment), replacing every use with the
/// field's address. Globals not found (or without an initializer) are
/// skipped; a cluster with fewer than two packable globals is left alone.
/// The structs have external linkage with hidden visibility, so no later
/// global optimisation splits them again and no access goes through the GOT.
fn pack_globals(m: LLVMModuleRef, clusters: &Pack) -> Vec<PackedStruct> {
    let by_name: BTreeMap<String, Val> = nameable_globals(m)
        .into_iter()
        .map(|g| (g.name(), g))
        .collect();
    let mut out = vec![];
    for (ci, cluster) in clusters.iter().enumerate() {
        let mut gs: Vec<Val> = cluster
            .iter()
            .filter_map(|n| by_name.get(n).copied())
            .filter(|g| g.global_initializer().is_some())
            .collect();
        gs.dedup();
        if gs.len() < 2 {
            continue;
        }
        unsafe {
            let dl = inkwell::llvm_sys::target::LLVMGetModuleDataLayout(m);
            gs.sort_by_key(|g| {
                let a =
                    inkwell::llvm_sys::target::LLVMABIAlignmentOfType(dl, g.global_value_type());
                (std::cmp::Reverse(a), g.name())
            });
            let ctx = c::LLVMGetModuleContext(m);
            let i8t = c::LLVMInt8TypeInContext(ctx);
            // A packed LLVM struct with explicit padding, so every field keeps
            // the alignment its global had (the optimised code relies on it,
            // e.g. aligned vector moves), not only its type's ABI alignment.
            let mut tys: Vec<LLVMTypeRef> = vec![];
            let mut inits: Vec<LLVMValueRef> = vec![];
            let mut field = vec![];
            let mut off = 0u64;
            let mut max_align = LINE;
            for g in &gs {
                let ty = g.global_value_type();
                let a = u64::from(c::LLVMGetAlignment(g.0))
                    .max(u64::from(
                        inkwell::llvm_sys::target::LLVMABIAlignmentOfType(dl, ty),
                    ))
                    .max(1);
                max_align = max_align.max(a);
                let aligned = off.div_ceil(a) * a;
                if aligned > off {
                    let pad = c::LLVMArrayType2(i8t, aligned - off);
                    tys.push(pad);
                    inits.push(c::LLVMConstNull(pad));
                }
                field.push(tys.len() as u64);
                tys.push(ty);
                inits.push(
                    g.global_initializer()
                        .map(|v| v.0)
                        .unwrap_or_else(|| c::LLVMConstNull(ty)),
                );
                off = aligned + llvm_util::type_store_size(m, ty);
            }
            let st = c::LLVMStructTypeInContext(ctx, tys.as_mut_ptr(), tys.len() as u32, 1);
            let init = c::LLVMConstStructInContext(ctx, inits.as_mut_ptr(), inits.len() as u32, 1);
            let name = format!("__nfc_pack_{ci}");
            let ng = c::LLVMAddGlobal(m, st, cstr(&name).as_ptr());
            c::LLVMSetInitializer(ng, init);
            c::LLVMSetAlignment(ng, max_align as u32);
            // Hidden: addressed PC-relative like the internal globals it
            // replaces (no GOT load), yet not local, so no later global
            // optimisation splits it again.
            c::LLVMSetVisibility(ng, inkwell::llvm_sys::LLVMVisibility::LLVMHiddenVisibility);
            let i32t = c::LLVMInt32TypeInContext(ctx);
            let members: Vec<String> = gs.iter().map(|g| g.name()).collect();
            for (g, &fi) in gs.iter().zip(&field) {
                let mut idx = [c::LLVMConstInt(i32t, 0, 0), c::LLVMConstInt(i32t, fi, 0)];
                let addr = c::LLVMConstInBoundsGEP2(st, ng, idx.as_mut_ptr(), 2);
                c::LLVMReplaceAllUsesWith(g.0, addr);
                c::LLVMDeleteGlobal(g.0);
            }
            out.push(PackedStruct {
                name,
                members,
                bytes: llvm_util::type_store_size(m, st),
            });
        }
    }
    out
}

/// What the instrumentation pass recorded about the module.
struct Instrumented {
    /// Nameable globals in table order: (name, bytes).
    globals: Vec<(String, u64)>,
    blocks: Vec<String>,
    /// Instructions per block: (all, compute).
    block_insts: Vec<(u64, u64)>,
}

fn memory_builtin(call: Val) -> Option<(&'static str, String)> {
    let f = call.called_function()?;
    let n = f.name();
    let kind = if n.starts_with("llvm.memcpy")
        || n.starts_with("llvm.memmove")
        || n == "memcpy"
        || n == "memmove"
    {
        "copy"
    } else if n.starts_with("llvm.memset") || n == "memset" {
        "set"
    } else if n == "memcmp" || n == "bcmp" {
        "cmp"
    } else {
        return None;
    };
    Some((kind, n))
}

fn is_debug_call(i: Val) -> bool {
    i.opcode() == Some(Opcode::LLVMCall)
        && i.called_function().is_some_and(|f| {
            f.name().starts_with("llvm.dbg") || f.name().starts_with("llvm.lifetime")
        })
}

/// Add the hook, the globals table and a hook call before every access and
/// at every block entry.
fn instrument(m: LLVMModuleRef) -> Instrumented {
    let defined: Vec<Val> = llvm_util::functions(m)
        .into_iter()
        .filter(|f| !f.is_declaration())
        .collect();
    let globals = nameable_globals(m);
    unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let ptr = c::LLVMPointerTypeInContext(ctx, 0);
        let i64t = c::LLVMInt64TypeInContext(ctx);
        let i32t = c::LLVMInt32TypeInContext(ctx);
        let void = c::LLVMVoidTypeInContext(ctx);
        // The hook pointer the host fills in.
        let hook = c::LLVMAddGlobal(m, ptr, cstr(HOOK).as_ptr());
        c::LLVMSetInitializer(hook, c::LLVMConstPointerNull(ptr));
        // The address table.
        let mut addrs: Vec<LLVMValueRef> = globals.iter().map(|g| g.0).collect();
        let arr_t = c::LLVMArrayType2(ptr, addrs.len() as u64);
        let table = c::LLVMAddGlobal(m, arr_t, cstr(TABLE).as_ptr());
        c::LLVMSetInitializer(
            table,
            c::LLVMConstArray2(ptr, addrs.as_mut_ptr(), addrs.len() as u64),
        );
        // void __nfc_ap_access(ptr, i64, i32 kind, i32 block): calls the hook when set.
        let mut params = [ptr, i64t, i32t, i32t];
        let fty = c::LLVMFunctionType(void, params.as_mut_ptr(), 4, 0);
        let access = c::LLVMAddFunction(m, cstr(ACCESS_FN).as_ptr(), fty);
        c::LLVMSetLinkage(access, inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        {
            let entry = c::LLVMAppendBasicBlockInContext(ctx, access, c"entry".as_ptr());
            let call = c::LLVMAppendBasicBlockInContext(ctx, access, c"call".as_ptr());
            let done = c::LLVMAppendBasicBlockInContext(ctx, access, c"done".as_ptr());
            let b = c::LLVMCreateBuilderInContext(ctx);
            c::LLVMPositionBuilderAtEnd(b, entry);
            let h = c::LLVMBuildLoad2(b, ptr, hook, c"h".as_ptr());
            let isnull = c::LLVMBuildIsNull(b, h, c"n".as_ptr());
            c::LLVMBuildCondBr(b, isnull, done, call);
            c::LLVMPositionBuilderAtEnd(b, call);
            let mut args: Vec<LLVMValueRef> = (0..4).map(|i| c::LLVMGetParam(access, i)).collect();
            c::LLVMBuildCall2(b, fty, h, args.as_mut_ptr(), 4, c"".as_ptr());
            c::LLVMBuildBr(b, done);
            c::LLVMPositionBuilderAtEnd(b, done);
            c::LLVMBuildRetVoid(b);
            c::LLVMDisposeBuilder(b);
        }
        let call_hook = |at: Val, p: LLVMValueRef, n: LLVMValueRef, kind: u32, block: u32| {
            let bld = Builder::before(at);
            let n = if c::LLVMTypeOf(n) == i64t {
                n
            } else {
                c::LLVMBuildZExt(bld.0, n, i64t, c"".as_ptr())
            };
            let mut args = [
                p,
                n,
                i32_const(ctx, kind as u64),
                i32_const(ctx, block as u64),
            ];
            c::LLVMBuildCall2(bld.0, fty, access, args.as_mut_ptr(), 4, c"".as_ptr());
        };
        let mut blocks = vec![];
        let mut block_insts = vec![];
        for f in defined {
            for (bi, bb) in f.blocks().into_iter().enumerate() {
                let id = blocks.len() as u32;
                let insts = bb.instructions();
                let loc = insts.iter().find_map(|i| i.debug_location());
                blocks.push(match loc {
                    Some(l) => format!("{}:{bi} ({})", f.name(), short_loc(&l)),
                    None => format!("{}:{bi}", f.name()),
                });
                let mut all = 0u64;
                let mut compute = 0u64;
                for &i in &insts {
                    if is_debug_call(i) {
                        continue;
                    }
                    all += 1;
                    let op = i.opcode();
                    let size = |ty: LLVMTypeRef| {
                        c::LLVMConstInt(i64t, llvm_util::type_store_size(m, ty), 0)
                    };
                    match op {
                        Some(Opcode::LLVMLoad) => {
                            if let Some(p) = i.pointer_operand() {
                                call_hook(i, p.0, size(i.access_type()), KIND_LOAD, id);
                            }
                        }
                        Some(Opcode::LLVMStore) => {
                            if let Some(p) = i.pointer_operand() {
                                call_hook(i, p.0, size(i.access_type()), KIND_STORE, id);
                            }
                        }
                        Some(Opcode::LLVMAtomicRMW) | Some(Opcode::LLVMAtomicCmpXchg) => {
                            let (p, v) = if op == Some(Opcode::LLVMAtomicRMW) {
                                (i.operand(0), i.operand(1))
                            } else {
                                (i.operand(0), i.operand(2))
                            };
                            if let (Some(p), Some(v)) = (p, v) {
                                call_hook(i, p.0, size(v.type_of()), KIND_LOAD, id);
                                call_hook(i, p.0, size(v.type_of()), KIND_STORE, id);
                            }
                        }
                        Some(Opcode::LLVMCall) => {
                            if let Some((kind, _)) = memory_builtin(i) {
                                let (a0, a1, a2) = (i.operand(0), i.operand(1), i.operand(2));
                                if let (Some(a0), Some(a1), Some(a2)) = (a0, a1, a2) {
                                    match kind {
                                        "copy" => {
                                            call_hook(i, a1.0, a2.0, KIND_LOAD, id);
                                            call_hook(i, a0.0, a2.0, KIND_STORE, id);
                                        }
                                        "set" => call_hook(i, a0.0, a2.0, KIND_STORE, id),
                                        _ => {
                                            call_hook(i, a0.0, a2.0, KIND_LOAD, id);
                                            call_hook(i, a1.0, a2.0, KIND_LOAD, id);
                                        }
                                    }
                                }
                            }
                        }
                        Some(Opcode::LLVMPHI) => {}
                        _ => compute += 1,
                    }
                }
                block_insts.push((all, compute));
                if let Some(first) = bb.first_non_phi() {
                    call_hook(
                        first,
                        c::LLVMConstPointerNull(ptr),
                        c::LLVMConstInt(i64t, 0, 0),
                        KIND_BLOCK,
                        id,
                    );
                }
            }
        }
        Instrumented {
            globals: globals
                .iter()
                .map(|g| {
                    (
                        g.name(),
                        llvm_util::type_store_size(m, g.global_value_type()),
                    )
                })
                .collect(),
            blocks,
            block_insts,
        }
    }
}

fn short_loc(l: &str) -> String {
    // file:line:col -> basename:line
    let mut parts = l.rsplitn(3, ':');
    let _col = parts.next();
    let line = parts.next().unwrap_or("");
    let file = parts.next().unwrap_or("");
    let base = Path::new(file)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{base}:{line}")
}

/// Optimise, pack and (optionally) instrument the NF's IR; write `so`.
fn build(
    ll: &Path,
    nf: &str,
    pack: &Pack,
    so: &Path,
    clang: &Path,
    instrumented: bool,
) -> Result<(Option<Instrumented>, Vec<PackedStruct>), ReduceError> {
    let ctx = Context::create();
    // The IR may come from a position-independent *executable* compile
    // (Debian's clang defaults to PIE): thread-locals would then be
    // local-exec, which a shared object cannot hold. Build it as PIC.
    let text = std::fs::read_to_string(ll).map_err(|e| ReduceError::io("cannot read IR", ll, e))?;
    let text = text.replace("!\"PIE Level\", i32 2}", "!\"PIE Level\", i32 0}");
    let module = ir::parse_ir(&ctx, nf, text.as_bytes())?;
    ir::verify(&module, nf, "input IR")?;
    let machine = ir::host_machine()?;
    ir::run_pipeline(&module, &machine, "default<O2>")?;
    let m = module.as_mut_ptr();
    let packed = pack_globals(m, pack);
    let inst = instrumented.then(|| instrument(m));
    ir::verify(
        &module,
        nf,
        if instrumented {
            "instrumented IR"
        } else {
            "packed IR"
        },
    )?;
    if instrumented {
        // Codegen without further IR optimisation (the counts are those of
        // the optimised code above, hook calls in place), position
        // independent whatever the input IR was compiled for.
        let obj = so.with_extension("o");
        machine
            .write_to_file(&module, inkwell::targets::FileType::Object, &obj)
            .map_err(|e| ReduceError::Compile {
                nf: nf.into(),
                message: format!("object emission: {e}"),
            })?;
        let res = std::process::Command::new(clang)
            .args(["-shared", "-fPIC", "-o"])
            .arg(so)
            .arg(&obj)
            .output()
            .map_err(|e| ReduceError::Compile {
                nf: nf.into(),
                message: format!("cannot run {}: {e}", clang.display()),
            })?;
        if !res.status.success() {
            return Err(ReduceError::Compile {
                nf: nf.into(),
                message: String::from_utf8_lossy(&res.stderr).trim().to_string(),
            });
        }
    } else {
        ir::module_to_so(&module, &machine, clang, nf, so)?;
    }
    Ok((inst, packed))
}

/// Build the NF (optionally with `pack` applied) without instrumentation,
/// through the same `default<O2>` as the profile: the binary cachegrind runs.
pub fn build_so(
    ll: &Path,
    nf: &str,
    pack: &Pack,
    so: &Path,
    clang: &Path,
) -> Result<Vec<PackedStruct>, ReduceError> {
    build(ll, nf, pack, so, clang, false).map(|(_, p)| p)
}

// ------------------------------------------------------------- the run

#[derive(Default)]
struct Counts {
    loads: u64,
    stores: u64,
    bytes: u64,
    per_block: HashMap<u32, u64>,
}

struct Recorder {
    active: bool,
    state: (usize, usize),
    /// (start, end, object index), sorted by start.
    global_ranges: Vec<(usize, usize, usize)>,
    /// Member offsets (sorted) -> object index.
    members: Vec<(u64, usize)>,
    packet: (usize, usize),
    objects: Vec<Counts>,
    packet_counts: (u64, u64),
    other: (u64, u64),
    block_hits: Vec<u64>,
    lines: HashSet<(bool, u64)>,
    lines_total: u64,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

extern "C" fn hook(p: *const u8, n: u64, kind: u32, block: u32) {
    RECORDER.with(|r| {
        let mut r = r.borrow_mut();
        let Some(r) = r.as_mut() else { return };
        if !r.active {
            return;
        }
        if kind == KIND_BLOCK {
            if let Some(h) = r.block_hits.get_mut(block as usize) {
                *h += 1;
            }
            return;
        }
        let a = p as usize;
        let store = kind == KIND_STORE;
        let bump = |loads: &mut u64, stores: &mut u64| {
            if store {
                *stores += 1
            } else {
                *loads += 1
            }
        };
        let n_bytes = n.max(1);
        let obj = if a >= r.state.0 && a < r.state.1 {
            let off = (a - r.state.0) as u64;
            for l in off / LINE..=(off + n_bytes - 1) / LINE {
                r.lines.insert((true, l));
            }
            let i = r.members.partition_point(|(o, _)| *o <= off);
            Some(r.members[i.saturating_sub(1)].1)
        } else if let Some(&(_, _, o)) = r
            .global_ranges
            .get(
                r.global_ranges
                    .partition_point(|(s, _, _)| *s <= a)
                    .wrapping_sub(1),
            )
            .filter(|(s, e, _)| a >= *s && a < *e)
        {
            for l in (a as u64) / LINE..=(a as u64 + n_bytes - 1) / LINE {
                r.lines.insert((false, l));
            }
            Some(o)
        } else {
            None
        };
        match obj {
            Some(o) => {
                let c = &mut r.objects[o];
                bump(&mut c.loads, &mut c.stores);
                c.bytes += n;
                *c.per_block.entry(block).or_default() += 1;
            }
            None if a >= r.packet.0 && a < r.packet.1 => {
                let (l, s) = &mut r.packet_counts;
                bump(l, s)
            }
            None => {
                let (l, s) = &mut r.other;
                bump(l, s)
            }
        }
    });
}

fn load_err(path: &Path, message: String) -> ReduceError {
    ReduceError::Load {
        path: path.to_path_buf(),
        message,
    }
}

/// Build the instrumented NF from its IR (`ll`: the unoptimised,
/// debug-annotated module of all its sources), run `nf_init` with `config`,
/// then every packet through `nf_process` on one state instance, and report
/// what it accessed. `pack` first moves clusters of globals into structs.
pub fn profile(
    ll: &Path,
    nf: &str,
    config: &[(String, String)],
    packets: &[TestPacket],
    pack: &Pack,
    opts: &ProfileOptions,
) -> Result<Profiled, ReduceError> {
    let text = std::fs::read_to_string(ll).map_err(|e| ReduceError::io("cannot read IR", ll, e))?;
    let dir = tempfile::Builder::new()
        .prefix("nfc-access-profile")
        .tempdir_in(&opts.work_dir)
        .map_err(|e| ReduceError::io("cannot create a scratch directory in", &opts.work_dir, e))?;
    let so = dir.path().join(format!("{nf}.profile.so"));
    let (inst, packed) = build(ll, nf, pack, &so, &opts.clang, true)?;
    let inst = inst.ok_or_else(|| ReduceError::Abi {
        nf: nf.into(),
        message: "instrumentation did not run".into(),
    })?;
    let lib = LoadedNf::open(&so).map_err(|m| load_err(&so, m))?;
    let hook_addr = lib
        .symbol_address(HOOK)
        .ok_or_else(|| load_err(&so, format!("`{HOOK}` is not exported")))?;
    let table = lib
        .symbol_address(TABLE)
        .ok_or_else(|| load_err(&so, format!("`{TABLE}` is not exported")))?;
    lib.init(config).map_err(|message| ReduceError::Config {
        nf: nf.into(),
        message,
    })?;
    let mut state = lib.new_state();
    let state_size = lib.state_size() as u64;

    // Objects: state members first (layout order), then globals.
    let mut objects: Vec<ObjectAccesses> = vec![];
    let mut members = vec![];
    let state_struct = if state_size > 0 {
        match state_members(&text, state_size) {
            Some((name, ms)) => {
                for mbr in ms {
                    members.push((mbr.offset, objects.len()));
                    objects.push(object(&mbr.name, ObjectKind::State, mbr.offset, mbr.size));
                }
                Some(name)
            }
            None => {
                members.push((0, 0));
                objects.push(object("state", ObjectKind::State, 0, state_size));
                None
            }
        }
    } else {
        None
    };
    members.sort();
    let mut global_ranges = vec![];
    for (i, (name, bytes)) in inst.globals.iter().enumerate() {
        // SAFETY: the table has one pointer per nameable global, in this order.
        let addr = unsafe { *(table as *const *const u8).add(i) } as usize;
        global_ranges.push((addr, addr + (*bytes).max(1) as usize, objects.len()));
        objects.push(object(name, ObjectKind::Global, 0, *bytes));
    }
    global_ranges.sort();
    let state_ptr = state.as_mut_ptr() as usize;
    RECORDER.with(|r| {
        *r.borrow_mut() = Some(Recorder {
            active: false,
            state: (state_ptr, state_ptr + state_size as usize),
            global_ranges,
            members,
            packet: (0, 0),
            objects: (0..objects.len()).map(|_| Counts::default()).collect(),
            packet_counts: (0, 0),
            other: (0, 0),
            block_hits: vec![0; inst.blocks.len()],
            lines: HashSet::new(),
            lines_total: 0,
        })
    });
    // SAFETY: `__nfc_ap_hook` is a pointer-sized global the pass added; the
    // hook has the signature the pass calls it with.
    unsafe {
        *(hook_addr as *mut usize) = hook as extern "C" fn(*const u8, u64, u32, u32) as usize;
    }
    let mut forwarded = vec![];
    for p in packets {
        let mut frame = p.frame.clone();
        frame.reserve(CAP_SLACK);
        let cap = p.frame.len() + CAP_SLACK;
        RECORDER.with(|r| {
            if let Some(r) = r.borrow_mut().as_mut() {
                r.active = true;
                // process() resizes the frame to `cap` within its reserved capacity.
                r.packet = (frame.as_ptr() as usize, frame.as_ptr() as usize + cap);
            }
        });
        let v = lib.process(&mut state, p.now_ns, &mut frame, cap, 0);
        RECORDER.with(|r| {
            if let Some(r) = r.borrow_mut().as_mut() {
                r.active = false;
                r.lines_total += r.lines.len() as u64;
                r.lines.clear();
            }
        });
        if v >= 0 {
            forwarded.push(TestPacket {
                frame,
                now_ns: p.now_ns,
            });
        }
    }
    // SAFETY: as above; the NF runs no more code with the hook set.
    unsafe {
        *(hook_addr as *mut usize) = 0;
    }
    let rec = RECORDER
        .with(|r| r.borrow_mut().take())
        .ok_or_else(|| ReduceError::Abi {
            nf: nf.into(),
            message: "the access recorder went away".into(),
        })?;
    let n = packets.len().max(1) as f64;
    for (o, cnt) in objects.iter_mut().zip(&rec.objects) {
        o.loads_per_packet = cnt.loads as f64 / n;
        o.stores_per_packet = cnt.stores as f64 / n;
        o.bytes_per_packet = cnt.bytes as f64 / n;
        let mut pb: Vec<(u32, u64)> = cnt.per_block.iter().map(|(&b, &c)| (b, c)).collect();
        pb.sort();
        o.per_block = pb;
    }
    let (mut all, mut compute) = (0u64, 0u64);
    for (hits, (a, cmp)) in rec.block_hits.iter().zip(&inst.block_insts) {
        all += hits * a;
        compute += hits * cmp;
    }
    Ok(Profiled {
        profile: AccessProfile {
            nf: nf.into(),
            packets: packets.len() as u64,
            forwarded: forwarded.len() as u64,
            state_size,
            state_struct,
            objects,
            packet_data: ClassAccesses {
                loads_per_packet: rec.packet_counts.0 as f64 / n,
                stores_per_packet: rec.packet_counts.1 as f64 / n,
            },
            other: ClassAccesses {
                loads_per_packet: rec.other.0 as f64 / n,
                stores_per_packet: rec.other.1 as f64 / n,
            },
            instructions_per_packet: all as f64 / n,
            compute_per_packet: compute as f64 / n,
            lines_per_packet: rec.lines_total as f64 / n,
            blocks: inst.blocks,
            packed: packed.into_iter().map(|p| (p.name, p.members)).collect(),
        },
        forwarded,
    })
}

fn object(name: &str, kind: ObjectKind, offset: u64, bytes: u64) -> ObjectAccesses {
    ObjectAccesses {
        name: name.into(),
        kind,
        offset,
        bytes,
        loads_per_packet: 0.0,
        stores_per_packet: 0.0,
        bytes_per_packet: 0.0,
        per_block: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_struct_members_from_debug_info() {
        let ll = r#"
!10 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "x_state", file: !1, line: 3, size: 128, elements: !11)
!11 = !{!12, !13}
!12 = !DIDerivedType(tag: DW_TAG_member, name: "count", scope: !10, file: !1, line: 4, baseType: !5, size: 64)
!13 = !DIDerivedType(tag: DW_TAG_member, name: "last", scope: !10, file: !1, line: 5, baseType: !5, size: 64, offset: 64)
!20 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "other", file: !1, line: 3, size: 128, elements: !21)
!21 = !{!13}
"#;
        let (name, ms) = state_members(ll, 16).expect("found");
        assert_eq!(name, "x_state");
        assert_eq!(
            ms,
            vec![
                Member {
                    name: "count".into(),
                    offset: 0,
                    size: 8
                },
                Member {
                    name: "last".into(),
                    offset: 8,
                    size: 8
                }
            ]
        );
        assert!(state_members(ll, 24).is_none());
    }
}
