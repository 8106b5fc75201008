//! C packet code without a framework adapter of its own: DPDK (functions
//! taking an mbuf, receive loops), XDP/eBPF programs (taking an `xdp_md`),
//! nDPI-style dissectors that reach the packet through a context, and
//! framework-less code taking a raw frame (the fallback in `mod.rs`).

use super::{called_by_own, init_like, AdapterInput};
use crate::static_analysis::dataflow::{self, Entry};
use crate::static_analysis::program;
use std::collections::BTreeSet;

pub(super) fn entries(input: &AdapterInput) -> Vec<Entry> {
    let (prog, own) = (input.prog, input.own);
    // The packet path starts where no other packet-path function
    // of the NF calls in: a helper taking an mbuf from a receive
    // loop or a packet handler is part of its caller's path (and
    // sees the caller's state, not state of its own).
    // Descriptor types, not any type whose name mentions "pkt" (a
    // reassembly table's `struct ip_frag_pkt` entry is no packet).
    let takes_packet = |f: &program::FnDef| {
        f.params.iter().any(|p| {
            dataflow::is_descriptor_type(&p.ty.name)
                && (p.ty.is_pointerish() || !p.ty.dims.is_empty())
        })
    };
    // A receive loop calls a receive function (a member named
    // `tcp_mask->hdr.recv_ack` in a rule parser is no receive).
    let receives = |f: &program::FnDef| {
        input
            .calls
            .of(f)
            .is_some_and(|calls| calls.iter().any(|c| is_receive_call(c)))
            || f.body
                .is_some_and(|b| super::fills_record_in_loop(prog, f, b))
    };
    // The NF's own functions with a body, not init-like, not called by
    // a function in `called`, that `pred` accepts: entries whose
    // pointer parameters may be the caller's state.
    let roots = |called: &BTreeSet<String>, pred: &dyn Fn(&program::FnDef) -> bool| {
        prog.fns
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.body.is_some()
                    && own(f.file)
                    && !init_like(&f.name)
                    && !called.contains(&f.name)
                    && pred(f)
            })
            .map(|(i, _)| Entry {
                fn_idx: i,
                guarded: false,
                flow_params: vec![],
                frame_params: vec![],
                caller_state: true,
            })
            .collect::<Vec<_>>()
    };
    // Handlers that reach the packet through a context (nDPI's
    // dissectors: `packet = &ndpi_struct->packet`) declare a
    // packet-descriptor pointer.
    let reaches_packet = |f: &program::FnDef| {
        f.locals
            .values()
            .any(|l| l.ty.ptr == 1 && dataflow::is_descriptor_type(&l.ty.name))
    };
    let called = called_by_own(&input.calls, &|fi| own(fi), &|f| {
        takes_packet(f) || receives(f) || reaches_packet(f)
    });
    // Functions any of the NF's own functions call: what a true root is not.
    let called_any = || called_by_own(&input.calls, &|fi| own(fi), &|_| true);
    let mut out = roots(&called, &takes_packet);
    if out.is_empty() {
        // Roots that reach such a handler through their calls (a
        // callback re-entering the dissector: nDPI's
        // `search_dns_again` -> `ndpi_search_dns`).
        let mut reaching: BTreeSet<&str> = prog
            .fns
            .iter()
            .filter(|f| own(f.file) && reaches_packet(f))
            .map(|f| f.name.as_str())
            .collect();
        let calls: Vec<(&str, std::rc::Rc<BTreeSet<String>>)> = prog
            .fns
            .iter()
            .filter(|f| own(f.file))
            .filter_map(|f| Some((f.name.as_str(), input.calls.of(f)?)))
            .collect();
        loop {
            let before = reaching.len();
            for (name, cs) in &calls {
                if cs.iter().any(|c| reaching.contains(c.as_str())) {
                    reaching.insert(name);
                }
            }
            if reaching.len() == before {
                break;
            }
        }
        out = roots(&called_any(), &|f| reaching.contains(f.name.as_str()));
    }
    if out.is_empty() {
        // Receive loops, wherever they are called from.
        out = roots(&BTreeSet::new(), &receives);
    }
    if out.is_empty() {
        // A root handed the NF's own record of a parsed packet, a struct
        // pointing at its protocol headers (`packet_process(struct pkt_hdr
        // *pkt, …)`, the struct holding `struct iphdr *iphdr`). Only a true
        // root: a handler such a record is passed to by a capture loop
        // among the files is part of that loop's path, which shows what
        // the loop hands it (its own tables).
        // A root with no effect (no call, no store beyond its own locals:
        // a header's `static inline` accessor the files do not use) is no
        // packet path, whatever it is handed.
        let takes_record = |f: &program::FnDef| {
            f.params
                .iter()
                .any(|p| p.ty.ptr == 1 && dataflow::points_at_headers(prog, &p.ty.name))
                && (input.calls.of(f).is_some_and(|c| !c.is_empty()) || stores_outside(prog, f))
        };
        out = roots(&called_any(), &takes_record);
    }
    if out.is_empty() {
        // A root handed a packet's header fields one by one (`ipfilter(saddr,
        // daddr, sport, dport, protocol)`): its caller parsed the packet.
        // Stronger evidence than a byte buffer a root takes (a dialog's
        // `char *` strings), which the fallback below would pick.
        let takes_fields = |f: &program::FnDef| !super::field_params(prog, f).is_empty();
        out = roots(&called_any(), &takes_fields);
    }
    // A root handed the raw frame is as much a packet path as one handed a
    // descriptor (nDPI's `ndpi_detection_process_packet(…, packet_data,
    // packetlen, …)` beside public accessors taking the parsed packet).
    // An entry found otherwise (a root reaching a packet descriptor through
    // its locals) that is also handed the frame gets its frame parameter.
    let found = !out.is_empty();
    for e in super::generic_entries(&input.calls, own, super::FrameTypes::UnsignedBytes) {
        match out.iter_mut().find(|o| o.fn_idx == e.fn_idx) {
            // Beside a packet path found by stronger evidence, a root
            // handed bytes it may write is not made a second one: an NF's
            // process function reads the frame it is handed (`const
            // unsigned char *packet`), while a writable `u8 *` is, in code
            // that spells strings so, a string being parsed or registered
            // (a signature, a rule). Alone, such a root still is the
            // fallback's packet path.
            None if found && !reads_only(prog, &e) => {}
            Some(o) => {
                for p in e.frame_params {
                    if !o.frame_params.contains(&p) {
                        o.frame_params.push(p);
                    }
                }
            }
            None => out.push(e),
        }
    }
    out
}

/// Whether every frame parameter of `e` points to `const` bytes.
fn reads_only(prog: &program::Program, e: &Entry) -> bool {
    let params = &prog.fns[e.fn_idx].params;
    e.frame_params
        .iter()
        .all(|fp| params.iter().any(|p| &p.name == fp && p.is_const))
}

/// Whether `f` stores to something other than its own locals and
/// parameters (a global, a member, through a pointer): with a call, what
/// a caller could observe of it besides its return value.
fn stores_outside(prog: &program::Program, f: &program::FnDef) -> bool {
    let Some(body) = f.body else {
        return false;
    };
    let src = prog.src(f.file);
    let own_name = |n: tree_sitter::Node| {
        n.kind() == "identifier" && {
            let name = &src[n.byte_range()];
            f.locals.contains_key(name) || f.params.iter().any(|p| p.name == name)
        }
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        let target = match n.kind() {
            "assignment_expression" => n.child_by_field_name("left"),
            "update_expression" => n.child_by_field_name("argument"),
            _ => None,
        };
        if target.is_some_and(|t| !own_name(t)) {
            return true;
        }
        let mut cur = n.walk();
        stack.extend(n.named_children(&mut cur));
    }
    false
}

/// A call that receives packets: a burst receive (`rte_eth_rx_burst`) or a
/// socket receive (`recv`, `recvfrom`, `recvmsg`, `recvmmsg`, also behind a
/// prefix such as `nl_recv`).
pub(super) fn is_receive_call(callee: &str) -> bool {
    callee.contains("rx_burst")
        || callee
            .split('_')
            .any(|t| matches!(t, "recv" | "recvfrom" | "recvmsg" | "recvmmsg"))
}

#[cfg(test)]
mod tests {
    use super::is_receive_call;

    #[test]
    fn receive_calls_are_told_from_names_that_mention_recv() {
        for c in [
            "rte_eth_rx_burst",
            "recv",
            "recvfrom",
            "recvmmsg",
            "nl_recv",
        ] {
            assert!(is_receive_call(c), "{c}");
        }
        for c in [
            "received",
            "precvalue",
            "rte_eth_tx_burst",
            "receive_window",
        ] {
            assert!(!is_receive_call(c), "{c}");
        }
    }
}
