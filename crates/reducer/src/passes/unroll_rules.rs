//! Rule-loop unrolling (NFReducer §III-B step 3: "unroll loops over rule
//! arrays to the configured rule count"). Fires on every loop of the chain
//! body that LLVM's size-bounded full unroller left rolled although its trip
//! count is now a small constant — typically a rule loop whose body is large
//! (the IDS's payload search sits inside it), so the cost model refuses.
//!
//! A loop qualifies when its latch (the branch carrying `!llvm.loop`) exits on
//! an integer compare against a constant of at most [`MAX_TRIP`]. The pass
//! only attaches `llvm.loop.unroll.full` to the loop's ID (the same hint
//! `#pragma unroll` gives); LLVM's `loop-unroll-full`, run right after, does
//! the unrolling and proves the trip count itself, so a wrong guess here only
//! costs nothing (the hint is ignored when the count is not constant). Once
//! unrolled, every copy reads its own rule's constant fields, so the
//! comparisons fold and per-path pruning sees which fields each path needs.

use crate::error::ReduceError;
use crate::llvm_util::{self, Opcode, Val};
use crate::pass::{Pass, PassCtx};
use crate::passes::consolidate::CHAIN_BODY;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;

/// Largest constant trip count a rule loop may have to be unrolled (bounds
/// the code growth; configs with more rules keep their loop).
pub const MAX_TRIP: u64 = 64;

pub struct UnrollRules;

/// The constant bound of a latch's exit compare, if it has one.
fn constant_bound(latch: Val) -> Option<u64> {
    let cond = latch.branch_condition()?;
    if cond.opcode() != Some(Opcode::LLVMICmp) {
        return None;
    }
    cond.operands().iter().find_map(|o| o.const_int())
}

impl Pass for UnrollRules {
    fn name(&self) -> &'static str {
        "unroll-rules"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let Some(body) = llvm_util::get_function(m, CHAIN_BODY) else {
            return Ok(());
        };
        let ctx = unsafe { c::LLVMGetModuleContext(m) };
        let loop_kind = unsafe { c::LLVMGetMDKindIDInContext(ctx, c"llvm.loop".as_ptr(), 9) };
        let mut tagged = vec![];
        for bb in body.blocks() {
            let Some(term) = bb.terminator() else {
                continue;
            };
            if !term.is_conditional_branch() {
                continue;
            }
            let id = unsafe { c::LLVMGetMetadata(term.0, loop_kind) };
            if id.is_null() {
                continue;
            }
            let Some(trip) = constant_bound(term).filter(|&n| n > 1 && n <= MAX_TRIP) else {
                continue;
            };
            unsafe {
                // New loop ID: (self, old options..., !{"llvm.loop.unroll.full"}).
                let n = c::LLVMGetMDNodeNumOperands(id) as usize;
                let mut ops = vec![std::ptr::null_mut(); n];
                c::LLVMGetMDNodeOperands(id, ops.as_mut_ptr());
                let name = "llvm.loop.unroll.full";
                let s = c::LLVMMDStringInContext2(ctx, name.as_ptr() as *const _, name.len());
                let mut opt = [s];
                let full = c::LLVMMDNodeInContext2(ctx, opt.as_mut_ptr(), 1);
                let temp = di::LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
                let mut md = vec![temp];
                for &o in ops.iter().skip(1) {
                    if !o.is_null() {
                        md.push(c::LLVMValueAsMetadata(o));
                    }
                }
                md.push(full);
                let new_id = c::LLVMMDNodeInContext2(ctx, md.as_mut_ptr(), md.len());
                di::LLVMMetadataReplaceAllUsesWith(temp, new_id);
                c::LLVMSetMetadata(term.0, loop_kind, c::LLVMMetadataAsValue(ctx, new_id));
            }
            tagged.push((trip, term.debug_location()));
        }
        for (trip, loc) in tagged {
            let nf = cx.nfs.first().map(|u| u.id.clone()).unwrap_or_default();
            let nf = loc
                .as_deref()
                .and_then(|l| {
                    cx.nfs.iter().find(|u| {
                        u.files
                            .iter()
                            .any(|f| l.contains(f.rsplit('/').next().unwrap_or(f)))
                    })
                })
                .map(|u| u.id.clone())
                .unwrap_or(nf);
            cx.removed(
                "unroll-rules",
                &nf,
                format!("loop with constant trip count {trip} marked for full unrolling"),
                loc,
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, reduce_c};

    /// A rule loop whose body holds payload searches: too big for LLVM's
    /// size-bounded full unroll, but with 40 configured rules.
    fn rule_nf() -> String {
        let search = |f: &str| {
            format!(
                "for (uint32_t j = 34; j + rules[i].n <= pkt->len; j++)\n\
                   if (pkt->data[j] == rules[i].{f}[0] && memcmp(pkt->data + j, rules[i].{f}, rules[i].n) == 0) \
                     {{ st[i] += j; hit++; break; }}\n"
            )
        };
        nf_source(
            "static struct { uint8_t proto; uint8_t a[8]; uint8_t b[8]; uint8_t c[8]; uint32_t n; } rules[64]; static uint32_t n_rules;",
            "n_rules = 40; rules[0].proto = 6; rules[0].a[0] = 'a'; rules[0].n = 1;\n\
             rules[1].proto = 6; rules[1].b[0] = 'b'; rules[1].n = 1; rules[2].proto = 17;",
            &format!(
                "if (pkt->len < 34) return 0; uint8_t proto = pkt->data[23];\n\
                 for (uint32_t i = 0; i < n_rules; i++) {{\n\
                   uint32_t hit = 0;\n\
                   if (rules[i].proto != proto) continue;\n\
                   {}{}{}\
                   if (hit > 1) return NF_DROP;\n\
                 }}\n\
                 return 0;",
                search("a"),
                search("b"),
                search("c")
            ),
        )
    }

    #[test]
    fn big_rule_loop_with_constant_count_is_unrolled() {
        let s = rule_nf();
        let without = reduce_c(&[(&s, &[])], |o| o.skip = vec!["unroll-rules".into()]).unwrap();
        // Without the pass the rule loop stays: rule fields are loaded at run time.
        let rules_read = |ir: &str| {
            ir.lines()
                .any(|l| l.contains("@nf0_rules") && !l.starts_with("@nf0_rules"))
        };
        assert!(rules_read(&without.ir), "loop unrolled anyway");
        let with = reduce_c(&[(&s, &[])], |_| {}).unwrap();
        assert!(
            with.removals
                .iter()
                .any(|x| x.starts_with("unroll-rules") && x.contains("trip count 40")),
            "{:?}",
            with.removals
        );
        assert!(!rules_read(&with.ir), "rule fields still loaded");
    }
}
