//! Per-path specialisation (NFReducer §IV-A, Alg. 3's per-path constant
//! folding, done by tail duplication). After config propagation and rule
//! unrolling, rule checks often compile to branch-free selects, so a packet
//! whose dispatch already decided a field (e.g. the L4 protocol is UDP)
//! still evaluates every rule that re-tests that field. This pass finds such
//! a dispatch structurally and gives each constant case its own copy of the
//! code after it, with the field's value substituted, so LLVM's
//! instcombine/sccp/simplifycfg fold the re-tests (and the work only they
//! needed) away on that path.
//!
//! A candidate is a block `S` on no CFG cycle ending in a `switch` on an
//! integer SSA value `V`, or a branch on `V == C` / `V != C`, where the code
//! reachable from one constant case's destination `D` re-tests `V` (or a phi
//! / cast `V` flows into, or a pure function of `V` computed before `S`)
//! against constants. Nothing about what `V` means is assumed. The copy is
//! the set of blocks reachable from `D`; because `S` is on no cycle, `V`
//! keeps the value `C` everywhere in it, every value the copy uses from
//! outside dominates it, and every use of a value the copy defines is inside
//! it. The case edge is redirected to a fresh prelude block (which re-computes
//! the pure functions of `V` with `V := C`) and then to the copy; phis of the
//! copy keep only the incoming edges from inside it.
//!
//! Growth is bounded: each copy costs its instruction count, the pass stops
//! at [`DEFAULT_BUDGET`] added instructions (or [`MAX_SPLITS`] copies), and
//! a candidate that does not fit is skipped with a note (R0108).

use crate::analysis::Cfg;
use crate::error::ReduceError;
use crate::llvm_util::{self, Block, IntPred, Opcode, Val};
use crate::pass::{Pass, PassCtx};
use crate::passes::consolidate::CHAIN_BODY;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use nfc_core::diag::Diagnostic;
use std::collections::{HashMap, HashSet};

/// Instructions the pass may add to the chain body in total.
pub const DEFAULT_BUDGET: usize = 4000;
/// Most copies made in one run.
pub const MAX_SPLITS: usize = 16;

pub struct SpecialisePaths {
    /// Instructions the pass may add (see [`DEFAULT_BUDGET`]).
    pub budget: usize,
}

impl Default for SpecialisePaths {
    fn default() -> Self {
        SpecialisePaths {
            budget: DEFAULT_BUDGET,
        }
    }
}

/// One constant case of a dispatch: `V == value` on successor `succ` of `S`.
#[derive(Clone, Copy, Debug)]
struct Case {
    s: Block,
    v: Val,
    value: Val,
    succ: u32,
    dest: Block,
}

/// A case worth copying: how many re-tests of `V` the copy folds, and its size.
struct Candidate {
    case: Case,
    retests: usize,
    cost: usize,
    region: Vec<Block>,
}

fn is_cast(i: Val) -> bool {
    matches!(
        i.opcode(),
        Some(Opcode::LLVMZExt | Opcode::LLVMSExt | Opcode::LLVMTrunc | Opcode::LLVMFreeze)
    )
}

/// Side-effect-free, non-trapping, memory-free instructions (safe to re-compute).
fn is_pure(i: Val) -> bool {
    matches!(
        i.opcode(),
        Some(
            Opcode::LLVMAdd
                | Opcode::LLVMSub
                | Opcode::LLVMMul
                | Opcode::LLVMShl
                | Opcode::LLVMLShr
                | Opcode::LLVMAShr
                | Opcode::LLVMAnd
                | Opcode::LLVMOr
                | Opcode::LLVMXor
                | Opcode::LLVMZExt
                | Opcode::LLVMSExt
                | Opcode::LLVMTrunc
                | Opcode::LLVMFreeze
                | Opcode::LLVMICmp
                | Opcode::LLVMSelect
        )
    )
}

/// Is `u` a test of its operand against constants (icmp with a constant, or a switch)?
fn is_const_test(u: Val, x: Val) -> bool {
    match u.opcode() {
        Some(Opcode::LLVMSwitch) => u.operand(0) == Some(x),
        Some(Opcode::LLVMICmp) => u
            .operands()
            .iter()
            .any(|o| *o != x && o.const_int().is_some()),
        _ => false,
    }
}

/// The constant cases of block `s`'s terminator whose destination is reached
/// by that case alone.
fn cases_of(s: Block) -> Vec<Case> {
    let Some(t) = s.terminator() else {
        return vec![];
    };
    let n = t.num_successors();
    let unique = |d: Block| (0..n).filter(|&i| t.successor(i) == d).count() == 1;
    let mut out = vec![];
    match t.opcode() {
        Some(Opcode::LLVMSwitch) => {
            let Some(v) = t.operand(0) else { return out };
            if v.is_constant() {
                return out;
            }
            // Operands: cond, default, (case value, dest)*; successor j>0 is case j-1.
            for j in 1..n {
                let Some(value) = t.operand(2 * j).filter(|c| c.const_int().is_some()) else {
                    continue;
                };
                let dest = t.successor(j);
                if unique(dest) {
                    out.push(Case {
                        s,
                        v,
                        value,
                        succ: j,
                        dest,
                    });
                }
            }
        }
        Some(Opcode::LLVMBr) if t.is_conditional_branch() => {
            let Some(cond) = t.branch_condition() else {
                return out;
            };
            if cond.opcode() != Some(Opcode::LLVMICmp) {
                return out;
            }
            let (Some(a), Some(b)) = (cond.operand(0), cond.operand(1)) else {
                return out;
            };
            let (v, value) = match (a.const_int(), b.const_int()) {
                (None, Some(_)) => (a, b),
                (Some(_), None) => (b, a),
                _ => return out,
            };
            if v.is_ptr_type() {
                return out;
            }
            let succ = match cond.icmp_predicate() {
                IntPred::LLVMIntEQ => 0,
                IntPred::LLVMIntNE => 1,
                _ => return out,
            };
            let dest = t.successor(succ);
            if unique(dest) {
                out.push(Case {
                    s,
                    v,
                    value,
                    succ,
                    dest,
                });
            }
        }
        _ => {}
    }
    out
}

/// Values `V` flows into unchanged in meaning (casts, phis, selects).
fn flows(v: Val) -> Vec<Val> {
    let mut out = vec![v];
    let mut seen: HashSet<Val> = [v].into();
    let mut k = 0;
    while k < out.len() && out.len() < 256 {
        let x = out[k];
        k += 1;
        for u in x.users() {
            let carries = is_cast(u)
                || u.opcode() == Some(Opcode::LLVMPHI)
                || (u.opcode() == Some(Opcode::LLVMSelect) && u.operand(0) != Some(x));
            if carries && seen.insert(u) {
                out.push(u);
            }
        }
    }
    out
}

/// Count the re-tests of `V` that a copy of `region` would fold.
fn retests(v: Val, in_region: &dyn Fn(Val) -> bool) -> usize {
    let mut n = 0;
    for f in flows(v) {
        for u in f.users() {
            if !is_const_test(u, f) {
                continue;
            }
            if in_region(u) || u.users().iter().any(|w| in_region(*w)) {
                n += 1;
            }
        }
    }
    n
}

/// Terminators and instructions a copy may contain.
fn clonable(b: Block) -> bool {
    b.instructions().into_iter().all(|i| {
        !matches!(
            i.opcode(),
            Some(
                Opcode::LLVMIndirectBr
                    | Opcode::LLVMInvoke
                    | Opcode::LLVMCallBr
                    | Opcode::LLVMLandingPad
                    | Opcode::LLVMResume
                    | Opcode::LLVMCleanupPad
                    | Opcode::LLVMCatchPad
                    | Opcode::LLVMCatchSwitch
                    | Opcode::LLVMCleanupRet
                    | Opcode::LLVMCatchRet
            )
        ) && unsafe {
            c::LLVMGetTypeKind(i.type_of()) != inkwell::llvm_sys::LLVMTypeKind::LLVMTokenTypeKind
        }
    })
}

fn candidates(body: Val, skip_dest: &HashSet<Block>) -> Vec<Candidate> {
    let cfg = Cfg::new(body);
    let mut out = vec![];
    for (si, &s) in cfg.blocks.iter().enumerate() {
        if cfg.idom[si] == usize::MAX || cfg.reachable_from(si)[si] {
            continue; // unreachable, or on a cycle: V may change between visits
        }
        for case in cases_of(s) {
            if skip_dest.contains(&case.dest) {
                continue;
            }
            let Some(&di) = cfg.index.get(&case.dest) else {
                continue;
            };
            let mut reach = cfg.reachable_from(di);
            reach[di] = true;
            if reach[si] {
                continue;
            }
            let region: Vec<Block> = (0..cfg.blocks.len())
                .filter(|&b| reach[b])
                .map(|b| cfg.blocks[b])
                .collect();
            if !region.iter().all(|b| clonable(*b)) {
                continue;
            }
            let in_region = |i: Val| {
                i.parent_block()
                    .and_then(|b| cfg.index.get(&b))
                    .map(|&b| reach[b])
                    .unwrap_or(false)
            };
            let n = retests(case.v, &in_region);
            if n == 0 {
                continue;
            }
            let cost = region.iter().map(|b| b.instructions().len()).sum();
            out.push(Candidate {
                case,
                retests: n,
                cost,
                region,
            });
        }
    }
    // Most folded re-tests first, then the cheapest copy.
    out.sort_by(|a, b| b.retests.cmp(&a.retests).then(a.cost.cmp(&b.cost)));
    out
}

/// Clones `region` for `case`, redirecting the case edge to the copy.
/// Returns the prelude block the case now targets.
fn specialise(body: Val, case: Case, region: &[Block]) -> Block {
    unsafe {
        let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(body.0));
        let in_region: HashSet<Block> = region.iter().copied().collect();
        let prelude = Block(c::LLVMAppendBasicBlockInContext(
            ctx,
            body.0,
            c"spec".as_ptr(),
        ));
        let mut bmap: HashMap<Block, Block> = HashMap::new();
        for &b in region {
            bmap.insert(
                b,
                Block(c::LLVMAppendBasicBlockInContext(
                    ctx,
                    body.0,
                    c"spec.bb".as_ptr(),
                )),
            );
        }
        let mut vmap: HashMap<LLVMValueRef, LLVMValueRef> = HashMap::new();
        let mut phis = vec![];
        let mut clones = vec![];
        for &b in region {
            let nb = llvm_util::Builder::at_end(bmap[&b]);
            for i in b.instructions() {
                let ni = if i.opcode() == Some(Opcode::LLVMPHI) {
                    let p = c::LLVMBuildPhi(nb.0, i.type_of(), c"".as_ptr());
                    phis.push((i, p));
                    p
                } else {
                    let ni = c::LLVMInstructionClone(i.0);
                    c::LLVMInsertIntoBuilderWithName(nb.0, ni, c"".as_ptr());
                    clones.push(ni);
                    ni
                };
                vmap.insert(i.0, ni);
            }
        }
        // Pure functions of V defined outside the copy, recomputed in the prelude.
        let pre = llvm_util::Builder::at_end(prelude);
        let mut hoisted: HashMap<LLVMValueRef, Option<LLVMValueRef>> = HashMap::new();
        fn depends(x: Val, v: Val, depth: u32) -> bool {
            x == v
                || (depth < 6
                    && is_pure(x)
                    && x.operands().iter().any(|o| depends(*o, v, depth + 1)))
        }
        fn hoist(
            x: Val,
            case: &Case,
            pre: &llvm_util::Builder,
            memo: &mut HashMap<LLVMValueRef, Option<LLVMValueRef>>,
        ) -> Option<LLVMValueRef> {
            if x == case.v {
                return Some(case.value.0);
            }
            if let Some(r) = memo.get(&x.0) {
                return *r;
            }
            let r = if x.is_instruction() && is_pure(x) && depends(x, case.v, 0) {
                unsafe {
                    let ni = c::LLVMInstructionClone(x.0);
                    for (k, o) in x.operands().into_iter().enumerate() {
                        if let Some(no) = hoist(o, case, pre, memo) {
                            c::LLVMSetOperand(ni, k as u32, no);
                        }
                    }
                    c::LLVMInsertIntoBuilderWithName(pre.0, ni, c"".as_ptr());
                    Some(ni)
                }
            } else {
                None
            };
            memo.insert(x.0, r);
            r
        }
        let map_operand =
            |o: Val, hoisted: &mut HashMap<LLVMValueRef, Option<LLVMValueRef>>| -> LLVMValueRef {
                if let Some(n) = vmap.get(&o.0) {
                    return *n;
                }
                if c::LLVMValueIsBasicBlock(o.0) != 0 {
                    let b = Block(c::LLVMValueAsBasicBlock(o.0));
                    return bmap
                        .get(&b)
                        .map(|nb| c::LLVMBasicBlockAsValue(nb.0))
                        .unwrap_or(o.0);
                }
                if o.is_instruction() || o == case.v {
                    if let Some(h) = hoist(o, &case, &pre, hoisted) {
                        return h;
                    }
                }
                o.0
            };
        for &ni in &clones {
            let ni = Val(ni);
            for k in 0..ni.num_operands() {
                let Some(o) = ni.operand(k) else { continue };
                let no = map_operand(o, &mut hoisted);
                if no != o.0 {
                    c::LLVMSetOperand(ni.0, k, no);
                }
            }
        }
        for (old, new) in &phis {
            let ob = old.parent_block().expect("phi in a block");
            for (v, inb) in old.phi_incoming() {
                let from = if in_region.contains(&inb) {
                    bmap[&inb]
                } else if inb == case.s && ob == case.dest {
                    prelude
                } else {
                    continue;
                };
                let mut vals = [map_operand(v, &mut hoisted)];
                let mut blocks = [from.0];
                c::LLVMAddIncoming(*new, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
            }
        }
        c::LLVMBuildBr(pre.0, bmap[&case.dest].0);
        // Redirect the case edge and drop S from the original destination's phis.
        let t = case
            .s
            .terminator()
            .expect("dispatch block has a terminator");
        c::LLVMSetSuccessor(t.0, case.succ, prelude.0);
        for phi in case.dest.instructions() {
            if phi.opcode() != Some(Opcode::LLVMPHI) {
                break;
            }
            let keep: Vec<(Val, Block)> = phi
                .phi_incoming()
                .into_iter()
                .filter(|(_, b)| *b != case.s)
                .collect();
            if keep.is_empty() {
                // The destination lost its last predecessor: it is dead code now.
                phi.replace_all_uses_with(Val(c::LLVMGetPoison(phi.type_of())));
            } else {
                let b = llvm_util::Builder::before(phi);
                let np = c::LLVMBuildPhi(b.0, phi.type_of(), c"".as_ptr());
                for (v, inb) in keep {
                    let mut vals = [v.0];
                    let mut blocks = [inb.0];
                    c::LLVMAddIncoming(np, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
                }
                phi.replace_all_uses_with(Val(np));
            }
            phi.erase();
        }
        prelude
    }
}

impl Pass for SpecialisePaths {
    fn name(&self) -> &'static str {
        "specialise-paths"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let Some(body) = llvm_util::get_function(m, CHAIN_BODY) else {
            return Ok(());
        };
        let mut left = self.budget;
        let mut preludes: HashSet<Block> = HashSet::new();
        let mut done = vec![];
        let mut over: Vec<(String, usize)> = vec![];
        let mut refused: HashSet<(Val, u64)> = HashSet::new();
        while done.len() < MAX_SPLITS {
            let cands = candidates(body, &preludes);
            let Some(pick) = cands.into_iter().find(|cd| {
                let key = (
                    cd.case.s.terminator().unwrap_or(cd.case.v),
                    cd.case.value.const_int().unwrap_or(0),
                );
                if cd.cost > left {
                    if refused.insert(key) {
                        over.push((describe(&cd.case), cd.cost));
                    }
                    false
                } else {
                    true
                }
            }) else {
                break;
            };
            left -= pick.cost;
            let p = specialise(body, pick.case, &pick.region);
            preludes.insert(p);
            done.push((describe(&pick.case), pick.retests, pick.cost));
        }
        for (what, n, cost) in &done {
            cx.removed_in_chain(
                "specialise-paths",
                format!("code after {what} copied for that case ({cost} instructions) so {n} re-test(s) of the value fold on that path"),
                [],
            );
        }
        for (what, cost) in over {
            cx.diags.push(Diagnostic::note_diag(
                "R0108",
                format!("per-path specialisation of {what} skipped: the copy ({cost} instructions) exceeds the remaining growth budget ({left} of {} instructions)", self.budget),
            ));
        }
        Ok(())
    }
}

fn describe(case: &Case) -> String {
    let loc = case
        .s
        .terminator()
        .and_then(|t| t.debug_location())
        .map(|l| format!(" at {l}"))
        .unwrap_or_default();
    format!(
        "the dispatch on a value == {}{loc}",
        case.value.const_int().unwrap_or(0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir;
    use crate::testutil::{nf_source, reduce_c};
    use crate::ReduceOptions;

    /// A chain body that dispatches on a packet byte, merges, and re-tests the byte.
    const DISPATCH_THEN_RETEST: &str = r#"
define i32 @__nfc_chain_body(ptr %p) {
entry:
  %t = load i8, ptr %p
  switch i8 %t, label %other [ i8 6, label %six
                               i8 17, label %seventeen ]
six:
  br label %join
seventeen:
  br label %join
other:
  br label %join
join:
  %x = phi i32 [ 1, %six ], [ 2, %seventeen ], [ 3, %other ]
  %q = getelementptr i8, ptr %p, i64 1
  %b = load i8, ptr %q
  %is6 = icmp eq i8 %t, 6
  %big = icmp ugt i8 %b, 10
  %m = select i1 %is6, i1 %big, i1 false
  %r = select i1 %m, i32 %x, i32 0
  ret i32 %r
}
"#;

    struct Outcome {
        ir: String,
        removals: Vec<String>,
        diags: Vec<String>,
    }

    /// Run the pass (with `budget`) and the pipeline's fold group on `text`,
    /// with the LLVM verifier after each.
    fn check(text: &str, budget: usize) -> Outcome {
        let ctx = inkwell::context::Context::create();
        let module = ir::parse_ir(&ctx, "t", text.as_bytes()).unwrap();
        let machine = ir::host_machine().unwrap();
        let opts = ReduceOptions::default();
        let mut nfs = vec![];
        let mut cx = PassCtx {
            module: &module,
            machine: &machine,
            nfs: &mut nfs,
            opts: &opts,
            removals: vec![],
            diags: vec![],
            pending: Default::default(),
        };
        SpecialisePaths { budget }.run(&mut cx).unwrap();
        ir::verify(&module, "t", "specialise-paths").unwrap();
        let removals = cx.removals.iter().map(|r| r.what.clone()).collect();
        let diags = cx.diags.iter().map(|d| d.to_string()).collect();
        if removals != Vec::<String>::new() {
            ir::run_pipeline(
                &module,
                &machine,
                "function(simplifycfg,instcombine<no-verify-fixpoint>,sccp,simplifycfg,adce)",
            )
            .unwrap();
            ir::verify(&module, "t", "llvm-fold-paths").unwrap();
        }
        Outcome {
            ir: module.print_to_string().to_string(),
            removals,
            diags,
        }
    }

    #[test]
    fn copies_fold_the_retest_per_case() {
        let o = check(DISPATCH_THEN_RETEST, DEFAULT_BUDGET);
        assert_eq!(o.removals.len(), 2, "{:?}", o.removals);
        assert!(
            o.removals.iter().any(|r| r.contains("== 6")),
            "{:?}",
            o.removals
        );
        assert!(
            o.removals.iter().any(|r| r.contains("== 17")),
            "{:?}",
            o.removals
        );
        // The 17 copy folded to a constant and reads nothing; the 6 copy reads
        // the second byte without re-testing; only the default path re-tests.
        assert!(o.ir.contains("i8 17, label %common.ret"), "{}", o.ir);
        assert_eq!(o.ir.matches("load i8").count(), 3, "{}", o.ir);
        assert_eq!(o.ir.matches("icmp eq i8").count(), 1, "{}", o.ir);
    }

    #[test]
    fn budget_exceeded_changes_nothing_and_says_so() {
        let before = {
            let ctx = inkwell::context::Context::create();
            let m = ir::parse_ir(&ctx, "t", DISPATCH_THEN_RETEST.as_bytes()).unwrap();
            m.print_to_string().to_string()
        };
        let o = check(DISPATCH_THEN_RETEST, 2);
        assert!(o.removals.is_empty(), "{:?}", o.removals);
        assert_eq!(o.ir, before);
        assert!(
            o.diags
                .iter()
                .filter(|d| d.contains("R0108") && d.contains("budget"))
                .count()
                == 2,
            "{:?}",
            o.diags
        );
    }

    #[test]
    fn no_retest_no_copy() {
        // The same dispatch without a later test of the byte: nothing to fold.
        let text =
            DISPATCH_THEN_RETEST.replace("%is6 = icmp eq i8 %t, 6", "%is6 = icmp eq i8 %b, 6");
        let o = check(&text, DEFAULT_BUDGET);
        assert!(o.removals.is_empty(), "{:?}", o.removals);
    }

    /// A C NF: the L4 protocol is dispatched on during decode, and every rule
    /// re-tests it inside a branch-free match (the firewall pattern).
    #[test]
    fn c_dispatch_then_retest_is_specialised_and_equivalent() {
        let s = nf_source(
            "static uint8_t rule_proto[3]; static uint16_t rule_port[3];",
            "for (int i = 0; i < 3; i++) { char k[16]; snprintf(k, sizeof k, \"p%d\", i);\n\
             if (nf_config_u64(cfg, k, 6, &v)) return -1; rule_proto[i] = (uint8_t)v;\n\
             snprintf(k, sizeof k, \"d%d\", i); if (nf_config_u64(cfg, k, 80, &v)) return -1; rule_port[i] = (uint16_t)v; }",
            "struct nf_headers h; uint16_t dport = 0;\n\
             if (nf_parse(pkt, &h) || !h.ip4) return 0;\n\
             if (h.tcp) dport = nf_ntohs(h.tcp->dport); else if (h.udp) dport = nf_ntohs(h.udp->dport);\n\
             st[0]++;\n\
             for (int i = 0; i < 3; i++) if ((h.proto == rule_proto[i]) & (dport == rule_port[i])) return NF_DROP;\n\
             return 0;",
        );
        let cfg: &[(&str, &str)] = &[
            ("p0", "6"),
            ("d0", "22"),
            ("p1", "6"),
            ("d1", "80"),
            ("p2", "6"),
            ("d2", "443"),
        ];
        let r = reduce_c(&[(&s, cfg)], |_| {}).unwrap();
        assert!(
            r.diags.iter().any(|d| d.contains("matches the original")),
            "{:?}",
            r.diags
        );
        assert!(
            r.removals
                .iter()
                .any(|x| x.starts_with("specialise-paths") && x.contains("== 17")),
            "{:?}",
            r.removals
        );
    }
}
