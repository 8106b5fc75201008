//! The on-line runtime against the reference executor: chains of real NFs
//! from `nfs/` (built with `nfc_nfs::build`) run under `flash-rt monitor` /
//! `flash-rt nf` between two namespaces, fed with the frames of a pcap that
//! `flash_rt::trace` generates, and must deliver at the egress exactly the
//! multiset of frames `flash_rt::offline` predicts for the same pcap (order
//! may differ where paths fan back in). While the chain is still running,
//! `flash-rt stats` must report per-NF and per-link counters equal to the
//! executor's per-NF receive/drop/per-port counts.
//!
//! Chains: FLASH's DAG (firewall → Maglev with two backends on ports 0/1 →
//! flow monitor | source-IP counter → L2 forwarder), zero-copy; and
//! FlowMage's 3-NF chain (port-scan detector → policer → flow counter),
//! single-copy. Time-dependent NFs are configured so their decisions do not
//! depend on the clock (on line, `now_ns` is the wall clock, off line the
//! pcap timestamp): the scan window outlasts the test, and the policer
//! refills 1 byte/s while frame sizes are multiples of 64 and the burst is
//! 16 bytes off a multiple of 64, so a refill could change a decision only
//! after 48 s. Skips loudly without root.

mod netns_common;

use flash_rt::deploy::{
    Deployment, Endpoint, GroupSpec, InterfaceSpec, LinkMode, LinkSpec, MonitorConfig, NfSpec,
    PollingConfig, XdpMode,
};
use flash_rt::offline::{run_packets, ExecChain, ExecOptions, ExecRun};
use flash_rt::trace::{pcap, Packets};
use netns_common::*;
use nfc_core::chain::{ChainSpec, NfSource, TrafficSpec};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

const NOBODY: u32 = 65534;
const ETH_P_IP: u16 = 0x0800;

fn parse(yaml: &str) -> ChainSpec {
    let names: Vec<String> = nfc_nfs::catalog().into_iter().map(|n| n.name).collect();
    let (spec, diags) = nfc_core::chain::parse_chain(yaml, "chain.yaml", Path::new("."), &names);
    assert!(!nfc_core::diag::has_errors(&diags), "{diags:?}");
    spec.expect("chain")
}

/// Build the chain's built-in NFs (cached) and return the executable chain.
fn exec_chain(spec: &ChainSpec) -> ExecChain {
    let opts = nfc_nfs::BuildOptions {
        out_dir: Path::new(env!("CARGO_TARGET_TMPDIR")).join("netns-dag-nfs"),
        sanitize: false,
        extra_cflags: vec![],
    };
    ExecChain::from_spec(
        spec,
        |inst| {
            let NfSource::Builtin { name } = &inst.source else {
                panic!("built-in NFs only")
            };
            let nf = nfc_nfs::builtin(name).expect("built-in");
            nfc_nfs::build(name, &nf.sources, &opts)
                .unwrap_or_else(|e| panic!("build {name}: {e}"))
                .so
        },
        None,
    )
}

/// The deployment for `chain`: entry NF on `in` (input port 0), one link per
/// successor port, input ports numbered as the executor numbers them, every
/// declared port without a successor to `out`.
fn deployment(chain: &ExecChain, n_ports: &[usize], zero_copy: bool, sock: &Path) -> Deployment {
    let n = chain.nfs.len();
    let mut next_in = vec![0u32; n];
    let mut links = vec![];
    for &e in &chain.entries {
        links.push(LinkSpec {
            from: ep_if("in"),
            to: ep_nf(&chain.nfs[e].id, next_in[e]),
            mode: None,
        });
        next_in[e] += 1;
    }
    // Single-copy: each NF its own UMEM, except that NFs transmitting on the
    // egress queue must share one (AF_XDP binds one UMEM per queue).
    let exits_out =
        |i: usize| (0..n_ports[i] as u32).any(|p| !chain.nfs[i].next.iter().any(|(q, _)| *q == p));
    let out_group: Vec<usize> = (0..n).filter(|&i| exits_out(i)).collect();
    let same_group =
        |a: usize, b: usize| zero_copy || (out_group.contains(&a) && out_group.contains(&b));
    for (i, nf) in chain.nfs.iter().enumerate() {
        for port in 0..n_ports[i] as u32 {
            match nf.next.iter().find(|(p, _)| *p == port) {
                Some(&(_, j)) => {
                    let mode = if same_group(i, j) {
                        LinkMode::ZeroCopy
                    } else {
                        LinkMode::SingleCopy
                    };
                    links.push(LinkSpec {
                        from: ep_nf(&nf.id, port),
                        to: ep_nf(&chain.nfs[j].id, next_in[j]),
                        mode: Some(mode),
                    });
                    next_in[j] += 1;
                }
                None => links.push(LinkSpec {
                    from: ep_nf(&nf.id, port),
                    to: ep_if("out"),
                    mode: None,
                }),
            }
        }
    }
    let groups = if zero_copy {
        vec![GroupSpec {
            name: "all".into(),
            nfs: chain.nfs.iter().map(|n| n.id.clone()).collect(),
        }]
    } else if out_group.len() > 1 {
        vec![GroupSpec {
            name: "egress".into(),
            nfs: out_group.iter().map(|&i| chain.nfs[i].id.clone()).collect(),
        }]
    } else {
        vec![]
    };
    Deployment {
        version: 1,
        name: "dag".into(),
        monitor: MonitorConfig {
            socket: sock.to_path_buf(),
            interfaces: vec![
                InterfaceSpec {
                    name: "in".into(),
                    ifname: "vi1".into(),
                    queue: 0,
                },
                InterfaceSpec {
                    name: "out".into(),
                    ifname: "vo1".into(),
                    queue: 0,
                },
            ],
            xdp_mode: XdpMode::Auto,
            frame_size: 2048,
            ring_size: 2048,
            inbox_size: 1024,
            batch_size: 64,
        },
        nfs: chain
            .nfs
            .iter()
            .map(|nf| NfSpec {
                id: nf.id.clone(),
                object: nf.so_path.clone(),
                config: nf.config.clone(),
                threads: 1,
                uid: Some(NOBODY),
                gid: Some(NOBODY),
                frames: 1024,
                polling: PollingConfig {
                    never_busy: true,
                    ..PollingConfig::default()
                },
                cpus: vec![],
            })
            .collect(),
        links,
        groups,
    }
}

fn ep_if(name: &str) -> Endpoint {
    Endpoint {
        nf: None,
        iface: Some(name.into()),
        port: None,
    }
}

fn ep_nf(id: &str, port: u32) -> Endpoint {
    Endpoint {
        nf: Some(id.into()),
        iface: None,
        port: Some(port),
    }
}

/// An AF_PACKET socket on `ifname` that sees IPv4 frames only (no IPv6 noise).
fn ip_socket(ifname: &str) -> OwnedFd {
    packet_socket_for(ifname, ETH_P_IP).0
}

/// Send every frame of `packets` on `tx` and collect what arrives on `rx`,
/// keeping at most `window` predicted exits in flight (`exits_before[i]` =
/// exits the executor predicts for inputs `< i`).
fn drive(
    tx: &OwnedFd,
    rx: &OwnedFd,
    packets: &Packets,
    exits_before: &[usize],
    window: usize,
) -> Vec<Vec<u8>> {
    let total = *exits_before.last().unwrap();
    let mut got: Vec<Vec<u8>> = vec![];
    let mut buf = vec![0u8; 4096];
    let mut sent = 0usize;
    while got.len() < total || sent < packets.len() {
        while sent < packets.len() && exits_before[sent] < got.len() + window {
            let p = packets.get(sent).unwrap();
            // SAFETY: sending our buffer.
            let rc = unsafe { libc::send(tx.as_raw_fd(), p.data.as_ptr().cast(), p.data.len(), 0) };
            assert_eq!(
                rc,
                p.data.len() as isize,
                "send frame {sent}: {}",
                std::io::Error::last_os_error()
            );
            sent += 1;
        }
        if got.len() >= total {
            break;
        }
        // SAFETY: receiving into our buffer.
        let rc = unsafe { libc::recv(rx.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if rc < 0 {
            break;
        }
        got.push(buf[..rc as usize].to_vec());
    }
    got
}

/// Run `yaml`'s chain on line and off line over the same pcap and compare.
fn check_against_executor(yaml: &str, traffic: TrafficSpec, zero_copy: bool) {
    let spec = parse(yaml);
    let chain = exec_chain(&spec);
    let dir = open_tempdir();
    let pcap_path = dir.path().join("trace.pcap");
    flash_rt::trace::generate(&traffic, &pcap_path).expect("trace");
    let packets = pcap::read_pcap(&pcap_path).expect("pcap");
    let offline: ExecRun = run_packets(
        &chain,
        &packets,
        &ExecOptions {
            collect_output: true,
            ..ExecOptions::default()
        },
    )
    .expect("executor");
    let rep = &offline.report;
    assert!(
        rep.dropped > 0 && rep.exited > 0,
        "the trace should exercise drops and exits: {rep:#?}"
    );
    let mut exits_before = vec![0usize; packets.len() + 1];
    for t in &offline.output_tags {
        exits_before[t.input as usize + 1] += 1;
    }
    for i in 0..packets.len() {
        exits_before[i + 1] += exits_before[i];
    }
    let n_ports: Vec<usize> = rep.nfs.iter().map(|n| n.out.len()).collect();
    let dep_v = deployment(&chain, &n_ports, zero_copy, &dir.path().join("mon.sock"));
    let dep = dir.path().join("deploy.json");
    std::fs::write(&dep, dep_v.to_json()).unwrap();
    Deployment::load(&dep).expect("valid deployment");

    let topo = Topo::new();
    quiet(&topo);
    let mut monitor = spawn_monitor(&topo.dut.name, &dep);
    let mut hosts = vec![];
    for nf in &chain.nfs {
        let mut cmd = Command::new(BIN);
        cmd.arg("nf").arg(&dep).arg(&nf.id).uid(NOBODY).gid(NOBODY);
        let (mut p, line) = spawn_ready(cmd, &nf.id);
        assert!(
            line.contains("ready"),
            "{}: {line}{}",
            nf.id,
            stderr_of(&mut p)
        );
        hosts.push(p);
    }
    let (tx, rx) = in_netns(&topo.peer.name, || (ip_socket("vi0"), ip_socket("vo0")));
    let mut online = drive(&tx, &rx, &packets, &exits_before, 32);

    // Stats while the chain runs: per-NF and per-link counters match the
    // executor. Inputs after the last exiting one may still be on their way
    // to a drop, so re-read until every NF has seen what it will see.
    let settled = |st: &serde_json::Value| {
        rep.nfs.iter().enumerate().all(|(i, nf)| {
            let c = &st["nfs"][i]["counters"];
            c["rx_iface"].as_u64().unwrap_or(0) + c["rx_link"].as_u64().unwrap_or(0) >= nf.rx
        })
    };
    let mut st = stats(&dep);
    for _ in 0..2000 {
        if settled(&st) {
            break;
        }
        std::thread::yield_now();
        st = stats(&dep);
    }
    for (i, nf) in rep.nfs.iter().enumerate() {
        let c = &st["nfs"][i]["counters"];
        let get = |k: &str| {
            c[k].as_u64()
                .unwrap_or_else(|| panic!("{}: no `{k}` in {c:#}", nf.id))
        };
        assert_eq!(st["nfs"][i]["id"], nf.id.as_str());
        // The hosts run under their seccomp sandbox: it refused nothing.
        assert_eq!(get("syscalls_refused"), 0, "{}: sandbox refusals", nf.id);
        assert_eq!(
            get("rx_iface") + get("rx_link"),
            nf.rx,
            "{}: packets in; stats {c:#}",
            nf.id
        );
        assert_eq!(get("drop_verdict"), nf.drops, "{}: drops", nf.id);
        assert_eq!(
            get("tx_iface") + get("tx_link"),
            nf.out.iter().sum::<u64>(),
            "{}: packets out",
            nf.id
        );
        let single_in = st["links"].as_array().unwrap().iter().any(|l| {
            l["to"]
                .as_str()
                .is_some_and(|t| t.starts_with(&format!("{}:", nf.id)))
                && l["mode"] == "single-copy"
                && l["counters"]["packets"].as_u64() > Some(0)
        });
        assert_eq!(get("copies") > 0, single_in, "{}: copies {c:#}", nf.id);
        for (port, &want) in nf.out.iter().enumerate() {
            let from = format!("{}:{port}", nf.id);
            let link = st["links"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["from"] == from.as_str())
                .unwrap_or_else(|| panic!("no link {from}"));
            assert_eq!(
                link["counters"]["packets"].as_u64(),
                Some(want),
                "link {from}: {link:#}"
            );
        }
    }
    assert!(
        st["sockets"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["kernel"]["rx_dropped"].as_u64().unwrap_or(0) == 0),
        "{st:#}"
    );

    let mut want: Vec<Vec<u8>> = offline
        .output
        .as_ref()
        .unwrap()
        .iter()
        .map(|p| p.data.to_vec())
        .collect();
    assert_eq!(
        online.len(),
        want.len(),
        "frames out: on line {} vs executor {}; stats {st:#}",
        online.len(),
        want.len()
    );
    online.sort();
    want.sort();
    let differing = online.iter().zip(&want).filter(|(a, b)| a != b).count();
    assert_eq!(
        differing, 0,
        "{differing} frames differ from the executor's"
    );

    drop(hosts);
    let status = monitor.stop();
    assert!(
        status.success(),
        "monitor: {status:?} {}",
        stderr_of(&mut monitor)
    );
    assert!(!topo.dut_link("vi1").contains("xdp"), "XDP left attached");
}

const FLASH_DAG: &str = "
name: flash-dag
nfs:
  - id: fw
    nf: firewall
    config:
      default_action: allow
      rules:
        - {src: 10.66.0.0/16, action: drop}
        - {proto: tcp, dst_port: 23, action: drop}
  - id: lb
    nf: maglev
    config:
      table_size: 251
      backends:
        - {ip: 10.0.1.1, mac: \"02:00:00:00:01:01\", port: 0}
        - {ip: 10.0.1.2, mac: \"02:00:00:00:01:02\", port: 1}
  - id: mon_a
    nf: flow_monitor
  - id: count_b
    nf: src_ip_counter
  - id: out
    nf: l2fwd
    config: {src_mac: \"02:00:00:00:00:01\", dst_mac: \"02:00:00:00:00:02\"}
edges:
  - {from: fw, to: lb}
  - {from: lb, port: 0, to: mon_a}
  - {from: lb, port: 1, to: count_b}
  - {from: mon_a, to: out}
  - {from: count_b, to: out}
";

const FLOWMAGE_3NF: &str = "
name: flowmage-3nf
nfs:
  - id: psd
    nf: port_scan_detector
    config: {threshold: 8, window_ms: 600000, action: drop}
  - id: policer
    nf: policer
    config: {rate: 1, burst: 6032}
  - id: counter
    nf: flow_counter
chain: [psd, policer, counter]
";

fn traffic(seed: u64, src_prefix: &str) -> TrafficSpec {
    TrafficSpec {
        flows: 96,
        packets: 1500,
        zipf: 0.9,
        tcp: 0.7,
        udp: 0.3,
        icmp: 0.0,
        sizes: nfc_core::chain::SizeMix::Weighted(vec![(64, 7), (576, 4), (1472, 1)]),
        bidirectional: 0.2,
        src_prefix: src_prefix.into(),
        dst_prefix: "192.168.0.0/26".into(),
        src_hosts: 24,
        dst_hosts: 12,
        seed,
    }
}

#[test]
fn netns_dag_flash_matches_executor() {
    if root_or_skip("netns_dag_flash_matches_executor") {
        // Half the sources fall in the firewall's dropped 10.66/16.
        check_against_executor(FLASH_DAG, traffic(3, "10.66.0.0/15"), true);
    }
}

#[test]
fn netns_dag_flowmage_single_copy_matches_executor() {
    if root_or_skip("netns_dag_flowmage_single_copy_matches_executor") {
        check_against_executor(FLOWMAGE_3NF, traffic(7, "10.0.0.0/24"), false);
    }
}

#[test]
fn netns_dag_flash_single_copy_matches_executor() {
    if root_or_skip("netns_dag_flash_single_copy_matches_executor") {
        check_against_executor(FLASH_DAG, traffic(5, "10.66.0.0/15"), false);
    }
}

#[test]
fn netns_dag_flowmage_zero_copy_matches_executor() {
    if root_or_skip("netns_dag_flowmage_zero_copy_matches_executor") {
        check_against_executor(FLOWMAGE_3NF, traffic(11, "10.0.0.0/24"), true);
    }
}
