//! Final inlining of the chain body into `nf_process`. Fires once, after
//! every reduction: the body was kept out of line so its `noalias`
//! parameters could drive the cross-NF CSE; now it is marked `alwaysinline`
//! (LLVM turns the noalias parameters into scoped alias metadata when it
//! inlines) and the following `always-inline` group saves one call per packet.

use crate::error::ReduceError;
use crate::pass::{Pass, PassCtx};
use crate::passes::consolidate::CHAIN_BODY;
use inkwell::attributes::{Attribute, AttributeLoc};

pub struct InlineBody;

impl Pass for InlineBody {
    fn name(&self) -> &'static str {
        "inline-body"
    }
    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
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
