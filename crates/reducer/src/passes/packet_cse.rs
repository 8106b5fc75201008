//! Cross-NF common sub-expression elimination, part 2: packet loads
//! (NFReducer §IV-B re-implements CSE for packet fields because LLVM's
//! cannot). Fires when NF2 re-reads header bytes NF1 already read and only
//! packet writes whose byte ranges provably miss them lie in between.
//!
//! For two loads of the same address and type where the first dominates the
//! second, every instruction on any path between them is checked: stores and
//! memory intrinsics rooted at the frame must be provably disjoint from the
//! loaded bytes by interval reasoning over offsets (`crate::offsets`), other
//! calls must not receive frame-derived or unknown pointers; state, context
//! and descriptor writes never alias the frame (the body's noalias
//! parameters). Then the second load is replaced by the first. LLVM's GVN
//! does the same whenever its alias analysis suffices; this pass covers the
//! variable-offset case (e.g. NF1 rewrites `ip->tos` at `data + l3_off + 1`
//! with `l3_off` in {14, 18, 22}, NF2 re-reads the ethertype at `data + 12`).

use crate::analysis::{roots, Cfg, Root};
use crate::error::ReduceError;
use crate::llvm_util::{self, Opcode, Val};
use crate::offsets::Ranges;
use crate::pass::{Pass, PassCtx};
use crate::passes::consolidate::CHAIN_BODY;
use std::collections::BTreeMap;

pub struct PacketCse;

const HARMLESS: &[&str] = &[
    "llvm.lifetime",
    "llvm.dbg",
    "llvm.assume",
    "llvm.experimental.noalias.scope.decl",
    "llvm.bswap",
    "llvm.umin",
    "llvm.umax",
    "llvm.smin",
    "llvm.smax",
    "llvm.ctpop",
    "llvm.fshl",
    "llvm.fshr",
    "llvm.abs",
];

/// May `i` write the bytes `[p, p+size)` of the frame?
fn may_clobber(
    m: inkwell::llvm_sys::prelude::LLVMModuleRef,
    ranges: &mut Ranges,
    data: Val,
    i: Val,
    p: Val,
    size: i64,
) -> bool {
    match i.opcode() {
        Some(Opcode::LLVMStore) => {
            let Some(sp) = i.pointer_operand() else {
                return true;
            };
            let rs = roots(sp);
            if !rs
                .iter()
                .any(|r| matches!(r, Root::Param(3) | Root::Unknown(_)))
            {
                return false;
            }
            let ss = llvm_util::type_store_size(m, i.access_type()) as i64;
            ranges.disjoint(m, data, sp, ss, p, size) != Some(true)
        }
        Some(Opcode::LLVMCall) => match i.called_function() {
            Some(f) if HARMLESS.iter().any(|h| f.name().starts_with(h)) => false,
            _ => (0..i.num_arg_operands())
                .filter_map(|k| i.operand(k))
                .filter(|a| a.is_ptr_type())
                .any(|a| {
                    roots(a)
                        .iter()
                        .any(|r| matches!(r, Root::Param(3) | Root::Unknown(_)))
                }),
        },
        Some(Opcode::LLVMAtomicRMW) | Some(Opcode::LLVMAtomicCmpXchg) | Some(Opcode::LLVMFence) => {
            true
        }
        _ => false,
    }
}

/// Is there a possible clobber of `[p, p+size)` on a path from `a` to `b`?
/// `bytes` is the loaded (address, size).
fn clobbered_between(
    m: inkwell::llvm_sys::prelude::LLVMModuleRef,
    cfg: &Cfg,
    ranges: &mut Ranges,
    data: Val,
    a: Val,
    b: Val,
    bytes: (Val, i64),
) -> bool {
    let (p, size) = bytes;
    let (Some(ba), Some(bb)) = (a.parent_block(), b.parent_block()) else {
        return true;
    };
    let (ia, ib) = (cfg.index[&ba], cfg.index[&bb]);
    let scan = |from: Option<Val>, to: Option<Val>, ranges: &mut Ranges| -> bool {
        let mut x = from;
        while let Some(i) = x {
            if Some(i) == to {
                return false;
            }
            if may_clobber(m, ranges, data, i, p, size) {
                return true;
            }
            x = i.next_instruction();
        }
        false
    };
    if ia == ib && !cfg.reachable_from(ib)[ib] {
        return scan(a.next_instruction(), Some(b), ranges);
    }
    // Blocks on some path a → b: reachable from a's block and reaching b's block.
    let fwd = cfg.reachable_from(ia);
    let n = cfg.blocks.len();
    let mut back = vec![false; n];
    let mut work = vec![ib];
    while let Some(x) = work.pop() {
        for &pr in &cfg.preds[x] {
            if !back[pr] {
                back[pr] = true;
                work.push(pr);
            }
        }
    }
    if scan(a.next_instruction(), None, ranges) || scan(bb.first_instruction(), Some(b), ranges) {
        return true;
    }
    for k in 0..n {
        if k == ia || k == ib || !(fwd[k] && back[k]) {
            continue;
        }
        if scan(cfg.blocks[k].first_instruction(), None, ranges) {
            return true;
        }
    }
    // a's or b's block inside a cycle between them: scan them whole as well.
    (fwd[ia] && back[ia] && scan(ba.first_instruction(), None, ranges))
        || (fwd[ib] && back[ib] && scan(bb.first_instruction(), None, ranges))
}

impl Pass for PacketCse {
    fn name(&self) -> &'static str {
        "packet-cse"
    }

    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError> {
        let m = cx.llvm_module();
        let Some(body) = llvm_util::get_function(m, CHAIN_BODY) else {
            return Ok(());
        };
        let data = body.params()[3];
        let cfg = Cfg::new(body);
        let mut ranges = Ranges::default();
        let mut groups: BTreeMap<(Val, usize), Vec<Val>> = BTreeMap::new();
        for i in body.instructions() {
            if i.opcode() != Some(Opcode::LLVMLoad) || i.volatile() {
                continue;
            }
            let Some(p) = i.pointer_operand() else {
                continue;
            };
            if roots(p) == vec![Root::Param(3)] {
                groups.entry((p, i.type_of() as usize)).or_default().push(i);
            }
        }
        let mut merged = 0;
        let mut locs = vec![];
        for ((p, _), loads) in groups {
            let size = llvm_util::type_store_size(m, loads[0].type_of()) as i64;
            let mut kept: Vec<Val> = vec![];
            for l in loads {
                let earlier = kept.iter().copied().find(|k| {
                    cfg.inst_dominates(*k, l)
                        && !clobbered_between(m, &cfg, &mut ranges, data, *k, l, (p, size))
                });
                match earlier {
                    Some(k) => {
                        locs.push(l.debug_location());
                        l.replace_all_uses_with(k);
                        l.erase();
                        merged += 1;
                    }
                    None => kept.push(l),
                }
            }
        }
        if merged > 0 {
            cx.removed_in_chain(
                "packet-cse",
                format!("{merged} re-read(s) of packet bytes replaced by an earlier read (no write in between can reach those bytes)"),
                locs,
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{nf_source, process_body, reduce_c};

    // The write offset is 14 + 4 * (number of VLAN tags, at most 2): LLVM's
    // alias analysis cannot bound it, the interval reasoning can.
    const WRITER: &str = "uint32_t off = 14, n = 0; if (pkt->len < 60) return NF_DROP;\n\
        while (n < 2 && pkt->data[off - 2] == 0x81) { off += 4; n++; }\n\
        st[0] += pkt->data[13]; pkt->data[off + 1] = 0x20; return 0;";
    const READER: &str = "st[1] += pkt->data[13]; return 0;";

    #[test]
    fn reread_across_a_variable_offset_write_is_merged() {
        let (w, r) = (nf_source("", "", WRITER), nf_source("", "", READER));
        let out = reduce_c(&[(&w, &[]), (&r, &[])], |_| {}).unwrap();
        assert!(
            out.removals.iter().any(|x| x.starts_with("packet-cse")),
            "{:?}",
            out.removals
        );
        let body = process_body(&out.ir);
        assert_eq!(
            body.matches("i64 13").count(),
            1,
            "byte 13 must be read once:\n{body}"
        );
    }

    #[test]
    fn reread_of_the_written_byte_is_kept() {
        // NF1 reads the byte NF0 may have written (offset 15 or 19): no merge.
        let w = nf_source("", "", "uint32_t off = 14; if (pkt->len < 60) return NF_DROP; if (pkt->data[12] == 0x81) off = 18;\n\
            st[0] += pkt->data[15]; pkt->data[off + 1] = 0x20; return 0;");
        let r = nf_source("", "", "st[1] += pkt->data[15]; return 0;");
        let out = reduce_c(&[(&w, &[]), (&r, &[])], |_| {}).unwrap();
        assert!(
            !out.removals.iter().any(|x| x.starts_with("packet-cse")),
            "{:?}",
            out.removals
        );
    }
}
