//! From chain facts, resources and traffic to the numeric [`Problem`], and
//! from its solution back to a [`Plan`]: candidate enumeration (every NIC
//! field set, plain and, when mirror-closed, symmetric), key synthesis and
//! load measurement per candidate, per-NF shared-nothing feasibility, the CCE
//! ranking for ties, input validation, and the final semantics check.

use crate::semantics::{check_shared_nothing, names, shared_nothing_blocker};
use crate::solve::{solve_ilp, Choice, NfVar, Problem, Solution};
use crate::toeplitz::{hashable, mirror_closed, synthesize, RssConfig};
use crate::traffic::TrafficProfile;
use crate::{PlaceError, PlaceOptions, SymmetryPolicy};
use nfc_core::chain::{ChainSpec, Resources};
use nfc_core::diag::Diagnostic;
use nfc_core::facts::{Facts, Field};
use nfc_core::plan::{Candidate, NfPlacement, Plan, Rss, Sharing};
use std::cmp::Ordering;

/// One hash the placer considered.
#[derive(Debug, Clone)]
pub struct CandidateInfo {
    /// The NIC field set as configured.
    pub requested: Vec<Field>,
    pub symmetric: bool,
    /// The synthesised configuration, when realisable.
    pub rss: Option<RssConfig>,
    /// Share of packets on the busiest queue.
    pub max_share: f64,
    /// Per chain NF: why it cannot be shared-nothing under this hash.
    pub blockers: Vec<Option<String>>,
    pub rejected: Option<String>,
}

/// The placement model of one chain.
#[derive(Debug, Clone)]
pub struct Model {
    pub queues: u32,
    pub nfs: Vec<(String, Facts)>,
    /// Chain indices of the stateful NFs, in `problem.nfs` order.
    pub stateful: Vec<usize>,
    /// Sharing penalty per chain NF.
    pub penalties: Vec<f64>,
    pub candidates: Vec<CandidateInfo>,
    /// Candidate index of each `problem.choices` entry.
    pub usable: Vec<usize>,
    /// Stateful chain indices from most to least expensive (the CCE ranking).
    pub expense_rank: Vec<usize>,
    pub problem: Problem,
    pub diagnostics: Vec<Diagnostic>,
}

/// Pair a chain's NFs with their facts (matched by `Facts::nf` == NF id), in
/// chain order; every NF without facts is reported.
pub fn facts_for_chain(
    chain: &ChainSpec,
    facts: &[Facts],
) -> Result<Vec<(String, Facts)>, PlaceError> {
    let mut out = vec![];
    let mut missing = vec![];
    for nf in &chain.nfs {
        match facts.iter().find(|f| f.nf == nf.id.0) {
            Some(f) => out.push((nf.id.0.clone(), f.clone())),
            None => missing.push(nf.id.0.clone()),
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(PlaceError::MissingFacts { nfs: missing })
    }
}

fn fields_label(fields: &[Field], symmetric: bool) -> String {
    format!(
        "{{{}}}{}",
        names(fields),
        if symmetric { " symmetric" } else { "" }
    )
}

/// The CCE ranking: stateful chain indices, most expensive first. With a
/// comparator, by pairwise wins (Copeland, robust to intransitive answers),
/// then by `Facts::cost()`; without one, by `Facts::cost()`, then by sharing
/// penalty; the NF id last for determinism.
fn expense_ranking(
    nfs: &[(String, Facts)],
    stateful: &[usize],
    penalties: &[f64],
    opts: &PlaceOptions,
) -> Vec<usize> {
    let wins: Vec<usize> = stateful
        .iter()
        .map(|&a| match &opts.comparator {
            Some(cmp) => stateful
                .iter()
                .filter(|&&b| b != a && cmp.compare(&nfs[a].1, &nfs[b].1) == Ordering::Greater)
                .count(),
            None => 0,
        })
        .collect();
    let mut order: Vec<(usize, usize)> = stateful.iter().copied().zip(wins).collect();
    order.sort_by(|(a, wa), (b, wb)| {
        wb.cmp(wa)
            .then(nfs[*b].1.cost().cmp(&nfs[*a].1.cost()))
            .then(penalties[*b].total_cmp(&penalties[*a]))
            .then(nfs[*a].0.cmp(&nfs[*b].0))
    });
    order.into_iter().map(|(i, _)| i).collect()
}

/// Validate the input and build the model (candidates, keys, loads, problem).
pub fn build_problem(
    chain_nfs: &[(String, Facts)],
    resources: &Resources,
    traffic: &TrafficProfile,
    opts: &PlaceOptions,
) -> Result<Model, PlaceError> {
    if chain_nfs.is_empty() {
        return Err(PlaceError::EmptyChain);
    }
    for (i, (id, _)) in chain_nfs.iter().enumerate() {
        if chain_nfs[..i].iter().any(|(other, _)| other == id) {
            return Err(PlaceError::DuplicateNf(id.clone()));
        }
    }
    let nic = &resources.nic;
    if resources.cores == 0 || nic.queues == 0 {
        return Err(PlaceError::NoCores {
            cores: resources.cores,
            queues: nic.queues,
        });
    }
    let queues = resources.cores.min(nic.queues);
    let mut pins: Vec<Option<bool>> = vec![None; chain_nfs.len()];
    for (id, sharing) in &opts.pins {
        let i = chain_nfs
            .iter()
            .position(|(n, _)| n == id)
            .ok_or_else(|| PlaceError::UnknownPin(id.clone()))?;
        pins[i] = match sharing {
            Sharing::SharedNothing => Some(true),
            Sharing::Shared => Some(false),
            Sharing::Stateless => None,
        };
    }
    let mut diagnostics = vec![];
    let model = &opts.cost_model;
    let penalties: Vec<f64> = chain_nfs
        .iter()
        .map(|(_, f)| model.sharing_penalty(f, queues))
        .collect();
    let work: f64 = chain_nfs.iter().map(|(_, f)| model.work(f)).sum();
    // An NF with split hazards keeps state no packet field keys: it takes
    // part in the sharing decision (and always shares) even when it keeps no
    // per-flow state.
    let stateful: Vec<usize> = (0..chain_nfs.len())
        .filter(|i| chain_nfs[*i].1.stateful || !chain_nfs[*i].1.splittable())
        .collect();
    for &i in &stateful {
        let (id, f) = &chain_nfs[i];
        if let Some(h) = f.split_hazards.first() {
            diagnostics.push(Diagnostic::note_diag(
                "P103",
                format!(
                    "NF `{id}` cannot be split across cores ({}: {}): it always shares",
                    h.object, h.reason
                ),
            ));
        } else if f.flow_key.is_empty() {
            diagnostics.push(Diagnostic::note_diag(
                "P102",
                format!("NF `{id}` keeps global state (no flow key): it always shares"),
            ));
        } else if f.symmetric && !mirror_closed(&f.flow_key) {
            diagnostics.push(
                Diagnostic::warning(
                    "P101",
                    format!("NF `{id}` is marked symmetric but its flow key {{{}}} is not closed under src<->dst", names(&f.flow_key)),
                )
                .with_hint("check the analyzer's facts; the NF is kept shared to stay correct"),
            );
        }
    }
    // Symmetry demands of pinned NFs against the policy.
    for &i in &stateful {
        let (id, f) = &chain_nfs[i];
        if pins[i] == Some(true) && f.symmetric && opts.symmetry == SymmetryPolicy::Forbid {
            return Err(PlaceError::ConflictingSymmetry(format!(
                "NF `{id}` is pinned shared-nothing and keeps one state for both directions, but symmetric hashes are forbidden"
            )));
        }
    }
    if traffic.is_empty() {
        diagnostics.push(Diagnostic::note_diag(
            "P104",
            "no traffic profile: every hash is assumed to balance perfectly",
        ));
    }

    // Enumerate candidates.
    let mut candidates: Vec<CandidateInfo> = vec![];
    let mut unusable_reasons = vec![];
    let mut policy_only = false;
    for set in &nic.hash_fields {
        let mut requested = set.clone();
        requested.sort();
        requested.dedup();
        let sym_options: &[bool] =
            if mirror_closed(&hashable(&requested)) && !hashable(&requested).is_empty() {
                &[false, true]
            } else {
                &[false]
            };
        for &symmetric in sym_options {
            let mut info = CandidateInfo {
                requested: requested.clone(),
                symmetric,
                rss: None,
                max_share: 1.0,
                blockers: vec![None; chain_nfs.len()],
                rejected: None,
            };
            let label = fields_label(&requested, symmetric);
            match synthesize(&requested, symmetric, opts.rss_input, queues, nic.reta_size) {
                Err(e) => {
                    unusable_reasons.push(format!("{label}: {e}"));
                    diagnostics.push(Diagnostic::note_diag(
                        "P103",
                        format!("RSS field set {label} is not usable: {e}"),
                    ));
                    info.rejected = Some(e.to_string());
                }
                Ok(rss) => {
                    let policy_block = match (opts.symmetry, symmetric) {
                        (SymmetryPolicy::Require, false) => {
                            Some("symmetric hashes are required by the options")
                        }
                        (SymmetryPolicy::Forbid, true) => {
                            Some("symmetric hashes are forbidden by the options")
                        }
                        _ => None,
                    };
                    let duplicate = candidates.iter().position(|c| {
                        c.rejected.is_none()
                            && c.rss
                                .as_ref()
                                .is_some_and(|r| r.fields == rss.fields && r.symmetric == symmetric)
                    });
                    if let Some(reason) = policy_block {
                        policy_only = true;
                        info.rejected = Some(reason.into());
                    } else if let Some(d) = duplicate {
                        info.rejected = Some(format!(
                            "hashes exactly like candidate #{} {}",
                            d + 1,
                            fields_label(&candidates[d].requested, candidates[d].symmetric)
                        ));
                    } else {
                        let hasher = rss.hasher();
                        info.max_share = traffic.max_share(queues, |h| hasher.queue(h));
                        info.blockers = chain_nfs
                            .iter()
                            .map(|(_, f)| shared_nothing_blocker(f, &rss.fields, symmetric))
                            .collect();
                        let pin_conflicts: Vec<String> = (0..chain_nfs.len())
                            .filter(|i| pins[*i] == Some(true))
                            .filter_map(|i| {
                                info.blockers[i].as_ref().map(|b| {
                                    format!("pinned `{}` would share: {b}", chain_nfs[i].0)
                                })
                            })
                            .collect();
                        if !pin_conflicts.is_empty() {
                            info.rejected = Some(pin_conflicts.join("; "));
                        }
                    }
                    info.rss = Some(rss);
                }
            }
            candidates.push(info);
        }
    }
    let usable: Vec<usize> = (0..candidates.len())
        .filter(|c| candidates[*c].rejected.is_none())
        .collect();
    if usable.is_empty() {
        let realisable = candidates.iter().any(|c| c.rss.is_some());
        if !realisable {
            return Err(PlaceError::NoUsableFieldSet {
                nic: nic.name.clone(),
                reasons: unusable_reasons,
            });
        }
        let pin_rejected = candidates.iter().any(|c| {
            c.rss.is_some()
                && c.rejected
                    .as_deref()
                    .is_some_and(|r| r.starts_with("pinned"))
        });
        if policy_only && !pin_rejected {
            return Err(PlaceError::ConflictingSymmetry(format!(
                "the symmetry policy {:?} leaves none of the NIC's field sets usable",
                opts.symmetry
            )));
        }
        let pinned = (0..chain_nfs.len())
            .filter(|i| pins[*i] == Some(true))
            .map(|i| chain_nfs[i].0.clone())
            .collect();
        let detail = candidates
            .iter()
            .filter_map(|c| {
                c.rejected
                    .as_ref()
                    .map(|r| format!("{}: {r}", fields_label(&c.requested, c.symmetric)))
            })
            .collect();
        return Err(PlaceError::Infeasible { pinned, detail });
    }

    let expense_rank = expense_ranking(chain_nfs, &stateful, &penalties, opts);
    let k = stateful.len();
    let tie_weight = |i: usize| -> f64 {
        // Position from the cheap end: 0 = cheapest.
        let pos = k - 1 - expense_rank.iter().position(|x| *x == i).unwrap_or(0);
        if k <= 20 {
            f64::from(1u32 << (pos + 1))
        } else {
            2.0 * (pos as f64 + 1.0)
        }
    };
    let problem = Problem {
        queues,
        work,
        nfs: stateful
            .iter()
            .map(|&i| NfVar {
                penalty: penalties[i],
                pin: pins[i],
                tie_weight: tie_weight(i),
            })
            .collect(),
        choices: usable
            .iter()
            .map(|&c| Choice {
                max_share: candidates[c].max_share,
                feasible: stateful
                    .iter()
                    .map(|&i| candidates[c].blockers[i].is_none())
                    .collect(),
            })
            .collect(),
        tie_tolerance: opts.tie_tolerance,
    };
    Ok(Model {
        queues,
        nfs: chain_nfs.to_vec(),
        stateful,
        penalties,
        candidates,
        usable,
        expense_rank,
        problem,
        diagnostics,
    })
}

impl Model {
    /// The best assignment for one usable choice (shared-nothing wherever
    /// feasible, unless pinned shared).
    fn best_for_choice(&self, choice: usize) -> Vec<bool> {
        self.problem
            .nfs
            .iter()
            .enumerate()
            .map(|(i, nf)| nf.pin.unwrap_or(self.problem.choices[choice].feasible[i]))
            .collect()
    }

    fn candidate_row(&self, c: usize) -> Candidate {
        let info = &self.candidates[c];
        match self.usable.iter().position(|u| *u == c) {
            Some(choice) => {
                // Usable rows show what the queue really depends on.
                let fields = info
                    .rss
                    .as_ref()
                    .map(|r| r.fields.clone())
                    .unwrap_or_else(|| info.requested.clone());
                let sn = self.best_for_choice(choice);
                let mut shared_nothing = vec![];
                let mut shared = vec![];
                for (pos, &i) in self.stateful.iter().enumerate() {
                    (if sn[pos] {
                        &mut shared_nothing
                    } else {
                        &mut shared
                    })
                    .push(self.nfs[i].0.clone());
                }
                Candidate {
                    fields,
                    symmetric: info.symmetric,
                    cost: self.problem.cost(choice, &sn),
                    shared_nothing,
                    shared,
                    rejected: None,
                }
            }
            None => Candidate {
                fields: info.requested.clone(),
                symmetric: info.symmetric,
                cost: 0.0,
                shared_nothing: vec![],
                shared: vec![],
                rejected: info.rejected.clone(),
            },
        }
    }

    /// Turn a solution into the plan, with candidates and rationale.
    pub fn plan(&self, solution: &Solution) -> Plan {
        let cand_index = self.usable[solution.choice];
        let info = &self.candidates[cand_index];
        let rss = info.rss.as_ref().expect("usable candidates are realised");
        let n = f64::from(self.queues);
        let m = info.max_share;
        let label = fields_label(&rss.fields, rss.symmetric);
        let mut nfs = vec![];
        for (i, (id, facts)) in self.nfs.iter().enumerate() {
            let placement = match self.stateful.iter().position(|s| *s == i) {
                None => NfPlacement {
                    nf: id.clone(),
                    sharing: Sharing::Stateless,
                    cost: 0.0,
                    reason: "no per-flow state".into(),
                },
                Some(pos) if solution.shared_nothing[pos] => NfPlacement {
                    nf: id.clone(),
                    sharing: Sharing::SharedNothing,
                    cost: 0.0,
                    reason: format!(
                        "flow key {{{}}} contains every RSS field {{{}}}{}",
                        names(&facts.flow_key),
                        names(&rss.fields),
                        if facts.symmetric {
                            " and the hash is symmetric"
                        } else {
                            ""
                        }
                    ),
                },
                Some(pos) => NfPlacement {
                    nf: id.clone(),
                    sharing: Sharing::Shared,
                    cost: n * m * self.penalties[i],
                    reason: match (&self.problem.nfs[pos].pin, &info.blockers[i]) {
                        (Some(false), _) => "pinned shared by the operator".into(),
                        (_, Some(why)) => format!("shared: {why}"),
                        (_, None) => "shared: sharing costs nothing here".into(),
                    },
                },
            };
            nfs.push(placement);
        }
        let candidates: Vec<Candidate> = (0..self.candidates.len())
            .map(|c| self.candidate_row(c))
            .collect();
        let mut rationale = vec![format!(
            "{} core(s) = min(cores, NIC queues); {} RSS candidate(s) considered, {} usable",
            self.queues,
            self.candidates.len(),
            self.usable.len()
        )];
        let sn: Vec<&str> = nfs
            .iter()
            .filter(|p| p.sharing == Sharing::SharedNothing)
            .map(|p| p.nf.as_str())
            .collect();
        let sh: Vec<&str> = nfs
            .iter()
            .filter(|p| p.sharing == Sharing::Shared)
            .map(|p| p.nf.as_str())
            .collect();
        rationale.push(format!(
            "hash on {label}: shared-nothing [{}], shared [{}]",
            sn.join(", "),
            sh.join(", ")
        ));
        let sharing: f64 = nfs
            .iter()
            .filter(|p| p.sharing == Sharing::Shared)
            .map(|p| p.cost)
            .sum::<f64>()
            / (n * m);
        rationale.push(format!(
            "cost {:.1} = {} cores x busiest-core share {:.3} x (work {:.1} + sharing {:.1}); a fair share is {:.3}",
            solution.cost, self.queues, m, self.problem.work, sharing, 1.0 / n
        ));
        if rss.fields != rss.requested {
            rationale.push(format!(
                "the key for {{{}}} reaches the queue only through {{{}}} (sliding-window zeros)",
                names(&rss.requested),
                names(&rss.fields)
            ));
        }
        let reach: Vec<String> = rss
            .influence
            .iter()
            .map(|(f, b)| format!("{f} {b} bit(s)"))
            .collect();
        rationale.push(format!(
            "RETA index ({} entries) depends on: {}",
            rss.reta.len(),
            reach.join(", ")
        ));
        // Runner-up and ties.
        let bound = self.problem.tie_bound(solution.cost);
        let mut others: Vec<&Candidate> = candidates
            .iter()
            .enumerate()
            .filter(|(c, row)| *c != cand_index && row.rejected.is_none())
            .map(|(_, row)| row)
            .collect();
        others.sort_by(|a, b| a.cost.total_cmp(&b.cost));
        let tied: Vec<&&Candidate> = others.iter().filter(|c| c.cost <= bound).collect();
        if !tied.is_empty() {
            let ranking: Vec<&str> = self
                .expense_rank
                .iter()
                .map(|i| self.nfs[*i].0.as_str())
                .collect();
            rationale.push(format!(
                "{} other plan(s) tie at cost {:.1} ({}); CCE ranks per-packet processing {} and keeps the most expensive NF(s) shared-nothing",
                tied.len(),
                solution.cost,
                tied.iter().map(|c| fields_label(&c.fields, c.symmetric)).collect::<Vec<_>>().join(", "),
                ranking.join(" > ")
            ));
        } else if let Some(next) = others.first() {
            rationale.push(format!(
                "runner-up {} costs {:.1} (+{:.1}%): shared-nothing [{}]",
                fields_label(&next.fields, next.symmetric),
                next.cost,
                100.0 * (next.cost - solution.cost) / solution.cost.max(1e-9),
                next.shared_nothing.join(", ")
            ));
        }
        Plan {
            cores: self.queues,
            rss: Rss {
                fields: rss.fields.clone(),
                symmetric: rss.symmetric,
                key40: rss.key40.clone(),
                key52: rss.key52.clone(),
                reta: rss.reta.clone(),
            },
            nfs,
            total_cost: solution.cost,
            candidates,
            rationale,
            smartnic: None,
        }
    }
}

/// Place a chain: choose RSS fields, symmetry, key and RETA, and each stateful
/// NF's sharing mode, minimising the bottleneck cost; check the result.
pub fn place(
    chain_nfs: &[(String, Facts)],
    resources: &Resources,
    traffic: &TrafficProfile,
    opts: &PlaceOptions,
) -> Result<(Plan, Vec<Diagnostic>), PlaceError> {
    let model = build_problem(chain_nfs, resources, traffic, opts)?;
    let solution = solve_ilp(&model.problem)?;
    let cand = &model.candidates[model.usable[solution.choice]];
    let rss = cand.rss.as_ref().expect("usable candidates are realised");
    let shared_nothing: Vec<(&str, &Facts)> = model
        .stateful
        .iter()
        .zip(&solution.shared_nothing)
        .filter(|(_, sn)| **sn)
        .map(|(i, _)| (model.nfs[*i].0.as_str(), &model.nfs[*i].1))
        .collect();
    check_shared_nothing(&shared_nothing, rss, traffic)?;
    let plan = model.plan(&solution);
    let mut diagnostics = model.diagnostics.clone();
    let bound = model.problem.tie_bound(solution.cost);
    let ties = plan
        .candidates
        .iter()
        .filter(|c| c.rejected.is_none() && c.cost <= bound)
        .count();
    if ties > 1 {
        diagnostics.push(Diagnostic::note_diag(
            "P105",
            format!(
                "{ties} RSS plans tie at cost {:.1}; the tie was broken by {}",
                solution.cost,
                if opts.comparator.is_some() {
                    "the complexity comparator (CCE)"
                } else {
                    "per-packet cost from the facts"
                }
            ),
        ));
    }
    Ok((plan, diagnostics))
}
