//! Run-to-completion inlining. Fires on every chain, after consolidation and
//! config propagation.
//!
//! clang at -O0 marks every function `noinline` (and `optnone` unless
//! `-disable-O0-optnone`); this pass drops both from every defined function
//! and marks each internal, non-self-recursive function `alwaysinline`, so
//! the `always-inline` group that follows folds every NF's `nf_process` (and
//! its parsers, rule matchers and flow-table helpers) into the single chain
//! body. That is what lets later passes see NF2's header parsing next to
//! NF1's, and a drop in NF2 next to NF1's packet writes.

use crate::error::ReduceError;
use crate::llvm_util::{self, Opcode};
use crate::pass::{Pass, PassCtx};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::llvm_sys::LLVMLinkage;

pub struct InlineChain;

impl Pass for InlineChain {
    fn name(&self) -> &'static str {
        "inline-chain"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let noinline = Attribute::get_named_enum_kind_id("noinline");
        let optnone = Attribute::get_named_enum_kind_id("optnone");
        let always = Attribute::get_named_enum_kind_id("alwaysinline");
        let ctx = cx.module.get_context();
        for f in llvm_util::functions(m) {
            if f.is_declaration() {
                continue;
            }
            let fv = cx.module.get_function(&f.name());
            let Some(fv) = fv else { continue };
            fv.remove_enum_attribute(AttributeLoc::Function, noinline);
            fv.remove_enum_attribute(AttributeLoc::Function, optnone);
            let internal = matches!(
                f.linkage(),
                LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
            );
            let self_recursive = f
                .instructions()
                .iter()
                .any(|i| i.opcode() == Some(Opcode::LLVMCall) && i.called_function() == Some(f));
            if f.name() == crate::passes::consolidate::CHAIN_BODY {
                // Kept out of line until the end: its noalias parameters are what
                // the cross-NF CSE relies on (see packet_alias.rs).
                fv.add_attribute(
                    AttributeLoc::Function,
                    ctx.create_enum_attribute(noinline, 0),
                );
            } else if internal && !self_recursive {
                fv.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(always, 0));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, process_body, reduce_c};

    #[test]
    fn every_nf_function_is_inlined_into_nf_process() {
        let s = nf_source(
            "static int helper(const struct nf_packet *p) { return p->len > 100; }",
            "",
            "return helper(pkt) ? 0 : NF_DROP;",
        );
        let r = reduce_c(&[(&s, &[]), (&s, &[])], |_| {}).unwrap();
        let body = process_body(&r.ir);
        assert!(
            !body.contains("call i32 @t0_")
                && !body.contains("call i32 @t1_")
                && !body.contains("call i32 @__nfc_chain_body"),
            "{body}"
        );
    }
}
