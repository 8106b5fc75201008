//! `cargo xtask bench smartnic`: Clara's scale-out and colocation models on
//! held-out NFs and groups of the released data, every model on the same
//! split, with the constant baselines. Prints tables, then one JSON line.
//!
//! Usage: smartnic_bench [clara data dir] [colocation] (default ../shared/data/clara
//! beside the repository; `colocation`: the colocation part only).

use nfc_smartnic::colocation::{self, RankerInputs, RankerKind};
use nfc_smartnic::models::ModelKind;
use nfc_smartnic::scale_out::{self, LabelledNf, ScaleOutModel, Suggester, DEFAULT_SEED};
use nfc_smartnic::{clara_data, scale_out::ScaleOutReport};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/clara")
        });
    let seed = DEFAULT_SEED;
    let only_colocation = std::env::args().nth(2).as_deref() == Some("colocation");
    let t = Instant::now();
    let mut nfs = Vec::new();
    for (w, d) in [
        (0.0, "scale_out/dataset_hit"),
        (1.0, "scale_out/dataset_miss"),
    ] {
        for nf in clara_data::load_scale_out(&root.join(d))? {
            nfs.push(LabelledNf {
                name: format!("{d}/{}", nf.id),
                nf,
                workload: w,
            });
        }
    }
    let groups = clara_data::load_colocation(&root.join("nf_colocation/dataset"))?;
    let parse_s = t.elapsed().as_secs_f64();
    println!(
        "parsed {} scale-out NFs and {} colocation groups in {parse_s:.2} s",
        nfs.len(),
        groups.len()
    );

    // Scale-out: split by NF (per workload) 70/15/15; hyper-parameters on validation; refit on train+validation; test.
    let split = scale_out::split_by_nf(&nfs, seed);
    let mut fit_on = split.train.clone();
    fit_on.extend(split.validation.iter().cloned());
    println!(
        "\nscale-out: {} train / {} validation / {} test NFs (hit and miss, split by NF); knee = argmax throughput/latency",
        split.train.len(),
        split.validation.len(),
        split.test.len()
    );
    println!(
        "{:<22} {:>12} {:>12} {:>12} {:>8} {:>8}  params",
        "model", "thr loss", "|thr loss|", "power loss", "exact", "train s"
    );
    let mut rows = Vec::new();
    let mut row = |name: String, r: &ScaleOutReport, secs: f64, params: serde_json::Value| {
        println!(
            "{:<22} {:>12} {:>12} {:>12} {:>8} {:>8.1}  {}",
            name,
            pct(r.mean_throughput_loss),
            pct(r.mean_abs_throughput_loss),
            pct(r.mean_power_loss),
            pct(r.exact),
            secs,
            params
        );
        rows.push(json!({"model": name, "mean_throughput_loss": r.mean_throughput_loss, "mean_abs_throughput_loss": r.mean_abs_throughput_loss,
            "mean_power_loss": r.mean_power_loss, "exact": r.exact, "train_seconds": secs, "params": params,
            "test_hit": scale_out::ScaleOutReport::from_outcomes(r.nfs.iter().zip(&split.test).filter(|(_, n)| n.workload == 0.0).map(|(o, _)| o.clone()).collect()).mean_throughput_loss,
            "test_miss": scale_out::ScaleOutReport::from_outcomes(r.nfs.iter().zip(&split.test).filter(|(_, n)| n.workload == 1.0).map(|(o, _)| o.clone()).collect()).mean_throughput_loss}));
    };
    let workloads: &[bool] = if only_colocation { &[] } else { &[false, true] };
    for &workload_feature in workloads {
        for kind in ModelKind::ALL {
            let t = Instant::now();
            let sel = scale_out::select(
                kind,
                &split.train,
                &split.validation,
                seed,
                workload_feature,
            )?;
            let m = ScaleOutModel::train(kind, sel.params, &fit_on, seed, workload_feature)?;
            let secs = t.elapsed().as_secs_f64();
            let r = scale_out::evaluate(&Suggester::Model(&m), &split.test);
            let name = format!(
                "{}{}",
                kind.name(),
                if workload_feature { "+workload" } else { "" }
            );
            row(name, &r, secs, serde_json::to_value(sel.params)?);
        }
    }
    if !only_colocation {
        let mode = scale_out::most_common_knee(&fit_on);
        row(
            "always max cores".into(),
            &scale_out::evaluate(&Suggester::MaxCores, &split.test),
            0.0,
            json!(null),
        );
        row(
            format!("always {mode} (mode)"),
            &scale_out::evaluate(&Suggester::Constant(mode), &split.test),
            0.0,
            json!(null),
        );
    }

    // Colocation: split by group 70/15/15.
    let (train, validation, test) = colocation::split_groups(&groups, seed);
    let mut fit_groups = train.clone();
    fit_groups.extend(validation.iter().cloned());
    println!(
        "\ncolocation: {} train / {} validation / {} test groups (a group = one feature file, its measured pairs the candidates)",
        train.len(),
        validation.len(),
        test.len()
    );
    let mut coloc = Vec::new();
    let mut default_ranker = None;
    for kind in RankerKind::ALL {
        let t = Instant::now();
        let (params, val) = colocation::select(kind, &train, &validation, seed)?;
        let r = colocation::Ranker::train(kind, params, &fit_groups, seed)?;
        let secs = t.elapsed().as_secs_f64();
        let rep = colocation::evaluate(&r, &test);
        // The default kind is chosen by 5-fold CV over train + validation (never test).
        let cv = colocation::cross_validate(kind, params, &fit_groups, 5, seed)?;
        println!(
            "{:<10} top-1 {:>7} top-3 {:>7} (validation {} / {}; 5-fold CV on train+validation {} / {}) {:.1} s {:?}",
            format!("{kind:?}"),
            pct(rep.top1),
            pct(rep.top3),
            pct(val.top1),
            pct(val.top3),
            pct(cv.top1),
            pct(cv.top3),
            secs,
            params
        );
        coloc.push(json!({"ranker": kind, "groups": rep.groups, "top1": rep.top1, "top3": rep.top3, "params": params, "train_seconds": secs, "validation": val, "cv_train_validation": cv}));
        if kind == colocation::DEFAULT_KIND {
            default_ranker = Some(r);
        }
    }
    // The ranker the agilio plan applies to chain NFs: decomposed, on the
    // profile proxies alone (what a chain NF's measures give), same split,
    // hyper-parameters on the validation fold, same held-out groups.
    {
        let kind = RankerKind::Decomposed;
        let inputs = RankerInputs::Profile;
        let t = Instant::now();
        let (params, val) = colocation::select_with(kind, inputs, &train, &validation, seed)?;
        let r = colocation::Ranker::train_with(kind, inputs, params, &fit_groups, seed)?;
        let secs = t.elapsed().as_secs_f64();
        let rep = colocation::evaluate(&r, &test);
        let cv = colocation::cross_validate_with(kind, inputs, params, &fit_groups, 5, seed)?;
        println!(
            "{:<10} top-1 {:>7} top-3 {:>7} (validation {} / {}; 5-fold CV on train+validation {} / {}) {:.1} s {:?}  [profile inputs only: {}]",
            "Decomposed",
            pct(rep.top1),
            pct(rep.top3),
            pct(val.top1),
            pct(val.top3),
            pct(cv.top1),
            pct(cv.top3),
            secs,
            params,
            colocation::PROFILE_INPUTS.join(", ")
        );
        coloc.push(json!({"ranker": kind, "inputs": inputs, "groups": rep.groups, "top1": rep.top1, "top3": rep.top3, "params": params, "train_seconds": secs, "validation": val, "cv_train_validation": cv}));
    }
    // Measurement noise: estimated from the scale-out curves (the data repeats
    // no measurement), and what it alone does to top-1 on the test groups.
    let all_scale_out: Vec<clara_data::ScaleOutNf> = nfs.iter().map(|n| n.nf.clone()).collect();
    let mut noise_json = json!(null);
    if let Some(noise) = colocation::noise_from_scale_out(&all_scale_out) {
        println!(
            "throughput noise (3rd differences of {} scale-out windows, an upper bound): sigma {} (MAD), {} (RMS)",
            noise.windows,
            pct(noise.sigma),
            pct(noise.sigma_rms)
        );
        let mut oracles = Vec::new();
        for (what, sigma) in [
            ("sigma/2", noise.sigma / 2.0),
            ("sigma (MAD)", noise.sigma),
            ("sigma (RMS)", noise.sigma_rms),
            ("2 sigma", 2.0 * noise.sigma),
        ] {
            let o = colocation::noisy_oracle(&test, sigma, 2000, seed);
            println!(
                "  oracle knowing the truth up to {what} = {}: top-1 {} top-3 {}; test groups whose top two differ by < the noise of their difference: {}",
                pct(sigma),
                pct(o.oracle.top1),
                pct(o.oracle.top3),
                pct(o.near_tie_share)
            );
            // The default ranker on the near-tie test groups and on the others.
            let split_rep = default_ranker.as_ref().map(|r| {
                let (near, clear): (Vec<_>, Vec<_>) = test
                    .iter()
                    .cloned()
                    .partition(|g| o.near_tie_groups.contains(&g.id));
                let (a, b) = (
                    colocation::evaluate(r, &near),
                    colocation::evaluate(r, &clear),
                );
                println!(
                    "    default ranker: top-1 {} on those {} near-tie groups, {} on the other {}",
                    pct(a.top1),
                    a.groups,
                    pct(b.top1),
                    b.groups
                );
                json!({"near_ties": a, "others": b})
            });
            oracles.push(json!({"what": what, "result": o, "default_ranker": split_rep}));
        }
        noise_json = json!({"estimate": noise, "oracles_on_test": oracles});
    }
    let margins = colocation::top_margins(&test);
    let share =
        |t: f64| margins.iter().filter(|&&m| m < t).count() as f64 / margins.len().max(1) as f64;
    println!(
        "test groups whose best pair beats the second by < 1%: {}, < 2%: {} (one measurement each: near-ties)",
        pct(share(0.01)),
        pct(share(0.02))
    );
    let random = colocation::random_baseline(&test);
    println!(
        "{:<10} top-1 {:>7} top-3 {:>7} (expected)",
        "random",
        pct(random.top1),
        pct(random.top3)
    );
    coloc.push(json!({"ranker": "random", "groups": random.groups, "top1": random.top1, "top3": random.top3}));
    println!(
        "{}",
        json!({"seed": seed, "scale_out": {"train": split.train.len(), "validation": split.validation.len(), "test": split.test.len(), "models": rows}, "colocation": coloc, "colocation_noise": noise_json})
    );
    Ok(())
}
