//! IR preparation for the SmartNIC insight models (Clara §3.1–3.2).
//!
//! An NF (C against nf.h, or any C that compiles freestanding) is lowered
//! with clang-19 for the proxy NIC target (`riscv32-unknown-elf`, `-O0
//! -Xclang -disable-O0-optnone`: LLVM IR as written, every pass still
//! allowed). Every instruction is annotated ([`InstrClass`]) and written as
//! a word of the compacted vocabulary: the opcode, then operands replaced by
//! their types (`add i32 const`), with nf.h header field names kept
//! (`getelementptr nf_ipv4.f8`) and framework calls named (`call fw:nf_parse`).
//!
//! Ground truth is produced by the proxy NIC compiler, `llc-19 -O2
//! -march=riscv32`, counted per **function**: llc's block placement, branch
//! folding and tail duplication merge and split IR blocks, so the labels in
//! its output do not map back to IR blocks reliably, while function
//! boundaries always do. The models predict per block and are trained on the
//! per-function sums.
//!
//! Plain data ([`nfc_core::insight`]) leaves this module; no LLVM type does.

use crate::error::ReduceError;
use crate::llvm_util::{self as u, IntPred, Opcode, Val};
use inkwell::context::Context;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMTypeRef};
use inkwell::llvm_sys::LLVMTypeKind;
use nfc_core::insight::{AccelSignals, InstrClass, IrBlock, IrFunction, IrUnit, ProxyCounts};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The proxy NIC target.
pub const PROXY_TRIPLE: &str = "riscv32-unknown-elf";

/// Headers whose struct field names stay in the vocabulary (well-defined
/// header fields, as Clara keeps Click's header field names).
const HEADER_STRUCTS: &[&str] = &[
    "nf_eth",
    "nf_vlan",
    "nf_arp",
    "nf_ipv4",
    "nf_ipv6",
    "nf_tcp",
    "nf_udp",
    "nf_icmp",
    "nf_packet",
    "nf_ctx",
    "nf_headers",
    "nf_flow5",
];

/// How to prepare IR.
#[derive(Debug, Clone)]
pub struct InsightOptions {
    pub clang: PathBuf,
    pub llc: PathBuf,
    /// Include directories (nfc's `nfs/include` is added by default).
    pub include_dirs: Vec<PathBuf>,
    /// Run the proxy compiler and record per-function counts.
    pub proxy: bool,
    /// Run every function in a child process for the behavioural CRC test
    /// ([`crate::insight_exec`]) and record the outcome.
    pub execute: bool,
    /// Directories searched last (`-idirafter`), after the freestanding
    /// prototypes: the host's architecture-neutral system headers (Linux
    /// UAPI, libbpf) for third-party code whose own build finds them there,
    /// since there is no riscv32 sysroot. Empty for nfc's own NFs.
    pub after_dirs: Vec<PathBuf>,
}

impl Default for InsightOptions {
    fn default() -> Self {
        InsightOptions {
            clang: PathBuf::from("clang-19"),
            llc: PathBuf::from("llc-19"),
            include_dirs: vec![nfs_include_dir()],
            proxy: true,
            execute: false,
            after_dirs: vec![],
        }
    }
}

/// nfc's own NF include directory (`nfs/include`, with nf.h).
pub fn nfs_include_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../nfs/include"))
}

/// Freestanding prototypes of the few libc functions NFs call (there is no
/// riscv32 libc here); always searched after the caller's directories.
pub fn freestanding_include_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data/riscv32-include"))
}

/// Names of the functions nf.h defines (its `static inline` helpers): the
/// framework API, annotated as framework calls and never a training sample.
pub fn framework_functions() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let text = std::fs::read_to_string(nfs_include_dir().join("nf.h")).unwrap_or_default();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("static inline ") {
            if let Some(open) = rest.find('(') {
                let name = rest[..open]
                    .rsplit(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                    .next()
                    .unwrap_or("");
                if !name.is_empty() {
                    out.insert(name.to_string());
                }
            }
        }
    }
    out
}

fn run(cmd: &mut Command, unit: &str, tool: &str) -> Result<Vec<u8>, ReduceError> {
    let out = cmd.output().map_err(|e| ReduceError::Compile {
        nf: unit.to_string(),
        message: format!("cannot run {tool}: {e}"),
    })?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        let msg: String = msg.lines().take(6).collect::<Vec<_>>().join("\n");
        return Err(ReduceError::Compile {
            nf: unit.to_string(),
            message: format!("{tool}: {}", msg.trim()),
        });
    }
    Ok(out.stdout)
}

/// Lower one C file for the proxy target, annotate it and (when asked)
/// count the proxy compiler's machine instructions per function.
pub fn prepare_c(name: &str, src: &Path, opts: &InsightOptions) -> Result<IrUnit, ReduceError> {
    let mut cmd = Command::new(&opts.clang);
    cmd.args([
        "--target=riscv32-unknown-elf",
        "-O0",
        "-Xclang",
        "-disable-O0-optnone",
        "-ffreestanding",
        "-w",
        "-S",
        "-emit-llvm",
        "-o",
        "-",
    ]);
    for inc in &opts.include_dirs {
        cmd.arg("-I").arg(inc);
    }
    cmd.arg("-idirafter").arg(freestanding_include_dir());
    for d in &opts.after_dirs {
        cmd.arg("-idirafter").arg(d);
    }
    cmd.arg(src);
    let ll = run(&mut cmd, name, "clang-19")?;
    let mut unit = prepare_ll(name, &ll, opts)?;
    if opts.execute {
        let names: Vec<String> = unit
            .functions
            .iter()
            .filter(|f| !f.framework)
            .map(|f| f.name.clone())
            .collect();
        let eopts = crate::insight_exec::ExecOptions {
            clang: opts.clang.clone(),
            include_dirs: opts.include_dirs.clone(),
            after_dirs: vec![freestanding_include_dir()],
            ..Default::default()
        };
        let found =
            crate::insight_exec::behaviours(src, &String::from_utf8_lossy(&ll), &names, &eopts);
        for (n, b) in found {
            if let Some(f) = unit.functions.iter_mut().find(|f| f.name == n) {
                f.behaviour = Some(b);
            }
        }
    }
    Ok(unit)
}

/// Annotate textual IR produced for the proxy target (and count its machine code).
pub fn prepare_ll(name: &str, ll: &[u8], opts: &InsightOptions) -> Result<IrUnit, ReduceError> {
    let mut unit = annotate(name, ll)?;
    if opts.proxy {
        let dir = tempfile::tempdir().map_err(|e| ReduceError::io("cannot create", "tmp", e))?;
        let llp = dir.path().join("unit.ll");
        std::fs::write(&llp, ll).map_err(|e| ReduceError::io("cannot write IR", &llp, e))?;
        let asm = run(
            Command::new(&opts.llc)
                .args(["-O2", "-march=riscv32", "-o", "-"])
                .arg(&llp),
            name,
            "llc-19",
        )?;
        let counts = proxy_counts(&String::from_utf8_lossy(&asm));
        for f in &mut unit.functions {
            f.proxy = counts.get(&f.name).copied();
        }
    }
    Ok(unit)
}

/// Machine instructions per function in riscv32 assembly from llc: every
/// instruction line between a function's label and its `.Lfunc_end`; memory
/// accesses are loads and stores not based on `sp` or `s0` (the frame pointer).
pub fn proxy_counts(asm: &str) -> BTreeMap<String, ProxyCounts> {
    let mut out = BTreeMap::new();
    let mut cur: Option<(String, ProxyCounts)> = None;
    let mut functions = BTreeSet::new();
    for line in asm.lines() {
        if let Some(rest) = line.trim().strip_prefix(".type") {
            let mut parts = rest.split(',');
            if let (Some(n), Some(kind)) = (parts.next(), parts.next()) {
                if kind.trim() == "@function" {
                    functions.insert(n.trim().to_string());
                }
            }
            continue;
        }
        if !line.starts_with(char::is_whitespace) {
            let label = line.split('#').next().unwrap_or("").trim();
            if let Some(l) = label.strip_suffix(':') {
                if functions.contains(l) {
                    cur = Some((
                        l.to_string(),
                        ProxyCounts {
                            instructions: 0,
                            memory: 0,
                        },
                    ));
                } else if l.starts_with(".Lfunc_end") {
                    if let Some((n, c)) = cur.take() {
                        out.insert(n, c);
                    }
                }
            }
            continue;
        }
        let Some((_, counts)) = cur.as_mut() else {
            continue;
        };
        let text = line.split('#').next().unwrap_or("").trim();
        if text.is_empty() || text.starts_with('.') {
            continue;
        }
        counts.instructions += 1;
        let mnemonic = text.split_whitespace().next().unwrap_or("");
        let is_mem = matches!(
            mnemonic,
            "lb" | "lbu" | "lh" | "lhu" | "lw" | "sb" | "sh" | "sw" | "c.lw" | "c.sw"
        );
        if is_mem {
            let base = text
                .rsplit_once('(')
                .map(|(_, b)| b.trim_end_matches(')').trim())
                .unwrap_or("");
            if base != "sp" && base != "s0" && base != "fp" {
                counts.memory += 1;
            }
        }
    }
    out
}

/// Where a pointer points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Stack,
    State,
    Packet,
    Unknown,
}

fn join(a: Option<Root>, b: Root) -> Root {
    match a {
        None => b,
        Some(a) if a == b => a,
        _ => Root::Unknown,
    }
}

fn struct_name(t: LLVMTypeRef) -> Option<String> {
    unsafe {
        if t.is_null() || c::LLVMGetTypeKind(t) != LLVMTypeKind::LLVMStructTypeKind {
            return None;
        }
        let p = c::LLVMGetStructName(t);
        if p.is_null() {
            return None;
        }
        let s = CStr::from_ptr(p).to_string_lossy();
        Some(s.trim_start_matches("struct.").to_string())
    }
}

fn gep_source(v: Val) -> LLVMTypeRef {
    unsafe { c::LLVMGetGEPSourceElementType(v.0) }
}

fn is_gep(v: Val) -> bool {
    v.opcode() == Some(Opcode::LLVMGetElementPtr)
        || v.const_opcode() == Some(Opcode::LLVMGetElementPtr)
}

struct Annotator {
    framework: BTreeSet<String>,
    memo: HashMap<Val, Root>,
}

impl Annotator {
    /// The object a pointer value points into (bounded walk).
    fn root(&mut self, v: Val, depth: u32) -> Root {
        if let Some(r) = self.memo.get(&v) {
            return *r;
        }
        let r = self.root_uncached(v, depth);
        if depth == 0 || r != Root::Unknown {
            self.memo.insert(v, r);
        }
        r
    }

    fn root_uncached(&mut self, v: Val, depth: u32) -> Root {
        if depth > 12 {
            return Root::Unknown;
        }
        if v.is_global_var() {
            return Root::State;
        }
        if is_gep(v)
            || matches!(
                v.opcode().or(v.const_opcode()),
                Some(Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast)
            )
        {
            return match v.operand(0) {
                Some(b) => self.root(b, depth + 1),
                None => Root::Unknown,
            };
        }
        match v.opcode() {
            Some(Opcode::LLVMAlloca) => Root::Stack,
            Some(Opcode::LLVMLoad) => {
                let Some(addr) = v.pointer_operand() else {
                    return Root::Unknown;
                };
                // A pointer loaded from a known header struct field.
                if is_gep(addr) {
                    match struct_name(gep_source(addr)).as_deref() {
                        Some("nf_ctx") => return Root::State,
                        Some("nf_packet") | Some("nf_headers") => return Root::Packet,
                        _ => {}
                    }
                }
                if addr.opcode() == Some(Opcode::LLVMAlloca) {
                    // A local pointer variable: what was stored into it.
                    let mut acc: Option<Root> = None;
                    for user in addr.users() {
                        if user.opcode() == Some(Opcode::LLVMStore)
                            && user.pointer_operand() == Some(addr)
                        {
                            if let Some(stored) = user.operand(0) {
                                if stored.is_ptr_type() {
                                    acc = Some(join(acc, self.root(stored, depth + 1)));
                                }
                            }
                        }
                    }
                    return acc.unwrap_or(Root::Unknown);
                }
                // A pointer kept in state points into state; elsewhere unknown.
                match self.root(addr, depth + 1) {
                    Root::State => Root::State,
                    _ => Root::Unknown,
                }
            }
            Some(Opcode::LLVMCall) => match v.called_function().map(|f| f.name()) {
                Some(n)
                    if n.contains("ftable_lookup")
                        || n.contains("ftable_insert")
                        || n.contains("ftable_slot") =>
                {
                    Root::State
                }
                _ => Root::Unknown,
            },
            Some(Opcode::LLVMSelect) => {
                let a = v.operand(1).map(|x| self.root(x, depth + 1));
                let b = v
                    .operand(2)
                    .map(|x| self.root(x, depth + 1))
                    .unwrap_or(Root::Unknown);
                join(a, b)
            }
            Some(Opcode::LLVMPHI) => {
                let mut acc = None;
                for (x, _) in v.phi_incoming() {
                    acc = Some(join(acc, self.root(x, depth + 1)));
                }
                acc.unwrap_or(Root::Unknown)
            }
            _ => {
                if v.is_argument() {
                    // nf_process(ctx, pkt): the packet argument.
                    let f = unsafe { Val(c::LLVMGetParamParent(v.0)) };
                    if f.name() == "nf_process" && f.params().get(1) == Some(&v) {
                        return Root::Packet;
                    }
                }
                Root::Unknown
            }
        }
    }

    fn class_and_word(
        &mut self,
        i: Val,
        module_defined: &BTreeSet<String>,
    ) -> (InstrClass, String, u32) {
        let op = i.opcode().unwrap_or(Opcode::LLVMUnreachable);
        let mut w = opname(op);
        match op {
            Opcode::LLVMLoad | Opcode::LLVMStore => {
                let ty = i.access_type();
                let root = i
                    .pointer_operand()
                    .map(|p| self.root(p, 0))
                    .unwrap_or(Root::Unknown);
                let (class, tag) = match root {
                    Root::Stack => (InstrClass::StackMemory, "stack"),
                    Root::State => (InstrClass::StatefulMemory, "state"),
                    Root::Packet => (InstrClass::PacketMemory, "packet"),
                    Root::Unknown => (InstrClass::IndirectMemory, "ptr"),
                };
                w.push(' ');
                w.push_str(&ty_word(ty));
                if op == Opcode::LLVMStore {
                    if let Some(v) = i.operand(0) {
                        if v.const_int().is_some() {
                            w.push_str(" const");
                        }
                    }
                }
                w.push(' ');
                w.push_str(tag);
                let words = if class == InstrClass::StackMemory {
                    0
                } else {
                    let bits = int_or_ptr_bits(ty);
                    bits.div_ceil(32).max(1)
                };
                (class, w, words)
            }
            Opcode::LLVMCall => {
                let callee = i.called_function();
                let (class, tag) = match callee {
                    None => (InstrClass::Call, "indirect".to_string()),
                    Some(f) => {
                        let n = f.name();
                        if let Some(rest) = n.strip_prefix("llvm.") {
                            let base = rest.split('.').next().unwrap_or(rest);
                            (InstrClass::FrameworkCall, format!("llvm.{base}"))
                        } else if self.framework.contains(&n) {
                            (InstrClass::FrameworkCall, format!("fw:{n}"))
                        } else if module_defined.contains(&n) {
                            (InstrClass::Call, "internal".to_string())
                        } else {
                            (InstrClass::FrameworkCall, "external".to_string())
                        }
                    }
                };
                w.push(' ');
                w.push_str(&tag);
                let args = i.num_arg_operands();
                w.push_str(&format!(" a{}", args.min(6)));
                (class, w, 0)
            }
            Opcode::LLVMGetElementPtr => {
                let src = gep_source(i);
                match struct_name(src) {
                    Some(s) if HEADER_STRUCTS.contains(&s.as_str()) => {
                        let field = i.operand(2).and_then(|v| v.const_int());
                        match field {
                            Some(f) => w.push_str(&format!(" {s}.f{f}")),
                            None => w.push_str(&format!(" {s}")),
                        }
                    }
                    _ => {
                        w.push(' ');
                        w.push_str(&ty_word(src));
                    }
                }
                for idx in i.operands().into_iter().skip(1) {
                    w.push_str(if idx.const_int().is_some() {
                        " const"
                    } else {
                        " var"
                    });
                }
                (InstrClass::Compute, w, 0)
            }
            _ => {
                if op == Opcode::LLVMICmp {
                    w.push(' ');
                    w.push_str(
                        &format!("{:?}", i.icmp_predicate())
                            .trim_start_matches("LLVMInt")
                            .to_lowercase(),
                    );
                }
                if op == Opcode::LLVMAlloca {
                    let t = unsafe { c::LLVMGetAllocatedType(i.0) };
                    w.push(' ');
                    w.push_str(&ty_word(t));
                    return (InstrClass::Compute, w, 0);
                }
                if op == Opcode::LLVMBr {
                    w.push_str(if i.is_conditional_branch() {
                        " cond"
                    } else {
                        " uncond"
                    });
                    return (InstrClass::Compute, w, 0);
                }
                if op == Opcode::LLVMSwitch {
                    let cases = (i.num_operands() / 2).saturating_sub(1);
                    w.push_str(&format!(" cases{}", bucket(cases)));
                    return (InstrClass::Compute, w, 0);
                }
                if !matches!(op, Opcode::LLVMRet | Opcode::LLVMPHI) {
                    // Result type, then each operand's type or `const`.
                    let rt = i.type_of();
                    w.push(' ');
                    w.push_str(&ty_word(rt));
                }
                for o in i.operands() {
                    if unsafe { !c::LLVMIsABasicBlock(o.0).is_null() } || o.is_function() {
                        continue;
                    }
                    w.push(' ');
                    if o.const_int().is_some() {
                        w.push_str("const");
                    } else {
                        w.push_str(&ty_word(o.type_of()));
                    }
                }
                (InstrClass::Compute, w, 0)
            }
        }
    }
}

fn bucket(n: u32) -> u32 {
    match n {
        0..=2 => n,
        3..=4 => 4,
        5..=8 => 8,
        _ => 16,
    }
}

fn opname(op: Opcode) -> String {
    format!("{op:?}").trim_start_matches("LLVM").to_lowercase()
}

fn int_or_ptr_bits(t: LLVMTypeRef) -> u32 {
    unsafe {
        if t.is_null() {
            return 32;
        }
        match c::LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMIntegerTypeKind => c::LLVMGetIntTypeWidth(t),
            LLVMTypeKind::LLVMDoubleTypeKind => 64,
            _ => 32,
        }
    }
}

fn ty_word(t: LLVMTypeRef) -> String {
    unsafe {
        if t.is_null() {
            return "none".into();
        }
        match c::LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMIntegerTypeKind => format!("i{}", c::LLVMGetIntTypeWidth(t)),
            LLVMTypeKind::LLVMPointerTypeKind => "ptr".into(),
            LLVMTypeKind::LLVMStructTypeKind => "struct".into(),
            LLVMTypeKind::LLVMArrayTypeKind => "array".into(),
            LLVMTypeKind::LLVMVoidTypeKind => "void".into(),
            LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind => "fp".into(),
            LLVMTypeKind::LLVMVectorTypeKind => "vec".into(),
            _ => "other".into(),
        }
    }
}

/// Annotate textual IR: per function (definitions only), per block, words
/// and classes; the accelerator signals (and the classifier's blocks) on a
/// copy with the framework-independent callees inlined
/// ([`inline_subroutines`]).
pub fn annotate(name: &str, ll: &[u8]) -> Result<IrUnit, ReduceError> {
    let ctx = Context::create();
    let module = crate::ir::parse_ir(&ctx, name, ll)?;
    let m = module.as_mut_ptr();
    let defined: BTreeSet<String> = u::functions(m)
        .into_iter()
        .filter(|f| !f.is_declaration())
        .map(|f| f.name())
        .collect();
    let framework = framework_functions();
    let inlined = crate::ir::parse_ir(&ctx, name, ll)?;
    inline_subroutines(&inlined, &framework, name)?;
    let mut ann = Annotator {
        framework: framework.clone(),
        memo: HashMap::new(),
    };
    let mut ann_inlined = Annotator {
        framework,
        memo: HashMap::new(),
    };
    let mut functions = vec![];
    for f in u::functions(m) {
        if f.is_declaration() {
            continue;
        }
        let fname = f.name();
        let blocks = annotate_blocks(&mut ann, f, &defined);
        let (signals, inlined_blocks) = match u::get_function(inlined.as_mut_ptr(), &fname) {
            Some(g) => {
                let ib = annotate_blocks(&mut ann_inlined, g, &defined);
                let changed = ib
                    .iter()
                    .map(|b| &b.words)
                    .ne(blocks.iter().map(|b| &b.words));
                (accel_signals(g), if changed { ib } else { vec![] })
            }
            None => (accel_signals(f), vec![]),
        };
        let mut callees: Vec<String> = f
            .instructions()
            .into_iter()
            .filter(|i| i.opcode() == Some(Opcode::LLVMCall))
            .filter_map(|i| i.called_function().map(|g| g.name()))
            .filter(|n| defined.contains(n) && !ann.framework.contains(n))
            .collect();
        callees.sort();
        callees.dedup();
        functions.push(IrFunction {
            framework: ann.framework.contains(&fname),
            name: fname,
            blocks,
            proxy: None,
            callees,
            signals,
            inlined_blocks,
            behaviour: None,
        });
    }
    Ok(IrUnit {
        name: name.to_string(),
        target: PROXY_TRIPLE.to_string(),
        functions,
    })
}

/// The annotated blocks of one function.
fn annotate_blocks(ann: &mut Annotator, f: Val, defined: &BTreeSet<String>) -> Vec<IrBlock> {
    let mut blocks = vec![];
    for (bi, b) in f.blocks().into_iter().enumerate() {
        let mut words = vec![];
        let mut classes = vec![];
        let mut memory_words = 0;
        for i in b.instructions() {
            let (class, word, mw) = ann.class_and_word(i, defined);
            words.push(word);
            classes.push(class);
            memory_words += mw;
        }
        let bname = unsafe {
            let p = c::LLVMGetBasicBlockName(b.0);
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        blocks.push(IrBlock {
            name: if bname.is_empty() {
                format!("bb{bi}")
            } else {
                bname
            },
            words,
            classes,
            memory_words,
        });
    }
    blocks
}

/// Subroutine inlining before the accelerator signals are read (Clara §3:
/// "subroutines in the NF that do not depend on the host framework are
/// directly inlined"). A callee is inlined when it is defined in the
/// module, is not framework code (nf.h) and reaches none through its calls,
/// is in no call cycle, and its body with everything inlined into it is at
/// most [`INLINE_MAX_INSTRUCTIONS`] IR instructions, [`INLINE_MAX_DEPTH`]
/// functions deep. LLVM's own `always-inline` pass does the inlining, on a
/// second copy of the module (the per-function words and proxy counts the
/// compute models use stay per function).
pub const INLINE_MAX_INSTRUCTIONS: usize = 400;
/// See [`INLINE_MAX_INSTRUCTIONS`].
pub const INLINE_MAX_DEPTH: usize = 3;

/// A defined function's shape for the inlining decision.
struct CallInfo {
    instructions: usize,
    /// Defined callees, one entry per call site.
    calls: Vec<String>,
    /// Calls framework code directly.
    framework: bool,
}

/// The defined functions [`inline_subroutines`] inlines into their callers.
fn inlinable(m: LLVMModuleRef, framework: &BTreeSet<String>) -> BTreeSet<String> {
    let fns: Vec<Val> = u::functions(m)
        .into_iter()
        .filter(|f| !f.is_declaration())
        .collect();
    let names: BTreeSet<String> = fns.iter().map(|f| f.name()).collect();
    let mut info: BTreeMap<String, CallInfo> = BTreeMap::new();
    for f in &fns {
        let insts = f.instructions();
        let mut ci = CallInfo {
            instructions: insts.len(),
            calls: vec![],
            framework: framework.contains(&f.name()),
        };
        for i in insts
            .iter()
            .filter(|i| i.opcode() == Some(Opcode::LLVMCall))
        {
            match i.called_function().map(|g| g.name()) {
                Some(n) if framework.contains(&n) => ci.framework = true,
                Some(n) if names.contains(&n) => ci.calls.push(n),
                _ => {}
            }
        }
        info.insert(f.name(), ci);
    }
    // In a call cycle: reachable from itself.
    let cyclic = |start: &str| -> bool {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = info[start].calls.iter().map(String::as_str).collect();
        while let Some(n) = stack.pop() {
            if n == start {
                return true;
            }
            if seen.insert(n) {
                stack.extend(info[n].calls.iter().map(String::as_str));
            }
        }
        false
    };
    let cycles: BTreeSet<String> = names.iter().filter(|n| cyclic(n)).cloned().collect();
    // (size with its inlinable callees inlined, depth, reaches framework
    // code), bottom-up over the acyclic part of the call graph.
    fn shape(
        n: &str,
        info: &BTreeMap<String, CallInfo>,
        cycles: &BTreeSet<String>,
        memo: &mut BTreeMap<String, (usize, usize, bool)>,
    ) -> (usize, usize, bool) {
        if let Some(r) = memo.get(n) {
            return *r;
        }
        let ci = &info[n];
        let (mut size, mut depth, mut fw) = (ci.instructions, 1, ci.framework);
        for c in ci.calls.iter().filter(|c| !cycles.contains(*c)) {
            let (s, d, cfw) = shape(c, info, cycles, memo);
            fw |= cfw;
            if !cfw && s <= INLINE_MAX_INSTRUCTIONS && d <= INLINE_MAX_DEPTH {
                // The call instruction is replaced by the callee's body.
                size += s.saturating_sub(1);
                depth = depth.max(d + 1);
            }
        }
        memo.insert(n.to_string(), (size, depth, fw));
        (size, depth, fw)
    }
    let mut memo = BTreeMap::new();
    names
        .iter()
        .filter(|n| !cycles.contains(*n))
        .filter(|n| {
            let (s, d, fw) = shape(n, &info, &cycles, &mut memo);
            !fw && s <= INLINE_MAX_INSTRUCTIONS && d <= INLINE_MAX_DEPTH
        })
        .cloned()
        .collect()
}

/// Inline [`inlinable`] callees into every function of `module` with
/// LLVM's `always-inline` pass (clang's `-O0` marks every function
/// `noinline`; that is dropped, and local functions are made external so
/// the pass keeps them after inlining their last call). Returns the
/// functions marked.
fn inline_subroutines(
    module: &inkwell::module::Module<'_>,
    framework: &BTreeSet<String>,
    unit: &str,
) -> Result<BTreeSet<String>, ReduceError> {
    use inkwell::attributes::{Attribute, AttributeLoc};
    use inkwell::llvm_sys::LLVMLinkage;
    let m = module.as_mut_ptr();
    let marked = inlinable(m, framework);
    let noinline = Attribute::get_named_enum_kind_id("noinline");
    let optnone = Attribute::get_named_enum_kind_id("optnone");
    let always = Attribute::get_named_enum_kind_id("alwaysinline");
    let ctx = module.get_context();
    for f in u::functions(m).into_iter().filter(|f| !f.is_declaration()) {
        let Some(fv) = module.get_function(&f.name()) else {
            continue;
        };
        fv.remove_enum_attribute(AttributeLoc::Function, noinline);
        fv.remove_enum_attribute(AttributeLoc::Function, optnone);
        if matches!(
            f.linkage(),
            LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
        ) {
            f.set_linkage(LLVMLinkage::LLVMExternalLinkage);
        }
        if marked.contains(&f.name()) {
            fv.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(always, 0));
        }
    }
    if !marked.is_empty() {
        crate::ir::run_pipeline(module, &proxy_machine(unit)?, "always-inline")?;
        // The inliner brackets inlined allocas with lifetime markers, which
        // clang's -O0 output never has: dropped, so an inlined body reads
        // like the same code written inline.
        for f in u::functions(m).into_iter().filter(|f| !f.is_declaration()) {
            for i in f.instructions() {
                let lifetime = i.opcode() == Some(Opcode::LLVMCall)
                    && i.called_function()
                        .is_some_and(|g| g.name().starts_with("llvm.lifetime."));
                if lifetime {
                    i.erase();
                }
            }
        }
    }
    Ok(marked)
}

/// A target machine for the proxy triple (the pass manager's cost models).
fn proxy_machine(unit: &str) -> Result<inkwell::targets::TargetMachine, ReduceError> {
    use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetTriple};
    Target::initialize_riscv(&InitializationConfig::default());
    let triple = TargetTriple::create(PROXY_TRIPLE);
    let err = |m: String| ReduceError::Llvm {
        pipeline: format!("proxy target machine ({unit})"),
        message: m,
    };
    Target::from_triple(&triple)
        .map_err(|e| err(e.to_string()))?
        .create_target_machine(
            &triple,
            "generic-rv32",
            "",
            inkwell::OptimizationLevel::None,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| err("cannot create the riscv32 target machine".into()))
}

/// A constant that can be a CRC polynomial: not zero and not a complement
/// mask (`0xff`, `0xffff`, `0xffffffff`, … — what `~x` and final xors use).
fn poly_like(c: u64) -> bool {
    c != 0 && ![0xff, 0xffff, 0xffff_ffff, u64::MAX].contains(&c)
}

/// `v` without the integer casts C's promotions put around it.
fn uncast(mut v: Val) -> Val {
    while matches!(
        v.opcode(),
        Some(Opcode::LLVMZExt | Opcode::LLVMSExt | Opcode::LLVMTrunc)
    ) {
        match v.operand(0) {
            Some(x) => v = x,
            None => break,
        }
    }
    v
}

/// A shift left or right by exactly one bit.
fn is_shift1(v: Val) -> bool {
    matches!(
        v.opcode(),
        Some(Opcode::LLVMShl | Opcode::LLVMLShr | Opcode::LLVMAShr)
    ) && v.operand(1).and_then(Val::const_int) == Some(1)
}

/// Whether a value flows into an xor (looking through casts).
fn feeds_xor(v: Val, depth: u32) -> bool {
    depth < 4
        && v.users().into_iter().any(|u| match u.opcode() {
            Some(Opcode::LLVMXor) => true,
            Some(Opcode::LLVMZExt | Opcode::LLVMSExt | Opcode::LLVMTrunc) => {
                feeds_xor(u, depth + 1)
            }
            _ => false,
        })
}

/// A constant, or a `-O0` local that holds one: stored exactly once, with
/// a constant (`u32 poly = 0xedb88320; … crc ^= poly;`). A local updated
/// in the loop (a Toeplitz key, a running value) is no constant.
fn const_value(v: Val) -> Option<u64> {
    v.const_int().or_else(|| {
        let vs = local_values(v)?;
        match vs[..] {
            [x] => uncast(x).const_int(),
            _ => None,
        }
    })
}

fn const_operand(i: Val) -> Option<u64> {
    i.operand(0)
        .and_then(Val::const_int)
        .or_else(|| i.operand(1).and_then(Val::const_int))
}

/// Whether `v` is computed from an xor within a few steps, looking through
/// casts, masks, shifts and (at `-O0`) a local variable's stores.
fn from_xor(v: Val, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    match v.opcode() {
        Some(Opcode::LLVMXor) => true,
        Some(
            Opcode::LLVMAnd
            | Opcode::LLVMLShr
            | Opcode::LLVMZExt
            | Opcode::LLVMSExt
            | Opcode::LLVMTrunc,
        ) => v.operand(0).is_some_and(|x| from_xor(x, depth + 1)),
        Some(Opcode::LLVMLoad) => match v.pointer_operand() {
            Some(a) if a.opcode() == Some(Opcode::LLVMAlloca) => a.users().into_iter().any(|u| {
                u.opcode() == Some(Opcode::LLVMStore)
                    && u.pointer_operand() == Some(a)
                    && u.operand(0).is_some_and(|x| from_xor(x, depth + 1))
            }),
            _ => false,
        },
        _ => false,
    }
}

/// Whether an index is narrowed to a byte or a nibble (a 256- or 16-entry table).
fn byte_index(v: Val, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    match v.opcode() {
        Some(Opcode::LLVMAnd) => const_operand(v).is_some_and(|c| c == 0xff || c == 0xf),
        Some(Opcode::LLVMLShr) => {
            v.int_width() == 8
                || v.operand(1)
                    .and_then(Val::const_int)
                    .is_some_and(|c| c == 4 || c == 24 || c == 28 || c == 56)
        }
        // A truncation to a byte narrows; one to at least pointer width
        // (riscv32: a 64-bit CRC's index cast to 32 bits) only casts the
        // index, whatever the register width.
        Some(Opcode::LLVMTrunc) => {
            v.int_width() == 8
                || (v.int_width() >= 32 && v.operand(0).is_some_and(|x| byte_index(x, depth + 1)))
        }
        Some(Opcode::LLVMZExt | Opcode::LLVMSExt) => v
            .operand(0)
            .is_some_and(|x| x.int_width() == 8 || byte_index(x, depth + 1)),
        // `(crc & 0xf) ^ (b & 0xf)`: both sides narrowed.
        Some(Opcode::LLVMXor) => {
            v.operand(0).is_some_and(|x| byte_index(x, depth + 1))
                && v.operand(1).is_some_and(|x| byte_index(x, depth + 1))
        }
        // The index kept in an `-O0` local (`i = (crc ^ *p) & 0xff; crc =
        // t[i] ^ …`), as `from_xor` reads it.
        Some(Opcode::LLVMLoad) => local_values(v)
            .is_some_and(|vs| !vs.is_empty() && vs.into_iter().all(|x| byte_index(x, depth + 1))),
        _ => false,
    }
}

/// A rotation by a constant, `(x << c) | (x >> (w - c))`.
fn is_rotation(v: Val) -> bool {
    if v.opcode() != Some(Opcode::LLVMOr) {
        return false;
    }
    let (Some(a), Some(b)) = (v.operand(0), v.operand(1)) else {
        return false;
    };
    let w = u64::from(v.int_width());
    let by = |x: Val, op: Opcode| {
        (x.opcode() == Some(op))
            .then(|| x.operand(1).and_then(Val::const_int))
            .flatten()
    };
    let rot = |x: Val, y: Val| matches!((by(x, Opcode::LLVMShl), by(y, Opcode::LLVMLShr)), (Some(l), Some(r)) if l + r == w);
    rot(a, b) || rot(b, a)
}

/// Whether `v` is a rotation, looking through casts and (at `-O0`) the
/// values stored into a local variable it is loaded from.
fn rotated(v: Val, depth: u32) -> bool {
    let v = uncast(v);
    if is_rotation(v) {
        return true;
    }
    if depth > 2 || v.opcode() != Some(Opcode::LLVMLoad) {
        return false;
    }
    match v.pointer_operand() {
        Some(a) if a.opcode() == Some(Opcode::LLVMAlloca) => a.users().into_iter().any(|u| {
            u.opcode() == Some(Opcode::LLVMStore)
                && u.pointer_operand() == Some(a)
                && u.operand(0).is_some_and(|x| rotated(x, depth + 1))
        }),
        _ => false,
    }
}

/// Whether an address or index `v` is computed from a load of the local
/// variable `a` (through GEPs, casts, integer arithmetic and other `-O0`
/// locals), looking `limit` steps deep (a local costs two).
fn addressed_within(v: Val, a: Val, depth: u32, limit: u32) -> bool {
    if depth > limit {
        return false;
    }
    match v.opcode() {
        // Directly, or through another local set from `a` (`h =
        // &hosts[idx]; idx = h->next;`: the walk goes through a pointer).
        Some(Opcode::LLVMLoad) => {
            v.pointer_operand() == Some(a)
                || depth + 2 < limit
                    && local_values(v).is_some_and(|vs| {
                        vs.into_iter()
                            .any(|x| addressed_within(x, a, depth + 2, limit))
                    })
        }
        Some(
            Opcode::LLVMGetElementPtr
            | Opcode::LLVMBitCast
            | Opcode::LLVMZExt
            | Opcode::LLVMSExt
            | Opcode::LLVMTrunc
            | Opcode::LLVMAdd
            | Opcode::LLVMSub
            | Opcode::LLVMMul
            | Opcode::LLVMShl
            | Opcode::LLVMLShr
            | Opcode::LLVMAnd
            | Opcode::LLVMOr,
        ) => v
            .operands()
            .into_iter()
            .any(|o| addressed_within(o, a, depth + 1, limit)),
        _ => false,
    }
}

/// The loads a stored value is (through casts, phis and selects).
fn loaded_values(v: Val, depth: u32, out: &mut Vec<Val>) {
    let v = uncast(v);
    match v.opcode() {
        Some(Opcode::LLVMLoad) => out.push(v),
        Some(Opcode::LLVMPHI) if depth < 3 => {
            for (x, _) in v.phi_incoming() {
                loaded_values(x, depth + 1, out);
            }
        }
        Some(Opcode::LLVMSelect) if depth < 3 => {
            for x in v.operands().into_iter().skip(1) {
                loaded_values(x, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// `A = *f(A)`: a store into the local variable `A` of a value loaded from
/// non-stack memory whose address is computed from `A`'s current value —
/// or assembled from such loads ([`assembled_from_node`]: `x = buf[3] |
/// buf[4] << 8 | buf[5] << 16; off = x;` with `buf` at `off`'s record): a
/// walk's next position is whatever the current node says it is, whether
/// it is stored as one pointer or as record bytes.
fn is_walk_step(store: Val) -> bool {
    let (Some(a), Some(v)) = (store.pointer_operand(), store.operand(0)) else {
        return false;
    };
    walk_step(a, v)
}

/// [`is_walk_step`] on its parts: `v` put into the local `a` (a store, or
/// a self-call handing `v` to the parameter `a` holds).
fn walk_step(a: Val, v: Val) -> bool {
    if a.opcode() != Some(Opcode::LLVMAlloca) {
        return false;
    }
    let mut loads = vec![];
    loaded_values(v, 0, &mut loads);
    loads.into_iter().any(|l| node_load(l, a, 8)) || assembled_from_node(v, a)
}

/// The `-O0` local a parameter is kept in: the alloca the entry stores the
/// argument into.
fn param_local(p: Val) -> Option<Val> {
    p.users().into_iter().find_map(|u| {
        (u.opcode() == Some(Opcode::LLVMStore) && u.operand(0) == Some(p))
            .then(|| u.pointer_operand())
            .flatten()
            .filter(|a| a.opcode() == Some(Opcode::LLVMAlloca))
    })
}

/// A halving: `(lo + hi) / 2`, `(lo + hi) >> 1`, `lo + ((hi - lo) >> 1)`.
fn is_halving(v: Val) -> bool {
    let v = uncast(v);
    match v.opcode() {
        Some(Opcode::LLVMLShr | Opcode::LLVMAShr) => {
            v.operand(1).and_then(Val::const_int) == Some(1)
                && v.operand(0).is_some_and(sum_or_difference)
        }
        Some(Opcode::LLVMSDiv | Opcode::LLVMUDiv) => {
            v.operand(1).and_then(Val::const_int) == Some(2)
                && v.operand(0).is_some_and(sum_or_difference)
        }
        Some(Opcode::LLVMAdd) => v.operands().into_iter().any(|o| {
            let o = uncast(o);
            matches!(
                o.opcode(),
                Some(Opcode::LLVMLShr | Opcode::LLVMAShr | Opcode::LLVMSDiv | Opcode::LLVMUDiv)
            ) && is_halving(o)
        }),
        _ => false,
    }
}

/// How a self-call's argument descends, the recursion's counterpart of a
/// loop's step ("recursion is a loop", fourteenth session). `locals` are
/// the parameters' `-O0` locals (pointer parameters flagged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Descent {
    /// A pointer read from memory a pointer parameter designates (`n->child`,
    /// `&t->table[mid].sub`), or an address into that memory at a variable
    /// offset (`a + mid + 1`): a walk step to the next node.
    Pointer,
    /// A parameter plus or minus a constant (`depth + 1`), or a bound of a
    /// halved range (`mid`, `mid - 1`): the loop counter of a bounded search.
    Index,
}

fn descent(v: Val, locals: &[(Val, bool)]) -> Option<Descent> {
    let v = uncast(v);
    let ptr_locals = || locals.iter().filter(|(_, p)| *p).map(|(a, _)| *a);
    if v.is_ptr_type() {
        // Down the address chain: a load of a node reached from a pointer
        // parameter, or a variable offset into its memory.
        let mut x = v;
        for _ in 0..8 {
            match x.opcode() {
                Some(Opcode::LLVMGetElementPtr) => {
                    let base = x.operand(0)?;
                    let variable = (1..x.num_operands())
                        .any(|k| x.operand(k).is_some_and(|o| o.const_int().is_none()));
                    let base_is_param = base.opcode() == Some(Opcode::LLVMLoad)
                        && base
                            .pointer_operand()
                            .is_some_and(|a| ptr_locals().any(|l| l == a));
                    if variable && base_is_param {
                        return Some(Descent::Pointer);
                    }
                    x = base;
                }
                Some(Opcode::LLVMBitCast) => x = x.operand(0)?,
                Some(Opcode::LLVMLoad) => {
                    let p = x.pointer_operand()?;
                    if p.opcode() == Some(Opcode::LLVMAlloca) {
                        return None;
                    }
                    if ptr_locals().any(|a| node_load(x, a, 8)) {
                        return Some(Descent::Pointer);
                    }
                    x = p;
                }
                _ => return None,
            }
        }
        return None;
    }
    // An integer: strip `± constant`, then a parameter's local, or a local
    // set from a halving.
    let mut x = v;
    if matches!(x.opcode(), Some(Opcode::LLVMAdd | Opcode::LLVMSub)) && const_operand(x).is_some() {
        x = x
            .operands()
            .into_iter()
            .map(uncast)
            .find(|o| o.const_int().is_none())?;
    }
    let offset = x != v;
    if is_halving(x) {
        return Some(Descent::Index);
    }
    let a = (x.opcode() == Some(Opcode::LLVMLoad))
        .then(|| x.pointer_operand())
        .flatten()?;
    if offset && locals.iter().any(|(l, p)| !*p && *l == a) {
        return Some(Descent::Index);
    }
    local_values(x)
        .is_some_and(|vs| vs.into_iter().any(is_halving))
        .then_some(Descent::Index)
}

/// The descending self-calls of `f`: each with its arguments' descents
/// (`None` for an argument handed on unchanged or computed otherwise).
/// A self-call none of whose arguments descends (a retry, a dispatch) is
/// no loop.
fn descending_self_calls(f: Val) -> Vec<(Val, Vec<Option<Descent>>)> {
    let params = f.params();
    let locals: Vec<(Val, bool)> = params
        .iter()
        .filter_map(|p| param_local(*p).map(|a| (a, p.is_ptr_type())))
        .collect();
    let mut out = vec![];
    for b in f.blocks() {
        for i in b.instructions() {
            if i.opcode() != Some(Opcode::LLVMCall) || i.called_function() != Some(f) {
                continue;
            }
            let ds: Vec<Option<Descent>> = (0..i.num_arg_operands())
                .map(|k| i.operand(k).and_then(|v| descent(v, &locals)))
                .collect();
            if ds.iter().any(Option::is_some) {
                out.push((i, ds));
            }
        }
    }
    out
}

/// A load from non-stack memory whose address is computed from the local
/// `a`'s current value (a field or record of the node `a` designates).
fn node_load(l: Val, a: Val, limit: u32) -> bool {
    l.opcode() == Some(Opcode::LLVMLoad)
        && l.pointer_operand().is_some_and(|p| {
            p.opcode() != Some(Opcode::LLVMAlloca) && p != a && addressed_within(p, a, 0, limit)
        })
}

/// Whether `v` is a next position assembled from the node `a` designates:
/// an add/or/shift/constant-multiply combination (through casts, phis and
/// `-O0` locals other than `a`) whose every leaf is a constant or a load of
/// the node ([`node_load`]), at least one of them a load. A leaf that is
/// `a`'s own value makes it an *advance* (`off += 2 + p[off + 1]`, a TLV
/// parser's cursor), not a walk; an xor makes it a mix (a table CRC's
/// `crc = t[crc & 0xff] ^ (crc >> 8)`).
fn assembled_from_node(v: Val, a: Val) -> bool {
    // Ok(true): only node loads and constants, at least one load; Ok(false):
    // only constants (and the local being expanded); Err: anything else.
    fn leaves(v: Val, a: Val, expanding: &mut Vec<Val>, depth: u32) -> Result<bool, ()> {
        if depth > 10 {
            return Err(());
        }
        let v = uncast(v);
        if v.const_int().is_some() {
            return Ok(false);
        }
        match v.opcode() {
            Some(Opcode::LLVMLoad) => {
                // Records are read through a cursor into the node's
                // record (`p = &buf[2 * j]; x += *(--p)`, `buf` at the
                // node's offset): look deeper than a single step does.
                if node_load(v, a, 12) {
                    return Ok(true);
                }
                let Some(l) = local_of(v).filter(|&l| l != a) else {
                    return Err(());
                };
                // A local's own earlier value (`x <<= 8; x += *--p;`) is
                // the accumulation in progress, neutral.
                if expanding.contains(&l) {
                    return Ok(false);
                }
                expanding.push(l);
                let mut any = false;
                let r = local_values(v).ok_or(())?.into_iter().try_for_each(|x| {
                    any |= leaves(x, a, expanding, depth + 2)?;
                    Ok(())
                });
                expanding.pop();
                r.map(|()| any)
            }
            Some(Opcode::LLVMAdd | Opcode::LLVMOr | Opcode::LLVMShl) => {
                let mut any = false;
                for o in v.operands() {
                    any |= leaves(o, a, expanding, depth + 1)?;
                }
                Ok(any)
            }
            Some(Opcode::LLVMMul) if const_operand(v).is_some() => {
                let mut any = false;
                for o in v.operands() {
                    any |= leaves(o, a, expanding, depth + 1)?;
                }
                Ok(any)
            }
            Some(Opcode::LLVMPHI) => {
                let mut any = false;
                for (x, _) in v.phi_incoming() {
                    any |= leaves(x, a, expanding, depth + 1)?;
                }
                Ok(any)
            }
            _ => Err(()),
        }
    }
    leaves(v, a, &mut vec![], 0) == Ok(true)
}

/// A load of a local variable that some store sets to a one-bit shift.
fn shifted1_via_local(v: Val) -> bool {
    if v.opcode() != Some(Opcode::LLVMLoad) {
        return false;
    }
    match v.pointer_operand() {
        Some(a) if a.opcode() == Some(Opcode::LLVMAlloca) => a.users().into_iter().any(|u| {
            u.opcode() == Some(Opcode::LLVMStore)
                && u.pointer_operand() == Some(a)
                // A register kept to its width by a constant mask
                // (`state = (state << 1) & 0xffffff`) is still shifted by
                // one bit.
                && u.operand(0).is_some_and(|x| is_shift1(unmasked(x)))
        }),
        _ => false,
    }
}

/// The integer operations a value is computed through (arithmetic,
/// bitwise, compares and selects), as the register and state walks follow
/// them.
fn value_op(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::LLVMXor
            | Opcode::LLVMOr
            | Opcode::LLVMAnd
            | Opcode::LLVMAdd
            | Opcode::LLVMSub
            | Opcode::LLVMMul
            | Opcode::LLVMShl
            | Opcode::LLVMLShr
            | Opcode::LLVMAShr
            | Opcode::LLVMICmp
            | Opcode::LLVMSelect
    )
}

/// The global variables a function stores into (through GEPs): a
/// generator's state, a CRC's global register, a filled table.
fn written_globals(f: Val) -> Vec<Val> {
    let mut out = vec![];
    for b in f.blocks() {
        for i in b.instructions() {
            if i.opcode() != Some(Opcode::LLVMStore) {
                continue;
            }
            if let Some(g) = i.pointer_operand().and_then(global_base) {
                if !out.contains(&g) {
                    out.push(g);
                }
            }
        }
    }
    out
}

/// The global variable an address points into (through GEPs and casts).
fn global_base(p: Val) -> Option<Val> {
    let mut x = p;
    for _ in 0..8 {
        if x.is_global_var() {
            return Some(x);
        }
        if !is_gep(x) && x.opcode() != Some(Opcode::LLVMBitCast) {
            return None;
        }
        x = x.operand(0)?;
    }
    None
}

/// Whether every value stored into the local `r` comes only from the
/// global state the function writes (`written`), constants and other
/// locals computed the same way: a generator's register seeded from its
/// own state (`x = (mt[i] & UM) | (mt[i + 1] & LM)`). An argument, or a
/// load from anything else (a message buffer), is data; a table fill's
/// register is seeded with the loop index (a local counted from a
/// constant), which is not state, so the answer there is `false`.
fn seeded_from_state(r: Val, written: &[Val]) -> bool {
    let stores: Vec<Val> = r
        .users()
        .into_iter()
        .filter(|u| u.opcode() == Some(Opcode::LLVMStore) && u.pointer_operand() == Some(r))
        .collect();
    // Every seed (a store not computed from `r`) reads the state: a table
    // fill that also starts a register from a constant (`crc = 1`) or an
    // index, then re-reads entries it wrote, is seeded by that constant.
    !stores.is_empty()
        && stores.iter().all(|u| {
            let mut state = false;
            let mut seen = vec![r];
            u.operand(0).is_some_and(|v| {
                state_value(v, r, written, 0, &mut seen, &mut state)
                    && (state || mentions_register(v, r))
            })
        })
}

/// Whether `v` is computed only from the register `r`, constants, the
/// global state the function writes (`written`; `*state` records that some
/// was read) and tables indexed by such values (`mag01[x & 1]`: the
/// polynomial chosen by the register's bit), through integer arithmetic
/// and `-O0` locals. An argument or any other load is data.
fn state_value(
    v: Val,
    r: Val,
    written: &[Val],
    depth: u32,
    seen: &mut Vec<Val>,
    state: &mut bool,
) -> bool {
    let v = uncast(v);
    if v.const_int().is_some() {
        return true;
    }
    if depth > 12 || v.is_argument() {
        return false;
    }
    match v.opcode() {
        Some(Opcode::LLVMLoad) => match local_of(v) {
            Some(l) if l == r => true,
            Some(l) => {
                if seen.contains(&l) {
                    return true;
                }
                seen.push(l);
                let vs = local_values(v).unwrap_or_default();
                !vs.is_empty()
                    && vs
                        .into_iter()
                        .all(|x| state_value(x, r, written, depth + 2, seen, state))
            }
            None => {
                let Some(p) = v.pointer_operand() else {
                    return false;
                };
                match global_base(p) {
                    Some(g) if written.contains(&g) => {
                        *state = true;
                        true
                    }
                    // A table of the unit, indexed by state or the register.
                    Some(_) => {
                        let mut x = p;
                        while is_gep(x) {
                            let ok = (1..x.num_operands()).all(|k| {
                                x.operand(k).is_some_and(|ix| {
                                    state_value(ix, r, written, depth + 1, seen, state)
                                })
                            });
                            if !ok {
                                return false;
                            }
                            match x.operand(0) {
                                Some(b) => x = b,
                                None => break,
                            }
                        }
                        true
                    }
                    None => false,
                }
            }
        },
        Some(op) if value_op(op) => v
            .operands()
            .into_iter()
            .all(|o| state_value(o, r, written, depth + 1, seen, state)),
        _ => false,
    }
}

/// Whether the data enters the register `r` of a one-bit polynomial step
/// `step` (`(r >> 1) ^ P`, or `r ^= P` after `r >>= 1`): in a CRC the
/// message is divided, so the register's next value or its feedback
/// depends on the data combined with the register — `r ^= *p` or `r =
/// (r << 1) | bit` (a store into `r` other than the step mixing `r` with a
/// non-constant term, [`mixes_register`]), `if ((r ^ d) & 1)` (the
/// condition `cond` the step is taken under), `P & -((r ^ d) & 1)` (the
/// step's own feedback term `feedback`) — or the register is the result
/// itself, stored to memory or returned (a CRC table fill seeds the
/// register with each index and stores what the steps make of it). A
/// keyed LFSR digest rolls its key by the same step independently of the
/// data and only xors it into a sum for each set data bit: the data never
/// enters the key, and the key is no result.
fn data_enters(
    r: Val,
    step: Val,
    feedback: Val,
    cond: Option<Val>,
    reseeded: impl Fn(Val) -> bool,
) -> bool {
    let stores: Vec<Val> = r
        .users()
        .into_iter()
        .filter(|u| u.opcode() == Some(Opcode::LLVMStore) && u.pointer_operand() == Some(r))
        .collect();
    stores
        .iter()
        .filter_map(|u| u.operand(0))
        .any(|v| mixes_register(v, r, step))
        || mixes_register(feedback, r, step)
        || cond.is_some_and(|c| mixes_register(c, r, step))
        || register_is_result(r)
        // A table fill seeds the register afresh for every entry (with the
        // entry's index, `crc = reflect(i)`) in a loop around the steps:
        // each entry is the CRC of its index. A digest's key is seeded once.
        || stores.iter().any(|&u| {
            u.operand(0).is_some_and(|v| !mentions_register(v, r)) && reseeded(u)
        })
}

/// Whether `v` is computed from the local `r`'s value (through integer
/// arithmetic, casts and other `-O0` locals).
fn mentions_register(v: Val, r: Val) -> bool {
    fn walk(v: Val, r: Val, depth: u32, seen: &mut Vec<Val>) -> bool {
        let v = uncast(v);
        if depth > 12 {
            return false;
        }
        match v.opcode() {
            Some(Opcode::LLVMLoad) => match local_of(v) {
                Some(l) if l == r => true,
                Some(l) if !seen.contains(&l) => {
                    seen.push(l);
                    local_values(v)
                        .unwrap_or_default()
                        .into_iter()
                        .any(|x| walk(x, r, depth + 2, seen))
                }
                _ => false,
            },
            Some(_) if v.num_operands() > 0 && !v.is_argument() => v
                .operands()
                .into_iter()
                .any(|o| walk(o, r, depth + 1, seen)),
            _ => false,
        }
    }
    walk(v, r, 0, &mut vec![])
}

/// Whether `v` is computed from the local `r`'s value and from some other
/// non-constant term (data, an argument, another variable), through
/// integer arithmetic, compares, casts, phis and other `-O0` locals. The
/// polynomial step `step` counts as `r`'s value alone (`r = m ? (r >> 1) ^
/// g : r >> 1` rolls the register, its polynomial is no data).
fn mixes_register(v: Val, r: Val, step: Val) -> bool {
    struct Walk {
        r: Val,
        step: Val,
        seen: Vec<Val>,
        has_r: bool,
        other: bool,
    }
    fn walk(w: &mut Walk, v: Val, depth: u32) {
        let v = uncast(v);
        if v.const_int().is_some() {
            return;
        }
        if v == w.step {
            w.has_r = true;
            return;
        }
        if depth > 12 {
            w.other = true;
            return;
        }
        match v.opcode() {
            Some(Opcode::LLVMLoad) => match local_of(v) {
                Some(l) if l == w.r => w.has_r = true,
                Some(l) => {
                    if w.seen.contains(&l) {
                        return;
                    }
                    w.seen.push(l);
                    let vs = local_values(v).unwrap_or_default();
                    if vs.is_empty() {
                        w.other = true;
                    }
                    for x in vs {
                        walk(w, x, depth + 2);
                    }
                }
                None => w.other = true,
            },
            Some(op) if value_op(op) || op == Opcode::LLVMPHI => {
                for o in v.operands() {
                    walk(w, o, depth + 1);
                }
            }
            _ => w.other = true,
        }
    }
    let mut w = Walk {
        r,
        step,
        seen: vec![],
        has_r: false,
        other: false,
    };
    walk(&mut w, v, 0);
    w.has_r && w.other
}

/// Whether the local `r`'s value is a result: computed on directly
/// (casts, integer arithmetic; no other local in between) into a store to
/// non-stack memory (`table[n] = crc`, `table[i + j] = table[j] ^ h`) or a
/// return. A digest's key reaches its result only through the sum local
/// it is xored into.
fn register_is_result(r: Val) -> bool {
    fn used_as_result(v: Val, depth: u32) -> bool {
        depth < 6
            && v.users().into_iter().any(|u| match u.opcode() {
                Some(Opcode::LLVMRet) => true,
                Some(Opcode::LLVMStore) => {
                    u.operand(0) == Some(v)
                        && u.pointer_operand()
                            .is_some_and(|p| p.opcode() != Some(Opcode::LLVMAlloca))
                }
                Some(
                    Opcode::LLVMZExt
                    | Opcode::LLVMSExt
                    | Opcode::LLVMTrunc
                    | Opcode::LLVMXor
                    | Opcode::LLVMOr
                    | Opcode::LLVMAnd
                    | Opcode::LLVMShl
                    | Opcode::LLVMLShr,
                ) => used_as_result(u, depth + 1),
                _ => false,
            })
    }
    r.users().into_iter().any(|u| {
        u.opcode() == Some(Opcode::LLVMLoad)
            && u.pointer_operand() == Some(r)
            && used_as_result(u, 0)
    })
}

/// The values stored into the `-O0` local variable that `v` loads (None
/// when `v` is no load of a local).
fn local_values(v: Val) -> Option<Vec<Val>> {
    if v.opcode() != Some(Opcode::LLVMLoad) {
        return None;
    }
    let a = v.pointer_operand()?;
    if a.opcode() != Some(Opcode::LLVMAlloca) {
        return None;
    }
    let mut out: Vec<Val> = a
        .users()
        .into_iter()
        .filter(|u| u.opcode() == Some(Opcode::LLVMStore) && u.pointer_operand() == Some(a))
        .filter_map(|u| u.operand(0))
        .collect();
    // An out-parameter: `a`'s address stored in a pointer local `b` (an
    // inlined `T **out` parameter, `p = &a`), and stores through `*b`
    // (`*out = v`) set `a` too.
    for u in a.users() {
        let Some(b) = u.pointer_operand().filter(|b| {
            u.opcode() == Some(Opcode::LLVMStore)
                && u.operand(0) == Some(a)
                && b.opcode() == Some(Opcode::LLVMAlloca)
        }) else {
            continue;
        };
        for l in b.users() {
            if l.opcode() != Some(Opcode::LLVMLoad) || l.pointer_operand() != Some(b) {
                continue;
            }
            out.extend(
                l.users()
                    .into_iter()
                    .filter(|st| {
                        st.opcode() == Some(Opcode::LLVMStore) && st.pointer_operand() == Some(l)
                    })
                    .filter_map(|st| st.operand(0)),
            );
        }
    }
    Some(out)
}

/// Whether an integer is *bits of a key*: a value narrowed by a constant
/// mask, a constant shift or a truncation, a byte or half-word read from
/// memory, or an or/shift combination of such (`(ip[0] << 16) | (ip[1] <<
/// 8) | ip[2]`), through casts and `-O0` locals. What selects a level or
/// a child in an LPM structure, `ip >> 8`, `ip & 0xff`, `(uint8_t)ip`.
fn key_bits(v: Val, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    match v.opcode() {
        Some(Opcode::LLVMAnd) => const_operand(v).is_some(),
        Some(Opcode::LLVMLShr | Opcode::LLVMAShr) => {
            v.operand(1).and_then(Val::const_int).is_some()
        }
        Some(Opcode::LLVMTrunc) => v.int_width() <= 16,
        Some(Opcode::LLVMZExt | Opcode::LLVMSExt) => v.operand(0).is_some_and(|x| {
            (x.opcode() == Some(Opcode::LLVMLoad)
                && x.int_width() <= 16
                && x.pointer_operand()
                    .is_some_and(|p| p.opcode() != Some(Opcode::LLVMAlloca)))
                || key_bits(x, depth + 1)
        }),
        Some(Opcode::LLVMOr) => v.operands().into_iter().all(|x| key_bits(x, depth + 1)),
        Some(Opcode::LLVMShl) => {
            v.operand(1).and_then(Val::const_int).is_some()
                && v.operand(0).is_some_and(|x| key_bits(x, depth + 1))
        }
        Some(Opcode::LLVMLoad) => match local_values(v) {
            Some(vs) => !vs.is_empty() && vs.iter().any(|x| key_bits(*x, depth + 1)),
            // A byte or half-word read from memory (`ip[b]`, the zero
            // extension already looked through by the caller).
            None => {
                v.int_width() <= 16
                    && v.pointer_operand()
                        .is_some_and(|p| p.opcode() != Some(Opcode::LLVMAlloca))
            }
        },
        _ => false,
    }
}

/// The GEPs an address is made of: the GEP itself and its base's, through
/// bitcasts and `-O0` pointer locals (`ptbl = &tbl24[i]; e = *ptbl;`).
fn address_geps(p: Val, depth: u32, out: &mut Vec<Val>) {
    if depth > 6 {
        return;
    }
    if is_gep(p) {
        out.push(p);
        if let Some(b) = p.operand(0) {
            address_geps(b, depth + 1, out);
        }
    } else if matches!(p.opcode(), Some(Opcode::LLVMBitCast)) {
        if let Some(b) = p.operand(0) {
            address_geps(b, depth + 1, out);
        }
    } else if let Some(vs) = local_values(p) {
        for x in vs {
            address_geps(x, depth + 1, out);
        }
    }
}

/// The addresses `p` may be, each as its chain of GEPs (the GEP and its
/// base's), through bitcasts and `-O0` pointer locals: one chain per value
/// a pointer local is set to (`p = &t24[i]; … p = &t8[j];` is two).
fn address_chains(p: Val, depth: u32) -> Vec<Vec<Val>> {
    if depth > 6 {
        return vec![vec![]];
    }
    if is_gep(p) {
        let mut chains = match p.operand(0) {
            Some(b) => address_chains(b, depth + 1),
            None => vec![vec![]],
        };
        for c in &mut chains {
            c.push(p);
        }
        chains
    } else if matches!(p.opcode(), Some(Opcode::LLVMBitCast)) {
        match p.operand(0) {
            Some(b) => address_chains(b, depth + 1),
            None => vec![vec![]],
        }
    } else if let Some(vs) = local_values(p) {
        let chains: Vec<Vec<Val>> = vs
            .into_iter()
            .flat_map(|x| address_chains(x, depth + 1))
            .collect();
        if chains.is_empty() {
            vec![vec![]]
        } else {
            chains
        }
    } else {
        vec![vec![]]
    }
}

/// The variable indices of an address (every GEP of [`address_geps`]).
fn address_indices(p: Val) -> Vec<Val> {
    let mut geps = vec![];
    address_geps(p, 0, &mut geps);
    geps.into_iter()
        .flat_map(|g| g.operands().into_iter().skip(1))
        .filter(|x| x.const_int().is_none())
        .collect()
}

/// An entry of a table *level*: a value loaded from an address whose index
/// is key bits, or depends on such an entry in turn (the next level),
/// through casts, `-O0` locals and pointer locals. `tbl24[ip >> 8]` is
/// one; `heads[hash(k)]`, `next[i]` and `S[i]` with `i` a counter are not.
fn level_entry(v: Val, depth: u32) -> bool {
    if depth > 5 {
        return false;
    }
    let v = uncast(v);
    if v.opcode() != Some(Opcode::LLVMLoad) {
        return false;
    }
    if let Some(vs) = local_values(v) {
        return vs.into_iter().any(|x| level_entry(x, depth + 1));
    }
    let Some(p) = v.pointer_operand() else {
        return false;
    };
    address_indices(p)
        .into_iter()
        .any(|i| key_bits(i, 0) || on_level_entry(i, depth + 1))
}

/// Whether an integer is computed from a level entry ([`level_entry`]).
fn on_level_entry(v: Val, depth: u32) -> bool {
    if depth > 5 {
        return false;
    }
    match v.opcode() {
        Some(Opcode::LLVMLoad) => {
            level_entry(v, depth)
                || local_values(v)
                    .is_some_and(|vs| vs.into_iter().any(|x| on_level_entry(x, depth + 1)))
        }
        Some(
            Opcode::LLVMAdd
            | Opcode::LLVMSub
            | Opcode::LLVMMul
            | Opcode::LLVMShl
            | Opcode::LLVMLShr
            | Opcode::LLVMAnd
            | Opcode::LLVMOr
            | Opcode::LLVMZExt
            | Opcode::LLVMSExt
            | Opcode::LLVMTrunc,
        ) => v
            .operands()
            .into_iter()
            .any(|o| on_level_entry(o, depth + 1)),
        _ => false,
    }
}

/// The additive terms of an index (`a + b`, `a | b`), through zero/sign
/// extensions and a local variable stored once (`tbl8_index = …`).
fn index_terms(v: Val, depth: u32, out: &mut Vec<Val>) {
    let mut v = v;
    // Extensions, and a truncation to at least pointer width (riscv32: a
    // 64-bit index cast to 32 bits), only cast the whole index; a narrower
    // truncation selects key bits and is a term of its own.
    while matches!(v.opcode(), Some(Opcode::LLVMZExt | Opcode::LLVMSExt))
        || (v.opcode() == Some(Opcode::LLVMTrunc) && v.int_width() >= 32)
    {
        match v.operand(0) {
            Some(x) => v = x,
            None => break,
        }
    }
    if depth < 4 {
        match v.opcode() {
            Some(Opcode::LLVMAdd | Opcode::LLVMOr) => {
                for o in v.operands() {
                    index_terms(o, depth + 1, out);
                }
                return;
            }
            Some(Opcode::LLVMLoad) => {
                if let Some(vs) = local_values(v) {
                    if vs.len() == 1 {
                        index_terms(vs[0], depth + 1, out);
                        return;
                    }
                }
            }
            _ => {}
        }
    }
    out.push(v);
}

/// The next level of a multi-level table: an address whose index terms
/// combine an entry of the previous level with key bits that do not come
/// from an entry, `tbl8[(e << 8) | (ip & 0xff)]`, `l2[e].entry[(a >> 8) &
/// 0xff]` (next index = f(entry, key >> shift & mask)). A hash chain's
/// next node (`hosts[idx]`, idx an entry alone) and RC4's `S[(S[i] +
/// S[j]) & 0xff]` (entries only) are not.
///
/// Both terms must belong to one address (one chain of
/// [`address_chains`]): a pointer local set once to a bucket at key bits
/// and once to the next node of a chain (an entry alone) is no next level.
fn keyed_next_level(p: Val) -> bool {
    address_chains(p, 0).into_iter().any(|chain| {
        let mut terms = vec![];
        for i in chain
            .iter()
            .flat_map(|g| g.operands().into_iter().skip(1))
            .filter(|x| x.const_int().is_none())
        {
            index_terms(i, 0, &mut terms);
        }
        terms.iter().any(|t| on_level_entry(*t, 0))
            && terms
                .iter()
                .any(|t| key_bits(*t, 0) && !on_level_entry(*t, 0))
    })
}

/// A test of one bit at a variable position, `x & (1 << (31 - d))`, `a[b
/// >> 3] & (0x80 >> (b & 7))`, `(k >> b) & 1`: what steers a trie walk.
fn variable_bit_test(cond: Val) -> bool {
    let var_shift = |x: Val| {
        let x = uncast(x);
        matches!(
            x.opcode(),
            Some(Opcode::LLVMShl | Opcode::LLVMLShr | Opcode::LLVMAShr)
        ) && x.operand(1).is_some_and(|s| s.const_int().is_none())
    };
    let c = uncast(cond);
    let and = if c.opcode() == Some(Opcode::LLVMICmp) {
        c.operands()
            .into_iter()
            .map(uncast)
            .find(|o| o.opcode() == Some(Opcode::LLVMAnd))
    } else if c.opcode() == Some(Opcode::LLVMAnd) {
        Some(c)
    } else {
        None
    };
    and.is_some_and(|a| a.operands().into_iter().any(var_shift))
}

/// A key compared whole with a stored one: `icmp eq/ne` of a value read
/// from a field or element and a non-constant value that is not masked,
/// shifted or mixed (`h->src_ip == src_ip`, `node->hash != hash`); an
/// LPM compares *masked* keys (`(addr & mask) == prefix`).
fn whole_key_compare(i: Val) -> bool {
    let ops: Vec<Val> = i.operands().into_iter().map(uncast).collect();
    if ops.len() != 2 {
        return false;
    }
    let stored = |x: Val| {
        x.opcode() == Some(Opcode::LLVMLoad)
            && !x.is_ptr_type()
            && x.pointer_operand()
                .is_some_and(|p| p.opcode() != Some(Opcode::LLVMAlloca))
    };
    let whole = |x: Val| {
        x.const_int().is_none()
            && !x.is_null_ptr()
            && !x.is_ptr_type()
            && !matches!(
                x.opcode(),
                Some(
                    Opcode::LLVMAnd
                        | Opcode::LLVMOr
                        | Opcode::LLVMXor
                        | Opcode::LLVMShl
                        | Opcode::LLVMLShr
                        | Opcode::LLVMAShr
                )
            )
            && !local_values(x).is_some_and(|vs| {
                vs.iter().any(|v| {
                    matches!(
                        uncast(*v).opcode(),
                        Some(Opcode::LLVMAnd | Opcode::LLVMShl | Opcode::LLVMLShr)
                    )
                })
            })
    };
    (stored(ops[0]) && whole(ops[1])) || (stored(ops[1]) && whole(ops[0]))
}

/// `(q & 0xf) * P` or `(q & 0xff) * P`: the shifted-out bits' reduction
/// as a product (nibble-wise CRCs such as CRC-16/KERMIT's `* 0x1081`).
fn masked_product(v: Val) -> bool {
    let v = uncast(v);
    v.opcode() == Some(Opcode::LLVMMul)
        && const_operand(v).is_some()
        && v.operands().into_iter().map(uncast).any(|o| {
            o.opcode() == Some(Opcode::LLVMAnd)
                && const_operand(o).is_some_and(|c| c == 0xf || c == 0xff)
        })
}

/// `a + b` or `a - b` (looking through casts): what a bisection halves.
fn sum_or_difference(v: Val) -> bool {
    matches!(uncast(v).opcode(), Some(Opcode::LLVMAdd | Opcode::LLVMSub))
}

/// A store that keeps something the walk found: into a local variable or
/// through an out-parameter (`*found = cur`: the caller's variable is the
/// function's best, [`out_parameter_target`]), of a value derived from a
/// node — a field or table entry loaded from non-stack memory (`best =
/// r->nexthop`), or the walked node itself (`best = n`, a local the loop
/// walks). A scalar read at an input cursor (`c = *ucp++`, `c = s[i]`
/// through a pointer local) is the data being consumed, not a node's
/// field ([`input_read`]).
fn stores_node_value(store: Val) -> bool {
    let (Some(a), Some(v)) = (store.pointer_operand(), store.operand(0)) else {
        return false;
    };
    if a.opcode() != Some(Opcode::LLVMAlloca) && !out_parameter_target(a) {
        return false;
    }
    let v = uncast(v);
    if is_gep(v) {
        // An address the loop writes through (`link = &n->next; … *link =
        // m`) is an edit position in a list, not a kept best.
        let written_through = a.users().into_iter().any(|l| {
            l.opcode() == Some(Opcode::LLVMLoad)
                && l.users().into_iter().any(|st| {
                    st.opcode() == Some(Opcode::LLVMStore) && st.pointer_operand() == Some(l)
                })
        });
        return !written_through && walked_node_address(v, a);
    }
    if v.opcode() != Some(Opcode::LLVMLoad) {
        return false;
    }
    let field = v
        .pointer_operand()
        .is_some_and(|p| p.opcode() != Some(Opcode::LLVMAlloca) && !p.is_global_var() || is_gep(p))
        && !input_read(v);
    let walked_node = local_of(v).is_some_and(|l| l != a && walked(l));
    field || walked_node
}

/// A local the loop walks: one of its stores is a walk step
/// ([`is_walk_step`]).
fn walked(l: Val) -> bool {
    l.users().into_iter().any(|u| {
        u.opcode() == Some(Opcode::LLVMStore) && u.pointer_operand() == Some(l) && is_walk_step(u)
    })
}

/// An address into the node a walk is at, kept instead of a loaded value
/// (`domain = &itn[i].domain`, `tv = &itn[i].vals->v`): the base of the
/// address is the walked local's value (other than `a`, the local kept
/// into), or a pointer read from that node. A cursor into the input
/// (`last = &s[i]`, `s` advanced or fixed, never walked) is no node.
fn walked_node_address(v: Val, a: Val) -> bool {
    let base = |mut p: Val| {
        while is_gep(p) || p.opcode() == Some(Opcode::LLVMBitCast) {
            match p.operand(0) {
                Some(b) => p = b,
                None => break,
            }
        }
        p
    };
    let walked_other = |x: Val| local_of(x).is_some_and(|l| l != a && walked(l));
    let b = base(v);
    if walked_other(b) {
        return true;
    }
    // A pointer field of the node (`itn[i].vals`).
    b.opcode() == Some(Opcode::LLVMLoad)
        && b.pointer_operand()
            .is_some_and(|p| is_gep(p) && walked_other(base(p)))
}

/// `p` is the target of an out-parameter: the pointer a function argument
/// passed in, read from its `-O0` local (`*found = cur` for `T **found`),
/// a local only ever set from the argument — one re-pointed in the loop
/// (`link = &r->next; … *link = r->next;`) is an edit position in a list,
/// not the caller's variable.
fn out_parameter_target(p: Val) -> bool {
    local_of(p).is_some_and(|l| {
        let stored: Vec<Val> = l
            .users()
            .into_iter()
            .filter(|u| u.opcode() == Some(Opcode::LLVMStore) && u.pointer_operand() == Some(l))
            .filter_map(|u| u.operand(0))
            .collect();
        !stored.is_empty() && stored.iter().all(|x| x.is_argument() && x.is_ptr_type())
    })
}

/// A scalar read at an input cursor: the element an advancing pointer
/// local points at (`*ucp++`), or a pointer local indexed by a loop
/// counter (`s[i]`), no struct field selected — the bytes a hash or
/// parser consumes. A node's field (`n->nh`, `r[i].nh`) selects a member,
/// and a table entry at a key-derived index (`tbl24[ip >> 8]`) is looked
/// up, not consumed.
fn input_read(l: Val) -> bool {
    let Some(p) = l.pointer_operand() else {
        return false;
    };
    // SAFETY: `type_of` is the load's own (non-null) result type.
    let int = unsafe { c::LLVMGetTypeKind(l.type_of()) == LLVMTypeKind::LLVMIntegerTypeKind };
    if !int {
        return false;
    }
    // A local the function advances from its own value (`p++`, `i++`).
    let advancing = |v: Val| local_of(v).is_some_and(self_updated);
    if advancing(p) {
        return true;
    }
    is_gep(p)
        && p.num_operands() == 2
        && p.operand(0).is_some_and(|b| local_of(b).is_some())
        && p.operand(1).is_some_and(advancing)
}

/// A constant integer sign-extended from its width.
fn signed_const(v: Val) -> Option<i64> {
    let c = v.const_int()?;
    let w = v.int_width().clamp(1, 64);
    Some(((c << (64 - w)) as i64) >> (64 - w))
}

/// A store that *shortens* the value it reads back from the same place:
/// `x = x - c`, `x += -c` (`len--`, `n->pxlen--`) or `x >>= c`, c > 0,
/// through integer casts. Returns the place (a local, or a field through a
/// pointer).
fn shortening_store(store: Val) -> Option<Val> {
    let p = store.pointer_operand()?;
    let v = uncast(store.operand(0)?);
    let (x, c) = (uncast(v.operand(0)?), v.operand(1)?);
    let shorter = match v.opcode()? {
        Opcode::LLVMSub => signed_const(c).is_some_and(|c| c > 0),
        Opcode::LLVMAdd => signed_const(c).is_some_and(|c| c < 0),
        Opcode::LLVMLShr | Opcode::LLVMAShr => c.const_int().is_some_and(|c| c > 0),
        _ => false,
    };
    (shorter && x.opcode() == Some(Opcode::LLVMLoad) && x.pointer_operand() == Some(p)).then_some(p)
}

/// Whether `v` is computed from the value at `p` (a load of it, through
/// casts, integer arithmetic and `-O0` locals).
fn derived_from(v: Val, p: Val, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    match v.opcode() {
        Some(Opcode::LLVMLoad) => {
            v.pointer_operand() == Some(p)
                || local_values(v)
                    .is_some_and(|vs| vs.into_iter().any(|x| derived_from(x, p, depth + 1)))
        }
        // Casts and the value operations other than compares.
        Some(op)
            if matches!(op, Opcode::LLVMZExt | Opcode::LLVMSExt | Opcode::LLVMTrunc)
                || (value_op(op) && op != Opcode::LLVMICmp) =>
        {
            v.operands()
                .into_iter()
                .any(|o| derived_from(o, p, depth + 1))
        }
        // `len ? a & mask(len) : 0` at `-O0` joins its arms in a phi.
        Some(Opcode::LLVMPHI) => v
            .phi_incoming()
            .into_iter()
            .any(|(x, _)| derived_from(x, p, depth + 1)),
        _ => false,
    }
}

/// A call's argument that hands the shortened value at `p` to the lookup:
/// the value itself or something computed from it (`rib_get(rib, addr,
/// len)`, `find(t, key & mask(len))`), or the object whose field `p` is
/// (`n->pxlen--; … fib_find(f, n)`: the prefix travels with its length).
fn passes_shortened(arg: Val, p: Val) -> bool {
    let arg = uncast(arg);
    if derived_from(arg, p, 0) {
        return true;
    }
    // `p` = a field of `*n`, `n` a pointer local; the argument is `n`.
    let mut geps = vec![];
    address_geps(p, 0, &mut geps);
    geps.into_iter().any(|g| {
        g.operand(0).is_some_and(|base| {
            base.opcode() == Some(Opcode::LLVMLoad)
                && arg.opcode() == Some(Opcode::LLVMLoad)
                && base.pointer_operand().is_some()
                && base.pointer_operand() == arg.pointer_operand()
        })
    })
}

/// A comparison with null or zero (`r != NULL`, `!r`).
fn null_test(i: Val) -> Option<Val> {
    if i.opcode() != Some(Opcode::LLVMICmp)
        || !matches!(i.icmp_predicate(), IntPred::LLVMIntEQ | IntPred::LLVMIntNE)
    {
        return None;
    }
    let ops: Vec<Val> = i.operands().into_iter().map(uncast).collect();
    let zero = |x: Val| x.is_null_ptr() || x.const_int() == Some(0);
    match ops[..] {
        [a, b] if zero(b) && !zero(a) => Some(a),
        [a, b] if zero(a) && !zero(b) => Some(b),
        _ => None,
    }
}

/// Whether `v` is the result of the call `c` (directly, or loaded from the
/// `-O0` local it was stored into).
fn result_of(v: Val, c: Val) -> bool {
    v == c || local_values(v).is_some_and(|vs| vs.into_iter().any(|x| uncast(x) == c))
}

/// An all-ones constant of the instruction's width.
fn all_ones(v: Val) -> bool {
    let w = v.int_width();
    v.const_int()
        .is_some_and(|c| w > 0 && w <= 64 && c == u64::MAX >> (64 - w))
}

/// The `-O0` local variable (alloca) `v` is a load of, through casts.
fn local_of(v: Val) -> Option<Val> {
    let v = uncast(v);
    if v.opcode() != Some(Opcode::LLVMLoad) {
        return None;
    }
    v.pointer_operand()
        .filter(|a| a.opcode() == Some(Opcode::LLVMAlloca))
}

/// The leaves of the xor tree rooted at `v`, through casts.
fn xor_leaves(v: Val, depth: u32, out: &mut Vec<Val>) {
    let v = uncast(v);
    if depth < 24 && v.opcode() == Some(Opcode::LLVMXor) {
        for o in v.operands() {
            xor_leaves(o, depth + 1, out);
        }
    } else {
        out.push(v);
    }
}

/// `v` without constant masks (`x & 0x3ff`), through casts.
fn unmasked(v: Val) -> Val {
    let mut v = uncast(v);
    for _ in 0..4 {
        if v.opcode() != Some(Opcode::LLVMAnd) {
            break;
        }
        let ops: Vec<Val> = v.operands().into_iter().map(uncast).collect();
        match ops[..] {
            [x, c] if c.const_int().is_some() => v = x,
            [c, x] if c.const_int().is_some() => v = x,
            _ => break,
        }
    }
    v
}

/// The local whose bits `v` is, alone: a load of it under constant
/// shifts, constant masks and casts (`(acc >> 2) & 0xff`).
fn bits_of_local(v: Val, depth: u32) -> Option<Val> {
    if depth > 8 {
        return None;
    }
    match v.opcode()? {
        Opcode::LLVMLoad => local_of(v),
        Opcode::LLVMZExt | Opcode::LLVMSExt | Opcode::LLVMTrunc => {
            bits_of_local(v.operand(0)?, depth + 1)
        }
        Opcode::LLVMLShr | Opcode::LLVMAShr | Opcode::LLVMShl => {
            v.operand(1)?.const_int()?;
            bits_of_local(v.operand(0)?, depth + 1)
        }
        Opcode::LLVMAnd => {
            let ops = v.operands();
            let x = if uncast(ops[1]).const_int().is_some() {
                ops[0]
            } else if uncast(ops[0]).const_int().is_some() {
                ops[1]
            } else {
                return None;
            };
            bits_of_local(x, depth + 1)
        }
        _ => None,
    }
}

/// The variable index of a table load (`t[i]`, `t[1][i]`): the last
/// index of the GEP it loads through, when that is no constant and the
/// table is no local.
fn table_index(l: Val) -> Option<Val> {
    if l.opcode() != Some(Opcode::LLVMLoad) {
        return None;
    }
    let p = l.pointer_operand()?;
    if !is_gep(p) {
        return None;
    }
    let mut geps = vec![];
    address_geps(p, 0, &mut geps);
    if geps.iter().any(|g| {
        g.operand(0)
            .is_some_and(|b| b.opcode() == Some(Opcode::LLVMAlloca))
    }) {
        return None;
    }
    let idx = p.operand(p.num_operands().saturating_sub(1))?;
    uncast(idx).const_int().is_none().then_some(idx)
}

/// Data read from memory: a load from non-stack memory, or a load of a
/// `-O0` local every store of which puts such a load there (`c = *p++`).
fn data_read(v: Val) -> bool {
    let v = uncast(v);
    if v.opcode() != Some(Opcode::LLVMLoad) {
        return false;
    }
    match local_values(v) {
        Some(vs) => {
            !vs.is_empty()
                && vs.into_iter().all(|x| {
                    let x = uncast(x);
                    x.opcode() == Some(Opcode::LLVMLoad)
                        && x.pointer_operand()
                            .is_some_and(|p| p.opcode() != Some(Opcode::LLVMAlloca))
                })
        }
        None => true,
    }
}

/// Data read from memory under constant shifts and masks (`*p << 8`).
fn data_term(v: Val) -> bool {
    let mut v = unmasked(v);
    for _ in 0..3 {
        match (v.opcode(), v.operand(1).and_then(Val::const_int)) {
            (Some(Opcode::LLVMShl | Opcode::LLVMLShr), Some(_)) => match v.operand(0) {
                Some(x) => v = unmasked(x),
                None => break,
            },
            _ => break,
        }
    }
    data_read(v)
}

/// [`AccelSignals::table_register_step`] at a store: `R = t[bits of R] ^
/// (R << c) ^ data`, every table term indexed by `R` alone, the data a
/// term of this xor or xored into `R` by another store.
fn register_table_step(store: Val) -> bool {
    let (Some(r), Some(v)) = (store.pointer_operand(), store.operand(0)) else {
        return false;
    };
    if r.opcode() != Some(Opcode::LLVMAlloca) || uncast(v).opcode() != Some(Opcode::LLVMXor) {
        return false;
    }
    let mut leaves = vec![];
    xor_leaves(v, 0, &mut leaves);
    let mut table = 0;
    let mut shifted = false;
    let mut data = false;
    for &l in &leaves {
        // A table term: an entry at a byte- or nibble-narrowed index (data
        // read at a counter, `p[i]`, is no table).
        if let Some(idx) = table_index(l).filter(|x| byte_index(*x, 0)) {
            if bits_of_local(uncast(idx), 0) != Some(r) || from_xor(idx, 0) {
                return false;
            }
            table += 1;
            continue;
        }
        let m = unmasked(l);
        if matches!(m.opcode(), Some(Opcode::LLVMShl | Opcode::LLVMLShr))
            && m.operand(1).and_then(Val::const_int).is_some_and(|c| c > 0)
            && m.operand(0).and_then(local_of) == Some(r)
        {
            shifted = true;
        } else if data_term(l) && local_of(l) != Some(r) {
            data = true;
        }
    }
    // The data xored into `R` by another store (`R ^= *p;` first).
    let data = data
        || r.users().into_iter().any(|u| {
            u != store
                && u.opcode() == Some(Opcode::LLVMStore)
                && u.pointer_operand() == Some(r)
                && u.operand(0).is_some_and(|x| {
                    let mut ls = vec![];
                    xor_leaves(x, 0, &mut ls);
                    ls.len() >= 2
                        && ls.iter().any(|y| local_of(*y) == Some(r))
                        && ls.iter().any(|y| {
                            table_index(*y).is_none_or(|x| !byte_index(x, 0))
                                && data_term(*y)
                                && local_of(*y) != Some(r)
                        })
                })
        });
    table > 0 && shifted && data
}

/// [`AccelSignals::xor_equations`], shift form, at an xor tree's root:
/// at least three constant shifts (one may be zero) of one value, the
/// amounts not evenly spaced (a fold) and no left/right pair adding up to
/// the width (a rotation).
fn shift_equation(root: Val) -> bool {
    let mut leaves = vec![];
    xor_leaves(root, 0, &mut leaves);
    if leaves.len() < 3 {
        return false;
    }
    // (base, signed amount): `x << c` is +c, `x >> c` is -c, `x` is 0.
    let mut terms: Vec<(Val, i64)> = vec![];
    for l in leaves {
        let m = unmasked(l);
        let (x, amount) = match (m.opcode(), m.operand(1).and_then(Val::const_int)) {
            (Some(Opcode::LLVMShl), Some(c)) if c > 0 => (m.operand(0), c as i64),
            (Some(Opcode::LLVMLShr | Opcode::LLVMAShr), Some(c)) if c > 0 => {
                (m.operand(0), -(c as i64))
            }
            _ => (Some(m), 0),
        };
        let Some(x) = x else { continue };
        if uncast(x).const_int().is_some() {
            continue;
        }
        let base = local_of(x).unwrap_or_else(|| uncast(x));
        terms.push((base, amount));
    }
    let width = i64::from(root.int_width());
    let mut bases: Vec<Val> = terms.iter().map(|t| t.0).collect();
    bases.sort();
    bases.dedup();
    bases.into_iter().any(|b| {
        let mut a: Vec<i64> = terms.iter().filter(|t| t.0 == b).map(|t| t.1).collect();
        a.sort_unstable();
        a.dedup();
        // Evenly spaced amounts fold a word (`p ^ p >> 8 ^ p >> 16 ^ p >>
        // 24`, a prefix xor `g ^ g >> 1 ^ g >> 2`): a hash's fold, not a
        // polynomial's sparse terms.
        let folded = a.windows(2).all(|w| w[1] - w[0] == a[1] - a[0]);
        let rotation = a
            .iter()
            .any(|&l| l > 0 && a.iter().any(|&r| r < 0 && l - r == width));
        a.len() >= 3 && !folded && !rotation
    })
}

/// A local array of single bits: some store into it puts `x & 1` there.
fn bit_array(a: Val) -> bool {
    a.opcode() == Some(Opcode::LLVMAlloca)
        && a.users().into_iter().any(|g| {
            is_gep(g)
                && g.users().into_iter().any(|st| {
                    st.opcode() == Some(Opcode::LLVMStore)
                        && st.pointer_operand() == Some(g)
                        && st.operand(0).is_some_and(|v| {
                            let v = uncast(v);
                            v.opcode() == Some(Opcode::LLVMAnd) && const_operand(v) == Some(1)
                        })
                })
        })
}

/// [`AccelSignals::xor_equations`], bit form, at an xor tree's root: four
/// or more single bits, each an element of a local bit array at a
/// constant index.
fn bit_equation(root: Val) -> bool {
    let mut leaves = vec![];
    xor_leaves(root, 0, &mut leaves);
    leaves.len() >= 4
        && leaves.into_iter().all(|l| {
            l.opcode() == Some(Opcode::LLVMLoad)
                && l.pointer_operand().is_some_and(|g| {
                    is_gep(g)
                        && g.operand(g.num_operands().saturating_sub(1))
                            .is_some_and(|i| i.const_int().is_some())
                        && g.operand(0).is_some_and(bit_array)
                })
        })
}

/// Whether the local `a` is ever updated from its own value (`x -= 2`,
/// `x = x >> 1`, a pointer advanced, `w += 16`): a counter, a cursor or
/// an accumulator, not a kept value.
fn self_updated(a: Val) -> bool {
    a.users().into_iter().any(|u| {
        u.opcode() == Some(Opcode::LLVMStore)
            && u.pointer_operand() == Some(a)
            && u.operand(0).is_some_and(|v| {
                let v = uncast(v);
                matches!(
                    v.opcode(),
                    Some(
                        Opcode::LLVMAdd
                            | Opcode::LLVMSub
                            | Opcode::LLVMShl
                            | Opcode::LLVMLShr
                            | Opcode::LLVMAShr
                            | Opcode::LLVMMul
                            | Opcode::LLVMGetElementPtr
                    )
                ) && v.operands().into_iter().any(|o| local_of(o) == Some(a))
            })
    })
}

/// A store that puts a length read from an array walked by a loop index
/// (`netbits = lens[i]`, `i` counted up by the loop) somewhere; returns the
/// place.
fn array_length_store(store: Val, loop_insts: &[Val]) -> Option<Val> {
    let p = store.pointer_operand()?;
    let v = uncast(store.operand(0)?);
    let idx = table_index_any(v)?;
    let i = local_of(unmasked(idx))?;
    let counted_up = loop_insts.iter().any(|u| {
        u.opcode() == Some(Opcode::LLVMStore)
            && u.pointer_operand() == Some(i)
            && u.operand(0).is_some_and(|x| {
                let x = uncast(x);
                x.opcode() == Some(Opcode::LLVMAdd)
                    && x.operands().into_iter().any(|o| local_of(o) == Some(i))
                    && x.operands()
                        .into_iter()
                        .any(|o| signed_const(uncast(o)).is_some_and(|c| c > 0))
            })
    });
    counted_up.then_some(p)
}

/// The variable last index of the GEP a load reads through (any array,
/// local or not).
fn table_index_any(l: Val) -> Option<Val> {
    if l.opcode() != Some(Opcode::LLVMLoad) {
        return None;
    }
    let p = l.pointer_operand()?;
    if !is_gep(p) {
        return None;
    }
    let idx = p.operand(p.num_operands().saturating_sub(1))?;
    uncast(idx).const_int().is_none().then_some(idx)
}

/// Accelerator signals of one function (see [`AccelSignals`]).
fn accel_signals(f: Val) -> AccelSignals {
    let blocks = f.blocks();
    let index: HashMap<u::Block, usize> = blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    let mut in_loop = vec![false; blocks.len()];
    // Each loop as the block range of a back edge, header to latch.
    let mut loops: Vec<(usize, usize)> = vec![];
    for (j, b) in blocks.iter().enumerate() {
        for s in b.successors() {
            if let Some(&h) = index.get(&s) {
                if h <= j {
                    loops.push((h, j));
                    for l in in_loop.iter_mut().take(j + 1).skip(h) {
                        *l = true;
                    }
                }
            }
        }
    }
    // Recursion is a loop: a function whose self-call descends (a node
    // read through its pointer parameter, `depth + 1`, a halved range) is
    // a bounded search whose body is the whole function, each descending
    // call a back edge, as the same body written as a loop would be.
    let self_calls = descending_self_calls(f);
    // The back edges' own loops (the recursion's whole-body loop apart).
    let real_loops = loops.clone();
    if !self_calls.is_empty() && !blocks.is_empty() {
        loops.push((0, blocks.len() - 1));
        in_loop.iter_mut().for_each(|l| *l = true);
    }
    let shift_by = |v: Val, op: Opcode| -> Option<u64> {
        (v.opcode() == Some(op))
            .then(|| v.operand(1).and_then(Val::const_int))
            .flatten()
    };
    // Blocks entered only from a conditional branch both of whose targets
    // stay in the loop: the body of an `if` inside a loop, not the body of
    // the loop itself (whose condition's other target leaves the loop).
    let mut preds: Vec<Vec<usize>> = vec![vec![]; blocks.len()];
    for (j, b) in blocks.iter().enumerate() {
        for x in b.successors() {
            if let Some(&k) = index.get(&x) {
                preds[k].push(j);
            }
        }
    }
    // With `||`/`&&` conditions the body has one predecessor per
    // condition that can decide it (`if (a || b || c) *found = cur;`):
    // every predecessor must be such a test.
    let guarded: Vec<bool> = preds
        .iter()
        .map(|p| {
            !p.is_empty()
                && p.iter().all(|&q| {
                    blocks[q]
                        .terminator()
                        .is_some_and(|t| t.is_conditional_branch())
                        && blocks[q]
                            .successors()
                            .iter()
                            .all(|x| index.get(x).is_some_and(|&k| in_loop[k]))
                })
        })
        .collect();
    // The condition of the branch that alone leads to a block.
    let guard_condition = |bi: usize| -> Option<Val> {
        let p = preds[bi].as_slice();
        if p.len() != 1 {
            return None;
        }
        blocks[p[0]].terminator().and_then(|t| t.branch_condition())
    };
    // A block that leaves the loop: outside it, or returning, or jumping
    // straight out (`-O0` puts `if (…) return x;`'s block inside the loop).
    let leaves_loop = |k: usize| -> bool {
        if !in_loop[k] {
            return true;
        }
        match blocks[k].terminator() {
            Some(t) if t.opcode() == Some(Opcode::LLVMRet) => true,
            Some(t) if t.opcode() == Some(Opcode::LLVMBr) && !t.is_conditional_branch() => blocks
                [k]
                .successors()
                .iter()
                .all(|x| index.get(x).is_some_and(|&j| !in_loop[j])),
            _ => false,
        }
    };
    let mut s = AccelSignals::default();
    let written = written_globals(f);
    let mut bit_equations = 0;
    for (bi, b) in blocks.iter().enumerate() {
        let lp = in_loop[bi];
        for i in b.instructions() {
            if matches!(
                i.opcode(),
                Some(Opcode::LLVMXor | Opcode::LLVMAdd | Opcode::LLVMSub)
            ) {
                s.arx_mix += u32::from(i.operands().into_iter().any(|o| rotated(o, 0)));
            }
            // The root of an xor tree (no xor uses it, through casts):
            // the CRC's xor equations.
            if i.opcode() == Some(Opcode::LLVMXor) && !feeds_xor(i, 0) {
                if shift_equation(i) {
                    s.xor_equations += 1;
                } else if bit_equation(i) {
                    bit_equations += 1;
                }
            }
            match i.opcode() {
                Some(Opcode::LLVMXor) if lp => {
                    // The polynomial step: `(x >> 1) ^ P` / `(x << 1) ^ P`,
                    // P a constant that is no complement mask, or a variable
                    // (a parameterised CRC, or `-(x & 1) & P`).
                    let ops: Vec<Val> = i.operands().into_iter().map(uncast).collect();
                    // The step and the register it shifts, when that is a
                    // `-O0` local (Some(None): a step whose register is
                    // memory or a nibble/byte product, counted as is).
                    let step: Option<(Option<Val>, Val)> = (ops.len() == 2)
                        .then(|| {
                            (0..2).find_map(|k| {
                                let feedback = ops[1 - k];
                                if is_shift1(ops[k]) && feedback.const_int().is_none_or(poly_like) {
                                    return Some((ops[k].operand(0).and_then(local_of), feedback));
                                }
                                // `crc >>= 1; if (mix) crc ^= P;`: the shift
                                // reaches the xor through the -O0 local
                                // (with a constant polynomial only: a
                                // Toeplitz hash xors a shifted *variable*).
                                if const_value(feedback).is_some_and(poly_like)
                                    && shifted1_via_local(ops[k])
                                {
                                    return Some((local_of(ops[k]), feedback));
                                }
                                (shift_by(ops[k], Opcode::LLVMLShr)
                                    .or_else(|| shift_by(ops[k], Opcode::LLVMAShr))
                                    .or_else(|| shift_by(ops[k], Opcode::LLVMShl))
                                    .is_some_and(|c| c == 4 || c == 8)
                                    && masked_product(feedback))
                                .then_some((None, feedback))
                            })
                        })
                        .flatten();
                    // The data must enter the register (a keyed LFSR
                    // digest rolls its key by the same step).
                    // A store re-seeds the register for each table entry
                    // when it sits in a loop around the step's innermost
                    // loop but outside that loop.
                    let reseeded = |store: Val| {
                        store
                            .parent_block()
                            .and_then(|sb| index.get(&sb).copied())
                            .is_some_and(|sb| {
                                let inner = |(h, l): &(usize, usize)| *h <= bi && bi <= *l;
                                loops
                                    .iter()
                                    .any(|lp| inner(lp) && !(lp.0 <= sb && sb <= lp.1))
                                    && loops.iter().any(|lp| inner(lp) && lp.0 <= sb && sb <= lp.1)
                            })
                    };
                    // A register seeded from the state the function writes
                    // steps a generator, not a division of data (the step's
                    // other terms are that state too, or the polynomial).
                    let state_step = step.is_some_and(|(r, feedback)| {
                        r.is_some_and(|r| {
                            seeded_from_state(r, &written)
                                && state_value(feedback, r, &written, 0, &mut vec![r], &mut false)
                                && guard_condition(bi).is_none_or(|c| {
                                    state_value(c, r, &written, 0, &mut vec![r], &mut false)
                                })
                        })
                    });
                    let crc_step = !state_step
                        && step.is_some_and(|(r, feedback)| {
                            r.is_none_or(|r| {
                                data_enters(r, i, feedback, guard_condition(bi), reseeded)
                            })
                        });
                    s.xor_poly_in_loop += u32::from(crc_step);
                    s.state_only_step += u32::from(state_step);
                }
                Some(Opcode::LLVMShl | Opcode::LLVMLShr)
                    if i.operand(0).is_some_and(|x| all_ones(uncast(x)))
                        && i.operand(1).is_some_and(|x| x.const_int().is_none()) =>
                {
                    s.prefix_mask += 1;
                }
                Some(Opcode::LLVMCall) if lp => {
                    // A descending self-call is the loop's walk step when it
                    // hands a parameter the next node (a pointer descent, or
                    // a value that would be a walk step stored into the
                    // parameter's local), keyed as a stored step would be.
                    let Some((_, ds)) = self_calls.iter().find(|(c, _)| *c == i) else {
                        continue;
                    };
                    let params = f.params();
                    let steps: Vec<Val> = ds
                        .iter()
                        .enumerate()
                        .filter_map(|(k, d)| {
                            let v = i.operand(k as u32)?;
                            let local = params.get(k).and_then(|p| param_local(*p));
                            (*d == Some(Descent::Pointer) || local.is_some_and(|a| walk_step(a, v)))
                                .then_some(v)
                        })
                        .collect();
                    if steps.is_empty() {
                        continue;
                    }
                    s.walk_in_loop += 1;
                    let keyed_address = steps.iter().any(|v| {
                        let mut loads = vec![];
                        loaded_values(*v, 0, &mut loads);
                        let mut x = uncast(*v);
                        while is_gep(x) || x.opcode() == Some(Opcode::LLVMBitCast) {
                            if is_gep(x) && address_indices(x).into_iter().any(|ix| key_bits(ix, 0))
                            {
                                return true;
                            }
                            match x.operand(0) {
                                Some(b) => x = uncast(b),
                                None => break,
                            }
                            if x.opcode() == Some(Opcode::LLVMLoad) {
                                loads.push(x);
                                break;
                            }
                        }
                        loads.into_iter().any(|l| {
                            l.pointer_operand().is_some_and(|p| {
                                address_indices(p).into_iter().any(|x| key_bits(x, 0))
                            })
                        })
                    });
                    let steered = guard_condition(bi).is_some_and(variable_bit_test);
                    s.keyed_walk_in_loop += u32::from(keyed_address || steered);
                }
                Some(Opcode::LLVMStore) if lp => {
                    let walk = is_walk_step(i);
                    s.walk_in_loop += u32::from(walk);
                    // A walk steered by key bits: the loaded address
                    // indexes with key bits (`n->child[(k >> s) & 1]`), or
                    // the step is taken under a test of a bit at a variable
                    // position (`if (bit(k, n->bit)) n = n->r;`).
                    if walk {
                        // Bits of the walked value itself (a hash chain's
                        // `cur = prev[cur & wmask]`) steer nothing by a key.
                        let own = i.pointer_operand();
                        let keyed_address = i.operand(0).is_some_and(|v| {
                            let mut loads = vec![];
                            loaded_values(v, 0, &mut loads);
                            loads.into_iter().any(|l| {
                                l.pointer_operand().is_some_and(|p| {
                                    address_indices(p).into_iter().any(|x| {
                                        key_bits(x, 0)
                                            && !own.is_some_and(|a| mentions_register(x, a))
                                    })
                                })
                            })
                        });
                        let steered = guard_condition(bi).is_some_and(variable_bit_test);
                        s.keyed_walk_in_loop += u32::from(keyed_address || steered);
                    }
                    // Best-so-far: a loaded value kept in a local while the
                    // loop goes on (the block's successors stay in the loop).
                    let stays = b
                        .successors()
                        .iter()
                        .all(|x| index.get(x).is_some_and(|&k| in_loop[k]));
                    // A running minimum or maximum (`if (*c < est) est =
                    // *c;`) compares with the local it updates: a
                    // reduction, not a longest match's best-so-far, which
                    // tests the node (`if (n->nh >= 0) best = n->nh;`).
                    let reduction = guard_condition(bi).is_some_and(|c| {
                        let c = uncast(c);
                        c.opcode() == Some(Opcode::LLVMICmp)
                            && c.operands().into_iter().map(uncast).any(|o| {
                                o.opcode() == Some(Opcode::LLVMLoad)
                                    && o.pointer_operand() == i.pointer_operand()
                            })
                    });
                    // A string matcher's best (`if (len > best_len) {
                    // match_start = cur; best_len = len; }`) maximises a
                    // match length measured by comparing bytes — a
                    // pointer difference — not a prefix length read from
                    // an entry: no longest *prefix* is kept.
                    let match_length = guard_condition(bi).is_some_and(|c| {
                        let c = uncast(c);
                        c.opcode() == Some(Opcode::LLVMICmp)
                            && !matches!(
                                c.icmp_predicate(),
                                IntPred::LLVMIntEQ | IntPred::LLVMIntNE
                            )
                            && c.operands()
                                .into_iter()
                                .any(|o| pointer_difference(o, 0, &mut vec![]))
                    });
                    // A counter or accumulator (`mlen = vec->len; … mlen
                    // -= 2;`) is no kept best.
                    let counter = i.pointer_operand().is_some_and(self_updated);
                    // A store in a block that goes straight to the return
                    // hands its value out, it does not keep it (a
                    // recursion's `return n->val;` stays in the loop that
                    // is the whole body).
                    let handed_out = goes_to_return(*b);
                    // A kept value is used after it is kept: read in another
                    // block (after the walk, or by a later step). A
                    // temporary marshalled for a call in the same block
                    // (`-O0` copies a struct argument field by field) is
                    // not. An out-parameter's target is read by the caller.
                    // Read where the loop is left or after it: a best is
                    // what the search hands out. A local read only inside
                    // the loop (an inlined helper's parameter slot, filled
                    // with the current node for each call) is no best.
                    let used_after = i.pointer_operand().is_some_and(|a| {
                        a.opcode() != Some(Opcode::LLVMAlloca)
                            || a.users().into_iter().any(|l| {
                                l.opcode() == Some(Opcode::LLVMLoad)
                                    && l.parent_block() != Some(*b)
                                    && l.parent_block()
                                        .and_then(|lb| index.get(&lb).copied())
                                        .is_some_and(|k| !in_loop[k] || leaves_loop(k))
                            })
                    });
                    // The loop goes on after the store: its header is
                    // reached again from the store's block without leaving
                    // the loop. An out-parameter set and then `break` (or
                    // `return`) hands out the first match, and the `-O0`
                    // block holding the `break` still lies inside the
                    // loop's layout range, so `stays` alone does not see
                    // it (Net-SNMP's `*secName = c->secName; break;`).
                    let goes_on = loop_goes_on(bi, &blocks, &index, &real_loops);
                    s.best_update_in_loop += u32::from(
                        !walk
                            && !reduction
                            && !match_length
                            && !counter
                            && !handed_out
                            && used_after
                            && stays
                            && goes_on
                            && guarded[bi]
                            && stores_node_value(i),
                    );
                    s.table_register_step += u32::from(register_table_step(i));
                }
                Some(Opcode::LLVMShl | Opcode::LLVMLShr | Opcode::LLVMAShr) if lp => {
                    s.shift1_in_loop += u32::from(i.operand(1).and_then(Val::const_int) == Some(1));
                    if i.opcode() != Some(Opcode::LLVMShl)
                        && i.operand(1).and_then(Val::const_int) == Some(1)
                        && i.operand(0).is_some_and(sum_or_difference)
                    {
                        s.halving_in_loop += 1;
                    }
                }
                Some(Opcode::LLVMSDiv | Opcode::LLVMUDiv)
                    if lp
                        && i.operand(1).and_then(Val::const_int) == Some(2)
                        && i.operand(0).is_some_and(sum_or_difference) =>
                {
                    s.halving_in_loop += 1;
                }
                Some(Opcode::LLVMICmp) if lp => {
                    // A whole key compared with a stored one, the loop left
                    // on the outcome: an exact match (hash chains, buckets).
                    if matches!(i.icmp_predicate(), IntPred::LLVMIntEQ | IntPred::LLVMIntNE)
                        && whole_key_compare(i)
                        && b.terminator().is_some_and(|t| {
                            t.branch_condition().is_some_and(|c| uncast(c) == i)
                                && b.successors()
                                    .into_iter()
                                    .any(|x| index.get(&x).is_some_and(|&k| leaves_loop(k)))
                        })
                    {
                        s.exact_match_exit_in_loop += 1;
                    }
                    s.masked_compare_in_loop += u32::from(masked_compare(i));
                }
                Some(Opcode::LLVMGetElementPtr) if lp => {
                    let Some(idx) = i.operand(i.num_operands().saturating_sub(1)) else {
                        continue;
                    };
                    let mut x = uncast(idx);
                    if x.opcode() == Some(Opcode::LLVMAnd) && const_operand(x).is_some() {
                        x = x
                            .operands()
                            .into_iter()
                            .map(uncast)
                            .find(|o| o.const_int().is_none())
                            .unwrap_or(x);
                    }
                    let var_shift = x.opcode() == Some(Opcode::LLVMLShr)
                        && x.operand(1).is_some_and(|a| a.const_int().is_none());
                    s.key_bits_index_in_loop += u32::from(var_shift);
                }
                Some(Opcode::LLVMLoad) => {
                    let Some(p) = i.pointer_operand() else {
                        continue;
                    };
                    if p.opcode() != Some(Opcode::LLVMAlloca) {
                        s.two_level_lookup += u32::from(keyed_next_level(p));
                    }
                    if !is_gep(p) {
                        continue;
                    }
                    let Some(idx) = p.operand(p.num_operands().saturating_sub(1)) else {
                        continue;
                    };
                    if feeds_xor(i, 0) && byte_index(idx, 0) && from_xor(idx, 0) {
                        s.table_xor_index += 1;
                    } else if lp && table_whole_step(i, p, idx) {
                        s.table_whole_step += 1;
                    }
                }
                Some(Opcode::LLVMOr) => {
                    let (Some(a), Some(b2)) = (i.operand(0), i.operand(1)) else {
                        continue;
                    };
                    let w = u64::from(i.int_width());
                    let rot = |x: Val, y: Val| {
                        matches!((shift_by(x, Opcode::LLVMShl), shift_by(y, Opcode::LLVMLShr)),
                            (Some(l), Some(r)) if l + r == w)
                    };
                    s.rotate_const += u32::from(rot(a, b2) || rot(b2, a));
                }
                Some(Opcode::LLVMMul) => {
                    s.mul_large_const += u32::from(
                        const_operand(i).is_some_and(|c| c & 1 == 1 && c.count_ones() >= 6),
                    );
                }
                Some(Opcode::LLVMAdd) => {
                    let (Some(a), Some(b2)) = (i.operand(0), i.operand(1)) else {
                        continue;
                    };
                    let fold = |x: Val, y: Val| {
                        shift_by(x, Opcode::LLVMLShr) == Some(16)
                            && y.opcode() == Some(Opcode::LLVMAnd)
                            && const_operand(y) == Some(0xffff)
                    };
                    s.fold16 += u32::from(fold(a, b2) || fold(b2, a));
                }
                _ => {}
            }
        }
    }
    // One output bit per equation: a lone xor of bits is a parity.
    if bit_equations >= 2 {
        s.xor_equations += bit_equations;
    }
    s.shorten_retry_in_loop = shorten_and_retry(&blocks, &loops, &leaves_loop);
    if s.walk_in_loop > 0 || s.masked_compare_in_loop > 0 {
        let (first, stack) = first_match_and_stack(
            &blocks,
            &index,
            &loops,
            &real_loops,
            &in_loop,
            &leaves_loop,
            &self_calls,
        );
        s.first_match_exit_in_walk = first;
        s.covering_stack_in_walk = stack;
    }
    if s.masked_compare_in_loop > 0 {
        s.ordered_table_scan = ordered_table_scan(&blocks, &in_loop);
    }
    s.power_xor_step = (0..blocks.len())
        .filter(|&bi| in_loop[bi] && preds[bi].len() == 1)
        .flat_map(|bi| blocks[bi].instructions().into_iter().map(move |i| (bi, i)))
        .filter(|(bi, i)| power_xor_store(*i, blocks[preds[*bi][0]], blocks[*bi]))
        .count() as u32;
    if s.halving_in_loop > 0 {
        s.exact_bisection_exit =
            exact_bisection_exits(&blocks, &index, &real_loops, &preds, &leaves_loop);
    }
    s
}

/// [`AccelSignals::power_xor_step`] at a store in `block`, whose only
/// predecessor is `guard`: the stored value xors a table entry `g[i]`, the
/// branch into `block` is taken when bit `i` of some value is set, and
/// `g` is a table of successive powers of x modulo one polynomial.
fn power_xor_store(store: Val, guard: u::Block, block: u::Block) -> bool {
    if store.opcode() != Some(Opcode::LLVMStore) {
        return false;
    }
    let Some(v) = store.operand(0).map(uncast) else {
        return false;
    };
    if v.opcode() != Some(Opcode::LLVMXor) {
        return false;
    }
    let entry = v.operands().into_iter().map(uncast).find_map(|o| {
        (o.opcode() == Some(Opcode::LLVMLoad))
            .then(|| o.pointer_operand().and_then(table_element))
            .flatten()
    });
    let Some((g, idx, path)) = entry else {
        return false;
    };
    let Some(counter) = local_of(idx) else {
        return false;
    };
    // The guard: `x & (1 << i)` or `(x >> i) & 1` tested against zero,
    // the branch going to `block` when the bit is set.
    let bit_at = |a: Val| {
        let a = uncast(a);
        a.opcode() == Some(Opcode::LLVMAnd)
            && a.operands().into_iter().map(uncast).any(|o| {
                (o.opcode() == Some(Opcode::LLVMShl)
                    && o.operand(0).and_then(Val::const_int) == Some(1)
                    && o.operand(1)
                        .is_some_and(|s| derived_from(uncast(s), counter, 0)))
                    || (matches!(o.opcode(), Some(Opcode::LLVMLShr | Opcode::LLVMAShr))
                        && o.operand(1)
                            .is_some_and(|s| derived_from(uncast(s), counter, 0))
                        && const_operand(a) == Some(1))
            })
    };
    let Some(t) = guard.terminator() else {
        return false;
    };
    let Some(c) = t.branch_condition().map(uncast) else {
        return false;
    };
    let succ = guard.successors();
    let set_goes_to_block = c.opcode() == Some(Opcode::LLVMICmp)
        && succ.len() == 2
        && null_test(c).is_some_and(bit_at)
        && match c.icmp_predicate() {
            IntPred::LLVMIntNE => succ[0] == block,
            IntPred::LLVMIntEQ => succ[1] == block,
            _ => false,
        };
    set_goes_to_block && (constant_powers(g, &path) || filled_by_poly_step(g))
}

/// Whether a constant table's entries are successive powers of x modulo
/// one polynomial P (not zero, not a complement mask): each entry the one
/// before it times x, reduced by P when a bit is shifted out, most
/// significant bit first or reflected. Single bits (`1 << i`) reduce by
/// nothing and do not count.
fn constant_powers(g: Val, path: &[u32]) -> bool {
    let Some(t) = table_field_values(g, path) else {
        return false;
    };
    let width = g.global_initializer().and_then(|init| {
        let mut v = init.aggregate_element(0)?;
        for f in path {
            v = v.aggregate_element(*f)?;
        }
        Some(v.int_width())
    });
    let Some(w) = width.filter(|w| (8..=64).contains(w)) else {
        return false;
    };
    if t.len() < 4 {
        return false;
    }
    let mask = u64::MAX >> (64 - w);
    let top = 1u64 << (w - 1);
    let step = |reflected: bool| {
        let mut poly = None;
        for pair in t.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let (shifted, out) = if reflected {
                (a >> 1, a & 1 != 0)
            } else {
                ((a << 1) & mask, a & top != 0)
            };
            let d = b ^ shifted;
            if !out {
                if d != 0 {
                    return false;
                }
            } else if *poly.get_or_insert(d) != d {
                return false;
            }
        }
        poly.is_some_and(poly_like)
    };
    step(false) || step(true)
}

/// Whether the unit fills the global table `g` with a one-bit polynomial
/// step: a store into an element of `g` of an xor one of whose operands
/// shifts by one bit (`r[i] = (r[i - 1] << 1) ^ (r[i - 1] & SBIT ? GEN :
/// 0)`).
fn filled_by_poly_step(g: Val) -> bool {
    g.users().into_iter().filter(|u| is_gep(*u)).any(|e| {
        e.users().into_iter().any(|st| {
            st.opcode() == Some(Opcode::LLVMStore)
                && st.pointer_operand() == Some(e)
                && st.operand(0).map(uncast).is_some_and(|x| {
                    x.opcode() == Some(Opcode::LLVMXor)
                        && x.operands().into_iter().map(uncast).any(is_shift1)
                })
        })
    })
}

/// Exact binary searches ([`AccelSignals::exact_bisection_exit`]): the
/// back-edge loops that store a halving into a local (the probe), leave on
/// the probe's equal outcome, and whose header's way out reaches the
/// return handing out constants only.
fn exact_bisection_exits(
    blocks: &[u::Block],
    index: &HashMap<u::Block, usize>,
    loops: &[(usize, usize)],
    preds: &[Vec<usize>],
    leaves_loop: &dyn Fn(usize) -> bool,
) -> u32 {
    let mut n = 0;
    for &(h, j) in loops {
        let inside = |k: usize| (h..=j).contains(&k);
        let probes: Vec<Val> = (h..=j)
            .flat_map(|bi| blocks[bi].instructions())
            .filter(|i| i.opcode() == Some(Opcode::LLVMStore))
            .filter(|i| i.operand(0).is_some_and(is_halving))
            .filter_map(|i| i.pointer_operand())
            .collect();
        if probes.is_empty() {
            continue;
        }
        let Some(out) = blocks[h]
            .successors()
            .into_iter()
            .filter_map(|x| index.get(&x).copied())
            .find(|&k| !inside(k))
        else {
            continue;
        };
        if !hands_out_constants(blocks, index, out) {
            continue;
        }
        let equal_exit = (h..=j).chain(j + 1..blocks.len()).any(|k| {
            leaves_loop(k)
                && preds[k].len() == 1
                && inside(preds[k][0])
                && equal_outcome(blocks, preds, preds[k][0], blocks[k], &probes)
        });
        n += u32::from(equal_exit);
    }
    n
}

/// Whether the path from block `from` to the function's return stores
/// only constants (`return -1;`'s `-O0` store into the return slot) and
/// returns nothing else: no branch on the way, at most a few blocks.
fn hands_out_constants(blocks: &[u::Block], index: &HashMap<u::Block, usize>, from: usize) -> bool {
    let constant = |v: Val| {
        let v = uncast(v);
        v.const_int().is_some() || v.is_null_ptr()
    };
    let mut k = from;
    let mut stored_constant = false;
    for _ in 0..8 {
        for i in blocks[k].instructions() {
            match i.opcode() {
                Some(Opcode::LLVMStore) => {
                    if !i.operand(0).is_some_and(constant) {
                        return false;
                    }
                    stored_constant = true;
                }
                Some(Opcode::LLVMRet) => {
                    return match i.operand(0) {
                        None => stored_constant,
                        Some(v) if constant(v) => true,
                        Some(v) => stored_constant && local_of(v).is_some(),
                    };
                }
                _ => {}
            }
        }
        let t = blocks[k].terminator();
        if t.is_none_or(|t| t.opcode() != Some(Opcode::LLVMBr) || t.is_conditional_branch()) {
            return false;
        }
        match blocks[k].successors().first().and_then(|x| index.get(x)) {
            Some(&next) => k = next,
            None => return false,
        }
    }
    false
}

/// Whether block `q`'s branch goes to `target` on the outcome where the
/// probe equals the key: `==` taken, `!=` not taken, or the not-taken arm
/// of a strict order whose block is itself the not-taken arm of the
/// other strict order of the same pair (`c > 0`, then `c < 0`). One side
/// of the compare must be read at a probe (`a[m]`, `cmp(key, a[m])`).
fn equal_outcome(
    blocks: &[u::Block],
    preds: &[Vec<usize>],
    q: usize,
    target: u::Block,
    probes: &[Val],
) -> bool {
    let arms = |b: u::Block| -> Option<(Val, u::Block, u::Block)> {
        let t = b.terminator()?;
        let c = uncast(t.branch_condition()?);
        let s = b.successors();
        (c.opcode() == Some(Opcode::LLVMICmp) && s.len() == 2).then(|| (c, s[0], s[1]))
    };
    let Some((c, taken, not_taken)) = arms(blocks[q]) else {
        return false;
    };
    if !c.operands().into_iter().any(|o| probed(o, probes, 0)) {
        return false;
    }
    let strict = |c: Val| {
        matches!(
            c.icmp_predicate(),
            IntPred::LLVMIntSGT | IntPred::LLVMIntSLT | IntPred::LLVMIntUGT | IntPred::LLVMIntULT
        )
    };
    match c.icmp_predicate() {
        IntPred::LLVMIntEQ => taken == target,
        IntPred::LLVMIntNE => not_taken == target,
        _ if strict(c) && not_taken == target && preds[q].len() == 1 => arms(blocks[preds[q][0]])
            .is_some_and(|(c2, _, not_taken2)| {
                strict(c2)
                    && not_taken2 == blocks[q]
                    && c2.icmp_predicate() != c.icmp_predicate()
                    && same_pair(c, c2)
            }),
        _ => false,
    }
}

/// Whether two compares compare the same two values, in either order
/// (`-O0` reloads a local for each use: a load of the local a value was
/// stored into is that value).
fn same_pair(a: Val, b: Val) -> bool {
    let same = |x: Val, y: Val| {
        let (x, y) = (uncast(x), uncast(y));
        x == y
            || matches!((x.const_int(), y.const_int()), (Some(i), Some(j)) if i == j)
            || matches!((local_of(x), local_of(y)), (Some(p), Some(q)) if p == q)
            || local_values(y).is_some_and(|vs| vs.into_iter().any(|v| uncast(v) == x))
            || local_values(x).is_some_and(|vs| vs.into_iter().any(|v| uncast(v) == y))
    };
    let (Some(a0), Some(a1), Some(b0), Some(b1)) =
        (a.operand(0), a.operand(1), b.operand(0), b.operand(1))
    else {
        return false;
    };
    (same(a0, b0) && same(a1, b1)) || (same(a0, b1) && same(a1, b0))
}

/// Whether `v` is read at a probe: computed from a probe local, loaded
/// from an address indexed by one, or the result of a call handed such a
/// value (a comparator), through `-O0` locals.
fn probed(v: Val, probes: &[Val], depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    let v = uncast(v);
    if probes.iter().any(|p| derived_from(v, *p, 0)) {
        return true;
    }
    match v.opcode() {
        Some(Opcode::LLVMLoad) => match v.pointer_operand() {
            Some(a) if a.opcode() == Some(Opcode::LLVMAlloca) => local_values(v)
                .is_some_and(|vs| vs.into_iter().any(|x| probed(x, probes, depth + 1))),
            Some(a) => probed(a, probes, depth + 1),
            None => false,
        },
        Some(Opcode::LLVMGetElementPtr) => v
            .operands()
            .into_iter()
            .any(|o| probed(o, probes, depth + 1)),
        Some(Opcode::LLVMCall) => (0..v.num_arg_operands())
            .any(|k| v.operand(k).is_some_and(|a| probed(a, probes, depth + 1))),
        _ => false,
    }
}

/// Whether the loop goes on after block `bi`: for a back-edge loop holding
/// it, the loop's header is reachable from `bi` through the loop's own
/// blocks. A block in no back-edge loop (a recursion's body) goes on.
fn loop_goes_on(
    bi: usize,
    blocks: &[u::Block],
    index: &HashMap<u::Block, usize>,
    loops: &[(usize, usize)],
) -> bool {
    let holding: Vec<&(usize, usize)> =
        loops.iter().filter(|(h, l)| *h <= bi && bi <= *l).collect();
    if holding.is_empty() {
        return true;
    }
    holding.into_iter().any(|&(h, l)| {
        let mut seen = vec![false; blocks.len()];
        let mut todo = vec![bi];
        while let Some(k) = todo.pop() {
            for x in blocks[k].successors() {
                let Some(&j) = index.get(&x) else {
                    continue;
                };
                if j == h {
                    return true;
                }
                if h <= j && j <= l && !seen[j] {
                    seen[j] = true;
                    todo.push(j);
                }
            }
        }
        false
    })
}

/// A global table an address reads one element field of: `p` is a GEP
/// chain over a global whose single variable index selects the element
/// and whose other indices are constants (`t[i].mask`, `t[i]`). Returns
/// the global, the element index and the field path inside the element.
fn table_element(p: Val) -> Option<(Val, Val, Vec<u32>)> {
    let mut geps = vec![];
    let mut x = uncast(p);
    while is_gep(x) {
        geps.push(x);
        x = uncast(x.operand(0)?);
    }
    if !x.is_global_var() || geps.is_empty() {
        return None;
    }
    // Outermost first; each GEP's first index steps over its pointer
    // (a constant 0 here), the rest descend into the aggregate.
    let mut idx = vec![];
    for g in geps.iter().rev() {
        if g.operand(1).and_then(Val::const_int) != Some(0) {
            return None;
        }
        idx.extend((2..g.num_operands()).filter_map(|k| g.operand(k)));
    }
    let (first, rest) = idx.split_first()?;
    if first.const_int().is_some() {
        return None;
    }
    let path: Option<Vec<u32>> = rest
        .iter()
        .map(|v| v.const_int().and_then(|c| u32::try_from(c).ok()))
        .collect();
    Some((x, *first, path?))
}

/// The integer values of a field across the entries of a constant table
/// (`None` unless the global is a constant array with an initialiser and
/// every entry's field is a constant integer).
fn table_field_values(g: Val, path: &[u32]) -> Option<Vec<u64>> {
    use inkwell::llvm_sys::core as c;
    if !g.is_global_constant() {
        return None;
    }
    let init = g.global_initializer()?;
    let ty = g.global_value_type();
    let n = unsafe {
        if c::LLVMGetTypeKind(ty) != inkwell::llvm_sys::LLVMTypeKind::LLVMArrayTypeKind {
            return None;
        }
        c::LLVMGetArrayLength2(ty)
    };
    (0..u32::try_from(n).ok()?)
        .map(|i| {
            let mut v = init.aggregate_element(i)?;
            for f in path {
                v = v.aggregate_element(*f)?;
            }
            v.const_int()
        })
        .collect()
}

/// [`AccelSignals::table_whole_step`] at a load `l` from address `p` with
/// last index `idx`: the loaded entry is stored (through casts) into a
/// local register `R`, the index is `R ^ data` (masked or not), and the
/// table is a parameter or a constant GF(2)-linear table.
fn table_whole_step(l: Val, p: Val, idx: Val) -> bool {
    // The register the entry replaces.
    let stored_into = |v: Val| -> Vec<Val> {
        let mut out = vec![];
        let mut frontier = vec![v];
        for _ in 0..3 {
            let mut next = vec![];
            for x in frontier {
                for u in x.users() {
                    match u.opcode() {
                        Some(Opcode::LLVMStore) if u.operand(0) == Some(x) => {
                            if let Some(a) = u.pointer_operand() {
                                out.push(a);
                            }
                        }
                        Some(Opcode::LLVMZExt | Opcode::LLVMSExt | Opcode::LLVMTrunc) => {
                            next.push(u)
                        }
                        _ => {}
                    }
                }
            }
            frontier = next;
        }
        out
    };
    let regs: Vec<Val> = stored_into(l)
        .into_iter()
        .filter(|a| a.opcode() == Some(Opcode::LLVMAlloca))
        .collect();
    if regs.is_empty() {
        return false;
    }
    // The index: an xor (under a constant mask and casts) of the register
    // and data that is not the register.
    let mut x = uncast(idx);
    if x.opcode() == Some(Opcode::LLVMAnd) && const_operand(x).is_some() {
        match x
            .operands()
            .into_iter()
            .map(uncast)
            .find(|o| o.const_int().is_none())
        {
            Some(o) => x = o,
            None => return false,
        }
    }
    if x.opcode() != Some(Opcode::LLVMXor) {
        return false;
    }
    let ops: Vec<Val> = x.operands().into_iter().map(uncast).collect();
    let register_xor_data = regs.iter().any(|r| {
        ops.len() == 2
            && (0..2).any(|k| {
                local_of(ops[k]) == Some(*r)
                    && ops[1 - k].const_int().is_none()
                    && !mentions_register(ops[1 - k], *r)
            })
    });
    if !register_xor_data {
        return false;
    }
    // The table: a parameter (loaded from its `-O0` local), or a constant
    // whose entries are linear in the index.
    let mut base = uncast(p);
    while is_gep(base) {
        match base.operand(0) {
            Some(b) => base = uncast(b),
            None => return false,
        }
    }
    if let Some(a) = local_of(base) {
        return a.users().into_iter().any(|u| {
            u.opcode() == Some(Opcode::LLVMStore) && u.operand(0).is_some_and(|v| v.is_argument())
        });
    }
    let Some((g, _, path)) = table_element(p) else {
        return false;
    };
    table_field_values(g, &path).is_some_and(|t| gf2_linear(&t))
}

/// Whether a table is GF(2)-linear in its index: a power-of-two length of
/// at least 16, `t[0] = 0`, and every entry the xor of the entries of its
/// index's bits (`t[i ^ j] = t[i] ^ t[j]`), as a CRC table is.
fn gf2_linear(t: &[u64]) -> bool {
    t.len() >= 16
        && t.len().is_power_of_two()
        && t[0] == 0
        && (1..t.len()).all(|i| {
            let low = i & i.wrapping_neg();
            t[i] == t[low] ^ t[i ^ low]
        })
        && t.iter().any(|v| *v != 0)
}

/// Whether `v` is read at an address whose index comes from the global
/// table `g` (through casts, arithmetic and `-O0` locals).
fn indexed_by_table(v: Val, g: Val, depth: u32) -> bool {
    fn from_table(x: Val, g: Val, depth: u32) -> bool {
        let x = uncast(x);
        if depth > 8 {
            return false;
        }
        match x.opcode() {
            Some(Opcode::LLVMLoad) => {
                x.pointer_operand()
                    .and_then(table_element)
                    .is_some_and(|(t, _, _)| t == g)
                    || local_values(x)
                        .is_some_and(|vs| vs.into_iter().any(|y| from_table(y, g, depth + 1)))
            }
            Some(op) if value_op(op) => x
                .operands()
                .into_iter()
                .any(|o| from_table(o, g, depth + 1)),
            _ => false,
        }
    }
    let v = uncast(v);
    if depth > 4 {
        return false;
    }
    match v.opcode() {
        Some(Opcode::LLVMLoad) => match local_values(v) {
            Some(vs) => vs.into_iter().any(|y| indexed_by_table(y, g, depth + 1)),
            None => {
                let mut p = v.pointer_operand().map(uncast);
                while let Some(a) = p.filter(|a| is_gep(*a)) {
                    if (1..a.num_operands())
                        .filter_map(|k| a.operand(k))
                        .any(|ix| ix.const_int().is_none() && from_table(ix, g, 0))
                    {
                        return true;
                    }
                    p = a.operand(0).map(uncast);
                }
                false
            }
        },
        _ => false,
    }
}

/// [`AccelSignals::ordered_table_scan`]: a masked compare in a loop whose
/// mask is read from a constant table indexed by a variable (the mask
/// itself, its length the mask's bits; or an all-ones value shifted by a
/// length read from the table), the lengths never increasing in table
/// order.
fn ordered_table_scan(blocks: &[u::Block], in_loop: &[bool]) -> u32 {
    // Loads of table fields in the value tree of `v`, with whether they
    // reach it through a shift of all ones (a length) or directly (a mask).
    fn table_loads(v: Val, depth: u32, shifted: bool, out: &mut Vec<(Val, bool)>) {
        let v = uncast(v);
        if depth > 8 {
            return;
        }
        match v.opcode() {
            Some(Opcode::LLVMLoad) => {
                if let Some(vs) = local_values(v) {
                    for x in vs {
                        table_loads(x, depth + 1, shifted, out);
                    }
                } else {
                    out.push((v, shifted));
                }
            }
            Some(Opcode::LLVMShl | Opcode::LLVMLShr)
                if v.operand(0).is_some_and(|x| all_ones(uncast(x))) =>
            {
                if let Some(a) = v.operand(1) {
                    table_loads(a, depth + 1, true, out);
                }
            }
            Some(Opcode::LLVMPHI) => {
                for (x, _) in v.phi_incoming() {
                    table_loads(x, depth + 1, shifted, out);
                }
            }
            Some(Opcode::LLVMSub | Opcode::LLVMSelect | Opcode::LLVMXor) => {
                for o in v.operands() {
                    table_loads(o, depth + 1, shifted, out);
                }
            }
            _ => {}
        }
    }
    let mut n = 0;
    for (k, b) in blocks.iter().enumerate() {
        if !in_loop[k] {
            continue;
        }
        for i in b.instructions() {
            if !masked_compare(i) {
                continue;
            }
            // (mask or length load, shifted, the other operand of the `and`:
            // the key it masks)
            let mut loads = vec![];
            for o in i.operands().into_iter().map(uncast) {
                if o.opcode() == Some(Opcode::LLVMAnd) {
                    let ms = o.operands();
                    for (k, m) in ms.iter().enumerate() {
                        let mut found = vec![];
                        table_loads(*m, 0, false, &mut found);
                        let key = ms.get(1 - k.min(1)).copied();
                        loads.extend(found.into_iter().map(|(l, sh)| (l, sh, key)));
                    }
                }
            }
            let ordered = loads.into_iter().any(|(l, shifted, key)| {
                let Some((g, _, path)) = l.pointer_operand().and_then(table_element) else {
                    return false;
                };
                // The mask must cover the whole key: a key element picked
                // by another field of the table (`a[t[i].len] & t[i].mask`,
                // a byte count plus the mask of the next byte) has a prefix
                // length the mask alone does not give.
                if key.is_some_and(|k| indexed_by_table(k, g, 0)) {
                    return false;
                }
                let Some(vals) = table_field_values(g, &path) else {
                    return false;
                };
                let lens: Vec<u64> = if shifted {
                    vals
                } else {
                    vals.into_iter()
                        .map(|m| u64::from(m.count_ones()))
                        .collect()
                };
                lens.len() >= 2
                    && lens.windows(2).all(|w| w[0] >= w[1])
                    && lens.first() != lens.last()
            });
            n += u32::from(ordered);
        }
    }
    n
}

/// A block that only returns (`-O0`'s return block: loads of the return
/// slot, then `ret`).
fn return_block(b: u::Block) -> bool {
    let is: Vec<Val> = b.instructions();
    is.last()
        .is_some_and(|t| t.opcode() == Some(Opcode::LLVMRet))
        && is.len() <= 3
        && is[..is.len() - 1]
            .iter()
            .all(|i| i.opcode() == Some(Opcode::LLVMLoad))
}

/// A block whose only way on is the return block: what it stores into the
/// return slot is handed out.
fn goes_to_return(b: u::Block) -> bool {
    b.terminator()
        .is_some_and(|t| t.opcode() == Some(Opcode::LLVMBr) && !t.is_conditional_branch())
        && b.successors().into_iter().all(return_block)
}

/// Whether `v` is computed from a pointer difference (`strend - scan`:
/// a `sub` of two `ptrtoint`s), through integer arithmetic, casts and
/// `-O0` locals: a length measured over bytes compared.
fn pointer_difference(v: Val, depth: u32, seen: &mut Vec<Val>) -> bool {
    let v = uncast(v);
    if depth > 10 {
        return false;
    }
    match v.opcode() {
        Some(Opcode::LLVMSub)
            if v.operands()
                .into_iter()
                .all(|o| uncast(o).opcode() == Some(Opcode::LLVMPtrToInt)) =>
        {
            true
        }
        Some(Opcode::LLVMLoad) => match local_of(v) {
            Some(l) if !seen.contains(&l) => {
                seen.push(l);
                local_values(v)
                    .unwrap_or_default()
                    .into_iter()
                    .any(|x| pointer_difference(x, depth + 1, seen))
            }
            _ => false,
        },
        Some(
            Opcode::LLVMAdd
            | Opcode::LLVMSub
            | Opcode::LLVMMul
            | Opcode::LLVMSDiv
            | Opcode::LLVMUDiv
            | Opcode::LLVMAShr
            | Opcode::LLVMLShr,
        ) => v
            .operands()
            .into_iter()
            .any(|o| pointer_difference(o, depth + 1, seen)),
        _ => false,
    }
}

/// A key masked by a variable compared with a variable, `(addr & mask) ==
/// prefix` ([`AccelSignals::masked_compare_in_loop`] in a loop).
fn masked_compare(i: Val) -> bool {
    if i.opcode() != Some(Opcode::LLVMICmp) {
        return false;
    }
    let ops: Vec<Val> = i.operands().into_iter().map(uncast).collect();
    let masked = |a: Val| {
        a.opcode() == Some(Opcode::LLVMAnd)
            && a.operands()
                .iter()
                .all(|o| uncast(*o).const_int().is_none())
    };
    let var = |b: Val| b.const_int().is_none() && !b.is_null_ptr();
    ops.len() == 2 && ((masked(ops[0]) && var(ops[1])) || (masked(ops[1]) && var(ops[0])))
}

/// What a walk does with its matches ([`AccelSignals::first_match_exit_in_walk`],
/// [`AccelSignals::covering_stack_in_walk`]), for a function with a walk
/// step: the number of loop blocks that leave the walk at a match handing
/// out a value the walk did not remember, and the number of stores that
/// push a walked node at an advancing position.
fn first_match_and_stack(
    blocks: &[u::Block],
    index: &HashMap<u::Block, usize>,
    loops: &[(usize, usize)],
    real_loops: &[(usize, usize)],
    in_loop: &[bool],
    leaves_loop: &dyn Fn(usize) -> bool,
    self_calls: &[(Val, Vec<Option<Descent>>)],
) -> (u32, u32) {
    // The walk's own loops: those holding a walk step (a recursion is one
    // loop over the whole body). A scan of a stack or a list built by the
    // walk, after it, is no descent. In a function with no walk, a scan
    // whose loop compares masked keys (an index scan over a prefix
    // list) is read the same way: where its entries are in an order that
    // makes the first match the longest, that order is not the
    // function's to prove.
    let mut in_walk = vec![false; blocks.len()];
    let walk_anywhere = blocks.iter().any(|b| {
        b.instructions()
            .into_iter()
            .any(|i| i.opcode() == Some(Opcode::LLVMStore) && is_walk_step(i))
    });
    for &(h, l) in loops {
        let walks = (h..=l).any(|k| {
            blocks[k].instructions().into_iter().any(|i| {
                (i.opcode() == Some(Opcode::LLVMStore) && is_walk_step(i))
                    || (!walk_anywhere && masked_compare(i))
            })
        });
        if walks || (!self_calls.is_empty() && h == 0 && l + 1 == blocks.len()) {
            in_walk[h..=l].iter_mut().for_each(|w| *w = true);
        }
    }
    let mut preds: Vec<Vec<usize>> = vec![vec![]; blocks.len()];
    for (j, b) in blocks.iter().enumerate() {
        for x in b.successors() {
            if let Some(&k) = index.get(&x) {
                preds[k].push(j);
            }
        }
    }
    // A block that hands its value out: it leaves the loop, or (recursion,
    // where every block is in the loop) jumps straight to the return block.
    let exits = |k: usize| leaves_loop(k) || goes_to_return(blocks[k]);
    let staying = |k: usize| in_loop[k] && !exits(k);
    let written_while_walking = |a: Val| {
        a.users().into_iter().any(|u| {
            u.opcode() == Some(Opcode::LLVMStore)
                && u.pointer_operand() == Some(a)
                && u.parent_block()
                    .and_then(|b| index.get(&b).copied())
                    .is_some_and(staying)
        })
    };
    // A recursive walk that tests a deeper call's result before handing
    // out its own (`if ((r = find(n->child, k))) return r; return n;`)
    // prefers the deeper match: it remembers, as a best-so-far does.
    let prefers_deeper = blocks.iter().any(|b| {
        b.instructions()
            .into_iter()
            .any(|i| null_test(i).is_some_and(|x| self_calls.iter().any(|(c, _)| result_of(x, *c))))
    });
    // The nearest conditional branch above a block on every path (a few
    // steps up): the test it was reached under.
    let guards = |k: usize| {
        let mut out = vec![];
        let mut frontier = vec![k];
        let mut seen = vec![false; blocks.len()];
        for _ in 0..4 {
            let mut next = vec![];
            for q in frontier {
                for &p in &preds[q] {
                    if seen[p] {
                        continue;
                    }
                    seen[p] = true;
                    match blocks[p].terminator() {
                        Some(t) if t.is_conditional_branch() => {
                            if let Some(c) = t.branch_condition() {
                                out.push(uncast(c));
                            }
                        }
                        _ => next.push(p),
                    }
                }
            }
            frontier = next;
        }
        out
    };
    // The walk's own end: the walked node compared with null (`while (n)`,
    // `if (!n) return best;`; in recursion the node is a parameter). A
    // field tested for null (`n->info ? … : NULL`) is a test of the node.
    let params: Vec<Val> = blocks
        .first()
        .map(|b| b.parent_function().params())
        .unwrap_or_default();
    let walk_end = |c: Val| {
        c.opcode() == Some(Opcode::LLVMICmp)
            && c.operands()
                .into_iter()
                .map(uncast)
                .any(|o| o.is_null_ptr())
            && null_test(c).is_some_and(|x| {
                local_of(x)
                    .is_some_and(|l| walked(l) || params.iter().any(|p| param_local(*p) == Some(l)))
            })
    };
    let mut first = 0;
    let mut stack = 0;
    for (k, b) in blocks.iter().enumerate() {
        if !in_loop[k] {
            continue;
        }
        for i in b.instructions() {
            if i.opcode() != Some(Opcode::LLVMStore) {
                continue;
            }
            let (Some(a), Some(v)) = (i.pointer_operand(), i.operand(0)) else {
                continue;
            };
            // `stack[cnt++] = node`, `*sp++ = node`: the walked node itself
            // put where a counter or cursor of the loop points.
            let node = local_of(v).is_some_and(walked);
            let advancing = |x: Val| local_of(x).is_some_and(self_updated);
            let a = uncast(a);
            let pushed = advancing(a)
                || (is_gep(a)
                    && a.operands()
                        .into_iter()
                        .skip(1)
                        .any(|ix| advancing(uncast(ix))));
            stack += u32::from(node && pushed);
        }
        if prefers_deeper || !in_walk[k] || !exits(k) {
            continue;
        }
        let gs = guards(k);
        if gs.is_empty() || gs.iter().any(|c| walk_end(*c)) {
            continue;
        }
        let handed = b.instructions().into_iter().any(|i| {
            let v = match i.opcode() {
                Some(Opcode::LLVMStore) => {
                    let Some(a) = i.pointer_operand() else {
                        return false;
                    };
                    if a.opcode() != Some(Opcode::LLVMAlloca) || written_while_walking(a) {
                        return false;
                    }
                    i.operand(0)
                }
                Some(Opcode::LLVMRet) => i.operand(0),
                _ => None,
            };
            v.is_some_and(|v| {
                let v = uncast(v);
                v.const_int().is_none()
                    && !v.is_null_ptr()
                    && !v.is_constant()
                    && !self_calls.iter().any(|(c, _)| result_of(v, *c))
                    // A value the walk remembered (a best-so-far local) is
                    // the deepest match, not the first.
                    && !local_of(v).is_some_and(|l| written_while_walking(l) && !walked(l))
            })
        });
        first += u32::from(handed);
    }
    // The caller's variable set at a match on a path that only leaves the
    // loop (`if (out) *out = c->name; break;`): the first match handed
    // out through an out-parameter. The nearest test above such a store
    // is often the out-parameter's own null check, so no guard is asked
    // for beyond the block being conditional.
    if !prefers_deeper {
        for (k, b) in blocks.iter().enumerate() {
            if !in_walk[k]
                || preds[k].is_empty()
                || loop_goes_on(k, blocks, index, real_loops)
                || !real_loops.iter().any(|(h, l)| *h <= k && k <= *l)
            {
                continue;
            }
            let out_store = b.instructions().into_iter().any(|i| {
                i.opcode() == Some(Opcode::LLVMStore)
                    && i.pointer_operand().is_some_and(out_parameter_target)
                    && i.operand(0).map(uncast).is_some_and(|v| {
                        v.const_int().is_none() && !v.is_null_ptr() && !v.is_constant()
                    })
            });
            first += u32::from(out_store && !guards(k).is_empty());
        }
    }
    (first, stack)
}

/// A delimiter handed to a search: a printable punctuation constant
/// (`'.'`, `':'`, `'@'`, `'/'`), or a `-O0` local every store of which is
/// one (Postfix's `delim = … ? ':' : '.'`).
fn delimiter(v: Val) -> bool {
    let punct = |x: Val| {
        uncast(x)
            .const_int()
            .and_then(|c| u8::try_from(c).ok())
            .is_some_and(|c| c.is_ascii_punctuation())
    };
    // `c ? ':' : '.'` joins its constants in a phi (or a select).
    let choice = |x: Val| {
        let x = uncast(x);
        punct(x)
            || (x.opcode() == Some(Opcode::LLVMPHI)
                && x.phi_incoming().into_iter().all(|(y, _)| punct(y)))
            || (x.opcode() == Some(Opcode::LLVMSelect)
                && x.operands().into_iter().skip(1).all(punct))
    };
    let v = uncast(v);
    choice(v) || local_values(v).is_some_and(|vs| !vs.is_empty() && vs.into_iter().all(choice))
}

/// Two addresses of the same place: the same value, or (`-O0` emits a new
/// GEP for every access) GEPs with the same constant indices into the
/// same base — the same local or global, or a pointer loaded from the same
/// place (`match->s` twice).
fn same_place(a: Val, b: Val) -> bool {
    if a == b {
        return true;
    }
    if !is_gep(a) || !is_gep(b) || a.num_operands() != b.num_operands() {
        return false;
    }
    let (Some(x), Some(y)) = (a.operand(0), b.operand(0)) else {
        return false;
    };
    let base = x == y
        || (x.opcode() == Some(Opcode::LLVMLoad)
            && y.opcode() == Some(Opcode::LLVMLoad)
            && matches!((x.pointer_operand(), y.pointer_operand()), (Some(p), Some(q)) if same_place(p, q)));
    base && (1..a.num_operands()).all(|k| {
        matches!((a.operand(k).and_then(Val::const_int), b.operand(k).and_then(Val::const_int)),
            (Some(i), Some(j)) if i == j)
    })
}

/// A pointer computed from the value at `p`: [`derived_from`] it, or an
/// address into it (`name + 1`, `&buf[i]`).
fn points_from(v: Val, p: Val) -> bool {
    let mut x = uncast(v);
    for _ in 0..4 {
        if derived_from(x, p, 0)
            || (x.opcode() == Some(Opcode::LLVMLoad)
                && x.pointer_operand().is_some_and(|q| same_place(q, p)))
        {
            return true;
        }
        if !is_gep(x) && x.opcode() != Some(Opcode::LLVMBitCast) {
            return false;
        }
        match x.operand(0) {
            Some(b) => x = uncast(b),
            None => return false,
        }
    }
    false
}

/// A call searching the key at `p` for a delimiter: handed the key (or an
/// address into it) and a [`delimiter`] (`strchr(name + 1, '.')`,
/// `byte_rchr(s, len, '.')`, `split_at_right(addr, delim)`). Which
/// function it is does not matter: what it is handed does.
fn delimiter_search(c: Val, p: Val) -> bool {
    c.opcode() == Some(Opcode::LLVMCall)
        && c.called_function()
            .is_some_and(|f| !f.name().starts_with("llvm."))
        && (0..c.num_arg_operands()).any(|k| c.operand(k).is_some_and(|a| points_from(a, p)))
        && (0..c.num_arg_operands()).any(|k| c.operand(k).is_some_and(delimiter))
}

/// Whether `v` is computed from a [`delimiter_search`] on the key at `p`
/// (through casts, integer arithmetic, addresses and `-O0` locals): where
/// the key is cut.
fn from_delimiter_search(v: Val, p: Val, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    let v = uncast(v);
    if delimiter_search(v, p) {
        return true;
    }
    match v.opcode() {
        Some(Opcode::LLVMLoad) => local_values(v).is_some_and(|vs| {
            vs.into_iter()
                .any(|x| from_delimiter_search(x, p, depth + 1))
        }),
        Some(
            Opcode::LLVMAdd
            | Opcode::LLVMSub
            | Opcode::LLVMGetElementPtr
            | Opcode::LLVMBitCast
            | Opcode::LLVMPtrToInt
            | Opcode::LLVMSelect,
        ) => v
            .operands()
            .into_iter()
            .any(|o| from_delimiter_search(o, p, depth + 1)),
        _ => false,
    }
}

/// The key places a loop *cuts at a delimiter*, with the calls that cut
/// them: a pointer advanced past a delimiter found in the key (`name =
/// strchr(name + 1, '.')`, `name += byte_chr(name, n, '.') + 1`), a buffer
/// truncated where one was found (`s[byte_rchr(s, n, '.')] = 0`: the place
/// holding the buffer's pointer), or a key handed to a call that searches
/// it for a delimiter and whose result the loop tests (Postfix's `while
/// (split_at_right(addr, delim))`, which cuts in place).
fn delimiter_cuts(insts: &[(usize, Val)]) -> (Vec<Val>, Vec<Val>) {
    let mut places = vec![];
    let mut cutters = vec![];
    let tested: Vec<Val> = insts.iter().filter_map(|(_, i)| null_test(*i)).collect();
    for (_, i) in insts {
        if i.opcode() != Some(Opcode::LLVMStore) {
            continue;
        }
        let (Some(a), Some(v)) = (i.pointer_operand(), i.operand(0)) else {
            continue;
        };
        // Advanced past the delimiter.
        if from_delimiter_search(v, a, 0) {
            places.push(a);
            continue;
        }
        // Truncated at it: the stored-into address indexes a buffer
        // loaded from a place at a position found in that buffer.
        let a = uncast(a);
        if is_gep(a) {
            if let Some(buf) = a.operand(0).map(uncast) {
                if let Some(q) = buf
                    .pointer_operand()
                    .filter(|_| buf.opcode() == Some(Opcode::LLVMLoad))
                {
                    if (1..a.num_operands()).any(|k| {
                        a.operand(k)
                            .is_some_and(|ix| from_delimiter_search(ix, q, 0))
                    }) {
                        places.push(q);
                    }
                }
            }
        }
    }
    // Truncated where a backward pointer scan found the delimiter
    // (twentieth session): a NUL stored at, or a constant offset from, a
    // pointer local the loop steps back one element at a time and whose
    // element it
    // tests against a delimiter (`for (rp = end; rp > buf; --rp) if (*rp
    // == '.') { *(rp + 1) = '\0'; … }`): the key cut is the local buffer
    // the pointer walks.
    places.extend(insts.iter().filter_map(|(_, i)| scan_cut_buffer(*i, insts)));
    // Cut in place by a search whose result the loop tests.
    for (_, c) in insts {
        if c.opcode() != Some(Opcode::LLVMCall) || !tested.iter().any(|t| result_of(*t, *c)) {
            continue;
        }
        for k in 0..c.num_arg_operands() {
            let Some(key) = c.operand(k).and_then(local_of) else {
                continue;
            };
            if delimiter_search(*c, key) {
                places.push(key);
                cutters.push(*c);
            }
        }
    }
    (places, cutters)
}

/// The local buffer a store cuts at a delimiter found by a backward
/// pointer scan of the loop `insts`: the store writes a zero through a
/// pointer local `rp` (itself or at a constant offset), the loop steps
/// `rp` back by one element (`--rp`) and compares the element at `rp`
/// with a [`delimiter`], and `rp` is set from an address into a local
/// buffer. Scanning back from the end cuts the longest key first, so the
/// first hit is the longest; a forward scan cutting at each delimiter
/// tries the shortest first and is no longest match.
fn scan_cut_buffer(store: Val, insts: &[(usize, Val)]) -> Option<Val> {
    if store.opcode() != Some(Opcode::LLVMStore)
        || store.operand(0).map(uncast)?.const_int() != Some(0)
    {
        return None;
    }
    // The pointer local an address is `rp` or `rp + c` of.
    let pointer_local = |a: Val| -> Option<Val> {
        let mut a = uncast(a);
        if is_gep(a) {
            if !(1..a.num_operands()).all(|k| a.operand(k).is_some_and(|x| x.const_int().is_some()))
            {
                return None;
            }
            a = uncast(a.operand(0)?);
        }
        local_of(a)
    };
    let rp = pointer_local(store.pointer_operand()?)?;
    let stepped = insts.iter().any(|(_, i)| {
        i.opcode() == Some(Opcode::LLVMStore)
            && i.pointer_operand() == Some(rp)
            && i.operand(0).is_some_and(|v| {
                let v = uncast(v);
                is_gep(v)
                    && v.num_operands() == 2
                    && v.operand(0).and_then(local_of) == Some(rp)
                    && v.operand(1).and_then(signed_const) == Some(-1)
            })
    });
    let tested = insts.iter().any(|(_, i)| {
        i.opcode() == Some(Opcode::LLVMICmp)
            && matches!(i.icmp_predicate(), IntPred::LLVMIntEQ | IntPred::LLVMIntNE)
            && i.operands().into_iter().any(delimiter)
            && i.operands().into_iter().map(uncast).any(|o| {
                o.opcode() == Some(Opcode::LLVMLoad)
                    && o.pointer_operand().and_then(pointer_local) == Some(rp)
            })
    });
    if !stepped || !tested {
        return None;
    }
    rp.users()
        .into_iter()
        .filter(|u| u.opcode() == Some(Opcode::LLVMStore) && u.pointer_operand() == Some(rp))
        .find_map(|u| u.operand(0).and_then(local_buffer))
}

/// Another call of the loop than the lookup that is handed an address
/// into the local buffer `arg` points into, and whose call `fills` accepts
/// (given the buffer): how the key the lookup is handed got there.
fn buffer_filled_by(
    arg: Val,
    insts: &[(usize, Val)],
    lookup: Val,
    fills: impl Fn(Val, Val) -> bool,
) -> bool {
    let Some(b) = local_buffer(arg) else {
        return false;
    };
    insts.iter().any(|(_, c)| {
        *c != lookup
            && c.opcode() == Some(Opcode::LLVMCall)
            && (0..c.num_arg_operands()).any(|k| c.operand(k).and_then(local_buffer) == Some(b))
            && fills(*c, b)
    })
}

/// A key buffer the loop builds from a shortened value: `arg` is an address
/// into a local buffer that another call of the loop is handed together
/// with a value computed from `p` (`snprintf(&buf[n], …, "%d", bits)`,
/// the prefix length formatted into the key an external table is asked
/// for).
fn formatted_from(arg: Val, p: Val, insts: &[(usize, Val)], lookup: Val) -> bool {
    buffer_filled_by(arg, insts, lookup, |c, _| {
        (0..c.num_arg_operands())
            .any(|k| c.operand(k).is_some_and(|v| derived_from(uncast(v), p, 0)))
    })
}

/// A key buffer the loop fills with the whole key cut at `p`: `arg` is an
/// address into a local buffer that another call of the loop is handed
/// together with the cut pointer itself (`snprintf(buf, sizeof buf,
/// "!%s", p)`, `strlcpy(buf, p, n)`), and none of that call's arguments is
/// a length measured between two pointers — a token copied out of a list
/// (`memcpy(tok, p, q - p)`) is one piece of the key, not the key cut
/// shorter.
fn copied_whole(arg: Val, p: Val, insts: &[(usize, Val)], lookup: Val) -> bool {
    buffer_filled_by(arg, insts, lookup, |c, b| {
        (0..c.num_arg_operands()).any(|k| {
            c.operand(k)
                .is_some_and(|v| local_buffer(v) != Some(b) && points_from(v, p))
        }) && !(0..c.num_arg_operands()).any(|k| {
            c.operand(k)
                .is_some_and(|v| pointer_difference(v, 0, &mut vec![]))
        })
    })
}

/// The local buffer (`-O0` alloca) an address points into, through GEPs
/// and casts.
fn local_buffer(x: Val) -> Option<Val> {
    let mut x = uncast(x);
    while is_gep(x) || x.opcode() == Some(Opcode::LLVMBitCast) {
        x = uncast(x.operand(0)?);
    }
    (x.opcode() == Some(Opcode::LLVMAlloca)).then_some(x)
}

/// "Shorten and retry" loops ([`AccelSignals::shorten_retry_in_loop`]):
/// in one loop (a back edge's block range), a store shortens a value
/// ([`shortening_store`]) and a lookup uses it and tests for a hit: a call
/// that is handed the shortened value ([`passes_shortened`]) and whose
/// result is tested against null or zero in the loop, or an equality of a
/// stored value with one computed from the shortened value on a branch
/// that leaves the loop, the shortened value also building a mask (a
/// variable shift: `key & (~0u << (32 - len))`).
fn shorten_and_retry(
    blocks: &[u::Block],
    loops: &[(usize, usize)],
    leaves_loop: &dyn Fn(usize) -> bool,
) -> u32 {
    let mut n = 0;
    for &(h, j) in loops {
        let insts: Vec<(usize, Val)> = (h..=j)
            .flat_map(|bi| blocks[bi].instructions().into_iter().map(move |i| (bi, i)))
            .collect();
        let mut shortened: Vec<Val> = insts
            .iter()
            .filter(|(_, i)| i.opcode() == Some(Opcode::LLVMStore))
            .filter_map(|(_, i)| shortening_store(*i))
            .collect();
        // Lengths read from an array the loop walks count when they build
        // a prefix mask here (all ones shifted by the length): a list of
        // indices or keys tried in turn builds none.
        let loop_vals: Vec<Val> = insts.iter().map(|(_, i)| *i).collect();
        let prefix_masks = |p: Val| {
            insts.iter().any(|(_, i)| {
                matches!(
                    i.opcode(),
                    Some(Opcode::LLVMShl | Opcode::LLVMLShr | Opcode::LLVMAShr)
                ) && i.operand(0).is_some_and(|x| all_ones(uncast(x)))
                    && i.operand(1)
                        .is_some_and(|a| a.const_int().is_none() && derived_from(uncast(a), p, 0))
            })
        };
        shortened.extend(
            insts
                .iter()
                .filter(|(_, i)| i.opcode() == Some(Opcode::LLVMStore))
                .filter_map(|(_, i)| array_length_store(*i, &loop_vals))
                .filter(|p| prefix_masks(*p)),
        );
        // A key cut at a delimiter is shortened too (the djbdns class:
        // the name or address tried again without its last label).
        let (cut, cutters) = delimiter_cuts(&insts);
        if shortened.is_empty() && cut.is_empty() {
            continue;
        }
        let tested: Vec<Val> = insts.iter().filter_map(|(_, i)| null_test(*i)).collect();
        // A key kept in memory the callee can read (a global, or a field
        // reached through one) needs not be handed: ucspi-tcp's `dorule()`
        // reads the global `rules_name` the loop shortens. It counts when
        // the loop also tests the key's bytes at the shortened length
        // against a delimiter (`ip[len - 1] == '.'`): a cut at a label.
        let global_key = |p: Val| {
            let mut base = p;
            while is_gep(base) {
                match base.operand(0) {
                    Some(b) => base = b,
                    None => break,
                }
            }
            base.is_global_var()
                && insts.iter().any(|(_, i)| {
                    i.opcode() == Some(Opcode::LLVMICmp)
                        && matches!(i.icmp_predicate(), IntPred::LLVMIntEQ | IntPred::LLVMIntNE)
                        && i.operands().into_iter().any(delimiter)
                        && i.operands().into_iter().map(uncast).any(|o| {
                            o.opcode() == Some(Opcode::LLVMLoad)
                                && o.pointer_operand().is_some_and(|a| {
                                    is_gep(a)
                                        && (1..a.num_operands()).any(|k| {
                                            a.operand(k)
                                                .is_some_and(|x| derived_from(uncast(x), p, 0))
                                        })
                                })
                        })
                })
        };
        let by_call = insts.iter().any(|(_, c)| {
            c.opcode() == Some(Opcode::LLVMCall)
                && c.called_function()
                    .is_some_and(|f| !f.name().starts_with("llvm."))
                && !cutters.contains(c)
                && tested.iter().any(|t| result_of(*t, *c))
                && ((0..c.num_arg_operands()).any(|k| {
                    c.operand(k).is_some_and(|a| {
                        // A key cut at a delimiter is handed itself (the rest
                        // of the name), or a buffer another call of the loop
                        // formats or copies the whole cut key into
                        // (`snprintf(buf, n, "!%s", p)`); a copy of one token
                        // (`memcpy(tok, p, q - p)`) is no shorter key.
                        cut.iter().any(|p| {
                            passes_shortened(a, *p)
                                || local_buffer(a) == Some(*p)
                                || copied_whole(a, *p, &insts, *c)
                        }) || shortened
                            .iter()
                            .any(|p| passes_shortened(a, *p) || formatted_from(a, *p, &insts, *c))
                    })
                }) || shortened.iter().chain(&cut).any(|p| global_key(*p)))
        });
        let masks = |p: Val| {
            insts.iter().any(|(_, i)| {
                matches!(
                    i.opcode(),
                    Some(Opcode::LLVMShl | Opcode::LLVMLShr | Opcode::LLVMAShr)
                ) && i
                    .operand(1)
                    .is_some_and(|a| a.const_int().is_none() && derived_from(uncast(a), p, 0))
            })
        };
        let inline = insts.iter().any(|(bi, i)| {
            i.opcode() == Some(Opcode::LLVMICmp)
                && matches!(i.icmp_predicate(), IntPred::LLVMIntEQ | IntPred::LLVMIntNE)
                && {
                    let ops: Vec<Val> = i.operands().into_iter().map(uncast).collect();
                    let stored = |x: Val| {
                        x.opcode() == Some(Opcode::LLVMLoad)
                            && x.pointer_operand()
                                .is_some_and(|q| q.opcode() != Some(Opcode::LLVMAlloca))
                    };
                    ops.len() == 2
                        && shortened.iter().any(|p| {
                            masks(*p)
                                && ((stored(ops[0]) && derived_from(ops[1], *p, 0))
                                    || (stored(ops[1]) && derived_from(ops[0], *p, 0)))
                        })
                }
                && blocks[*bi].terminator().is_some_and(|t| {
                    t.branch_condition().is_some_and(|c| uncast(c) == *i)
                        && blocks[*bi]
                            .successors()
                            .into_iter()
                            .any(|x| blocks.iter().position(|b| *b == x).is_some_and(leaves_loop))
                })
        });
        n += u32::from(by_call || inline);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_counts_split_functions_and_memory() {
        let asm = "\t.type\tf,@function\nf:\n# %bb.0:\n\taddi\tsp, sp, -16\n\tsw\tra, 12(sp)\n\tlw\ta0, 0(a1)\n\tlui\ta2, %hi(x)\n\tsw\ta0, %lo(x)(a2)\n\tret\n.Lfunc_end0:\n\t.type\tg,@function\ng:\n\tret\n.Lfunc_end1:\n";
        let c = proxy_counts(asm);
        assert_eq!(
            c["f"],
            ProxyCounts {
                instructions: 6,
                memory: 2
            }
        );
        assert_eq!(
            c["g"],
            ProxyCounts {
                instructions: 1,
                memory: 0
            }
        );
    }

    #[test]
    fn after_dirs_are_searched_after_the_freestanding_prototypes() {
        let dir = tempfile::tempdir().unwrap();
        let late = dir.path().join("late");
        std::fs::create_dir_all(late.join("sys")).unwrap();
        // Found only through `after_dirs`; a `string.h` there must lose to
        // the freestanding one (which declares `memcpy`).
        std::fs::write(late.join("sys/late.h"), "#define LATE 3\n").unwrap();
        std::fs::write(late.join("string.h"), "#error host string.h\n").unwrap();
        let src = dir.path().join("u.c");
        std::fs::write(
            &src,
            "#include <sys/late.h>\n#include <string.h>\nint f(int x) { return x * LATE; }\n",
        )
        .unwrap();
        let opts = InsightOptions {
            proxy: false,
            ..InsightOptions::default()
        };
        assert!(prepare_c("u", &src, &opts).is_err());
        let opts = InsightOptions {
            after_dirs: vec![late],
            ..opts
        };
        let u = prepare_c("u", &src, &opts).expect("lowers with the late directory");
        assert!(u.functions.iter().any(|f| f.name == "f"));
    }

    #[test]
    fn framework_functions_are_read_from_nf_h() {
        let f = framework_functions();
        assert!(f.contains("nf_parse"), "{f:?}");
        assert!(f.contains("nf_ftable_lookup"));
        assert!(!f.contains("nf_process"));
    }
}
