//! The flash-rt deployment format (version 1): what `nfc build --target flash`
//! writes and what the monitor and the NF hosts read. A deployment names the
//! interfaces the chain touches, the NFs (shared object, flattened config,
//! threads, the uid/gid each NF host must run as), the links between NF ports
//! and interfaces (zero-copy inside a UMEM group, single-copy across groups),
//! and the groups of NFs that share one UMEM.
//!
//! [`Deployment::load`] parses JSON or YAML (by extension, falling back on
//! content) and validates the whole file, reporting every problem at once;
//! [`Topology`] is the resolved, index-based form the runtime works with.

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The only deployment format version this runtime understands.
pub const DEPLOYMENT_VERSION: u32 = 1;

/// Errors loading or validating a deployment.
#[derive(Debug, thiserror::Error)]
pub enum DeployError {
    /// The deployment file could not be read.
    #[error("cannot read deployment {path}: {source}")]
    Io {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The file is not valid JSON/YAML for the deployment schema.
    #[error("malformed deployment {path}: {message}")]
    Parse {
        /// File that failed.
        path: PathBuf,
        /// Parser message (with line/column when the parser gives one).
        message: String,
    },
    /// The file declares a format version this runtime does not support.
    #[error(
        "deployment {path} has version {found}; this flash-rt reads version {DEPLOYMENT_VERSION}"
    )]
    Version {
        /// File that failed.
        path: PathBuf,
        /// Version found in the file.
        found: u32,
    },
    /// The file parsed but is inconsistent; every problem is listed.
    #[error("invalid deployment {path}:\n  - {}", problems.join("\n  - "))]
    Invalid {
        /// File that failed (empty when validating an in-memory value).
        path: PathBuf,
        /// One line per problem, each naming the offending item.
        problems: Vec<String>,
    },
}

/// A whole deployment file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deployment {
    /// Format version; must be [`DEPLOYMENT_VERSION`].
    pub version: u32,
    /// Name of the chain (used in logs and stats).
    #[serde(default)]
    pub name: String,
    /// What the privileged monitor sets up.
    pub monitor: MonitorConfig,
    /// The NFs, each run by its own `flash-rt nf` host process.
    pub nfs: Vec<NfSpec>,
    /// Links from interfaces/NF output ports to NFs/interfaces.
    pub links: Vec<LinkSpec>,
    /// Groups of NFs sharing one UMEM (zero-copy between them). NFs in no
    /// group get a private UMEM.
    #[serde(default)]
    pub groups: Vec<GroupSpec>,
}

/// Monitor configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonitorConfig {
    /// Unix socket path the monitor serves NF hosts and stats clients on.
    pub socket: PathBuf,
    /// Interfaces (netdev + queue) the chain receives from or sends to.
    pub interfaces: Vec<InterfaceSpec>,
    /// How the XDP program is attached.
    #[serde(default)]
    pub xdp_mode: XdpMode,
    /// UMEM frame size in bytes (power of two, 2048 or 4096).
    #[serde(default = "default_frame_size")]
    pub frame_size: u32,
    /// Entries of each AF_XDP ring (rx, tx, fill, completion); power of two.
    #[serde(default = "default_ring_size")]
    pub ring_size: u32,
    /// Entries of each NF's inbox ring (descriptors from upstream NFs); power of two.
    #[serde(default = "default_inbox_size")]
    pub inbox_size: u32,
    /// Packets handled per batch by NF hosts.
    #[serde(default = "default_batch_size")]
    pub batch_size: u32,
}

fn default_frame_size() -> u32 {
    2048
}
fn default_ring_size() -> u32 {
    2048
}
fn default_inbox_size() -> u32 {
    1024
}
fn default_batch_size() -> u32 {
    64
}
fn default_frames() -> u32 {
    4096
}
fn default_threads() -> u32 {
    1
}

/// A netdev queue the chain touches, under a logical name links refer to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterfaceSpec {
    /// Logical name used by links (e.g. `in`, `out`).
    pub name: String,
    /// Kernel interface name (e.g. `veth1`).
    pub ifname: String,
    /// Queue id on that interface.
    #[serde(default)]
    pub queue: u32,
}

/// XDP attach mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum XdpMode {
    /// Driver (native) mode, falling back to generic (SKB) mode.
    #[default]
    Auto,
    /// Driver (native) mode only.
    Native,
    /// Generic (SKB) mode only.
    Skb,
}

/// One NF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NfSpec {
    /// Unique id links refer to.
    pub id: String,
    /// Shared object implementing the nf.h ABI.
    pub object: PathBuf,
    /// Flattened configuration passed to `nf_init`, in order.
    #[serde(
        default,
        deserialize_with = "ordered_config",
        serialize_with = "ser_config"
    )]
    pub config: Vec<(String, String)>,
    /// Worker threads (1 per queue the NF serves; only 1 is supported today).
    #[serde(default = "default_threads")]
    pub threads: u32,
    /// User the NF host must run as (checked with SO_PEERCRED). When absent,
    /// only root or the monitor's own user may attach as this NF.
    #[serde(default)]
    pub uid: Option<u32>,
    /// Group the NF host must run as.
    #[serde(default)]
    pub gid: Option<u32>,
    /// UMEM frames this NF owns (its receive/copy buffers).
    #[serde(default = "default_frames")]
    pub frames: u32,
    /// Smart-polling thresholds for this NF.
    #[serde(default)]
    pub polling: PollingConfig,
    /// CPUs the NF host's data path runs on (its affinity); empty leaves
    /// placement to the kernel. CPUs outside the host's allowed set are
    /// ignored at run time. See [`Deployment::assign_cpus`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<u32>,
}

/// Smart polling (FLASH §4.4): sleep in poll() when idle, busy-poll above a
/// rate threshold, fall back after a timeout, throttle under backpressure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PollingConfig {
    /// Switch to busy polling when the packet rate over a window reaches this.
    pub busy_threshold_pps: u64,
    /// Rate measurement window in microseconds.
    pub window_us: u64,
    /// Leave busy polling after this long without packets (microseconds).
    pub busy_timeout_us: u64,
    /// Sleep this long (microseconds) when a downstream ring is full.
    pub throttle_us: u64,
    /// Upper bound on one blocking poll() (milliseconds); a safety net only,
    /// wakeups come from the kernel and from upstream NFs' eventfd signals.
    pub idle_poll_ms: u32,
    /// Disable busy polling entirely (always sleep when idle).
    pub never_busy: bool,
    /// Wakeup coalescing (NAPI-like): an upstream NF wakes a sleeping NF
    /// as soon as its inbox (or free-buffer return ring) holds this many
    /// entries; below that, only when the upstream NF itself runs out of
    /// input. 0 or 1 wakes on every enqueue.
    pub wake_batch: u32,
    /// Longest wait (microseconds) of an NF that sleeps on a partial batch
    /// because an upstream NF is still running (bounds the added latency).
    pub coalesce_us: u64,
    /// Busy-poll (spin, yielding the core, on idle iterations) even when
    /// this NF host shares its CPU with other NF hosts (by the deployment's
    /// `cpus`, or when NF hosts outnumber the CPUs). Default false: a
    /// busy-mode NF on a shared CPU sleeps on idle iterations and waits for
    /// its next (coalesced) batch, since every spin there delays the NF that
    /// has work (8 NFs on 2 CPUs: 0.29 Mpps spinning vs 0.40 waiting, see
    /// `benches/flash_chain.rs --busy-when-shared`).
    pub busy_when_shared: bool,
    /// On a shared CPU (as above, and not busy-polling), run the host under
    /// SCHED_BATCH: a woken NF then does not preempt the task running on
    /// its CPU but waits for it to finish its batch or sleep, so packets
    /// move between NFs a batch, not a packet, per context switch, and an
    /// upstream NF is not interrupted mid-batch by the one it feeds.
    pub batch_sched_when_shared: bool,
    /// Receive interrupt moderation (a NIC's rx-usecs, in software) for an
    /// NF that reads an interface and waits when idle on a shared CPU: at
    /// a packet rate above `busy_threshold_pps` it sleeps this long
    /// (microseconds) on a timer, not on the socket, unless a wake batch
    /// is already waiting. The kernel otherwise wakes it per packet on
    /// veth (each transmitted frame runs the receive path at once), and
    /// those wakeups cost the NF and the sender more than the packets.
    /// 0 disables; only ever active in busy mode, so it adds no latency at
    /// low rates.
    pub rx_coalesce_us: u64,
}

impl Default for PollingConfig {
    fn default() -> Self {
        PollingConfig {
            busy_threshold_pps: 200_000,
            window_us: 1_000,
            busy_timeout_us: 2_000,
            throttle_us: 100,
            idle_poll_ms: 1_000,
            never_busy: false,
            wake_batch: 32,
            coalesce_us: 200,
            busy_when_shared: false,
            batch_sched_when_shared: true,
            rx_coalesce_us: 50,
        }
    }
}

/// A link between two endpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Where packets come from: an interface, or an NF output port.
    pub from: Endpoint,
    /// Where packets go: an NF (input port) or an interface.
    pub to: Endpoint,
    /// Zero-copy or single-copy; derived from the groups when absent.
    #[serde(default)]
    pub mode: Option<LinkMode>,
}

/// One side of a link: exactly one of `nf` and `iface`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    /// NF id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nf: Option<String>,
    /// Interface logical name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iface: Option<String>,
    /// NF port: output port on `from`, input port on `to` (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u32>,
}

impl Endpoint {
    fn describe(&self) -> String {
        match (&self.nf, &self.iface) {
            (Some(nf), None) => format!("nf {nf} port {}", self.port.unwrap_or(0)),
            (None, Some(i)) => format!("interface {i}"),
            _ => "an endpoint".to_string(),
        }
    }
}

/// How packets cross a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkMode {
    /// Descriptor passing inside one shared UMEM.
    ZeroCopy,
    /// One memcpy from the sender's UMEM into the receiver's.
    SingleCopy,
}

/// NFs sharing one UMEM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    /// Group name.
    pub name: String,
    /// Member NF ids.
    pub nfs: Vec<String>,
}

fn ordered_config<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Vec<(String, String)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of flattened config keys to scalar values")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut m: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = vec![];
            while let Some((k, v)) = m.next_entry::<String, Scalar>()? {
                out.push((k, v.0));
            }
            Ok(out)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(vec![])
        }
    }
    d.deserialize_any(V)
}

fn ser_config<S: serde::Serializer>(cfg: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(cfg.len()))?;
    for (k, v) in cfg {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// A config scalar (string, number or bool) kept as its text.
struct Scalar(String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a scalar config value (string, number or bool); nested config must be flattened")
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl Deployment {
    /// Read, parse and validate a deployment file (`.json`, `.yaml`/`.yml`).
    pub fn load(path: &Path) -> Result<Deployment, DeployError> {
        let text = std::fs::read_to_string(path).map_err(|source| DeployError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parse and validate deployment text; `path` is used for messages and to
    /// pick the format (JSON for `.json`, YAML otherwise — YAML also reads JSON).
    pub fn parse(text: &str, path: &Path) -> Result<Deployment, DeployError> {
        let is_json = path.extension().is_some_and(|e| e == "json");
        let parsed: Result<Deployment, String> = if is_json {
            serde_json::from_str(text).map_err(|e| e.to_string())
        } else {
            nfc_core::yaml::from_str(text, &path.display().to_string()).map_err(|e| {
                match e.location() {
                    (0, _) => e.to_string(),
                    (line, col) => format!("{line}:{col}: {e}"),
                }
            })
        };
        let dep = parsed.map_err(|message| DeployError::Parse {
            path: path.to_path_buf(),
            message,
        })?;
        if dep.version != DEPLOYMENT_VERSION {
            return Err(DeployError::Version {
                path: path.to_path_buf(),
                found: dep.version,
            });
        }
        dep.topology().map_err(|problems| DeployError::Invalid {
            path: path.to_path_buf(),
            problems,
        })?;
        Ok(dep)
    }

    /// Serialise as pretty JSON (the emitter's output format).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Index of an NF by id.
    pub fn nf_index(&self, id: &str) -> Option<usize> {
        self.nfs.iter().position(|n| n.id == id)
    }

    /// Resolve names into indices and check every rule; returns all problems.
    pub fn topology(&self) -> Result<Topology, Vec<String>> {
        resolve(self)
    }

    /// NF indices in the order packets meet them: breadth-first from the
    /// interfaces that feed the chain, following links; NFs no link reaches
    /// come last, in deployment order.
    pub fn chain_order(&self, topo: &Topology) -> Vec<usize> {
        let n = self.nfs.len();
        let mut seen = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut queue: std::collections::VecDeque<usize> = topo
            .links
            .iter()
            .filter_map(|l| match (l.source, l.dest) {
                (LinkSource::Iface(_), LinkDest::Nf { nf, .. }) => Some(nf),
                _ => None,
            })
            .collect();
        while let Some(nf) = queue.pop_front() {
            if std::mem::replace(&mut seen[nf], true) {
                continue;
            }
            order.push(nf);
            queue.extend(topo.links.iter().filter_map(|l| match (l.source, l.dest) {
                (LinkSource::Nf { nf: from, .. }, LinkDest::Nf { nf: to, .. }) if from == nf => {
                    Some(to)
                }
                _ => None,
            }));
        }
        order.extend((0..n).filter(|&i| !seen[i]));
        order
    }

    /// Pin NF hosts to `cpus` (FLASH runs every NF on its own core). With
    /// at least as many CPUs as NFs each NF gets one CPU to itself, in chain
    /// order. With fewer, the chain is cut into contiguous runs of NFs, one
    /// run per CPU, balanced by `weights` (relative per-packet cost of each
    /// NF, deployment order; equal when `None`): consecutive NFs then hand
    /// packets over on one core, where the frame is still in that core's
    /// cache and a wakeup needs no cross-CPU interrupt, and a packet changes
    /// cores at most `cpus.len() - 1` times. Returns the CPU of each NF.
    pub fn assign_cpus(&mut self, cpus: &[u32], weights: Option<&[f64]>) -> Vec<u32> {
        let Ok(topo) = self.topology() else {
            return vec![];
        };
        if cpus.is_empty() {
            return vec![];
        }
        let order = self.chain_order(&topo);
        let w: Vec<f64> = order
            .iter()
            .map(|&i| {
                weights
                    .and_then(|w| w.get(i).copied())
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .unwrap_or(1.0)
            })
            .collect();
        let slot = contiguous_runs(&w, cpus.len());
        let mut out = vec![0; self.nfs.len()];
        for (pos, &nf) in order.iter().enumerate() {
            let cpu = cpus[slot[pos]];
            self.nfs[nf].cpus = vec![cpu];
            out[nf] = cpu;
        }
        out
    }
}

/// How a runner places NF hosts on CPUs when the deployment pins none
/// itself (`nfc run`'s `--pin` and the flash bench's configurations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The default, chosen by measurement (docs/targets/flash.md,
    /// `benches/flash_chain.rs`): one CPU per NF host, in chain order
    /// (FLASH's placement), when every host can have a CPU of its own and
    /// at least one CPU is left for what is not an NF host (the kernel's
    /// receive path, the traffic source, the monitor); otherwise no
    /// pinning, so the kernel's scheduler moves hosts to whichever CPU is
    /// idle instead of tying an NF to a CPU that something else keeps busy.
    Auto,
    /// Always pin: a CPU per NF when there are enough, else contiguous runs
    /// of the chain per CPU ([`Deployment::assign_cpus`]).
    Always,
    /// Never pin.
    Never,
}

impl Placement {
    /// The CPU of every NF (deployment order) under this placement over
    /// `cpus`, or None to leave the hosts to the scheduler.
    pub fn cpus_for(self, dep: &Deployment, cpus: &[u32]) -> Option<Vec<u32>> {
        let pin = match self {
            Placement::Never => false,
            Placement::Always => true,
            Placement::Auto => dep.nfs.len() < cpus.len(),
        };
        if !pin || cpus.is_empty() || dep.nfs.is_empty() {
            return None;
        }
        let mut d = dep.clone();
        let p = d.assign_cpus(cpus, None);
        (p.len() == dep.nfs.len()).then_some(p)
    }
}

/// Split a sequence of positive weights into at most `parts` contiguous
/// runs minimising the heaviest run (linear partition, exact DP: chains
/// are short). Returns the run index of each element; with `parts >=
/// weights.len()` every element gets its own run.
pub fn contiguous_runs(weights: &[f64], parts: usize) -> Vec<usize> {
    let n = weights.len();
    if n == 0 || parts == 0 {
        return vec![0; n];
    }
    if parts >= n {
        return (0..n).collect();
    }
    let mut prefix = vec![0.0; n + 1];
    for (i, w) in weights.iter().enumerate() {
        prefix[i + 1] = prefix[i] + w;
    }
    // best[p][i]: the heaviest run when the first i elements form p runs;
    // cut[p][i]: where the last of those runs starts.
    let inf = f64::INFINITY;
    let mut best = vec![vec![inf; n + 1]; parts + 1];
    let mut cut = vec![vec![0usize; n + 1]; parts + 1];
    best[0][0] = 0.0;
    for p in 1..=parts {
        for i in 1..=n {
            for j in (p - 1)..i {
                let cost = best[p - 1][j].max(prefix[i] - prefix[j]);
                // Ties go to the later cut, so the last run stays lighter:
                // its last NF transmits to the interface, which (copy mode)
                // costs more than the ring hand-offs weights usually omit.
                if cost <= best[p][i] {
                    best[p][i] = cost;
                    cut[p][i] = j;
                }
            }
        }
    }
    let mut run = vec![0; n];
    let (mut i, mut p) = (n, parts);
    while p > 0 && i > 0 {
        let j = cut[p][i];
        for r in run.iter_mut().take(i).skip(j) {
            *r = p - 1;
        }
        i = j;
        p -= 1;
    }
    run
}

/// Source of a resolved link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkSource {
    /// Frames received on interface `i` (index into `monitor.interfaces`).
    Iface(usize),
    /// Output port `port` of NF `nf`.
    Nf { nf: usize, port: u32 },
}

/// Destination of a resolved link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkDest {
    /// Transmit on interface `i`.
    Iface(usize),
    /// Input port `port` of NF `nf`.
    Nf { nf: usize, port: u32 },
}

/// A link with indices and its effective mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedLink {
    pub source: LinkSource,
    pub dest: LinkDest,
    /// Effective mode for NF→NF links (interface links use AF_XDP directly).
    pub mode: LinkMode,
}

/// One AF_XDP socket the monitor creates: NF `nf` on interface `iface`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketPlan {
    pub nf: usize,
    pub iface: usize,
    /// Receives from the interface (is put in the XSKMAP).
    pub rx: bool,
    /// Transmits to the interface.
    pub tx: bool,
    /// UMEM group of the NF.
    pub group: usize,
    /// Registers the group's UMEM (first socket of the group).
    pub registers_umem: bool,
    /// Index of the socket whose UMEM it shares (when not registering).
    pub shares_with: Option<usize>,
    /// Has its own fill/completion rings (false when it shares a netdev
    /// queue with an earlier socket of the same UMEM).
    pub own_fill_completion: bool,
}

/// A resolved UMEM group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupLayout {
    pub name: String,
    /// Member NFs in deployment order.
    pub nfs: Vec<usize>,
    /// Total frames (sum of member NFs' frames).
    pub frames: u32,
}

/// The resolved, index-based view of a valid deployment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    pub groups: Vec<GroupLayout>,
    /// Group index of each NF.
    pub nf_group: Vec<usize>,
    /// First frame index of each NF's partition inside its group's UMEM.
    pub nf_first_frame: Vec<u32>,
    pub links: Vec<ResolvedLink>,
    pub sockets: Vec<SocketPlan>,
    /// Number of input ports of each NF (max `to.port` + 1, at least 1).
    pub nf_in_ports: Vec<u32>,
}

impl Topology {
    /// Link leaving NF `nf` on output `port`, if any.
    pub fn out_link(&self, nf: usize, port: u32) -> Option<usize> {
        self.links
            .iter()
            .position(|l| l.source == LinkSource::Nf { nf, port })
    }

    /// Group owning a frame index, and the NF owning it.
    pub fn frame_owner(&self, group: usize, frame: u32) -> Option<usize> {
        self.groups.get(group)?.nfs.iter().copied().find(|&nf| {
            let first = self.nf_first_frame[nf];
            frame >= first && frame - first < self.nf_frames(nf)
        })
    }

    fn nf_frames(&self, nf: usize) -> u32 {
        let g = &self.groups[self.nf_group[nf]];
        let pos = g.nfs.iter().position(|&n| n == nf).unwrap_or(0);
        let next = g
            .nfs
            .get(pos + 1)
            .map(|&n| self.nf_first_frame[n])
            .unwrap_or(g.frames);
        next - self.nf_first_frame[nf]
    }
}

fn is_pow2(v: u32) -> bool {
    v != 0 && v & (v - 1) == 0
}

fn resolve(d: &Deployment) -> Result<Topology, Vec<String>> {
    let mut p = vec![];
    let m = &d.monitor;
    if m.socket.as_os_str().is_empty() {
        p.push("monitor.socket: must be a path".to_string());
    }
    if !(m.frame_size == 2048 || m.frame_size == 4096) {
        p.push(format!(
            "monitor.frame_size: {} is not 2048 or 4096",
            m.frame_size
        ));
    }
    for (what, v) in [("ring_size", m.ring_size), ("inbox_size", m.inbox_size)] {
        if !is_pow2(v) || !(64..=1 << 16).contains(&v) {
            p.push(format!(
                "monitor.{what}: {v} must be a power of two between 64 and 65536"
            ));
        }
    }
    if m.batch_size == 0 || m.batch_size > 1024 {
        p.push(format!(
            "monitor.batch_size: {} must be between 1 and 1024",
            m.batch_size
        ));
    }
    let mut ifaces: HashMap<&str, usize> = HashMap::new();
    for (i, itf) in m.interfaces.iter().enumerate() {
        if ifaces.insert(itf.name.as_str(), i).is_some() {
            p.push(format!(
                "monitor.interfaces[{i}]: duplicate name `{}`",
                itf.name
            ));
        }
        if itf.ifname.is_empty() || itf.ifname.len() > 15 {
            p.push(format!(
                "monitor.interfaces[{i}] `{}`: ifname `{}` is not a valid interface name",
                itf.name, itf.ifname
            ));
        }
        if itf.queue >= 64 {
            p.push(format!(
                "monitor.interfaces[{i}] `{}`: queue {} is above 63",
                itf.name, itf.queue
            ));
        }
    }
    for (i, a) in m.interfaces.iter().enumerate() {
        for b in &m.interfaces[..i] {
            if a.ifname == b.ifname && a.queue == b.queue {
                p.push(format!(
                    "monitor.interfaces: `{}` and `{}` are the same queue {} of {}",
                    b.name, a.name, a.queue, a.ifname
                ));
            }
        }
    }
    let mut nfs: HashMap<&str, usize> = HashMap::new();
    if d.nfs.is_empty() {
        p.push("nfs: a deployment needs at least one NF".to_string());
    }
    for (i, nf) in d.nfs.iter().enumerate() {
        if nf.id.is_empty() {
            p.push(format!("nfs[{i}]: empty id"));
        }
        if nfs.insert(nf.id.as_str(), i).is_some() {
            p.push(format!("nfs[{i}]: duplicate id `{}`", nf.id));
        }
        if nf.threads != 1 {
            p.push(format!("nfs[{i}] `{}`: threads = {}; this runtime runs one thread per NF (one queue per interface)", nf.id, nf.threads));
        }
        if nf.frames < 64 || nf.frames > 1 << 20 {
            p.push(format!(
                "nfs[{i}] `{}`: frames = {} must be between 64 and 1048576",
                nf.id, nf.frames
            ));
        }
        if nf.object.as_os_str().is_empty() {
            p.push(format!("nfs[{i}] `{}`: object path is empty", nf.id));
        }
        if nf.polling.window_us == 0 {
            p.push(format!(
                "nfs[{i}] `{}`: polling.window_us must be positive",
                nf.id
            ));
        }
    }
    // Groups.
    let mut nf_group: Vec<Option<usize>> = vec![None; d.nfs.len()];
    let mut groups: Vec<GroupLayout> = vec![];
    for (gi, g) in d.groups.iter().enumerate() {
        if d.groups[..gi].iter().any(|o| o.name == g.name) {
            p.push(format!("groups[{gi}]: duplicate name `{}`", g.name));
        }
        let mut members = vec![];
        for id in &g.nfs {
            match nfs.get(id.as_str()) {
                None => p.push(format!(
                    "groups[{gi}] `{}`: unknown NF `{id}`{}",
                    g.name,
                    hint(id, d.nfs.iter().map(|n| n.id.as_str()))
                )),
                Some(&n) => {
                    if let Some(other) = nf_group[n] {
                        // This group is pushed to `groups` only after its
                        // members are read: `other` may be this group.
                        match groups.get(other) {
                            Some(o) => p.push(format!(
                                "groups[{gi}] `{}`: NF `{id}` is already in group `{}`",
                                g.name, o.name
                            )),
                            None => p.push(format!(
                                "groups[{gi}] `{}`: NF `{id}` is listed twice",
                                g.name
                            )),
                        }
                    } else {
                        nf_group[n] = Some(groups.len());
                        members.push(n);
                    }
                }
            }
        }
        groups.push(GroupLayout {
            name: g.name.clone(),
            nfs: members,
            frames: 0,
        });
    }
    let nf_group: Vec<usize> = nf_group
        .into_iter()
        .enumerate()
        .map(|(n, g)| {
            g.unwrap_or_else(|| {
                groups.push(GroupLayout {
                    name: format!("{}.umem", d.nfs[n].id),
                    nfs: vec![n],
                    frames: 0,
                });
                groups.len() - 1
            })
        })
        .collect();
    let mut nf_first_frame = vec![0u32; d.nfs.len()];
    for g in &mut groups {
        g.nfs.sort_unstable();
        let mut total: u64 = 0;
        for &n in &g.nfs {
            nf_first_frame[n] = total as u32;
            total += u64::from(d.nfs[n].frames);
        }
        if total * u64::from(m.frame_size) > 1 << 32 {
            p.push(format!(
                "group `{}`: UMEM of {} frames exceeds 4 GiB",
                g.name, total
            ));
        }
        g.frames = total.min(u64::from(u32::MAX)) as u32;
    }
    // Links.
    let mut links = vec![];
    let mut nf_in_ports = vec![1u32; d.nfs.len()];
    let mut has_input = vec![false; d.nfs.len()];
    for (li, l) in d.links.iter().enumerate() {
        let ctx = format!("links[{li}] ({} -> {})", l.from.describe(), l.to.describe());
        let end = |e: &Endpoint, p: &mut Vec<String>, side: &str| -> Option<(bool, usize)> {
            match (&e.nf, &e.iface) {
                (Some(nf), None) => match nfs.get(nf.as_str()) {
                    Some(&i) => Some((true, i)),
                    None => {
                        p.push(format!(
                            "{ctx}: {side}: unknown NF `{nf}`{}",
                            hint(nf, d.nfs.iter().map(|n| n.id.as_str()))
                        ));
                        None
                    }
                },
                (None, Some(itf)) => {
                    if e.port.is_some() {
                        p.push(format!(
                            "{ctx}: {side}: `port` applies to NF endpoints, not interfaces"
                        ));
                    }
                    match ifaces.get(itf.as_str()) {
                        Some(&i) => Some((false, i)),
                        None => {
                            p.push(format!(
                                "{ctx}: {side}: unknown interface `{itf}`{}",
                                hint(itf, m.interfaces.iter().map(|i| i.name.as_str()))
                            ));
                            None
                        }
                    }
                }
                _ => {
                    p.push(format!(
                        "{ctx}: {side}: give exactly one of `nf` and `iface`"
                    ));
                    None
                }
            }
        };
        let (Some(src), Some(dst)) = (end(&l.from, &mut p, "from"), end(&l.to, &mut p, "to"))
        else {
            continue;
        };
        let source = if src.0 {
            LinkSource::Nf {
                nf: src.1,
                port: l.from.port.unwrap_or(0),
            }
        } else {
            LinkSource::Iface(src.1)
        };
        let dest = if dst.0 {
            LinkDest::Nf {
                nf: dst.1,
                port: l.to.port.unwrap_or(0),
            }
        } else {
            LinkDest::Iface(dst.1)
        };
        let mode = match (source, dest) {
            (LinkSource::Iface(_), LinkDest::Iface(_)) => {
                p.push(format!(
                    "{ctx}: an interface cannot link straight to an interface"
                ));
                continue;
            }
            (LinkSource::Nf { nf: a, .. }, LinkDest::Nf { nf: b, .. }) => {
                if a == b {
                    p.push(format!("{ctx}: an NF cannot link to itself"));
                }
                let same = nf_group[a] == nf_group[b];
                match (l.mode, same) {
                    (Some(LinkMode::ZeroCopy), false) => {
                        p.push(format!(
                            "{ctx}: zero-copy needs both NFs in one UMEM group (they are in `{}` and `{}`)",
                            groups[nf_group[a]].name, groups[nf_group[b]].name
                        ));
                        LinkMode::ZeroCopy
                    }
                    (Some(LinkMode::SingleCopy), true) => {
                        p.push(format!("{ctx}: single-copy between NFs of the same UMEM group `{}`; use zero-copy or separate groups", groups[nf_group[a]].name));
                        LinkMode::SingleCopy
                    }
                    (Some(mode), _) => mode,
                    (None, true) => LinkMode::ZeroCopy,
                    (None, false) => LinkMode::SingleCopy,
                }
            }
            _ => LinkMode::ZeroCopy,
        };
        if let LinkSource::Nf { nf, port } = source {
            if links.iter().any(|o: &ResolvedLink| o.source == source) {
                p.push(format!("{ctx}: NF `{}` port {port} already has a link; fan-out is by verdict port, one link per port", d.nfs[nf].id));
            }
        }
        if let LinkSource::Iface(i) = source {
            if links.iter().any(|o: &ResolvedLink| o.source == source) {
                p.push(format!(
                    "{ctx}: interface `{}` already feeds an NF (one receiving NF per queue)",
                    m.interfaces[i].name
                ));
            }
        }
        if let LinkDest::Nf { nf, port } = dest {
            nf_in_ports[nf] = nf_in_ports[nf].max(port + 1);
            has_input[nf] = true;
        }
        links.push(ResolvedLink { source, dest, mode });
    }
    for (n, nf) in d.nfs.iter().enumerate() {
        if !has_input[n] {
            p.push(format!("nfs `{}`: no link delivers packets to it", nf.id));
        }
    }
    // Sockets: one per (NF, interface) pair touched by a link.
    let mut sockets: Vec<SocketPlan> = vec![];
    for l in &links {
        let (nf, iface, rx) = match (l.source, l.dest) {
            (LinkSource::Iface(i), LinkDest::Nf { nf, .. }) => (nf, i, true),
            (LinkSource::Nf { nf, .. }, LinkDest::Iface(i)) => (nf, i, false),
            _ => continue,
        };
        if let Some(s) = sockets.iter_mut().find(|s| s.nf == nf && s.iface == iface) {
            s.rx |= rx;
            s.tx |= !rx;
            continue;
        }
        let group = nf_group[nf];
        let first_of_group = sockets.iter().position(|s| s.group == group);
        let same_queue = sockets.iter().position(|s| {
            let (a, b) = (&m.interfaces[s.iface], &m.interfaces[iface]);
            a.ifname == b.ifname && a.queue == b.queue
        });
        if let Some(q) = same_queue {
            if sockets[q].group != group {
                p.push(format!(
                    "interface `{}` (queue {} of {}) is used by NFs `{}` and `{}` in different UMEM groups; put them in one group or use separate queues",
                    m.interfaces[iface].name, m.interfaces[iface].queue, m.interfaces[iface].ifname, d.nfs[sockets[q].nf].id, d.nfs[nf].id
                ));
            }
        }
        sockets.push(SocketPlan {
            nf,
            iface,
            rx,
            tx: !rx,
            group,
            registers_umem: first_of_group.is_none(),
            shares_with: first_of_group.map(|f| same_queue.unwrap_or(f)),
            own_fill_completion: same_queue.is_none(),
        });
    }
    if p.is_empty() {
        Ok(Topology {
            groups,
            nf_group,
            nf_first_frame,
            links,
            sockets,
            nf_in_ports,
        })
    } else {
        Err(p)
    }
}

fn hint<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> String {
    let known: BTreeMap<&str, ()> = known.map(|k| (k, ())).collect();
    if known.is_empty() {
        return String::new();
    }
    let list: Vec<&str> = known.keys().copied().collect();
    let close = list
        .iter()
        .find(|k| k.eq_ignore_ascii_case(name) || k.starts_with(name) || name.starts_with(**k));
    match close {
        Some(c) => format!(" (did you mean `{c}`?)"),
        None => format!(" (known: {})", list.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
version: 1
name: t
monitor:
  socket: /tmp/x.sock
  interfaces:
    - {name: in, ifname: veth1}
    - {name: out, ifname: veth2}
nfs:
  - {id: a, object: /x/a.so, config: {dst_mac: "02:00:00:00:00:01", n: 3}}
  - {id: b, object: /x/b.so}
groups:
  - {name: g, nfs: [a, b]}
links:
  - {from: {iface: in}, to: {nf: a}}
  - {from: {nf: a}, to: {nf: b}}
  - {from: {nf: b}, to: {iface: out}}
"#;

    /// Parse `text` (YAML) and compare the outcome's text with `expect`.
    fn check(text: &str, expect: &str) {
        let got = match Deployment::parse(text, Path::new("d.yaml")) {
            Ok(d) => {
                let t = d.topology().expect("valid");
                format!(
                    "ok groups={:?} links={:?} sockets={}",
                    t.groups
                        .iter()
                        .map(|g| (&g.name, g.frames))
                        .collect::<Vec<_>>(),
                    t.links.iter().map(|l| l.mode).collect::<Vec<_>>(),
                    t.sockets.len()
                )
            }
            Err(e) => e.to_string(),
        };
        assert!(got.contains(expect), "expected `{expect}` in:\n{got}");
    }

    #[test]
    fn valid_zero_copy_chain() {
        check(
            BASE,
            r#"ok groups=[("g", 8192)] links=[ZeroCopy, ZeroCopy, ZeroCopy] sockets=2"#,
        );
    }

    #[test]
    fn config_keeps_order_and_scalars() {
        let d = Deployment::parse(BASE, Path::new("d.yaml")).unwrap();
        assert_eq!(
            d.nfs[0].config,
            vec![
                ("dst_mac".into(), "02:00:00:00:00:01".into()),
                ("n".into(), "3".into())
            ]
        );
        let json = d.to_json();
        let back = Deployment::parse(&json, Path::new("d.json")).unwrap();
        assert_eq!(back, d);
    }

    #[test]
    fn separate_groups_default_to_single_copy() {
        check(
            &BASE.replace("groups:\n  - {name: g, nfs: [a, b]}\n", ""),
            r#"ok groups=[("a.umem", 4096), ("b.umem", 4096)] links=[ZeroCopy, SingleCopy, ZeroCopy]"#,
        );
    }

    #[test]
    fn errors_are_all_reported() {
        let bad = BASE
            .replace("{nf: a}, to: {nf: b}", "{nf: a}, to: {nf: bb}")
            .replace("{iface: out}", "{iface: ot}");
        check(&bad, "unknown NF `bb` (did you mean `b`?)");
        check(&bad, "unknown interface `ot`");
        check(&bad, "nfs `b`: no link delivers packets to it");
    }

    #[test]
    fn zero_copy_across_groups_is_refused() {
        let bad = BASE
            .replace("groups:\n  - {name: g, nfs: [a, b]}\n", "")
            .replace("to: {nf: b}}", "to: {nf: b}, mode: zero-copy}");
        check(&bad, "zero-copy needs both NFs in one UMEM group");
    }

    #[test]
    fn malformed_and_versions() {
        check("version: 1\nmonitor: [", "malformed deployment d.yaml");
        check(&BASE.replace("version: 1", "version: 7"), "has version 7");
        check(
            &BASE.replace("name: t", "name: t\nbogus: 1"),
            "unknown field `bogus`",
        );
        check(
            &BASE.replace("ifname: veth1", "ifname: veth1-with-a-very-long-name"),
            "is not a valid interface name",
        );
    }

    #[test]
    fn an_nf_twice_in_one_group_is_an_error() {
        // Found by tests/deploy_no_panic.rs (this used to index past the end).
        check(
            &BASE.replace("nfs: [a, b]", "nfs: [a, b, a]"),
            "groups[0] `g`: NF `a` is listed twice",
        );
    }

    #[test]
    fn fan_out_needs_distinct_ports() {
        let bad = BASE.replace(
            "  - {from: {nf: b}, to: {iface: out}}",
            "  - {from: {nf: b}, to: {iface: out}}\n  - {from: {nf: a}, to: {iface: out}}",
        );
        check(&bad, "NF `a` port 0 already has a link");
    }

    #[test]
    fn hairpin_sockets_share_fill_ring() {
        let d = BASE.replace(
            "{from: {nf: b}, to: {iface: out}}",
            "{from: {nf: b}, to: {iface: in}}",
        );
        let dep = Deployment::parse(&d, Path::new("d.yaml")).unwrap();
        let t = dep.topology().unwrap();
        assert!(t.sockets[0].registers_umem && t.sockets[0].own_fill_completion);
        assert!(!t.sockets[1].registers_umem && !t.sockets[1].own_fill_completion);
        assert_eq!(t.sockets[1].shares_with, Some(0));
        assert_eq!(t.frame_owner(0, 4095), Some(0));
        assert_eq!(t.frame_owner(0, 4096), Some(1));
    }

    /// (weights, parts) -> run of each element.
    #[test]
    fn contiguous_runs_minimise_the_heaviest_run() {
        let cases: &[(&[f64], usize, &[usize])] = &[
            (&[1.0; 8], 2, &[0, 0, 0, 0, 1, 1, 1, 1]),
            (&[1.0; 8], 3, &[0, 0, 0, 1, 1, 1, 2, 2]),
            (&[1.0; 3], 2, &[0, 0, 1]),
            (&[1.0; 2], 4, &[0, 1]),
            (&[5.0, 1.0, 1.0, 1.0, 1.0, 1.0], 2, &[0, 1, 1, 1, 1, 1]),
            (
                &[3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                2,
                &[0, 0, 0, 1, 1, 1, 1, 1],
            ),
            (&[1.0, 1.0, 1.0, 1.0, 1.0, 6.0], 2, &[0, 0, 0, 0, 0, 1]),
            (&[1.0; 5], 1, &[0, 0, 0, 0, 0]),
            (&[], 2, &[]),
        ];
        for (w, parts, expect) in cases {
            assert_eq!(&contiguous_runs(w, *parts), expect, "{w:?} into {parts}");
        }
    }

    #[test]
    fn cpus_follow_chain_order_not_deployment_order() {
        // Deployment order c, a, b; packets meet a, b, c.
        let text = BASE
            .replace("nfs:\n", "nfs:\n  - {id: c, object: /x/c.so}\n")
            .replace(
                "  - {from: {nf: b}, to: {iface: out}}",
                "  - {from: {nf: b}, to: {nf: c}}\n  - {from: {nf: c}, to: {iface: out}}",
            )
            .replace("nfs: [a, b]", "nfs: [a, b, c]");
        let mut dep = Deployment::parse(&text, Path::new("d.yaml")).unwrap();
        let topo = dep.topology().unwrap();
        assert_eq!(dep.chain_order(&topo), vec![1, 2, 0]);
        assert_eq!(dep.assign_cpus(&[4, 6], None), vec![6, 4, 4]);
        assert_eq!(dep.nfs[1].cpus, vec![4]);
        // A heavy last NF gets a CPU to itself either way; a heavy first NF
        // moves the cut.
        assert_eq!(
            dep.assign_cpus(&[4, 6], Some(&[1.0, 9.0, 1.0])),
            vec![6, 4, 6]
        );
        // Enough CPUs: one each, in chain order.
        assert_eq!(dep.assign_cpus(&[0, 1, 2, 3], None), vec![2, 0, 1]);
        // Round trip keeps the pinning; an unpinned NF serialises without it.
        let back = Deployment::parse(&dep.to_json(), Path::new("d.json")).unwrap();
        assert_eq!(back.nfs[0].cpus, vec![2]);
        assert!(!BASE.contains("cpus"));
    }
}
