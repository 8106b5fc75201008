//! Overwritten-logic elimination (NFReducer §IV-C, Alg. 5). Fires on packet
//! writes (stores into the frame or the packet descriptor) that a drop later
//! on the same path makes invisible — e.g. NF1 re-marks DSCP, NF2 drops all
//! UDP: the re-marking of UDP packets is dead work.
//!
//! Paths already end at the first drop: the consolidated body returns
//! `NF_DROP` the moment an NF drops (truncation, Alg. 5 line 5). Here, per
//! packet store S (pointer based only on the body's `data` or `pkt`
//! parameters):
//! - if every path from S reaches a drop return without an *observer* — a
//!   load that may read S's bytes, a call, or a non-drop return (the packet
//!   leaves) — S is deleted;
//! - otherwise, if S can move to the end of its block (no observer after it)
//!   and some successor edges lead only to drops while others do not, S is
//!   sunk: cloned into each non-drop successor and removed from its block,
//!   so the drop paths no longer execute it. Clones are processed again, so
//!   a write sinks edge by edge down to the paths that actually forward.
//!
//! State writes are never touched: a drop does not undo them (they are
//! visible to later packets). Critical edges are split before this pass
//! (`break-crit-edges`), so every successor of a branching block has that
//! block as its only predecessor and a sunk store's operands dominate it.
//! Byte-range disjointness between S and a load is decided on `base +
//! constant offset` forms; different bases are assumed to overlap.

use crate::analysis::{roots, Cfg, Root};
use crate::error::ReduceError;
use crate::llvm_util::{self, Block, Opcode, Val};
use crate::offsets::Ranges;
use crate::pass::{Pass, PassCtx};
use crate::passes::consolidate::CHAIN_BODY;
use inkwell::llvm_sys::core as c;
use std::collections::HashMap;

pub struct OverwrittenLogic;

/// `pointer = base + constant` when the chain of GEPs is i8-typed constant offsets.
fn decompose(p: Val) -> (Val, i64) {
    let mut off = 0i64;
    let mut cur = p;
    loop {
        let is_gep = cur.opcode() == Some(Opcode::LLVMGetElementPtr)
            || cur.const_opcode() == Some(Opcode::LLVMGetElementPtr);
        if !is_gep || cur.num_operands() != 2 {
            return (cur, off);
        }
        let ty = unsafe { c::LLVMGetGEPSourceElementType(cur.0) };
        let is_i8 = unsafe {
            c::LLVMGetTypeKind(ty) == inkwell::llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
                && c::LLVMGetIntTypeWidth(ty) == 8
        };
        match (is_i8, cur.operand(1).and_then(|i| i.const_int())) {
            (true, Some(k)) => {
                off += k as i64;
                cur = cur.operand(0).expect("gep base");
            }
            _ => return (cur, off),
        }
    }
}

struct Access {
    ptr: Val,
    base: Val,
    off: i64,
    size: i64,
    roots: Vec<Root>,
}

thread_local! {
    /// Interval facts about frame offsets, for the function being processed.
    static RANGES: std::cell::RefCell<(Option<Val>, Ranges)> = std::cell::RefCell::new((None, Ranges::default()));
}

fn access_of(m: inkwell::llvm_sys::prelude::LLVMModuleRef, i: Val) -> Option<Access> {
    let p = i.pointer_operand()?;
    let (base, off) = decompose(p);
    let size = llvm_util::type_store_size(m, i.access_type()) as i64;
    Some(Access {
        ptr: p,
        base,
        off,
        size,
        roots: roots(p),
    })
}

fn may_overlap(m: inkwell::llvm_sys::prelude::LLVMModuleRef, a: &Access, b: &Access) -> bool {
    if a.base == b.base {
        return a.off < b.off + b.size && b.off < a.off + a.size;
    }
    // Both in the frame at bounded offsets: compare byte intervals.
    if a.roots == [Root::Param(3)] && b.roots == [Root::Param(3)] {
        let disjoint = RANGES.with(|r| {
            let mut r = r.borrow_mut();
            let data = r.0;
            data.and_then(|d| r.1.disjoint(m, d, a.ptr, a.size, b.ptr, b.size))
        });
        if disjoint == Some(true) {
            return false;
        }
    }
    let unknown = |x: &Access| x.roots.iter().any(|r| matches!(r, Root::Unknown(_)));
    if unknown(a) || unknown(b) {
        return true;
    }
    a.roots.iter().any(|r| b.roots.contains(r))
}

const HARMLESS_INTRINSICS: &[&str] = &[
    "llvm.lifetime",
    "llvm.dbg",
    "llvm.assume",
    "llvm.experimental.noalias.scope.decl",
    "llvm.bswap",
    "llvm.umin",
    "llvm.umax",
    "llvm.smin",
    "llvm.smax",
    "llvm.ctpop",
    "llvm.fshl",
    "llvm.fshr",
    "llvm.abs",
];

/// Could `i` observe the bytes `s` wrote (or let the packet leave)?
fn observes(
    m: inkwell::llvm_sys::prelude::LLVMModuleRef,
    i: Val,
    s: &Access,
    drop: &DropInfo,
) -> bool {
    match i.opcode() {
        Some(Opcode::LLVMLoad) => access_of(m, i)
            .map(|a| may_overlap(m, &a, s))
            .unwrap_or(true),
        Some(Opcode::LLVMCall) => match i.called_function() {
            Some(f) => !HARMLESS_INTRINSICS.iter().any(|h| f.name().starts_with(h)),
            None => true,
        },
        Some(Opcode::LLVMRet) => !drop.is_drop_ret(i),
        Some(Opcode::LLVMAtomicRMW) | Some(Opcode::LLVMAtomicCmpXchg) => true,
        _ => false,
    }
}

struct DropInfo {
    /// Blocks made of phis + `ret %phi`: their phi incoming values decide per edge.
    ret_phi_blocks: HashMap<Block, Val>,
}

impl DropInfo {
    fn new(body: Val) -> Self {
        let mut ret_phi_blocks = HashMap::new();
        for b in body.blocks() {
            let insts = b.instructions();
            let Some(t) = b.terminator() else { continue };
            if t.opcode() == Some(Opcode::LLVMRet) {
                if let Some(v) = t.operand(0) {
                    if v.opcode() == Some(Opcode::LLVMPHI)
                        && v.parent_block() == Some(b)
                        && insts
                            .iter()
                            .all(|i| *i == t || i.opcode() == Some(Opcode::LLVMPHI))
                    {
                        ret_phi_blocks.insert(b, v);
                    }
                }
            }
        }
        DropInfo { ret_phi_blocks }
    }
    fn is_drop_value(v: Val) -> bool {
        v.const_int()
            .map(|k| (k as u32 as i32) < 0)
            .unwrap_or(false)
    }
    fn is_drop_ret(&self, ret: Val) -> bool {
        ret.operand(0).map(Self::is_drop_value).unwrap_or(false)
    }
    /// Is the edge from→to a drop (into a ret-phi block with a negative incoming)?
    fn edge_verdict(&self, from: Block, to: Block) -> Option<bool> {
        let phi = self.ret_phi_blocks.get(&to)?;
        let inc = phi.phi_incoming();
        let vals: Vec<Val> = inc
            .iter()
            .filter(|(_, b)| *b == from)
            .map(|(v, _)| *v)
            .collect();
        if vals.is_empty() {
            return Some(false);
        }
        Some(vals.iter().all(|v| Self::is_drop_value(*v)))
    }
}

/// Do all paths starting at the top of block `b` (entered from `from`) end
/// in a drop without observing `s`? Cycles count as "no".
fn all_paths_drop(
    m: inkwell::llvm_sys::prelude::LLVMModuleRef,
    from: Block,
    b: Block,
    s: &Access,
    drop: &DropInfo,
    memo: &mut HashMap<Block, Option<bool>>,
) -> bool {
    if let Some(v) = drop.edge_verdict(from, b) {
        return v;
    }
    match memo.get(&b) {
        Some(Some(v)) => return *v,
        Some(None) => return false, // on the current DFS path: a loop
        None => {}
    }
    memo.insert(b, None);
    let mut result = true;
    for i in b.instructions() {
        if i.opcode() == Some(Opcode::LLVMPHI) {
            continue;
        }
        if observes(m, i, s, drop) {
            result = false;
            break;
        }
        if i.opcode() == Some(Opcode::LLVMRet) {
            result = drop.is_drop_ret(i);
            break;
        }
        if i.opcode() == Some(Opcode::LLVMUnreachable) {
            break;
        }
    }
    if result {
        if let Some(t) = b.terminator() {
            if t.opcode() != Some(Opcode::LLVMRet) {
                let succs = b.successors();
                if succs.is_empty() {
                    result = false;
                }
                for sb in succs {
                    if !all_paths_drop(m, b, sb, s, drop, memo) {
                        result = false;
                        break;
                    }
                }
            }
        }
    }
    memo.insert(b, Some(result));
    result
}

/// Is any drop return reachable from block `b`?
fn reaches_drop(cfg: &Cfg, drop: &DropInfo, b: Block) -> bool {
    let seen = cfg.reachable_from(cfg.index[&b]);
    cfg.blocks.iter().enumerate().any(|(i, blk)| {
        let drop_ret = blk
            .terminator()
            .map(|t| t.opcode() == Some(Opcode::LLVMRet) && drop.is_drop_ret(t))
            .unwrap_or(false);
        let drop_phi = drop
            .ret_phi_blocks
            .get(blk)
            .map(|p| {
                p.phi_incoming()
                    .iter()
                    .any(|(v, _)| DropInfo::is_drop_value(*v))
            })
            .unwrap_or(false);
        seen[i] && (drop_ret || drop_phi)
    })
}

impl Pass for OverwrittenLogic {
    fn name(&self) -> &'static str {
        "overwritten-logic"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let Some(body) = llvm_util::get_function(m, CHAIN_BODY) else {
            return Ok(());
        };
        RANGES.with(|r| *r.borrow_mut() = (Some(body.params()[3]), Ranges::default()));
        // Parameters 1 (`pkt`) and 3 (`data`) of the chain body.
        let packet_roots = [Root::Param(1), Root::Param(3)];
        let is_packet_store = |i: Val| {
            i.opcode() == Some(Opcode::LLVMStore) && !i.volatile() && {
                let rs = i.pointer_operand().map(roots).unwrap_or_default();
                !rs.is_empty() && rs.iter().all(|r| packet_roots.contains(r))
            }
        };
        let mut work: Vec<Val> = body
            .instructions()
            .into_iter()
            .filter(|i| is_packet_store(*i))
            .collect();
        let (mut deleted, mut sunk) = (0usize, 0usize);
        let mut locs = vec![];
        let mut budget = 10_000usize;
        while let Some(s) = work.pop() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                break;
            }
            let cfg = Cfg::new(body);
            let drop = DropInfo::new(body);
            let Some(acc) = access_of(m, s) else { continue };
            let Some(b) = s.parent_block() else { continue };
            // Observers after S in its block?
            let mut x = s.next_instruction();
            let mut blocked = false;
            let mut term = None;
            while let Some(i) = x {
                if b.terminator() == Some(i) {
                    term = Some(i);
                    break;
                }
                if observes(m, i, &acc, &drop) {
                    blocked = true;
                    break;
                }
                x = i.next_instruction();
            }
            let Some(term) = term.filter(|_| !blocked) else {
                continue;
            };
            if term.opcode() == Some(Opcode::LLVMRet) {
                if drop.is_drop_ret(term) {
                    locs.push(s.debug_location());
                    s.erase();
                    deleted += 1;
                }
                continue;
            }
            let succs = b.successors();
            let mut memo = HashMap::new();
            let drops: Vec<bool> = succs
                .iter()
                .map(|t| all_paths_drop(m, b, *t, &acc, &drop, &mut memo))
                .collect();
            if drops.iter().all(|d| *d) {
                locs.push(s.debug_location());
                s.erase();
                deleted += 1;
                continue;
            }
            // With no drop-only successor, sinking still pays off when a drop is
            // reachable further down; simplifycfg later re-merges clones that
            // end up side by side in front of a merge point.
            if !drops.iter().any(|d| *d) && !reaches_drop(&cfg, &drop, b) {
                continue;
            }
            // Sink into the non-drop successors (single-predecessor, not looping back).
            let bi = cfg.index[&b];
            let targets: Vec<Block> = succs
                .iter()
                .zip(&drops)
                .filter(|(_, d)| !**d)
                .map(|(t, _)| *t)
                .collect();
            let ok = targets.iter().all(|t| {
                let ti = cfg.index[t];
                cfg.preds[ti].len() == 1
                    && !cfg.reachable_from(ti)[bi]
                    && !drop.ret_phi_blocks.contains_key(t)
            });
            let mut uniq = targets.clone();
            uniq.dedup();
            if !ok || uniq.len() != targets.len() {
                continue;
            }
            for t in targets {
                let at = t.first_non_phi().expect("block has a terminator");
                unsafe {
                    let clone = c::LLVMInstructionClone(s.0);
                    let bld = llvm_util::Builder::before(at);
                    c::LLVMInsertIntoBuilder(bld.0, clone);
                    work.push(Val(clone));
                }
            }
            locs.push(s.debug_location());
            s.erase();
            sunk += 1;
        }
        if deleted + sunk > 0 {
            cx.removed_in_chain(
                "overwritten-logic",
                format!("{deleted} packet write(s) removed and {sunk} sunk off paths that end in a drop (a later drop makes them invisible)"),
                locs,
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, process_body, reduce_c};

    const TTL: &str = "uint8_t ttl; if (pkt->len < 34) return 0; ttl = pkt->data[22]; pkt->data[22] = (uint8_t)(ttl - 1);\n\
        if (ttl <= 1) { st[0]++; return NF_DROP; } return 0;";

    #[test]
    fn packet_write_before_a_drop_is_removed_from_the_drop_path() {
        let s = nf_source("", "", TTL);
        let r = reduce_c(&[(&s, &[])], |_| {}).unwrap();
        assert!(
            r.removals
                .iter()
                .any(|x| x.starts_with("overwritten-logic")),
            "{:?}",
            r.removals
        );
        // The state write on the drop path stays.
        assert!(process_body(&r.ir).contains("store i64"));
    }

    #[test]
    fn state_writes_before_a_drop_are_kept() {
        let s = nf_source(
            "",
            "",
            "st[3]++; if (pkt->len < 60) return NF_DROP; return 0;",
        );
        let r = reduce_c(&[(&s, &[])], |_| {}).unwrap();
        assert!(
            !r.removals
                .iter()
                .any(|x| x.starts_with("overwritten-logic")),
            "{:?}",
            r.removals
        );
        assert!(process_body(&r.ir).contains("store i64"));
    }
}
