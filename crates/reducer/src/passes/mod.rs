//! The reducer's passes, one per file, and the pipeline that orders them.

pub mod config_propagation;
pub mod consolidate;
pub mod flatten_headers;
pub mod inline_body;
pub mod inline_chain;
pub mod llvm_std;
pub mod overwritten_logic;
pub mod packet_alias;
pub mod packet_cse;
pub mod slice;
pub mod specialise_paths;
pub mod unroll_rules;
pub mod unused_logic;

use crate::pass::Pass;
use llvm_std::LlvmPasses;

/// The pipeline, in order. NFReducer's order is duplicated → overwritten →
/// unused (§IV-C, last paragraph); config propagation is preparation
/// (§III) that every one of them needs, so it runs right after splicing.
pub fn pipeline() -> Vec<Box<dyn Pass>> {
    vec![
        // Alg. 4 lines 2–3: rename every NF's symbols and splice the NFs into one
        // module with generated nf.h entry points (run to completion, routing by
        // verdict, truncation at the first drop). Everything after works on one module.
        Box::new(consolidate::Consolidate),
        // Promote -O0 stack slots to SSA so the slice's pointer-origin analysis sees
        // through locals (no inlining yet: nf_init must stay a function to be labelled).
        Box::new(LlvmPasses { name: "llvm-mem2reg", pipeline: "function(mem2reg)" }),
        // Alg. 1: label config/state variables, find output-only logic.
        Box::new(slice::Slice),
        // §III-B: config variables become constants, nf_init's effect becomes initialisers.
        Box::new(config_propagation::ConfigPropagation),
        // Run to completion: every NF's process path inlined into the chain body.
        Box::new(inline_chain::InlineChain),
        // Inline, then fold the now-constant rule fields and fully unroll rule loops
        // whose trip count became a constant (§III-B step 3).
        Box::new(LlvmPasses {
            name: "llvm-fold-unroll",
            pipeline: "always-inline,function(sroa,early-cse,instcombine<no-verify-fixpoint>,sccp,simplifycfg,loop-mssa(loop-rotate),loop(indvars,loop-unroll-full),instcombine<no-verify-fixpoint>,simplifycfg,loop-unroll<O3;upperbound;no-runtime;no-partial>,instcombine<no-verify-fixpoint>,simplifycfg),globaldce",
        }),
        // Rule loops the size-bounded unroller refused (big bodies, e.g. a payload
        // search per rule) but whose count is now a small constant: unroll them
        // anyway (§III-B step 3), then fold each copy's constant rule fields.
        Box::new(unroll_rules::UnrollRules),
        Box::new(LlvmPasses {
            name: "llvm-unroll-rules",
            pipeline: "function(loop(loop-unroll-full),sroa,instcombine<no-verify-fixpoint>,sccp,simplifycfg,early-cse),globaldce",
        }),
        // §IV-B CSE across NFs: make the ABI's disjointness visible (noalias frame and
        // state), then turn per-packet header structs into scalars.
        Box::new(packet_alias::PacketAlias),
        Box::new(flatten_headers::FlattenHeaders),
        // SROA splits the header slots; GVN merges NF2's header loads into NF1's
        // (copy propagation comes with it); ADCE drops what no one reads.
        Box::new(LlvmPasses {
            name: "llvm-cse",
            pipeline: "function(sroa,early-cse<memssa>,simplifycfg,jump-threading,gvn,instcombine<no-verify-fixpoint>,simplifycfg,adce,break-crit-edges)",
        }),
        // Packet re-reads GVN could not merge (variable header offsets), then let
        // GVN/instcombine fold the comparisons that now share operands.
        Box::new(packet_cse::PacketCse),
        Box::new(LlvmPasses {
            name: "llvm-cse2",
            pipeline: "function(early-cse<memssa>,gvn,instcombine<no-verify-fixpoint>,simplifycfg,jump-threading,simplifycfg,adce,break-crit-edges)",
        }),
        // §IV-C after duplicated logic is gone (so NF2's checks read NF1's values and
        // drops are explicit `ret -1` edges); critical edges were split just above.
        Box::new(overwritten_logic::OverwrittenLogic),
        // Sink the computations that fed sunk packet writes, re-fold.
        Box::new(LlvmPasses {
            name: "llvm-sink",
            pipeline: "function(sink,instcombine<no-verify-fixpoint>,simplifycfg,adce)",
        }),
        // §IV-A (unused logic) group, last, on the smallest program. First per-path
        // constant folding: it needs the rules already constant and unrolled (config
        // propagation, unroll-rules) — otherwise nothing re-tests the dispatched
        // field yet — and runs after the duplicated/overwritten passes so the copies
        // are of the smallest body. Copy the code after a dispatch on a packet field
        // once per constant case, then let LLVM fold each copy (unreachable blocks
        // first, so the copies' phis collapse to the case's constant).
        Box::new(specialise_paths::SpecialisePaths::default()),
        Box::new(LlvmPasses {
            name: "llvm-fold-paths",
            pipeline: "function(simplifycfg,instcombine<no-verify-fixpoint>,sccp,simplifycfg,adce)",
        }),
        // Then per-path pruning of values only infeasible paths observe.
        Box::new(unused_logic::UnusedLogic),
        // Fold what the per-path pruning exposed; remove dead decode work.
        Box::new(LlvmPasses {
            name: "llvm-cleanup",
            pipeline: "function(instcombine<no-verify-fixpoint>,sccp,gvn,simplifycfg,adce,dse,instcombine<no-verify-fixpoint>,simplifycfg),globaldce",
        }),
        // Everything is reduced: fold a loop-free chain body into nf_process (its
        // noalias facts survive as scoped alias metadata) for one call less per
        // packet; a body with a loop stays out of line (measured cost check there).
        Box::new(inline_body::InlineBody),
        Box::new(LlvmPasses { name: "llvm-final", pipeline: "always-inline,function(sroa,instcombine<no-verify-fixpoint>,simplifycfg),globaldce" }),
    ]
}
