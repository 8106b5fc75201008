//! nfc's own C ABI (`nfs/include/nf.h`): the entry is `nf_process`.

use super::AdapterInput;
use crate::static_analysis::dataflow::Entry;

pub(super) fn entries(input: &AdapterInput) -> Vec<Entry> {
    let mut out = vec![];
    for i in input.by_name("nf_process") {
        out.push(Entry::framework(i));
    }
    out
}
