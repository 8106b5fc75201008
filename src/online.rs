//! Running an emitted flash deployment on line (`nfc run <deployment dir>`):
//! the privileged monitor in this process, one unprivileged NF host process
//! per NF (`<host_exe> nf-host <deployment> <nf>`, started as the uid/gid the
//! deployment names, so the monitor's SO_PEERCRED check admits it), until the
//! caller's stop fd becomes readable; then the hosts are stopped and the
//! monitor detaches its XDP programs and removes its socket.
//!
//! Everything that would fail later for a reason the operator can fix is
//! checked first and reported as a diagnostic: not root, a deployment that
//! does not load, files the NF user cannot read, interfaces that do not
//! exist. An NF whose host exits before attaching (reported at once, with
//! its exit status and the tail of its stderr) or that has not attached by
//! the attach deadline stops the run with E0606 after everything is torn
//! down. Nothing here prints; progress goes through the `log` callback (the
//! hosts' own stdout and stderr are passed through to this process's stderr).
//!
//! A host that dies while the chain runs is reaped at once (the monitor
//! reports it through [`Monitor::on_host_exit`]), so the operator can
//! restart that NF with `nfc nf-host <deployment.json> <nf>` as its user;
//! the restarted host is not our child, and it exits by itself when this
//! process (the monitor) goes away.

use crate::Failure;
use flash_rt::deploy::{Deployment, Placement};
use flash_rt::monitor::{Monitor, MonitorError, MonitorOptions, DEFAULT_ATTACH_TIMEOUT};
use nfc_core::Diagnostic;
use serde::Serialize;
use std::cell::RefCell;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How to run a deployment.
#[derive(Debug, Clone)]
pub struct OnlineOptions {
    /// The executable that hosts one NF when run as `<host_exe> nf-host
    /// <deployment> <nf>` (the `nfc` binary itself).
    pub host_exe: PathBuf,
    /// Bind AF_XDP sockets with XDP_ZEROCOPY (drivers that support it; not veth).
    pub zerocopy: bool,
    /// How long NF hosts get to exit after SIGTERM before SIGKILL.
    pub stop_grace: Duration,
    /// Every NF must attach to the monitor within this long of the monitor
    /// starting to serve (None: wait forever).
    pub attach_timeout: Option<Duration>,
    /// How NF hosts are placed on the CPUs this process may use when the
    /// deployment pins none itself (default: [`Placement::Auto`]).
    pub placement: Placement,
}

impl OnlineOptions {
    pub fn new(host_exe: PathBuf) -> Self {
        OnlineOptions {
            host_exe,
            zerocopy: false,
            stop_grace: Duration::from_secs(3),
            attach_timeout: Some(DEFAULT_ATTACH_TIMEOUT),
            placement: Placement::Auto,
        }
    }
}

/// What a finished run leaves: the monitor's final counters and how each NF
/// host ended.
#[derive(Debug, Clone, Serialize)]
pub struct OnlineReport {
    pub deployment: String,
    /// The monitor's stats (per NF and link), as `flash-rt stats` prints them.
    pub stats: serde_json::Value,
    /// Per NF host: its id and how it ended (`exit 0`, `signal 15`, ...).
    pub hosts: Vec<(String, String)>,
}

/// The deployment file a path names: the file itself, or `deployment.json`
/// inside a directory written by `nfc build --target flash`.
pub fn deployment_file(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        let f = path.join("deployment.json");
        return f.is_file().then_some(f);
    }
    (path.extension().is_some_and(|e| e == "json") && path.is_file()).then(|| path.to_path_buf())
}

/// Run the deployment at `path` until `stop` is readable.
pub fn run_deployment(
    path: &Path,
    opts: &OnlineOptions,
    stop: BorrowedFd<'_>,
    log: &mut dyn FnMut(String),
) -> Result<OnlineReport, Failure> {
    let file = deployment_file(path).ok_or_else(|| {
        Failure::diag(
            Diagnostic::error(
                "E0600",
                format!("{} is not a flash deployment", path.display()),
            )
            .with_hint("give the directory `nfc build --target flash -o DIR` wrote, or its deployment.json"),
        )
    })?;
    // SAFETY: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        return Err(Failure::diag(
            Diagnostic::error(
                "E0601",
                "running a flash deployment needs root: the monitor attaches XDP programs and creates AF_XDP sockets",
            )
            .with_hint("run `nfc run` as root (the NF hosts still run unprivileged, as the deployment's uid)"),
        ));
    }
    let dep = Deployment::load(&file).map_err(|e| {
        Failure::diag(
            Diagnostic::error("E0602", e.to_string())
                .with_hint("re-emit it with `nfc build <chain.yaml> --target flash -o DIR`"),
        )
    })?;
    check_readable_by_nf_users(&dep, &file)?;
    let mut monitor = Monitor::setup(
        dep.clone(),
        &MonitorOptions {
            zerocopy: opts.zerocopy,
            attach_timeout: opts.attach_timeout,
            ..MonitorOptions::default()
        },
    )
    .map_err(|e| {
        Failure::diag(
            Diagnostic::error("E0603", format!("the monitor cannot set up `{}`: {e}", dep.name))
                .with_hint("check that the deployment's interfaces exist in this network namespace (`ip link`) and that no other XDP program holds them"),
        )
    })?;
    log(format!(
        "monitor ready: {} NFs, socket {}, xdp [{}]",
        dep.nfs.len(),
        dep.monitor.socket.display(),
        monitor
            .xdp_modes()
            .into_iter()
            .map(|(i, m)| format!("{i}={m}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    // FLASH runs each NF on a core of its own: so does the default where
    // the CPUs allow (a CPU left over for the rest); otherwise the
    // scheduler places them (docs/targets/flash.md: the measurements).
    let deployment_pins = dep.nfs.iter().any(|n| !n.cpus.is_empty());
    let cpus = flash_rt::host::allowed_cpus();
    let pinning: Option<Vec<u32>> = if deployment_pins {
        None
    } else {
        opts.placement.cpus_for(&dep, &cpus)
    };
    if let Some(p) = &pinning {
        log(format!(
            "pinning NF hosts: {}",
            dep.nfs
                .iter()
                .zip(p)
                .map(|(n, c)| format!("{}@cpu{c}", n.id))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    } else if deployment_pins {
        log("NF hosts pinned as the deployment says (`cpus`)".into());
    } else if opts.placement == Placement::Auto {
        log(format!(
            "not pinning NF hosts: {} hosts on {} CPUs, the scheduler places them",
            dep.nfs.len(),
            cpus.len()
        ));
    }
    let hosts: Rc<RefCell<Vec<Host>>> = Rc::new(RefCell::new(vec![]));
    let mut tails: Vec<(String, StderrTail)> = vec![];
    for nf in &dep.nfs {
        match spawn_host(opts, &file, &nf.id, nf.uid, nf.gid, pinning.as_deref()) {
            Ok((child, tail)) => {
                log(format!("started NF `{}` (pid {})", nf.id, child.id()));
                let watched = monitor.watch_host(&nf.id, child.id());
                hosts.borrow_mut().push(Host {
                    id: nf.id.clone(),
                    pid: child.id(),
                    child: Some(child),
                    ended: None,
                });
                tails.push((nf.id.clone(), tail));
                if let Err(e) = watched {
                    stop_hosts(&mut hosts.borrow_mut(), opts.stop_grace);
                    return Err(Failure::Internal {
                        stage: "flash monitor",
                        message: e.to_string(),
                    });
                }
            }
            Err(e) => {
                stop_hosts(&mut hosts.borrow_mut(), opts.stop_grace);
                return Err(Failure::io(
                    format!(
                        "starting the host of NF `{}` ({})",
                        nf.id,
                        opts.host_exe.display()
                    ),
                    e,
                ));
            }
        }
    }
    // A host that dies while the chain runs is reaped the moment the
    // monitor sees it gone, so its NF can be restarted (`nfc nf-host`) and
    // no zombie waits for the end of the run.
    {
        let hosts = hosts.clone();
        monitor.on_host_exit(Box::new(move |_nf, pid| {
            let mut hosts = hosts.borrow_mut();
            let h = hosts
                .iter_mut()
                .find(|h| h.pid == pid && h.child.is_some())?;
            let child = h.child.as_mut()?;
            // The monitor saw its pidfd readable or its connection hang
            // up: it has exited or is in exit; wait briefly for the status.
            let deadline = Instant::now() + Duration::from_secs(1);
            loop {
                match child.try_wait() {
                    Ok(Some(status)) => {
                        let how = describe_status(Some(status));
                        h.ended = Some(how.clone());
                        h.child = None;
                        return Some(format!("ended ({how}; reaped)"));
                    }
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    _ => return None,
                }
            }
        }));
    }
    let served = monitor.run(stop, log);
    let outcomes = stop_hosts(&mut hosts.borrow_mut(), opts.stop_grace);
    let stats = monitor.stats();
    drop(monitor);
    log("monitor stopped, XDP detached".into());
    // Every host has exited, so each tail is complete once its reader ends.
    let tails: Vec<(String, Vec<String>)> =
        tails.into_iter().map(|(id, t)| (id, t.finish())).collect();
    served.map_err(|e| attach_failure(e, &dep, &tails))?;
    Ok(OnlineReport {
        deployment: dep.name.clone(),
        stats,
        hosts: outcomes,
    })
}

/// The diagnostic for a run that ended because NFs did not attach (E0606),
/// with the last stderr lines of the hosts concerned; other monitor errors
/// are internal.
fn attach_failure(e: MonitorError, dep: &Deployment, tails: &[(String, Vec<String>)]) -> Failure {
    let with_tail = |mut d: Diagnostic, nf: &str| {
        if let Some((_, lines)) = tails.iter().find(|(id, _)| id == nf) {
            if !lines.is_empty() {
                d = d.with_note(format!(
                    "last stderr of NF `{nf}`'s host:\n    {}",
                    lines.join("\n    ")
                ));
            }
        }
        d
    };
    let user_of = |nf: &str| {
        dep.nfs
            .iter()
            .find(|n| n.id == nf)
            .and_then(|n| n.uid)
            .map_or("root".to_string(), |u| format!("uid {u}"))
    };
    match e {
        MonitorError::HostExited { ref nf, .. } => {
            // The hint says what the host's own error says went wrong.
            let tail = tails
                .iter()
                .find(|(id, _)| id == nf)
                .map(|(_, l)| l.join("\n"))
                .unwrap_or_default();
            let hint = if tail.contains("cannot reach the monitor") {
                format!(
                    "the host runs as {} and cannot reach the monitor socket {}: every directory above it needs search (x) permission for that user",
                    user_of(nf),
                    dep.monitor.socket.display()
                )
            } else if tail.contains("nf_init failed")
                || tail.contains("cannot load")
                || tail.contains("shared object")
                || tail.contains("ABI version")
            {
                format!("NF `{nf}`'s object failed to load or initialise: fix the NF or its configuration and rebuild the deployment")
            } else if tail.contains("must run as") {
                format!(
                    "the monitor refused the host's user: the deployment runs NF `{nf}` as {}",
                    user_of(nf)
                )
            } else {
                format!(
                    "the host runs as {}: it must be able to reach the monitor socket {} and load its NF; its stderr says what failed",
                    user_of(nf),
                    dep.monitor.socket.display()
                )
            };
            let d = Diagnostic::error("E0606", e.to_string()).with_hint(hint);
            Failure::diag(with_tail(d, nf))
        }
        MonitorError::NeverAttached { ref nfs, .. } => {
            let mut d = Diagnostic::error("E0606", e.to_string()).with_hint(
                "a host that is alive but never attaches is stuck before connecting (e.g. in its NF's init); see its stderr",
            );
            for p in nfs.clone() {
                d = with_tail(d, &p.id);
            }
            Failure::diag(d)
        }
        MonitorError::Flash(e) => Failure::Internal {
            stage: "flash monitor",
            message: e.to_string(),
        },
    }
}

/// The stderr of an NF host, passed through to this process's stderr by a
/// reader thread that keeps the last bytes for diagnostics.
struct StderrTail {
    kept: Arc<Mutex<Vec<u8>>>,
    reader: JoinHandle<()>,
}

/// Bytes of a host's stderr kept for diagnostics.
const TAIL_BYTES: usize = 4096;
/// Lines of it shown in a diagnostic.
const TAIL_LINES: usize = 6;

impl StderrTail {
    fn start(mut from: std::process::ChildStderr) -> std::io::Result<StderrTail> {
        let mut to = std::fs::File::from(std::io::stderr().as_fd().try_clone_to_owned()?);
        let kept = Arc::new(Mutex::new(Vec::new()));
        let keep = kept.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = from.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let _ = to.write_all(&buf[..n]);
                if let Ok(mut k) = keep.lock() {
                    k.extend_from_slice(&buf[..n]);
                    let excess = k.len().saturating_sub(TAIL_BYTES);
                    k.drain(..excess);
                }
            }
        });
        Ok(StderrTail { kept, reader })
    }

    /// Wait for the host's stderr to close; its last non-empty lines.
    fn finish(self) -> Vec<String> {
        let _ = self.reader.join();
        let kept = self.kept.lock().map(|k| k.clone()).unwrap_or_default();
        let text = String::from_utf8_lossy(&kept);
        let lines: Vec<String> = text
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect();
        lines[lines.len().saturating_sub(TAIL_LINES)..].to_vec()
    }
}

/// Start one NF host as the deployment's user for it, its stdout going to
/// our stderr (stdout stays for results) and its stderr through a
/// [`StderrTail`].
fn spawn_host(
    opts: &OnlineOptions,
    file: &Path,
    nf: &str,
    uid: Option<u32>,
    gid: Option<u32>,
    pinning: Option<&[u32]>,
) -> std::io::Result<(Child, StderrTail)> {
    let mut cmd = Command::new(&opts.host_exe);
    cmd.arg("nf-host").arg(file).arg(nf);
    if let Some(p) = pinning {
        let list: Vec<String> = p.iter().map(u32::to_string).collect();
        cmd.arg("--pinning").arg(list.join(","));
    }
    cmd.stdin(Stdio::null());
    cmd.stdout(Stdio::from(std::io::stderr().as_fd().try_clone_to_owned()?));
    cmd.stderr(Stdio::piped());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            flash_rt::signals::unblock_stop_signals();
            // Die with us rather than outlive a killed runner.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            if let Some(g) = gid {
                if libc::setgroups(0, std::ptr::null()) != 0 || libc::setgid(g) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if let Some(u) = uid {
                if libc::setuid(u) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    let tail = child
        .stderr
        .take()
        .ok_or_else(|| std::io::Error::other("the host's stderr is not a pipe"))
        .and_then(StderrTail::start);
    match tail {
        Ok(t) => Ok((child, t)),
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(e)
        }
    }
}

/// An NF host this process started.
struct Host {
    id: String,
    pid: u32,
    /// None once reaped.
    child: Option<Child>,
    /// How it ended, once reaped while the chain ran.
    ended: Option<String>,
}

/// `exit N` / `signal N`.
fn describe_status(status: Option<std::process::ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(c), _) => format!("exit {c}"),
            (None, Some(sig)) => format!("signal {sig}"),
            _ => "unknown".into(),
        },
        None => "unknown".into(),
    }
}

/// SIGTERM every host still running, wait up to `grace`, then SIGKILL
/// the rest; returns how each ended (hosts reaped earlier, while the chain
/// ran, as they ended then).
fn stop_hosts(hosts: &mut [Host], grace: Duration) -> Vec<(String, String)> {
    for h in hosts.iter() {
        if h.child.is_some() {
            // SAFETY: signalling our own, not yet reaped, child.
            unsafe { libc::kill(h.pid as i32, libc::SIGTERM) };
        }
    }
    let deadline = Instant::now() + grace;
    let mut out = vec![];
    for h in hosts.iter_mut() {
        let how = match h.child.as_mut() {
            None => format!(
                "{} while the chain ran",
                h.ended.clone().unwrap_or_else(|| "ended".into())
            ),
            Some(child) => {
                let status = loop {
                    match child.try_wait() {
                        Ok(Some(s)) => break Some(s),
                        Ok(None) if Instant::now() < deadline => {
                            std::thread::sleep(Duration::from_millis(20))
                        }
                        _ => {
                            let _ = child.kill();
                            break child.wait().ok();
                        }
                    }
                };
                h.child = None;
                describe_status(status)
            }
        };
        out.push((h.id.clone(), how));
    }
    out
}

/// NF hosts run as the deployment's uid: every file they open (the
/// deployment and each NF's object) must be reachable and readable by that
/// user, or the host fails after the monitor is already up.
fn check_readable_by_nf_users(dep: &Deployment, file: &Path) -> Result<(), Failure> {
    let mut diags = vec![];
    for nf in &dep.nfs {
        let Some(uid) = nf.uid else { continue };
        let gid = nf.gid.unwrap_or(uid);
        for path in [file, nf.object.as_path()] {
            if let Err(why) = readable_by(path, uid, gid) {
                diags.push(
                    Diagnostic::error(
                        "E0604",
                        format!(
                            "NF `{}` runs as uid {uid} but cannot read {}: {why}",
                            nf.id,
                            path.display()
                        ),
                    )
                    .with_hint("emit the deployment where that user can read it (e.g. under /srv or /tmp with mode 755), or relax the directory's permissions"),
                );
            }
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        diags.dedup_by(|a, b| a.message == b.message);
        Err(Failure::Diagnostics(diags))
    }
}

/// Whether `uid`/`gid` may traverse every ancestor of `path` and read it,
/// by the permission bits (the check the kernel makes for an unprivileged
/// user without ACLs).
fn readable_by(path: &Path, uid: u32, gid: u32) -> Result<(), String> {
    let path = path
        .canonicalize()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let allows = |meta: &std::fs::Metadata, bit: u32| {
        let mode = meta.mode();
        if meta.uid() == uid {
            mode & (bit << 6) != 0
        } else if meta.gid() == gid {
            mode & (bit << 3) != 0
        } else {
            mode & bit != 0
        }
    };
    for dir in path.ancestors().skip(1) {
        let meta = std::fs::metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if !allows(&meta, 0o1) {
            return Err(format!(
                "directory {} is not searchable by it",
                dir.display()
            ));
        }
    }
    let meta = std::fs::metadata(&path).map_err(|e| e.to_string())?;
    if !allows(&meta, 0o4) {
        return Err("the file is not readable by it".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn readability_follows_permission_bits() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("deployment.json");
        std::fs::write(&f, "{}").unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        // Someone else: the 0700 directory stops them.
        let other = 4_000_000;
        let err = readable_by(&f, other, other).unwrap_err();
        assert!(err.contains("not searchable"), "{err}");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        // /tmp's ancestors are searchable by everyone.
        if readable_by(dir.path(), other, other).is_ok() {
            assert_eq!(readable_by(&f, other, other), Ok(()));
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
            assert!(readable_by(&f, other, other).is_err());
        }
        // The owner reads through its own bits.
        let me = std::fs::metadata(&f).unwrap();
        assert_eq!(readable_by(&f, me.uid(), me.gid()), Ok(()));
    }

    #[test]
    fn deployment_file_accepts_dirs_and_json() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(deployment_file(dir.path()), None);
        let f = dir.path().join("deployment.json");
        std::fs::write(&f, "{}").unwrap();
        assert_eq!(deployment_file(dir.path()), Some(f.clone()));
        assert_eq!(deployment_file(&f), Some(f));
        assert_eq!(deployment_file(&dir.path().join("chain.yaml")), None);
    }
}
