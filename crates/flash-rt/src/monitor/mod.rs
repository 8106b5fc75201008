//! The FLASH monitor: the one privileged process of a deployment. It owns
//! every privileged step — creating the UMEM memfds (one per group: shared
//! for zero-copy groups, separate otherwise), the fabric, the AF_XDP sockets
//! (UMEM registration, shared-UMEM binds, copy mode), the XDP redirect
//! programs and their XSKMAPs — and hands the resulting fds to unprivileged NF
//! hosts over a Unix socket after checking their SO_PEERCRED against the
//! deployment. It also answers stats requests from the shared counters and
//! the sockets' kernel statistics. Dropping a [`Monitor`] detaches the XDP
//! programs and removes the socket file.
//!
//! Every NF must attach once within the attach deadline
//! ([`MonitorOptions::attach_timeout`]); otherwise [`Monitor::run`] ends with
//! [`MonitorError::NeverAttached`] naming each NF that never did, and a host
//! the caller started ([`Monitor::watch_host`]) that exits before attaching
//! ends it at once with [`MonitorError::HostExited`]. An NF that attached
//! and later died is not an error: the monitor recovers its rings and waits
//! for a restarted host.
//!
//! Liveness of an attached host is judged by its pidfd and by the attach
//! connection, which the monitor keeps open for as long as the host runs:
//! either one reporting the end (a zombie's pidfd is readable; a dead
//! process's socket hangs up) frees the NF for a restarted host, never
//! `kill(pid, 0)`, which counts an unreaped zombie as alive. The host
//! watches the same connection from its side: when the monitor goes away
//! it hangs up, and the host stops and releases what it was handed.
//! [`Monitor::on_host_exit`] lets the process that started the hosts
//! (`nfc run`) reap one the moment the monitor sees it gone.

pub mod protocol;

use crate::deploy::{Deployment, LinkDest, LinkMode, LinkSource, Topology};
use crate::links::fabric::{Fabric, FabricLayout, LINK_COUNTERS, MODE_NAMES};
use crate::xdp::mem::{memfd, reopen_readonly, Mapping};
use crate::xdp::program::AttachedXdp;
use crate::xdp::socket::{create_bound, ifindex, SocketSetup};
use crate::xdp::{FlashError, Result};
use protocol::{peer_cred, recv_msg, send_msg, FdRole, Grant, Request, Response};
use serde_json::json;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The attach deadline [`MonitorOptions::default`] uses.
pub const DEFAULT_ATTACH_TIMEOUT: Duration = Duration::from_secs(10);

/// Why [`Monitor::run`] ended other than by its stop fd.
#[derive(Debug, thiserror::Error)]
pub enum MonitorError {
    /// A system call of the monitor itself failed (e.g. poll).
    #[error(transparent)]
    Flash(#[from] FlashError),
    /// Some NFs had not attached once when the attach deadline passed.
    /// (The message states the fact; each front end adds how to start a
    /// host in its own terms.)
    #[error(
        "{} never attached within {} ms",
        describe_pending(.nfs),
        .timeout.as_millis()
    )]
    NeverAttached {
        /// The deadline that passed.
        timeout: Duration,
        /// Every NF that never attached, in deployment order.
        nfs: Vec<PendingNf>,
        /// The monitor socket the hosts should have connected to.
        socket: PathBuf,
    },
    /// A host process the caller started for an NF exited before the NF
    /// attached.
    #[error("the host of NF `{nf}` (pid {pid}) {status} before attaching to the monitor")]
    HostExited {
        /// NF id.
        nf: String,
        /// The host's pid.
        pid: u32,
        /// How it ended: `exited with status 1`, `was killed by signal 9`, ...
        status: String,
    },
}

/// An NF that has not attached, with the user the deployment expects its
/// host to run as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingNf {
    /// NF id.
    pub id: String,
    /// The uid its host must run as (None: root or the monitor's own uid).
    pub uid: Option<u32>,
}

impl std::fmt::Display for PendingNf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.uid {
            Some(uid) => write!(f, "`{}` (uid {uid})", self.id),
            None => write!(f, "`{}` (root)", self.id),
        }
    }
}

/// `NF `a` (uid 1)` or `NFs `a` (uid 1), `b` (uid 1)`.
fn describe_pending(nfs: &[PendingNf]) -> String {
    let list: Vec<String> = nfs.iter().map(PendingNf::to_string).collect();
    let noun = if nfs.len() == 1 { "NF" } else { "NFs" };
    format!("{noun} {}", list.join(", "))
}

/// Options that are not part of the deployment.
#[derive(Debug, Clone)]
pub struct MonitorOptions {
    /// Permission bits of the socket file (authentication is SO_PEERCRED).
    pub socket_mode: u32,
    /// Bind sockets with XDP_ZEROCOPY (fails on veth) instead of copy mode.
    pub zerocopy: bool,
    /// How long after [`Monitor::run`] starts every NF must have attached
    /// once (None: wait forever).
    pub attach_timeout: Option<Duration>,
}

impl Default for MonitorOptions {
    fn default() -> Self {
        MonitorOptions {
            socket_mode: 0o666,
            zerocopy: false,
            attach_timeout: Some(DEFAULT_ATTACH_TIMEOUT),
        }
    }
}

struct Umem {
    fd: OwnedFd,
    map: Mapping,
}

/// A running monitor's resources.
pub struct Monitor {
    dep: Deployment,
    topo: Topology,
    fabric_fd: OwnedFd,
    _fabric_map: Mapping,
    fabric: Fabric,
    umems: Vec<Umem>,
    sockets: Vec<OwnedFd>,
    wakes: Vec<OwnedFd>,
    /// XDP program per interface index (deployment order), where one is attached.
    xdp: Vec<Option<AttachedXdp>>,
    listener: OwnedFd,
    socket_path: PathBuf,
    monitor_uid: u32,
    /// pidfd of the host process attached as each NF (None while detached).
    watch: Vec<Option<OwnedFd>>,
    /// Whether each NF has attached at least once.
    attached_once: Vec<bool>,
    /// Host processes the caller started, per NF: pid and pidfd, watched
    /// until the NF first attaches.
    launched: Vec<Option<(u32, OwnedFd)>>,
    attach_timeout: Option<Duration>,
    /// The attach connection of the host attached as each NF, kept open
    /// while it runs: a hang-up means the host is gone, and the host sees
    /// this end close when the monitor goes away.
    conns: Vec<Option<OwnedFd>>,
    /// Log lines produced outside [`Monitor::run`]'s own steps (e.g. a dead
    /// host found while admitting its successor), emitted by the loop.
    notes: Vec<String>,
    /// Called with (NF id, pid) when an attached host is found gone; may
    /// reap it and describe how it ended.
    on_exit: Option<HostExitHook>,
}

/// See [`Monitor::on_host_exit`].
pub type HostExitHook = Box<dyn FnMut(&str, u32) -> Option<String>>;

impl std::fmt::Debug for Monitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Monitor")
            .field("name", &self.dep.name)
            .field("socket", &self.socket_path)
            .finish()
    }
}

impl Monitor {
    /// Set everything up for `dep`. On error, whatever was created is torn
    /// down again (XDP programs detached, socket file removed).
    pub fn setup(dep: Deployment, opts: &MonitorOptions) -> Result<Monitor> {
        let topo = dep
            .topology()
            .map_err(|problems| crate::deploy::DeployError::Invalid {
                path: PathBuf::new(),
                problems,
            })?;
        // Check every interface first, so a typo fails before anything is created.
        let mut ifindexes = vec![];
        for itf in &dep.monitor.interfaces {
            match ifindex(&itf.ifname) {
                Some(i) => ifindexes.push(i),
                None => {
                    return Err(FlashError::NoInterface {
                        name: itf.name.clone(),
                        ifname: itf.ifname.clone(),
                    })
                }
            }
        }
        let layout = FabricLayout::new(&dep, &topo);
        let fabric_fd = memfd(&format!("flash-rt-fabric-{}", dep.name), layout.size)?;
        let fabric_map = Mapping::map(fabric_fd.as_raw_fd(), layout.size, 0, true, "fabric")?;
        // SAFETY: page-aligned mapping of layout.size bytes, kept in the Monitor.
        let fabric = unsafe { Fabric::at(fabric_map.ptr(), layout) };
        fabric.init();
        for nf in 0..dep.nfs.len() {
            fabric.mode(nf).store(3, Ordering::Relaxed);
        }
        let fs = dep.monitor.frame_size as usize;
        let mut umems = vec![];
        for g in &topo.groups {
            let len = g.frames as usize * fs;
            let fd = memfd(&format!("flash-rt-umem-{}", g.name), len)?;
            let map = Mapping::map(fd.as_raw_fd(), len, 0, true, "UMEM")?;
            umems.push(Umem { fd, map });
        }
        let mut sockets: Vec<OwnedFd> = vec![];
        for s in &topo.sockets {
            let itf = &dep.monitor.interfaces[s.iface];
            let u = &umems[s.group];
            let setup = SocketSetup {
                ifindex: ifindexes[s.iface],
                queue: itf.queue,
                ring_size: dep.monitor.ring_size,
                register: s.registers_umem.then(|| {
                    (
                        u.map.ptr() as u64,
                        u.map.len() as u64,
                        dep.monitor.frame_size,
                    )
                }),
                share_fd: s.shares_with.map(|i| sockets[i].as_raw_fd()),
                fill_completion: s.own_fill_completion,
                zerocopy: opts.zerocopy,
            };
            let fd = create_bound(&setup).map_err(|e| match e {
                FlashError::Sys { what, source } => FlashError::Sys {
                    what: format!(
                        "AF_XDP socket for NF `{}` on `{}` ({}): {what}",
                        dep.nfs[s.nf].id, itf.name, itf.ifname
                    ),
                    source,
                },
                e => e,
            })?;
            sockets.push(fd);
        }
        let mut wakes = vec![];
        for _ in &dep.nfs {
            // SAFETY: plain eventfd() call.
            let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
            if fd < 0 {
                return Err(FlashError::last_os("eventfd"));
            }
            // SAFETY: fresh fd.
            wakes.push(unsafe { OwnedFd::from_raw_fd(fd) });
        }
        let mut xdp: Vec<Option<AttachedXdp>> =
            dep.monitor.interfaces.iter().map(|_| None).collect();
        for s in topo.sockets.iter().filter(|s| s.rx) {
            if xdp[s.iface].is_none() {
                let itf = &dep.monitor.interfaces[s.iface];
                xdp[s.iface] = Some(AttachedXdp::attach(
                    &itf.ifname,
                    ifindexes[s.iface],
                    dep.monitor.xdp_mode,
                )?);
            }
        }
        let socket_path = dep.monitor.socket.clone();
        let n_nfs = dep.nfs.len();
        let listener = listen(&socket_path, opts.socket_mode)?;
        // SAFETY: geteuid never fails.
        let monitor_uid = unsafe { libc::geteuid() };
        Ok(Monitor {
            dep,
            topo,
            fabric_fd,
            _fabric_map: fabric_map,
            fabric,
            umems,
            sockets,
            wakes,
            xdp,
            listener,
            socket_path,
            monitor_uid,
            watch: (0..n_nfs).map(|_| None).collect(),
            attached_once: vec![false; n_nfs],
            launched: (0..n_nfs).map(|_| None).collect(),
            attach_timeout: opts.attach_timeout,
            conns: (0..n_nfs).map(|_| None).collect(),
            notes: vec![],
            on_exit: None,
        })
    }

    /// Call `hook(nf, pid)` whenever an attached NF host is found gone
    /// (before its rings are recovered and the NF is offered to a new
    /// host). The process that started the host reaps it there, so no
    /// zombie outlives it; the returned text (e.g. its exit status) is
    /// added to the log line.
    pub fn on_host_exit(&mut self, hook: HostExitHook) {
        self.on_exit = Some(hook);
    }

    /// Whether the host attached as NF `nf` is still running. Its pidfd
    /// decides where there is one (readable once the process exited,
    /// zombie or not); otherwise its attach connection (hung up once the
    /// process is gone).
    fn host_alive(&self, nf: usize) -> bool {
        let dead = |fd: &OwnedFd, events: libc::c_short| {
            let mut p = libc::pollfd {
                fd: fd.as_raw_fd(),
                events,
                revents: 0,
            };
            // SAFETY: one valid pollfd, no wait.
            unsafe { libc::poll(&mut p, 1, 0) > 0 && p.revents != 0 }
        };
        match (&self.watch[nf], &self.conns[nf]) {
            (Some(pidfd), _) => !dead(pidfd, libc::POLLIN),
            (None, Some(conn)) => !dead(conn, libc::POLLRDHUP),
            (None, None) => false,
        }
    }

    /// Watch the host process `pid` the caller started for NF `nf`: if it
    /// exits before that NF has attached, [`Monitor::run`] ends with
    /// [`MonitorError::HostExited`]. Best left to the process's parent,
    /// which can read its exit status.
    pub fn watch_host(&mut self, nf: &str, pid: u32) -> Result<()> {
        let i = self
            .dep
            .nf_index(nf)
            .ok_or_else(|| FlashError::UnknownNf(nf.to_string()))?;
        let fd =
            pidfd(pid as i32).ok_or_else(|| FlashError::last_os(format!("pidfd_open({pid})")))?;
        self.launched[i] = Some((pid, fd));
        Ok(())
    }

    /// The NFs that have never attached, in deployment order.
    pub fn pending(&self) -> Vec<PendingNf> {
        self.dep
            .nfs
            .iter()
            .zip(&self.attached_once)
            .filter(|(_, &a)| !a)
            .map(|(nf, _)| PendingNf {
                id: nf.id.clone(),
                uid: nf.uid,
            })
            .collect()
    }

    /// The deployment being served.
    pub fn deployment(&self) -> &Deployment {
        &self.dep
    }

    /// XDP attach mode used per interface name.
    pub fn xdp_modes(&self) -> Vec<(String, &'static str)> {
        self.xdp
            .iter()
            .enumerate()
            .filter_map(|(i, x)| {
                x.as_ref()
                    .map(|x| (self.dep.monitor.interfaces[i].ifname.clone(), x.mode))
            })
            .collect()
    }

    /// Serve NF hosts and stats clients until `stop` becomes readable (e.g. a
    /// signalfd for SIGINT/SIGTERM). Per-client failures are returned through
    /// `log` and do not stop the monitor. Ends with an error when an NF has
    /// not attached once by the attach deadline (counted from this call), or
    /// when a host registered with [`Monitor::watch_host`] exits before its
    /// NF attached.
    pub fn run(
        &mut self,
        stop: BorrowedFd<'_>,
        log: &mut dyn FnMut(String),
    ) -> std::result::Result<(), MonitorError> {
        let deadline = self.attach_timeout.map(|t| (t, Instant::now() + t));
        loop {
            let mut fds = vec![
                libc::pollfd {
                    fd: self.listener.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: stop.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            let watched: Vec<usize> = (0..self.watch.len())
                .filter(|&i| self.watch[i].is_some())
                .collect();
            for &i in &watched {
                if let Some(w) = &self.watch[i] {
                    fds.push(libc::pollfd {
                        fd: w.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    });
                }
            }
            let conns: Vec<usize> = (0..self.conns.len())
                .filter(|&i| self.conns[i].is_some())
                .collect();
            for &i in &conns {
                if let Some(c) = &self.conns[i] {
                    fds.push(libc::pollfd {
                        fd: c.as_raw_fd(),
                        events: libc::POLLRDHUP,
                        revents: 0,
                    });
                }
            }
            let hosts: Vec<usize> = (0..self.launched.len())
                .filter(|&i| self.launched[i].is_some() && !self.attached_once[i])
                .collect();
            for &i in &hosts {
                if let Some((_, fd)) = &self.launched[i] {
                    fds.push(libc::pollfd {
                        fd: fd.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    });
                }
            }
            let all_attached = self.attached_once.iter().all(|&a| a);
            let timeout_ms = match deadline {
                Some((timeout, at)) if !all_attached => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(MonitorError::NeverAttached {
                            timeout,
                            nfs: self.pending(),
                            socket: self.socket_path.clone(),
                        });
                    }
                    // Round up so the wake-up is never before the deadline.
                    left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32
                }
                _ => -1,
            };
            // SAFETY: fds is a valid array.
            let rc = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
            if rc < 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(FlashError::Sys {
                    what: "poll on monitor socket".into(),
                    source: e,
                }
                .into());
            }
            for (k, &nf) in watched.iter().enumerate() {
                if fds[2 + k].revents != 0 && (self.watch[nf].is_some() || self.conns[nf].is_some())
                {
                    log(self.nf_gone(nf));
                }
            }
            // A hung-up attach connection: the host is exiting (its fds
            // close before it becomes a zombie). Where its pidfd is watched,
            // that decides (a moment later); otherwise the hang-up does.
            let conn_base = 2 + watched.len();
            for (k, &nf) in conns.iter().enumerate() {
                if fds[conn_base + k].revents == 0 || self.conns[nf].is_none() {
                    continue;
                }
                if self.watch[nf].is_some() {
                    self.conns[nf] = None;
                } else {
                    log(self.nf_gone(nf));
                }
            }
            if fds[1].revents != 0 {
                return Ok(());
            }
            if fds[0].revents & libc::POLLIN != 0 {
                // SAFETY: accept on our listener.
                let c = unsafe {
                    libc::accept4(
                        self.listener.as_raw_fd(),
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        libc::SOCK_CLOEXEC,
                    )
                };
                if c < 0 {
                    continue;
                }
                // SAFETY: fresh fd.
                let conn = unsafe { OwnedFd::from_raw_fd(c) };
                set_timeout(conn.as_raw_fd(), 2);
                let (msg, keep) = self.serve(conn.as_raw_fd());
                for note in self.notes.drain(..) {
                    log(note);
                }
                if let Some(msg) = msg {
                    log(msg);
                }
                if let Some(nf) = keep {
                    self.conns[nf] = Some(conn);
                }
            }
            // A started host that died before its NF attached (checked after
            // serving, so a host that attached and then exited is not one).
            let base = 2 + watched.len() + conns.len();
            for (k, &nf) in hosts.iter().enumerate() {
                if fds[base + k].revents == 0 || self.attached_once[nf] {
                    continue;
                }
                if let Some((pid, fd)) = self.launched[nf].take() {
                    return Err(MonitorError::HostExited {
                        nf: self.dep.nfs[nf].id.clone(),
                        pid,
                        status: exit_status(fd.as_raw_fd()),
                    });
                }
            }
        }
    }

    /// Handle one connection; returns a log line and, for a granted
    /// attach, the NF whose host now holds this connection (kept open for
    /// as long as the host runs).
    fn serve(&mut self, conn: RawFd) -> (Option<String>, Option<usize>) {
        let cred = match peer_cred(conn) {
            Ok(c) => c,
            Err(e) => return (Some(format!("client without credentials: {e}")), None),
        };
        let req = match recv_msg(conn).and_then(|(b, _)| {
            serde_json::from_slice::<Request>(&b).map_err(|e| FlashError::Protocol(e.to_string()))
        }) {
            Ok(r) => r,
            Err(e) => {
                return (
                    Some(format!("bad request from pid {}: {e}", cred.pid)),
                    None,
                )
            }
        };
        let mut keep = None;
        // `_keep` holds fds opened for this reply (read-only UMEM views)
        // until they have been sent.
        let (resp, fds, _keep, line) = match req {
            Request::Stats => (
                Response::Stats {
                    stats: self.stats(),
                },
                vec![],
                vec![],
                None,
            ),
            Request::Attach { nf } => match self.grant(&nf, &cred) {
                Ok((grant, fds, ro)) => {
                    let line = format!("attached NF `{nf}` (pid {}, uid {})", cred.pid, cred.uid);
                    keep = Some(grant.nf);
                    (Response::Granted(grant), fds, ro, Some(line))
                }
                Err(reason) => {
                    let line = format!(
                        "refused NF `{nf}` to pid {} uid {}: {reason}",
                        cred.pid, cred.uid
                    );
                    (Response::Refused { reason }, vec![], vec![], Some(line))
                }
            },
        };
        let body = serde_json::to_vec(&resp).unwrap_or_default();
        if let Err(e) = send_msg(conn, &body, &fds) {
            if let Some(nf) = keep {
                // The grant is void: the host never got its fds.
                self.watch[nf] = None;
                self.fabric.mode(nf).store(4, Ordering::Relaxed);
            }
            return (Some(format!("reply to pid {} failed: {e}", cred.pid)), None);
        }
        (line, keep)
    }

    /// Check the peer and collect the fds for NF `id`. A refusal's reason
    /// does not name the NF: the requester and the log line do.
    fn grant(
        &mut self,
        id: &str,
        cred: &libc::ucred,
    ) -> std::result::Result<(Grant, Vec<RawFd>, Vec<OwnedFd>), String> {
        let nf = self
            .dep
            .nf_index(id)
            .ok_or_else(|| format!("no such NF in deployment `{}`", self.dep.name))?;
        let spec = &self.dep.nfs[nf];
        match spec.uid {
            Some(uid) if cred.uid != uid => {
                return Err(format!(
                    "must run as uid {uid}, peer runs as uid {}",
                    cred.uid
                ))
            }
            None if cred.uid != 0 && cred.uid != self.monitor_uid => {
                return Err(format!(
                    "no uid in the deployment: only root may attach it (peer uid {})",
                    cred.uid
                ))
            }
            _ => {}
        }
        if let Some(gid) = spec.gid {
            if cred.gid != gid {
                return Err(format!(
                    "must run as gid {gid}, peer runs as gid {}",
                    cred.gid
                ));
            }
        }
        // Liveness by pidfd and attach connection, not kill(pid, 0): an
        // exited host its parent has not reaped yet is a zombie that
        // kill(pid, 0) still finds.
        if self.watch[nf].is_some() || self.conns[nf].is_some() {
            let prev = self.fabric.pid(nf).load(Ordering::Acquire);
            if self.host_alive(nf) {
                return Err(format!(
                    "already attached by pid {prev}, which is still running; stop it first"
                ));
            }
            // Its end is known but not yet handled by the loop: recover
            // its rings before the successor maps them.
            let note = self.nf_gone(nf);
            self.notes.push(note);
        }
        let mut roles = vec![FdRole::Fabric];
        let mut fds = vec![self.fabric_fd.as_raw_fd()];
        let group = self.topo.nf_group[nf];
        roles.push(FdRole::Umem {
            group,
            writable: true,
        });
        fds.push(self.umems[group].fd.as_raw_fd());
        let mut ro_groups: Vec<usize> = self
            .topo
            .links
            .iter()
            .filter_map(|l| match (l.source, l.dest, l.mode) {
                (
                    LinkSource::Nf { nf: a, .. },
                    LinkDest::Nf { nf: b, .. },
                    LinkMode::SingleCopy,
                ) if b == nf => Some(self.topo.nf_group[a]),
                _ => None,
            })
            .collect();
        ro_groups.sort_unstable();
        ro_groups.dedup();
        let mut ro_fds = vec![];
        for g in ro_groups {
            let ro = reopen_readonly(self.umems[g].fd.as_raw_fd()).map_err(|e| e.to_string())?;
            roles.push(FdRole::Umem {
                group: g,
                writable: false,
            });
            fds.push(ro.as_raw_fd());
            ro_fds.push(ro);
        }
        for (i, s) in self
            .topo
            .sockets
            .iter()
            .enumerate()
            .filter(|(_, s)| s.nf == nf)
        {
            roles.push(FdRole::Socket {
                iface: s.iface,
                rx: s.rx,
                tx: s.tx,
                fill_completion: s.own_fill_completion,
            });
            fds.push(self.sockets[i].as_raw_fd());
            if s.rx {
                let queue = self.dep.monitor.interfaces[s.iface].queue;
                let sock = self.sockets[i].as_raw_fd();
                if let Some(x) = self.xdp[s.iface].as_mut() {
                    x.insert_socket(queue, sock).map_err(|e| e.to_string())?;
                }
            }
        }
        for (w, fd) in self.wakes.iter().enumerate() {
            roles.push(FdRole::Wake { nf: w });
            fds.push(fd.as_raw_fd());
        }
        self.fabric
            .pid(nf)
            .store(cred.pid as u64, Ordering::Release);
        self.watch[nf] = pidfd(cred.pid);
        self.attached_once[nf] = true;
        self.launched[nf] = None;
        Ok((Grant { nf, fds: roles }, fds, ro_fds))
    }

    /// NF `nf`'s host process exited (killed or detached): take its RX
    /// sockets out of the XSKMAPs, so frames stop piling up in sockets
    /// nobody drains (a restarted host puts them back when it attaches), and
    /// recover what it left half-done in the shared rings. Returns a log line.
    fn nf_gone(&mut self, nf: usize) -> String {
        let mut notes = vec![];
        for s in self.topo.sockets.iter().filter(|s| s.nf == nf && s.rx) {
            let queue = self.dep.monitor.interfaces[s.iface].queue;
            if let Some(x) = self.xdp[s.iface].as_mut() {
                match x.remove_socket(queue) {
                    Ok(()) => notes.push(format!(
                        "XSKMAP[{queue}] of {} cleared",
                        self.dep.monitor.interfaces[s.iface].ifname
                    )),
                    Err(e) => notes.push(e.to_string()),
                }
            }
        }
        self.watch[nf] = None;
        self.conns[nf] = None;
        self.fabric.mode(nf).store(4, Ordering::Relaxed);
        let rec = crate::links::recover::recover_dead_nf(&self.fabric, &self.topo, &self.dep, nf);
        notes.push(rec.describe());
        let pid = self.fabric.pid(nf).load(Ordering::Relaxed) as u32;
        let id = self.dep.nfs[nf].id.clone();
        let how = self.on_exit.as_mut().and_then(|hook| hook(&id, pid));
        format!(
            "NF `{id}` (pid {pid}) {}: {}",
            how.unwrap_or_else(|| "exited".to_string()),
            notes.join("; ")
        )
    }

    /// Stats: counters of every NF and link, kernel statistics of every socket.
    pub fn stats(&self) -> serde_json::Value {
        let d = &self.dep;
        let nfs: Vec<_> = d
            .nfs
            .iter()
            .enumerate()
            .map(|(i, nf)| {
                let counters: serde_json::Map<String, serde_json::Value> = self
                    .fabric
                    .nf_counters(i)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), json!(v)))
                    .collect();
                let mode = self.fabric.mode(i).load(Ordering::Relaxed) as usize;
                json!({
                    "id": nf.id,
                    "pid": self.fabric.pid(i).load(Ordering::Relaxed),
                    "mode": MODE_NAMES.get(mode).copied().unwrap_or("unknown"),
                    "group": self.topo.groups[self.topo.nf_group[i]].name,
                    "inbox_depth": self.fabric.inbox(i).len(),
                    "attached": self.watch[i].is_some() || self.conns[i].is_some(),
                    "free_frames": self.fabric.free_gauge(i).load(Ordering::Relaxed),
                    "counters": counters,
                })
            })
            .collect();
        let name_src = |s: LinkSource| match s {
            LinkSource::Iface(i) => format!("iface:{}", d.monitor.interfaces[i].name),
            LinkSource::Nf { nf, port } => format!("{}:{port}", d.nfs[nf].id),
        };
        let name_dst = |s: LinkDest| match s {
            LinkDest::Iface(i) => format!("iface:{}", d.monitor.interfaces[i].name),
            LinkDest::Nf { nf, port } => format!("{}:{port}", d.nfs[nf].id),
        };
        let links: Vec<_> = self
            .topo
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let counters: serde_json::Map<String, serde_json::Value> = LINK_COUNTERS
                    .iter()
                    .enumerate()
                    .map(|(c, k)| (k.to_string(), json!(self.fabric.link_counter(i, c).load(Ordering::Relaxed))))
                    .collect();
                let mode = match (l.source, l.dest) {
                    (LinkSource::Nf { .. }, LinkDest::Nf { .. }) => match l.mode {
                        LinkMode::ZeroCopy => "zero-copy",
                        LinkMode::SingleCopy => "single-copy",
                    },
                    _ => "af_xdp",
                };
                json!({"from": name_src(l.source), "to": name_dst(l.dest), "mode": mode, "counters": counters})
            })
            .collect();
        let sockets: Vec<_> = self
            .topo
            .sockets
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let st = xdp_statistics(self.sockets[i].as_raw_fd());
                json!({
                    "nf": d.nfs[s.nf].id,
                    "iface": d.monitor.interfaces[s.iface].name,
                    "ifname": d.monitor.interfaces[s.iface].ifname,
                    "rx": s.rx, "tx": s.tx,
                    "kernel": st.map(|st| json!({
                        "rx_dropped": st.rx_dropped,
                        "rx_invalid_descs": st.rx_invalid_descs,
                        "tx_invalid_descs": st.tx_invalid_descs,
                        "rx_ring_full": st.rx_ring_full,
                        "rx_fill_ring_empty_descs": st.rx_fill_ring_empty_descs,
                        "tx_ring_empty_descs": st.tx_ring_empty_descs,
                    })),
                })
            })
            .collect();
        let xdp: Vec<_> = self
            .xdp_modes()
            .into_iter()
            .map(|(i, m)| json!({"ifname": i, "mode": m}))
            .collect();
        json!({"name": d.name, "nfs": nfs, "links": links, "sockets": sockets, "xdp": xdp})
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket_path);
        // XDP programs detach when their links drop (field drop order).
        for x in self.xdp.iter_mut() {
            x.take();
        }
    }
}

/// A pidfd for `pid` (None if the process is already gone or pidfds are
/// unavailable; the NF is then simply not watched).
fn pidfd(pid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open(pid, 0) has no memory arguments.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a fresh fd on success.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// How the child behind `pidfd` ended, read without reaping it (its parent
/// still waits for it): `exited with status N` or `was killed by signal N`.
fn exit_status(pidfd: RawFd) -> String {
    // SAFETY: zeroed siginfo_t is a valid out-parameter.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-parameter; WNOWAIT leaves the child to its owner.
    let rc = unsafe {
        libc::waitid(
            libc::P_PIDFD,
            pidfd as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOWAIT | libc::WNOHANG,
        )
    };
    // SAFETY: si_status is valid for SIGCHLD-type siginfo filled by waitid.
    let status = unsafe { info.si_status() };
    match (rc, info.si_code) {
        (0, libc::CLD_EXITED) => format!("exited with status {status}"),
        (0, libc::CLD_KILLED | libc::CLD_DUMPED) => format!("was killed by signal {status}"),
        _ => "exited".to_string(),
    }
}

fn xdp_statistics(fd: RawFd) -> Option<libc::xdp_statistics> {
    // SAFETY: zeroed struct is a valid out-parameter.
    let mut st: libc::xdp_statistics = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::xdp_statistics>() as libc::socklen_t;
    // SAFETY: valid out-parameters.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_XDP,
            libc::XDP_STATISTICS,
            (&mut st as *mut libc::xdp_statistics).cast(),
            &mut len,
        )
    };
    (rc == 0).then_some(st)
}

fn set_timeout(fd: RawFd, secs: i64) {
    let tv = libc::timeval {
        tv_sec: secs,
        tv_usec: 0,
    };
    for opt in [libc::SO_RCVTIMEO, libc::SO_SNDTIMEO] {
        // SAFETY: tv is a valid timeval.
        unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                opt,
                (&tv as *const libc::timeval).cast(),
                std::mem::size_of::<libc::timeval>() as u32,
            )
        };
    }
}

/// Bind and listen on the monitor socket, refusing to steal a live one.
fn listen(path: &std::path::Path, mode: u32) -> Result<OwnedFd> {
    use std::os::unix::fs::PermissionsExt;
    if path.exists() {
        if protocol::request(path, &Request::Stats).is_ok() {
            return Err(FlashError::Refused(format!(
                "another monitor is already serving {}",
                path.display()
            )));
        }
        let _ = std::fs::remove_file(path);
    }
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() && !dir.exists() {
            std::fs::create_dir_all(dir).map_err(|source| FlashError::Sys {
                what: format!("create {}", dir.display()),
                source,
            })?;
        }
    }
    let sock = protocol::seqpacket_socket()?;
    let addr = protocol::unix_addr(path)?;
    // SAFETY: addr is a valid sockaddr_un.
    if unsafe {
        libc::bind(
            sock.as_raw_fd(),
            (&addr as *const libc::sockaddr_un).cast(),
            std::mem::size_of::<libc::sockaddr_un>() as u32,
        )
    } != 0
    {
        return Err(FlashError::last_os(format!(
            "bind monitor socket {}",
            path.display()
        )));
    }
    // SAFETY: listen on our bound socket.
    if unsafe { libc::listen(sock.as_raw_fd(), 64) } != 0 {
        return Err(FlashError::last_os("listen on monitor socket"));
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|source| {
        FlashError::Sys {
            what: format!("chmod {}", path.display()),
            source,
        }
    })?;
    Ok(sock)
}
