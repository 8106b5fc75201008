//! Scratch driver: the scale-out and colocation experiments on the shared data.
use nfc_smartnic::{clara_data, colocation, models::ModelKind, scale_out::*};
use std::path::Path;

fn main() {
    let root = Path::new(&std::env::args().nth(1).unwrap()).to_path_buf();
    let seed = 20;
    let t = std::time::Instant::now();
    let mut nfs = Vec::new();
    for (w, d) in [
        (0.0, "scale_out/dataset_hit"),
        (1.0, "scale_out/dataset_miss"),
    ] {
        for nf in clara_data::load_scale_out(&root.join(d)).unwrap() {
            nfs.push(LabelledNf {
                name: format!("{d}/{}", nf.id),
                nf,
                workload: w,
            });
        }
    }
    eprintln!("parsed {} in {:?}", nfs.len(), t.elapsed());
    let only_coloc = std::env::args().nth(2).as_deref() == Some("coloc");
    let split = split_by_nf(&nfs, seed);
    let mut trval = split.train.clone();
    trval.extend(split.validation.iter().cloned());
    for wf in if only_coloc {
        vec![]
    } else {
        vec![true, false]
    } {
        for kind in ModelKind::ALL {
            let t = std::time::Instant::now();
            let sel = select(kind, &split.train, &split.validation, seed, wf).unwrap();
            let m = ScaleOutModel::train(kind, sel.params, &trval, seed, wf).unwrap();
            let r = evaluate(&Suggester::Model(&m), &split.test);
            println!("wf={wf} {:?} {:?} val_power={:.4} test: thr={:.4} abs={:.4} power={:.4} exact={:.3} ({:?})", kind, sel.params, sel.validation_power_loss, r.mean_throughput_loss, r.mean_abs_throughput_loss, r.mean_power_loss, r.exact, t.elapsed());
        }
    }
    for (name, s) in [
        ("max", Suggester::MaxCores),
        ("mode", Suggester::Constant(most_common_knee(&trval))),
    ] {
        let r = evaluate(&s, &split.test);
        println!(
            "{name}: thr={:.4} abs={:.4} power={:.4} exact={:.3}",
            r.mean_throughput_loss, r.mean_abs_throughput_loss, r.mean_power_loss, r.exact
        );
    }
    let groups = clara_data::load_colocation(&root.join("nf_colocation/dataset")).unwrap();
    let (tr, va, te) = colocation::split_groups(&groups, seed);
    let mut trva = tr.clone();
    trva.extend(va.iter().cloned());
    for kind in [
        colocation::RankerKind::Pairwise,
        colocation::RankerKind::Pointwise,
    ] {
        let t = std::time::Instant::now();
        let (p, v) = colocation::select(kind, &tr, &va, seed).unwrap();
        let r = colocation::Ranker::train(kind, p, &trva, seed).unwrap();
        println!(
            "{kind:?} {p:?} val={v:?} test={:?} ({:?})",
            colocation::evaluate(&r, &te),
            t.elapsed()
        );
    }
    println!("random test={:?}", colocation::random_baseline(&te));
}
