//! Solve time of the placer (issue 5's target: under 100 ms for a 16-NF
//! chain), measured on random 16-NF chains from the tests' random chain
//! generator and on both FlowMage chains (`examples/flowmage-{2,3}nf.yaml`,
//! with the NFs' labelled facts and the chain's own synthetic traffic as the
//! profile). Per case: the ILP alone (`solve_ilp` on a built model), the full
//! placement (`place`: model, candidate keys and traffic hashing, ILP,
//! tie-break, semantics check), and the brute-force oracle on the same model
//! for comparison; the ILP's cost is checked against brute force each time.
//!
//! Output: a table on stderr, and one JSON document as the last line of
//! stdout (read by `cargo xtask bench`). Wall times are medians over
//! repetitions, CPU times (whole process, `getrusage`) means, in
//! milliseconds; the 1-minute load average when the bench started is
//! printed too (the VM is shared: read wall times against it and the CPU
//! times, which other processes do not inflate).

#[path = "../tests/support/mod.rs"]
mod support;

use nfc_core::chain::{parse_chain_file, ChainSpec, NfSource, Resources, Traffic};
use nfc_core::facts::Facts;
use nfc_placer::solve::{solve_brute_force, solve_ilp};
use nfc_placer::{build_problem, place, PacketHeader, PlaceOptions, TrafficProfile};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Random 16-NF chains timed.
const RANDOM_CHAINS: u64 = 8;
/// Repetitions per measurement (the median is reported).
const REPS: usize = 15;

struct Case {
    name: String,
    nfs: Vec<(String, Facts)>,
    resources: Resources,
    traffic: TrafficProfile,
}

/// CPU time of the whole process (all threads, user + system), in ms.
fn process_cpu_ms() -> f64 {
    // SAFETY: an all-zero rusage is valid for getrusage to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: ru is a valid rusage to write into.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return f64::NAN;
    }
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    ms(ru.ru_utime) + ms(ru.ru_stime)
}

/// Timings of `reps` calls of `f` (after one warm-up call), in ms.
struct Timing {
    /// Median wall time.
    wall: f64,
    /// Slowest wall time.
    max: f64,
    /// Mean process CPU time per call (not inflated by other processes
    /// taking the cores, unlike wall time).
    cpu: f64,
}

fn time_ms(reps: usize, mut f: impl FnMut()) -> Timing {
    f();
    let cpu0 = process_cpu_ms();
    let mut v: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let cpu = (process_cpu_ms() - cpu0) / reps as f64;
    v.sort_by(|a, b| a.total_cmp(b));
    Timing {
        wall: v[v.len() / 2],
        max: v[v.len() - 1],
        cpu,
    }
}

/// The traffic profile the driver builds for a chain: the header tuples of
/// its synthetic trace (same generator as `nfc trace gen`).
fn chain_traffic(spec: &ChainSpec) -> TrafficProfile {
    let Traffic::Synthetic(t) = &spec.traffic else {
        return TrafficProfile::new();
    };
    let packets = flash_rt::trace::generate_packets(t)
        .expect("the example's traffic spec is valid")
        .0;
    TrafficProfile::from_packets(packets.iter().map(|p| PacketHeader::from_frame(p.data)))
}

/// A FlowMage example chain with the built-in NFs' labelled facts.
fn flowmage_case(file: &str) -> Case {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(file);
    let names: Vec<String> = nfc_nfs::catalog().into_iter().map(|n| n.name).collect();
    let (spec, diags) = parse_chain_file(&path, &names);
    let spec = spec.unwrap_or_else(|| panic!("{}: {diags:?}", path.display()));
    let nfs = spec
        .nfs
        .iter()
        .map(|inst| {
            let NfSource::Builtin { name } = &inst.source else {
                panic!("{}: NF `{}` is not a built-in", file, inst.id.0)
            };
            let nf = nfc_nfs::builtin(name).expect("built-in NF");
            let mut facts = nfc_nfs::load_facts(&nf.facts_path).expect("labelled facts");
            facts.nf = inst.id.0.clone();
            (inst.id.0.clone(), facts)
        })
        .collect();
    Case {
        name: spec.name.clone(),
        nfs,
        resources: spec.resources.clone(),
        traffic: chain_traffic(&spec),
    }
}

fn main() {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .and_then(|s| s.parse::<f64>().ok());
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut cases: Vec<Case> = (0..RANDOM_CHAINS)
        .map(|i| Case {
            name: format!("random16-{i}"),
            nfs: support::random_chain(&mut rng, 16),
            resources: Resources {
                cores: 16,
                ..Resources::default()
            },
            traffic: support::diverse_traffic(10_000, i),
        })
        .collect();
    cases.push(flowmage_case("flowmage-2nf.yaml"));
    cases.push(flowmage_case("flowmage-3nf.yaml"));

    let opts = PlaceOptions::default();
    let mut rows = vec![];
    eprintln!(
        "\nplacer solve time (median of {REPS}, ms; load average {})",
        load.map_or("?".into(), |l| format!("{l:.2}"))
    );
    eprintln!(
        "  {:16} {:>4} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6}",
        "chain",
        "NFs",
        "stateful",
        "choices",
        "ilp",
        "ilp cpu",
        "place",
        "place cpu",
        "place max",
        "brute",
        "agree"
    );
    for case in &cases {
        let model = build_problem(&case.nfs, &case.resources, &case.traffic, &opts)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let ilp = solve_ilp(&model.problem).expect("ILP solves");
        let brute = solve_brute_force(&model.problem).expect("brute force solves");
        let agree = (ilp.cost - brute.cost).abs() <= 1e-6 * brute.cost.max(1.0)
            && ilp.choice == brute.choice
            && ilp.shared_nothing == brute.shared_nothing;
        let ilp_t = time_ms(REPS, || {
            solve_ilp(&model.problem).expect("ILP solves");
        });
        let place_t = time_ms(REPS, || {
            place(&case.nfs, &case.resources, &case.traffic, &opts).expect("placement");
        });
        let brute_t = time_ms(REPS.min(5), || {
            solve_brute_force(&model.problem).expect("brute force solves");
        });
        let stateful = model.problem.nfs.len();
        let choices = model.problem.choices.len();
        eprintln!(
            "  {:16} {:>4} {:>8} {:>7} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.3} {:>6}",
            case.name,
            case.nfs.len(),
            stateful,
            choices,
            ilp_t.wall,
            ilp_t.cpu,
            place_t.wall,
            place_t.cpu,
            place_t.max,
            brute_t.wall,
            agree
        );
        rows.push(json!({
            "chain": case.name,
            "nfs": case.nfs.len(),
            "stateful": stateful,
            "choices": choices,
            "traffic_records": case.traffic.records.len(),
            "ilp_ms": ilp_t.wall,
            "ilp_cpu_ms": ilp_t.cpu,
            "place_ms": place_t.wall,
            "place_cpu_ms": place_t.cpu,
            "place_max_ms": place_t.max,
            "brute_force_ms": brute_t.wall,
            "ilp_equals_brute_force": agree,
        }));
    }
    let random: Vec<f64> = rows
        .iter()
        .filter(|r| r["nfs"] == 16)
        .map(|r| r["place_ms"].as_f64().unwrap_or(f64::NAN))
        .collect();
    let worst16 = random.iter().copied().fold(0.0, f64::max);
    eprintln!("  worst median full placement of a 16-NF chain: {worst16:.2} ms (target < 100 ms)");
    let smartnic = smartnic_state_rows();
    println!(
        "{}",
        json!({
            "reps": REPS,
            "load_average_1m": load,
            "target_ms": 100.0,
            "worst_16nf_place_ms": worst16,
            "all_agree": rows.iter().all(|r| r["ilp_equals_brute_force"] == true),
            "cases": rows,
            "smartnic_state": smartnic,
        })
    );
}

/// SmartNIC state placement (Clara §4.3) per example chain: the state objects
/// of the built-in NFs' labelled facts, NFP-4000 defaults with the chain's
/// overrides, the ILP vs exhaustive search (time and optimum).
fn smartnic_state_rows() -> Vec<serde_json::Value> {
    use nfc_placer::smartnic::{
        levels_with_overrides, place_state_exhaustive, place_state_ilp, state_items,
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let names: Vec<String> = nfc_nfs::catalog().into_iter().map(|n| n.name).collect();
    eprintln!("\nSmartNIC state placement (median of {REPS}, ms; access frequencies: the one-per-packet proxy)");
    eprintln!(
        "  {:16} {:>7} {:>9} {:>11} {:>6} {:>10}",
        "chain", "objects", "ilp", "exhaustive", "agree", "cost"
    );
    let mut rows = vec![];
    for path in files {
        let (spec, diags) = parse_chain_file(&path, &names);
        let spec = spec.unwrap_or_else(|| panic!("{}: {diags:?}", path.display()));
        let facts: Vec<Facts> = spec
            .nfs
            .iter()
            .filter_map(|inst| match &inst.source {
                NfSource::Builtin { name } => {
                    let mut f = nfc_nfs::load_facts(&nfc_nfs::builtin(name)?.facts_path).ok()?;
                    f.nf = inst.id.0.clone();
                    Some(f)
                }
                _ => None,
            })
            .collect();
        let levels = levels_with_overrides(
            &spec
                .resources
                .smartnic
                .as_ref()
                .map(|s| s.memory.clone())
                .unwrap_or_default(),
        );
        let items = state_items(&facts);
        let ilp = place_state_ilp(&items, &levels).expect("state placement");
        let ex = place_state_exhaustive(&items, &levels).expect("exhaustive state placement");
        let agree = (ilp.cost - ex.cost).abs() <= 1e-9 * ex.cost.max(1.0);
        let ilp_t = time_ms(REPS, || {
            place_state_ilp(&items, &levels).expect("state placement");
        });
        let ex_t = time_ms(REPS, || {
            place_state_exhaustive(&items, &levels).expect("exhaustive");
        });
        eprintln!(
            "  {:16} {:>7} {:>9.3} {:>11.3} {:>6} {:>10.1}",
            spec.name,
            items.len(),
            ilp_t.wall,
            ex_t.wall,
            agree,
            ilp.cost
        );
        rows.push(json!({"chain": spec.name, "objects": items.len(), "ilp_ms": ilp_t.wall, "ilp_cpu_ms": ilp_t.cpu,
            "exhaustive_ms": ex_t.wall, "ilp_equals_exhaustive": agree, "cost_cycles_per_packet": ilp.cost}));
    }
    rows
}
