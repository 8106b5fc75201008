//! The flash emitter end to end: chains are parsed from YAML, their NFs built
//! from `nfs/` with clang, and `emit_flash` writes a deployment and
//! Kubernetes manifests. Every manifest must deserialise into the real
//! Kubernetes API types (`k8s-openapi`: `apps/v1 DaemonSet`, `core/v1 Pod`)
//! with the security properties FLASH's split relies on: a privileged,
//! host-network monitor; NF pods that run as nobody, non-root, unprivileged,
//! with every capability dropped and the monitor's socket mounted. The
//! deployment must load back through `Deployment::parse` with the chain's
//! topology (fan-out by verdict port, fan-in on distinct input ports, exits
//! to the egress interface); bad chains give clear errors. A privileged
//! test (module `live`, skips loudly without root) runs an emitted
//! deployment on veth pairs and compares its output with the executor's.

use flash_rt::deploy::{Deployment, LinkDest, LinkMode, LinkSource};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;
use nfc::emit::flash::{emit_flash, EmittedFlash, FlashEmitError, NF_UID};
use nfc_core::chain::{ChainSpec, NfSource};
use std::path::{Path, PathBuf};

fn chain(yaml: &str) -> ChainSpec {
    nfc::driver::parse_chain_text(yaml, "chain.yaml")
        .unwrap_or_else(|e| panic!("chain does not parse: {e:?}"))
}

/// Build every built-in NF of `spec` (cached across runs) and pair it with its instance id.
fn objects(spec: &ChainSpec) -> Vec<(String, PathBuf)> {
    let opts = nfc_nfs::BuildOptions {
        out_dir: Path::new(env!("CARGO_TARGET_TMPDIR")).join("flash-k8s-nfs"),
        sanitize: false,
        extra_cflags: vec![],
    };
    spec.nfs
        .iter()
        .map(|inst| {
            let NfSource::Builtin { name } = &inst.source else {
                panic!("test chains use built-in NFs")
            };
            let nf = nfc_nfs::builtin(name).expect("built-in NF");
            let built = nfc_nfs::build(name, &nf.sources, &opts)
                .unwrap_or_else(|e| panic!("build {name}: {e}"));
            (inst.id.0.clone(), built.so)
        })
        .collect()
}

fn emit(yaml: &str) -> (Result<EmittedFlash, FlashEmitError>, tempfile::TempDir) {
    let spec = chain(yaml);
    let objs = objects(&spec);
    let dir = tempfile::tempdir().unwrap();
    (emit_flash(&spec, &objs, dir.path()), dir)
}

/// The links of a deployment as `from -> to [mode]` lines.
fn link_lines(d: &Deployment) -> Vec<String> {
    let t = d.topology().expect("valid topology");
    t.links
        .iter()
        .map(|l| {
            let from = match l.source {
                LinkSource::Iface(i) => format!("iface:{}", d.monitor.interfaces[i].ifname),
                LinkSource::Nf { nf, port } => format!("{}.{port}", d.nfs[nf].id),
            };
            let to = match l.dest {
                LinkDest::Iface(i) => format!("iface:{}", d.monitor.interfaces[i].ifname),
                LinkDest::Nf { nf, port } => format!("{}<{port}", d.nfs[nf].id),
            };
            let mode = match (l.source, l.dest, l.mode) {
                (LinkSource::Nf { .. }, LinkDest::Nf { .. }, LinkMode::ZeroCopy) => " zc",
                (LinkSource::Nf { .. }, LinkDest::Nf { .. }, LinkMode::SingleCopy) => " sc",
                _ => "",
            };
            format!("{from} -> {to}{mode}")
        })
        .collect()
}

/// Emit `yaml` and compare the deployment's links (and group count) with `expect`.
fn check(yaml: &str, expect: &[&str], groups: usize) -> EmittedFlash {
    let (out, _dir) = emit(yaml);
    let out = out.unwrap_or_else(|e| panic!("emit failed: {e}"));
    assert_eq!(link_lines(&out.deployment), expect);
    assert_eq!(
        out.deployment.topology().unwrap().groups.len(),
        groups,
        "groups: {:?}",
        out.deployment.groups
    );
    check_manifests(&out);
    out
}

fn check_err(yaml: &str, expect: &str) {
    let (out, _dir) = emit(yaml);
    let Err(err) = out else {
        panic!("emit should fail")
    };
    let err = err.to_string();
    assert!(err.contains(expect), "expected `{expect}` in: {err}");
}

/// Deserialise and check every manifest against the Kubernetes API types.
fn check_manifests(out: &EmittedFlash) {
    let dep_path = out.deployment_path.display().to_string();
    // Loading back from disk gives the same deployment.
    assert_eq!(
        Deployment::load(&out.deployment_path).unwrap(),
        out.deployment
    );
    let sock_dir = out
        .deployment
        .monitor
        .socket
        .parent()
        .unwrap()
        .display()
        .to_string();

    let ds: DaemonSet = nfc_core::yaml::from_str(
        &std::fs::read_to_string(&out.monitor_manifest).unwrap(),
        "monitor manifest",
    )
    .expect("DaemonSet");
    let pod = ds.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    assert_eq!(pod.host_network, Some(true));
    assert_eq!(
        pod.host_pid,
        Some(true),
        "the monitor must see NF pods' pids (SO_PEERCRED)"
    );
    let c = &pod.containers[0];
    assert_eq!(c.security_context.as_ref().unwrap().privileged, Some(true));
    assert_eq!(
        c.command.as_ref().unwrap()[..3],
        ["flash-rt".to_string(), "monitor".into(), dep_path.clone()]
    );
    let mounts: Vec<&str> = c
        .volume_mounts
        .as_ref()
        .unwrap()
        .iter()
        .map(|m| m.mount_path.as_str())
        .collect();
    assert!(mounts.contains(&sock_dir.as_str()), "{mounts:?}");
    let selector = ds
        .spec
        .as_ref()
        .unwrap()
        .selector
        .match_labels
        .clone()
        .unwrap();
    assert_eq!(
        Some(&selector),
        ds.spec
            .as_ref()
            .unwrap()
            .template
            .metadata
            .as_ref()
            .unwrap()
            .labels
            .as_ref()
    );

    assert_eq!(out.nf_manifests.len(), out.deployment.nfs.len());
    let mut names = vec![];
    for ((id, path), nf) in out.nf_manifests.iter().zip(&out.deployment.nfs) {
        assert_eq!(id, &nf.id);
        assert_eq!(nf.uid, Some(NF_UID));
        assert!(
            nf.object.is_absolute() && nf.object.is_file(),
            "{}",
            nf.object.display()
        );
        let pod: Pod =
            nfc_core::yaml::from_str(&std::fs::read_to_string(path).unwrap(), "pod manifest")
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = pod.metadata.name.clone().unwrap();
        assert!(
            name.len() <= 63
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{name}"
        );
        names.push(name);
        let spec = pod.spec.unwrap();
        assert_ne!(spec.host_network, Some(true));
        let psc = spec.security_context.unwrap();
        assert_eq!(
            (psc.run_as_non_root, psc.run_as_user),
            (Some(true), Some(i64::from(NF_UID)))
        );
        let c = &spec.containers[0];
        let sc = c.security_context.clone().unwrap();
        assert_eq!(sc.privileged, Some(false));
        assert_eq!(sc.allow_privilege_escalation, Some(false));
        assert_eq!(sc.run_as_user, Some(i64::from(NF_UID)));
        assert_eq!(
            sc.capabilities.clone().unwrap().drop.unwrap(),
            vec!["ALL".to_string()]
        );
        assert!(sc.capabilities_add_is_none_or_empty());
        assert_eq!(
            c.command.as_ref().unwrap()[..4],
            [
                "flash-rt".to_string(),
                "nf".into(),
                dep_path.clone(),
                nf.id.clone()
            ]
        );
        let req = c.resources.as_ref().unwrap().requests.as_ref().unwrap();
        assert!(
            req.contains_key("cpu") && req.contains_key("memory"),
            "{req:?}"
        );
        let vols = spec.volumes.unwrap();
        let sock = vols
            .iter()
            .find(|v| v.host_path.as_ref().is_some_and(|h| h.path == sock_dir))
            .expect("socket hostPath volume");
        let m = c
            .volume_mounts
            .as_ref()
            .unwrap()
            .iter()
            .find(|m| m.name == sock.name)
            .expect("socket mounted");
        assert_eq!(m.mount_path, sock_dir);
        assert!(
            vols.iter().all(|v| v.host_path.is_none()
                || v.name == sock.name
                || c.volume_mounts
                    .as_ref()
                    .unwrap()
                    .iter()
                    .any(|m| m.name == v.name && m.read_only == Some(true))),
            "other host paths must be read-only"
        );
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), out.deployment.nfs.len(), "pod names collide");
}

trait CapsExt {
    fn capabilities_add_is_none_or_empty(&self) -> bool;
}

impl CapsExt for k8s_openapi::api::core::v1::SecurityContext {
    fn capabilities_add_is_none_or_empty(&self) -> bool {
        self.capabilities
            .as_ref()
            .and_then(|c| c.add.as_ref())
            .is_none_or(|a| a.is_empty())
    }
}

const DAG: &str = include_str!("../examples/flash-dag.yaml");

#[test]
fn flash_dag_zero_copy_fans_out_by_port_and_in_on_distinct_ports() {
    let out = check(
        DAG,
        &[
            "iface:veth-in -> fw<0",
            "fw.0 -> lb<0 zc",
            "lb.0 -> mon_a<0 zc",
            "lb.1 -> count_b<0 zc",
            "mon_a.0 -> out<0 zc",
            "count_b.0 -> out<1 zc",
            "out.0 -> iface:veth-out",
        ],
        1,
    );
    let lb = &out.deployment.nfs[1];
    assert_eq!(
        lb.config
            .iter()
            .find(|(k, _)| k == "backends.1.port")
            .map(|(_, v)| v.as_str()),
        Some("1")
    );
    assert!(out.notes.is_empty(), "{:?}", out.notes);
}

#[test]
fn flash_dag_single_copy_gives_each_nf_its_own_umem() {
    check(
        &DAG.replace("mode: zero-copy", "mode: single-copy"),
        &[
            "iface:veth-in -> fw<0",
            "fw.0 -> lb<0 sc",
            "lb.0 -> mon_a<0 sc",
            "lb.1 -> count_b<0 sc",
            "mon_a.0 -> out<0 sc",
            "count_b.0 -> out<1 sc",
            "out.0 -> iface:veth-out",
        ],
        5,
    );
}

const LINE: &str = "name: Line_Chain\nnfs:\n  - {id: fw, nf: firewall, config: {default_action: allow}}\n  - {id: counter, nf: flow_counter}\n  - {id: fwd, nf: l2fwd, config: {src_mac: \"02:00:00:00:00:01\", dst_mac: \"02:00:00:00:00:02\"}}\nchain: [fw, counter, fwd]\n";

#[test]
fn flash_hairpin_single_copy_groups_nfs_on_one_queue() {
    let out = check(
        &format!("{LINE}targets:\n  flash: {{ingress: eth3, mode: single-copy}}\n"),
        &[
            "iface:eth3 -> fw<0",
            "fw.0 -> counter<0 sc",
            "counter.0 -> fwd<0 sc",
            "fwd.0 -> iface:eth3",
        ],
        2,
    );
    assert!(
        out.notes.iter().any(|n| n.contains("egress not set")),
        "{:?}",
        out.notes
    );
    assert_eq!(out.deployment.groups.len(), 1);
    assert_eq!(out.deployment.groups[0].nfs, ["fw", "fwd"]);
    assert!(out
        .nf_manifests
        .iter()
        .any(|(_, p)| p.ends_with("k8s/nf-counter.yaml")));
}

/// `resources.cpus` pins NF hosts: a CPU each when there are enough, else
/// contiguous runs of the chain; without it nothing is pinned.
#[test]
fn flash_pins_nf_hosts_to_resources_cpus_in_chain_order() {
    let cpus_of = |yaml: &str| -> Vec<Vec<u32>> {
        let (out, _dir) = emit(yaml);
        let out = out.expect("emits");
        out.deployment.nfs.iter().map(|n| n.cpus.clone()).collect()
    };
    assert_eq!(cpus_of(LINE), vec![Vec::<u32>::new(); 3]);
    assert_eq!(
        cpus_of(&format!("{LINE}resources:\n  cpus: [4, 5, 6, 7]\n")),
        vec![vec![4], vec![5], vec![6]]
    );
    assert_eq!(
        cpus_of(&format!("{LINE}resources:\n  cpus: [2, 3]\n")),
        vec![vec![2], vec![2], vec![3]]
    );
    // The chain's order, not the order NFs are declared in.
    let reordered = LINE.replace("chain: [fw, counter, fwd]", "chain: [fwd, counter, fw]");
    assert_eq!(
        cpus_of(&format!("{reordered}resources:\n  cpus: [2, 3]\n")),
        vec![vec![3], vec![2], vec![2]]
    );
    let (out, _dir) = emit(&format!("{LINE}resources:\n  cpus: [2, 3]\n"));
    let notes = out.unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("fw@2, counter@2, fwd@3") && n.contains("more NFs than CPUs")),
        "{notes:?}"
    );
}

#[test]
fn flash_defaults_are_zero_copy_on_eth0() {
    let out = check(
        LINE,
        &[
            "iface:eth0 -> fw<0",
            "fw.0 -> counter<0 zc",
            "counter.0 -> fwd<0 zc",
            "fwd.0 -> iface:eth0",
        ],
        1,
    );
    assert_eq!(out.notes.len(), 3, "{:?}", out.notes);
    assert!(out.deployment.monitor.socket.ends_with("Line_Chain.sock"));
}

#[test]
fn flash_errors_are_clear() {
    // Two entry NFs: the ingress queue can feed only one.
    check_err(
        "nfs:\n  - {id: a, nf: l2fwd}\n  - {id: b, nf: l2fwd}\n  - {id: c, nf: l2fwd}\nedges:\n  - {from: a, to: c}\n  - {from: b, to: c}\n",
        "2 entry NFs (a, b)",
    );
    // nf_init rejects the configuration.
    check_err(
        &LINE.replace("default_action: allow", "default_action: maybe"),
        "NF `fw`: ",
    );
    // Interface names the kernel cannot have.
    check_err(
        &format!("{LINE}targets:\n  flash: {{ingress: an-interface-name-too-long}}\n"),
        "is not a valid interface name",
    );
}

#[test]
fn flash_missing_and_stray_objects_are_reported() {
    let spec = chain(LINE);
    let mut objs = objects(&spec);
    objs.remove(1);
    objs.push(("ghost".into(), PathBuf::from("/nonexistent.so")));
    let dir = tempfile::tempdir().unwrap();
    let err = emit_flash(&spec, &objs, dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("NF `counter` has no built shared object"),
        "{err}"
    );
    assert!(err.contains("`ghost`, which is not an NF"), "{err}");
}

// ---------------------------------------------------------------------------
// The emitted deployment runs: a privileged test (skips loudly without root)
// that emits a chain for two veth interfaces, runs the monitor and every NF
// host in this process (monitor thread inside the DUT namespace, one thread
// per NF), sends UDP frames from a peer namespace and checks that exactly the
// frames the reference executor predicts come out of the egress.

#[path = "../crates/flash-rt/tests/netns_common/mod.rs"]
mod netns_common;

mod live {
    use super::*;
    use flash_rt::host::cnf::CNf;
    use flash_rt::host::{NfHost, RunOptions};
    use flash_rt::monitor::{Monitor, MonitorOptions};
    use flash_rt::offline::{run_packets, ExecChain, ExecOptions};
    use flash_rt::trace::craft::PacketBuilder;
    use flash_rt::trace::Packets;
    use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
    use std::process::Command;

    use super::netns_common::{self, root_or_skip, spawn_in_netns as in_ns, Topo};

    /// `nfc run <dir>` in namespace `dut`; its stderr lines as they come,
    /// and a thread that returns all of them once it exits.
    fn nfc_run(
        dut: &str,
        dir: &Path,
    ) -> (
        std::process::Child,
        std::sync::mpsc::Receiver<String>,
        std::thread::JoinHandle<String>,
    ) {
        use std::io::BufRead;
        let mut nfc = Command::new("ip")
            .args(["netns", "exec", dut, env!("CARGO_BIN_EXE_nfc"), "run"])
            .arg(dir)
            .args(["--duration", "120"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let stderr = nfc.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut all = String::new();
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                all.push_str(&line);
                all.push('\n');
                let _ = tx.send(line);
            }
            all
        });
        (nfc, rx, reader)
    }

    /// AF_PACKET socket on `ifname` seeing IPv4 frames only.
    /// The reference executor's run of `packets` and, per packet, whether
    /// it leaves the chain.
    fn predicted_exits(
        exec: &flash_rt::offline::ExecChain,
        packets: &Packets,
    ) -> (flash_rt::offline::ExecRun, Vec<bool>) {
        let run = run_packets(
            exec,
            packets,
            &ExecOptions {
                collect_output: true,
                ..ExecOptions::default()
            },
        )
        .expect("executor");
        let mut exits = vec![false; packets.len()];
        run.output_tags
            .iter()
            .for_each(|t| exits[t.input as usize] = true);
        (run, exits)
    }

    fn ip_socket(ifname: &str) -> OwnedFd {
        netns_common::packet_socket_for(ifname, 0x0800).0
    }

    const CHAIN: &str = "name: live\nnfs:\n  - {id: fw, nf: firewall, config: {default_action: allow, rules: [{proto: udp, dst_port: 53, action: drop}]}}\n  - {id: counter, nf: flow_counter}\n  - {id: fwd, nf: l2fwd, config: {src_mac: \"02:00:00:00:00:01\", dst_mac: \"02:00:00:00:00:02\"}}\nchain: [fw, counter, fwd]\ntargets:\n  flash: {ingress: vi1, egress: vo1, mode: single-copy}\n";

    /// Two namespaces joined by veth pairs vi0<->vi1 and vo0<->vo1 (the `1`
    /// ends in the DUT namespace), deleted on drop; `None` without root.
    /// The DUT and peer namespaces joined by vi0<->vi1 and vo0<->vo1, IPv6
    /// off (netns_common's harness): (guard, DUT name, peer name); `None`
    /// (after a loud skip line) without root or netns support.
    fn dut_and_peer(test: &str) -> Option<(Topo, String, String)> {
        if !root_or_skip(test) {
            return None;
        }
        let topo = Topo::new();
        netns_common::quiet(&topo);
        let (dut, peer) = (topo.dut.name.clone(), topo.peer.name.clone());
        Some((topo, dut, peer))
    }

    #[test]
    fn flash_emitted_deployment_forwards_what_the_executor_predicts() {
        let Some((_ns, dut, peer)) =
            dut_and_peer("flash_emitted_deployment_forwards_what_the_executor_predicts")
        else {
            return;
        };
        // Emit, then run as root in-process (no per-NF uid) with a private socket.
        let spec = chain(CHAIN);
        let objs = objects(&spec);
        let dir = tempfile::tempdir().unwrap();
        let out = emit_flash(&spec, &objs, dir.path()).expect("emit");
        let mut dep = out.deployment.clone();
        dep.monitor.socket = dir.path().join("mon.sock");
        for nf in &mut dep.nfs {
            (nf.uid, nf.gid) = (None, None);
        }
        // Stop signal for every thread: an eventfd made readable at the end.
        // SAFETY: plain eventfd() call.
        let stop = std::sync::Arc::new(unsafe {
            OwnedFd::from_raw_fd(libc::eventfd(0, libc::EFD_CLOEXEC))
        });
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
        let monitor = {
            let (dep, stop, ready) = (dep.clone(), stop.clone(), ready_tx.clone());
            in_ns(&dut, move || {
                let mut m = match Monitor::setup(dep, &MonitorOptions::default()) {
                    Ok(m) => m,
                    Err(e) => return ready.send(Err(e.to_string())).unwrap(),
                };
                ready.send(Ok(())).unwrap();
                m.run(stop.as_fd(), &mut |_| {}).expect("monitor run");
            })
        };
        ready_rx.recv().unwrap().expect("monitor setup");
        let scratch = tempfile::tempdir().unwrap();
        let mut hosts = vec![];
        for nf in dep.nfs.clone() {
            let (dep, stop, ready, scratch) = (
                dep.clone(),
                stop.clone(),
                ready_tx.clone(),
                scratch.path().to_path_buf(),
            );
            hosts.push(std::thread::spawn(move || {
                let mut c = CNf::load(&nf.id, &nf.object, &nf.config, &scratch).expect("load NF");
                let mut host = NfHost::attach(dep, &nf.id).expect("attach");
                ready.send(Ok(())).unwrap();
                host.run(&mut c, stop.as_fd(), &RunOptions::default())
                    .expect("run");
            }));
        }
        for _ in &dep.nfs {
            ready_rx.recv().unwrap().unwrap();
        }
        let (exits, want) = executor_prediction(&spec, &dep);
        let got = exchange(&peer, exits);
        let one: u64 = 1;
        // SAFETY: writing 8 bytes to our eventfd stops every thread.
        unsafe { libc::write(stop.as_raw_fd(), (&one as *const u64).cast(), 8) };
        for h in hosts {
            h.join().expect("NF host thread");
        }
        monitor.join().expect("monitor thread");
        same_frames(got, want);
        assert!(!dep.monitor.socket.exists(), "monitor socket left behind");
    }

    /// A frame to send, and whether the executor predicts it leaves the chain.
    type SentFrame = (Vec<u8>, bool);

    /// The frames of the live tests: 300 UDP frames over 30 flows, every
    /// third one to port 53 (the chain's firewall drops those).
    fn test_packets() -> Packets {
        let mut packets = Packets::new();
        for i in 0..300u32 {
            let dport = if i % 3 == 0 {
                53
            } else {
                1000 + (i % 10) as u16
            };
            let f = PacketBuilder::udp(
                [10, 0, 0, (i % 30) as u8 + 1].into(),
                [192, 168, 1, 1].into(),
                4000 + (i % 30) as u16,
                dport,
            )
            .payload(&i.to_be_bytes())
            .frame_len(96)
            .build();
            packets.push(u64::from(i) * 1000, &f);
        }
        packets
    }

    /// What the reference executor predicts for the test frames through the
    /// deployment's NF objects: per input frame whether it leaves the chain,
    /// and the frames that leave.
    fn executor_prediction(spec: &ChainSpec, dep: &Deployment) -> (Vec<SentFrame>, Vec<Vec<u8>>) {
        let packets = test_packets();
        let exec = ExecChain::from_spec(
            spec,
            |inst| {
                dep.nfs
                    .iter()
                    .find(|n| n.id == inst.id.0)
                    .unwrap()
                    .object
                    .clone()
            },
            None,
        );
        let (run, exits) = predicted_exits(&exec, &packets);
        assert_eq!(run.report.exited, 200, "{:#?}", run.report);
        let frames = packets.iter().map(|p| p.data.to_vec()).zip(exits).collect();
        let want = run
            .output
            .unwrap()
            .iter()
            .map(|p| p.data.to_vec())
            .collect();
        (frames, want)
    }

    /// Send each frame into vi0 from the peer namespace and, when it is
    /// predicted to leave the chain, receive one frame from vo0.
    fn exchange(peer: &str, frames: Vec<SentFrame>) -> Vec<Vec<u8>> {
        in_ns(peer, move || {
            let (tx, rx) = (ip_socket("vi0"), ip_socket("vo0"));
            let mut got = vec![];
            let mut buf = vec![0u8; 2048];
            for (f, exits) in &frames {
                // SAFETY: sending our buffer.
                assert_eq!(
                    unsafe { libc::send(tx.as_raw_fd(), f.as_ptr().cast(), f.len(), 0) },
                    f.len() as isize
                );
                if *exits {
                    // SAFETY: receiving into our buffer.
                    let rc = unsafe {
                        libc::recv(rx.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0)
                    };
                    if rc < 0 {
                        break;
                    }
                    got.push(buf[..rc as usize].to_vec());
                }
            }
            got
        })
        .join()
        .unwrap()
    }

    fn same_frames(mut got: Vec<Vec<u8>>, mut want: Vec<Vec<u8>>) {
        got.sort();
        want.sort();
        assert_eq!(got.len(), want.len(), "frames out of the emitted chain");
        assert!(got == want, "frames differ from the executor's");
    }

    /// `nfc run <deployment dir>` as the operator runs it: the monitor in the
    /// nfc process, each NF a separate process as uid 65534 (the emitted
    /// deployment's user), the output equal to the executor's prediction,
    /// and SIGTERM stopping everything with no XDP program left behind.
    #[test]
    fn nfc_run_serves_an_emitted_deployment_with_unprivileged_nfs() {
        let Some((_ns, dut, peer)) =
            dut_and_peer("nfc_run_serves_an_emitted_deployment_with_unprivileged_nfs")
        else {
            return;
        };
        let (spec, dir, out) = emit_readable_by_nf_user();
        let mut dep = out.deployment.clone();
        assert!(dep.nfs.iter().all(|n| n.uid == Some(NF_UID)));
        dep.monitor.socket = dir.path().join("mon.sock");
        std::fs::write(
            &out.deployment_path,
            serde_json::to_string_pretty(&dep).unwrap(),
        )
        .unwrap();
        // Wait until the monitor says every NF attached (as uid 65534).
        let (mut nfc, rx, reader) = nfc_run(&dut, dir.path());
        let mut attached = 0;
        while attached < dep.nfs.len() {
            match rx.recv_timeout(std::time::Duration::from_secs(60)) {
                Ok(line) if line.contains("attached NF") => {
                    assert!(line.contains(&format!("uid {NF_UID}")), "{line}");
                    attached += 1;
                }
                Ok(_) => {}
                Err(_) => {
                    let _ = nfc.kill();
                    panic!("NFs did not attach: {}", reader.join().unwrap());
                }
            }
        }
        let (exits, want) = executor_prediction(&spec, &dep);
        let got = exchange(&peer, exits);
        // SAFETY: signalling our child (ip netns exec execs nfc in place).
        unsafe { libc::kill(nfc.id() as i32, libc::SIGTERM) };
        let status = nfc.wait().unwrap();
        let log = reader.join().unwrap();
        let mut stdout = String::new();
        std::io::Read::read_to_string(&mut nfc.stdout.take().unwrap(), &mut stdout).unwrap();
        assert!(status.success(), "{status}\n{log}\n{stdout}");
        same_frames(got, want);
        // No `cpus` in the emitted deployment: nfc run pins the hosts a CPU
        // each, in chain order (fw, counter, fwd), where it may use more
        // CPUs than there are hosts, and otherwise leaves them to the
        // scheduler.
        let cpus = flash_rt::host::allowed_cpus();
        let placed = if cpus.len() > 3 {
            format!(
                "pinning NF hosts: fw@cpu{}, counter@cpu{}, fwd@cpu{}",
                cpus[0], cpus[1], cpus[2]
            )
        } else {
            format!("not pinning NF hosts: 3 hosts on {} CPUs", cpus.len())
        };
        assert!(log.contains(&placed), "no `{placed}` in\n{log}");
        assert!(stdout.contains("stopped"), "{stdout}");
        assert!(!dep.monitor.socket.exists(), "monitor socket left behind");
        let link = Command::new("ip")
            .args(["-n", &dut, "link", "show", "vi1"])
            .output()
            .unwrap();
        assert!(
            !String::from_utf8_lossy(&link.stdout).contains("xdp"),
            "XDP left on vi1"
        );
    }

    /// `nfc run` on a deployment whose interface does not exist: a located
    /// diagnostic, exit 1, and nothing left behind (socket, NF processes).
    #[test]
    fn nfc_run_reports_a_missing_interface() {
        use std::os::unix::fs::PermissionsExt;
        let Some((_ns, dut, _peer)) = dut_and_peer("nfc_run_reports_a_missing_interface") else {
            return;
        };
        let spec = chain(&CHAIN.replace("ingress: vi1", "ingress: nosuch0"));
        let dir = tempfile::tempdir_in("/tmp").unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = emit_flash(&spec, &objects(&spec), dir.path()).expect("emit");
        let mut dep = out.deployment.clone();
        dep.monitor.socket = dir.path().join("mon.sock");
        let run = write_and_run(&dut, &out.deployment_path, &dep, "30");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("E0603") && stderr.contains("nosuch0"),
            "{stderr}"
        );
        assert!(!dep.monitor.socket.exists(), "monitor socket left behind");
    }

    /// `nfc run` where one NF's host cannot reach the monitor socket: the
    /// deployment runs `counter` as uid 4242 but the socket lives in a
    /// directory only uid 65534 may enter. Its host exits at once; the run
    /// stops with E0606 naming that NF, its exit status and its stderr, exit
    /// 1, and leaves no socket, XDP program or NF process behind.
    #[test]
    fn nfc_run_reports_an_nf_that_cannot_attach() {
        use std::os::unix::fs::PermissionsExt;
        let Some((_ns, dut, _peer)) = dut_and_peer("nfc_run_reports_an_nf_that_cannot_attach")
        else {
            return;
        };
        let (_spec, dir, out) = emit_readable_by_nf_user();
        let private = dir.path().join("private");
        std::fs::create_dir(&private).unwrap();
        std::os::unix::fs::chown(&private, Some(NF_UID), Some(NF_UID)).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        let mut dep = out.deployment.clone();
        dep.monitor.socket = private.join("mon.sock");
        let counter = dep.nf_index("counter").expect("counter NF");
        dep.nfs[counter].uid = Some(4242);
        dep.nfs[counter].gid = Some(4242);
        let run = write_and_run(&dut, &out.deployment_path, &dep, "120");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{stderr}");
        let sock = dep.monitor.socket.display().to_string();
        // The pid differs per run: compare the diagnostic with it blanked.
        let diag: Vec<String> = stderr
            .lines()
            .skip_while(|l| !l.starts_with("error[E0606]"))
            .map(blank_pid)
            .collect();
        let want = [
            "error[E0606]: the host of NF `counter` (pid _) exited with status 1 before attaching to the monitor".to_string(),
            "  = note: last stderr of NF `counter`'s host:".to_string(),
            format!("    error[E0607]: NF `counter`: cannot reach the monitor at {sock}: Permission denied (os error 13)"),
            format!("      = hint: uid 4242 may not reach {sock}: every directory above the socket needs search (x) permission for the NF's user"),
            "    1 error found".to_string(),
            format!("  = hint: the host runs as uid 4242 and cannot reach the monitor socket {sock}: every directory above it needs search (x) permission for that user"),
            "1 error found".to_string(),
        ];
        assert_eq!(diag, want, "{stderr}");
        assert!(!dep.monitor.socket.exists(), "monitor socket left behind");
        for itf in ["vi1", "vo1"] {
            let link = Command::new("ip")
                .args(["-n", &dut, "link", "show", itf])
                .output()
                .unwrap();
            assert!(
                !String::from_utf8_lossy(&link.stdout).contains("xdp"),
                "XDP left on {itf}"
            );
        }
        // No NF host of this deployment is still running.
        let deployment = out.deployment_path.display().to_string();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            if let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) {
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                assert!(
                    !(cmd.contains("nf-host") && cmd.contains(&deployment)),
                    "NF host left running: {cmd}"
                );
            }
        }
    }

    /// `line` with the number after `(pid ` replaced by `_`.
    /// Emit CHAIN into a fresh 0755 directory under /tmp holding the
    /// objects, the deployment and (later) the socket: everything the NF
    /// user opens must be readable by it.
    fn emit_readable_by_nf_user() -> (ChainSpec, tempfile::TempDir, EmittedFlash) {
        use std::os::unix::fs::PermissionsExt;
        let spec = chain(CHAIN);
        let dir = tempfile::tempdir_in("/tmp").unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let objs: Vec<(String, PathBuf)> = objects(&spec)
            .into_iter()
            .map(|(id, so)| {
                let copy = dir.path().join(format!("{id}.so"));
                std::fs::copy(&so, &copy).unwrap();
                (id, copy)
            })
            .collect();
        let out = emit_flash(&spec, &objs, dir.path()).expect("emit");
        (spec, dir, out)
    }

    /// Write `dep` over the emitted deployment and `nfc run` its directory
    /// in namespace `dut` for at most `secs` seconds.
    fn write_and_run(dut: &str, path: &Path, dep: &Deployment, secs: &str) -> std::process::Output {
        std::fs::write(path, serde_json::to_string_pretty(dep).unwrap()).unwrap();
        Command::new("ip")
            .args(["netns", "exec", dut, env!("CARGO_BIN_EXE_nfc"), "run"])
            .arg(path.parent().unwrap())
            .args(["--duration", secs])
            .output()
            .unwrap()
    }

    fn blank_pid(line: &str) -> String {
        match line.split_once("(pid ") {
            Some((head, rest)) => {
                let tail = rest.trim_start_matches(|c: char| c.is_ascii_digit());
                format!("{head}(pid _{tail}")
            }
            None => line.to_string(),
        }
    }

    /// `nfc run` refusals before anything is set up, on an emitted
    /// deployment: not root (E0601), a deployment that does not load
    /// (E0602), a deployment the NF user cannot read (E0604). Each exits 1
    /// with the diagnostic's first line as given.
    #[test]
    fn nfc_run_refuses_before_setup() {
        use std::os::unix::fs::PermissionsExt;
        use std::os::unix::process::CommandExt;
        // SAFETY: geteuid never fails.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("SKIPPED: needs root (nfc_run_refuses_before_setup)");
            return;
        }
        let spec = chain(CHAIN);
        let dir = tempfile::tempdir_in("/tmp").unwrap();
        let out = emit_flash(&spec, &objects(&spec), dir.path()).expect("emit");
        let file = out.deployment_path.clone();
        let check_with =
            |args: &[&str], as_nobody: bool, mode: u32, text: Option<&str>, expect: &str| {
                std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode))
                    .unwrap();
                if let Some(t) = text {
                    std::fs::write(&file, t).unwrap();
                }
                let mut cmd = Command::new(env!("CARGO_BIN_EXE_nfc"));
                cmd.arg("run").arg(dir.path()).args(args);
                if as_nobody {
                    cmd.uid(NF_UID).gid(NF_UID);
                }
                let run = cmd.output().unwrap();
                let stderr = String::from_utf8_lossy(&run.stderr);
                assert_eq!(run.status.code(), Some(1), "{stderr}");
                assert_eq!(stderr.lines().next(), Some(expect), "{stderr}");
            };
        let check = |as_nobody: bool, mode: u32, text: Option<&str>, expect: &str| {
            check_with(&[], as_nobody, mode, text, expect)
        };
        check_with(
            &["--duration=-3"],
            false,
            0o755,
            None,
            "error[E0605]: --duration -3 is not a number of seconds",
        );
        check_with(
            &["--attach-timeout", "NaN"],
            false,
            0o755,
            None,
            "error[E0605]: --attach-timeout NaN is not a number of seconds",
        );
        let d = dir.path().display();
        check(
            true,
            0o755,
            None,
            "error[E0601]: running a flash deployment needs root: the monitor attaches XDP programs and creates AF_XDP sockets",
        );
        check(
            false,
            0o700,
            None,
            &format!("error[E0604]: NF `fw` runs as uid {NF_UID} but cannot read {}: directory {d} is not searchable by it", file.display()),
        );
        check(
            false,
            0o755,
            Some("{\"version\": 1,"),
            &format!("error[E0602]: malformed deployment {}: EOF while parsing a value at line 1 column 14", file.display()),
        );
    }

    /// Frames that exercise both NFs of examples/ids-firewall.yaml: TCP to
    /// port 22 (the firewall drops it), TCP to port 80 carrying "/bin/sh"
    /// (the IDS drops it), "GET /admin" (the IDS alerts and forwards), and
    /// other TCP and UDP traffic that passes.
    fn ids_firewall_packets() -> Packets {
        let mut packets = Packets::new();
        for i in 0..240u32 {
            let src = std::net::Ipv4Addr::new(10, 1, (i % 7) as u8, (i % 40) as u8 + 1);
            let dst = std::net::Ipv4Addr::new(192, 168, 2, 1);
            let sport = 20000 + (i % 50) as u16;
            let (dport, payload): (u16, &[u8]) = match i % 6 {
                0 => (22, b"ssh"),
                1 => (80, b"POST /x HTTP/1.0\r\n\r\n/bin/sh -c id"),
                2 => (80, b"GET /admin HTTP/1.0\r\n\r\n"),
                3 => (443, b"tls"),
                _ => (5000 + (i % 9) as u16, b"data"),
            };
            let b = if i % 6 == 5 {
                PacketBuilder::udp(src, dst, sport, dport)
            } else {
                PacketBuilder::tcp(src, dst, sport, dport)
            };
            let mut bytes = payload.to_vec();
            bytes.extend_from_slice(&i.to_be_bytes());
            let f = b.payload(&bytes).frame_len(128).build();
            packets.push(u64::from(i) * 1000, &f);
        }
        packets
    }

    /// `nfc build examples/ids-firewall.yaml --target flash` (the example with
    /// `targets.flash` pointed at two veth interfaces) deploys the reduced
    /// module: one NF running `reduced.so` instead of the firewall and the
    /// IDS. `nfc run` serves it with an unprivileged NF host, and exactly the
    /// frames the *original* two-NF chain lets through in the reference
    /// executor come out of the egress, byte for byte.
    #[test]
    fn reduced_ids_firewall_deployment_forwards_like_the_original_chain() {
        use std::os::unix::fs::PermissionsExt;
        let Some((_ns, dut, peer)) =
            dut_and_peer("reduced_ids_firewall_deployment_forwards_like_the_original_chain")
        else {
            return;
        };
        let dir = tempfile::tempdir_in("/tmp").unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let example = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ids-firewall.yaml"),
        )
        .unwrap();
        assert!(!example.contains("targets:"), "the example grew targets");
        let chain_file = dir.path().join("ids-firewall.yaml");
        std::fs::write(
            &chain_file,
            format!(
                "{example}targets:\n  flash: {{ingress: vi1, egress: vo1, mode: single-copy}}\n"
            ),
        )
        .unwrap();
        let out = dir.path().join("out");
        let build = Command::new(env!("CARGO_BIN_EXE_nfc"))
            .arg("build")
            .arg(&chain_file)
            .args(["--target", "flash", "--cache-dir"])
            .arg(dir.path().join("cache"))
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&build.stderr);
        assert!(build.status.success(), "{log}");
        assert!(log.contains("reduced fw → ids into"), "{log}");
        let path = out.join("deployment.json");
        let mut dep = Deployment::load(&path).unwrap();
        let ids: Vec<&str> = dep.nfs.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["reduced"], "the deployment runs the reduced module");
        assert!(dep.nfs[0].object.ends_with("objects/reduced.so"));
        dep.monitor.socket = dir.path().join("mon.sock");
        std::fs::write(&path, serde_json::to_string_pretty(&dep).unwrap()).unwrap();
        let (mut nfc, rx, reader) = nfc_run(&dut, &out);
        loop {
            match rx.recv_timeout(std::time::Duration::from_secs(60)) {
                Ok(line) if line.contains("attached NF") => break,
                Ok(_) => {}
                Err(_) => {
                    let _ = nfc.kill();
                    panic!("the reduced NF did not attach: {}", reader.join().unwrap());
                }
            }
        }
        // The original chain, as the example writes it, in the executor.
        let spec = chain(&example);
        let objs = objects(&spec);
        let exec = ExecChain::from_spec(
            &spec,
            |inst| {
                objs.iter()
                    .find(|(id, _)| *id == inst.id.0)
                    .unwrap()
                    .1
                    .clone()
            },
            None,
        );
        let packets = ids_firewall_packets();
        let (run, exits) = predicted_exits(&exec, &packets);
        // Both NFs drop something, and most frames pass.
        let per_nf: Vec<u64> = run.report.nfs.iter().map(|n| n.drops).collect();
        assert!(per_nf.iter().all(|&d| d > 0), "{:#?}", run.report);
        assert!(run.report.exited > 100, "{:#?}", run.report);
        let frames = packets.iter().map(|p| p.data.to_vec()).zip(exits).collect();
        let want = run
            .output
            .unwrap()
            .iter()
            .map(|p| p.data.to_vec())
            .collect();
        let got = exchange(&peer, frames);
        // SAFETY: signalling our child (ip netns exec execs nfc in place).
        unsafe { libc::kill(nfc.id() as i32, libc::SIGTERM) };
        let status = nfc.wait().unwrap();
        let log = reader.join().unwrap();
        assert!(status.success(), "{status}\n{log}");
        same_frames(got, want);
    }
}
