//! Property tests of the deployment format: no mutated deployment (YAML or
//! JSON) makes `Deployment::parse` or the topology resolution panic, and
//! `assign_cpus` gives each NF one of the CPUs it was offered, in
//! contiguous runs along the chain's order (one each when there are
//! enough), whatever the CPUs and per-NF costs.

#[path = "../../core/tests/mutate/mod.rs"]
mod mutate;
mod netns_common;

use flash_rt::deploy::Deployment;
use mutate::{apply, mutation};
use proptest::prelude::*;
use std::path::Path;

/// Chains of 1-8 NFs, zero- and single-copy, pinned and not, as YAML and
/// as the JSON the emitter writes.
fn corpus() -> &'static Vec<(String, &'static str)> {
    static C: std::sync::OnceLock<Vec<(String, &'static str)>> = std::sync::OnceLock::new();
    C.get_or_init(|| {
        let mut out = vec![];
        for k in [1, 2, 3, 8] {
            for zero_copy in [true, false] {
                for keys in [
                    "polling: {never_busy: true}",
                    "cpus: [1, 3], polling: {busy_threshold_pps: 5, rx_coalesce_us: 0}",
                ] {
                    let yaml = netns_common::chain_yaml_with(
                        k,
                        zero_copy,
                        Path::new("/x/l2fwd.so"),
                        Path::new("/run/m.sock"),
                        65534,
                        "vi1",
                        keys,
                    );
                    let dep = Deployment::parse(&yaml, Path::new("d.yaml"))
                        .unwrap_or_else(|e| panic!("corpus entry does not load: {e}\n{yaml}"));
                    out.push((dep.to_json(), "d.json"));
                    out.push((yaml, "d.yaml"));
                }
            }
        }
        out
    })
}

const TOKENS: &[&str] = &[
    ":",
    "-",
    "[",
    "]",
    "{",
    "}",
    ",",
    "\n",
    "  ",
    "\"",
    "0",
    "-1",
    "4294967296",
    "1e400",
    "null",
    "true",
    "nfs",
    "links",
    "groups",
    "from",
    "to",
    "nf",
    "iface",
    "port",
    "cpus",
    "mode",
    "zero-copy",
    "single-copy",
    "polling",
    "version",
    "\u{0}",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 4_000, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn mutated_deployments_never_panic(
        seed in 0usize..1000,
        muts in proptest::collection::vec(mutation(), 1..6),
    ) {
        let corpus = corpus();
        let (text, name) = &corpus[seed % corpus.len()];
        let text = apply(text, &muts, TOKENS);
        if let Ok(dep) = Deployment::parse(&text, Path::new(name)) {
            let topo = dep.topology().expect("parse checked the topology");
            let _ = dep.chain_order(&topo);
        }
    }

    #[test]
    fn cpus_are_contiguous_runs_along_the_chain(
        seed in 0usize..1000,
        cpus in proptest::collection::btree_set(0u32..64, 1..5),
        weights in proptest::collection::vec(0.0f64..10.0, 8),
        weighted in any::<bool>(),
    ) {
        let corpus = corpus();
        let (text, name) = &corpus[seed % corpus.len()];
        let mut dep = Deployment::parse(text, Path::new(name)).expect("corpus loads");
        let topo = dep.topology().expect("valid");
        let order = dep.chain_order(&topo);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..dep.nfs.len()).collect::<Vec<_>>());
        let offered: Vec<u32> = cpus.into_iter().collect();
        let placed = dep.assign_cpus(&offered, weighted.then_some(&weights[..]));
        prop_assert_eq!(placed.len(), dep.nfs.len());
        // Along the chain, the index of the CPU in the offered list never
        // goes back: each CPU holds one contiguous run; with enough CPUs,
        // every NF has its own.
        let slots: Vec<usize> = order
            .iter()
            .map(|&nf| offered.iter().position(|&c| c == placed[nf]).expect("an offered CPU"))
            .collect();
        prop_assert!(slots.windows(2).all(|w| w[0] <= w[1]), "{:?}", slots);
        if offered.len() >= dep.nfs.len() {
            prop_assert!(slots.windows(2).all(|w| w[0] < w[1]), "{:?}", slots);
        }
        for (nf, spec) in dep.nfs.iter().enumerate() {
            prop_assert_eq!(&spec.cpus, &vec![placed[nf]]);
        }
    }
}
