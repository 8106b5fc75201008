//! The offline reference executor: runs an NF chain (a DAG of NF shared
//! objects built against `nfs/include/nf.h`) over a pcap or an in-memory
//! trace, deterministically and without sockets. It is nfc's oracle for what
//! a chain does to each packet (the reducer's differential tests compare two
//! executions) and the harness that measures what a placement plan is worth:
//! in multi-worker mode packets are steered to workers by software RSS
//! ([`crate::rss`]) and each NF's state is laid out per its [`Sharing`] mode.
//!
//! Routing: each packet enters every entry NF; `nf_process` returns a verdict;
//! `NF_DROP` drops, an output port with successors forwards (a copy per
//! successor when there are several), a port without successors is a chain
//! exit (`<nf id>.<port>`). Packets are processed run-to-completion on their
//! worker. Exit packets are collected in input order regardless of the worker
//! count, so runs with different layouts can be compared frame for frame.
//!
//! State layout: a `Shared` NF has one state instance, entered under its
//! lock (one per state table, on its own cache line, held for the whole
//! `nf_process` call) when there is more than one worker; `SharedNothing` and `Stateless` NFs
//! get one instance per worker (a `Stateless` NF normally has a 0-byte
//! state, and if it does keep state, per-worker instances need no lock).

pub mod abi;
mod engine;

use crate::rss::{self, RssError, SoftRss};
use crate::trace::pcap::{self, PcapError};
use crate::trace::Packets;
use abi::{NfLibrary, StateBlock};
use nfc_core::chain::{ChainSpec, NfInstance};
use nfc_core::facts::Field;
use nfc_core::plan::{Plan, Sharing};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use abi::NF_ABI_VERSION;

/// One NF instance of an executable chain.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecNf {
    /// Instance id (unique in the chain; used in reports and exit names).
    pub id: String,
    /// The NF's shared object.
    pub so_path: PathBuf,
    /// Flattened configuration handed to `nf_init` (see `ConfigValue::flatten`).
    pub config: Vec<(String, String)>,
    /// (output port, index of the successor NF). Several successors on one
    /// port each get a copy of the packet.
    pub next: Vec<(u32, usize)>,
    /// State layout across workers.
    pub sharing: Sharing,
}

/// An executable chain: NF instances and the indices of the entry NFs.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecChain {
    pub nfs: Vec<ExecNf>,
    pub entries: Vec<usize>,
}

impl ExecChain {
    /// Build from a validated chain: `so_for` resolves each instance to its
    /// built shared object; sharing comes from `plan` (NFs it does not name,
    /// or every NF without a plan, run `Shared`, which is always correct).
    pub fn from_spec(
        spec: &ChainSpec,
        mut so_for: impl FnMut(&NfInstance) -> PathBuf,
        plan: Option<&Plan>,
    ) -> ExecChain {
        let nfs = spec
            .nfs
            .iter()
            .map(|inst| {
                let sharing = plan
                    .and_then(|p| p.nfs.iter().find(|n| n.nf == inst.id.0))
                    .map(|n| n.sharing)
                    .unwrap_or(Sharing::Shared);
                let mut next: Vec<(u32, usize)> = spec
                    .successors(&inst.id.0)
                    .into_iter()
                    .filter_map(|(port, id)| {
                        spec.nfs.iter().position(|n| n.id == id).map(|i| (port, i))
                    })
                    .collect();
                next.sort();
                ExecNf {
                    id: inst.id.0.clone(),
                    so_path: so_for(inst),
                    config: inst.config.flatten(),
                    next,
                    sharing,
                }
            })
            .collect();
        let entries = spec
            .entries()
            .into_iter()
            .filter_map(|e| spec.nfs.iter().position(|n| n.id == e.id))
            .collect();
        ExecChain { nfs, entries }
    }
}

/// How to run a chain.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecOptions {
    /// Worker threads (1 runs on the calling thread).
    pub workers: u32,
    /// Fields the software RSS hashes to pick a worker.
    pub rss_fields: Vec<Field>,
    /// Toeplitz key; default [`rss::MICROSOFT_KEY`].
    pub rss_key: Option<Vec<u8>>,
    /// Redirection table (entries are worker indices); default
    /// [`rss::DEFAULT_RETA_SIZE`] entries round-robin over the workers.
    pub reta: Option<Vec<u16>>,
    /// Keep exit packets (in input order) in [`ExecRun::output`] and digest
    /// them; `run_pcap` turns this on when given an output path.
    pub collect_output: bool,
    /// Bytes a packet may grow by (`cap - len` seen by NFs).
    pub headroom: u32,
    /// Directory for the private per-instance copies of NF objects (removed
    /// right after loading). Default: the system temporary directory.
    pub scratch_dir: Option<PathBuf>,
    /// Run every packet on the calling thread in input order, each with the
    /// state instances of the worker RSS steers it to (a shared NF's one
    /// instance otherwise). The result is what the plan computes when the
    /// workers interleave in arrival order: deterministic, so two layouts
    /// can be compared packet for packet (the plan proof does). Timing
    /// figures then measure one thread.
    pub serial: bool,
    /// Closed loop: every packet that leaves the chain is turned into the
    /// reply a remote host would send ([`crate::trace::craft::reply_frame`])
    /// and fed back right away, steered by RSS like any arrival. Replies
    /// enter each entry NF on its far side: input port 1 when the NF
    /// declares two or more ports (a NAT's outside, a bridge's second port),
    /// else port 0. Replies are not reflected again; their exits are tagged
    /// [`ExitTag::reply`]. Implies `serial` and `collect_output`.
    pub reflect: bool,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            workers: 1,
            rss_fields: Field::FIVE_TUPLE.to_vec(),
            rss_key: None,
            reta: None,
            collect_output: false,
            headroom: 256,
            scratch_dir: None,
            serial: false,
            reflect: false,
        }
    }
}

impl ExecOptions {
    /// Workers, RSS fields, key and RETA from a placement plan. RETA entries
    /// are taken modulo the core count so a plan's table always fits.
    pub fn from_plan(plan: &Plan) -> Self {
        let workers = plan.cores.max(1);
        ExecOptions {
            workers,
            rss_fields: plan.rss.fields.clone(),
            rss_key: (!plan.rss.key40.is_empty()).then(|| plan.rss.key40.clone()),
            reta: (!plan.rss.reta.is_empty()).then(|| {
                plan.rss
                    .reta
                    .iter()
                    .map(|q| (u32::from(*q) % workers) as u16)
                    .collect()
            }),
            ..ExecOptions::default()
        }
    }
}

/// Why a chain could not run.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The input pcap is unreadable or malformed.
    #[error("{path}: {source}")]
    Pcap { path: PathBuf, source: PcapError },
    /// The output pcap could not be written.
    #[error("cannot write {path}: {source}")]
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An NF's shared object does not exist.
    #[error("NF `{nf}`: shared object {path} not found (build the NF first)")]
    MissingSo { nf: String, path: PathBuf },
    /// The dynamic loader rejected an NF's shared object.
    #[error("NF `{nf}`: cannot load {path}: {message}")]
    Load {
        nf: String,
        path: PathBuf,
        message: String,
    },
    /// A required `nf.h` entry point is not exported.
    #[error("NF `{nf}`: shared object does not export `{symbol}` (is it built against nfs/include/nf.h?)")]
    MissingSymbol { nf: String, symbol: &'static str },
    /// The NF was built for another ABI version.
    #[error("NF `{nf}`: ABI version {found}, this runtime speaks version {expected}")]
    AbiVersion {
        nf: String,
        found: u32,
        expected: u32,
    },
    /// The NF broke the ABI in another way.
    #[error("NF `{nf}`: {message}")]
    Abi { nf: String, message: String },
    /// A configuration key or value contains a NUL byte.
    #[error("NF `{nf}`: configuration `{key}` contains a NUL byte")]
    BadConfig { nf: String, key: String },
    /// `nf_init` rejected the configuration.
    #[error("NF `{nf}`: nf_init failed: {message}")]
    Init { nf: String, message: String },
    /// The chain's topology is unusable (bad index, cycle, missing port, no entry).
    #[error("invalid chain: {0}")]
    Chain(String),
    /// The execution options are unusable.
    #[error("invalid options: {0}")]
    Options(String),
    /// The RSS configuration is unusable.
    #[error("invalid RSS configuration: {0}")]
    Rss(#[from] RssError),
    /// A state instance could not be allocated.
    #[error("cannot allocate a {bytes}-byte NF state instance")]
    StateAlloc { bytes: usize },
    /// A worker thread died.
    #[error("worker {0} panicked")]
    Worker(u32),
}

/// Per-NF results of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NfReport {
    pub id: String,
    /// Name from `nf_describe`.
    pub name: String,
    pub sharing: Sharing,
    /// State instances (1 when shared, one per worker otherwise).
    pub state_instances: u32,
    /// Bytes of one state instance.
    pub state_bytes: u64,
    /// Packets handed to `nf_process`.
    pub rx: u64,
    /// `NF_DROP` verdicts.
    pub drops: u64,
    /// Verdicts that were neither `NF_DROP` nor a declared port (packet dropped).
    pub invalid_verdicts: u64,
    /// Packets out of each declared port.
    pub out: Vec<u64>,
    /// Acquisitions of the shared state's lock that found it held by another
    /// worker (0 unless shared with several workers).
    #[serde(default)]
    pub lock_contended: u64,
    /// SHA-256 (hex) of the final state: of the instance when there is one,
    /// else over the per-worker instance digests in worker order.
    pub state_digest: String,
    /// SHA-256 (hex) of each state instance, in worker order.
    pub instance_digests: Vec<String>,
}

/// Results of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecReport {
    /// Input packets.
    pub packets: u64,
    pub workers: u32,
    /// Input packets steered to each worker.
    pub worker_packets: Vec<u64>,
    pub nfs: Vec<NfReport>,
    /// Packets out of each chain exit, keyed `<nf id>.<port>`.
    pub exits: BTreeMap<String, u64>,
    /// Packets that left through an exit.
    pub exited: u64,
    /// Packets dropped (by `NF_DROP` or an invalid verdict).
    pub dropped: u64,
    /// SHA-256 (hex) over `id || state_digest` of every NF in chain order.
    pub state_digest: String,
    /// [`Packets::digest`] of the exit packets in input order, when collected.
    pub output_digest: Option<String>,
    /// Wall time of packet processing only (loading, state reset and RSS
    /// dispatch excluded).
    pub wall_ns: u64,
    /// Input packets per second over `wall_ns`, in millions.
    pub mpps: f64,
    /// CPU time the workers spent processing, summed over workers. Unlike
    /// `wall_ns` it does not grow when other processes take the cores.
    pub cpu_ns: u64,
    /// Input packets per CPU-second, in millions (`packets / cpu_ns`).
    pub mpps_per_cpu: f64,
    /// CPU time of the whole process (user + system of every thread, from
    /// `getrusage`) over the `wall_ns` window.
    #[serde(default)]
    pub process_cpu_ns: u64,
    /// Input packets per process CPU-second, in millions.
    #[serde(default)]
    pub mpps_per_process_cpu: f64,
}

/// Where one exit packet left the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitTag {
    /// Index of the input packet it came from.
    pub input: u64,
    /// Index of the NF whose port it left through.
    pub nf: u32,
    pub port: u32,
    /// The packet is a closed-loop reply (see [`ExecOptions::reflect`]) to
    /// input packet `input`.
    #[serde(default)]
    pub reply: bool,
}

/// A report plus, when collected, the exit packets.
#[derive(Debug, Clone)]
pub struct ExecRun {
    pub report: ExecReport,
    /// Exit packets in input order (ties in chain order), with the input timestamps.
    pub output: Option<Packets>,
    /// Parallel to `output`: where each packet left.
    pub output_tags: Vec<ExitTag>,
}

/// The lock of a shared state table, alone on its cache line so that taking
/// it bounces only its own line (as a real per-table lock would). A
/// spinlock, as packet-processing frameworks use for such short critical
/// sections (DPDK's `rte_spinlock`, Click's `Spinlock`): a parking mutex
/// would put a contended worker to sleep in the kernel for microseconds to
/// wait out a call of tens of nanoseconds, which no NF framework does.
#[repr(align(64))]
#[derive(Default)]
struct StateLock(std::sync::atomic::AtomicBool);

impl StateLock {
    /// Take the lock; returns whether another worker held it at first try.
    fn acquire(&self) -> bool {
        use std::sync::atomic::Ordering;
        if self
            .0
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            return false;
        }
        loop {
            // Test, then test-and-set: spin on a shared read of the line.
            while self.0.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
            if self
                .0
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return true;
            }
        }
    }

    fn release(&self) {
        self.0.store(false, std::sync::atomic::Ordering::Release);
    }
}

/// One loaded NF instance: its library and state instances.
struct LoadedNf {
    id: String,
    sharing: Sharing,
    /// Per port: (successor index, input port at the successor).
    routes: Vec<Vec<(u32, u32)>>,
    /// Dropped before `lib` (field order), so no state outlives its code.
    states: Vec<StateBlock>,
    lock: StateLock,
    lib: NfLibrary,
}

/// A chain loaded and ready to run repeatedly (benches reuse one).
pub struct Executor {
    nfs: Vec<LoadedNf>,
    /// (entry NF, input port).
    entries: Vec<(u32, u32)>,
    /// Where closed-loop replies enter: (entry NF, input port).
    reply_entries: Vec<(u32, u32)>,
    workers: u32,
    rss: Option<SoftRss>,
    collect: bool,
    serial: bool,
    reflect: bool,
    headroom: u32,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("nfs", &self.nfs.iter().map(|n| &n.id).collect::<Vec<_>>())
            .field("workers", &self.workers)
            .finish()
    }
}

/// Check that the chain has NFs and entries, that every index is in range,
/// and that the links form a DAG.
fn check_topology(chain: &ExecChain) -> Result<(), ExecError> {
    let n = chain.nfs.len();
    if n == 0 {
        return Err(ExecError::Chain("the chain has no NFs".into()));
    }
    if chain.entries.is_empty() {
        return Err(ExecError::Chain("the chain has no entry NF".into()));
    }
    if n > u32::MAX as usize / 2 {
        return Err(ExecError::Chain("too many NFs".into()));
    }
    for &e in &chain.entries {
        if e >= n {
            return Err(ExecError::Chain(format!(
                "entry index {e} is out of range ({n} NFs)"
            )));
        }
    }
    let mut indeg = vec![0usize; n];
    for nf in &chain.nfs {
        for &(_, j) in &nf.next {
            if j >= n {
                return Err(ExecError::Chain(format!(
                    "NF `{}` links to index {j}, out of range ({n} NFs)",
                    nf.id
                )));
            }
            indeg[j] += 1;
        }
    }
    // Kahn's algorithm: whatever is left has a cycle.
    let mut queue: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut seen = 0;
    while let Some(i) = queue.pop() {
        seen += 1;
        for &(_, j) in &chain.nfs[i].next {
            indeg[j] -= 1;
            if indeg[j] == 0 {
                queue.push(j);
            }
        }
    }
    if seen != n {
        let cyc: Vec<&str> = (0..n)
            .filter(|&i| indeg[i] > 0)
            .map(|i| chain.nfs[i].id.as_str())
            .collect();
        return Err(ExecError::Chain(format!(
            "the links form a cycle through {}",
            cyc.join(", ")
        )));
    }
    Ok(())
}

impl Executor {
    /// Load every NF (a private copy of its object each), initialise it with
    /// its config, allocate its state instances and program the RSS unit.
    pub fn new(chain: &ExecChain, opts: &ExecOptions) -> Result<Self, ExecError> {
        check_topology(chain)?;
        if opts.workers == 0 || opts.workers > 1024 {
            return Err(ExecError::Options(format!(
                "workers must be 1..=1024, got {}",
                opts.workers
            )));
        }
        let rss = if opts.workers > 1 {
            let key = opts
                .rss_key
                .clone()
                .unwrap_or_else(|| rss::MICROSOFT_KEY.to_vec());
            let reta = opts
                .reta
                .clone()
                .unwrap_or_else(|| rss::default_reta(opts.workers, rss::DEFAULT_RETA_SIZE));
            Some(SoftRss::new(&opts.rss_fields, &key, reta, opts.workers)?)
        } else {
            None
        };
        let scratch = opts.scratch_dir.clone().unwrap_or_else(std::env::temp_dir);
        // Input ports: the entry feed is port 0 of an entry NF; incoming
        // links are numbered after it in (source index, port) order.
        let mut next_in: Vec<u32> = vec![0; chain.nfs.len()];
        let entries: Vec<(u32, u32)> = chain
            .entries
            .iter()
            .map(|&e| {
                let p = next_in[e];
                next_in[e] += 1;
                (e as u32, p)
            })
            .collect();
        let mut nfs = Vec::with_capacity(chain.nfs.len());
        for nf in &chain.nfs {
            let lib = NfLibrary::load(&nf.id, &nf.so_path, &nf.config, &scratch)?;
            let mut routes = vec![Vec::new(); lib.n_ports as usize];
            let mut next = nf.next.clone();
            next.sort();
            for (port, j) in next {
                let slot = routes.get_mut(port as usize).ok_or_else(|| {
                    ExecError::Chain(format!(
                        "NF `{}` links port {port}, but `{}` declares only {} port(s)",
                        nf.id, lib.name, lib.n_ports
                    ))
                })?;
                slot.push((j as u32, next_in[j]));
                next_in[j] += 1;
            }
            let instances = match nf.sharing {
                Sharing::Shared => 1,
                Sharing::SharedNothing | Sharing::Stateless => opts.workers as usize,
            };
            // Initialised here too, so that `run_continued` may come first.
            let states = (0..instances)
                .map(|_| {
                    StateBlock::new(lib.state_size).map(|mut b| {
                        b.reset(lib.state_init);
                        b
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            nfs.push(LoadedNf {
                id: nf.id.clone(),
                sharing: nf.sharing,
                routes,
                states,
                lock: StateLock::default(),
                lib,
            });
        }
        let reply_entries = entries
            .iter()
            .map(|&(e, p)| {
                let far = if nfs[e as usize].lib.n_ports >= 2 {
                    1
                } else {
                    p
                };
                (e, far)
            })
            .collect();
        Ok(Executor {
            nfs,
            entries,
            reply_entries,
            workers: opts.workers,
            rss,
            collect: opts.collect_output || opts.reflect,
            serial: opts.serial || opts.reflect,
            reflect: opts.reflect,
            headroom: opts.headroom,
        })
    }

    /// Run over `packets` from freshly initialised state.
    pub fn run(&mut self, packets: &Packets) -> Result<ExecRun, ExecError> {
        for nf in &mut self.nfs {
            for s in &mut nf.states {
                s.reset(nf.lib.state_init);
            }
        }
        self.run_continued(packets)
    }

    /// Run over `packets` from the state the previous run left (a long
    /// trace in pieces: the report counts this piece's packets only).
    /// Right after [`Executor::new`] the state is freshly initialised.
    pub fn run_continued(&mut self, packets: &Packets) -> Result<ExecRun, ExecError> {
        if packets.len() > u32::MAX as usize {
            return Err(ExecError::Options(format!(
                "{} packets exceed the 2^32 limit of one run",
                packets.len()
            )));
        }
        // Dispatch before timing: the measured rate is NF work plus synchronisation.
        let parts: Vec<Vec<u32>> = match &self.rss {
            None => vec![(0..packets.len() as u32).collect()],
            Some(rss) => {
                let mut parts = vec![
                    Vec::with_capacity(packets.len() / self.workers as usize + 1);
                    self.workers as usize
                ];
                for (i, p) in packets.iter().enumerate() {
                    parts[usize::from(rss.queue(p.data))].push(i as u32);
                }
                parts
            }
        };
        let outcome = engine::execute(self, packets, &parts)?;
        Ok(self.report(packets, &parts, outcome))
    }

    fn report(&self, packets: &Packets, parts: &[Vec<u32>], outcome: engine::Outcome) -> ExecRun {
        let mut nfs = Vec::with_capacity(self.nfs.len());
        let mut exits = BTreeMap::new();
        let (mut exited, mut dropped) = (0, 0);
        let mut combined = Sha256::new();
        for (i, nf) in self.nfs.iter().enumerate() {
            let c = &outcome.counters[i];
            let digests: Vec<[u8; 32]> = nf
                .states
                .iter()
                .map(|s| abi::digest_state(&nf.lib, s))
                .collect();
            let state_digest = if digests.len() == 1 {
                hex::encode(digests[0])
            } else {
                let mut h = Sha256::new();
                digests.iter().for_each(|d| h.update(d));
                hex::encode(h.finalize())
            };
            combined.update(nf.id.as_bytes());
            combined.update([0]);
            combined.update(state_digest.as_bytes());
            for (port, succ) in nf.routes.iter().enumerate() {
                if succ.is_empty() {
                    exits.insert(format!("{}.{port}", nf.id), c.out[port]);
                    exited += c.out[port];
                }
            }
            dropped += c.drops + c.invalid;
            nfs.push(NfReport {
                id: nf.id.clone(),
                name: nf.lib.name.clone(),
                sharing: nf.sharing,
                state_instances: nf.states.len() as u32,
                state_bytes: nf.lib.state_size as u64,
                rx: c.rx,
                drops: c.drops,
                invalid_verdicts: c.invalid,
                out: c.out.clone(),
                lock_contended: c.contended,
                state_digest,
                instance_digests: digests.iter().map(hex::encode).collect(),
            });
        }
        let n = packets.len() as u64;
        let secs = outcome.wall_ns as f64 / 1e9;
        let report = ExecReport {
            packets: n,
            workers: self.workers,
            worker_packets: parts.iter().map(|p| p.len() as u64).collect(),
            nfs,
            exits,
            exited,
            dropped,
            state_digest: hex::encode(combined.finalize()),
            output_digest: outcome.output.as_ref().map(|o| o.digest()),
            wall_ns: outcome.wall_ns,
            mpps: if secs > 0.0 {
                n as f64 / secs / 1e6
            } else {
                0.0
            },
            cpu_ns: outcome.cpu_ns,
            mpps_per_cpu: if outcome.cpu_ns > 0 {
                n as f64 / (outcome.cpu_ns as f64 / 1e9) / 1e6
            } else {
                0.0
            },
            process_cpu_ns: outcome.process_cpu_ns,
            mpps_per_process_cpu: if outcome.process_cpu_ns > 0 {
                n as f64 / (outcome.process_cpu_ns as f64 / 1e9) / 1e6
            } else {
                0.0
            },
        };
        ExecRun {
            report,
            output: outcome.output,
            output_tags: outcome.tags,
        }
    }
}

/// Load `chain` and run it over in-memory `packets`.
pub fn run_packets(
    chain: &ExecChain,
    packets: &Packets,
    opts: &ExecOptions,
) -> Result<ExecRun, ExecError> {
    Executor::new(chain, opts)?.run(packets)
}

/// Load `chain`, run it over the pcap at `input`, and write the exit packets
/// (in input order, with their input timestamps) to `output` if given.
pub fn run_pcap(
    chain: &ExecChain,
    input: &Path,
    output: Option<&Path>,
    opts: &ExecOptions,
) -> Result<ExecReport, ExecError> {
    let packets = pcap::read_pcap(input).map_err(|source| ExecError::Pcap {
        path: input.to_path_buf(),
        source,
    })?;
    let mut opts = opts.clone();
    opts.collect_output |= output.is_some();
    let run = run_packets(chain, &packets, &opts)?;
    if let (Some(path), Some(out)) = (output, &run.output) {
        pcap::write_pcap(path, out).map_err(|source| ExecError::Output {
            path: path.to_path_buf(),
            source,
        })?;
    }
    Ok(run.report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfc_core::plan::{NfPlacement, Rss};

    fn plan(cores: u32, reta: Vec<u16>, key: Vec<u8>) -> Plan {
        Plan {
            cores,
            rss: Rss {
                fields: vec![Field::SrcIp],
                symmetric: false,
                key40: key,
                key52: vec![],
                reta,
            },
            nfs: vec![NfPlacement {
                nf: "a".into(),
                sharing: Sharing::SharedNothing,
                cost: 1.0,
                reason: String::new(),
            }],
            total_cost: 1.0,
            candidates: vec![],
            rationale: vec![],
            smartnic: None,
        }
    }

    #[test]
    fn options_from_plan() {
        let o = ExecOptions::from_plan(&plan(2, vec![0, 1, 2, 3], vec![7; 40]));
        assert_eq!(o.workers, 2);
        assert_eq!(o.rss_fields, vec![Field::SrcIp]);
        assert_eq!(o.rss_key, Some(vec![7; 40]));
        assert_eq!(o.reta, Some(vec![0, 1, 0, 1]));
        let o = ExecOptions::from_plan(&plan(0, vec![], vec![]));
        assert_eq!((o.workers, o.rss_key, o.reta), (1, None, None));
    }

    #[test]
    fn topology_checks() {
        let nf = |next: Vec<(u32, usize)>| ExecNf {
            id: "x".into(),
            so_path: PathBuf::new(),
            config: vec![],
            next,
            sharing: Sharing::Stateless,
        };
        let check = |chain: ExecChain, expect: Option<&str>| match (check_topology(&chain), expect)
        {
            (Ok(()), None) => {}
            (Err(e), Some(m)) => assert!(e.to_string().contains(m), "{e}"),
            (r, e) => panic!("expected {e:?}, got {r:?}"),
        };
        // Diamond: 0 -> {1, 2} -> 3.
        check(
            ExecChain {
                nfs: vec![
                    nf(vec![(0, 1), (1, 2)]),
                    nf(vec![(0, 3)]),
                    nf(vec![(0, 3)]),
                    nf(vec![]),
                ],
                entries: vec![0],
            },
            None,
        );
        check(
            ExecChain {
                nfs: vec![nf(vec![(0, 0)])],
                entries: vec![0],
            },
            Some("cycle"),
        );
        check(
            ExecChain {
                nfs: vec![nf(vec![])],
                entries: vec![1],
            },
            Some("entry index 1"),
        );
    }
}
