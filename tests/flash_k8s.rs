//! The flash emitter end to end: chains are parsed from YAML, their NFs built
//! from `nfs/` with clang, and `emit_flash` writes a deployment and
//! Kubernetes manifests. Every manifest must deserialise into the real
//! Kubernetes API types (`k8s-openapi`: `apps/v1 DaemonSet`, `core/v1 Pod`)
//! with the security properties FLASH's split relies on: a privileged,
//! host-network monitor; NF pods that run as nobody, non-root, unprivileged,
//! with every capability dropped and the monitor's socket mounted. The
//! deployment must load back through `Deployment::parse` with the chain's
//! topology (fan-out by verdict port, fan-in on distinct input ports, exits
//! to the egress interface); bad chains give clear errors.

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

    let ds: DaemonSet =
        serde_yaml_ng::from_str(&std::fs::read_to_string(&out.monitor_manifest).unwrap())
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
        let pod: Pod = serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap())
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
