//! The agilio target's measured inputs on every example chain: each NF is
//! profiled instrumented over the head of the chain's traffic, the state
//! ILP on the measured frequencies equals the exact branch-and-bound optimum
//! (too many objects to enumerate plainly), and the frequencies are real
//! counts (per-flow tables are touched on the packet path, init-only globals
//! are not placed).

use nfc::driver::Workspace;
use nfc::emit::agilio_profile::{measure, measured_items};
use nfc_core::chain::parse_chain_file;
use nfc_placer::smartnic::{
    levels_with_overrides, place_state_branch_and_bound, place_state_ilp, FrequencySource,
};
use std::time::Instant;

#[test]
fn measured_placement_equals_branch_and_bound_on_every_example_chain() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let names: Vec<String> = nfc_nfs::catalog().into_iter().map(|n| n.name).collect();
    let ws_dir = tempfile::tempdir().unwrap();
    let ws = Workspace::new(ws_dir.path());
    let mut chains = 0;
    let mut objects = 0;
    let mut entries: Vec<_> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    entries.sort();
    for path in entries {
        let (spec, diags) = parse_chain_file(&path, &names);
        let spec = spec.unwrap_or_else(|| panic!("{}: {diags:?}", path.display()));
        let (profile, d) = measure(&spec, &ws, 2000).unwrap();
        assert!(d.is_empty(), "{}: {d:?}", path.display());
        assert_eq!(profile.packets, 2000);
        let mut items = vec![];
        for nf in &spec.nfs {
            let p = profile
                .of(&nf.id.0)
                .unwrap_or_else(|| panic!("{}: {:?}", nf.id, profile.nfs.get(&nf.id.0)));
            assert!(p.instructions_per_packet > 0.0, "{}", nf.id);
            items.extend(measured_items(p, profile.packets));
        }
        assert!(items
            .iter()
            .all(|i| i.frequency_source == FrequencySource::Measured));
        let levels = levels_with_overrides(
            &spec
                .resources
                .smartnic
                .as_ref()
                .map(|s| s.memory.clone())
                .unwrap_or_default(),
        );
        let t = Instant::now();
        let ilp = place_state_ilp(&items, &levels).unwrap();
        let ilp_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let bb = place_state_branch_and_bound(&items, &levels, 1 << 26).unwrap();
        let bb_ms = t.elapsed().as_secs_f64() * 1e3;
        assert!(
            (ilp.cost - bb.cost).abs() <= 1e-9 * bb.cost.max(1.0),
            "{}: ILP {} vs branch and bound {}",
            path.display(),
            ilp.cost,
            bb.cost
        );
        eprintln!(
            "{}: {} objects, cost {:.1} cycles/packet, ILP {ilp_ms:.2} ms, branch and bound {bb_ms:.2} ms",
            spec.name,
            items.len(),
            ilp.cost
        );
        chains += 1;
        objects += items.len();
    }
    assert!(
        chains >= 4 && objects >= 10,
        "{chains} chains, {objects} objects"
    );
}

#[test]
fn flowmage_counts_are_what_the_nfs_do() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let names: Vec<String> = nfc_nfs::catalog().into_iter().map(|n| n.name).collect();
    let (spec, _) = parse_chain_file(&root.join("examples/flowmage-3nf.yaml"), &names);
    let spec = spec.unwrap();
    let ws_dir = tempfile::tempdir().unwrap();
    let (profile, _) = measure(&spec, &Workspace::new(ws_dir.path()), 2000).unwrap();
    let psd = profile.of("psd").unwrap();
    let obj = |p: &nfc_reducer::access_profile::AccessProfile, n: &str| {
        p.objects
            .iter()
            .find(|o| o.name == n)
            .unwrap_or_else(|| panic!("{n}: {:?}", p.objects))
            .clone()
    };
    // The traffic is all TCP/UDP over IPv4: every packet walks its source's
    // bucket chain (heads) and updates its host node (hosts).
    assert!(obj(psd, "heads").loads_per_packet >= 1.0);
    assert!(obj(psd, "hosts").stores_per_packet >= 2.0);
    // The window is read per packet; the action only when flagged.
    assert!(obj(psd, "g_window_ns").loads_per_packet >= 1.0);
    // The policer sees what the detector forwarded, and the counter what the policer forwarded.
    let pol = profile.of("policer").unwrap();
    assert_eq!(pol.packets, psd.forwarded);
    assert_eq!(profile.of("counter").unwrap().packets, pol.forwarded);
    assert!(obj(pol, "buckets").loads_per_packet >= 1.0);
    assert!(obj(pol, "policer_rate_Bps").loads_per_packet > 0.0);
}
