//! Memory-access coalescing (Clara §4.4): variables whose accesses come from
//! the same code blocks are packed next to each other and read and written
//! with one access of the pack's size.
//!
//! Input: per variable, the number of accesses from each basic block over a
//! run on the chain's traffic (measured by the reducer's instrumented run).
//! Clara's access vector is that count normalised by the variable's total,
//! `p_i = c_i / Σ c`; variables are clustered by k-means on those vectors
//! (Lloyd's algorithm, k-means++ seeding, 16 seeded restarts, the lowest
//! inertia kept). k is chosen by the mean silhouette (Rousseeuw 1987), the
//! largest over k = 2..n−1; with two variables (no silhouette for k = 1 or
//! k = n), they share a pack when their vectors are closer than half the
//! largest possible distance between two access vectors (√2 / 2).
//!
//! Candidates are variables that were accessed and fit in one 64-byte
//! access (scalars, small structs); large tables are accessed per entry and
//! are not packed. The suggested layout orders a pack's members by
//! decreasing natural alignment (then name), like the packed variant the
//! reducer generates; the coalesced access size is the pack's size rounded
//! up to whole 4-byte words (the NFP's memory commands move 32-bit words),
//! in accesses of at most 64 bytes.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Largest variable (and single access) that is packed.
pub const MAX_ACCESS: u64 = 64;

/// One variable and where its accesses come from.
#[derive(Debug, Clone)]
pub struct Variable {
    pub name: String,
    pub bytes: u64,
    /// (code block id, accesses from it).
    pub per_block: Vec<(u32, u64)>,
}

/// One suggested pack.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pack {
    /// Members in layout order with their byte offsets.
    pub layout: Vec<(String, u64)>,
    /// Size of the packed struct.
    pub bytes: u64,
    /// Suggested access size: whole 4-byte words, at most 64 bytes per access.
    pub access_bytes: u64,
    /// Accesses needed to read the whole pack.
    pub accesses: u64,
}

/// The clustering and the packs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coalescing {
    /// Candidates clustered.
    pub candidates: usize,
    pub k: usize,
    /// How k was chosen.
    pub criterion: String,
    /// Mean silhouette of the chosen clustering (none below three candidates).
    pub silhouette: Option<f64>,
    /// Packs of two or more variables.
    pub packs: Vec<Pack>,
    /// Variables not packed, with why.
    pub alone: Vec<(String, String)>,
}

fn natural_align(bytes: u64) -> u64 {
    let mut a = 1;
    while a < bytes.min(8) {
        a *= 2;
    }
    a
}

fn vectors(vars: &[&Variable], dims: &[u32]) -> Vec<Vec<f64>> {
    vars.iter()
        .map(|v| {
            let total: u64 = v.per_block.iter().map(|(_, c)| c).sum();
            let mut x = vec![0.0; dims.len()];
            for (b, c) in &v.per_block {
                if let Ok(i) = dims.binary_search(b) {
                    x[i] = *c as f64 / total.max(1) as f64;
                }
            }
            x
        })
        .collect()
}

fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// k-means: (assignment, inertia). Lloyd's iterations from k-means++ seeds,
/// `restarts` times; the lowest inertia wins.
pub fn kmeans(x: &[Vec<f64>], k: usize, seed: u64, restarts: usize) -> (Vec<usize>, f64) {
    let n = x.len();
    let k = k.clamp(1, n.max(1));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut best: (Vec<usize>, f64) = (vec![0; n], f64::INFINITY);
    for _ in 0..restarts.max(1) {
        // k-means++ seeding.
        let mut centres: Vec<Vec<f64>> = vec![x[rng.gen_range(0..n)].clone()];
        while centres.len() < k {
            let d: Vec<f64> = x
                .iter()
                .map(|p| {
                    centres
                        .iter()
                        .map(|c| dist2(p, c))
                        .fold(f64::INFINITY, f64::min)
                })
                .collect();
            let total: f64 = d.iter().sum();
            let next = if total <= 0.0 {
                rng.gen_range(0..n)
            } else {
                let mut r = rng.gen::<f64>() * total;
                let mut pick = n - 1;
                for (i, di) in d.iter().enumerate() {
                    if r < *di {
                        pick = i;
                        break;
                    }
                    r -= di;
                }
                pick
            };
            centres.push(x[next].clone());
        }
        let mut assign = vec![0usize; n];
        for _ in 0..100 {
            let mut changed = false;
            for (i, p) in x.iter().enumerate() {
                let j = (0..k)
                    .min_by(|&a, &b| dist2(p, &centres[a]).total_cmp(&dist2(p, &centres[b])))
                    .unwrap_or(0);
                if assign[i] != j {
                    assign[i] = j;
                    changed = true;
                }
            }
            for (j, c) in centres.iter_mut().enumerate() {
                let members: Vec<&Vec<f64>> = x
                    .iter()
                    .zip(&assign)
                    .filter(|(_, a)| **a == j)
                    .map(|(p, _)| p)
                    .collect();
                if members.is_empty() {
                    continue;
                }
                for (d, cd) in c.iter_mut().enumerate() {
                    *cd = members.iter().map(|p| p[d]).sum::<f64>() / members.len() as f64;
                }
            }
            if !changed {
                break;
            }
        }
        let inertia: f64 = x
            .iter()
            .zip(&assign)
            .map(|(p, &a)| dist2(p, &centres[a]))
            .sum();
        if inertia < best.1 {
            best = (assign, inertia);
        }
    }
    best
}

/// Mean silhouette of an assignment (Euclidean distances); singletons score 0.
pub fn silhouette(x: &[Vec<f64>], assign: &[usize]) -> f64 {
    let n = x.len();
    let k = assign.iter().copied().max().map_or(0, |m| m + 1);
    let mut total = 0.0;
    for i in 0..n {
        let mut sum = vec![0.0; k];
        let mut cnt = vec![0usize; k];
        for j in 0..n {
            if i != j {
                sum[assign[j]] += dist2(&x[i], &x[j]).sqrt();
                cnt[assign[j]] += 1;
            }
        }
        let own = assign[i];
        if cnt[own] == 0 {
            continue;
        }
        let a = sum[own] / cnt[own] as f64;
        let b = (0..k)
            .filter(|&c| c != own && cnt[c] > 0)
            .map(|c| sum[c] / cnt[c] as f64)
            .fold(f64::INFINITY, f64::min);
        if b.is_finite() && a.max(b) > 0.0 {
            total += (b - a) / a.max(b);
        }
    }
    total / n.max(1) as f64
}

fn layout(members: &[&Variable]) -> Pack {
    let mut m: Vec<&Variable> = members.to_vec();
    m.sort_by(|a, b| {
        natural_align(b.bytes)
            .cmp(&natural_align(a.bytes))
            .then(a.name.cmp(&b.name))
    });
    let mut off: u64 = 0;
    let mut lay = vec![];
    let mut max_align: u64 = 1;
    for v in m {
        let a = natural_align(v.bytes);
        max_align = max_align.max(a);
        off = off.div_ceil(a) * a;
        lay.push((v.name.clone(), off));
        off += v.bytes;
    }
    let bytes = off.div_ceil(max_align) * max_align;
    let words = bytes.div_ceil(4) * 4;
    Pack {
        layout: lay,
        bytes,
        access_bytes: words.min(MAX_ACCESS),
        accesses: words.div_ceil(MAX_ACCESS),
    }
}

/// Cluster the variables and suggest packs.
pub fn coalesce(vars: &[Variable], seed: u64) -> Coalescing {
    let mut alone = vec![];
    let mut cand: Vec<&Variable> = vec![];
    for v in vars {
        let total: u64 = v.per_block.iter().map(|(_, c)| c).sum();
        if total == 0 {
            alone.push((v.name.clone(), "not accessed on the traffic".into()));
        } else if v.bytes > MAX_ACCESS || v.bytes == 0 {
            alone.push((
                v.name.clone(),
                format!("{} B: accessed per entry, not as a whole", v.bytes),
            ));
        } else {
            cand.push(v);
        }
    }
    let mut dims: Vec<u32> = cand
        .iter()
        .flat_map(|v| v.per_block.iter().map(|(b, _)| *b))
        .collect();
    dims.sort();
    dims.dedup();
    let x = vectors(&cand, &dims);
    let n = cand.len();
    let (assign, k, criterion, sil) = match n {
        0 | 1 => (vec![0; n], n, "fewer than two candidates".to_string(), None),
        2 => {
            let d = dist2(&x[0], &x[1]).sqrt();
            let together = d < std::f64::consts::SQRT_2 / 2.0;
            (
                if together { vec![0, 0] } else { vec![0, 1] },
                if together { 1 } else { 2 },
                format!("two candidates: access-vector distance {d:.3} vs threshold √2/2"),
                None,
            )
        }
        _ => {
            let mut best: Option<(Vec<usize>, usize, f64)> = None;
            for k in 2..n {
                let (a, _) = kmeans(&x, k, seed ^ k as u64, 16);
                let s = silhouette(&x, &a);
                if best.as_ref().is_none_or(|b| s > b.2 + 1e-12) {
                    best = Some((a, k, s));
                }
            }
            let (a, k, s) = best.unwrap_or((vec![0; n], 1, 0.0));
            (
                a,
                k,
                format!("largest mean silhouette over k = 2..{}", n - 1),
                Some(s),
            )
        }
    };
    let mut packs = vec![];
    for c in 0..k {
        let members: Vec<&Variable> = cand
            .iter()
            .zip(&assign)
            .filter(|(_, a)| **a == c)
            .map(|(v, _)| *v)
            .collect();
        match members.len() {
            0 => {}
            1 => alone.push((
                members[0].name.clone(),
                "its access vector clusters alone".into(),
            )),
            _ => packs.push(layout(&members)),
        }
    }
    packs.sort_by(|a, b| a.layout.cmp(&b.layout));
    alone.sort();
    Coalescing {
        candidates: n,
        k,
        criterion,
        silhouette: sil,
        packs,
        alone,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(name: &str, bytes: u64, blocks: &[(u32, u64)]) -> Variable {
        Variable {
            name: name.into(),
            bytes,
            per_block: blocks.to_vec(),
        }
    }

    #[test]
    fn variables_of_the_same_blocks_pack_together() {
        let vars = [
            v("a", 4, &[(1, 100), (2, 100)]),
            v("b", 8, &[(1, 50), (2, 50)]),
            v("c", 4, &[(7, 30)]),
            v("d", 2, &[(7, 10), (8, 1)]),
            v("table", 4096, &[(1, 100)]),
            v("cold", 4, &[]),
        ];
        let c = coalesce(&vars, 1);
        assert_eq!(c.candidates, 4);
        assert_eq!(c.k, 2);
        assert_eq!(c.packs.len(), 2);
        let names: Vec<Vec<&str>> = c
            .packs
            .iter()
            .map(|p| p.layout.iter().map(|(n, _)| n.as_str()).collect())
            .collect();
        assert!(names.contains(&vec!["b", "a"]), "{names:?}");
        assert!(names.contains(&vec!["c", "d"]), "{names:?}");
        let ab = c.packs.iter().find(|p| p.layout[0].0 == "b").unwrap();
        assert_eq!(ab.layout, vec![("b".into(), 0), ("a".into(), 8)]);
        assert_eq!((ab.bytes, ab.access_bytes, ab.accesses), (16, 16, 1));
        assert!(c.alone.iter().any(|(n, _)| n == "table"));
        assert!(c.alone.iter().any(|(n, _)| n == "cold"));
        assert!(c.silhouette.unwrap() > 0.9);
    }

    #[test]
    fn two_variables_of_different_blocks_stay_apart() {
        let c = coalesce(&[v("a", 4, &[(1, 5)]), v("b", 4, &[(2, 5)])], 1);
        assert!(c.packs.is_empty());
        let c = coalesce(&[v("a", 4, &[(1, 5)]), v("b", 4, &[(1, 9)])], 1);
        assert_eq!(c.packs.len(), 1);
    }
}
