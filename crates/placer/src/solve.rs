//! The placement problem as plain numbers, solved two ways: an ILP on HiGHS
//! (good_lp) and a brute-force enumerator that serves as its oracle.
//!
//! Variables: `y_c` (binary) picks one hash choice `c`; `x_i` (binary) marks
//! stateful NF `i` shared-nothing; `s_ci ∈ [0,1]` linearises "choice `c` is
//! taken and NF `i` shares" (`s_ci ≥ y_c − x_i`) so the bottleneck cost
//! `N·m_c·(work + Σ_i pen_i·shared_i)` becomes linear:
//!
//! ```text
//! min  Σ_c N·m_c·work·y_c + Σ_{c,i} N·m_c·pen_i·s_ci
//! s.t. Σ_c y_c = 1
//!      x_i ≤ Σ_{c : NF i may be shared-nothing under c} y_c
//!      s_ci ≥ y_c − x_i,  pins fix x_i
//! ```
//!
//! Ties are broken lexicographically by a second solve that keeps the cost
//! within the tie tolerance of the optimum and maximises
//! `Σ_i w_i·x_i − order_c/(C+1)`, where the weights `w_i = 2^(rank_i+1)`
//! rank NFs by per-packet expense (the CCE step): among equal-cost plans the
//! one keeping the most expensive NF shared-nothing wins, then the earlier
//! NIC field set.

use crate::PlaceError;
use good_lp::{
    constraint, variable, Expression, ProblemVariables, Solution as _, SolverModel, Variable,
};

/// One stateful NF as the solver sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct NfVar {
    /// Extra cost per packet when shared (at perfect balance).
    pub penalty: f64,
    /// `Some(true)` pins shared-nothing, `Some(false)` pins shared.
    pub pin: Option<bool>,
    /// Tie-break weight (larger = more expensive NF).
    pub tie_weight: f64,
}

/// One realisable hash choice.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// Share of packets on the busiest queue.
    pub max_share: f64,
    /// Per NF in `Problem::nfs`: may it run shared-nothing under this hash?
    pub feasible: Vec<bool>,
}

/// The numeric placement problem.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub queues: u32,
    /// Per-packet work of the whole chain.
    pub work: f64,
    pub nfs: Vec<NfVar>,
    pub choices: Vec<Choice>,
    /// Relative tolerance under which two costs count as equal.
    pub tie_tolerance: f64,
}

/// An assignment: which choice, and which NFs run shared-nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    pub choice: usize,
    pub shared_nothing: Vec<bool>,
    pub cost: f64,
    pub score: f64,
}

impl Problem {
    /// Bottleneck cost of running `choice` with `shared_nothing`.
    pub fn cost(&self, choice: usize, shared_nothing: &[bool]) -> f64 {
        let shared: f64 = self
            .nfs
            .iter()
            .zip(shared_nothing)
            .filter(|(_, sn)| !**sn)
            .map(|(nf, _)| nf.penalty)
            .sum();
        f64::from(self.queues) * self.choices[choice].max_share * (self.work + shared)
    }

    /// Tie-break score (higher wins).
    pub fn score(&self, choice: usize, shared_nothing: &[bool]) -> f64 {
        let weights: f64 = self
            .nfs
            .iter()
            .zip(shared_nothing)
            .filter(|(_, sn)| **sn)
            .map(|(nf, _)| nf.tie_weight)
            .sum();
        weights - choice as f64 / (self.choices.len() + 1) as f64
    }

    /// Does the assignment respect feasibility and pins?
    pub fn admissible(&self, choice: usize, shared_nothing: &[bool]) -> bool {
        self.nfs
            .iter()
            .zip(shared_nothing)
            .enumerate()
            .all(|(i, (nf, sn))| {
                (!*sn || self.choices[choice].feasible[i]) && nf.pin.is_none_or(|p| p == *sn)
            })
    }

    /// Cost bound under which a plan ties with the optimum `best`.
    pub fn tie_bound(&self, best: f64) -> f64 {
        best + best.abs() * self.tie_tolerance + 1e-9
    }

    fn solution(&self, choice: usize, shared_nothing: Vec<bool>) -> Solution {
        let cost = self.cost(choice, &shared_nothing);
        let score = self.score(choice, &shared_nothing);
        Solution {
            choice,
            shared_nothing,
            cost,
            score,
        }
    }
}

/// Solve by enumerating every choice and every shared-nothing subset.
/// Refuses problems with more than 20 stateful NFs.
pub fn solve_brute_force(problem: &Problem) -> Result<Solution, PlaceError> {
    let k = problem.nfs.len();
    if k > 20 {
        return Err(PlaceError::TooLargeForBruteForce { nfs: k });
    }
    let mut all = vec![];
    for c in 0..problem.choices.len() {
        for mask in 0u32..(1u32 << k) {
            let sn: Vec<bool> = (0..k).map(|i| mask & (1 << i) != 0).collect();
            if problem.admissible(c, &sn) {
                all.push(problem.solution(c, sn));
            }
        }
    }
    let best = all.iter().map(|s| s.cost).fold(f64::INFINITY, f64::min);
    if !best.is_finite() {
        return Err(PlaceError::Solver(
            "no admissible assignment (pins cannot be met)".into(),
        ));
    }
    let bound = problem.tie_bound(best);
    all.into_iter()
        .filter(|s| s.cost <= bound)
        .max_by(|a, b| a.score.total_cmp(&b.score))
        .ok_or_else(|| PlaceError::Solver("no admissible assignment".into()))
}

struct Vars {
    y: Vec<Variable>,
    x: Vec<Variable>,
    s: Vec<(usize, usize, Variable)>,
}

fn build_vars(problem: &Problem, vars: &mut ProblemVariables) -> Vars {
    let y = (0..problem.choices.len())
        .map(|_| vars.add(variable().binary()))
        .collect();
    let x = (0..problem.nfs.len())
        .map(|_| vars.add(variable().binary()))
        .collect();
    let mut s = vec![];
    for (c, choice) in problem.choices.iter().enumerate() {
        for (i, nf) in problem.nfs.iter().enumerate() {
            if nf.penalty * choice.max_share > 0.0 {
                s.push((c, i, vars.add(variable().min(0.0).max(1.0))));
            }
        }
    }
    Vars { y, x, s }
}

fn cost_expr(problem: &Problem, v: &Vars) -> Expression {
    let n = f64::from(problem.queues);
    let mut e = Expression::from(0.0);
    for (c, choice) in problem.choices.iter().enumerate() {
        e += n * choice.max_share * problem.work * v.y[c];
    }
    for (c, i, s) in &v.s {
        e += n * problem.choices[*c].max_share * problem.nfs[*i].penalty * *s;
    }
    e
}

fn solve_phase(problem: &Problem, cost_bound: Option<f64>) -> Result<Solution, PlaceError> {
    let mut vars = ProblemVariables::new();
    let v = build_vars(problem, &mut vars);
    let cost = cost_expr(problem, &v);
    let objective = match cost_bound {
        None => cost.clone(),
        Some(_) => {
            // Maximise the tie-break score = minimise its negation.
            let mut e = Expression::from(0.0);
            for (i, nf) in problem.nfs.iter().enumerate() {
                e -= nf.tie_weight * v.x[i];
            }
            for (c, y) in v.y.iter().enumerate() {
                e += (c as f64 / (problem.choices.len() + 1) as f64) * *y;
            }
            e
        }
    };
    let mut model = exact_highs(vars, objective)?;
    let one_choice: Expression = v.y.iter().copied().sum();
    model = model.with(constraint!(one_choice == 1.0));
    for (i, nf) in problem.nfs.iter().enumerate() {
        let allowed: Expression = problem
            .choices
            .iter()
            .enumerate()
            .filter(|(_, ch)| ch.feasible[i])
            .map(|(c, _)| v.y[c])
            .sum();
        model = model.with(constraint!(v.x[i] <= allowed));
        match nf.pin {
            Some(true) => model = model.with(constraint!(v.x[i] == 1.0)),
            Some(false) => model = model.with(constraint!(v.x[i] == 0.0)),
            None => {}
        }
    }
    for (c, i, s) in &v.s {
        model = model.with(constraint!(*s >= v.y[*c] - v.x[*i]));
    }
    if let Some(bound) = cost_bound {
        model = model.with(constraint!(cost <= bound));
    }
    let solved = model
        .solve()
        .map_err(|e| PlaceError::Solver(e.to_string()))?;
    let choice =
        v.y.iter()
            .position(|y| solved.value(*y) > 0.5)
            .ok_or_else(|| PlaceError::Solver("HiGHS returned no hash choice".into()))?;
    let sn: Vec<bool> = v.x.iter().map(|x| solved.value(*x) > 0.5).collect();
    if !problem.admissible(choice, &sn) {
        return Err(PlaceError::Solver(
            "HiGHS returned an inadmissible assignment".into(),
        ));
    }
    Ok(problem.solution(choice, sn))
}

/// Solve with the two-phase ILP (cost, then tie-break).
pub fn solve_ilp(problem: &Problem) -> Result<Solution, PlaceError> {
    if problem.choices.is_empty() {
        return Err(PlaceError::Solver("no hash choice to pick from".into()));
    }
    let first = solve_phase(problem, None)?;
    let bound = problem.tie_bound(first.cost);
    let second = solve_phase(problem, Some(bound))?;
    // The tie-break solve may only move among plans of equal cost.
    if second.cost > bound {
        return Err(PlaceError::Solver(format!(
            "tie-break raised the cost from {} to {}",
            first.cost, second.cost
        )));
    }
    Ok(second)
}

/// HiGHS minimising `objective` exactly (no MIP gap) on one thread, so
/// every solve of the same problem gives the same optimum: the placer's
/// solves and the SmartNIC state placement share this configuration.
pub(crate) fn exact_highs(
    vars: ProblemVariables,
    objective: Expression,
) -> Result<good_lp::solvers::highs::HighsProblem, PlaceError> {
    vars.minimise(objective)
        .using(good_lp::solvers::highs::highs)
        .set_threads(1)
        .set_mip_rel_gap(0.0)
        .map_err(|e| PlaceError::Solver(e.to_string()))?
        .set_mip_abs_gap(0.0)
        .map_err(|e| PlaceError::Solver(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_problem(rng: &mut ChaCha8Rng) -> Problem {
        let k = rng.gen_range(0..=8);
        let choices = rng.gen_range(1..=6);
        // Coarse values create plenty of exact ties.
        let nfs = (0..k)
            .map(|r| NfVar {
                penalty: f64::from(rng.gen_range(0..4u32)) * 50.0,
                pin: match rng.gen_range(0..10) {
                    0 => Some(false),
                    1 => Some(true),
                    _ => None,
                },
                tie_weight: f64::from(1u32 << (r + 1)),
            })
            .collect();
        let choices = (0..choices)
            .map(|_| Choice {
                max_share: [0.25, 0.25, 0.3, 0.5][rng.gen_range(0..4)],
                feasible: (0..k).map(|_| rng.gen_bool(0.5)).collect(),
            })
            .collect();
        Problem {
            queues: 4,
            work: 100.0,
            nfs,
            choices,
            tie_tolerance: 1e-9,
        }
    }

    #[test]
    fn ilp_matches_brute_force_on_random_problems() {
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let mut solved = 0;
        for round in 0..250 {
            let p = random_problem(&mut rng);
            match (solve_brute_force(&p), solve_ilp(&p)) {
                (Ok(b), Ok(i)) => {
                    assert!(
                        (b.cost - i.cost).abs() <= 1e-6 * b.cost.max(1.0),
                        "round {round}: {b:?} vs {i:?}"
                    );
                    assert_eq!(
                        (b.choice, &b.shared_nothing),
                        (i.choice, &i.shared_nothing),
                        "round {round}"
                    );
                    solved += 1;
                }
                (Err(_), Err(_)) => {}
                (b, i) => panic!("round {round}: brute {b:?} ilp {i:?}"),
            }
        }
        assert!(solved > 150, "only {solved} feasible problems");
    }

    #[test]
    fn brute_force_refuses_huge_problems() {
        let p = Problem {
            queues: 2,
            work: 1.0,
            nfs: vec![
                NfVar {
                    penalty: 1.0,
                    pin: None,
                    tie_weight: 1.0
                };
                21
            ],
            choices: vec![Choice {
                max_share: 0.5,
                feasible: vec![true; 21],
            }],
            tie_tolerance: 0.0,
        };
        assert!(matches!(
            solve_brute_force(&p),
            Err(PlaceError::TooLargeForBruteForce { nfs: 21 })
        ));
        assert!(solve_ilp(&p).unwrap().shared_nothing.iter().all(|x| *x));
    }
}
