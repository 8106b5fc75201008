//! Header-struct flattening (NFReducer §IV-B: "we flatten the data structure
//! in NFs to apply the optimization"). Fires on a global that an NF uses as
//! per-packet scratch — typically a decoded-header struct like Snort's `net`.
//!
//! A defined, writable global qualifies when, after inlining, all its uses
//! are in the chain body and a write covering all of it (a `memset` or a
//! store of its full size) dominates every other use: its value never flows
//! from one packet to the next and nothing outside the body reads it. It is
//! replaced by a stack slot in the body; SROA then splits the slot into one
//! SSA scalar per field, so GVN can match fields across NFs and ADCE can drop
//! fields nobody reads (the per-path logic in `unused_logic` does the rest).

use crate::analysis::Cfg;
use crate::error::ReduceError;
use crate::llvm_util::{self, Builder, Opcode, Val};
use crate::pass::{Pass, PassCtx};
use crate::passes::consolidate::CHAIN_BODY;
use inkwell::llvm_sys::core as c;

pub struct FlattenHeaders;

/// Instruction users of `g`, looking through constant-expression GEPs and,
/// for thread-local globals, `llvm.threadlocal.address(g)` calls (a
/// `__thread` scratch struct): (instruction, the operand value that refers
/// to g's start — g, a constexpr, or the address call).
fn instruction_uses(g: Val) -> Option<Vec<(Val, Val)>> {
    let mut out = vec![];
    for u in g.users() {
        let tls_address = u.opcode() == Some(Opcode::LLVMCall)
            && u.operand(0) == Some(g)
            && u.called_function()
                .is_some_and(|f| f.name().starts_with("llvm.threadlocal.address"));
        if tls_address {
            for uu in u.users() {
                if uu.is_instruction() {
                    out.push((uu, u));
                } else {
                    return None;
                }
            }
        } else if u.is_instruction() {
            out.push((u, g));
        } else if u.const_opcode() == Some(Opcode::LLVMGetElementPtr) && u.operand(0) == Some(g) {
            for uu in u.users() {
                if uu.is_instruction() {
                    out.push((uu, u));
                } else {
                    return None;
                }
            }
        } else {
            return None;
        }
    }
    Some(out)
}

fn covers_all(i: Val, g: Val, via: Val, size: u64) -> bool {
    match i.opcode() {
        Some(Opcode::LLVMCall) => {
            let Some(callee) = i.called_function() else {
                return false;
            };
            callee.name().starts_with("llvm.memset")
                && i.operand(0) == Some(via)
                && i.operand(2)
                    .and_then(|l| l.const_int())
                    .map(|l| l >= size)
                    .unwrap_or(false)
        }
        Some(Opcode::LLVMStore) => {
            let m = unsafe { c::LLVMGetGlobalParent(g.0) };
            i.operand(1) == Some(via) && llvm_util::type_store_size(m, i.access_type()) >= size
        }
        _ => false,
    }
}

impl Pass for FlattenHeaders {
    fn name(&self) -> &'static str {
        "flatten-headers"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let Some(body) = llvm_util::get_function(m, CHAIN_BODY) else {
            return Ok(());
        };
        let mut log = vec![];
        for g in llvm_util::globals(m) {
            if g.is_declaration() || g.is_global_constant() {
                continue;
            }
            let Some(unit) = cx.nfs.iter().find(|u| g.name().starts_with(&u.prefix)) else {
                continue;
            };
            if unit.config_globals.contains(&g.name()) {
                continue;
            }
            let Some(uses) = instruction_uses(g) else {
                continue;
            };
            if uses.is_empty()
                || uses
                    .iter()
                    .any(|(i, _)| i.parent_block().map(|b| b.parent_function()) != Some(body))
            {
                continue;
            }
            if uses
                .iter()
                .any(|(i, _)| i.opcode() == Some(Opcode::LLVMPHI))
            {
                continue;
            }
            let size = llvm_util::type_store_size(m, g.global_value_type());
            let cfg = Cfg::new(body);
            let killed_first = uses.iter().any(|&(i, via)| {
                covers_all(i, g, via, size)
                    && uses
                        .iter()
                        .all(|(u, _)| *u == i || cfg.inst_dominates(i, *u))
            });
            if !killed_first {
                continue;
            }
            // Replace with a stack slot at the top of the body.
            let entry = body.entry_block().expect("body has an entry");
            let first = entry.first_instruction().expect("entry has instructions");
            let b = Builder::before(first);
            let slot = unsafe {
                let a = c::LLVMBuildAlloca(b.0, g.global_value_type(), c"hdr".as_ptr());
                c::LLVMSetAlignment(a, c::LLVMGetAlignment(g.0).max(1));
                Val(a)
            };
            for (inst, via) in &uses {
                let tls_address = via.opcode() == Some(Opcode::LLVMCall);
                let replacement = if *via == g || tls_address {
                    slot
                } else {
                    Builder::before(*inst).gep_like(*via, slot)
                };
                for k in 0..inst.num_operands() {
                    if inst.operand(k) == Some(*via) {
                        inst.set_operand(k, replacement);
                    }
                }
            }
            let orig = unit.original(&g.name()).unwrap_or("?").to_string();
            log.push((unit.id.clone(), format!("per-packet scratch global `{orig}` ({size} bytes) became a local and was split into scalars"), None));
        }
        for (nf, what, loc) in log {
            cx.removed("flatten-headers", &nf, what, loc);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, process_body, reduce_c};

    #[test]
    fn global_header_struct_becomes_scalars() {
        let s = nf_source(
            "static struct { uint32_t src; uint8_t proto; uint16_t pad; } hdr;",
            "",
            "memset(&hdr, 0, sizeof hdr); if (pkt->len < 34) return 0;\n\
             hdr.proto = pkt->data[23]; hdr.src = ((uint32_t)pkt->data[26] << 24) | pkt->data[29];\n\
             st[0] += hdr.src; return hdr.proto == 6 ? NF_DROP : 0;",
        );
        let r = reduce_c(&[(&s, &[])], |_| {}).unwrap();
        assert!(
            r.removals
                .iter()
                .any(|x| x.contains("per-packet scratch global `hdr`")),
            "{:?}",
            r.removals
        );
        assert!(!process_body(&r.ir).contains("@t0_hdr"));
    }

    #[test]
    fn a_global_read_before_it_is_overwritten_is_state_and_stays() {
        let s = nf_source(
            "static struct { uint32_t last; uint32_t pad; } hdr;",
            "",
            "uint32_t prev = hdr.last; memset(&hdr, 0, sizeof hdr); hdr.last = pkt->len; st[0] += prev; return 0;",
        );
        let r = reduce_c(&[(&s, &[])], |_| {}).unwrap();
        assert!(
            !r.removals.iter().any(|x| x.starts_with("flatten-headers")),
            "{:?}",
            r.removals
        );
    }
}
