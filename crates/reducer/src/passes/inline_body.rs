//! Final inlining of the chain body into `nf_process`. Fires once, after
//! every reduction, and only when the reduced body is loop-free: the body was
//! kept out of line so its `noalias` parameters could drive the cross-NF CSE;
//! inlining it (LLVM turns the noalias parameters into scoped alias metadata)
//! saves one call per packet.
//!
//! Measured cost check: when the body still has a loop (a flow-table probe,
//! a payload search), the call it saves is noise next to the loop, while the
//! final `-O2` optimises the loop measurably worse with scoped metadata than
//! with `noalias` arguments (+5% instructions per packet on a monitor+IDS
//! chain). So a body with a loop stays out of line.

use crate::analysis::Cfg;
use crate::error::ReduceError;
use crate::llvm_util;
use crate::pass::{Pass, PassCtx};
use crate::passes::consolidate::CHAIN_BODY;
use inkwell::attributes::{Attribute, AttributeLoc};
use nfc_core::diag::Diagnostic;

pub struct InlineBody;

/// True when some CFG edge goes back to a block that dominates its source.
fn has_loop(f: llvm_util::Val) -> bool {
    let cfg = Cfg::new(f);
    cfg.succs
        .iter()
        .enumerate()
        .any(|(b, ss)| ss.iter().any(|&h| cfg.dominates(h, b)))
}

impl Pass for InlineBody {
    fn name(&self) -> &'static str {
        "inline-body"
    }
    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let Some(body) = llvm_util::get_function(cx.llvm_module(), CHAIN_BODY) else {
            return Ok(());
        };
        if has_loop(body) {
            cx.diags.push(Diagnostic::note_diag(
                "R0106",
                "the reduced chain body keeps a loop: it stays out of line so its noalias parameters guide the final optimisation",
            ));
            return Ok(());
        }
        if let Some(f) = cx.module.get_function(CHAIN_BODY) {
            f.remove_enum_attribute(
                AttributeLoc::Function,
                Attribute::get_named_enum_kind_id("noinline"),
            );
            let always = cx
                .module
                .get_context()
                .create_enum_attribute(Attribute::get_named_enum_kind_id("alwaysinline"), 0);
            f.add_attribute(AttributeLoc::Function, always);
        }
        Ok(())
    }
}
