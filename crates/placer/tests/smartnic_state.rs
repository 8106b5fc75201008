//! SmartNIC state placement: the ILP's optimum equals exhaustive search on
//! random instances and on every example chain's state objects.

use nfc_core::chain::{parse_chain_file, NfSource};
use nfc_core::facts::Facts;
use nfc_placer::smartnic::{
    levels_with_overrides, nfp4000_levels, place_state_branch_and_bound, place_state_exhaustive,
    place_state_ilp, state_items, FrequencySource, MemoryLevel, StateItem,
};
use nfc_placer::PlaceError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn same_optimum(items: &[StateItem], levels: &[MemoryLevel]) -> Result<f64, String> {
    let ilp = place_state_ilp(items, levels);
    let ex = place_state_exhaustive(items, levels);
    // Branch and bound (the oracle for instances too large to enumerate)
    // must agree with plain enumeration too.
    let bb = place_state_branch_and_bound(items, levels, 1 << 24);
    match (&bb, &ex) {
        (Ok(a), Ok(b)) if (a.cost - b.cost).abs() <= 1e-9 * b.cost.abs().max(1.0) => {}
        (Err(PlaceError::StateInfeasible), Err(PlaceError::StateInfeasible))
        | (Err(PlaceError::StateDoesNotFit { .. }), Err(PlaceError::StateDoesNotFit { .. })) => {}
        _ => {
            return Err(format!(
                "branch and bound {bb:?} vs exhaustive {ex:?} on {items:?} / {levels:?}"
            ))
        }
    }
    match (ilp, ex) {
        (Ok(a), Ok(b)) => {
            let tol = 1e-9 * b.cost.abs().max(1.0);
            if (a.cost - b.cost).abs() > tol {
                return Err(format!(
                    "ILP {} vs exhaustive {} on {items:?} / {levels:?}",
                    a.cost, b.cost
                ));
            }
            Ok(a.cost)
        }
        (Err(PlaceError::StateInfeasible), Err(PlaceError::StateInfeasible)) => Ok(f64::NAN),
        (Err(PlaceError::StateDoesNotFit { .. }), Err(PlaceError::StateDoesNotFit { .. })) => {
            Ok(f64::NAN)
        }
        (a, b) => Err(format!(
            "ILP {a:?} vs exhaustive {b:?} on {items:?} / {levels:?}"
        )),
    }
}

#[test]
fn ilp_equals_exhaustive_search_on_random_instances() {
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    let (mut feasible, mut infeasible, mut contended) = (0, 0, 0);
    for case in 0..400 {
        let t = rng.gen_range(1..=4);
        let levels: Vec<MemoryLevel> = (0..t)
            .map(|j| MemoryLevel {
                name: format!("l{j}"),
                capacity: rng.gen_range(0..=400),
                // Latencies often equal, so ties are common.
                latency: f64::from(rng.gen_range(1..=6u32)) * 10.0,
            })
            .collect();
        let k = rng.gen_range(0..=7);
        let items: Vec<StateItem> = (0..k)
            .map(|i| StateItem {
                nf: format!("nf{}", i % 3),
                object: format!("o{i}"),
                size: if rng.gen_bool(0.1) {
                    None
                } else {
                    Some(rng.gen_range(0..=200))
                },
                frequency: f64::from(rng.gen_range(0..=8u32)) / 2.0,
                frequency_source: FrequencySource::Measured,
            })
            .collect();
        let cost = same_optimum(&items, &levels).unwrap_or_else(|e| panic!("case {case}: {e}"));
        if cost.is_nan() {
            infeasible += 1;
        } else {
            feasible += 1;
            // Contended: the fastest level cannot hold everything that fits it alone.
            let fastest = (0..t)
                .min_by(|&a, &b| levels[a].latency.total_cmp(&levels[b].latency))
                .unwrap();
            let want: u64 = items
                .iter()
                .filter_map(|i| i.size)
                .filter(|&s| s <= levels[fastest].capacity)
                .sum();
            contended += usize::from(want > levels[fastest].capacity);
        }
    }
    eprintln!("{feasible} feasible ({contended} contended), {infeasible} infeasible");
    // The generator must exercise all three regimes, or the test proves little.
    assert!(feasible >= 200, "{feasible} feasible");
    assert!(infeasible >= 10, "{infeasible} infeasible");
    assert!(contended >= 50, "{contended} contended");
}

fn example_facts(chain: &std::path::Path) -> (Vec<Facts>, nfc_core::chain::ChainSpec) {
    let names: Vec<String> = nfc_nfs::catalog().into_iter().map(|n| n.name).collect();
    let (spec, diags) = parse_chain_file(chain, &names);
    let spec = spec.unwrap_or_else(|| panic!("{}: {diags:?}", chain.display()));
    let facts = spec
        .nfs
        .iter()
        .filter_map(|nf| match &nf.source {
            NfSource::Builtin { name } => {
                let b = nfc_nfs::builtin(name).unwrap();
                let mut f = nfc_nfs::load_facts(&b.facts_path).unwrap();
                f.nf = nf.id.to_string();
                Some(f)
            }
            _ => None,
        })
        .collect();
    (facts, spec)
}

#[test]
fn ilp_equals_exhaustive_search_on_every_example_chain() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut chains = 0;
    let mut objects = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        chains += 1;
        let (facts, spec) = example_facts(&path);
        let overrides = spec
            .resources
            .smartnic
            .as_ref()
            .map(|s| s.memory.clone())
            .unwrap_or_default();
        let mut items = state_items(&facts);
        objects += items.len();
        assert!(items
            .iter()
            .all(|i| i.frequency_source == FrequencySource::Proxy));
        same_optimum(&items, &levels_with_overrides(&overrides)).unwrap();
        // Also under contention: capacities shrunk to a fraction of the known sizes,
        // and distinct frequencies so the order of objects matters.
        let total: u64 = items.iter().filter_map(|i| i.size).sum();
        for (n, item) in items.iter_mut().enumerate() {
            item.frequency = 1.0 + n as f64;
        }
        let mut levels = nfp4000_levels();
        for (j, l) in levels.iter_mut().enumerate() {
            if j + 1 < 4 {
                l.capacity = total * (j as u64 + 1) / 4;
            }
        }
        same_optimum(&items, &levels).unwrap();
    }
    eprintln!("{chains} example chains, {objects} state objects");
    assert!(
        chains >= 4 && objects > 0,
        "{chains} chains, {objects} objects"
    );
}
