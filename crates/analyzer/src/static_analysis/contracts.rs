//! Documented contracts of APIs whose implementation is outside the analysed
//! code. A call whose body is not visible is normally judged by what it is
//! handed (see `dataflow`: packet data in, packet data out; a table outside
//! the code makes "stateful" unknown). For a few kernel APIs the kernel's
//! own documentation fixes what the call does with per-flow state: which
//! table it reaches, what that table is keyed by, whether both directions
//! of a connection meet one entry and whether reaching it follows links.
//! Those facts are listed here, once, with the header or document that
//! states them; the data-flow engine consults this table for a call it
//! cannot see (`Engine::call`) and records the lookup the contract
//! describes.
//!
//! What a contract never does is widen a key past what the code proves.
//! - A key **fixed by the kernel** (conntrack's connection tuple) is the
//!   kernel's choice, not the NF's configuration: every packet meeting an
//!   entry has the same tuple, whatever the NF does. This is unlike a
//!   framework's flow classifier (Click's FlowStateElement), whose key is
//!   configured and which the Click adapter therefore refuses to guess.
//! - A key **given by an argument** (the flowtable's lookup tuple) is what
//!   the data flow shows the code writing into that argument, bounded by
//!   the fields the kernel's key can hold; when the argument holds no packet
//!   field the analysis can name, the key is unknown.
//!
//! Writes are the NF's own: the entry counts as written on the packet path
//! by the NF only where the code stores through the returned pointer (the
//! engine's ordinary rule for a pointer into state). The table itself is
//! state either way: the kernel creates and refreshes its entries on the
//! packet path (`kept_by_kernel`).

use super::dataflow::Val;
use nfc_core::facts::Field;

/// Where the fields that locate a contract's entry come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContractKey {
    /// The kernel locates the entry by these fields of the packet handed
    /// in (the packet argument), whatever else the call is given.
    Fixed(&'static [Field]),
    /// The kernel locates the entry by the fields the code wrote into the
    /// argument at this position, of which only these can be part of the
    /// kernel's key.
    Argument {
        position: usize,
        keyable: &'static [Field],
    },
}

/// The contract of one API whose body the analysed code does not contain.
#[derive(Debug)]
pub struct Contract {
    /// The function's name as called.
    pub api: &'static str,
    /// The argument that must be the packet being processed (its
    /// descriptor: an `sk_buff`, an `xdp_md`): the contract speaks of that
    /// packet's entry. Called on anything else, the call is judged like
    /// any unknown call.
    pub packet_arg: usize,
    /// The state object the entries belong to, as facts name it.
    pub table: &'static str,
    pub key: ContractKey,
    /// Both directions of a connection reach the same entry.
    pub both_directions: bool,
    /// Reaching the entry follows links (a chained hash table).
    pub chained: bool,
    /// The contract in one line, with where the kernel states it: shown as
    /// evidence.
    pub source: &'static str,
}

/// The contracts, one per API.
pub const CONTRACTS: &[Contract] = &[
    // `struct nf_conn *nf_ct_get(const struct sk_buff *skb,
    //                            enum ip_conntrack_info *ctinfo)`,
    // include/net/netfilter/nf_conntrack.h: returns the connection entry
    // conntrack attached to the skb (`skb->_nfct`, pointer bits) and its
    // ctinfo (the low bits): no lookup, the entry was found by
    // nf_conntrack_in when the packet entered the stack. One `struct
    // nf_conn` per connection holds the tuple hash of both directions
    // (`tuplehash[IP_CT_DIR_MAX]`), so requests and replies meet the same
    // entry and ctinfo says which one this packet is
    // (<linux/netfilter/nf_conntrack_common.h>, installed here: "Part of an
    // established connection (either direction)", "IP_CT_IS_REPLY: >= this
    // indicates reply direction"). The connection tuple
    // (include/net/netfilter/nf_conntrack_tuple.h) holds both addresses,
    // both ports (for ICMP the id in their place) and the L4 protocol; the
    // zone is outside the facts' field vocabulary. The kernel's internal
    // headers are not installed on the machine this was written on, so
    // the other accessors (`nf_ct_get_tuplepr`, `nf_conntrack_find_get`, ...)
    // are not listed: their contracts were not checked.
    Contract {
        api: "nf_ct_get",
        packet_arg: 0,
        table: "<kernel conntrack>",
        key: ContractKey::Fixed(&Field::FIVE_TUPLE),
        both_directions: true,
        chained: false,
        source: "the connection entry conntrack attached to the packet (include/net/netfilter/nf_conntrack.h: nf_ct_get reads skb->_nfct, no lookup); one nf_conn per connection tuple (addresses, ports or ICMP id, L4 protocol), holding both directions' tuples",
    },
    // `struct flow_offload_tuple_rhash *bpf_xdp_flow_lookup(struct xdp_md
    // *ctx, struct bpf_fib_lookup *fib_tuple, struct bpf_flowtable_opts
    // *opts, u32 opts_len)`, a kfunc (net/netfilter/nf_flow_table_bpf.c,
    // Linux 6.10): builds a flow_offload_tuple from the fib tuple's
    // addresses, ports and L4 protocol (and the ingress device) and looks
    // it up in the device's netfilter flowtable, a kernel rhashtable
    // (chained). A flow_offload holds an ORIGINAL and a REPLY tuplehash
    // (include/net/netfilter/nf_flow_table.h), both in the table, so both
    // directions reach one flow; the result's `tuple.dir` says which.
    // Entries are created and refreshed by the kernel's forwarding path
    // (nft's `flow add`). MACs, tos and lengths in the fib tuple are not
    // part of the flowtable's key.
    Contract {
        api: "bpf_xdp_flow_lookup",
        packet_arg: 0,
        table: "<kernel flowtable>",
        key: ContractKey::Argument {
            position: 1,
            keyable: &Field::FIVE_TUPLE,
        },
        both_directions: true,
        chained: true,
        source: "a lookup in the kernel's netfilter flowtable (net/netfilter/nf_flow_table_bpf.c), an rhashtable of flows keyed by the tuple the code fills (addresses, ports, L4 protocol), each flow holding both directions",
    },
];

/// The contract of `api`, if one is documented.
pub fn find(api: &str) -> Option<&'static Contract> {
    CONTRACTS.iter().find(|c| c.api == api)
}

/// The contract whose table `obj` is: state the kernel keeps and writes
/// on its packet path, whether or not the NF writes it.
pub fn kept_by_kernel(obj: &str) -> Option<&'static Contract> {
    CONTRACTS.iter().find(|c| c.table == obj)
}

impl Contract {
    /// Does the contract speak of this call? Only when the packet argument
    /// is the packet being processed (the descriptor itself, not a pointer
    /// read from state).
    pub fn applies(&self, args: &[Val]) -> bool {
        args.get(self.packet_arg)
            .is_some_and(|a| a.descriptor && a.objs.is_empty() && !a.root)
    }

    /// What locates the entry the call reaches, as the taint of an access
    /// key: the kernel's fixed fields, or the fields of the key argument
    /// that the kernel's key can hold. An argument carrying none of those
    /// (filled from constants, configuration or bytes of no nameable
    /// field) gives an unknown key (`opaque`), never a guessed one.
    pub fn key(&self, args: &[Val]) -> Val {
        match self.key {
            ContractKey::Fixed(fields) => {
                let mut v = Val::default();
                v.fields.extend(fields.iter().copied());
                v
            }
            ContractKey::Argument { position, keyable } => {
                let arg = args.get(position).cloned().unwrap_or_default();
                // Only the taint: where the argument points (a local
                // struct, state) is not where the entry is.
                let mut v = Val {
                    fields: arg.fields,
                    opaque: arg.opaque,
                    alternatives: arg.alternatives,
                    mixed: arg.mixed,
                    from: arg.from,
                    ..Default::default()
                };
                v.fields.retain(|f| keyable.contains(f));
                if v.fields.is_empty() && !v.alternatives {
                    v.opaque = true;
                }
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet() -> Val {
        Val {
            descriptor: true,
            ..Default::default()
        }
    }

    fn fields(v: &Val) -> Vec<Field> {
        v.fields.iter().copied().collect()
    }

    #[test]
    fn conntrack_is_keyed_by_the_connection_tuple_of_the_packet_handed_in() {
        let c = find("nf_ct_get").unwrap();
        assert!(c.applies(&[packet(), Val::default()]));
        let k = c.key(&[packet(), Val::default()]);
        assert_eq!(fields(&k), Field::FIVE_TUPLE);
        assert!(!k.opaque);
        assert!(c.both_directions && !c.chained);
        // Handed something that is not the packet (a value read from
        // state): the contract does not speak of it.
        let stored = Val {
            descriptor: true,
            objs: ["queue".to_string()].into_iter().collect(),
            ..Default::default()
        };
        assert!(!c.applies(&[stored]));
        assert!(!c.applies(&[Val::default()]));
    }

    #[test]
    fn the_flowtable_is_keyed_by_what_the_tuple_holds_within_the_kernels_key() {
        let c = find("bpf_xdp_flow_lookup").unwrap();
        let mut tuple = Val::default();
        tuple
            .fields
            .extend([Field::SrcIp, Field::DstIp, Field::SrcMac]);
        let k = c.key(&[packet(), tuple]);
        // The MAC is no part of the flowtable's key.
        assert_eq!(fields(&k), [Field::SrcIp, Field::DstIp]);
        assert!(!k.opaque);
        // No field the kernel keys by: unknown, not guessed.
        let consts = Val {
            konst: Some(7),
            ..Default::default()
        };
        assert!(c.key(&[packet(), consts]).opaque);
        let mut macs = Val::default();
        macs.fields.extend([Field::DstMac]);
        let k = c.key(&[packet(), macs]);
        assert!(k.opaque && k.fields.is_empty());
        assert!(c.both_directions && c.chained);
    }

    #[test]
    fn only_documented_apis_have_contracts_and_each_names_its_own_table() {
        assert!(find("ct_get").is_none());
        assert!(find("nf_ct_get_tuplepr").is_none());
        let tables: std::collections::BTreeSet<_> = CONTRACTS.iter().map(|c| c.table).collect();
        assert_eq!(tables.len(), CONTRACTS.len());
        assert!(CONTRACTS
            .iter()
            .all(|c| kept_by_kernel(c.table).is_some_and(|k| k.api == c.api)));
        assert!(kept_by_kernel("flows").is_none());
    }
}
