//! The learned models the agilio plan applies to a chain's NFs, trained once
//! per workspace and cached under `.nfc/models/` (keyed by a hash of their
//! training inputs):
//!
//! - the scale-out model (Clara §4.2, [`nfc_smartnic::scale_out`]) on Clara's
//!   released measurements, with the fixed hyper-parameters the validation
//!   fold chose (docs/smartnic.md), and the training programs its profile
//!   neighbours come from;
//! - the colocation ranker (Clara §4.5, [`nfc_smartnic::colocation`]) on
//!   profile inputs only (what a chain NF's measures give), with the fixed
//!   hyper-parameters the validation fold chose (docs/smartnic.md);
//! - the accelerator classifier ([`nfc_smartnic::accel`], trained as
//!   `cargo xtask bench insight` trains it, [`crate::insight::train_accel_model`]),
//!   applied to every function of each NF lowered by `insight_ir`.
//!
//! A model that cannot be had (no Clara data, a corpus that does not lower)
//! is an `Err` with the reason, which the plan reports as `unknown`.

use crate::driver::Workspace;
use nfc_core::chain::{Framework, NfInstance};
use nfc_smartnic::accel::{AccelKind, AccelModel};
use nfc_smartnic::clara_data::{self, Program};
use nfc_smartnic::colocation::{Ranker, RankerInputs, RankerKind, PROFILE_INPUTS};
use nfc_smartnic::models::{ModelKind, Params};
use nfc_smartnic::scale_out::{LabelledNf, ScaleOutModel, DEFAULT_SEED};
use serde::{de::DeserializeOwned, Serialize};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Clara's data directory: `explicit`, else `$NFC_CLARA_DATA`, else
/// `../shared/data/clara` beside the repository. `Err` when it is not a directory.
pub fn clara_root(explicit: Option<&Path>) -> Result<PathBuf, String> {
    let root = match explicit {
        Some(p) => p.to_path_buf(),
        None => match std::env::var_os("NFC_CLARA_DATA") {
            Some(p) => PathBuf::from(p),
            None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/clara"),
        },
    };
    if root.is_dir() {
        Ok(root)
    } else {
        Err(format!(
            "Clara's training data is not at {}",
            root.display()
        ))
    }
}

/// The scale-out model's hyper-parameters for chain NFs: the ones the
/// validation fold chose in `cargo xtask bench smartnic` (docs/smartnic.md).
pub const SCALE_OUT_PARAMS: Params = Params::Gbdt {
    iterations: 300,
    max_depth: 7,
    learning_rate: 0.05,
};

/// A hash of every file directly in `dirs` (name, size and content), in name order.
fn hash_files(dirs: &[PathBuf], salt: &str) -> Result<u64, String> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    salt.hash(&mut h);
    for d in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(d)
            .map_err(|e| format!("reading {}: {e}", d.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for f in files {
            f.file_name().hash(&mut h);
            std::fs::read(&f)
                .map_err(|e| format!("reading {}: {e}", f.display()))?
                .hash(&mut h);
        }
    }
    Ok(h.finish())
}

/// `train()` once per `key`, kept as JSON in `.nfc/models/<name>-<key>.json`;
/// a cached model that does not parse or that `current` rejects (written by
/// an nfc with other features) is trained again.
fn cached<T: Serialize + DeserializeOwned>(
    ws: &Workspace,
    name: &str,
    key: u64,
    current: impl Fn(&T) -> bool,
    train: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    let dir = ws.dir.join("models");
    let path = dir.join(format!("{name}-{key:016x}.json"));
    if let Ok(s) = std::fs::read_to_string(&path) {
        if let Ok(m) = serde_json::from_str::<T>(&s) {
            if current(&m) {
                return Ok(m);
            }
        }
    }
    let m = train()?;
    // A cache that cannot be written only costs the next build the training.
    if std::fs::create_dir_all(&dir).is_ok() {
        if let Ok(s) = serde_json::to_string(&m) {
            let tmp = dir.join(format!("{name}-{key:016x}.{}.tmp", std::process::id()));
            if std::fs::write(&tmp, s).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
        }
    }
    Ok(m)
}

/// The scale-out model for chain NFs, its training programs and the core
/// counts it was trained on.
pub struct ScaleOut {
    pub model: ScaleOutModel,
    pub programs: Vec<Program>,
    pub cores: Vec<u32>,
    pub data: PathBuf,
}

pub fn scale_out(ws: &Workspace) -> Result<ScaleOut, String> {
    let root = clara_root(None)?;
    let mut nfs = Vec::new();
    for (workload, dir) in [
        (0.0, "scale_out/dataset_hit"),
        (1.0, "scale_out/dataset_miss"),
    ] {
        for nf in clara_data::load_scale_out(&root.join(dir)).map_err(|e| e.to_string())? {
            nfs.push(LabelledNf {
                name: format!("{dir}/{}", nf.id),
                nf,
                workload,
            });
        }
    }
    let key = hash_files(
        &[
            root.join("scale_out/dataset_hit"),
            root.join("scale_out/dataset_miss"),
        ],
        &format!("scale-out {SCALE_OUT_PARAMS:?} {DEFAULT_SEED}"),
    )?;
    let current = |m: &ScaleOutModel| {
        m.format == nfc_smartnic::scale_out::MODEL_FORMAT
            && nfs.first().is_some_and(|n| m.accepts(&n.nf.program))
            && m.features
                == nfc_smartnic::features::scale_out_feature_names(
                    nfs[0].nf.program.choices.len(),
                    nfs[0].nf.program.configs.len(),
                )
    };
    let model = cached(ws, "scale-out", key, current, || {
        ScaleOutModel::train(ModelKind::Gbdt, SCALE_OUT_PARAMS, &nfs, DEFAULT_SEED, false)
            .map_err(|e| e.to_string())
    })?;
    let mut cores: Vec<u32> = nfs
        .iter()
        .flat_map(|n| n.nf.curve.keys().copied())
        .collect();
    cores.sort_unstable();
    cores.dedup();
    // Core counts most NFs were measured at (a few were measured further).
    cores.retain(|c| nfs.iter().filter(|n| n.nf.curve.contains_key(c)).count() * 2 >= nfs.len());
    Ok(ScaleOut {
        model,
        programs: nfs.into_iter().map(|n| n.nf.program).collect(),
        cores,
        data: root,
    })
}

/// The colocation ranker's hyper-parameters for chain NFs: the ones the
/// validation fold chose for the decomposed ranker on profile inputs in
/// `cargo xtask bench smartnic` (docs/smartnic.md).
pub const COLOCATION_PARAMS: Params = Params::Gbdt {
    iterations: 200,
    max_depth: 4,
    learning_rate: 0.05,
};

/// The colocation ranker for chain NFs: decomposed, on profile inputs
/// ([`nfc_smartnic::colocation::PROFILE_INPUTS`]), trained on all of Clara's
/// colocation groups.
pub fn colocation(ws: &Workspace) -> Result<Ranker, String> {
    let root = clara_root(None)?;
    let dir = root.join("nf_colocation/dataset");
    let key = hash_files(
        std::slice::from_ref(&dir),
        &format!("colocation profile {COLOCATION_PARAMS:?} {DEFAULT_SEED}"),
    )?;
    let current = |r: &Ranker| {
        r.format == nfc_smartnic::colocation::MODEL_FORMAT
            && r.kind == RankerKind::Decomposed
            && r.inputs == RankerInputs::Profile
            && r.params == COLOCATION_PARAMS
            && r.features.len() == 2 * PROFILE_INPUTS.len()
            && r.features.iter().zip(PROFILE_INPUTS).all(|(a, b)| a == b)
    };
    cached(ws, "colocation", key, current, || {
        let groups = clara_data::load_colocation(&dir).map_err(|e| e.to_string())?;
        Ranker::train_with(
            RankerKind::Decomposed,
            RankerInputs::Profile,
            COLOCATION_PARAMS,
            &groups,
            DEFAULT_SEED,
        )
        .map_err(|e| e.to_string())
    })
}

/// The accelerator classifier, trained as the insight bench trains it.
pub fn accel(ws: &Workspace) -> Result<AccelModel, String> {
    let root = crate::insight::accel_corpus_dir();
    let mut dirs = vec![root.join("real/shim")];
    for class in ["crc", "lpm", "none"] {
        dirs.push(root.join(class));
    }
    let key = hash_files(&dirs, "accel negatives 80, seed 19, 5-fold CV")?;
    let current = |m: &AccelModel| m.check().is_ok();
    cached(ws, "accel", key, current, || {
        let c = crate::insight::accel_corpus(None);
        if !c.failures.is_empty() {
            return Err(format!(
                "the accelerator corpus did not lower: {}",
                c.failures.join("; ")
            ));
        }
        let negatives = crate::insight::accel_negatives(80);
        if !negatives.failures.is_empty() {
            return Err(format!(
                "the synthesised negatives did not lower: {}",
                negatives.failures.join("; ")
            ));
        }
        Ok(crate::insight::train_accel_model(&c, &negatives))
    })
}

/// A function of an NF the accelerator classifier flags.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccelFinding {
    pub function: String,
    pub file: String,
    pub kind: AccelKind,
    /// The classifier's confidence (logistic of the winning SVM margin).
    pub confidence: f64,
    /// Every accelerator's SVM decision value for the function.
    pub margins: Vec<(AccelKind, f64)>,
    /// IR instructions of the function.
    pub instructions: usize,
}

/// Classify every function of an nf.h C NF (framework functions excluded);
/// the flagged ones. `Err` when the NF is not nf.h C or does not lower.
pub fn classify_nf(model: &AccelModel, inst: &NfInstance) -> Result<Vec<AccelFinding>, String> {
    let (sources, framework) = crate::driver::nf_sources(inst).map_err(|f| f.to_string())?;
    if framework != Framework::NfcC {
        return Err(format!(
            "the classifier reads nf.h C code; this NF is {framework:?} code"
        ));
    }
    let mut out = vec![];
    for src in sources
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
    {
        let includes: Vec<PathBuf> = src.parent().map(Path::to_path_buf).into_iter().collect();
        let stem = src
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let unit = crate::insight::lower_file(&stem, src, &includes, false)?;
        let file = src
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for f in unit.functions.iter().filter(|f| !f.framework) {
            let v = model.classify(f);
            if v.kind == AccelKind::None {
                continue;
            }
            out.push(AccelFinding {
                function: f.name.clone(),
                file: file.clone(),
                kind: v.kind,
                confidence: v.confidence,
                margins: model.scores(f).into_iter().collect(),
                instructions: f.len(),
            });
        }
    }
    Ok(out)
}
