//! Consolidation (NFReducer Alg. 4, lines 2–3: rename + splice), the first
//! step of duplicated-logic elimination. Fires always, on every chain.
//!
//! Every NF module's defined symbols get the NF's prefix (`nf0_`, `nf1_`,
//! ...) and internal linkage, the modules are linked into one, and new nf.h
//! entry points are generated so the result is itself one NF:
//! - `nf_process` runs the chain to completion: NF k's non-drop verdict is
//!   routed to NF k+1 with `in_port` set to that verdict; the first drop
//!   returns `NF_DROP` at once (truncation at the first drop: later NFs'
//!   code never runs for that packet). The last NF's port is the exit port.
//! - the per-packet body lives in `__nfc_chain_body(ctx, pkt, state, data)`,
//!   taking the context, the packet descriptor, the state instance and the
//!   frame bytes as four separate pointers (the `packet-alias` pass later
//!   marks them `noalias`: the nf.h ABI keeps them disjoint).
//! - the state instance is the NFs' states side by side (64-byte aligned);
//!   `nf_state_init`, `nf_state_digest` and `nf_fini` fan out to each NF, and
//!   `nfc_state_digest_<k>` exports NF k's digest stream alone so the
//!   differential check can compare state per NF.
//! - `nf_init` calls each NF's renamed `nf_init` with its configuration
//!   embedded as constants (config propagation later empties those bodies).

use crate::error::ReduceError;
use crate::llvm_util;
use crate::pass::{Pass, PassCtx};
use inkwell::module::Linkage;
use inkwell::values::{BasicMetadataValueEnum, BasicValue, FunctionValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};

pub struct Consolidate;

/// Name of the noalias per-packet body function.
pub const CHAIN_BODY: &str = "__nfc_chain_body";

impl Pass for Consolidate {
    fn name(&self) -> &'static str {
        "consolidate"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let module = cx.module;
        let ctx = module.get_context();
        let pending = std::mem::take(&mut *cx.pending.borrow_mut());
        if pending.len() != cx.nfs.len() {
            return Err(ReduceError::Abi {
                nf: "chain".into(),
                message: "consolidate ran twice".into(),
            });
        }
        // Rename and splice.
        for (unit, m) in cx.nfs.iter().zip(pending) {
            if module.get_triple().as_str().to_bytes().is_empty() {
                module.set_triple(&m.get_triple());
                module.set_data_layout(&m.get_data_layout());
            }
            for f in llvm_util::functions(m.as_mut_ptr()) {
                if f.is_declaration() || f.name().starts_with("llvm.") {
                    continue;
                }
                f.set_name(&unit.renamed(&f.name()));
                // External while linking (the linker pulls internal symbols in
                // lazily); internalised right after.
                f.set_linkage(inkwell::llvm_sys::LLVMLinkage::LLVMExternalLinkage);
                unsafe { inkwell::llvm_sys::comdat::LLVMSetComdat(f.0, std::ptr::null_mut()) };
            }
            for g in llvm_util::globals(m.as_mut_ptr()) {
                if g.is_declaration() || g.name().starts_with("llvm.") {
                    continue;
                }
                g.set_name(&unit.renamed(&g.name()));
                g.set_linkage(inkwell::llvm_sys::LLVMLinkage::LLVMExternalLinkage);
                unsafe { inkwell::llvm_sys::comdat::LLVMSetComdat(g.0, std::ptr::null_mut()) };
            }
            module.link_in_module(m).map_err(|e| ReduceError::Abi {
                nf: unit.id.clone(),
                message: format!("cannot splice: {e}"),
            })?;
        }
        let mm = module.as_mut_ptr();
        for v in llvm_util::functions(mm)
            .into_iter()
            .chain(llvm_util::globals(mm))
        {
            if !v.is_declaration() && cx.nfs.iter().any(|u| v.name().starts_with(&u.prefix)) {
                v.set_linkage(inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            }
        }
        for unit in cx.nfs.iter() {
            for entry in ["nf_process", "nf_init", "nf_describe", "nf_state_size"] {
                if module.get_function(&unit.renamed(entry)).is_none() {
                    return Err(ReduceError::Abi {
                        nf: unit.id.clone(),
                        message: format!("does not define `{entry}`"),
                    });
                }
            }
        }

        let i32t = ctx.i32_type();
        let i64t = ctx.i64_type();
        let i8t = ctx.i8_type();
        let ptr = ctx.ptr_type(AddressSpace::default());
        let ctx_ty = ctx.struct_type(&[ptr.into(), i64t.into(), i32t.into(), i32t.into()], false);
        let pkt_ty = ctx.struct_type(
            &[
                ptr.into(),
                i32t.into(),
                i32t.into(),
                i32t.into(),
                i32t.into(),
            ],
            false,
        );
        let b = ctx.create_builder();
        let err = |e: inkwell::builder::BuilderError| ReduceError::Abi {
            nf: "chain".into(),
            message: format!("building entry points: {e}"),
        };
        let fnv = |name: &str| module.get_function(name);

        // Layout of the combined state.
        let mut off = 0u64;
        for unit in cx.nfs.iter_mut() {
            unit.state_offset = off;
            off += unit.state_size.div_ceil(64) * 64;
        }
        let total_state = off;

        // nf_describe
        let name = cx
            .nfs
            .iter()
            .map(|n| n.id.as_str())
            .collect::<Vec<_>>()
            .join("+");
        let name_g = module.add_global(
            ctx.const_string(name.as_bytes(), true).get_type(),
            None,
            "__nfc_chain_name",
        );
        name_g.set_initializer(&ctx.const_string(name.as_bytes(), true));
        name_g.set_constant(true);
        name_g.set_linkage(Linkage::Private);
        let info_ty = ctx.struct_type(&[i32t.into(), ptr.into(), i32t.into()], false);
        let last_ports = cx.nfs.last().map(|n| n.n_ports).unwrap_or(1).max(1);
        let info_g = module.add_global(info_ty, None, "__nfc_chain_info");
        info_g.set_initializer(&info_ty.const_named_struct(&[
            i32t.const_int(1, false).into(),
            name_g.as_pointer_value().into(),
            i32t.const_int(last_ports as u64, false).into(),
        ]));
        info_g.set_constant(true);
        info_g.set_linkage(Linkage::Private);
        let f = module.add_function("nf_describe", ptr.fn_type(&[], false), None);
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        b.build_return(Some(&info_g.as_pointer_value()))
            .map_err(err)?;

        // nf_state_size
        let size_t = i64t;
        let f = module.add_function("nf_state_size", size_t.fn_type(&[], false), None);
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        b.build_return(Some(&size_t.const_int(total_state, false)))
            .map_err(err)?;

        // nf_init with embedded configs
        let kv_ty = ctx.struct_type(&[ptr.into(), ptr.into()], false);
        let cfg_ty = ctx.struct_type(&[ptr.into(), i32t.into()], false);
        let f = module.add_function(
            "nf_init",
            i32t.fn_type(&[ptr.into(), ptr.into(), size_t.into()], false),
            None,
        );
        let entry = ctx.append_basic_block(f, "entry");
        b.position_at_end(entry);
        for (k, unit) in cx.nfs.iter().enumerate() {
            let mut items = vec![];
            for (i, (key, val)) in unit.config.iter().enumerate() {
                let mk = |s: &str, what: &str| {
                    let c = ctx.const_string(s.as_bytes(), true);
                    let g =
                        module.add_global(c.get_type(), None, &format!("__nfc_cfg{k}_{what}{i}"));
                    g.set_initializer(&c);
                    g.set_constant(true);
                    g.set_linkage(Linkage::Private);
                    g.as_pointer_value()
                };
                items.push(kv_ty.const_named_struct(&[mk(key, "k").into(), mk(val, "v").into()]));
            }
            let arr = kv_ty.const_array(&items);
            let arr_g = module.add_global(arr.get_type(), None, &format!("__nfc_cfg{k}_items"));
            arr_g.set_initializer(&arr);
            arr_g.set_constant(true);
            arr_g.set_linkage(Linkage::Private);
            let cfg_g = module.add_global(cfg_ty, None, &format!("__nfc_cfg{k}"));
            cfg_g.set_initializer(&cfg_ty.const_named_struct(&[
                arr_g.as_pointer_value().into(),
                i32t.const_int(items.len() as u64, false).into(),
            ]));
            cfg_g.set_constant(true);
            cfg_g.set_linkage(Linkage::Private);
            let init = fnv(&unit.renamed("nf_init")).expect("checked above");
            let p = f.get_params();
            let args: Vec<BasicMetadataValueEnum> =
                vec![cfg_g.as_pointer_value().into(), p[1].into(), p[2].into()];
            let rc = b
                .build_call(init, &args, "rc")
                .map_err(err)?
                .try_as_basic_value()
                .basic()
                .expect("i32")
                .into_int_value();
            let failed = b
                .build_int_compare(IntPredicate::NE, rc, i32t.const_zero(), "failed")
                .map_err(err)?;
            let bad = ctx.append_basic_block(f, &format!("fail{k}"));
            let next = ctx.append_basic_block(f, &format!("next{k}"));
            b.build_conditional_branch(failed, bad, next).map_err(err)?;
            b.position_at_end(bad);
            b.build_return(Some(&rc)).map_err(err)?;
            b.position_at_end(next);
        }
        b.build_return(Some(&i32t.const_zero())).map_err(err)?;

        fn state_at<'c>(
            b: &inkwell::builder::Builder<'c>,
            base: PointerValue<'c>,
            off: u64,
            i8t: inkwell::types::IntType<'c>,
            i64t: inkwell::types::IntType<'c>,
        ) -> Result<PointerValue<'c>, inkwell::builder::BuilderError> {
            // SAFETY: the offset stays inside the combined state instance.
            unsafe { b.build_in_bounds_gep(i8t, base, &[i64t.const_int(off, false)], "nf_state") }
        }

        // nf_state_init
        let f = module.add_function(
            "nf_state_init",
            ctx.void_type().fn_type(&[ptr.into()], false),
            None,
        );
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        for unit in cx.nfs.iter() {
            if let Some(si) = fnv(&unit.renamed("nf_state_init")).filter(|_| unit.has_state_init) {
                let st = state_at(
                    &b,
                    f.get_first_param().expect("param").into_pointer_value(),
                    unit.state_offset,
                    i8t,
                    i64t,
                )
                .map_err(err)?;
                b.build_call(si, &[st.into()], "").map_err(err)?;
            }
        }
        b.build_return(None).map_err(err)?;

        // nf_fini
        let f = module.add_function("nf_fini", ctx.void_type().fn_type(&[], false), None);
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        for unit in cx.nfs.iter() {
            if let Some(fi) = fnv(&unit.renamed("nf_fini")).filter(|_| unit.has_fini) {
                b.build_call(fi, &[], "").map_err(err)?;
            }
        }
        b.build_return(None).map_err(err)?;

        // Per-NF digests and the combined digest.
        let dig_ty = ctx
            .void_type()
            .fn_type(&[ptr.into(), ptr.into(), ptr.into()], false);
        let emit_ty = ctx
            .void_type()
            .fn_type(&[ptr.into(), ptr.into(), size_t.into()], false);
        let mut per_nf: Vec<FunctionValue> = vec![];
        for (k, unit) in cx.nfs.iter().enumerate() {
            let f = module.add_function(&format!("nfc_state_digest_{k}"), dig_ty, None);
            b.position_at_end(ctx.append_basic_block(f, "entry"));
            let p = f.get_params();
            let st = state_at(&b, p[0].into_pointer_value(), unit.state_offset, i8t, i64t)
                .map_err(err)?;
            match fnv(&unit.renamed("nf_state_digest")).filter(|_| unit.has_digest) {
                Some(d) => {
                    b.build_call(d, &[st.into(), p[1].into(), p[2].into()], "")
                        .map_err(err)?;
                }
                None => {
                    if unit.state_size > 0 {
                        b.build_indirect_call(
                            emit_ty,
                            p[1].into_pointer_value(),
                            &[
                                p[2].into(),
                                st.into(),
                                size_t.const_int(unit.state_size, false).into(),
                            ],
                            "",
                        )
                        .map_err(err)?;
                    }
                }
            }
            b.build_return(None).map_err(err)?;
            per_nf.push(f);
        }
        let f = module.add_function("nf_state_digest", dig_ty, None);
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        let p: Vec<BasicMetadataValueEnum> = f.get_params().into_iter().map(Into::into).collect();
        for d in &per_nf {
            b.build_call(*d, &p, "").map_err(err)?;
        }
        b.build_return(None).map_err(err)?;

        // The run-to-completion body.
        let body = module.add_function(
            CHAIN_BODY,
            i32t.fn_type(&[ptr.into(), ptr.into(), ptr.into(), ptr.into()], false),
            Some(Linkage::Internal),
        );
        let entry = ctx.append_basic_block(body, "entry");
        b.position_at_end(entry);
        let bp = body.get_params();
        let (cctx, cpkt, cstate) = (
            bp[0].into_pointer_value(),
            bp[1].into_pointer_value(),
            bp[2].into_pointer_value(),
        );
        let mut allocas = vec![];
        for k in 0..cx.nfs.len() {
            allocas.push(b.build_alloca(ctx_ty, &format!("ctx{k}")).map_err(err)?);
        }
        for (k, unit) in cx.nfs.iter().enumerate() {
            let cp = allocas[k];
            b.build_memcpy(cp, 8, cctx, 8, size_t.const_int(24, false))
                .map_err(err)?;
            let st = state_at(&b, cstate, unit.state_offset, i8t, i64t).map_err(err)?;
            b.build_store(cp, st).map_err(err)?;
            let proc_ = fnv(&unit.renamed("nf_process")).expect("checked above");
            let v = b
                .build_call(proc_, &[cp.into(), cpkt.into()], &format!("verdict{k}"))
                .map_err(err)?
                .try_as_basic_value()
                .basic()
                .expect("i32")
                .into_int_value();
            if k + 1 == cx.nfs.len() {
                b.build_return(Some(&v)).map_err(err)?;
            } else {
                let drop = b
                    .build_int_compare(IntPredicate::SLT, v, i32t.const_zero(), "dropped")
                    .map_err(err)?;
                let dropbb = ctx.append_basic_block(body, &format!("drop_at{k}"));
                let next = ctx.append_basic_block(body, &format!("to_nf{}", k + 1));
                b.build_conditional_branch(drop, dropbb, next)
                    .map_err(err)?;
                b.position_at_end(dropbb);
                b.build_return(Some(&i32t.const_int(u64::MAX, true)))
                    .map_err(err)?;
                b.position_at_end(next);
                let inp = b
                    .build_struct_gep(pkt_ty, cpkt, 3, "in_port")
                    .map_err(err)?;
                b.build_store(inp, v).map_err(err)?;
            }
        }

        // nf_process: load the disjoint pointers and call the body.
        let f = module.add_function(
            "nf_process",
            i32t.fn_type(&[ptr.into(), ptr.into()], false),
            None,
        );
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        let fp = f.get_params();
        let state = b
            .build_load(ptr, fp[0].into_pointer_value(), "state")
            .map_err(err)?;
        let data = b
            .build_load(ptr, fp[1].into_pointer_value(), "data")
            .map_err(err)?;
        let v = b
            .build_call(
                body,
                &[fp[0].into(), fp[1].into(), state.into(), data.into()],
                "verdict",
            )
            .map_err(err)?
            .try_as_basic_value()
            .basic()
            .expect("i32");
        b.build_return(Some(&v.as_basic_value_enum()))
            .map_err(err)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, reduce_c};

    #[test]
    fn two_nfs_become_one_nf_with_side_by_side_state() {
        let dropper = nf_source("", "", "st[0]++; if (pkt->len > 14 && pkt->data[14] == 0x45 && pkt->len > 23 && pkt->data[23] == 17) return NF_DROP; return 1;");
        let counter = nf_source(
            "",
            "",
            "st[1] += pkt->in_port; st[2] += pkt->len; return 0;",
        );
        let r = reduce_c(&[(&dropper, &[]), (&counter, &[])], |_| {}).unwrap();
        // 64 + 64 bytes of state, each NF's digest exported for the differential check.
        assert!(r.ir.contains("ret i64 128"), "{}", r.ir);
        assert!(r.ir.contains("define void @nfc_state_digest_1"));
        assert!(r.diags.iter().any(|d| d.contains("matches the original")));
    }

    #[test]
    fn nf_without_process_is_an_abi_error() {
        let src = "#include \"nf.h\"\nstatic const struct nf_info info = {NF_ABI_VERSION, \"x\", 1};\n\
                   const struct nf_info *nf_describe(void) { return &info; }\nsize_t nf_state_size(void) { return 0; }\n\
                   int nf_init(const struct nf_config *c, char *e, size_t l) { (void)c; (void)e; (void)l; return 0; }\n";
        let err = reduce_c(&[(src, &[])], |_| {}).err().expect("must fail");
        assert!(err.to_string().contains("nf_process"), "{err}");
    }
}
