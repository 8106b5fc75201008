//! Framework adapters: where an NF's per-packet entry points are. One file
//! per framework; each returns the entries found in the NF's own files
//! (never in included headers: a library's inline helper taking an mbuf
//! is called by the NF, it is not an NF). When an adapter finds nothing,
//! framework-less roots taking a raw frame are tried.

mod c;
mod click;
mod nfc_c;
mod vpp;

use super::dataflow::Entry;
use super::headers;
use super::program::{self, NodeExt, Program};
use nfc_core::chain::Framework;
use std::collections::{BTreeMap, BTreeSet};

/// What an adapter looks at: the program and which files are the NF's own.
pub(super) struct AdapterInput<'a, 'p, 't> {
    pub prog: &'p Program<'t>,
    pub own: &'a dyn Fn(usize) -> bool,
    pub calls: CallSets<'p, 't>,
}

/// The names called from each function's body, collected on first use:
/// the adapters ask for them several times per function (the call graph
/// among the NF's functions, receive loops, handlers reaching the packet),
/// and each collection walks the whole body.
pub(super) struct CallSets<'p, 't> {
    prog: &'p Program<'t>,
    /// By the id of the body's node.
    sets: std::cell::RefCell<rustc_hash::FxHashMap<usize, std::rc::Rc<BTreeSet<String>>>>,
}

impl<'p, 't> CallSets<'p, 't> {
    fn new(prog: &'p Program<'t>) -> Self {
        CallSets {
            prog,
            sets: Default::default(),
        }
    }

    /// The names `f`'s body calls (`None`: it has no body).
    fn of(&self, f: &program::FnDef) -> Option<std::rc::Rc<BTreeSet<String>>> {
        let b = f.body?;
        if let Some(s) = self.sets.borrow().get(&b.id()) {
            return Some(s.clone());
        }
        let mut s = BTreeSet::new();
        collect_calls(b, self.prog.src(f.file), &mut s);
        let s = std::rc::Rc::new(s);
        self.sets.borrow_mut().insert(b.id(), s.clone());
        Some(s)
    }
}

impl AdapterInput<'_, '_, '_> {
    /// The NF's own functions with a body called `name`.
    fn by_name(&self, name: &str) -> Vec<usize> {
        self.prog
            .fn_index
            .get(name)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|i| self.prog.fns[*i].body.is_some() && (self.own)(self.prog.fns[*i].file))
            .collect()
    }
}

/// The per-packet entry points of the NF, by its framework.
pub(super) fn find_entries(
    prog: &Program,
    fw: Option<Framework>,
    own: &dyn Fn(usize) -> bool,
) -> Vec<Entry> {
    let input = AdapterInput {
        prog,
        own,
        calls: CallSets::new(prog),
    };
    let out = match fw {
        Some(Framework::NfcC) => nfc_c::entries(&input),
        Some(Framework::Click) => click::entries(&input),
        Some(Framework::Vpp) => vpp::entries(&input),
        Some(Framework::Dpdk) | None => c::entries(&input),
    };
    if out.is_empty() {
        generic_entries(&input.calls, own, FrameTypes::AnyByteBuffer)
    } else {
        out
    }
}

/// Set-up, configuration and control-plane functions by their names: never
/// an entry point, whatever they take.
pub(super) fn init_like(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "main"
        || n.starts_with("nf_init")
        || n == "nf_state_init"
        || n == "nf_fini"
        || n == "nf_describe"
        || n == "nf_state_size"
        || n.contains("configure")
        || n.contains("initialize")
        || n.starts_with("init")
        || n.ends_with("_init")
        || n.contains("_init_")
        || n.contains("setup")
        || n.contains("parse_arg")
        || n.contains("add_handlers")
        || n.contains("cleanup")
        || n.contains("command")
        || n.contains("_cli")
        || n.contains("handler")
        || n.contains("enable_disable")
        || n.contains("config")
        || n.contains("add_del")
        || n.starts_with("set_")
        || n.starts_with("format_")
        || n.starts_with("unformat_")
        || n.contains("build")
        || n.contains("populate")
        || n.contains("load")
}

/// The scalar parameters of `f` named as header fields (`saddr`, `dport`,
/// `protocol`), when there are two or more: an entry handed the fields of a
/// packet its caller parsed (`ipfilter(saddr, daddr, sport, dport,
/// protocol)`). One such name alone (a `port` option) is no evidence.
pub(in crate::static_analysis) fn field_params<'f>(
    prog: &Program,
    f: &'f program::FnDef,
) -> Vec<(&'f str, nfc_core::facts::Field)> {
    let named: Vec<(&str, nfc_core::facts::Field)> = f
        .params
        .iter()
        .filter(|p| {
            // An integer (not a struct passed by value, not a pointer).
            !p.ty.is_pointerish()
                && p.ty.dims.is_empty()
                && !prog.structs.contains_key(prog.resolve_type(&p.ty.name))
        })
        .filter_map(|p| {
            let field = headers::generic_member_field(p.name.trim_start_matches('_'))?;
            Some((p.name.as_str(), field))
        })
        .collect();
    if named.len() >= 2 {
        named
    } else {
        vec![]
    }
}

/// Which pointer types a root's parameter may have to be taken as the frame.
#[derive(Clone, Copy, PartialEq)]
enum FrameTypes {
    /// Any byte buffer, `char *` and `void *` included: framework-less code
    /// with no other packet path, where a buffer is the best evidence.
    AnyByteBuffer,
    /// Unsigned bytes only, beside a framework's own entries: there `char *`
    /// is text (a rule parser's line) and `void *` an opaque argument (an
    /// lcore's launch argument, a callback's cookie), not a frame.
    UnsignedBytes,
}

/// Root functions (called by no other function, not init-like) that take a
/// raw byte buffer; the buffer is the frame.
fn generic_entries(calls: &CallSets, own: &dyn Fn(usize) -> bool, types: FrameTypes) -> Vec<Entry> {
    let prog = calls.prog;
    let called = called_by_own(calls, &|_| true, &|_| true);
    let mut out = vec![];
    for (i, f) in prog.fns.iter().enumerate() {
        if f.body.is_none() || !own(f.file) || init_like(&f.name) || called.contains(&f.name) {
            continue;
        }
        let body = f
            .body
            .map(|b| program::text(b, prog.src(f.file)))
            .unwrap_or("");
        let frame_params: Vec<String> = f
            .params
            .iter()
            .filter(|p| {
                // `const char *argv[]` is a list of strings, not a frame; a
                // buffer the body never touches (`void *aux OVS_UNUSED` of a
                // command handler) is not one either.
                mentions(body, &p.name)
                    && p.ty.ptr == 1
                    && p.ty.dims.is_empty()
                    && (matches!(
                        p.ty.name.as_str(),
                        "uint8_t"
                            | "u8"
                            | "unsigned char"
                            | "u_char"
                            | "__u8"
                            | "uchar"
                            | "u_int8_t"
                    ) || (types == FrameTypes::AnyByteBuffer
                        && matches!(p.ty.name.as_str(), "char" | "void")))
            })
            .map(|p| p.name.clone())
            .collect();
        if let Some(first) = frame_params.first() {
            out.push(Entry {
                fn_idx: i,
                guarded: false,
                flow_params: vec![],
                frame_params: vec![first.clone()],
                caller_state: true,
            });
        }
    }
    out
}

/// `name` occurs in `text` as a whole identifier.
fn mentions(text: &str, name: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices(name).any(|(i, _)| {
        let before = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let end = i + name.len();
        let after = end >= b.len() || !(b[end].is_ascii_alphanumeric() || b[end] == b'_');
        before && after
    })
}

/// Names of the functions called from the bodies of the functions `caller`
/// accepts in files `own` accepts.
fn called_by_own<'p>(
    call_sets: &CallSets<'p, '_>,
    own: &dyn Fn(usize) -> bool,
    caller: &dyn Fn(&program::FnDef) -> bool,
) -> BTreeSet<String> {
    let prog = call_sets.prog;
    // The call graph among the own functions with a body, by name.
    let mut calls: BTreeMap<&'p str, BTreeSet<String>> = BTreeMap::new();
    for f in prog.fns.iter().filter(|f| own(f.file)) {
        if let Some(cs) = call_sets.of(f) {
            let to = calls.entry(f.name.as_str()).or_default();
            if to.is_empty() {
                to.clone_from(&cs);
            } else {
                to.extend(cs.iter().cloned());
            }
        }
    }
    let reaches = |from: &str, to: &str| -> bool {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut work = vec![from];
        while let Some(n) = work.pop() {
            if n == to {
                return true;
            }
            if !seen.insert(n) {
                continue;
            }
            if let Some(cs) = calls.get(n) {
                work.extend(cs.iter().map(String::as_str));
            }
        }
        false
    };
    // A call from a function the callee itself reaches (recursion:
    // `odp_execute_actions` -> sample action -> `odp_execute_actions`) does
    // not make the callee part of another function's path: the cycle is
    // entered from outside or it is a root.
    let mut called: BTreeSet<String> = BTreeSet::new();
    for f in prog.fns.iter().filter(|f| own(f.file) && caller(f)) {
        if let Some(cs) = calls.get(f.name.as_str()) {
            for c in cs {
                let in_cycle =
                    c == &f.name || (calls.contains_key(c.as_str()) && reaches(c, &f.name));
                if !in_cycle {
                    called.insert(c.clone());
                }
            }
        }
    }
    called
}

/// `n` calls a receive function somewhere inside (see [`c::is_receive_call`]).
pub(super) fn calls_receive(prog: &Program, f: &program::FnDef, n: tree_sitter::Node) -> bool {
    let mut s = BTreeSet::new();
    collect_calls(n, prog.src(f.file), &mut s);
    s.iter().any(|c| c::is_receive_call(c)) || fills_record_in_loop(prog, f, n)
}

/// `n` (code of `f`) hands a local parsed-packet record of `f` (a struct
/// pointing at the packet's headers, see `dataflow::points_at_headers`) by
/// address, inside a loop, to code whose body is not among the files: a
/// capture library filling it with the next packet (`while (!exit) {
/// capt_get_packet(&capt, &pkt, …); process(&table, &pkt); }`). A call
/// outside a loop (`packet_init(&pkt)`) sets the record up; a call to the
/// NF's own code processes it.
pub(super) fn fills_record_in_loop(
    prog: &Program,
    f: &program::FnDef,
    n: tree_sitter::Node,
) -> bool {
    let records: BTreeSet<&str> = f
        .locals
        .iter()
        .filter(|(_, l)| {
            l.ty.ptr == 0
                && l.ty.dims.is_empty()
                && crate::static_analysis::dataflow::points_at_headers(prog, &l.ty.name)
        })
        .map(|(name, _)| name.as_str())
        .collect();
    if records.is_empty() {
        return false;
    }
    let src = prog.src(f.file);
    let is_loop = |x: tree_sitter::Node| {
        matches!(
            x.kind_name(),
            "while_statement" | "for_statement" | "do_statement"
        )
    };
    let mut stack = vec![(n, is_loop(n))];
    while let Some((x, in_loop)) = stack.pop() {
        if in_loop && x.kind_name() == "call_expression" {
            let callee = x
                .field("function")
                .map(|c| program::text(c, src))
                .unwrap_or("");
            let unseen = !prog.has_body(callee);
            let hands_record = x.field("arguments").is_some_and(|args| {
                let mut c = args.walk();
                let found = args.named_children(&mut c).any(|a| {
                    a.kind_name() == "pointer_expression"
                        && a.field("operator")
                            .is_some_and(|o| program::text(o, src) == "&")
                        && a.field("argument").is_some_and(|v| {
                            v.kind_name() == "identifier" && records.contains(program::text(v, src))
                        })
                });
                found
            });
            if unseen && hands_record {
                return true;
            }
        }
        let mut c = x.walk();
        for ch in x.named_children(&mut c) {
            stack.push((ch, in_loop || is_loop(ch)));
        }
    }
    false
}

fn collect_calls(n: tree_sitter::Node, src: &str, out: &mut BTreeSet<String>) {
    // One cursor walks `n` and its named descendants in pre-order (a
    // cursor per node, as a recursion over `named_children` needs, cost an
    // allocation each); a name already collected is not copied again.
    let mut cursor = n.walk();
    loop {
        let node = cursor.node();
        if node.kind_name() == "call_expression" {
            if let Some(f) = node.field("function") {
                let t = program::text(f, src);
                let name = t.rsplit(['.', '>', ':']).next().unwrap_or(t).trim();
                if !out.contains(name) {
                    out.insert(name.to_string());
                }
            }
        }
        if goto_named(&mut cursor, true) {
            continue;
        }
        loop {
            if goto_named(&mut cursor, false) {
                break;
            }
            // The cursor cannot leave `n`: at `n`, the walk is done.
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Move the cursor to its node's first named child (`child`) or to its
/// next named sibling; false (the cursor where it was) when there is none.
fn goto_named(cursor: &mut tree_sitter::TreeCursor, child: bool) -> bool {
    if child {
        if !cursor.goto_first_child() {
            return false;
        }
        if cursor.node().is_named() {
            return true;
        }
    }
    while cursor.goto_next_sibling() {
        if cursor.node().is_named() {
            return true;
        }
    }
    if child {
        cursor.goto_parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::static_analysis::program::parse;

    /// The entry points `find_entries` gives for one source text.
    fn check(fw: Option<Framework>, cpp: bool, src: &str, expect: &[&str]) {
        let parsed = vec![parse("nf.c".into(), src.to_string(), cpp).expect("parses")];
        let prog = Program::build(&parsed);
        let mut got: Vec<String> = find_entries(&prog, fw, &|_| true)
            .iter()
            .map(|e| prog.fns[e.fn_idx].name.clone())
            .collect();
        got.sort();
        assert_eq!(got, expect, "{src}");
    }

    #[test]
    fn nfc_c_enters_at_nf_process() {
        check(
            Some(Framework::NfcC),
            false,
            "static int helper(struct nf_packet *p) { return 0; }\n\
             int nf_process(struct nf_ctx *c, struct nf_packet *p) { return helper(p); }\n",
            &["nf_process"],
        );
    }

    #[test]
    fn click_enters_at_packet_methods() {
        check(
            Some(Framework::Click),
            true,
            "class Counter : public Element { public:\n\
             Packet *simple_action(Packet *p) { return p; }\n\
             int configure(Vector<String> &conf, ErrorHandler *errh) { return 0; } };\n",
            &["simple_action"],
        );
    }

    #[test]
    fn vpp_enters_at_graph_nodes() {
        check(
            Some(Framework::Vpp),
            false,
            "uword vlib_node_fn_nat(vlib_main_t *vm, vlib_node_runtime_t *node, vlib_frame_t *frame) { return 0; }\n\
             static void nat_init(vlib_main_t *vm) { }\n",
            &["vlib_node_fn_nat"],
        );
    }

    #[test]
    fn dpdk_helpers_taking_an_mbuf_belong_to_their_receive_loop() {
        check(
            Some(Framework::Dpdk),
            false,
            "static void fwd(struct rte_mbuf *m, unsigned port) { }\n\
             static void main_loop(void) { struct rte_mbuf *pkts[32];\n\
               unsigned n = rte_eth_rx_burst(0, 0, pkts, 32);\n\
               for (unsigned i = 0; i < n; i++) fwd(pkts[i], 0); }\n",
            &["main_loop"],
        );
    }

    #[test]
    fn a_packet_function_that_recurses_is_an_entry() {
        // No function outside the cycle calls in: each member is a root
        // (analysing the cycle from either reaches the same code).
        check(
            None,
            false,
            "void run(struct dp_packet_batch *b, int n);\n\
             static void sample(struct dp_packet_batch *b, int n) { run(b, n - 1); }\n\
             void run(struct dp_packet_batch *b, int n) { if (n) sample(b, n); }\n",
            &["run", "sample"],
        );
    }

    #[test]
    fn a_callback_reentering_a_context_dissector_is_the_entry() {
        // nDPI: the dissector reaches the packet through the module context;
        // the callback it registers calls it again.
        check(
            None,
            false,
            "static void search(struct ndpi_detection_module_struct *m, struct ndpi_flow_struct *f) {\n\
               struct ndpi_packet_struct *packet = &m->packet; (void)packet; }\n\
             static int search_again(struct ndpi_detection_module_struct *m, struct ndpi_flow_struct *f) {\n\
               search(m, f); return 0; }\n",
            &["search_again"],
        );
    }

    #[test]
    fn framework_less_code_enters_where_a_raw_frame_is_taken() {
        check(
            None,
            false,
            "static int parse(const unsigned char *p) { return p[0]; }\n\
             void handle(uint8_t *frame, int len) { parse(frame); }\n",
            &["handle"],
        );
    }
}
