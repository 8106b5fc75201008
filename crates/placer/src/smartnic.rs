//! SmartNIC state placement (Clara §4.3): put every state object of every NF
//! into one level of a Netronome NFP-4000-class memory hierarchy (CLS, CTM,
//! IMEM, EMEM) so that Σ latency(level) × accesses(object) is minimal and no
//! level holds more bytes than it has:
//!
//! ```text
//! min Σ_ij L_j · f_i · p_ij   s.t.   ∀i Σ_j p_ij = 1,   ∀j Σ_i s_i · p_ij ≤ C_j,   p_ij ∈ {0,1}
//! ```
//!
//! [`place_state_ilp`] solves it with HiGHS; [`place_state_exhaustive`] tries
//! every assignment and is the oracle the tests hold the ILP to (they must
//! agree on the optimum: the ILP is exact for this model). The model's limits
//! are Clara's own: one latency per level, no bandwidth or caching (Clara's
//! UDPCount case, where spreading state over two levels won aggregate
//! bandwidth and EMEM's SRAM cache hid its latency, is outside it).
//!
//! Default capacities and latencies ([`nfp4000_levels`]) are documented with
//! their sources in docs/targets/agilio.md and overridable per level in
//! chain.yaml (`resources.smartnic.memory`).

use crate::PlaceError;
use good_lp::{constraint, variable, Expression, ProblemVariables, Solution as _, SolverModel};
use nfc_core::chain::MemoryLevelOverride;
use nfc_core::facts::Facts;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One level of the memory hierarchy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryLevel {
    /// `cls`, `ctm`, `imem` or `emem` (the Micro-C `__declspec` name).
    pub name: String,
    /// Bytes available to the chain's state.
    pub capacity: u64,
    /// Access latency in NIC core cycles.
    pub latency: f64,
}

/// NFP-4000 defaults (docs/targets/agilio.md gives the sources): CLS 64 KiB per
/// island, CTM 256 KiB per island, IMEM 4 MiB, EMEM 2 GiB; latencies the low
/// ends of the published ranges, in cycles.
pub fn nfp4000_levels() -> Vec<MemoryLevel> {
    let l = |name: &str, capacity: u64, latency: f64| MemoryLevel {
        name: name.into(),
        capacity,
        latency,
    };
    vec![
        l("cls", 64 << 10, 25.0),
        l("ctm", 256 << 10, 50.0),
        l("imem", 4 << 20, 150.0),
        l("emem", 2 << 30, 250.0),
    ]
}

/// The defaults with chain.yaml's `resources.smartnic.memory` applied.
pub fn levels_with_overrides(
    overrides: &BTreeMap<String, MemoryLevelOverride>,
) -> Vec<MemoryLevel> {
    let mut levels = nfp4000_levels();
    for level in &mut levels {
        if let Some(o) = overrides.get(&level.name) {
            level.capacity = o.capacity.unwrap_or(level.capacity);
            level.latency = o.latency.unwrap_or(level.latency);
        }
    }
    levels
}

/// Where an access frequency came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrequencySource {
    /// Counted per packet by running the NF over the chain's traffic.
    Measured,
    /// Not measured: one access per packet per object (see [`state_items`]).
    Proxy,
}

/// A state object to place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateItem {
    pub nf: String,
    pub object: String,
    /// Bytes; `None` when the analyzer could not bound it (such an object may only go to the largest level).
    pub size: Option<u64>,
    /// Accesses per packet.
    pub frequency: f64,
    pub frequency_source: FrequencySource,
}

/// The state objects of a chain's NFs, from the analyzer's facts.
///
/// Size: entry bytes × capacity when both are known, else unknown. Access
/// frequency: per-global access counting in the reference executor is not
/// built yet, so every object gets the proxy of one access per packet
/// ([`FrequencySource::Proxy`], flagged in every output). It is conservative in
/// the sense that matters here: it never claims an object is hot or cold on
/// evidence nfc does not have, so the placement only trades sizes.
pub fn state_items(facts: &[Facts]) -> Vec<StateItem> {
    let mut out = Vec::new();
    for f in facts {
        for o in &f.state_objects {
            out.push(StateItem {
                nf: f.nf.clone(),
                object: o.name.clone(),
                size: o
                    .entry_bytes
                    .zip(o.capacity)
                    .and_then(|(e, c)| e.checked_mul(c)),
                frequency: 1.0,
                frequency_source: FrequencySource::Proxy,
            });
        }
    }
    out
}

/// A placement: the level index of every item, and its objective.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatePlacement {
    pub level: Vec<usize>,
    /// Σ latency × frequency (cycles per packet).
    pub cost: f64,
}

fn allowed(item: &StateItem, j: usize, levels: &[MemoryLevel]) -> bool {
    match item.size {
        Some(s) => s <= levels[j].capacity,
        // Unknown size: only the largest level, where an unbounded table would live anyway.
        None => j == largest(levels),
    }
}

fn largest(levels: &[MemoryLevel]) -> usize {
    (0..levels.len())
        .max_by_key(|&j| (levels[j].capacity, std::cmp::Reverse(j)))
        .unwrap_or(0)
}

fn check(items: &[StateItem], levels: &[MemoryLevel]) -> Result<(), PlaceError> {
    if levels.is_empty() {
        return Err(PlaceError::Solver(
            "no SmartNIC memory level to place state in".into(),
        ));
    }
    for it in items {
        if !(0..levels.len()).any(|j| allowed(it, j, levels)) {
            return Err(PlaceError::StateDoesNotFit {
                object: format!("{}.{}", it.nf, it.object),
                bytes: it.size.unwrap_or(0),
            });
        }
        if !it.frequency.is_finite() || it.frequency < 0.0 {
            return Err(PlaceError::Solver(format!(
                "{}.{}: access frequency {} is not a count",
                it.nf, it.object, it.frequency
            )));
        }
    }
    Ok(())
}

fn cost(items: &[StateItem], levels: &[MemoryLevel], level: &[usize]) -> f64 {
    items
        .iter()
        .zip(level)
        .map(|(it, &j)| levels[j].latency * it.frequency)
        .sum()
}

/// The optimal placement by ILP (HiGHS, exact gap).
pub fn place_state_ilp(
    items: &[StateItem],
    levels: &[MemoryLevel],
) -> Result<StatePlacement, PlaceError> {
    check(items, levels)?;
    if items.is_empty() {
        return Ok(StatePlacement {
            level: Vec::new(),
            cost: 0.0,
        });
    }
    let mut vars = ProblemVariables::new();
    let p: Vec<Vec<good_lp::Variable>> = items
        .iter()
        .map(|_| {
            levels
                .iter()
                .map(|_| vars.add(variable().binary()))
                .collect()
        })
        .collect();
    let mut objective = Expression::from(0.0);
    for (i, it) in items.iter().enumerate() {
        for (j, l) in levels.iter().enumerate() {
            objective += (l.latency * it.frequency) * p[i][j];
        }
    }
    let mut model = crate::solve::exact_highs(vars, objective)?;
    for (it, row) in items.iter().zip(&p) {
        let one: Expression = row.iter().copied().sum();
        model = model.with(constraint!(one == 1.0));
        for (j, &v) in row.iter().enumerate() {
            if !allowed(it, j, levels) {
                model = model.with(constraint!(v == 0.0));
            }
        }
    }
    for (j, l) in levels.iter().enumerate() {
        let used: Expression = items
            .iter()
            .enumerate()
            .map(|(i, it)| (it.size.unwrap_or(0) as f64) * p[i][j])
            .sum();
        model = model.with(constraint!(used <= l.capacity as f64));
    }
    let solved = model.solve().map_err(|e| match e {
        good_lp::ResolutionError::Infeasible => PlaceError::StateInfeasible,
        e => PlaceError::Solver(e.to_string()),
    })?;
    let level: Vec<usize> = p
        .iter()
        .map(|row| {
            row.iter()
                .position(|v| solved.value(*v) > 0.5)
                .ok_or_else(|| PlaceError::Solver("HiGHS left a state object unplaced".into()))
        })
        .collect::<Result<_, _>>()?;
    if !fits(items, levels, &level) {
        return Err(PlaceError::Solver(
            "HiGHS returned a placement over a level's capacity".into(),
        ));
    }
    Ok(StatePlacement {
        cost: cost(items, levels, &level),
        level,
    })
}

fn fits(items: &[StateItem], levels: &[MemoryLevel], level: &[usize]) -> bool {
    let mut used = vec![0u128; levels.len()];
    for (it, &j) in items.iter().zip(level) {
        if !allowed(it, j, levels) {
            return false;
        }
        used[j] += u128::from(it.size.unwrap_or(0));
    }
    used.iter()
        .zip(levels)
        .all(|(u, l)| *u <= u128::from(l.capacity))
}

/// Every assignment tried; the oracle for [`place_state_ilp`]. At most
/// `levels^items` ≤ 2^22 assignments (refused beyond).
pub fn place_state_exhaustive(
    items: &[StateItem],
    levels: &[MemoryLevel],
) -> Result<StatePlacement, PlaceError> {
    check(items, levels)?;
    let t = levels.len();
    let total = (t as f64).powi(items.len() as i32);
    if total > (1u64 << 22) as f64 {
        return Err(PlaceError::Solver(format!(
            "{} assignments are too many to enumerate",
            total
        )));
    }
    let mut level = vec![0usize; items.len()];
    let mut best: Option<StatePlacement> = None;
    loop {
        if fits(items, levels, &level) {
            let c = cost(items, levels, &level);
            if best.as_ref().is_none_or(|b| c < b.cost) {
                best = Some(StatePlacement {
                    level: level.clone(),
                    cost: c,
                });
            }
        }
        // Next assignment in base t; done when it wraps around.
        let mut k = 0;
        loop {
            if k == level.len() {
                return best.ok_or(PlaceError::StateInfeasible);
            }
            level[k] += 1;
            if level[k] < t {
                break;
            }
            level[k] = 0;
            k += 1;
        }
    }
}

/// The exact optimum by depth-first branch and bound: every assignment is
/// enumerated implicitly, a branch is cut only when its cost so far plus
/// every remaining object at the fastest level it may use cannot beat the
/// best found. The oracle for instances too large for
/// [`place_state_exhaustive`] (e.g. measured profiles with a dozen objects);
/// refused beyond `node_limit` visited nodes.
pub fn place_state_branch_and_bound(
    items: &[StateItem],
    levels: &[MemoryLevel],
    node_limit: u64,
) -> Result<StatePlacement, PlaceError> {
    check(items, levels)?;
    // Hot objects first: the bound tightens early.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| items[b].frequency.total_cmp(&items[a].frequency));
    let min_cost: Vec<f64> = order
        .iter()
        .map(|&i| {
            (0..levels.len())
                .filter(|&j| allowed(&items[i], j, levels))
                .map(|j| levels[j].latency * items[i].frequency)
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    // rest[k] = Σ min_cost[k..]
    let mut rest = vec![0.0; order.len() + 1];
    for k in (0..order.len()).rev() {
        rest[k] = rest[k + 1] + min_cost[k];
    }
    struct S<'a> {
        items: &'a [StateItem],
        levels: &'a [MemoryLevel],
        order: Vec<usize>,
        rest: Vec<f64>,
        used: Vec<u128>,
        level: Vec<usize>,
        best: Option<StatePlacement>,
        nodes: u64,
        limit: u64,
    }
    fn go(s: &mut S<'_>, k: usize, cost: f64) -> Result<(), PlaceError> {
        s.nodes += 1;
        if s.nodes > s.limit {
            return Err(PlaceError::Solver(format!(
                "branch and bound visited more than {} nodes",
                s.limit
            )));
        }
        if let Some(b) = &s.best {
            if cost + s.rest[k] >= b.cost - 1e-9 * b.cost.abs().max(1.0) {
                return Ok(());
            }
        }
        if k == s.order.len() {
            s.best = Some(StatePlacement {
                level: s.level.clone(),
                cost,
            });
            return Ok(());
        }
        let i = s.order[k];
        let mut js: Vec<usize> = (0..s.levels.len()).collect();
        js.sort_by(|&a, &b| s.levels[a].latency.total_cmp(&s.levels[b].latency));
        for j in js {
            let size = u128::from(s.items[i].size.unwrap_or(0));
            if !allowed(&s.items[i], j, s.levels)
                || s.used[j] + size > u128::from(s.levels[j].capacity)
            {
                continue;
            }
            s.used[j] += size;
            s.level[i] = j;
            let c = cost + s.levels[j].latency * s.items[i].frequency;
            let r = go(s, k + 1, c);
            s.used[j] -= size;
            r?;
        }
        Ok(())
    }
    let mut s = S {
        items,
        levels,
        order,
        rest,
        used: vec![0; levels.len()],
        level: vec![0; items.len()],
        best: None,
        nodes: 0,
        limit: node_limit,
    };
    go(&mut s, 0, 0.0)?;
    let mut best = s.best.ok_or(PlaceError::StateInfeasible)?;
    best.cost = cost(items, levels, &best.level);
    Ok(best)
}
