//! NF hosts: the unprivileged side of flash-rt. [`NfHost::attach`] asks the
//! monitor for NF `id`'s resources (fabric, UMEM(s), AF_XDP sockets, wake
//! eventfds), maps them, and [`NfHost::run`] drives the data path for one
//! NF (a C NF through [`cnf::CNf`] or any [`packet::RustNf`]):
//!
//! 1. reclaim frames: completion rings and this NF's return ring refill the
//!    local pool; frames owned by other NFs go back to their return rings;
//! 2. keep the RX socket's fill ring topped up from the pool;
//! 3. if earlier output is still waiting on a full downstream ring, retry it
//!    and, if still blocked, throttle (sleep `throttle_us`) without
//!    receiving — backpressure propagates upstream (FLASH §4.4);
//! 4. receive a batch from the RX ring and the inbox (single-copy arrivals are
//!    copied once into this NF's own frames);
//! 5. run the NF on each packet and route by verdict port: TX ring of an
//!    interface socket, or the inbox of the next NF (batched, one CAS per
//!    destination);
//! 6. let the smart poller decide: spin (yielding the core on idle
//!    iterations), or sleep in poll() on the RX socket, this NF's eventfd
//!    and the stop fd. A busy-mode NF that shares its CPU with other NF
//!    hosts (pinned together by the deployment, or more hosts than CPUs)
//!    sleeps on idle iterations too and runs under SCHED_BATCH, unless
//!    `PollingConfig::busy_when_shared` says otherwise.
//!
//! Wakeups are coalesced like NAPI interrupts: an enqueue wakes a sleeping
//! NF only once its inbox (or free-buffer return ring) holds a wake batch
//! (`PollingConfig::wake_batch`); smaller backlogs are flushed when the
//! producing NF runs out of input (an idle iteration, or before it sleeps).
//! A sleeping NF's flag is cleared by the one waker that signals it, so
//! concurrent producers pay one eventfd write between them. An NF may
//! sleep on a partial batch only while another NF runs (which will flush),
//! and then at most `coalesce_us`.
//!
//! The host keeps its attach connection to the monitor open while it runs
//! and watches it next to its stop fd: when the monitor goes away (stopped
//! or killed) the connection hangs up and [`NfHost::run`] ends with
//! [`Ended::MonitorGone`], so the host exits and releases its sockets and
//! memory instead of holding them forever. With [`RunOptions::sandbox`]
//! the data path runs under a seccomp filter ([`sandbox`]).
//!
//! Crash safety: frames taken from the inbox or a completion ring are first
//! mirrored in the fabric's hand, and every enqueue into a shared ring is
//! logged, so when a host is SIGKILLed the monitor repairs the ring it was
//! enqueueing into and the restarted host returns the frames its
//! predecessor held to their owners (see `links::recover`).

pub mod cnf;
pub mod packet;
pub mod poll;
pub mod sandbox;

use crate::deploy::{Deployment, LinkDest, LinkMode, LinkSource, Topology};
use crate::links::fabric::{hand_entry, hand_split, Fabric, FabricLayout, LinkDesc, NfCounter};
use crate::links::recover::{free_ring_id, inbox_ring_id, SKIP_FRAME, SKIP_LINK};
use crate::monitor::protocol::{request_keep, FdRole, Request, Response};
use crate::xdp::mem::{fd_len, Mapping};
use crate::xdp::socket::XskRings;
use crate::xdp::{FlashError, Result};
use packet::{Packet, RustNf, Verdict};
use poll::{Action, Poller};
use std::collections::HashMap;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{fence, Ordering};

/// Headroom the kernel leaves before RX data in copy mode (XDP_PACKET_HEADROOM).
const HEADROOM: u64 = 256;

/// Where an output port leads.
#[derive(Debug, Clone, Copy)]
enum Route {
    /// No link on this port.
    Nowhere,
    /// TX ring of socket `sock` (index into `NfHost::socks`).
    Iface { sock: usize, link: usize },
    /// Inbox of NF `nf` through link `link`.
    Nf { nf: usize, link: usize },
}

/// A packet waiting for room downstream.
#[derive(Debug, Clone, Copy)]
struct Out {
    route: Route,
    addr: u64,
    len: u32,
}

struct Sock {
    rings: XskRings,
    rx: bool,

    _fd: OwnedFd,
}

/// A mapped NF host, ready to run.
pub struct NfHost {
    dep: Deployment,
    topo: Topology,
    me: usize,
    fabric: Fabric,
    _fabric_map: Mapping,
    umem: Mapping,
    ro_umems: HashMap<usize, Mapping>,
    socks: Vec<Sock>,
    wakes: Vec<OwnedFd>,
    routes: Vec<Route>,
    /// Input port of each link delivering to this NF.
    /// (Indexed by link; 0 for links that do not deliver here.)
    link_in_port: Vec<u32>,
    frame_size: u64,
    pool: Vec<u64>,
    pending_free: Vec<Vec<u64>>,
    pending_out: std::collections::VecDeque<Out>,
    owners: Vec<Vec<(u32, u32, usize)>>,
    /// The attach connection, held open: it hangs up when the monitor goes.
    monitor: OwnedFd,
}

/// Why [`NfHost::run`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The stop fd became readable (SIGINT/SIGTERM).
    Stopped,
    /// `RunOptions::max_packets` were handled.
    MaxPackets,
    /// The monitor closed the attach connection (it stopped or died): the
    /// NF can no longer be served, so the host gives everything back.
    MonitorGone,
}

impl std::fmt::Debug for NfHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NfHost")
            .field("nf", &self.dep.nfs[self.me].id)
            .finish()
    }
}

/// Options of a host run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Stop after this many packets handed off (for benchmarks; 0 = never).
    pub max_packets: u64,
    /// Enter the seccomp sandbox ([`sandbox::enter`]) once the data path
    /// is set up, before the first packet. Applies to the calling thread
    /// (and threads it starts later); NF host processes set it, in-process
    /// hosts (tests, the threads baseline) need not.
    pub sandbox: bool,
}

impl NfHost {
    /// Connect to the monitor of `dep`, authenticate as NF `id` and map
    /// everything it hands over.
    pub fn attach(dep: Deployment, id: &str) -> Result<NfHost> {
        let me = dep
            .nf_index(id)
            .ok_or_else(|| FlashError::UnknownNf(id.to_string()))?;
        let topo = dep
            .topology()
            .map_err(|problems| crate::deploy::DeployError::Invalid {
                path: Default::default(),
                problems,
            })?;
        let (resp, mut fds, monitor) =
            request_keep(&dep.monitor.socket, &Request::Attach { nf: id.to_string() })?;
        let grant = match resp {
            Response::Granted(g) => g,
            Response::Refused { reason } => return Err(FlashError::Refused(reason)),
            other => {
                return Err(FlashError::Protocol(format!(
                    "unexpected answer to attach: {other:?}"
                )))
            }
        };
        if grant.nf != me || grant.fds.len() != fds.len() {
            return Err(FlashError::Protocol(format!(
                "grant for NF {} with {} fds ({} described)",
                grant.nf,
                fds.len(),
                grant.fds.len()
            )));
        }
        let layout = FabricLayout::new(&dep, &topo);
        let fs = dep.monitor.frame_size as usize;
        let (mut fabric_map, mut umem, mut ro_umems, mut socks) =
            (None, None, HashMap::new(), vec![]);
        let mut wakes: Vec<Option<OwnedFd>> = dep.nfs.iter().map(|_| None).collect();
        for (role, fd) in grant.fds.iter().zip(fds.drain(..)) {
            match *role {
                FdRole::Fabric => {
                    let len = fd_len(fd.as_raw_fd())?;
                    if len != layout.size {
                        return Err(FlashError::Protocol(format!("fabric is {len} bytes, expected {} (deployment differs from the monitor's?)", layout.size)));
                    }
                    fabric_map = Some(Mapping::map(fd.as_raw_fd(), len, 0, true, "fabric")?);
                }
                FdRole::Umem { group, writable } => {
                    let len = topo.groups[group].frames as usize * fs;
                    let m = Mapping::map(fd.as_raw_fd(), len, 0, writable, "UMEM")?;
                    if writable {
                        umem = Some(m);
                    } else {
                        ro_umems.insert(group, m);
                    }
                }
                FdRole::Socket {
                    rx,
                    fill_completion,
                    ..
                } => {
                    let rings =
                        XskRings::map(fd.as_raw_fd(), dep.monitor.ring_size, fill_completion)?;
                    socks.push((role.clone(), Sock { rings, rx, _fd: fd }));
                }
                FdRole::Wake { nf } => {
                    if let Some(w) = wakes.get_mut(nf) {
                        *w = Some(fd);
                    }
                }
            }
        }
        let fabric_map =
            fabric_map.ok_or_else(|| FlashError::Protocol("grant without a fabric".into()))?;
        let umem =
            umem.ok_or_else(|| FlashError::Protocol("grant without a writable UMEM".into()))?;
        let wakes: Vec<OwnedFd> = wakes
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                w.ok_or_else(|| {
                    FlashError::Protocol(format!("grant without the eventfd of NF {i}"))
                })
            })
            .collect::<Result<_>>()?;
        // SAFETY: page-aligned mapping of layout.size bytes kept alive in the host.
        let fabric = unsafe { Fabric::at(fabric_map.ptr(), layout) };
        if !fabric.valid() {
            return Err(FlashError::Protocol("fabric header missing".into()));
        }
        // Routes per output port.
        let iface_sock = |iface: usize| {
            socks
                .iter()
                .position(|(r, _)| matches!(r, FdRole::Socket { iface: i, .. } if *i == iface))
        };
        let max_port = topo.links.iter().filter_map(|l| match l.source {
            LinkSource::Nf { nf, port } if nf == me => Some(port),
            _ => None,
        });
        let n_ports = max_port.max().map(|p| p as usize + 1).unwrap_or(0);
        let mut routes = vec![Route::Nowhere; n_ports];
        let mut link_in_port = vec![0u32; topo.links.len()];
        for (li, l) in topo.links.iter().enumerate() {
            if let LinkSource::Nf { nf, port } = l.source {
                if nf == me {
                    routes[port as usize] = match l.dest {
                        LinkDest::Nf { nf: to, .. } => Route::Nf { nf: to, link: li },
                        LinkDest::Iface(i) => match iface_sock(i) {
                            Some(sock) => Route::Iface { sock, link: li },
                            None => {
                                return Err(FlashError::Protocol(format!(
                                    "no socket granted for interface {i}"
                                )))
                            }
                        },
                    };
                }
            }
            if let LinkDest::Nf { nf, port } = l.dest {
                if nf == me {
                    link_in_port[li] = port;
                }
            }
        }
        let first = topo.nf_first_frame[me] as u64;
        let frames = dep.nfs[me].frames as u64;
        let frame_size = fs as u64;
        let mut pool: Vec<u64> = (first..first + frames)
            .rev()
            .map(|f| f * frame_size)
            .collect();
        // A restarted host (the previous process of this NF died) finds its
        // frames still in flight in the rings the monitor kept alive: they
        // come back through the rings, so they must not start in the pool.
        let socks: Vec<(FdRole, Sock)> = socks;
        let in_flight = frames_in_flight(
            &fabric,
            &dep,
            &topo,
            me,
            socks.iter().map(|(_, s)| &s.rings),
            frame_size,
        );
        if !in_flight.is_empty() {
            pool.retain(|a| !in_flight.contains(a));
        }
        let owners = topo
            .groups
            .iter()
            .map(|g| {
                g.nfs
                    .iter()
                    .map(|&n| {
                        (
                            topo.nf_first_frame[n],
                            topo.nf_first_frame[n] + dep.nfs[n].frames,
                            n,
                        )
                    })
                    .collect()
            })
            .collect();
        let n = dep.nfs.len();
        fabric
            .pid(me)
            .store(u64::from(std::process::id()), Ordering::Release);
        let mut host = NfHost {
            dep,
            topo,
            me,
            fabric,
            _fabric_map: fabric_map,
            umem,
            ro_umems,
            socks: socks.into_iter().map(|(_, s)| s).collect(),
            wakes,
            routes,
            link_in_port,
            frame_size,
            pool,
            pending_free: vec![vec![]; n],
            pending_out: Default::default(),
            owners,
            monitor,
        };
        let recovered = host.recover_predecessor();
        host.count(NfCounter::FramesRecovered, recovered as u64);
        Ok(host)
    }

    /// Return the frames a dead predecessor of this host held (mirrored in
    /// the fabric's hand) to their owners; returns how many. Frames it was
    /// still taking (the source ring did not advance) and frames already on
    /// this NF's TX/completion rings or inbox are not held; this NF's own
    /// frames are not returned (attach put them in the pool, as they are in
    /// no ring).
    fn recover_predecessor(&mut self) -> usize {
        let me = self.me;
        let hand = self.fabric.hand(me);
        let mut entries = hand.entries();
        if let Some((src, pos, n)) = hand.pending_take() {
            let not_taken = if src == 0 {
                self.fabric.inbox(me).consumer_index() == pos
            } else {
                self.socks
                    .get((src - 1) as usize)
                    .and_then(|s| s.rings.completion.as_ref())
                    .is_some_and(|c| u64::from(c.consumer_index()) == pos)
            };
            if not_taken {
                let keep = entries.len().saturating_sub(n as usize);
                entries.truncate(keep);
            }
        }
        let mut visible = std::collections::HashSet::new();
        let fs = self.frame_size;
        for s in &self.socks {
            s.rings.tx.in_flight().iter().for_each(|d| {
                visible.insert(d.addr - d.addr % fs);
            });
            if let Some(c) = &s.rings.completion {
                c.in_flight().iter().for_each(|&a| {
                    visible.insert(a - a % fs);
                });
            }
        }
        for d in self.fabric.inbox(me).peek_all() {
            visible.insert(d.addr - d.addr % fs);
        }
        let my_group = self.topo.nf_group[me];
        let mut returned = 0;
        for e in entries {
            let (o, a) = hand_split(e);
            if o == me || o >= self.pending_free.len() {
                continue;
            }
            if self.topo.nf_group[o] == my_group && visible.contains(&a) {
                continue;
            }
            self.pending_free[o].push(a);
            returned += 1;
        }
        hand.set(std::iter::empty());
        hand.taken();
        self.flush_frees();
        returned
    }

    /// The NF's spec in the deployment.
    pub fn spec(&self) -> &crate::deploy::NfSpec {
        &self.dep.nfs[self.me]
    }

    fn count(&self, c: NfCounter, n: u64) {
        if n > 0 {
            self.fabric
                .nf_counter(self.me, c)
                .fetch_add(n, Ordering::Relaxed);
        }
    }

    fn owner(&self, group: usize, addr: u64) -> Option<usize> {
        let frame = (addr / self.frame_size) as u32;
        self.owners[group]
            .iter()
            .find(|(a, b, _)| frame >= *a && frame < *b)
            .map(|t| t.2)
    }

    /// Return a frame of `group` to its owner.
    fn free_frame(&mut self, group: usize, addr: u64) {
        let base = addr - addr % self.frame_size;
        match self.owner(group, base) {
            Some(o) if o == self.me => self.pool.push(base),
            Some(o) => self.pending_free[o].push(base),
            None => {}
        }
    }

    /// Entries a ring of `cap` must hold before an enqueue wakes its
    /// sleeping consumer (the wake batch, at most half the ring).
    fn wake_at(&self, cap: usize) -> usize {
        (self.dep.nfs[self.me].polling.wake_batch as usize).clamp(1, (cap / 2).max(1))
    }

    /// After enqueueing into a ring of NF `nf` that now holds `queued` of
    /// `cap` entries: wake `nf` if it sleeps and a batch is ready; a smaller
    /// backlog waits for this NF's next idle point ([`Self::flush_wakes`]).
    fn wake_batched(&self, nf: usize, queued: usize, cap: usize) {
        fence(Ordering::SeqCst);
        if self.fabric.sleeping(nf).load(Ordering::SeqCst) == 0 {
            return;
        }
        if queued >= self.wake_at(cap) {
            self.signal(nf);
        } else {
            self.count(NfCounter::WakeupsDeferred, 1);
        }
    }

    /// Wake NF `nf` if it still sleeps. Clearing its sleeping flag first
    /// makes exactly one waker pay for the eventfd write.
    fn signal(&self, nf: usize) {
        if self
            .fabric
            .sleeping(nf)
            .compare_exchange(1, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            let one: u64 = 1;
            // SAFETY: writing 8 bytes to an eventfd.
            unsafe { libc::write(self.wakes[nf].as_raw_fd(), (&one as *const u64).cast(), 8) };
            self.count(NfCounter::WakeupsSent, 1);
        }
    }

    /// This NF ran out of input (an idle iteration, or about to sleep):
    /// wake every sleeping NF with anything queued, so partial batches
    /// whose wakeup was deferred go out now (NAPI's flush on an empty
    /// poll).
    fn flush_wakes(&self) {
        fence(Ordering::SeqCst);
        for n in 0..self.dep.nfs.len() {
            if n == self.me || self.fabric.sleeping(n).load(Ordering::SeqCst) == 0 {
                continue;
            }
            if !self.fabric.inbox(n).is_empty() || !self.fabric.free_ring(n).is_empty() {
                self.signal(n);
            }
        }
    }

    /// Whether another NF host is running (not sleeping in poll(), not
    /// stopped): it will flush deferred wakeups when it runs out of input.
    fn peer_running(&self) -> bool {
        (0..self.dep.nfs.len()).any(|n| {
            n != self.me
                && self.fabric.pid(n).load(Ordering::Relaxed) != 0
                && self.fabric.mode(n).load(Ordering::Relaxed) != 4
                && self.fabric.sleeping(n).load(Ordering::SeqCst) == 0
        })
    }

    fn flush_frees(&mut self) {
        for o in 0..self.pending_free.len() {
            if self.pending_free[o].is_empty() {
                continue;
            }
            let ring = self.fabric.free_ring(o);
            let log = self.fabric.log(self.me);
            let hand = self.fabric.hand(self.me);
            let others = self.held_except(Some(o));
            let mine = &self.pending_free[o];
            let n = ring.enqueue_batch_logged(mine, &log, free_ring_id(o), |n| {
                hand.set(
                    others
                        .iter()
                        .copied()
                        .chain(mine[n..].iter().map(|&a| hand_entry(o, a))),
                )
            });
            self.pending_free[o].drain(..n);
            self.wake_batched(o, ring.len(), ring.capacity());
        }
    }

    /// Hand entries for every frame this host holds outside the shared
    /// rings (pending output and pending returns), except the returns for
    /// owner `skip_free` and the output batch `skip_out`.
    fn held_except(&self, skip_free: Option<usize>) -> Vec<u64> {
        let group = self.topo.nf_group[self.me];
        let mut v = Vec::new();
        for (o, frees) in self.pending_free.iter().enumerate() {
            if Some(o) != skip_free {
                v.extend(frees.iter().map(|&a| hand_entry(o, a)));
            }
        }
        let out_entry = |o: &Out| {
            let base = o.addr - o.addr % self.frame_size;
            self.owner(group, base).map(|w| hand_entry(w, base))
        };
        v.extend(self.pending_out.iter().filter_map(out_entry));
        v
    }

    /// Rewrite the fabric's copy of the held frames.
    fn mirror_hand(&self) {
        let held = self.held_except(None);
        self.fabric.hand(self.me).set(held.into_iter());
    }

    fn reclaim(&mut self, scratch: &mut Vec<u64>) {
        let group = self.topo.nf_group[self.me];
        let room = self.fabric.hand(self.me).capacity() / 2;
        for s in 0..self.socks.len() {
            if let Some(c) = self.socks[s].rings.completion.as_mut() {
                scratch.clear();
                let pos = c.consumer_index();
                let n = c.peek(scratch, room);
                if n == 0 {
                    continue;
                }
                let done = std::mem::take(scratch);
                // Mirror the frames before taking them off the ring.
                let entries: Vec<u64> = done
                    .iter()
                    .filter_map(|&a| {
                        let base = a - a % self.frame_size;
                        self.owner(group, base).map(|o| hand_entry(o, base))
                    })
                    .collect();
                let hand = self.fabric.hand(self.me);
                hand.begin_take(1 + s as u64, u64::from(pos), entries.into_iter());
                if let Some(c) = self.socks[s].rings.completion.as_mut() {
                    c.release(n);
                }
                hand.taken();
                for &a in &done {
                    self.free_frame(group, a);
                }
                *scratch = done;
            }
        }
        scratch.clear();
        let n = self
            .fabric
            .free_ring(self.me)
            .dequeue_batch(scratch, usize::MAX);
        self.count(NfCounter::FramesReturned, n as u64);
        self.pool
            .extend(scratch.iter().copied().filter(|&a| a != SKIP_FRAME));
        self.flush_frees();
    }

    fn refill(&mut self) {
        let mut in_fill = 0u64;
        for s in self.socks.iter_mut().filter(|s| s.rx) {
            if let Some(f) = s.rings.fill.as_mut() {
                let want = f.free(f.size()).min(self.pool.len() as u32) as usize;
                if want > 0 {
                    let start = self.pool.len() - want;
                    let n = f.produce(&self.pool[start..]);
                    self.pool.truncate(start + (want - n));
                }
                in_fill += u64::from(f.outstanding());
            }
        }
        self.fabric
            .free_gauge(self.me)
            .store(self.pool.len() as u64 + in_fill, Ordering::Relaxed);
    }

    /// Hand entry (owner, frame base) of a descriptor arriving in the inbox.
    fn hand_entry_of(&self, d: &LinkDesc) -> Option<u64> {
        let link = self.topo.links.get(d.link as usize)?;
        let LinkSource::Nf { nf: src, .. } = link.source else {
            return None;
        };
        let g = self.topo.nf_group[src];
        let base = d.addr - d.addr % self.frame_size;
        self.owner(g, base).map(|o| hand_entry(o, base))
    }

    /// Try to push pending output; returns true when everything went out.
    fn flush_out(&mut self) -> bool {
        let mut by_dest: Vec<(Route, Vec<Out>)> = vec![];
        while let Some(o) = self.pending_out.pop_front() {
            let key = route_key(o.route);
            match by_dest.iter_mut().find(|(r, _)| route_key(*r) == key) {
                Some((_, v)) => v.push(o),
                None => by_dest.push((o.route, vec![o])),
            }
        }
        let mut left: Vec<Out> = vec![];
        let group = self.topo.nf_group[self.me];
        let entry = |h: &NfHost, o: &Out| {
            let base = o.addr - o.addr % h.frame_size;
            h.owner(group, base).map(|w| hand_entry(w, base))
        };
        let n_dest = by_dest.len();
        for di in 0..n_dest {
            let (route, outs) = std::mem::replace(&mut by_dest[di], (Route::Nowhere, vec![]));
            // Held after this batch went out: later batches, leftovers,
            // pending returns (+ this batch's unsent tail, added below).
            let mut others = self.held_except(None);
            for (_, v) in &by_dest[di + 1..] {
                others.extend(v.iter().filter_map(|o| entry(self, o)));
            }
            others.extend(left.iter().filter_map(|o| entry(self, o)));
            let tail_entries: Vec<Option<u64>> = outs.iter().map(|o| entry(self, o)).collect();
            let sent = match route {
                Route::Iface { sock, link } => {
                    let descs: Vec<libc::xdp_desc> = outs
                        .iter()
                        .map(|o| libc::xdp_desc {
                            addr: o.addr,
                            len: o.len,
                            options: 0,
                        })
                        .collect();
                    let s = &mut self.socks[sock];
                    let n = s.rings.tx.produce(&descs);
                    // Frames on our TX ring are found there by a successor.
                    self.fabric.hand(self.me).set(
                        others
                            .iter()
                            .copied()
                            .chain(tail_entries[n..].iter().flatten().copied()),
                    );
                    if n > 0 {
                        if s.rings.tx.needs_wakeup() {
                            let _ = s.rings.kick_tx();
                            self.count(NfCounter::TxKicks, 1);
                        }
                        self.count(NfCounter::TxIface, n as u64);
                        self.fabric
                            .link_counter(link, 0)
                            .fetch_add(n as u64, Ordering::Relaxed);
                        self.fabric
                            .link_counter(link, 1)
                            .fetch_add(1, Ordering::Relaxed);
                    }
                    n
                }
                Route::Nf { nf, link } => {
                    let descs: Vec<LinkDesc> = outs
                        .iter()
                        .map(|o| LinkDesc {
                            addr: o.addr,
                            len: o.len,
                            link: link as u32,
                        })
                        .collect();
                    let log = self.fabric.log(self.me);
                    let hand = self.fabric.hand(self.me);
                    let n = self.fabric.inbox(nf).enqueue_batch_logged(
                        &descs,
                        &log,
                        inbox_ring_id(nf),
                        |n| {
                            hand.set(
                                others
                                    .iter()
                                    .copied()
                                    .chain(tail_entries[n..].iter().flatten().copied()),
                            )
                        },
                    );
                    if n > 0 {
                        self.count(NfCounter::TxLink, n as u64);
                        self.fabric
                            .link_counter(link, 0)
                            .fetch_add(n as u64, Ordering::Relaxed);
                        self.fabric
                            .link_counter(link, 1)
                            .fetch_add(1, Ordering::Relaxed);
                        let inbox = self.fabric.inbox(nf);
                        self.wake_batched(nf, inbox.len(), inbox.capacity());
                    }
                    n
                }
                Route::Nowhere => outs.len(),
            };
            if sent < outs.len() {
                if let Route::Nf { link, .. } = route {
                    self.fabric
                        .link_counter(link, 2)
                        .fetch_add(1, Ordering::Relaxed);
                }
                left.extend_from_slice(&outs[sent..]);
            }
        }
        let done = left.is_empty();
        self.pending_out.extend(left);
        done
    }

    /// Whether to end the run now: the stop fd is readable, or the monitor
    /// hung up (one poll for both).
    fn should_end(&self, stop: BorrowedFd<'_>) -> Option<Ended> {
        let mut p = [
            libc::pollfd {
                fd: stop.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.monitor.as_raw_fd(),
                events: libc::POLLRDHUP,
                revents: 0,
            },
        ];
        // SAFETY: a valid array of two pollfds, no wait.
        if unsafe { libc::poll(p.as_mut_ptr(), 2, 0) } <= 0 {
            return None;
        }
        if p[0].revents != 0 {
            Some(Ended::Stopped)
        } else if p[1].revents != 0 {
            Some(Ended::MonitorGone)
        } else {
            None
        }
    }

    /// Run the NF until `stop` is readable, the monitor goes away, or
    /// `opts.max_packets` were handed off; says which.
    pub fn run(
        &mut self,
        nf: &mut dyn RustNf,
        stop: BorrowedFd<'_>,
        opts: &RunOptions,
    ) -> Result<Ended> {
        let me = self.me;
        let cfg = self.dep.nfs[me].polling;
        let batch = self.dep.monitor.batch_size as usize;
        let group = self.topo.nf_group[me];
        let mut poller = Poller::new(cfg, now_ns());
        let mut scratch = vec![];
        let mut rx_descs: Vec<libc::xdp_desc> = Vec::with_capacity(batch);
        let mut inbox_descs: Vec<LinkDesc> = Vec::with_capacity(batch);
        let rx_sock = self.socks.iter().position(|s| s.rx);
        let has_single_copy_in = self.topo.links.iter().any(|l| {
            matches!(l.dest, LinkDest::Nf { nf, .. } if nf == me) && l.mode == LinkMode::SingleCopy
        });
        // Input port and link index of frames arriving on the RX socket.
        let (rx_in_port, rx_link) =
            rx_sock
                .and_then(|s| {
                    let iface = self
                        .topo
                        .sockets
                        .iter()
                        .filter(|p| p.nf == me)
                        .nth(s)
                        .map(|p| p.iface)?;
                    self.topo.links.iter().enumerate().find_map(|(li, l)| {
                        match (l.source, l.dest) {
                            (LinkSource::Iface(i), LinkDest::Nf { port, .. }) if i == iface => {
                                Some((port, Some(li)))
                            }
                            _ => None,
                        }
                    })
                })
                .unwrap_or((0, None));
        let mut handled_total: u64 = 0;
        let mut iter: u64 = 0;
        // Pin the data path where the deployment says; busy polling pays
        // only on a CPU this NF does not share with another NF host (known
        // from the deployment's pinning, else assumed when NF hosts
        // outnumber the CPUs).
        let pinned = pin_current_thread(&self.dep.nfs[me].cpus);
        let shares_cpu = if pinned.is_empty() {
            let cpus = std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1);
            self.dep.nfs.len() > cpus
        } else {
            self.dep
                .nfs
                .iter()
                .enumerate()
                .any(|(i, o)| i != me && o.cpus.iter().any(|c| pinned.contains(c)))
        };
        let shared_by_deployment = !cfg.busy_when_shared && shares_cpu;
        if shared_by_deployment && cfg.batch_sched_when_shared {
            set_sched_batch(true);
        }
        // A CPU the deployment gives this NF alone may still be wanted by
        // work it does not know of (a traffic source, another process, the
        // kernel's softirq thread): see `Contention`.
        let mut contention = Contention::new(now_ns());
        if opts.sandbox {
            sandbox::enter(&self.dep.nfs[me].id)?;
        }
        self.fabric.mode(me).store(0, Ordering::Relaxed);
        let mut refused_seen = sandbox::refused();
        let ended;
        loop {
            iter += 1;
            if iter.is_multiple_of(1024) {
                if let Some(e) = self.should_end(stop) {
                    ended = e;
                    break;
                }
            }
            self.reclaim(&mut scratch);
            self.refill();
            if !self.pending_out.is_empty() && !self.flush_out() {
                self.count(NfCounter::BackpressureEvents, 1);
                self.count(NfCounter::ThrottleSleeps, 1);
                self.fabric.mode(me).store(2, Ordering::Relaxed);
                if let Some(e) = self.should_end(stop) {
                    ended = e;
                    break;
                }
                self.flush_wakes();
                std::thread::sleep(std::time::Duration::from_micros(cfg.throttle_us));
                continue;
            }
            // Receive.
            rx_descs.clear();
            inbox_descs.clear();
            if let Some(s) = rx_sock {
                self.socks[s].rings.rx.consume(&mut rx_descs, batch);
            }
            let inbox_room = if has_single_copy_in {
                batch.min(self.pool.len())
            } else {
                batch
            };
            {
                let inbox = self.fabric.inbox(me);
                let (pos, n) = inbox.peek_batch(&mut inbox_descs, inbox_room);
                if n > 0 {
                    // Mirror the frames before taking them off the inbox.
                    let hand = self.fabric.hand(me);
                    let entries: Vec<u64> = inbox_descs
                        .iter()
                        .filter(|d| d.link != SKIP_LINK)
                        .filter_map(|d| self.hand_entry_of(d))
                        .collect();
                    hand.begin_take(0, pos, entries.into_iter());
                    inbox.release(n);
                    hand.taken();
                    inbox_descs.retain(|d| d.link != SKIP_LINK);
                }
            }
            let got = rx_descs.len() + inbox_descs.len();
            if got > 0 {
                self.count(NfCounter::Batches, 1);
                self.count(NfCounter::BatchPackets, got as u64);
                self.count(NfCounter::RxIface, rx_descs.len() as u64);
                if let (Some(li), false) = (rx_link, rx_descs.is_empty()) {
                    self.fabric
                        .link_counter(li, 0)
                        .fetch_add(rx_descs.len() as u64, Ordering::Relaxed);
                    self.fabric
                        .link_counter(li, 1)
                        .fetch_add(1, Ordering::Relaxed);
                }
                self.count(NfCounter::RxLink, inbox_descs.len() as u64);
            }
            let now = now_ns();
            let mut work: Vec<(u64, u32, u32)> = Vec::with_capacity(got);
            for d in &rx_descs {
                work.push((d.addr, d.len, rx_in_port));
            }
            for d in &inbox_descs {
                let link = &self.topo.links[d.link as usize];
                let in_port = self.link_in_port.get(d.link as usize).copied().unwrap_or(0);
                match link.mode {
                    LinkMode::SingleCopy => {
                        let LinkSource::Nf { nf: src, .. } = link.source else {
                            continue;
                        };
                        let src_group = self.topo.nf_group[src];
                        let Some(dst) = self.pool.pop() else {
                            self.free_frame(src_group, d.addr);
                            continue;
                        };
                        let cap = (self.frame_size - HEADROOM) as usize;
                        let len = d.len as usize;
                        let ok = match self.ro_umems.get(&src_group) {
                            Some(ro) if len <= cap && (d.addr as usize + len) <= ro.len() => {
                                // SAFETY: bounds checked against both mappings; frames are distinct memory.
                                unsafe {
                                    std::ptr::copy_nonoverlapping(
                                        ro.ptr().add(d.addr as usize),
                                        self.umem.ptr().add((dst + HEADROOM) as usize),
                                        len,
                                    )
                                };
                                true
                            }
                            _ => false,
                        };
                        self.free_frame(src_group, d.addr);
                        if ok {
                            self.count(NfCounter::Copies, 1);
                            self.count(NfCounter::CopyBytes, len as u64);
                            work.push((dst + HEADROOM, d.len, in_port));
                        } else {
                            self.count(NfCounter::DropOversize, 1);
                            self.pool.push(dst);
                        }
                    }
                    LinkMode::ZeroCopy => work.push((d.addr, d.len, in_port)),
                }
            }
            let mut outs = Vec::with_capacity(work.len());
            for (addr, len, in_port) in work {
                let off = addr % self.frame_size;
                let cap = (self.frame_size - off) as usize;
                let Some(buf) = self.frame_mut(addr, cap) else {
                    self.count(NfCounter::DropOversize, 1);
                    continue;
                };
                let h = nf.process(Packet::new(buf, len, in_port), now);
                let (verdict, out_len) = (h.verdict, h.len);
                match verdict {
                    Verdict::Drop => {
                        self.count(NfCounter::DropVerdict, 1);
                        self.free_frame(group, addr);
                    }
                    Verdict::Port(p) => match self
                        .routes
                        .get(p as usize)
                        .copied()
                        .unwrap_or(Route::Nowhere)
                    {
                        Route::Nowhere => {
                            self.count(NfCounter::DropNoRoute, 1);
                            self.free_frame(group, addr);
                        }
                        route => outs.push(Out {
                            route,
                            addr,
                            len: out_len,
                        }),
                    },
                }
                handled_total += 1;
            }
            self.pending_out.extend(outs);
            if !self.pending_out.is_empty() {
                self.flush_out();
            }
            self.flush_frees();
            if got > 0 {
                self.mirror_hand();
            }
            let tx_backlog = self.kick_tx_backlog();
            if opts.max_packets > 0 && handled_total >= opts.max_packets {
                ended = Ended::MaxPackets;
                break;
            }
            let now = now_ns();
            let wait_when_idle = shared_by_deployment
                || (!cfg.busy_when_shared
                    && poller.mode() == poll::Mode::Busy
                    && contention.contended(now, cfg.batch_sched_when_shared, || {
                        self.count(NfCounter::ContentionBackoffs, 1)
                    }));
            match poller.on_iteration(now, got) {
                Action::Spin => {
                    if got == 0 {
                        self.flush_wakes();
                        if wait_when_idle && self.pending_out.is_empty() && !tx_backlog {
                            // Cores are shared by more NF hosts than there
                            // are CPUs: spinning would only delay the NF
                            // that has work, so wait for the next batch.
                            self.reclaim(&mut scratch);
                            self.refill();
                            let moderate = (cfg.rx_coalesce_us > 0 && rx_sock.is_some())
                                .then_some(cfg.rx_coalesce_us);
                            if let Some(e) =
                                self.sleep(rx_sock, stop, cfg.idle_poll_ms, moderate)?
                            {
                                ended = e;
                                break;
                            }
                        } else {
                            // An idle busy-poll iteration gives the core
                            // away if another NF (or the kernel's softirq
                            // thread) is runnable.
                            // SAFETY: sched_yield has no arguments.
                            unsafe { libc::sched_yield() };
                        }
                    }
                    self.fabric.mode(me).store(
                        if poller.mode() == poll::Mode::Busy {
                            1
                        } else {
                            0
                        },
                        Ordering::Relaxed,
                    );
                }
                Action::Sleep => {
                    self.fabric.mode(me).store(0, Ordering::Relaxed);
                    // Copy-mode TX sends a bounded batch per kick: frames
                    // left on a TX ring need more kicks, not a sleep.
                    if !self.pending_out.is_empty() || tx_backlog {
                        continue;
                    }
                    self.reclaim(&mut scratch);
                    self.refill();
                    if let Some(e) = self.sleep(rx_sock, stop, cfg.idle_poll_ms, None)? {
                        ended = e;
                        break;
                    }
                }
            }
            let refused = sandbox::refused();
            if refused != refused_seen {
                self.count(NfCounter::SyscallsRefused, refused - refused_seen);
                refused_seen = refused;
            }
            let (b, i) = poller.switches;
            let c_b = self
                .fabric
                .nf_counter(me, NfCounter::ToBusy)
                .load(Ordering::Relaxed);
            let c_i = self
                .fabric
                .nf_counter(me, NfCounter::ToInterrupt)
                .load(Ordering::Relaxed);
            self.count(NfCounter::ToBusy, b.saturating_sub(c_b));
            self.count(NfCounter::ToInterrupt, i.saturating_sub(c_i));
        }
        self.fabric.mode(me).store(4, Ordering::Relaxed);
        Ok(ended)
    }

    fn frame_mut(&mut self, addr: u64, cap: usize) -> Option<&mut [u8]> {
        let start = addr as usize;
        if start.checked_add(cap)? > self.umem.len() {
            return None;
        }
        // SAFETY: in-bounds range of our writable UMEM mapping; the frame is
        // owned by this NF until handed off (ring protocol), and the slice
        // does not outlive the packet's processing.
        Some(unsafe { std::slice::from_raw_parts_mut(self.umem.ptr().add(start), cap) })
    }

    /// Kick every socket whose TX ring still holds frames the kernel has not
    /// taken (copy mode transmits a bounded batch per `sendto`); returns
    /// whether any did.
    fn kick_tx_backlog(&mut self) -> bool {
        let mut any = false;
        for s in 0..self.socks.len() {
            if self.socks[s].rings.tx.outstanding() > 0 {
                any = true;
                let _ = self.socks[s].rings.kick_tx();
                self.count(NfCounter::TxKicks, 1);
            }
        }
        any
    }

    /// Block until woken; returns why to end the run, if it should. With
    /// `rx_moderation_us`, the RX socket does not wake this NF: it sleeps
    /// that long on a timer unless a wake batch already waits there.
    fn sleep(
        &mut self,
        rx_sock: Option<usize>,
        stop: BorrowedFd<'_>,
        idle_poll_ms: u32,
        rx_moderation_us: Option<u64>,
    ) -> Result<Option<Ended>> {
        let me = self.me;
        self.fabric.sleeping(me).store(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        // Going idle: partial batches this NF left downstream go out now.
        self.flush_wakes();
        let (inbox, free) = (self.fabric.inbox(me), self.fabric.free_ring(me));
        let (n_in, n_free) = (inbox.len(), free.len());
        let partial = n_in > 0 || n_free > 0;
        let batch_ready =
            n_in >= self.wake_at(inbox.capacity()) || n_free >= self.wake_at(free.capacity());
        // A partial batch may wait for more while another NF runs: that NF
        // wakes this one when the batch fills or when it goes idle itself
        // (it sees our sleeping flag: both sides store, fence, then load).
        let rx_waiting = rx_sock.map_or(0, |s| self.socks[s].rings.rx.waiting() as usize);
        let rx_ready = match rx_moderation_us {
            Some(_) => rx_waiting >= self.wake_at(self.dep.monitor.ring_size as usize),
            None => rx_waiting > 0,
        };
        let ready = rx_ready || batch_ready || (partial && !self.peer_running());
        let mut stopped = None;
        if !ready {
            let timeout = if partial {
                self.count(NfCounter::BatchWaits, 1);
                timespec_us(self.dep.nfs[me].polling.coalesce_us)
            } else if let Some(us) = rx_moderation_us {
                self.count(NfCounter::RxModeratedSleeps, 1);
                timespec_us(us)
            } else {
                self.count(NfCounter::Sleeps, 1);
                timespec_us(u64::from(idle_poll_ms) * 1000)
            };
            let mut fds = vec![
                libc::pollfd {
                    fd: stop.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: self.wakes[me].as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: self.monitor.as_raw_fd(),
                    events: libc::POLLRDHUP,
                    revents: 0,
                },
            ];
            if let Some(s) = rx_sock.filter(|_| rx_moderation_us.is_none()) {
                fds.push(libc::pollfd {
                    fd: self.socks[s].rings.fd,
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
            // SAFETY: fds is a valid array, timeout a valid timespec.
            let rc = unsafe {
                libc::ppoll(
                    fds.as_mut_ptr(),
                    fds.len() as libc::nfds_t,
                    &timeout,
                    std::ptr::null(),
                )
            };
            if rc < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return Err(FlashError::last_os("poll in NF host"));
            }
            if fds[0].revents != 0 {
                stopped = Some(Ended::Stopped);
            } else if fds[2].revents != 0 {
                stopped = Some(Ended::MonitorGone);
            }
            if fds[1].revents != 0 {
                let mut v: u64 = 0;
                // SAFETY: reading 8 bytes from a non-blocking eventfd.
                unsafe { libc::read(self.wakes[me].as_raw_fd(), (&mut v as *mut u64).cast(), 8) };
            }
        }
        self.fabric.sleeping(me).store(0, Ordering::SeqCst);
        Ok(stopped)
    }
}

/// Frame bases of NF `me`'s partition that sit in a ring right now: its
/// sockets' fill, RX, TX and completion rings, its free-buffer return ring,
/// and (zero-copy) any NF's inbox.
fn frames_in_flight<'a>(
    fabric: &Fabric,
    dep: &Deployment,
    topo: &Topology,
    me: usize,
    rings: impl Iterator<Item = &'a XskRings>,
    frame_size: u64,
) -> std::collections::HashSet<u64> {
    let first = u64::from(topo.nf_first_frame[me]);
    let end = first + u64::from(dep.nfs[me].frames);
    let mut seen = std::collections::HashSet::new();
    let mut note = |addr: u64| {
        let f = addr / frame_size;
        if f >= first && f < end {
            seen.insert(f * frame_size);
        }
    };
    for r in rings {
        r.rx.in_flight().iter().for_each(|d| note(d.addr));
        r.tx.in_flight().iter().for_each(|d| note(d.addr));
        for k in [&r.fill, &r.completion].into_iter().flatten() {
            k.in_flight().iter().for_each(|&a| note(a));
        }
    }
    fabric
        .free_ring(me)
        .peek_all()
        .iter()
        .for_each(|&a| note(a));
    for nf in (0..dep.nfs.len()).filter(|&nf| nf != me) {
        for e in fabric.hand(nf).entries() {
            let (o, a) = hand_split(e);
            if o == me {
                note(a);
            }
        }
    }
    let group = topo.nf_group[me];
    for nf in 0..dep.nfs.len() {
        for d in fabric.inbox(nf).peek_all() {
            let Some(link) = topo.links.get(d.link as usize) else {
                continue;
            };
            // Zero-copy descriptors point into the sender's UMEM group.
            if let LinkSource::Nf { nf: src, .. } = link.source {
                if topo.nf_group[src] == group {
                    note(d.addr);
                }
            }
        }
    }
    seen
}

fn route_key(r: Route) -> (u8, usize) {
    match r {
        Route::Nowhere => (0, 0),
        Route::Iface { sock, .. } => (1, sock),
        Route::Nf { nf, .. } => (2, nf),
    }
}

/// A timespec of `us` microseconds.
fn timespec_us(us: u64) -> libc::timespec {
    libc::timespec {
        tv_sec: (us / 1_000_000) as libc::time_t,
        tv_nsec: ((us % 1_000_000) * 1000) as libc::c_long,
    }
}

/// Put the calling thread under SCHED_BATCH (allowed unprivileged; nice
/// value kept), where its wakeups no longer preempt the running task, or
/// back under SCHED_OTHER.
fn set_sched_batch(batch: bool) {
    let param = libc::sched_param { sched_priority: 0 };
    let policy = if batch {
        libc::SCHED_BATCH
    } else {
        libc::SCHED_OTHER
    };
    // SAFETY: valid parameter block for the calling thread (pid 0).
    unsafe { libc::sched_setscheduler(0, policy, &param) };
}

/// Involuntary context switches of the calling thread so far.
fn involuntary_switches() -> i64 {
    // SAFETY: zeroed rusage is a valid out-parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointer; RUSAGE_THREAD needs no privileges.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    ru.ru_nivcsw
}

/// Whether a busy-polling NF competes for its CPU. Spinning pays only on a
/// CPU nothing else wants; a spinning thread that keeps waiting for its CPU
/// while runnable (schedstat's run delay; where the kernel does not account
/// it, involuntary context switches) shares that CPU with other work, so it
/// waits like an NF the deployment placed on a shared CPU for a backoff,
/// then tries spinning again. The backoff doubles (up to
/// [`Contention::MAX_BACKOFF_NS`]) while spinning keeps meeting contention
/// at once, and starts over after a clean window.
#[derive(Debug)]
struct Contention {
    signal: ContentionSignal,
    window_start_ns: u64,
    at_window_start: i64,
    backoff_until_ns: u64,
    backoff_ns: u64,
    /// When the last backoff ended (0: none yet).
    resumed_ns: u64,
}

/// What [`Contention`] reads.
#[derive(Debug)]
enum ContentionSignal {
    /// `/proc/thread-self/schedstat`, opened by the measured thread: its
    /// second field is the time spent runnable on a run queue (ns).
    RunDelay(std::fs::File),
    /// Involuntary context switches (getrusage).
    Switches,
}

impl ContentionSignal {
    fn open() -> ContentionSignal {
        match std::fs::File::open("/proc/thread-self/schedstat") {
            Ok(f) => {
                let s = ContentionSignal::RunDelay(f);
                if s.read().is_some() {
                    s
                } else {
                    ContentionSignal::Switches
                }
            }
            Err(_) => ContentionSignal::Switches,
        }
    }

    fn read(&self) -> Option<i64> {
        match self {
            ContentionSignal::RunDelay(f) => {
                use std::os::unix::fs::FileExt;
                let mut buf = [0u8; 96];
                let n = f.read_at(&mut buf, 0).ok()?;
                let text = std::str::from_utf8(&buf[..n]).ok()?;
                text.split_whitespace().nth(1)?.parse().ok()
            }
            ContentionSignal::Switches => Some(involuntary_switches()),
        }
    }

    /// Whether a window's growth of the signal means the CPU is shared.
    fn contended(&self, delta: i64, window_ns: u64) -> bool {
        match self {
            // Runnable but not running for a quarter of the window.
            ContentionSignal::RunDelay(_) => delta.saturating_mul(4) >= window_ns as i64,
            // Several switches: a stray kernel worker causes one now and then.
            ContentionSignal::Switches => delta >= 3,
        }
    }
}

impl Contention {
    /// Length of one observation window. Short: what costs a spinning NF
    /// is a neighbour that runs often (a traffic source, another poller),
    /// while a stray kernel worker now and then must not stop it spinning,
    /// which on a CPU of its own is the fastest mode.
    const WINDOW_NS: u64 = 2_000_000;
    /// First backoff after contention is seen.
    const BACKOFF_NS: u64 = 100_000_000;
    /// Longest backoff.
    const MAX_BACKOFF_NS: u64 = 1_600_000_000;

    fn new(now_ns: u64) -> Contention {
        let signal = ContentionSignal::open();
        let at_window_start = signal.read().unwrap_or(0);
        Contention {
            signal,
            window_start_ns: now_ns,
            at_window_start,
            backoff_until_ns: 0,
            backoff_ns: Self::BACKOFF_NS,
            resumed_ns: 0,
        }
    }

    /// Contention met within this long of resuming counts as the same
    /// neighbour still being there (a few windows: one window may fall
    /// inside this thread's own scheduler slice).
    const AGAIN_NS: u64 = 5 * Self::WINDOW_NS;

    /// Called on busy-mode iterations; `on_backoff` runs when a backoff
    /// starts. With `batch_sched`, the thread is SCHED_BATCH while it backs
    /// off, as a deployment-shared NF is.
    fn contended(&mut self, now_ns: u64, batch_sched: bool, on_backoff: impl FnOnce()) -> bool {
        if self.backoff_until_ns > 0 {
            if now_ns < self.backoff_until_ns {
                return true;
            }
            self.resume(now_ns);
            if batch_sched {
                set_sched_batch(false);
            }
            self.at_window_start = self.signal.read().unwrap_or(0);
            return false;
        }
        let elapsed = now_ns.saturating_sub(self.window_start_ns);
        if elapsed < Self::WINDOW_NS {
            return false;
        }
        let Some(value) = self.signal.read() else {
            return false;
        };
        let hit = self.signal.contended(value - self.at_window_start, elapsed);
        self.window_start_ns = now_ns;
        self.at_window_start = value;
        if hit {
            self.back_off(now_ns);
            if batch_sched {
                set_sched_batch(true);
            }
            on_backoff();
        }
        hit
    }

    /// Start a backoff at `now_ns`: twice the last one when spinning met
    /// contention again right after resuming, else the first length.
    fn back_off(&mut self, now_ns: u64) {
        let again = self.resumed_ns > 0 && now_ns.saturating_sub(self.resumed_ns) <= Self::AGAIN_NS;
        self.backoff_ns = if again {
            (self.backoff_ns * 2).min(Self::MAX_BACKOFF_NS)
        } else {
            Self::BACKOFF_NS
        };
        self.backoff_until_ns = now_ns + self.backoff_ns;
    }

    /// End a backoff at `now_ns`: spin again, watching a fresh window.
    fn resume(&mut self, now_ns: u64) {
        self.backoff_until_ns = 0;
        self.resumed_ns = now_ns;
        self.window_start_ns = now_ns;
    }
}

/// The CPUs the calling thread may run on, ascending.
pub fn allowed_cpus() -> Vec<u32> {
    // SAFETY: zeroed cpu_set_t is a valid out-parameter of its own size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return vec![];
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .map(|c| c as u32)
            .collect()
    }
}

/// Restrict the calling thread to `cpus` (those of them it may use);
/// returns the CPUs it now runs on, empty when nothing was pinned (no CPUs
/// asked for, none of them allowed, or the call failed).
fn pin_current_thread(cpus: &[u32]) -> Vec<u32> {
    if cpus.is_empty() {
        return vec![];
    }
    // SAFETY: zeroed cpu_set_t is a valid empty set; the calls get its size.
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed) != 0 {
            return vec![];
        }
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        let mut used = vec![];
        for &c in cpus {
            let c = c as usize;
            if c < libc::CPU_SETSIZE as usize && libc::CPU_ISSET(c, &allowed) {
                libc::CPU_SET(c, &mut set);
                used.push(c as u32);
            }
        }
        if used.is_empty()
            || libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0
        {
            return vec![];
        }
        used
    }
}

/// Monotonic clock in nanoseconds.
pub fn now_ns() -> u64 {
    // SAFETY: zeroed timespec is a valid out-parameter.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Load `dep` and run NF `id` with its C object until `stop` is readable.
/// `pinning`, when given, is the CPU of every NF in deployment order (what
/// the runner decided, e.g. `nfc run` over the CPUs it may use) and
/// replaces the deployment's own `cpus`.
pub fn run_c_nf(
    dep_path: &Path,
    id: &str,
    scratch: &Path,
    pinning: Option<&[u32]>,
    stop: BorrowedFd<'_>,
    on_ready: &mut dyn FnMut(&NfHost),
) -> Result<Ended> {
    let mut dep = Deployment::load(dep_path)?;
    if let Some(cpus) = pinning {
        if cpus.len() != dep.nfs.len() {
            return Err(FlashError::Protocol(format!(
                "pinning lists {} CPUs for {} NFs",
                cpus.len(),
                dep.nfs.len()
            )));
        }
        for (nf, &cpu) in dep.nfs.iter_mut().zip(cpus) {
            nf.cpus = vec![cpu];
        }
    }
    let spec = dep
        .nfs
        .iter()
        .find(|n| n.id == id)
        .ok_or_else(|| FlashError::UnknownNf(id.to_string()))?
        .clone();
    let mut nf = cnf::CNf::load(&spec.id, &spec.object, &spec.config, scratch)?;
    let mut host = NfHost::attach(dep, id)?;
    on_ready(&host);
    host.run(
        &mut nf,
        stop,
        &RunOptions {
            sandbox: true,
            ..RunOptions::default()
        },
    )
}

#[cfg(test)]
mod contention_tests {
    use super::*;

    /// A thread spinning (yielding when idle, as a busy-mode NF does) next
    /// to another such poller on the same CPU sees contention; alone on a
    /// CPU nobody else uses it would not (not asserted: the test machine
    /// may run other work).
    /// Run `body` pinned to one CPU while a neighbour thread pinned there
    /// too runs `step` in a loop.
    fn next_to<T>(step: fn(), body: impl FnOnce() -> T) -> T {
        let cpu = allowed_cpus()[0];
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let neighbour = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                pin_current_thread(&[cpu]);
                while !stop.load(Ordering::Relaxed) {
                    step();
                }
            })
        };
        pin_current_thread(&[cpu]);
        let out = body();
        stop.store(true, Ordering::Relaxed);
        neighbour.join().unwrap();
        out
    }

    fn yield_cpu() {
        // SAFETY: sched_yield has no arguments.
        unsafe { libc::sched_yield() };
    }

    #[test]
    fn a_polling_neighbour_is_seen_as_contention() {
        next_to(yield_cpu, || {
            let mut c = Contention::new(now_ns());
            let (mut seen, mut backoffs) = (false, 0);
            let deadline = now_ns() + 2_000_000_000;
            while now_ns() < deadline && !seen {
                // SAFETY: no arguments.
                unsafe { libc::sched_yield() };
                seen = c.contended(now_ns(), false, || backoffs += 1);
            }
            assert!(seen, "a polling neighbour on the same CPU went unnoticed");
            assert_eq!(backoffs, 1);
            // The backoff lasts BACKOFF_NS, then spinning is tried again.
            let t = now_ns();
            assert!(c.contended(t, false, || panic!("no new backoff during one")));
            assert!(!c.contended(t + Contention::BACKOFF_NS, false, || {}));
        });
    }

    /// A CPU-bound neighbour (no yields, no sleeps: it only gives the CPU
    /// up at the end of its slices) is seen too.
    #[test]
    fn a_cpu_bound_neighbour_is_seen_as_contention() {
        let (seen, signal) = next_to(std::hint::spin_loop, || {
            let mut c = Contention::new(now_ns());
            let deadline = now_ns() + 3_000_000_000;
            let mut seen = false;
            while now_ns() < deadline && !seen {
                seen = c.contended(now_ns(), false, || {});
            }
            (seen, format!("{:?}", c.signal))
        });
        assert!(seen, "a CPU-bound neighbour went unnoticed ({signal})");
    }

    /// Backoffs double while contention is met again right after
    /// resuming, up to the maximum, and start over after a clean stretch.
    #[test]
    fn backoffs_grow_while_contention_persists() {
        let mut c = Contention::new(0);
        let ms = 1_000_000;
        let mut lengths = vec![];
        let mut t = 10 * ms;
        for _ in 0..7 {
            c.back_off(t);
            lengths.push(c.backoff_ns / ms);
            t = c.backoff_until_ns;
            c.resume(t);
            t += 2 * ms; // contended again in the first windows
        }
        assert_eq!(lengths, [100, 200, 400, 800, 1600, 1600, 1600]);
        // Spinning undisturbed for longer than AGAIN_NS resets it.
        c.back_off(t + Contention::AGAIN_NS + ms);
        assert_eq!(c.backoff_ns, Contention::BACKOFF_NS);
    }
}
