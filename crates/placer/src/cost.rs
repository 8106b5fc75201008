//! The placer's cost model, in instruction-equivalents per packet on the
//! busiest core.
//!
//! A plan's cost is `N * max_share * (work + Σ_{shared NFs} penalty)`: with a
//! perfectly balanced hash (`max_share = 1/N`) it is the per-packet work plus
//! the synchronisation overhead of every shared NF; an unbalanced hash scales
//! it by how much more than its fair share the busiest core receives, since
//! that core bounds throughput. The sharing penalty of an NF grows with its
//! write intensity (per-packet ≫ per-flow > read-only), with the cache lines
//! of its state entry that bounce between cores, with pointer chasing (every
//! hop is another shared line) and with its per-packet cost (a longer critical
//! section serialises the cores for longer). It vanishes on a single core.

use nfc_core::facts::{Facts, Intensity};
use serde::{Deserialize, Serialize};

/// Tunable constants of the cost model (defaults are rough x86 numbers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    /// Lock (or atomic) acquire + release, in instruction-equivalents.
    pub sync: f64,
    /// A cache-line transfer between cores.
    pub line_transfer: f64,
    /// Fraction of the NF's per-packet work that runs inside the critical section.
    pub critical_fraction: f64,
    /// Multiplier on line transfers when the state is reached through pointers.
    pub pointer_chasing_factor: f64,
    /// Weight of a per-flow writer relative to a per-packet writer.
    pub per_flow_weight: f64,
    /// Weight of a read-only (read-mostly) NF relative to a per-packet writer.
    pub read_only_weight: f64,
    /// State entry size assumed when the facts do not say.
    pub default_entry_bytes: u64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel {
            sync: 40.0,
            line_transfer: 100.0,
            critical_fraction: 0.5,
            pointer_chasing_factor: 2.0,
            per_flow_weight: 0.1,
            read_only_weight: 0.02,
            default_entry_bytes: 64,
        }
    }
}

impl CostModel {
    /// How much of the per-packet sharing cost an intensity incurs.
    pub fn intensity_weight(&self, intensity: Intensity) -> f64 {
        match intensity {
            Intensity::PerPacket => 1.0,
            Intensity::PerFlow => self.per_flow_weight,
            Intensity::ReadOnly => self.read_only_weight,
            Intensity::None => 0.0,
        }
    }

    /// Extra cost per packet of running `facts` shared across `cores` cores.
    pub fn sharing_penalty(&self, facts: &Facts, cores: u32) -> f64 {
        if !facts.stateful || cores <= 1 {
            return 0.0;
        }
        // Probability that another core touched the state last.
        let contention = f64::from(cores - 1) / f64::from(cores);
        let entry = facts
            .state_entry_bytes
            .unwrap_or(self.default_entry_bytes)
            .max(1);
        let lines = entry.div_ceil(64) as f64;
        let chase = if facts.pointer_chasing {
            self.pointer_chasing_factor
        } else {
            1.0
        };
        let critical = self.critical_fraction * facts.cost() as f64;
        contention
            * self.intensity_weight(facts.intensity)
            * (self.sync + self.line_transfer * lines * chase + critical)
    }

    /// Per-packet work of the NF itself.
    pub fn work(&self, facts: &Facts) -> f64 {
        facts.cost() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfc_core::facts::Field;

    fn stateful(intensity: Intensity, entry: u64, chase: bool, cost: u64) -> Facts {
        Facts {
            stateful: true,
            flow_key: vec![Field::SrcIp],
            intensity,
            pointer_chasing: chase,
            state_entry_bytes: Some(entry),
            per_packet_cost: Some(cost),
            ..Facts::stateless("nf")
        }
    }

    #[test]
    fn penalty_orders_by_the_features_it_should() {
        let m = CostModel::default();
        let p = |f: &Facts| m.sharing_penalty(f, 8);
        let base = stateful(Intensity::PerPacket, 64, false, 100);
        assert!(p(&base) >= 9.0 * p(&stateful(Intensity::PerFlow, 64, false, 100)));
        assert!(
            p(&stateful(Intensity::PerFlow, 64, false, 100))
                > p(&stateful(Intensity::ReadOnly, 64, false, 100))
        );
        assert!(p(&stateful(Intensity::PerPacket, 256, false, 100)) > p(&base));
        assert!(p(&stateful(Intensity::PerPacket, 64, true, 100)) > p(&base));
        assert!(p(&stateful(Intensity::PerPacket, 64, false, 400)) > p(&base));
        assert_eq!(m.sharing_penalty(&base, 1), 0.0);
        assert_eq!(m.sharing_penalty(&Facts::stateless("x"), 8), 0.0);
        assert!(m.sharing_penalty(&base, 16) > m.sharing_penalty(&base, 2));
    }
}
