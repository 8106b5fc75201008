//! The plan's RSS, programmed through mechanisms that exist: a DPDK flow
//! rule with an RSS action (for FastClick's `FLOW_RULES_FILE`, and for
//! testpmd), `ethtool` commands for kernel NICs, and a JSON rendering of
//! DPDK's `rte_eth_rss_conf` plus the redirection table for DPDK programs
//! that configure the port themselves.
//!
//! The field selection is said twice, as each mechanism allows: by the hash
//! types (DPDK: `ipv4` when no port is hashed, `ipv4-tcp ipv4-udp` when
//! ports are, with `l3-src-only`/`l3-dst-only`/`l4-src-only`/`l4-dst-only`
//! when only one address or port is; ethtool: `rx-flow-hash` letters), and by
//! the plan's Toeplitz key, which for NICs that hash a fixed tuple zeroes
//! every key window that would mix in a field outside the set
//! (`crates/placer/src/toeplitz.rs`).

use nfc_core::facts::Field;
use nfc_core::Plan;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// DPDK's RSS hash types for the plan's fields: (testpmd name, rss_hf flag).
pub fn hash_types(fields: &[Field]) -> Vec<(&'static str, &'static str)> {
    let has = |f: Field| fields.contains(&f);
    let mut t = vec![];
    if has(Field::SrcPort) || has(Field::DstPort) {
        t.push(("ipv4-tcp", "RTE_ETH_RSS_NONFRAG_IPV4_TCP"));
        t.push(("ipv4-udp", "RTE_ETH_RSS_NONFRAG_IPV4_UDP"));
    } else {
        t.push(("ipv4", "RTE_ETH_RSS_IPV4"));
    }
    match (has(Field::SrcIp), has(Field::DstIp)) {
        (true, false) => t.push(("l3-src-only", "RTE_ETH_RSS_L3_SRC_ONLY")),
        (false, true) => t.push(("l3-dst-only", "RTE_ETH_RSS_L3_DST_ONLY")),
        _ => {}
    }
    match (has(Field::SrcPort), has(Field::DstPort)) {
        (true, false) => t.push(("l4-src-only", "RTE_ETH_RSS_L4_SRC_ONLY")),
        (false, true) => t.push(("l4-dst-only", "RTE_ETH_RSS_L4_DST_ONLY")),
        _ => {}
    }
    t
}

/// The queues the plan spreads flows over, in order of first use in the RETA
/// (every core's queue when the RETA is empty).
fn queues(plan: &Plan) -> Vec<u16> {
    let mut q: Vec<u16> = vec![];
    for &e in &plan.rss.reta {
        if !q.contains(&e) {
            q.push(e);
        }
    }
    if q.is_empty() {
        q = (0..plan.cores.max(1) as u16).collect();
    }
    q.sort_unstable();
    q
}

/// The body of the flow rule that realises the plan's RSS on every IPv4
/// packet: `ingress pattern eth / ipv4 / end actions rss ... / end`, in
/// testpmd's flow syntax (the syntax FastClick's flow-rule manager reads
/// from `FLOW_RULES_FILE`; testpmd takes it after `flow create <port>`).
pub fn flow_rule(plan: &Plan) -> String {
    let queues: Vec<String> = queues(plan).iter().map(u16::to_string).collect();
    let types: Vec<&str> = hash_types(&plan.rss.fields).iter().map(|t| t.0).collect();
    let mut rule = format!(
        "ingress pattern eth / ipv4 / end actions rss func toeplitz types {} end queues {} end",
        types.join(" "),
        queues.join(" ")
    );
    if !plan.rss.key40.is_empty() {
        rule.push_str(&format!(
            " key {} key_len {}",
            hex(&plan.rss.key40),
            plan.rss.key40.len()
        ));
    }
    rule.push_str(" / end");
    rule
}

/// The flow-rules file: comments saying what it does, then the rule.
pub fn flow_rules_file(chain: &str, plan: &Plan) -> String {
    let fields: Vec<&str> = plan.rss.fields.iter().map(|f| f.name()).collect();
    format!(
        "# nfc: RSS for chain `{chain}` on {} queue(s): Toeplitz over {{{}}}{} (hash types select the fields; the key is the plan's)\n# testpmd: prefix a line with `flow create <port> ` (or `flow validate <port> `)\n{}\n",
        plan.cores,
        fields.join(","),
        if plan.rss.symmetric { ", symmetric" } else { "" },
        flow_rule(plan)
    )
}

/// `ethtool` letters of `-N rx-flow-hash` for the plan's fields (s: IP
/// source, d: IP destination, f: L4 bytes 0-1, n: L4 bytes 2-3, t: L3
/// protocol); fields ethtool cannot select (MAC addresses) are returned apart.
fn ethtool_letters(fields: &[Field]) -> (String, Vec<&'static str>) {
    let mut letters = String::new();
    let mut unsupported = vec![];
    for f in fields {
        match f {
            Field::SrcIp => letters.push('s'),
            Field::DstIp => letters.push('d'),
            Field::SrcPort => letters.push('f'),
            Field::DstPort => letters.push('n'),
            Field::Proto => letters.push('t'),
            other => unsupported.push(other.name()),
        }
    }
    (letters, unsupported)
}

/// A shell script of `ethtool` commands for a kernel NIC (argument 1, default
/// `eth0`): queue count, Toeplitz key and indirection table, and the input
/// fields per flow type.
pub fn ethtool_script(chain: &str, plan: &Plan) -> String {
    let key: Vec<String> = plan.rss.key40.iter().map(|b| format!("{b:02x}")).collect();
    let mut t = format!(
        "#!/bin/sh\n# nfc: RSS for chain `{chain}` on a kernel NIC (usage: sh ethtool.sh <iface>)\nset -e\nIFACE=\"${{1:-eth0}}\"\nethtool -L \"$IFACE\" combined {}\n",
        plan.cores
    );
    // The indirection table: equal spread, or weights when the plan's RETA
    // gives queues unequal shares.
    let q = queues(plan);
    let weights: Vec<usize> = (0..plan.cores.max(1) as u16)
        .map(|c| plan.rss.reta.iter().filter(|&&e| e == c).count())
        .collect();
    let equal = plan.rss.reta.is_empty() || weights.iter().all(|&w| w == weights[0]);
    let spread = if equal {
        format!("equal {}", q.len())
    } else {
        format!(
            "weight {}",
            weights
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    if key.is_empty() {
        t.push_str(&format!("ethtool -X \"$IFACE\" hfunc toeplitz {spread}\n"));
    } else {
        t.push_str(&format!(
            "ethtool -X \"$IFACE\" hfunc toeplitz hkey {} {spread}\n",
            key.join(":")
        ));
    }
    let (letters, unsupported) = ethtool_letters(&plan.rss.fields);
    if !letters.is_empty() {
        for flow in ["tcp4", "udp4"] {
            t.push_str(&format!(
                "ethtool -N \"$IFACE\" rx-flow-hash {flow} {letters}\n"
            ));
        }
    }
    if !unsupported.is_empty() {
        t.push_str(&format!(
            "# ethtool cannot select {} for hashing; the key alone restricts the hash\n",
            unsupported.join(", ")
        ));
    }
    t
}

/// DPDK's `struct rte_eth_rss_conf` for the plan (key, length, hash flags)
/// and the redirection table for `rte_eth_dev_rss_reta_update`.
pub fn rss_conf_json(plan: &Plan) -> serde_json::Value {
    serde_json::json!({
        "rss_conf": {
            "rss_key": hex(&plan.rss.key40),
            "rss_key_len": plan.rss.key40.len(),
            "rss_hf": hash_types(&plan.rss.fields).iter().map(|t| t.1).collect::<Vec<_>>(),
            "algorithm": "RTE_ETH_HASH_FUNCTION_TOEPLITZ",
        },
        "rss_key_52": hex(&plan.rss.key52),
        "nb_rx_queues": plan.cores,
        "reta_size": plan.rss.reta.len(),
        "reta": plan.rss.reta,
        "fields": plan.rss.fields,
        "symmetric": plan.rss.symmetric,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(fields: &[Field], reta: Vec<u16>) -> Plan {
        let mut p: Plan = serde_json::from_value(serde_json::json!({
            "cores": 2,
            "rss": {"fields": fields, "symmetric": false, "key40": [0x6d, 0x5a, 0, 0], "key52": [], "reta": reta},
            "nfs": [], "total_cost": 0.0, "candidates": [], "rationale": []
        }))
        .expect("a plan");
        p.cores = 2;
        p
    }

    #[test]
    fn rule_ethtool_and_conf_carry_the_plan() {
        let p = plan(&[Field::SrcIp], vec![0, 1, 0, 1]);
        assert_eq!(
            flow_rule(&p),
            "ingress pattern eth / ipv4 / end actions rss func toeplitz types ipv4 l3-src-only end queues 0 1 end key 6d5a0000 key_len 4 / end"
        );
        let sh = ethtool_script("c", &p);
        assert!(sh.contains("ethtool -L \"$IFACE\" combined 2"), "{sh}");
        assert!(sh.contains("hkey 6d:5a:00:00 equal 2"), "{sh}");
        assert!(sh.contains("rx-flow-hash tcp4 s\n"), "{sh}");
        let w = ethtool_script(
            "c",
            &plan(&[Field::SrcIp, Field::DstPort], vec![0, 0, 0, 1]),
        );
        assert!(
            w.contains("weight 3 1") && w.contains("rx-flow-hash udp4 sn"),
            "{w}"
        );
        let five = hash_types(&Field::FIVE_TUPLE);
        assert_eq!(
            five.iter().map(|t| t.0).collect::<Vec<_>>(),
            ["ipv4-tcp", "ipv4-udp"]
        );
        let conf = rss_conf_json(&p);
        assert_eq!(conf["rss_conf"]["rss_key_len"], 4);
        assert_eq!(conf["reta"], serde_json::json!([0, 1, 0, 1]));
    }
}
