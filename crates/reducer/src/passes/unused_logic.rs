//! Unused-logic elimination (NFReducer §IV-A, Alg. 3). Fires after config
//! propagation has folded the rules, on values that are computed on some
//! paths but only *used* on paths the configuration makes infeasible — the
//! UDP port decode when every rule is TCP (both protocols fill the same
//! `dport` field, so whole-program DCE keeps it), or a rule's action loaded
//! through a pointer that depends on which rule matched.
//!
//! Feasibility reasoning (our replacement for KLEE's per-path symbolic
//! execution): a block on no CFG cycle runs at most once per packet, so its
//! SSA values have one dynamic instance (rule loops are fully unrolled by
//! now; blocks still on a cycle, e.g. a checksum loop, are left alone and no
//! fact about their values is used).
//! Path conditions are conjunctions of facts `x == C` / `x != C` over SSA
//! integers, read off the branch and switch edges that dominate a point
//! (looking through `and`/`or` of conditions and `zext`). For each phi
//! incoming value v arriving over edge P→M, we follow the phi's users
//! through pure instructions to the points that observe it (branches,
//! stores, calls, returns, loads, divisions), adding the guard facts that
//! `and`/`or`/`select` impose on the way. When the edge's facts contradict
//! every observation point's facts, v is never observed on any feasible
//! path through that edge: the incoming value becomes `undef`, and LLVM's
//! ADCE then deletes the decode that produced it — per path, as Alg. 3's
//! "DCE on each path, then merge" would.
//!
//! Before that, loads whose address is a phi/select of constant addresses
//! into constant globals (config data chosen by the matching rule) are split
//! into per-predecessor loads that instcombine folds to constants.

use crate::analysis::Cfg;
use crate::error::ReduceError;
use crate::llvm_util::{self, Block, IntPred, Opcode, Val};
use crate::pass::{Pass, PassCtx};
use crate::passes::consolidate::CHAIN_BODY;
use inkwell::llvm_sys::core as c;
use std::collections::{HashMap, HashSet};

pub struct UnusedLogic;

/// A path fact: SSA value equals (true) or differs from (false) a constant.
type Fact = (Val, u64, bool);

fn norm(v: Val, k: u64) -> (Val, u64) {
    if v.opcode() == Some(Opcode::LLVMZExt) {
        if let Some(inner) = v.operand(0) {
            let w = inner.int_width();
            if w < 64 && k >> w == 0 {
                return norm(inner, k);
            }
        }
    }
    (v, k)
}

/// Facts implied by condition `cond` having value `truth`.
fn cond_facts(cond: Val, truth: bool, out: &mut Vec<Fact>, depth: u32) {
    if depth > 8 {
        return;
    }
    match cond.opcode() {
        Some(Opcode::LLVMICmp) => {
            let (Some(a), Some(b)) = (cond.operand(0), cond.operand(1)) else {
                return;
            };
            let (x, k) = match (a.const_int(), b.const_int()) {
                (None, Some(k)) => (a, k),
                (Some(k), None) => (b, k),
                _ => return,
            };
            let eq = match cond.icmp_predicate() {
                IntPred::LLVMIntEQ => truth,
                IntPred::LLVMIntNE => !truth,
                _ => return,
            };
            let (x, k) = norm(x, k);
            out.push((x, k, eq));
        }
        Some(Opcode::LLVMAnd) if truth => {
            for o in cond.operands() {
                cond_facts(o, true, out, depth + 1);
            }
        }
        Some(Opcode::LLVMOr) if !truth => {
            for o in cond.operands() {
                cond_facts(o, false, out, depth + 1);
            }
        }
        Some(Opcode::LLVMSelect) => {
            let (Some(cn), Some(t), Some(f)) = (cond.operand(0), cond.operand(1), cond.operand(2))
            else {
                return;
            };
            // select a, b, false == a && b ; select a, true, b == a || b
            if truth && f.const_int() == Some(0) {
                cond_facts(cn, true, out, depth + 1);
                cond_facts(t, true, out, depth + 1);
            } else if !truth && t.const_int() == Some(1) {
                cond_facts(cn, false, out, depth + 1);
                cond_facts(f, false, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Facts holding on edge from→to (from the terminator of `from`).
fn edge_facts(from: Block, to: Block) -> Vec<Fact> {
    let mut out = vec![];
    let Some(t) = from.terminator() else {
        return out;
    };
    match t.opcode() {
        Some(Opcode::LLVMBr) if t.is_conditional_branch() => {
            let (ts, fs) = (t.successor(0), t.successor(1));
            if ts == fs {
                return out;
            }
            if let Some(cond) = t.branch_condition() {
                cond_facts(cond, to == ts, &mut out, 0);
            }
        }
        Some(Opcode::LLVMSwitch) => {
            let Some(x) = t.operand(0) else { return out };
            // Operands: cond, default, (case value, dest)*.
            let n = t.num_operands();
            let default = t.successor(0);
            let mut cases = vec![];
            let mut k = 2;
            while k + 1 < n {
                if let Some(v) = t.operand(k).and_then(|v| v.const_int()) {
                    cases.push((v, t.successor(k / 2)));
                }
                k += 2;
            }
            let hits: Vec<u64> = cases
                .iter()
                .filter(|(_, d)| *d == to)
                .map(|(v, _)| *v)
                .collect();
            if to == default {
                if hits.is_empty() {
                    for (v, _) in &cases {
                        let (x, v) = norm(x, *v);
                        out.push((x, v, false));
                    }
                }
            } else if hits.len() == 1 {
                let (x, v) = norm(x, hits[0]);
                out.push((x, v, true));
            }
        }
        _ => {}
    }
    out
}

/// Blocks that lie on a cycle (may execute more than once per packet).
fn cyclic_blocks(cfg: &Cfg) -> Vec<bool> {
    (0..cfg.blocks.len())
        .map(|b| cfg.reachable_from(b)[b])
        .collect()
}

/// Keep only facts about values with one dynamic instance per packet
/// (arguments, or instructions in blocks on no cycle).
fn single_instance(facts: Vec<Fact>, cfg: &Cfg, cyclic: &[bool]) -> Vec<Fact> {
    facts
        .into_iter()
        .filter(|(x, _, _)| {
            x.is_argument()
                || x.parent_block()
                    .and_then(|b| cfg.index.get(&b))
                    .map(|i| !cyclic[*i])
                    .unwrap_or(false)
        })
        .collect()
}

/// Facts holding at the top of block `b`: from every dominating edge whose
/// source block runs at most once.
fn block_facts(
    cfg: &Cfg,
    cyclic: &[bool],
    b: usize,
    memo: &mut HashMap<usize, Vec<Fact>>,
) -> Vec<Fact> {
    if let Some(f) = memo.get(&b) {
        return f.clone();
    }
    let mut out = vec![];
    let idom = cfg.idom[b];
    if idom != usize::MAX && idom != b {
        out.extend(block_facts(cfg, cyclic, idom, memo));
        // The edge idom→b dominates b when b's only predecessor is idom.
        if cfg.preds[b].len() == 1 && cfg.preds[b][0] == idom && !cyclic[idom] {
            out.extend(single_instance(
                edge_facts(cfg.blocks[idom], cfg.blocks[b]),
                cfg,
                cyclic,
            ));
        }
    }
    memo.insert(b, out.clone());
    out
}

fn contradicts(a: &[Fact], b: &[Fact]) -> bool {
    for (x, k, eq) in a {
        for (y, l, eq2) in b.iter().chain(a.iter()) {
            if x != y {
                continue;
            }
            match (eq, eq2) {
                (true, true) if k != l => return true,
                (true, false) | (false, true) if k == l => return true,
                _ => {}
            }
        }
    }
    false
}

fn is_pure(i: Val) -> bool {
    match i.opcode() {
        Some(
            Opcode::LLVMAdd
            | Opcode::LLVMSub
            | Opcode::LLVMMul
            | Opcode::LLVMShl
            | Opcode::LLVMLShr
            | Opcode::LLVMAShr,
        )
        | Some(
            Opcode::LLVMAnd
            | Opcode::LLVMOr
            | Opcode::LLVMXor
            | Opcode::LLVMZExt
            | Opcode::LLVMSExt
            | Opcode::LLVMTrunc,
        )
        | Some(
            Opcode::LLVMICmp | Opcode::LLVMSelect | Opcode::LLVMFreeze | Opcode::LLVMGetElementPtr,
        ) => true,
        Some(Opcode::LLVMCall) => i
            .called_function()
            .map(|f| {
                [
                    "llvm.bswap",
                    "llvm.umin",
                    "llvm.umax",
                    "llvm.smin",
                    "llvm.smax",
                    "llvm.ctpop",
                    "llvm.abs",
                    "llvm.fshl",
                    "llvm.fshr",
                ]
                .iter()
                .any(|p| f.name().starts_with(p))
            })
            .unwrap_or(false),
        _ => false,
    }
}

/// Observation points of `v`: (instruction, extra guard facts, block whose
/// facts apply — for phi users, the incoming block of the edge).
fn observations(v: Val, cfg: &Cfg) -> Option<Vec<(Vec<Fact>, usize)>> {
    let mut out = vec![];
    let mut work = vec![(v, Vec::<Fact>::new())];
    let mut seen = HashSet::new();
    while let Some((x, guards)) = work.pop() {
        if !seen.insert((x, guards.len())) || seen.len() > 4000 {
            if seen.len() > 4000 {
                return None;
            }
            continue;
        }
        for u in x.users() {
            let ub = u.parent_block().and_then(|b| cfg.index.get(&b).copied())?;
            if u.opcode() == Some(Opcode::LLVMPHI) {
                for (val, inb) in u.phi_incoming() {
                    if val == x {
                        let mut g = guards.clone();
                        g.extend(edge_facts(inb, cfg.blocks[ub]));
                        out.push((g, *cfg.index.get(&inb)?));
                    }
                }
                continue;
            }
            if !is_pure(u) {
                out.push((guards.clone(), ub));
                continue;
            }
            let mut g = guards.clone();
            // Guards: the other operand of and/or/select decides whether x matters.
            match u.opcode() {
                Some(Opcode::LLVMSelect) => {
                    let (cn, t, f) = (u.operand(0), u.operand(1), u.operand(2));
                    if cn == Some(x) {
                        // x is the condition: observed through the select's result.
                    } else if let Some(cn) = cn {
                        if t == Some(x) && f != Some(x) {
                            cond_facts(cn, true, &mut g, 0);
                        } else if f == Some(x) && t != Some(x) {
                            cond_facts(cn, false, &mut g, 0);
                        }
                    }
                }
                Some(Opcode::LLVMAnd) if u.int_width() == 1 => {
                    for o in u.operands().into_iter().filter(|o| *o != x) {
                        cond_facts(o, true, &mut g, 0);
                    }
                }
                Some(Opcode::LLVMOr) if u.int_width() == 1 => {
                    for o in u.operands().into_iter().filter(|o| *o != x) {
                        cond_facts(o, false, &mut g, 0);
                    }
                }
                _ => {}
            }
            work.push((u, g));
        }
    }
    Some(out)
}

/// Split loads whose address is a phi (or a constant-offset GEP of a phi)
/// of constant addresses into constant globals.
fn split_constant_loads(body: Val) -> usize {
    let mut n = 0;
    for l in body.instructions() {
        if l.opcode() != Some(Opcode::LLVMLoad) || l.volatile() {
            continue;
        }
        let Some(p) = l.operand(0) else { continue };
        // addr = phi, or addr = gep(phi, constant indices...)
        let (phi, gep) = if p.opcode() == Some(Opcode::LLVMPHI) {
            (p, None)
        } else if p.opcode() == Some(Opcode::LLVMGetElementPtr)
            && p.operands().iter().skip(1).all(|i| i.is_constant())
        {
            match p.operand(0) {
                Some(b) if b.opcode() == Some(Opcode::LLVMPHI) => (b, Some(p)),
                _ => continue,
            }
        } else {
            continue;
        };
        if phi.parent_block() != l.parent_block()
            && gep
                .map(|g| g.parent_block() != l.parent_block())
                .unwrap_or(true)
        {
            continue;
        }
        let inc = phi.phi_incoming();
        let const_mem = |v: Val| {
            v.is_constant() && crate::analysis::roots(v).iter().all(|r| matches!(r, crate::analysis::Root::Global(g) if g.is_global_var() && g.is_global_constant()))
        };
        if inc.is_empty() || !inc.iter().all(|(v, _)| const_mem(*v)) {
            continue;
        }
        unsafe {
            let ty = l.type_of();
            let b = llvm_util::Builder::before(phi);
            let newphi = c::LLVMBuildPhi(b.0, ty, c"cfg".as_ptr());
            for (v, inb) in inc {
                let addr = match gep {
                    None => v.0,
                    Some(g) => {
                        let mut idx: Vec<_> = g.operands().iter().skip(1).map(|i| i.0).collect();
                        c::LLVMConstGEP2(
                            c::LLVMGetGEPSourceElementType(g.0),
                            v.0,
                            idx.as_mut_ptr(),
                            idx.len() as u32,
                        )
                    }
                };
                let t = inb.terminator().expect("predecessor has a terminator");
                let bb = llvm_util::Builder::before(t);
                let ld = c::LLVMBuildLoad2(bb.0, ty, addr, c"cfg.ld".as_ptr());
                c::LLVMSetAlignment(ld, c::LLVMGetAlignment(l.0));
                let mut vals = [ld];
                let mut blocks = [inb.0];
                c::LLVMAddIncoming(newphi, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
            }
            l.replace_all_uses_with(Val(newphi));
            l.erase();
        }
        n += 1;
    }
    n
}

impl Pass for UnusedLogic {
    fn name(&self) -> &'static str {
        "unused-logic"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let Some(body) = llvm_util::get_function(m, CHAIN_BODY) else {
            return Ok(());
        };
        let split = split_constant_loads(body);
        let cfg = Cfg::new(body);
        let cyclic = cyclic_blocks(&cfg);
        let mut memo = HashMap::new();
        let mut pruned = vec![];
        for phi in body
            .instructions()
            .into_iter()
            .filter(|i| i.opcode() == Some(Opcode::LLVMPHI))
        {
            let Some(mb) = phi.parent_block() else {
                continue;
            };
            if cyclic[cfg.index[&mb]] {
                continue;
            }
            let Some(obs) = observations(phi, &cfg) else {
                continue;
            };
            let obs_facts: Vec<Vec<Fact>> = obs
                .iter()
                .map(|(g, b)| {
                    let mut f = block_facts(&cfg, &cyclic, *b, &mut memo);
                    f.extend(single_instance(g.clone(), &cfg, &cyclic));
                    f
                })
                .collect();
            for (k, (v, inb)) in phi.phi_incoming().into_iter().enumerate() {
                if v.is_constant() || v.is_argument() || !v.is_instruction() {
                    continue;
                }
                let Some(&pi) = cfg.index.get(&inb) else {
                    continue;
                };
                if cyclic[pi] {
                    continue;
                }
                let mut ef = block_facts(&cfg, &cyclic, pi, &mut memo);
                ef.extend(single_instance(edge_facts(inb, mb), &cfg, &cyclic));
                if ef.is_empty() {
                    continue;
                }
                if obs_facts.iter().all(|of| contradicts(&ef, of)) {
                    unsafe {
                        // Operand k of a phi is its k-th incoming value.
                        c::LLVMSetOperand(phi.0, k as u32, llvm_util::undef_like(v).0);
                    }
                    pruned.push(v.debug_location());
                }
            }
        }
        if split > 0 {
            cx.removed_in_chain("unused-logic", format!("{split} load(s) of rule data through a rule-dependent address split per path and folded to constants"), []);
        }
        if !pruned.is_empty() {
            cx.removed_in_chain(
                "unused-logic",
                format!("{} value(s) computed only for paths the configuration makes infeasible (e.g. parsing a protocol no rule matches) are no longer kept alive", pruned.len()),
                pruned,
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, reduce_c};

    /// Snort-like: TCP and UDP decode into one shared port; rules match a protocol and a port.
    fn ids() -> String {
        nf_source(
            "static struct { uint8_t proto; uint16_t dport; } net; static uint8_t rule_proto; static uint16_t rule_port;",
            "if (nf_config_u64(cfg, \"proto\", 6, &v)) return -1; rule_proto = (uint8_t)v;\n\
             if (nf_config_u64(cfg, \"port\", 80, &v)) return -1; rule_port = (uint16_t)v;",
            "memset(&net, 0, sizeof net); if (pkt->len < 42 || pkt->data[12] != 8 || pkt->data[13] != 0) return 0;\n\
             net.proto = pkt->data[23];\n\
             if (net.proto == 6) net.dport = (uint16_t)((pkt->data[36] << 8) | pkt->data[37]);\n\
             else if (net.proto == 17) net.dport = (uint16_t)((pkt->data[36] << 8) | pkt->data[37] | 0x10000 * 0) + 1;\n\
             st[0]++;\n\
             if (net.proto == rule_proto && net.dport == rule_port) return NF_DROP; return 0;",
        )
    }

    #[test]
    fn udp_port_decode_is_unused_when_rules_are_tcp_only() {
        let s = ids();
        // Without per-path specialisation, which would otherwise fold this case first.
        let r = reduce_c(&[(&s, &[("proto", "6"), ("port", "22")])], |o| {
            o.skip.push("specialise-paths".into())
        })
        .unwrap();
        assert!(
            r.removals
                .iter()
                .any(|x| x.starts_with("unused-logic") && x.contains("infeasible")),
            "{:?}",
            r.removals
        );
    }

    #[test]
    fn both_decodes_stay_when_a_rule_is_udp() {
        let s = ids();
        let r = reduce_c(&[(&s, &[("proto", "17"), ("port", "54")])], |_| {}).unwrap();
        // The TCP decode is the unused one now; the reduction stays equivalent either way.
        assert!(r.diags.iter().any(|d| d.contains("matches the original")));
    }
}
