//! The flash emitter: `nfc build --target flash` lowers a validated chain into
//! a flash-rt deployment (`deployment.json`, format v1, read by `flash-rt
//! monitor` and `flash-rt nf`) and the Kubernetes manifests that run it: one
//! privileged monitor DaemonSet (host network and PID namespace, it owns
//! every AF_XDP socket, UMEM and XDP program) and one unprivileged Pod per NF
//! (uid 65534, no capabilities, the monitor's Unix socket mounted from the
//! host), as in FLASH §5.
//!
//! Lowering rules. The chain's single entry NF receives from the ingress
//! interface on its input port 0; every NF→NF edge becomes a link keyed by
//! the verdict port it leaves on (fan-out), and several edges into one NF
//! (fan-in) get distinct input ports numbered exactly as the reference
//! executor (`flash_rt::offline`) numbers them, so NFs that look at
//! `in_port` behave the same on line and off line. Every output port the NF
//! declares (`nf_describe`, learnt by loading the object and running
//! `nf_init` with its configuration, which also validates that configuration)
//! without a successor is a chain exit and transmits on the egress interface.
//! Zero-copy puts all NFs into one UMEM group; single-copy gives each NF its
//! own UMEM, except that NFs whose AF_XDP sockets sit on the same netdev
//! queue must share one (an AF_XDP constraint), so those are grouped and the
//! links between them become zero-copy (reported in `notes`). The result is
//! loaded back through `Deployment::parse` before anything is written.

use flash_rt::deploy::{
    Deployment, Endpoint, GroupSpec, InterfaceSpec, LinkMode, LinkSpec, MonitorConfig, NfSpec,
    PollingConfig, XdpMode, DEPLOYMENT_VERSION,
};
use flash_rt::offline::abi::NfLibrary;
use nfc_core::chain::{ChainSpec, LinkMode as ChainLinkMode};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The uid/gid unprivileged NF hosts run as (`nobody`).
pub const NF_UID: u32 = 65534;

/// Why a chain could not be lowered to the flash target.
#[derive(Debug, thiserror::Error)]
pub enum FlashEmitError {
    /// The chain's shape cannot run on flash-rt (e.g. several entry NFs).
    #[error("chain `{chain}` cannot run on the flash target: {message}")]
    Topology {
        /// Chain name.
        chain: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// An NF of the chain has no shared object, or an object names no NF.
    #[error("NF objects: {0}")]
    Objects(String),
    /// An NF object could not be loaded or rejected its configuration (the
    /// message names the NF).
    #[error("{message}")]
    Nf {
        /// NF instance id.
        nf: String,
        /// Loader or `nf_init` message.
        message: String,
    },
    /// The emitted deployment does not validate (a bug or bad interface names).
    #[error("emitted deployment is invalid: {0}")]
    Invalid(#[from] flash_rt::deploy::DeployError),
    /// Writing an output file failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// File or directory that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A manifest could not be serialised.
    #[error("cannot serialise {what}: {message}")]
    Serialise {
        /// Which artefact.
        what: String,
        /// Serialiser message.
        message: String,
    },
}

/// Knobs of the flash target that are not in chain.yaml.
#[derive(Debug, Clone, PartialEq)]
pub struct FlashOptions {
    /// Container image holding the `flash-rt` binary.
    pub image: String,
    /// Kubernetes namespace of the manifests.
    pub namespace: String,
    /// Host directory of the monitor's Unix socket (mounted into every pod).
    pub socket_dir: PathBuf,
    /// Ingress interface when the chain names none.
    pub default_ingress: String,
    /// UMEM frames each NF owns.
    pub frames_per_nf: u32,
    /// CPU each NF pod requests (one core per NF thread by default).
    pub nf_cpu: String,
    /// Pin the NF pods to this node (the one whose monitor serves them).
    pub node_name: Option<String>,
    /// Relative per-packet cost of NFs by id (the analyzer's estimate);
    /// balances NFs over `resources.cpus`. Missing NFs weigh the median.
    pub nf_costs: std::collections::BTreeMap<String, f64>,
}

impl Default for FlashOptions {
    fn default() -> Self {
        FlashOptions {
            image: "nfc/flash-rt:latest".into(),
            namespace: "default".into(),
            socket_dir: PathBuf::from("/run/flash-rt"),
            default_ingress: "eth0".into(),
            frames_per_nf: 4096,
            nf_cpu: "1".into(),
            node_name: None,
            nf_costs: Default::default(),
        }
    }
}

/// What [`emit_flash`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct EmittedFlash {
    /// The deployment, as loaded back from `deployment_path`.
    pub deployment: Deployment,
    /// `<out_dir>/deployment.json`.
    pub deployment_path: PathBuf,
    /// `<out_dir>/k8s/monitor-daemonset.yaml`.
    pub monitor_manifest: PathBuf,
    /// `<out_dir>/k8s/nf-<id>.yaml`, in chain order: (NF id, path).
    pub nf_manifests: Vec<(String, PathBuf)>,
    /// Decisions worth telling the operator (defaults taken, modes changed).
    pub notes: Vec<String>,
}

/// Lower `chain` with default [`FlashOptions`]; see [`emit_flash_with`].
pub fn emit_flash(
    chain: &ChainSpec,
    nf_objects: &[(String, PathBuf)],
    out_dir: &Path,
) -> Result<EmittedFlash, FlashEmitError> {
    emit_flash_with(chain, nf_objects, out_dir, &FlashOptions::default())
}

/// Lower `chain` (with each NF's built shared object in `nf_objects`) into
/// `out_dir`: the objects are copied to `out_dir/objects/<id>.so`, the
/// deployment references them by absolute path, and the manifests mount
/// `out_dir` from the host at the same path, so the directory works as is on
/// this machine and, copied to the same path, on every node.
pub fn emit_flash_with(
    chain: &ChainSpec,
    nf_objects: &[(String, PathBuf)],
    out_dir: &Path,
    opts: &FlashOptions,
) -> Result<EmittedFlash, FlashEmitError> {
    let mut notes = vec![];
    let entry = single_entry(chain)?;
    let objects = match_objects(chain, nf_objects)?;
    mkdir(out_dir)?;
    let out_dir = std::fs::canonicalize(out_dir).map_err(|source| FlashEmitError::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let obj_dir = out_dir.join("objects");
    mkdir(&obj_dir)?;
    let scratch = tempfile_dir(&out_dir)?;
    // Declared output ports of every NF (loading also runs nf_init on its config).
    let mut n_ports = vec![];
    for (inst, so) in chain.nfs.iter().zip(&objects) {
        let lib =
            NfLibrary::load(&inst.id.0, so, &inst.config.flatten(), &scratch.0).map_err(|e| {
                FlashEmitError::Nf {
                    nf: inst.id.0.clone(),
                    message: e.to_string(),
                }
            })?;
        n_ports.push(lib.n_ports.max(inst.ports).max(1));
    }
    drop(scratch);
    let mut installed = vec![];
    for (inst, so) in chain.nfs.iter().zip(&objects) {
        let dst = obj_dir.join(format!("{}.so", file_safe(&inst.id.0)));
        std::fs::copy(so, &dst).map_err(|source| FlashEmitError::Io {
            path: dst.clone(),
            source,
        })?;
        set_mode(&dst, 0o644)?;
        installed.push(dst);
    }
    let mut dep = lower(chain, entry, &installed, &n_ports, opts, &mut notes)?;
    if let Some(cpus) = &chain.resources.cpus {
        let known: Vec<f64> = opts.nf_costs.values().copied().collect();
        let weights: Option<Vec<f64>> = (!known.is_empty()).then(|| {
            let mut sorted = known.clone();
            sorted.sort_by(f64::total_cmp);
            let median = sorted[sorted.len() / 2];
            dep.nfs
                .iter()
                .map(|n| opts.nf_costs.get(&n.id).copied().unwrap_or(median))
                .collect()
        });
        let placed = dep.assign_cpus(cpus, weights.as_deref());
        let shown: Vec<String> = dep
            .nfs
            .iter()
            .zip(&placed)
            .map(|(nf, cpu)| format!("{}@{cpu}", nf.id))
            .collect();
        notes.push(format!(
            "NF hosts pinned to `resources.cpus` in chain order ({}){}",
            shown.join(", "),
            if dep.nfs.len() > cpus.len() {
                "; more NFs than CPUs, so consecutive NFs share a CPU and wait for packets instead of busy polling"
            } else {
                ""
            }
        ));
    }
    let deployment_path = out_dir.join("deployment.json");
    let text = dep.to_json();
    let deployment = Deployment::parse(&text, &deployment_path)?;
    write(&deployment_path, &text)?;
    // Manifests.
    let k8s_dir = out_dir.join("k8s");
    mkdir(&k8s_dir)?;
    let app = k8s_name(&chain.name, "chain");
    let monitor_manifest = k8s_dir.join("monitor-daemonset.yaml");
    let umem_bytes: u64 = deployment
        .nfs
        .iter()
        .map(|n| u64::from(n.frames) * u64::from(deployment.monitor.frame_size))
        .sum();
    let ds = monitor_daemonset(&app, &deployment_path, &out_dir, umem_bytes, opts);
    write(&monitor_manifest, &to_yaml(&ds, "monitor DaemonSet")?)?;
    let mut nf_manifests = vec![];
    let mut used_names: Vec<String> = vec![];
    for nf in &deployment.nfs {
        let mut pod_name = format!("{app}-{}", k8s_name(&nf.id, "nf"));
        pod_name.truncate(63);
        while pod_name.ends_with('-') {
            pod_name.pop();
        }
        let base = pod_name.clone();
        let mut i = 1;
        while used_names.contains(&pod_name) {
            i += 1;
            pod_name = format!("{}-{i}", &base[..base.len().min(58)]);
        }
        used_names.push(pod_name.clone());
        let pod = nf_pod(
            &pod_name,
            &app,
            nf,
            &deployment_path,
            &out_dir,
            deployment.monitor.frame_size,
            opts,
        );
        let path = k8s_dir.join(format!("nf-{}.yaml", file_safe(&nf.id)));
        write(&path, &to_yaml(&pod, &format!("pod of NF `{}`", nf.id))?)?;
        nf_manifests.push((nf.id.clone(), path));
    }
    Ok(EmittedFlash {
        deployment,
        deployment_path,
        monitor_manifest,
        nf_manifests,
        notes,
    })
}

/// Pair every chain NF with its object, in chain order.
fn match_objects(
    chain: &ChainSpec,
    nf_objects: &[(String, PathBuf)],
) -> Result<Vec<PathBuf>, FlashEmitError> {
    let mut problems = vec![];
    for (id, _) in nf_objects {
        if chain.nf(id).is_none() {
            problems.push(format!(
                "an object is given for `{id}`, which is not an NF of chain `{}`",
                chain.name
            ));
        }
    }
    let mut out = vec![];
    for inst in &chain.nfs {
        match nf_objects.iter().find(|(id, _)| *id == inst.id.0) {
            Some((_, p)) => out.push(p.clone()),
            None => problems.push(format!("NF `{}` has no built shared object", inst.id.0)),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(FlashEmitError::Objects(problems.join("; ")))
    }
}

/// The one entry NF of `chain` (the ingress queue feeds exactly one NF).
fn single_entry(chain: &ChainSpec) -> Result<usize, FlashEmitError> {
    let topo_err = |message: String| FlashEmitError::Topology {
        chain: chain.name.clone(),
        message,
    };
    let entries: Vec<usize> = chain
        .entries()
        .into_iter()
        .filter_map(|e| chain.nfs.iter().position(|n| n.id == e.id))
        .collect();
    let entry = match entries.as_slice() {
        [e] => *e,
        [] => {
            return Err(topo_err(
                "it has no entry NF (every NF has an incoming edge)".into(),
            ))
        }
        many => {
            let ids: Vec<&str> = many.iter().map(|&i| chain.nfs[i].id.0.as_str()).collect();
            return Err(topo_err(format!(
                "it has {} entry NFs ({}); the ingress queue feeds exactly one NF — put a dispatching NF in front of them",
                ids.len(),
                ids.join(", ")
            )));
        }
    };
    Ok(entry)
}

/// The deployment for `chain`: interfaces, NFs, links, groups.
fn lower(
    chain: &ChainSpec,
    entry: usize,
    objects: &[PathBuf],
    n_ports: &[u32],
    opts: &FlashOptions,
    notes: &mut Vec<String>,
) -> Result<Deployment, FlashEmitError> {
    let topo_err = |message: String| FlashEmitError::Topology {
        chain: chain.name.clone(),
        message,
    };
    let ingress = match &chain.targets.flash_in {
        Some(i) => i.clone(),
        None => {
            notes.push(format!(
                "targets.flash.ingress not set: using `{}`",
                opts.default_ingress
            ));
            opts.default_ingress.clone()
        }
    };
    let egress = match &chain.targets.flash_out {
        Some(e) => e.clone(),
        None => {
            notes.push(format!(
                "targets.flash.egress not set: transmitting back out of the ingress `{ingress}`"
            ));
            ingress.clone()
        }
    };
    let hairpin = egress == ingress;
    let mut interfaces = vec![InterfaceSpec {
        name: "in".into(),
        ifname: ingress,
        queue: 0,
    }];
    let out_iface = if hairpin {
        "in".to_string()
    } else {
        interfaces.push(InterfaceSpec {
            name: "out".into(),
            ifname: egress,
            queue: 0,
        });
        "out".to_string()
    };
    let mode = chain.targets.flash_mode.unwrap_or(ChainLinkMode::ZeroCopy);
    if chain.targets.flash_mode.is_none() {
        notes.push("targets.flash.mode not set: zero-copy (one shared UMEM)".into());
    }
    // Input-port numbering of the reference executor: the entry feed is
    // port 0 of the entry NF, then incoming edges in (source index, port) order.
    let n = chain.nfs.len();
    let mut next_in = vec![0u32; n];
    next_in[entry] = 1;
    let mut links = vec![LinkSpec {
        from: Endpoint {
            nf: None,
            iface: Some("in".into()),
            port: None,
        },
        to: Endpoint {
            nf: Some(chain.nfs[entry].id.0.clone()),
            iface: None,
            port: Some(0),
        },
        mode: None,
    }];
    let mut nf_links: Vec<(usize, usize, usize)> = vec![]; // (link index, from, to)
    let mut touches_out = vec![false; n];
    for (i, inst) in chain.nfs.iter().enumerate() {
        let succ = chain.successors(&inst.id.0);
        for port in 0..n_ports[i] {
            let targets: Vec<usize> = succ
                .iter()
                .filter(|(p, _)| *p == port)
                .filter_map(|(_, id)| chain.nfs.iter().position(|x| x.id == *id))
                .collect();
            match targets.as_slice() {
                [] => {
                    links.push(LinkSpec {
                        from: Endpoint { nf: Some(inst.id.0.clone()), iface: None, port: Some(port) },
                        to: Endpoint { nf: None, iface: Some(out_iface.clone()), port: None },
                        mode: None,
                    });
                    touches_out[i] = true;
                }
                [j] => {
                    let j = *j;
                    nf_links.push((links.len(), i, j));
                    links.push(LinkSpec {
                        from: Endpoint { nf: Some(inst.id.0.clone()), iface: None, port: Some(port) },
                        to: Endpoint { nf: Some(chain.nfs[j].id.0.clone()), iface: None, port: Some(next_in[j]) },
                        mode: None,
                    });
                    next_in[j] += 1;
                }
                _ => {
                    return Err(topo_err(format!(
                        "port {port} of `{}` feeds several NFs; flash-rt forwards each verdict port to one NF (no packet replication)",
                        inst.id.0
                    )))
                }
            }
        }
    }
    // UMEM groups.
    let mut group_of: Vec<usize> = (0..n).collect();
    match mode {
        ChainLinkMode::ZeroCopy => group_of.iter_mut().for_each(|g| *g = 0),
        ChainLinkMode::SingleCopy => {
            // NFs with sockets on one netdev queue must share a UMEM.
            let mut on_queue: BTreeMap<(String, u32), Vec<usize>> = BTreeMap::new();
            on_queue
                .entry((interfaces[0].ifname.clone(), 0))
                .or_default()
                .push(entry);
            let out_if = interfaces
                .iter()
                .find(|i| i.name == out_iface)
                .map(|i| i.ifname.clone())
                .unwrap_or_default();
            for (i, &t) in touches_out.iter().enumerate() {
                if t {
                    on_queue.entry((out_if.clone(), 0)).or_default().push(i);
                }
            }
            for members in on_queue.values() {
                for w in members.windows(2) {
                    let (a, b) = (find(&mut group_of, w[0]), find(&mut group_of, w[1]));
                    if a != b {
                        group_of[a.max(b)] = a.min(b);
                    }
                }
            }
            for i in 0..n {
                let root = find(&mut group_of, i);
                group_of[i] = root;
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (i, &g) in group_of.iter().enumerate() {
        groups.entry(g).or_default().push(chain.nfs[i].id.0.clone());
    }
    let groups: Vec<GroupSpec> = groups
        .into_iter()
        .filter(|(_, m)| m.len() > 1 || mode == ChainLinkMode::ZeroCopy)
        .map(|(g, nfs)| GroupSpec {
            name: if mode == ChainLinkMode::ZeroCopy {
                "chain".to_string()
            } else {
                format!("queue-share-{}", chain.nfs[g].id.0)
            },
            nfs,
        })
        .collect();
    for &(li, a, b) in &nf_links {
        let same = group_of[a] == group_of[b];
        links[li].mode = Some(if same {
            LinkMode::ZeroCopy
        } else {
            LinkMode::SingleCopy
        });
        if same && mode == ChainLinkMode::SingleCopy {
            notes.push(format!(
                "link {} -> {} is zero-copy: both NFs use the same interface queue, so they share one UMEM",
                chain.nfs[a].id.0, chain.nfs[b].id.0
            ));
        }
    }
    let nfs = chain
        .nfs
        .iter()
        .zip(objects)
        .map(|(inst, so)| NfSpec {
            id: inst.id.0.clone(),
            object: so.clone(),
            config: inst.config.flatten(),
            threads: 1,
            uid: Some(NF_UID),
            gid: Some(NF_UID),
            frames: opts.frames_per_nf,
            polling: PollingConfig::default(),
            cpus: vec![],
        })
        .collect();
    let socket = opts
        .socket_dir
        .join(format!("{}.sock", file_safe(&chain.name)));
    Ok(Deployment {
        version: DEPLOYMENT_VERSION,
        name: chain.name.clone(),
        monitor: MonitorConfig {
            socket,
            interfaces,
            xdp_mode: XdpMode::Auto,
            frame_size: 2048,
            ring_size: 2048,
            inbox_size: 1024,
            batch_size: 64,
        },
        nfs,
        links,
        groups,
    })
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The privileged monitor: host network (it attaches XDP to host
/// interfaces), host PID (SO_PEERCRED pids of NF pods must be visible to it),
/// the socket directory and the emitted directory from the host.
fn monitor_daemonset(
    name: &str,
    deployment: &Path,
    out_dir: &Path,
    umem_bytes: u64,
    opts: &FlashOptions,
) -> Value {
    let labels =
        json!({"app.kubernetes.io/name": "flash-rt-monitor", "app.kubernetes.io/part-of": name});
    // UMEM memfds are charged to the monitor, which creates them.
    let mem = format!("{}Mi", (umem_bytes >> 20) + 128);
    json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": format!("{name}-flash-monitor"), "namespace": opts.namespace, "labels": labels},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "hostNetwork": true,
                    "hostPID": true,
                    "dnsPolicy": "ClusterFirstWithHostNet",
                    "containers": [{
                        "name": "monitor",
                        "image": opts.image,
                        // NF pods are scheduled (and images pulled) on their own
                        // time: the DaemonSet's monitor waits for them forever.
                        "command": ["flash-rt", "monitor", deployment.display().to_string(), "--attach-timeout-ms", "0"],
                        "securityContext": {"privileged": true, "runAsUser": 0},
                        "resources": {
                            "requests": {"cpu": "100m", "memory": mem},
                            "limits": {"memory": mem}
                        },
                        "volumeMounts": [
                            {"name": "flash-socket", "mountPath": opts.socket_dir.display().to_string()},
                            {"name": "deployment", "mountPath": out_dir.display().to_string(), "readOnly": true},
                            {"name": "bpffs", "mountPath": "/sys/fs/bpf"}
                        ]
                    }],
                    "volumes": [
                        {"name": "flash-socket", "hostPath": {"path": opts.socket_dir.display().to_string(), "type": "DirectoryOrCreate"}},
                        {"name": "deployment", "hostPath": {"path": out_dir.display().to_string(), "type": "Directory"}},
                        {"name": "bpffs", "hostPath": {"path": "/sys/fs/bpf", "type": "DirectoryOrCreate"}}
                    ]
                }
            }
        }
    })
}

/// An unprivileged NF pod: nobody, no capabilities, read-only root, the
/// monitor's socket directory and the emitted directory mounted, `/tmp` as
/// scratch for the loader's private copy of the NF object.
fn nf_pod(
    pod_name: &str,
    chain: &str,
    nf: &NfSpec,
    deployment: &Path,
    out_dir: &Path,
    frame_size: u32,
    opts: &FlashOptions,
) -> Value {
    let umem_mib = (u64::from(nf.frames) * u64::from(frame_size)) >> 20;
    let mem = format!("{}Mi", umem_mib + 64);
    let mut spec = json!({
        "restartPolicy": "Always",
        "automountServiceAccountToken": false,
        "securityContext": {
            "runAsNonRoot": true,
            "runAsUser": NF_UID,
            "runAsGroup": NF_UID,
            "seccompProfile": {"type": "RuntimeDefault"}
        },
        "containers": [{
            "name": "nf",
            "image": opts.image,
            "command": ["flash-rt", "nf", deployment.display().to_string(), nf.id.as_str(), "--scratch", "/tmp"],
            "securityContext": {
                "privileged": false,
                "allowPrivilegeEscalation": false,
                "readOnlyRootFilesystem": true,
                "runAsNonRoot": true,
                "runAsUser": NF_UID,
                "runAsGroup": NF_UID,
                "capabilities": {"drop": ["ALL"]}
            },
            "resources": {
                "requests": {"cpu": opts.nf_cpu, "memory": mem},
                "limits": {"cpu": opts.nf_cpu, "memory": mem}
            },
            "volumeMounts": [
                {"name": "flash-socket", "mountPath": opts.socket_dir.display().to_string()},
                {"name": "deployment", "mountPath": out_dir.display().to_string(), "readOnly": true},
                {"name": "scratch", "mountPath": "/tmp"}
            ]
        }],
        "volumes": [
            {"name": "flash-socket", "hostPath": {"path": opts.socket_dir.display().to_string(), "type": "Directory"}},
            {"name": "deployment", "hostPath": {"path": out_dir.display().to_string(), "type": "Directory"}},
            {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}}
        ]
    });
    if let Some(node) = &opts.node_name {
        spec["nodeName"] = json!(node);
    }
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": pod_name,
            "namespace": opts.namespace,
            "labels": {"app.kubernetes.io/name": "flash-rt-nf", "app.kubernetes.io/part-of": chain, "nfc.dev/nf": k8s_name(&nf.id, "nf")}
        },
        "spec": spec
    })
}

/// A DNS-1123 label from `s` (lowercase alphanumerics and `-`, at most 63).
fn k8s_name(s: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.truncate(63);
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        fallback.to_string()
    } else {
        out
    }
}

/// `s` with anything but `[A-Za-z0-9._-]` replaced by `_` (for file names).
fn file_safe(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with('.') {
        format!("_{out}")
    } else {
        out
    }
}

fn to_yaml(v: &Value, what: &str) -> Result<String, FlashEmitError> {
    nfc_core::yaml::to_string(v).map_err(|message| FlashEmitError::Serialise {
        what: what.to_string(),
        message,
    })
}

fn mkdir(p: &Path) -> Result<(), FlashEmitError> {
    std::fs::create_dir_all(p).map_err(|source| FlashEmitError::Io {
        path: p.to_path_buf(),
        source,
    })?;
    set_mode(p, 0o755)
}

fn write(p: &Path, text: &str) -> Result<(), FlashEmitError> {
    std::fs::write(p, text).map_err(|source| FlashEmitError::Io {
        path: p.to_path_buf(),
        source,
    })?;
    set_mode(p, 0o644)
}

/// NF hosts run as nobody: what they read must be world-readable.
fn set_mode(p: &Path, mode: u32) -> Result<(), FlashEmitError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).map_err(|source| {
        FlashEmitError::Io {
            path: p.to_path_buf(),
            source,
        }
    })
}

/// A scratch directory for the loader's private object copies, removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempfile_dir(out_dir: &Path) -> Result<Scratch, FlashEmitError> {
    let p = out_dir.join(format!(".load-{}", std::process::id()));
    std::fs::create_dir_all(&p).map_err(|source| FlashEmitError::Io {
        path: p.clone(),
        source,
    })?;
    Ok(Scratch(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_dns_labels_and_files_are_safe() {
        let check = |input: &str, expect: &str| assert_eq!(k8s_name(input, "x"), expect, "{input}");
        check("flash-dag", "flash-dag");
        check("mon_a", "mon-a");
        check("Count B!", "count-b");
        check("__", "x");
        check(&"a".repeat(80), &"a".repeat(63));
        assert_eq!(file_safe("mon_a"), "mon_a");
        assert_eq!(file_safe("../x"), "_.._x");
        assert_eq!(file_safe("a/b"), "a_b");
    }
}
