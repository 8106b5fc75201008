//! The executor's hot loop: each worker walks its pre-partitioned packet
//! indices and runs every packet to completion through the DAG, calling the
//! NFs' `nf_process` directly through function pointers. Per packet there is
//! one copy (input arena to a reusable worker buffer with headroom) and no
//! allocation; a port with several successors is the only place a packet is
//! copied again. A shared state instance is entered under its NF's lock for
//! the whole `nf_process` call (one lock per state table, as a shared-state
//! NF in FastClick/FlowMage takes it); acquisitions that found the lock held
//! by another worker are counted, so a report shows whether the workers
//! actually contended.

use super::abi::{NfCtx, NfPacket, ProcessFn, NF_DROP};
use super::StateLock;
use super::{ExecError, Executor, ExitTag};
use crate::trace::Packets;
use std::ffi::c_void;
use std::sync::Barrier;
use std::time::Instant;

/// Per-NF counters of one worker (summed over workers afterwards).
#[derive(Debug, Clone, Default)]
pub(super) struct Counters {
    pub rx: u64,
    pub drops: u64,
    pub invalid: u64,
    pub out: Vec<u64>,
    /// Lock acquisitions that found the shared state held by another worker.
    pub contended: u64,
}

/// What a run produced.
pub(super) struct Outcome {
    pub counters: Vec<Counters>,
    pub wall_ns: u64,
    /// CPU time the workers spent in their packet loops, summed.
    pub cpu_ns: u64,
    /// CPU time of the whole process (all threads, `getrusage`) over the
    /// same window as `wall_ns`.
    pub process_cpu_ns: u64,
    pub output: Option<Packets>,
    pub tags: Vec<ExitTag>,
}

/// An NF as one worker sees it.
struct HotNf<'a> {
    process: ProcessFn,
    state: *mut c_void,
    lock: Option<&'a StateLock>,
    routes: &'a [Vec<(u32, u32)>],
}

/// A packet in flight: the NF it goes to next and the buffer holding it.
#[derive(Clone, Copy)]
struct Job {
    nf: u32,
    in_port: u32,
    buf: u32,
    len: u32,
}

struct WorkerOut {
    cpu_ns: u64,
    counters: Vec<Counters>,
    output: Packets,
    tags: Vec<ExitTag>,
}

fn hot_nfs(ex: &Executor, worker: usize) -> Vec<HotNf<'_>> {
    ex.nfs
        .iter()
        .map(|nf| {
            let shared = nf.states.len() == 1 && ex.workers > 1;
            let state = if nf.states.len() == 1 {
                &nf.states[0]
            } else {
                &nf.states[worker]
            };
            HotNf {
                process: nf.lib.process,
                state: state.ptr(),
                lock: shared.then_some(&nf.lock),
                routes: &nf.routes,
            }
        })
        .collect()
}

struct Worker<'a> {
    id: u32,
    n_workers: u32,
    nfs: Vec<HotNf<'a>>,
    entries: &'a [(u32, u32)],
    reply_entries: &'a [(u32, u32)],
    counters: Vec<Counters>,
    bufs: Vec<Box<[u8]>>,
    free: Vec<u32>,
    stack: Vec<Job>,
    collect: bool,
    output: Packets,
    tags: Vec<ExitTag>,
    /// Closed loop: exit packets of the current input waiting to be reflected.
    reflect: bool,
    pending: Vec<Vec<u8>>,
}

impl<'a> Worker<'a> {
    fn new(ex: &'a Executor, id: usize, cap: usize, collect: bool) -> Self {
        let n_bufs = ex.entries.len().max(1);
        Worker {
            id: id as u32,
            n_workers: ex.workers,
            nfs: hot_nfs(ex, id),
            entries: &ex.entries,
            reply_entries: &ex.reply_entries,
            counters: ex
                .nfs
                .iter()
                .map(|nf| Counters {
                    out: vec![0; nf.routes.len()],
                    ..Counters::default()
                })
                .collect(),
            bufs: (0..n_bufs)
                .map(|_| vec![0u8; cap].into_boxed_slice())
                .collect(),
            free: (0..n_bufs as u32).rev().collect(),
            stack: Vec::with_capacity(16),
            collect,
            output: Packets::new(),
            tags: Vec::new(),
            reflect: ex.reflect,
            pending: Vec::new(),
        }
    }

    fn take_buf(&mut self) -> u32 {
        match self.free.pop() {
            Some(b) => b,
            None => {
                let cap = self.bufs[0].len();
                self.bufs.push(vec![0u8; cap].into_boxed_slice());
                (self.bufs.len() - 1) as u32
            }
        }
    }

    #[inline]
    fn process_packet(&mut self, index: u32, ts_ns: u64, data: &[u8]) {
        self.process(index, ts_ns, data, false);
    }

    /// Run one packet (an arrival, or a closed-loop reply to input `index`)
    /// through the chain from its entry points.
    #[inline]
    fn process(&mut self, index: u32, ts_ns: u64, data: &[u8], reply: bool) {
        let cap = self.bufs[0].len();
        let len = data.len().min(cap);
        let entries = if reply {
            self.reply_entries
        } else {
            self.entries
        };
        for &(nf, in_port) in entries {
            let buf = self.take_buf();
            self.bufs[buf as usize][..len].copy_from_slice(&data[..len]);
            self.stack.push(Job {
                nf,
                in_port,
                buf,
                len: len as u32,
            });
        }
        while let Some(mut job) = self.stack.pop() {
            loop {
                let nf = &self.nfs[job.nf as usize];
                // Copy the executor-owned route table reference out, so it is
                // not tied to the borrow of `self`.
                let routes: &'a [Vec<(u32, u32)>] = nf.routes;
                let buf = &mut self.bufs[job.buf as usize];
                let mut pkt = NfPacket {
                    data: buf.as_mut_ptr(),
                    len: job.len,
                    cap: cap as u32,
                    in_port: job.in_port,
                    reserved: 0,
                };
                let mut ctx = NfCtx {
                    state: nf.state,
                    now_ns: ts_ns,
                    worker: self.id,
                    n_workers: self.n_workers,
                };
                let verdict = match nf.lock {
                    // SAFETY: pkt points at `cap` writable bytes of this worker's
                    // buffer; the state instance is this worker's own.
                    None => unsafe { (nf.process)(&mut ctx, &mut pkt) },
                    Some(lock) => {
                        if lock.acquire() {
                            self.counters[job.nf as usize].contended += 1;
                        }
                        // SAFETY: as above; the shared instance is entered under its lock.
                        let v = unsafe { (nf.process)(&mut ctx, &mut pkt) };
                        lock.release();
                        v
                    }
                };
                let c = &mut self.counters[job.nf as usize];
                c.rx += 1;
                if verdict < 0 || verdict as usize >= routes.len() || pkt.len as usize > cap {
                    if verdict == NF_DROP {
                        c.drops += 1;
                    } else {
                        c.invalid += 1;
                    }
                    self.free.push(job.buf);
                    break;
                }
                let port = verdict as usize;
                c.out[port] += 1;
                job.len = pkt.len;
                let succ = &routes[port];
                match succ.len() {
                    0 => {
                        let b = &self.bufs[job.buf as usize];
                        if self.collect {
                            self.output.push(ts_ns, &b[..job.len as usize]);
                            self.tags.push(ExitTag {
                                input: u64::from(index),
                                nf: job.nf,
                                port: port as u32,
                                reply,
                            });
                        }
                        if self.reflect && !reply {
                            self.pending.push(b[..job.len as usize].to_vec());
                        }
                        self.free.push(job.buf);
                        break;
                    }
                    1 => {
                        (job.nf, job.in_port) = succ[0];
                    }
                    _ => {
                        // Copies for all but the first successor; pushed in
                        // reverse so they run in link order after the first.
                        for &(nf2, in2) in succ[1..].iter().rev() {
                            let b = self.take_buf();
                            let (src, dst) = two_bufs(&mut self.bufs, job.buf as usize, b as usize);
                            dst[..job.len as usize].copy_from_slice(&src[..job.len as usize]);
                            self.stack.push(Job {
                                nf: nf2,
                                in_port: in2,
                                buf: b,
                                len: job.len,
                            });
                        }
                        (job.nf, job.in_port) = succ[0];
                    }
                }
            }
        }
    }
}

fn two_bufs(bufs: &mut [Box<[u8]>], a: usize, b: usize) -> (&[u8], &mut [u8]) {
    if a < b {
        let (lo, hi) = bufs.split_at_mut(b);
        (&lo[a], &mut hi[0])
    } else {
        let (lo, hi) = bufs.split_at_mut(a);
        (&hi[0], &mut lo[b])
    }
}

/// CPU time consumed by the calling thread, in ns (0 if the clock is unavailable).
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write into.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

fn run_worker(mut w: Worker<'_>, packets: &Packets, indices: &[u32]) -> WorkerOut {
    let cpu0 = thread_cpu_ns();
    for &i in indices {
        if let Some(p) = packets.get(i as usize) {
            w.process_packet(i, p.ts_ns, p.data);
        }
    }
    let cpu_ns = thread_cpu_ns().saturating_sub(cpu0);
    WorkerOut {
        cpu_ns,
        counters: w.counters,
        output: w.output,
        tags: w.tags,
    }
}

/// CPU time consumed by the whole process (user + system, all threads), in
/// ns (0 if `getrusage` fails).
fn process_cpu_ns() -> u64 {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: ru is a valid rusage to write into.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0;
    }
    let ns = |t: libc::timeval| {
        (t.tv_sec as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add((t.tv_usec as u64).saturating_mul(1000))
    };
    ns(ru.ru_utime).saturating_add(ns(ru.ru_stime))
}

/// Run the partitions (one per worker) and merge the results.
pub(super) fn execute(
    ex: &Executor,
    packets: &Packets,
    parts: &[Vec<u32>],
) -> Result<Outcome, ExecError> {
    let cap = packets.max_len().max(64) + ex.headroom as usize;
    if ex.serial {
        return Ok(execute_serial(ex, packets, parts, cap));
    }
    let outs: Vec<WorkerOut>;
    let wall_ns;
    let process_cpu;
    if parts.len() == 1 {
        let w = Worker::new(ex, 0, cap, ex.collect);
        let cpu0 = process_cpu_ns();
        let start = Instant::now();
        outs = vec![run_worker(w, packets, &parts[0])];
        wall_ns = start.elapsed().as_nanos() as u64;
        process_cpu = process_cpu_ns().saturating_sub(cpu0);
    } else {
        let barrier = Barrier::new(parts.len() + 1);
        let result = std::thread::scope(|s| {
            let handles: Vec<_> = parts
                .iter()
                .enumerate()
                .map(|(id, part)| {
                    let barrier = &barrier;
                    s.spawn(move || {
                        let w = Worker::new(ex, id, cap, ex.collect);
                        barrier.wait();
                        run_worker(w, packets, part)
                    })
                })
                .collect();
            barrier.wait();
            let cpu0 = process_cpu_ns();
            let start = Instant::now();
            let mut outs = Vec::with_capacity(handles.len());
            for (id, h) in handles.into_iter().enumerate() {
                outs.push(h.join().map_err(|_| ExecError::Worker(id as u32))?);
            }
            let wall = start.elapsed().as_nanos() as u64;
            Ok::<_, ExecError>((outs, wall, process_cpu_ns().saturating_sub(cpu0)))
        })?;
        outs = result.0;
        wall_ns = result.1;
        process_cpu = result.2;
    }
    let mut counters = zero_counters(ex);
    for o in &outs {
        add_counters(&mut counters, &o.counters);
    }
    let (output, tags) = if ex.collect {
        merge_outputs(&outs)
    } else {
        (None, vec![])
    };
    let cpu_ns = outs.iter().map(|o| o.cpu_ns).sum();
    Ok(Outcome {
        counters,
        wall_ns,
        cpu_ns,
        process_cpu_ns: process_cpu,
        output,
        tags,
    })
}

/// One thread, every packet in input order on its worker's state instances;
/// closed-loop replies (when reflecting) right after the packet they answer,
/// on the worker RSS steers them to. Exits are kept in the order they happen.
fn execute_serial(ex: &Executor, packets: &Packets, parts: &[Vec<u32>], cap: usize) -> Outcome {
    let mut owner = vec![0u32; packets.len()];
    for (w, part) in parts.iter().enumerate() {
        for &i in part {
            owner[i as usize] = w as u32;
        }
    }
    let mut workers: Vec<Worker<'_>> = (0..parts.len().max(1))
        .map(|id| Worker::new(ex, id, cap, ex.collect))
        .collect();
    // (worker, index into its output) in the order exits happened.
    let mut order: Vec<(u32, u32)> = Vec::new();
    let mut seen = vec![0usize; workers.len()];
    let mut note = |workers: &[Worker<'_>], w: usize, order: &mut Vec<(u32, u32)>| {
        for k in seen[w]..workers[w].tags.len() {
            order.push((w as u32, k as u32));
        }
        seen[w] = workers[w].tags.len();
    };
    let cpu0 = thread_cpu_ns();
    let pcpu0 = process_cpu_ns();
    let start = Instant::now();
    for (i, p) in packets.iter().enumerate() {
        let w = owner[i] as usize;
        workers[w].process(i as u32, p.ts_ns, p.data, false);
        note(&workers, w, &mut order);
        if ex.reflect {
            let pending = std::mem::take(&mut workers[w].pending);
            for out in pending {
                let reply = crate::trace::craft::reply_frame(&out);
                let q = ex
                    .rss
                    .as_ref()
                    .map_or(0, |r| usize::from(r.queue(&reply)))
                    .min(workers.len() - 1);
                workers[q].process(i as u32, p.ts_ns, &reply, true);
                note(&workers, q, &mut order);
            }
        }
    }
    let wall_ns = start.elapsed().as_nanos() as u64;
    let cpu_ns = thread_cpu_ns().saturating_sub(cpu0);
    let process_cpu = process_cpu_ns().saturating_sub(pcpu0);
    let mut counters = zero_counters(ex);
    for w in &workers {
        add_counters(&mut counters, &w.counters);
    }
    let (output, tags) = if ex.collect {
        let bytes = workers
            .iter()
            .map(|w| w.output.total_bytes() as usize)
            .sum();
        let mut out = Packets::with_capacity(order.len(), bytes);
        let mut tags = Vec::with_capacity(order.len());
        for (w, k) in order {
            let w = &workers[w as usize];
            if let Some(p) = w.output.get(k as usize) {
                out.push(p.ts_ns, p.data);
                tags.push(w.tags[k as usize]);
            }
        }
        (Some(out), tags)
    } else {
        (None, vec![])
    };
    Outcome {
        counters,
        wall_ns,
        cpu_ns,
        process_cpu_ns: process_cpu,
        output,
        tags,
    }
}

fn add_counters(total: &mut [Counters], add: &[Counters]) {
    for (total, c) in total.iter_mut().zip(add) {
        total.rx += c.rx;
        total.drops += c.drops;
        total.invalid += c.invalid;
        total.contended += c.contended;
        for (t, x) in total.out.iter_mut().zip(&c.out) {
            *t += *x;
        }
    }
}

/// Merge per-worker exit packets into input order (within one input packet,
/// the order its worker emitted them).
fn merge_outputs(outs: &[WorkerOut]) -> (Option<Packets>, Vec<ExitTag>) {
    let mut order: Vec<(u64, usize, usize)> =
        Vec::with_capacity(outs.iter().map(|o| o.tags.len()).sum());
    for (w, o) in outs.iter().enumerate() {
        order.extend(o.tags.iter().enumerate().map(|(k, t)| (t.input, w, k)));
    }
    order.sort_unstable();
    let bytes = outs.iter().map(|o| o.output.total_bytes() as usize).sum();
    let mut packets = Packets::with_capacity(order.len(), bytes);
    let mut tags = Vec::with_capacity(order.len());
    for (_, w, k) in order {
        if let Some(p) = outs[w].output.get(k) {
            packets.push(p.ts_ns, p.data);
            tags.push(outs[w].tags[k]);
        }
    }
    (Some(packets), tags)
}

/// One zeroed counter set per NF, with one output slot per route.
fn zero_counters(ex: &Executor) -> Vec<Counters> {
    ex.nfs
        .iter()
        .map(|nf| Counters {
            out: vec![0; nf.routes.len()],
            ..Counters::default()
        })
        .collect()
}
