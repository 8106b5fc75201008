//! VPP graph nodes: `VLIB_NODE_FN` functions and functions taking a
//! `vlib_frame_t`.

use super::{init_like, AdapterInput};
use crate::static_analysis::dataflow::Entry;

pub(super) fn entries(input: &AdapterInput) -> Vec<Entry> {
    let (prog, own) = (input.prog, input.own);
    let mut out = vec![];
    for (i, f) in prog.fns.iter().enumerate() {
        if f.body.is_none() || !own(f.file) {
            continue;
        }
        let node_fn = f.name.starts_with("vlib_node_fn_")
            || f.params
                .iter()
                .any(|p| p.ty.name.contains("vlib_frame_t") || p.ty.name.contains("vlib_frame"));
        if node_fn && !init_like(&f.name) {
            out.push(Entry::framework(i));
        }
    }
    out
}
