//! Click/FastClick elements: the packet methods of an element class
//! (`simple_action`, `push`, `push_batch`, ...); `new_flow` runs once per
//! flow. FlowStateElement/FlowSpaceElement state is handed in by the flow
//! manager upstream, located by whatever it classifies on.

use super::AdapterInput;
use crate::static_analysis::dataflow::Entry;

pub(super) const CLICK_PACKET_METHODS: &[&str] = &[
    "simple_action",
    "push",
    "push_batch",
    "simple_action_batch",
    "pull",
    "process",
    "push_flow",
    "action",
    "smaction",
    "push_packet",
];

pub(super) fn entries(input: &AdapterInput) -> Vec<Entry> {
    let (prog, own) = (input.prog, input.own);
    let mut out = vec![];
    for (i, f) in prog.fns.iter().enumerate() {
        if f.body.is_none() || !own(f.file) {
            continue;
        }
        let is_new_flow = f.name == "new_flow";
        if !(CLICK_PACKET_METHODS.contains(&f.name.as_str()) || is_new_flow) {
            continue;
        }
        let mut flow_params = vec![];
        if let Some(cl) = &f.class {
            let bases = prog.class_bases(cl);
            if let Some(b) = bases.iter().find(|b| {
                b.contains("FlowStateElement")
                    || b.contains("FlowSpaceElement")
                    || b.contains("FlowElement")
            }) {
                let state_ty = b.split_once('<').map(|(_, r)| {
                    r.trim_end_matches('>')
                        .split(',')
                        .next_back()
                        .unwrap_or("")
                        .trim()
                        .to_string()
                });
                for p in &f.params {
                    let matches_ty = state_ty
                        .as_deref()
                        .map(|s| !s.is_empty() && p.ty.name == s)
                        .unwrap_or(false);
                    if (matches_ty || p.name.contains("fcb") || p.name.contains("flowdata"))
                        && p.ty.is_pointerish()
                    {
                        // The flow manager upstream locates this
                        // state by whatever its configuration
                        // classifies on: the element's code does
                        // not name the fields (no 5-tuple guess).
                        flow_params.push((p.name.clone(), "flow_state".to_string(), vec![]));
                    }
                }
            }
        }
        out.push(Entry {
            fn_idx: i,
            guarded: is_new_flow,
            flow_params,
            frame_params: vec![],
            caller_state: false,
        });
    }
    out
}
