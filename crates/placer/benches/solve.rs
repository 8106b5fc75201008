//! Solve time of the placer on a 16-NF chain (target: under 100 ms per
//! placement, key synthesis and semantics check included), with the ILP
//! alone alongside.

use criterion::{criterion_group, criterion_main, Criterion};
use nfc_core::chain::Resources;
use nfc_core::facts::{Facts, Field, Intensity};
use nfc_placer::solve::solve_ilp;
use nfc_placer::{build_problem, place, PacketHeader, PlaceOptions, TrafficProfile};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn chain16() -> Vec<(String, Facts)> {
    let keys: [&[Field]; 5] = [
        &[Field::SrcIp],
        &[Field::DstIp],
        &[Field::SrcIp, Field::DstIp],
        &Field::FIVE_TUPLE,
        &[Field::DstIp, Field::DstPort],
    ];
    let intensities = [
        Intensity::PerPacket,
        Intensity::PerFlow,
        Intensity::ReadOnly,
    ];
    (0..16)
        .map(|i| {
            let id = format!("nf{i}");
            let facts = if i % 5 == 4 {
                Facts::stateless(id.clone())
            } else {
                Facts {
                    stateful: true,
                    flow_key: keys[i % keys.len()].to_vec(),
                    intensity: intensities[i % 3],
                    pointer_chasing: i % 2 == 0,
                    per_packet_cost: Some(50 + 25 * i as u64),
                    state_entry_bytes: Some(64 << (i % 3)),
                    ..Facts::stateless(id.clone())
                }
            };
            (id, facts)
        })
        .collect()
}

fn traffic() -> TrafficProfile {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut t = TrafficProfile::new();
    for _ in 0..10_000 {
        let h = PacketHeader {
            src_ip: rng.gen(),
            dst_ip: rng.gen(),
            src_port: rng.gen(),
            dst_port: rng.gen(),
            proto: 6,
        };
        t.push(h, rng.gen_range(1..100));
    }
    t
}

fn bench(c: &mut Criterion) {
    let chain = chain16();
    let traffic = traffic();
    let res = Resources {
        cores: 16,
        ..Resources::default()
    };
    let opts = PlaceOptions::default();
    c.bench_function("place_16_nfs_10k_flows", |b| {
        b.iter(|| place(&chain, &res, &traffic, &opts).unwrap())
    });
    let model = build_problem(&chain, &res, &traffic, &opts).unwrap();
    c.bench_function("ilp_only_16_nfs", |b| {
        b.iter(|| solve_ilp(&model.problem).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
