//! Shared IR analyses: where a pointer comes from (its root objects), which
//! globals each function may write (an interprocedural summary over direct
//! calls, with parameter roots mapped to call-site arguments), which globals
//! escape (their address is stored or handed to unknown code), the call
//! graph, and a dominator tree over a function's blocks.

use crate::llvm_util::{self, Block, Opcode, Val};
use inkwell::llvm_sys::prelude::LLVMModuleRef;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Where a pointer may point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Root {
    Global(Val),
    Param(u32),
    Alloca(Val),
    /// Loaded from memory, returned by a call, or otherwise unknown.
    Unknown(Val),
}

/// Underlying objects of a pointer value, looking through GEPs, casts, phis
/// and selects (instructions and constant expressions).
pub fn roots(v: Val) -> Vec<Root> {
    let mut out = BTreeSet::new();
    let mut seen = HashSet::new();
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if v.is_global_var() || v.is_function() {
            out.insert(Root::Global(v));
            continue;
        }
        if v.is_argument() {
            let f = unsafe { Val(inkwell::llvm_sys::core::LLVMGetParamParent(v.0)) };
            let idx = f.params().iter().position(|p| *p == v).unwrap_or(0) as u32;
            out.insert(Root::Param(idx));
            continue;
        }
        let op = v.opcode().or_else(|| v.const_opcode());
        match op {
            Some(Opcode::LLVMGetElementPtr)
            | Some(Opcode::LLVMBitCast)
            | Some(Opcode::LLVMAddrSpaceCast) => {
                if let Some(b) = v.operand(0) {
                    work.push(b);
                }
            }
            Some(Opcode::LLVMPHI) => work.extend(v.phi_incoming().into_iter().map(|(x, _)| x)),
            Some(Opcode::LLVMSelect) => {
                work.extend([v.operand(1), v.operand(2)].into_iter().flatten());
            }
            Some(Opcode::LLVMAlloca) => {
                out.insert(Root::Alloca(v));
            }
            _ => {
                if v.is_null_ptr() || v.is_undef_or_poison() {
                    continue;
                }
                out.insert(Root::Unknown(v));
            }
        }
    }
    out.into_iter().collect()
}

/// Memory a function may write, as roots relative to the function.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WriteSummary {
    pub globals: BTreeSet<Val>,
    pub params: BTreeSet<u32>,
    /// Writes through pointers of unknown origin (loaded, call results).
    pub unknown: bool,
}

/// External functions known not to write through their pointer arguments.
const READ_ONLY_EXTERNALS: &[&str] = &[
    "strcmp", "strncmp", "strlen", "strnlen", "strchr", "strrchr", "strstr", "memcmp", "memchr",
    "atoi", "atol", "strtol", "strtoul", "strtoull", "printf", "fprintf", "puts", "fputs", "fputc",
    "putchar", "fwrite", "write", "syslog", "perror", "fflush", "dprintf", "vprintf", "vfprintf",
    "abort", "exit",
];

/// Names of libc output functions: calls to them are observability logic.
pub const OUTPUT_FUNCTIONS: &[&str] = &[
    "printf", "fprintf", "vfprintf", "vprintf", "dprintf", "puts", "fputs", "fputc", "putc",
    "putchar", "fwrite", "perror", "syslog", "fflush",
];

/// Per-function write summaries, to a fixed point over direct calls.
pub fn write_summaries(m: LLVMModuleRef) -> HashMap<Val, WriteSummary> {
    let funcs: Vec<Val> = llvm_util::functions(m)
        .into_iter()
        .filter(|f| !f.is_declaration())
        .collect();
    let mut sums: HashMap<Val, WriteSummary> = funcs
        .iter()
        .map(|f| (*f, WriteSummary::default()))
        .collect();
    let add_roots = |s: &mut WriteSummary, rs: &[Root]| {
        for r in rs {
            match r {
                Root::Global(g) => {
                    s.globals.insert(*g);
                }
                Root::Param(i) => {
                    s.params.insert(*i);
                }
                Root::Alloca(_) => {}
                Root::Unknown(_) => s.unknown = true,
            }
        }
    };
    loop {
        let mut changed = false;
        for f in &funcs {
            let mut s = sums[f].clone();
            for i in f.instructions() {
                match i.opcode() {
                    Some(Opcode::LLVMStore)
                    | Some(Opcode::LLVMAtomicRMW)
                    | Some(Opcode::LLVMAtomicCmpXchg) => {
                        let p = if i.opcode() == Some(Opcode::LLVMStore) {
                            i.operand(1)
                        } else {
                            i.operand(0)
                        };
                        if let Some(p) = p {
                            add_roots(&mut s, &roots(p));
                        }
                    }
                    Some(Opcode::LLVMCall) => {
                        let nargs = i.num_arg_operands();
                        match i.called_function() {
                            Some(callee) if !callee.is_declaration() => {
                                let cs = sums[&callee].clone();
                                s.globals.extend(cs.globals.iter().copied());
                                s.unknown |= cs.unknown;
                                for p in cs.params {
                                    if p < nargs {
                                        if let Some(a) = i.operand(p) {
                                            add_roots(&mut s, &roots(a));
                                        }
                                    }
                                }
                            }
                            Some(callee) => {
                                let name = callee.name();
                                if name.starts_with("llvm.") {
                                    if name.starts_with("llvm.memset")
                                        || name.starts_with("llvm.memcpy")
                                        || name.starts_with("llvm.memmove")
                                    {
                                        if let Some(a) = i.operand(0) {
                                            add_roots(&mut s, &roots(a));
                                        }
                                    }
                                } else if !READ_ONLY_EXTERNALS.contains(&name.as_str()) {
                                    for a in 0..nargs {
                                        if let Some(a) = i.operand(a).filter(|a| a.is_ptr_type()) {
                                            add_roots(&mut s, &roots(a));
                                        }
                                    }
                                }
                            }
                            None => s.unknown = true,
                        }
                    }
                    _ => {}
                }
            }
            if s != sums[f] {
                sums.insert(*f, s);
                changed = true;
            }
        }
        if !changed {
            return sums;
        }
    }
}

/// Globals whose address escapes: stored as a value, passed to external
/// non-read-only code, or used by an indirect call.
pub fn escaped_globals(m: LLVMModuleRef) -> BTreeSet<Val> {
    let mut out = BTreeSet::new();
    for f in llvm_util::functions(m)
        .into_iter()
        .filter(|f| !f.is_declaration())
    {
        for i in f.instructions() {
            let mut cands = vec![];
            match i.opcode() {
                Some(Opcode::LLVMStore) => cands.extend(i.operand(0)),
                Some(Opcode::LLVMCall) => {
                    let external = i
                        .called_function()
                        .map(|c| c.is_declaration() && !c.name().starts_with("llvm."))
                        .unwrap_or(true);
                    let ro = i
                        .called_function()
                        .map(|c| READ_ONLY_EXTERNALS.contains(&c.name().as_str()))
                        .unwrap_or(false);
                    if external && !ro {
                        cands.extend((0..i.num_arg_operands()).filter_map(|a| i.operand(a)));
                    }
                }
                Some(Opcode::LLVMPtrToInt) | Some(Opcode::LLVMRet) => cands.extend(i.operand(0)),
                _ => {}
            }
            for c in cands.into_iter().filter(|c| c.is_ptr_type()) {
                for r in roots(c) {
                    if let Root::Global(g) = r {
                        out.insert(g);
                    }
                }
            }
        }
    }
    // Globals referenced from other globals' initialisers escape too.
    for g in llvm_util::globals(m) {
        if let Some(init) = g.global_initializer() {
            collect_const_globals(init, &mut out);
        }
    }
    out
}

fn collect_const_globals(c: Val, out: &mut BTreeSet<Val>) {
    if c.is_global_var() || c.is_function() {
        out.insert(c);
        return;
    }
    for o in c.operands() {
        collect_const_globals(o, out);
    }
}

/// Functions reachable from `root` over direct calls (including `root`);
/// the flag says whether an indirect call was seen.
pub fn reachable(root: Val) -> (BTreeSet<Val>, bool) {
    let mut seen = BTreeSet::new();
    let mut indirect = false;
    let mut work = vec![root];
    while let Some(f) = work.pop() {
        if !seen.insert(f) || f.is_declaration() {
            continue;
        }
        for i in f.instructions() {
            if i.opcode() == Some(Opcode::LLVMCall) {
                match i.called_function() {
                    Some(c) => work.push(c),
                    None => indirect = true,
                }
            }
        }
    }
    (seen, indirect)
}

/// Dominator tree and CFG of one function (Cooper–Harvey–Kennedy).
pub struct Cfg {
    pub blocks: Vec<Block>,
    pub index: HashMap<Block, usize>,
    pub succs: Vec<Vec<usize>>,
    pub preds: Vec<Vec<usize>>,
    /// Immediate dominator (entry maps to itself; unreachable blocks to usize::MAX).
    pub idom: Vec<usize>,
}

impl Cfg {
    pub fn new(f: Val) -> Self {
        let blocks = f.blocks();
        let index: HashMap<Block, usize> =
            blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let succs: Vec<Vec<usize>> = blocks
            .iter()
            .map(|b| {
                b.successors()
                    .iter()
                    .filter_map(|s| index.get(s).copied())
                    .collect()
            })
            .collect();
        let mut preds = vec![vec![]; blocks.len()];
        for (i, ss) in succs.iter().enumerate() {
            for &s in ss {
                if !preds[s].contains(&i) {
                    preds[s].push(i);
                }
            }
        }
        // Reverse post-order from the entry.
        let mut post = vec![];
        let mut visited = vec![false; blocks.len()];
        if !blocks.is_empty() {
            let mut stack = vec![(0usize, 0usize)];
            visited[0] = true;
            while let Some((b, i)) = stack.pop() {
                if i < succs[b].len() {
                    stack.push((b, i + 1));
                    let s = succs[b][i];
                    if !visited[s] {
                        visited[s] = true;
                        stack.push((s, 0));
                    }
                } else {
                    post.push(b);
                }
            }
        }
        let rpo: Vec<usize> = post.iter().rev().copied().collect();
        let mut order = vec![usize::MAX; blocks.len()];
        for (i, b) in rpo.iter().enumerate() {
            order[*b] = i;
        }
        let mut idom = vec![usize::MAX; blocks.len()];
        if !blocks.is_empty() {
            idom[0] = 0;
            let mut changed = true;
            while changed {
                changed = false;
                for &b in rpo.iter().skip(1) {
                    let mut new = usize::MAX;
                    for &p in &preds[b] {
                        if idom[p] == usize::MAX {
                            continue;
                        }
                        new = if new == usize::MAX {
                            p
                        } else {
                            let (mut x, mut y) = (p, new);
                            while x != y {
                                while order[x] > order[y] {
                                    x = idom[x];
                                }
                                while order[y] > order[x] {
                                    y = idom[y];
                                }
                            }
                            x
                        };
                    }
                    if new != usize::MAX && idom[b] != new {
                        idom[b] = new;
                        changed = true;
                    }
                }
            }
        }
        Cfg {
            blocks,
            index,
            succs,
            preds,
            idom,
        }
    }

    /// Does block `a` dominate block `b`?
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        if self.idom[b] == usize::MAX {
            return false;
        }
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            if x == 0 || self.idom[x] == x {
                return false;
            }
            x = self.idom[x];
        }
    }

    /// Does instruction `a` dominate instruction `b` (same function)?
    pub fn inst_dominates(&self, a: Val, b: Val) -> bool {
        let (Some(ba), Some(bb)) = (a.parent_block(), b.parent_block()) else {
            return false;
        };
        let (ia, ib) = (self.index[&ba], self.index[&bb]);
        if ia != ib {
            return self.dominates(ia, ib);
        }
        let mut x = a.next_instruction();
        while let Some(i) = x {
            if i == b {
                return true;
            }
            x = i.next_instruction();
        }
        false
    }

    pub fn reachable_from(&self, start: usize) -> Vec<bool> {
        let mut seen = vec![false; self.blocks.len()];
        let mut work = vec![start];
        while let Some(b) = work.pop() {
            for &s in &self.succs[b] {
                if !seen[s] {
                    seen[s] = true;
                    work.push(s);
                }
            }
        }
        seen
    }
}
