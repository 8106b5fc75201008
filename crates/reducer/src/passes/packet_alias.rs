//! Cross-NF common sub-expression elimination, part 1: teach LLVM the ABI's
//! disjointness (NFReducer §IV-B's "engineering challenge": LLVM's CSE cannot
//! merge NF2's header loads with NF1's because NF1's state writes may alias
//! the packet as far as LLVM knows). Fires on every chain once the NFs are
//! inlined into the chain body.
//!
//! This pass marks the chain body's parameters `ctx`, `pkt`, `state` and
//! `data` `noalias` (the nf.h ABI keeps the four disjoint) and rewrites every
//! load of `pkt->data` in the body into the `data` parameter, so every packet
//! byte access is *based on* the noalias `data` and every state access on the
//! noalias `state`; GVN can then forward NF1's loads of a header field to
//! NF2's loads of the same field across NF1's state updates.
//!
//! With `pkt` noalias, a packet-descriptor field (`len`, `cap`, `in_port`)
//! that no store in the body writes is invariant for the whole chain: every
//! load of it is replaced by one load at the body's entry (so NF2 does not
//! re-read `pkt->len` after NF1's branches, whatever MemDep's search limits).
//!
//! It keeps `noalias` only when that is sound: the body must call no defined
//! function (everything inlined), must never store to `pkt->data`, and may
//! pass pointers to external functions only when they are based on `state`,
//! `data`, locals or globals. Otherwise nothing changes and a note says why.

use crate::analysis::{roots, Root};
use crate::error::ReduceError;
use crate::llvm_util::{self, Opcode, Val};
use crate::pass::{Pass, PassCtx};
use crate::passes::consolidate::CHAIN_BODY;
use inkwell::attributes::{Attribute, AttributeLoc};
use nfc_core::diag::Diagnostic;

pub struct PacketAlias;

fn unsafe_reason(body: Val, pkt: Val) -> Option<String> {
    for i in body.instructions() {
        match i.opcode() {
            Some(Opcode::LLVMCall) => {
                let callee = i.called_function();
                match callee {
                    None => return Some("indirect call in the chain body".into()),
                    Some(c) if !c.is_declaration() => {
                        return Some(format!("call to `{}` was not inlined", c.name()))
                    }
                    Some(c) if c.name().starts_with("llvm.") => {}
                    Some(c) => {
                        for a in (0..i.num_arg_operands())
                            .filter_map(|k| i.operand(k))
                            .filter(|a| a.is_ptr_type())
                        {
                            for r in roots(a) {
                                if matches!(r, Root::Unknown(_) | Root::Param(0) | Root::Param(1)) {
                                    return Some(format!(
                                        "pointer of unknown origin passed to `{}`",
                                        c.name()
                                    ));
                                }
                            }
                        }
                    }
                }
            }
            Some(Opcode::LLVMStore)
                if i.operand(1) == Some(pkt)
                    && i.operand(0).map(|v| v.is_ptr_type()).unwrap_or(false) =>
            {
                return Some("the NF stores to pkt->data".into());
            }
            _ => {}
        }
    }
    None
}

/// (offset, bytes) of an access `pkt + constant`, or None for anything else.
fn descriptor_field(
    m: inkwell::llvm_sys::prelude::LLVMModuleRef,
    i: Val,
    pkt: Val,
) -> Option<(u64, u64)> {
    let p = i.pointer_operand()?;
    let size = llvm_util::type_store_size(m, i.access_type());
    if p == pkt {
        return Some((0, size));
    }
    if p.opcode() == Some(Opcode::LLVMGetElementPtr)
        && p.num_operands() == 2
        && p.operand(0) == Some(pkt)
    {
        let ty = unsafe { inkwell::llvm_sys::core::LLVMGetGEPSourceElementType(p.0) };
        let elem = llvm_util::type_store_size(m, ty);
        return p
            .operand(1)
            .and_then(|k| k.const_int())
            .map(|k| (k * elem, size));
    }
    None
}

/// Replace every load of a never-written `pkt` field by one load at entry.
fn hoist_invariant_descriptor_fields(body: Val, pkt: Val) -> usize {
    let m = unsafe { inkwell::llvm_sys::core::LLVMGetGlobalParent(body.0) };
    let insts = body.instructions();
    let mut written: Vec<(u64, u64)> = vec![];
    for i in &insts {
        let writes_pkt = match i.opcode() {
            Some(Opcode::LLVMStore) => i
                .pointer_operand()
                .map(|p| roots(p).contains(&Root::Param(1)))
                .unwrap_or(false),
            Some(Opcode::LLVMCall) => {
                // Intrinsics with pointer arguments (memcpy into pkt...) count as writes.
                (0..i.num_arg_operands())
                    .filter_map(|k| i.operand(k))
                    .any(|a| a.is_ptr_type() && roots(a).contains(&Root::Param(1)))
                    && i.called_function()
                        .map(|f| !f.name().starts_with("llvm.lifetime"))
                        .unwrap_or(true)
            }
            Some(Opcode::LLVMAtomicRMW) | Some(Opcode::LLVMAtomicCmpXchg) => true,
            _ => false,
        };
        if writes_pkt {
            match (i.opcode() == Some(Opcode::LLVMStore))
                .then(|| descriptor_field(m, *i, pkt))
                .flatten()
            {
                Some(f) => written.push(f),
                None => return 0,
            }
        }
    }
    let mut groups: std::collections::BTreeMap<(u64, u64, usize), Vec<Val>> =
        std::collections::BTreeMap::new();
    for i in &insts {
        if i.opcode() != Some(Opcode::LLVMLoad) || i.volatile() {
            continue;
        }
        if let Some((off, size)) = descriptor_field(m, *i, pkt) {
            if written
                .iter()
                .all(|(wo, ws)| off + size <= *wo || wo + ws <= off)
            {
                groups
                    .entry((off, size, i.type_of() as usize))
                    .or_default()
                    .push(*i);
            }
        }
    }
    let Some(entry) = body.entry_block() else {
        return 0;
    };
    let Some(at) = entry.first_non_phi() else {
        return 0;
    };
    let mut merged = 0;
    for loads in groups.values().filter(|l| l.len() > 1) {
        let first = loads[0];
        let b = llvm_util::Builder::before(at);
        let hoisted = unsafe {
            let ptr = first.pointer_operand().expect("load has a pointer");
            // The pointer is `pkt` or `gep pkt, const`: rebuild it at entry.
            let addr = if ptr == pkt {
                pkt
            } else {
                b.gep_like(ptr, pkt)
            };
            let ld = inkwell::llvm_sys::core::LLVMBuildLoad2(
                b.0,
                first.type_of(),
                addr.0,
                c"pkt.field".as_ptr(),
            );
            inkwell::llvm_sys::core::LLVMSetAlignment(
                ld,
                inkwell::llvm_sys::core::LLVMGetAlignment(first.0),
            );
            Val(ld)
        };
        for l in loads {
            l.replace_all_uses_with(hoisted);
            l.erase();
        }
        merged += loads.len() - 1;
    }
    merged
}

impl Pass for PacketAlias {
    fn name(&self) -> &'static str {
        "packet-alias"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let Some(body) = llvm_util::get_function(m, CHAIN_BODY) else {
            return Ok(());
        };
        let params = body.params();
        let (pkt, data) = (params[1], params[3]);
        if let Some(reason) = unsafe_reason(body, pkt) {
            cx.diags.push(Diagnostic::note_diag(
                "R0103",
                format!("cross-NF CSE limited: {reason}"),
            ));
            return Ok(());
        }
        let f = cx.module.get_function(CHAIN_BODY).expect("exists");
        let noalias = cx
            .module
            .get_context()
            .create_enum_attribute(Attribute::get_named_enum_kind_id("noalias"), 0);
        for i in 0..4 {
            f.add_attribute(AttributeLoc::Param(i), noalias);
        }
        // The runtime always passes a context and a packet descriptor (24 bytes
        // each, 8-aligned): NFs' defensive `!pkt` checks fold away, so the
        // second NF's parse is no longer on a path the first NF's skipped.
        let ctx = cx.module.get_context();
        for i in 0..2 {
            f.add_attribute(
                AttributeLoc::Param(i),
                ctx.create_enum_attribute(Attribute::get_named_enum_kind_id("nonnull"), 0),
            );
            f.add_attribute(
                AttributeLoc::Param(i),
                ctx.create_enum_attribute(Attribute::get_named_enum_kind_id("dereferenceable"), 24),
            );
        }
        let hoisted = hoist_invariant_descriptor_fields(body, pkt);
        let mut n = 0;
        for i in body.instructions() {
            if i.opcode() == Some(Opcode::LLVMLoad)
                && i.operand(0) == Some(pkt)
                && i.is_ptr_type()
                && !i.volatile()
            {
                i.replace_all_uses_with(data);
                i.erase();
                n += 1;
            }
        }
        {
            cx.removed_in_chain(
                "packet-alias",
                format!(
                    "chain body parameters marked noalias (frame, state, ctx and descriptor are disjoint by the nf.h ABI); {n} load(s) of pkt->data now use the frame pointer; {hoisted} re-load(s) of unchanged descriptor fields merged"
                ),
                [],
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, process_body, reduce_c};

    #[test]
    fn second_nf_reuses_first_nfs_header_load_across_a_state_write() {
        let a = nf_source(
            "",
            "",
            "if (pkt->len < 34) return 0; st[0]++; return pkt->data[23] == 17 ? NF_DROP : 0;",
        );
        let b = nf_source(
            "",
            "",
            "if (pkt->len < 34) return 0; st[1] += pkt->data[23]; return 0;",
        );
        let r = reduce_c(&[(&a, &[]), (&b, &[])], |_| {}).unwrap();
        let body = process_body(&r.ir);
        assert_eq!(
            body.matches("load i8").count(),
            1,
            "proto byte must be loaded once:\n{body}"
        );
        assert!(r.removals.iter().any(|x| x.starts_with("packet-alias")));
    }

    #[test]
    fn without_the_pass_the_load_is_repeated() {
        let a = nf_source(
            "",
            "",
            "if (pkt->len < 34) return 0; st[0]++; return pkt->data[23] == 17 ? NF_DROP : 0;",
        );
        let b = nf_source(
            "",
            "",
            "if (pkt->len < 34) return 0; st[1] += pkt->data[23]; return 0;",
        );
        let r = reduce_c(&[(&a, &[]), (&b, &[])], |o| {
            o.skip = vec!["packet-alias".into()]
        })
        .unwrap();
        let body = process_body(&r.ir);
        assert_eq!(body.matches("load i8").count(), 2, "{body}");
    }
}
