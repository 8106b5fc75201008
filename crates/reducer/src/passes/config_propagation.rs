//! Config-variable propagation (NFReducer §III-B). Fires for every NF whose
//! `nf_init`-written globals are pointer-free.
//!
//! Before the pipeline, the driver compiled each NF on its own, loaded a
//! private copy, ran `nf_init` with the real configuration and snapshotted
//! the bytes of every defined global. Here every global of the NF gets its
//! post-`nf_init` bytes as initialiser, config variables (labelled by the
//! slice pass) become `constant`, and the NF's `nf_init` body becomes
//! `return 0` — the module now starts in the state `nf_init` would have
//! produced. Later instcombine/SCCP fold every load of a rule field, and
//! since rule counts are now constants, LLVM's full unroller (run right
//! after, see the pipeline) unrolls the rule loops to the configured count
//! (Step 3 of §III-B).
//!
//! An NF whose `nf_init` writes a global holding pointers (e.g. a malloc'd
//! rule list) is left alone with a warning: its `nf_init` keeps running at
//! load time with the configuration embedded by consolidation.

use crate::error::ReduceError;
use crate::llvm_util::{self, Val};
use crate::pass::{Pass, PassCtx};
use inkwell::llvm_sys::core as c;
use nfc_core::diag::Diagnostic;

pub struct ConfigPropagation;

/// Replace global `g` by an `[N x i8]` global holding `bytes`.
fn rebuild_global(
    m: inkwell::llvm_sys::prelude::LLVMModuleRef,
    g: Val,
    bytes: &[u8],
    constant: bool,
) -> Val {
    unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let i8t = c::LLVMInt8TypeInContext(ctx);
        let arr_t = c::LLVMArrayType2(i8t, bytes.len() as u64);
        let name = g.name();
        let tmp = std::ffi::CString::new(format!("{name}.cfg")).unwrap_or_default();
        let ng = c::LLVMAddGlobal(m, arr_t, tmp.as_ptr());
        let mut elems: Vec<_> = bytes
            .iter()
            .map(|b| c::LLVMConstInt(i8t, *b as u64, 0))
            .collect();
        let init = c::LLVMConstArray2(i8t, elems.as_mut_ptr(), elems.len() as u64);
        c::LLVMSetInitializer(ng, init);
        c::LLVMSetAlignment(ng, c::LLVMGetAlignment(g.0).max(1));
        c::LLVMSetLinkage(ng, c::LLVMGetLinkage(g.0));
        c::LLVMSetThreadLocal(ng, c::LLVMIsThreadLocal(g.0));
        c::LLVMSetThreadLocalMode(ng, c::LLVMGetThreadLocalMode(g.0));
        c::LLVMSetGlobalConstant(ng, constant as i32);
        c::LLVMReplaceAllUsesWith(g.0, ng);
        c::LLVMDeleteGlobal(g.0);
        let ng = Val(ng);
        ng.set_name(&name);
        ng
    }
}

impl Pass for ConfigPropagation {
    fn name(&self) -> &'static str {
        "config-propagation"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let mut log = vec![];
        for unit in cx.nfs.iter_mut() {
            let blocking: Vec<&String> = unit
                .pointer_globals
                .iter()
                .filter(|g| {
                    unit.config_globals.contains(&unit.renamed(g))
                        || unit.state_globals.contains(&unit.renamed(g))
                })
                .collect();
            if !blocking.is_empty() {
                cx.diags.push(
                    Diagnostic::warning(
                        "R0102",
                        format!("NF `{}`: config not propagated: global(s) {:?} hold pointers after nf_init", unit.id, blocking),
                    )
                    .with_hint("keep configuration in pointer-free globals (fixed arrays + counts) so the reducer can specialise it"),
                );
                continue;
            }
            for g in llvm_util::globals(m) {
                let name = g.name();
                let Some(orig) = unit.original(&name) else {
                    continue;
                };
                if g.is_declaration() || g.is_global_constant() {
                    continue;
                }
                let Some(bytes) = unit.snapshot.get(orig) else {
                    continue;
                };
                let size = llvm_util::type_store_size(m, g.global_value_type());
                if size != bytes.len() as u64 {
                    continue;
                }
                let is_config = unit.config_globals.contains(&name);
                rebuild_global(m, g, bytes, is_config);
                if is_config {
                    log.push((
                        unit.id.clone(),
                        format!(
                            "config variable `{orig}` ({} bytes) is now a constant",
                            bytes.len()
                        ),
                        None,
                    ));
                }
            }
            if let Some(init) = llvm_util::get_function(m, &unit.renamed("nf_init")) {
                llvm_util::replace_body_with_return_i32(init, 0);
                log.push((
                    unit.id.clone(),
                    "nf_init body: its effect is baked into global initialisers".to_string(),
                    None,
                ));
            }
            unit.propagated = true;
        }
        for (nf, what, loc) in log {
            cx.removed("config-propagation", &nf, what, loc);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, process_body, reduce_c};

    const RULES: &str = "struct r { uint16_t port; int32_t verdict; }; static struct r rules[16]; static uint32_t n;";
    const INIT: &str = "char k[32]; if (nf_config_u64(cfg, \"rules.len\", 0, &v) || v > 16) return -1; n = (uint32_t)v;\n\
        for (uint32_t i = 0; i < n; i++) { uint64_t p; snprintf(k, sizeof k, \"rules.%u\", i); if (nf_config_u64(cfg, k, 0, &p)) return -1;\n\
        rules[i].port = (uint16_t)p; rules[i].verdict = (i % 2) ? 0 : NF_DROP; }";
    const PROCESS: &str = "uint16_t port; if (pkt->len < 38) return 0; port = (uint16_t)((pkt->data[36] << 8) | pkt->data[37]);\n\
        for (uint32_t i = 0; i < n; i++) if (rules[i].port == port) { st[i]++; return rules[i].verdict; } return 0;";

    #[test]
    fn rules_become_constants_and_the_loop_is_unrolled() {
        let s = nf_source(&format!("#include <stdio.h>\n{RULES}"), INIT, PROCESS);
        let r = reduce_c(
            &[(
                &s,
                &[
                    ("rules.len", "3"),
                    ("rules.0", "22"),
                    ("rules.1", "80"),
                    ("rules.2", "443"),
                ],
            )],
            |_| {},
        )
        .unwrap();
        assert!(
            r.removals
                .iter()
                .any(|x| x.contains("config variable `rules`")),
            "{:?}",
            r.removals
        );
        let body = process_body(&r.ir);
        assert!(
            !body.contains("@t0_rules") && !body.contains("@t0_n"),
            "{body}"
        );
        for port in ["22", "80", "443"] {
            assert!(
                body.contains(&format!("i16 {port}")),
                "rule port {port} not folded in:\n{body}"
            );
        }
    }

    #[test]
    fn pointer_config_is_left_alone_with_a_warning() {
        let s = nf_source(
            "#include <stdlib.h>\nstatic uint32_t *limits;",
            "limits = calloc(1, sizeof *limits); if (!limits || nf_config_u64(cfg, \"limit\", 5, &v)) return -1; *limits = (uint32_t)v;",
            "return pkt->len > *limits ? 0 : NF_DROP;",
        );
        let r = reduce_c(&[(&s, &[("limit", "70")])], |_| {}).unwrap();
        assert!(
            r.diags
                .iter()
                .any(|d| d.contains("R0102") && d.contains("limits")),
            "{:?}",
            r.diags
        );
        assert!(!r
            .removals
            .iter()
            .any(|x| x.starts_with("config-propagation")));
    }
}
