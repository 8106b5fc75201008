//! Packet-processing slice (NFReducer §III-A, Alg. 1). Fires on every chain.
//!
//! Labels each NF's long-lived variables: a defined, writable global is a
//! *state variable* when code reachable from the NF's `nf_process` may write
//! it (directly, through a callee's parameter, or through an escaped
//! address), and a *config variable* when only code reachable from `nf_init`
//! writes it. The packet variables are `nf_process`'s `pkt` parameter and
//! what is derived from it (the ABI names them, no labelling needed). Per-flow
//! state in `ctx->state` is state by the ABI.
//!
//! It also finds logic outside the slice: calls to libc output functions
//! (printf family, puts, fwrite, syslog, ...) reachable from `nf_process`
//! whose result is unused — they cannot influence a verdict, a packet byte
//! or state. They are reported as a warning each and removed only when
//! `strip_observability` is set (the paper leaves that choice to the
//! operator: logs matter for debugging).

use crate::analysis::{self, OUTPUT_FUNCTIONS};
use crate::error::ReduceError;
use crate::llvm_util::{self, Opcode};
use crate::pass::{Pass, PassCtx};
use nfc_core::diag::{Diagnostic, Span};

pub struct Slice;

impl Pass for Slice {
    fn name(&self) -> &'static str {
        "slice"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let sums = analysis::write_summaries(m);
        let escaped = analysis::escaped_globals(m);
        let mut labels = vec![];
        for unit in cx.nfs.iter() {
            let proc_f = llvm_util::get_function(m, &unit.renamed("nf_process"));
            let init_f = llvm_util::get_function(m, &unit.renamed("nf_init"));
            let (Some(proc_f), Some(init_f)) = (proc_f, init_f) else {
                return Err(ReduceError::Abi {
                    nf: unit.id.clone(),
                    message: "nf_process/nf_init missing after consolidation".into(),
                });
            };
            let (proc_reach, proc_indirect) = analysis::reachable(proc_f);
            let mut proc_writes = std::collections::BTreeSet::new();
            let mut proc_unknown = proc_indirect;
            for f in &proc_reach {
                if let Some(s) = sums.get(f) {
                    proc_writes.extend(s.globals.iter().copied());
                    proc_unknown |= s.unknown;
                }
            }
            let (init_reach, _) = analysis::reachable(init_f);
            let mut init_writes = std::collections::BTreeSet::new();
            for f in &init_reach {
                if let Some(s) = sums.get(f) {
                    init_writes.extend(s.globals.iter().copied());
                }
            }
            let mut config = vec![];
            let mut state = vec![];
            for g in llvm_util::globals(m) {
                let name = g.name();
                if g.is_declaration() || g.is_global_constant() || unit.original(&name).is_none() {
                    continue;
                }
                // Writes through unknown pointers may reach escaped globals.
                let maybe_proc_written =
                    proc_writes.contains(&g) || (proc_unknown && escaped.contains(&g));
                if maybe_proc_written {
                    state.push(name);
                } else if init_writes.contains(&g) {
                    config.push(name);
                }
            }
            labels.push((config, state));
        }
        for (unit, (config, state)) in cx.nfs.iter_mut().zip(labels) {
            cx.diags.push(
                Diagnostic::note_diag(
                    "R0100",
                    format!(
                        "NF `{}`: {} config variable(s) [{}], {} state variable(s) in globals [{}], packet variable `pkt`",
                        unit.id,
                        config.len(),
                        config.iter().filter_map(|c| unit.original(c)).collect::<Vec<_>>().join(", "),
                        state.len(),
                        state.iter().filter_map(|c| unit.original(c)).collect::<Vec<_>>().join(", ")
                    ),
                )
                .with_span_opt(unit.files.first().map(|f| Span::file_only(f.clone()))),
            );
            unit.config_globals = config;
            unit.state_globals = state;
        }

        // Observability logic outside the slice.
        let mut to_strip = vec![];
        for unit in cx.nfs.iter() {
            let Some(proc_f) = llvm_util::get_function(m, &unit.renamed("nf_process")) else {
                continue;
            };
            let (reach, _) = analysis::reachable(proc_f);
            for f in reach {
                for i in f.instructions() {
                    if i.opcode() != Some(Opcode::LLVMCall) {
                        continue;
                    }
                    let Some(callee) = i.called_function() else {
                        continue;
                    };
                    let name = callee.name();
                    if !OUTPUT_FUNCTIONS.contains(&name.as_str()) || !i.users().is_empty() {
                        continue;
                    }
                    let loc = i.debug_location();
                    let fname = unit.original(&f.name()).unwrap_or("?").to_string();
                    to_strip.push((
                        unit.id.clone(),
                        i,
                        format!("call to `{name}` in `{fname}`"),
                        loc,
                    ));
                }
            }
        }
        for (nf, call, what, loc) in to_strip {
            if cx.opts.strip_observability {
                call.erase();
                cx.removed(
                    "slice",
                    &nf,
                    format!("{what}: output-only logic outside the packet-processing slice"),
                    loc,
                );
            } else {
                let mut d = Diagnostic::warning(
                    "R0101",
                    format!("NF `{nf}`: {what} cannot influence verdicts, packets or state"),
                )
                .with_hint("set strip_observability to remove it from the reduced NF");
                if let Some(l) = &loc {
                    d = d.with_note(format!("at {l}"));
                }
                cx.diags.push(d);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, reduce_c};

    fn src() -> String {
        nf_source(
            "static uint32_t threshold; static uint64_t seen;",
            "if (nf_config_u64(cfg, \"threshold\", 10, &v)) return -1; threshold = (uint32_t)v;",
            "seen++; if (seen % 1000000 == 0) printf(\"seen %llu\\n\", (unsigned long long)seen); st[0]++; return pkt->len > threshold ? 0 : NF_DROP;",
        )
    }

    #[test]
    fn labels_config_and_state_and_reports_logging() {
        let s = src();
        let r = reduce_c(&[(&s, &[("threshold", "60")])], |_| {}).unwrap();
        let label = r
            .diags
            .iter()
            .find(|d| d.contains("R0100"))
            .expect("labels");
        assert!(
            label.contains("1 config variable(s) [threshold]"),
            "{label}"
        );
        assert!(
            label.contains("1 state variable(s) in globals [seen]"),
            "{label}"
        );
        assert!(
            r.diags
                .iter()
                .any(|d| d.contains("R0101") && d.contains("printf")),
            "{:?}",
            r.diags
        );
        assert!(r.ir.contains("@printf"), "logging is kept unless asked");
    }

    #[test]
    fn strip_observability_removes_output_calls() {
        let s = src();
        let r = reduce_c(&[(&s, &[("threshold", "60")])], |o| {
            o.strip_observability = true
        })
        .unwrap();
        assert!(
            r.removals
                .iter()
                .any(|x| x.starts_with("slice: call to `printf`")),
            "{:?}",
            r.removals
        );
        assert!(!r.ir.contains("@printf"));
    }
}
