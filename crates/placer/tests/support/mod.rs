//! Random inputs shared by the placer's tests and its solve-time bench (the
//! bench includes this file by path): random NF facts drawn so that exact
//! cost ties are common, and diverse random 5-tuple traffic. One generator
//! for both, so the bench times the same kind of chains the tests prove the
//! ILP optimal on.

#![allow(dead_code)]

use nfc_core::facts::{Facts, Field, Intensity};
use nfc_placer::{PacketHeader, TrafficProfile};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Random 5-tuples over the whole address space (CAIDA-like diversity):
/// `flows` records of 1..50 packets each.
pub fn diverse_traffic(flows: usize, seed: u64) -> TrafficProfile {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = TrafficProfile::new();
    for _ in 0..flows {
        let h = PacketHeader {
            src_ip: rng.gen(),
            dst_ip: rng.gen(),
            src_port: rng.gen(),
            dst_port: rng.gen(),
            proto: 6,
        };
        t.push(h, rng.gen_range(1..50));
    }
    t
}

/// Facts of a random NF called `id`: stateless one time in five, otherwise
/// stateful with a random flow key (possibly empty or symmetric), write
/// intensity, pointer chasing, and per-packet cost and entry size from small
/// sets so that exact ties happen often.
pub fn random_facts(rng: &mut ChaCha8Rng, id: String) -> (String, Facts) {
    use Field::*;
    if rng.gen_bool(0.2) {
        return (id.clone(), Facts::stateless(id));
    }
    let keys: [&[Field]; 7] = [
        &[SrcIp],
        &[DstIp],
        &[SrcIp, DstIp],
        &[SrcIp, DstIp, SrcPort, DstPort, Proto],
        &[DstIp, DstPort],
        &[SrcIp, SrcPort],
        &[],
    ];
    let intensities = [
        Intensity::PerPacket,
        Intensity::PerFlow,
        Intensity::ReadOnly,
    ];
    let mut f = Facts {
        stateful: true,
        flow_key: keys[rng.gen_range(0..keys.len())].to_vec(),
        intensity: intensities[rng.gen_range(0..3)],
        pointer_chasing: rng.gen_bool(0.3),
        // Few distinct values so exact ties happen often.
        per_packet_cost: Some([50, 100, 200][rng.gen_range(0..3)]),
        state_entry_bytes: Some([16, 64, 256][rng.gen_range(0..3)]),
        ..Facts::stateless(id.clone())
    };
    f.symmetric = f.flow_key.len() >= 2
        && rng.gen_bool(0.3)
        && f.flow_key.contains(&SrcIp)
        && f.flow_key.contains(&DstIp);
    (id, f)
}

/// A random chain of `n` NFs named `nf0..`.
pub fn random_chain(rng: &mut ChaCha8Rng, n: usize) -> Vec<(String, Facts)> {
    (0..n)
        .map(|i| random_facts(rng, format!("nf{i}")))
        .collect()
}
