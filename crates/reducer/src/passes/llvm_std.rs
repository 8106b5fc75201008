//! A group of LLVM standard passes (new pass manager), run between the
//! reducer's own passes. Each group has its own name so `dump_after` can
//! stop at it; what each group is for is said where the pipeline lists it.

use crate::error::ReduceError;
use crate::ir;
use crate::pass::{Pass, PassCtx};

pub struct LlvmPasses {
    pub name: &'static str,
    pub pipeline: &'static str,
}

impl Pass for LlvmPasses {
    fn name(&self) -> &'static str {
        self.name
    }
    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        ir::run_pipeline(cx.module, cx.machine, self.pipeline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_pipeline_is_a_typed_error() {
        let ctx = inkwell::context::Context::create();
        let m = ctx.create_module("t");
        let machine = ir::host_machine().unwrap();
        let err = ir::run_pipeline(&m, &machine, "no-such-pass").unwrap_err();
        assert!(matches!(err, ReduceError::Llvm { .. }), "{err}");
        ir::run_pipeline(&m, &machine, "function(instcombine)").unwrap();
        let _ = LlvmPasses {
            name: "x",
            pipeline: "function(adce)",
        };
    }
}
