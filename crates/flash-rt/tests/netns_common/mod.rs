//! Shared harness for flash-rt's namespace tests: network-namespace and veth
//! guards that clean up on drop (also when a test panics), child-process
//! guards for the monitor and NF hosts, an AF_PACKET sender/receiver opened
//! inside a namespace, and helpers that build the test NF and deployments.
//! Tests call [`root_or_skip`] first: without root (or netns support) they
//! print `SKIPPED: needs root` and pass.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// The `flash-rt` binary (empty where this harness is used outside the
/// flash-rt crate, e.g. by nfc's own tests, which run `nfc` instead).
pub const BIN: &str = match option_env!("CARGO_BIN_EXE_flash-rt") {
    Some(b) => b,
    None => "",
};
pub const ETHERTYPE: u16 = 0x88b5;

static SEQ: AtomicU32 = AtomicU32::new(0);

/// A unique short tag for names in this test process.
pub fn tag() -> String {
    format!(
        "{}x{}",
        std::process::id() % 100_000,
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

/// True when the test can run; otherwise prints a loud skip line.
pub fn root_or_skip(test: &str) -> bool {
    // SAFETY: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: needs root ({test}: network namespaces, veth, XDP)");
        return false;
    }
    let probe = format!("nfcprobe{}", tag());
    let ok = Command::new("ip")
        .args(["netns", "add", &probe])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if ok {
        let _ = Command::new("ip").args(["netns", "del", &probe]).status();
        true
    } else {
        eprintln!("SKIPPED: needs root with netns support ({test}: `ip netns add` failed)");
        false
    }
}

/// Run `ip ARGS`, which must succeed.
pub fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A network namespace deleted on drop.
pub struct NetNs {
    pub name: String,
}

impl NetNs {
    pub fn new(name: String) -> NetNs {
        ip(&["netns", "add", &name]);
        let ns = NetNs { name };
        ip(&["-n", &ns.name, "link", "set", "lo", "up"]);
        ns
    }
}

impl Drop for NetNs {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
    }
}

/// Whether a namespace of that name still exists.
pub fn netns_exists(name: &str) -> bool {
    Path::new("/run/netns").join(name).exists()
}

/// Two namespaces joined by two veth pairs: peer `vi0` <-> dut `vi1`
/// (ingress) and dut `vo1` <-> peer `vo0` (egress).
pub struct Topo {
    // Field order: children die before namespaces go.
    pub dut: NetNs,
    pub peer: NetNs,
}

impl Topo {
    pub fn new() -> Topo {
        let t = tag();
        let dut = NetNs::new(format!("nfcdut{t}"));
        let peer = NetNs::new(format!("nfcpeer{t}"));
        for (a, b) in [("vi0", "vi1"), ("vo0", "vo1")] {
            ip(&[
                "-n", &peer.name, "link", "add", a, "type", "veth", "peer", "name", b, "netns",
                &dut.name,
            ]);
            ip(&["-n", &peer.name, "link", "set", a, "up"]);
            ip(&["-n", &dut.name, "link", "set", b, "up"]);
        }
        Topo { dut, peer }
    }

    /// `ip link show` of a DUT interface.
    pub fn dut_link(&self, ifname: &str) -> String {
        let out = Command::new("ip")
            .args(["-n", &self.dut.name, "link", "show", ifname])
            .output()
            .expect("ip");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// A child process killed (SIGTERM, then waited for) on drop.
pub struct Proc {
    pub child: Child,
    pub what: String,
}

impl Proc {
    /// Send SIGTERM and wait; returns the exit status.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        // SAFETY: signalling our own child by pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.child.wait().expect("wait child")
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}

/// Spawn `cmd` with stdout piped and wait for its first line (its `ready`
/// line); returns the process and the line ("" if it exited first).
/// Start `flash-rt nf <dep> <id>` as uid/gid 65534 and wait until it says
/// it is ready (attached); panics with its stderr otherwise.
pub fn spawn_nf_host(dep: &Path, id: &str) -> Proc {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(BIN);
    cmd.arg("nf").arg(dep).arg(id).uid(65534).gid(65534);
    let (mut p, line) = spawn_ready(cmd, id);
    assert!(
        line.contains("ready"),
        "{id} did not start: {line}{}",
        stderr_of(&mut p)
    );
    p
}

pub fn spawn_ready(mut cmd: Command, what: &str) -> (Proc, String) {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    let stdout: ChildStdout = child.stdout.take().expect("piped");
    let mut line = String::new();
    let _ = BufReader::new(stdout).read_line(&mut line);
    (
        Proc {
            child,
            what: what.to_string(),
        },
        line,
    )
}

/// Collect the stderr of a finished process.
/// Start `flash-rt monitor <dep>` in namespace `ns` and wait for its ready
/// line; panics with the monitor's stderr when it does not come up.
pub fn spawn_monitor(ns: &str, dep: &std::path::Path) -> Proc {
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", ns, BIN, "monitor"]).arg(dep);
    let (mut monitor, line) = spawn_ready(cmd, "monitor");
    assert!(
        line.contains("monitor ready"),
        "monitor did not start: {line}{}",
        stderr_of(&mut monitor)
    );
    monitor
}

pub fn stderr_of(p: &mut Proc) -> String {
    use std::io::Read;
    let mut s = String::new();
    if let Some(mut e) = p.child.stderr.take() {
        let _ = e.read_to_string(&mut s);
    }
    s
}

/// Run `f` inside network namespace `ns` (on a helper thread: setns only
/// moves the calling thread) and return its result.
pub fn in_netns<T: Send + 'static>(ns: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    spawn_in_netns(ns, f).join().expect("netns thread")
}

/// Start `f` on a thread inside network namespace `ns`.
pub fn spawn_in_netns<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> std::thread::JoinHandle<T> {
    let path = format!("/run/netns/{ns}");
    std::thread::spawn(move || {
        let file = std::fs::File::open(&path).expect("open netns");
        // SAFETY: setns on a namespace fd for this thread only.
        assert_eq!(
            unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) },
            0,
            "setns"
        );
        f()
    })
}

/// An AF_PACKET socket bound to `ifname` for our test ethertype.
pub fn packet_socket(ifname: &str) -> (OwnedFd, i32) {
    packet_socket_for(ifname, ETHERTYPE)
}

/// An AF_PACKET socket bound to `ifname` that sees frames of `ethertype` only,
/// with a receive timeout that bounds a failing test.
pub fn packet_socket_for(ifname: &str, ethertype: u16) -> (OwnedFd, i32) {
    let proto = ethertype.to_be() as i32;
    // SAFETY: plain socket() call.
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, proto) };
    assert!(
        fd >= 0,
        "AF_PACKET socket: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: fresh fd.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let c = std::ffi::CString::new(ifname).unwrap();
    // SAFETY: valid C string.
    let idx = unsafe { libc::if_nametoindex(c.as_ptr()) } as i32;
    assert!(idx > 0, "no {ifname}");
    // SAFETY: zeroed sockaddr_ll is valid.
    let mut sa: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sa.sll_family = libc::AF_PACKET as u16;
    sa.sll_protocol = ethertype.to_be();
    sa.sll_ifindex = idx;
    // SAFETY: valid sockaddr_ll.
    let rc = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&sa as *const libc::sockaddr_ll).cast(),
            std::mem::size_of::<libc::sockaddr_ll>() as u32,
        )
    };
    assert_eq!(rc, 0, "bind AF_PACKET: {}", std::io::Error::last_os_error());
    // The timeout only bounds a failing test.
    set_recv_timeout(&fd, 10);
    (fd, idx)
}

pub const SRC_MAC: [u8; 6] = [0x02, 0xaa, 0, 0, 0, 1];
pub const DST_MAC: [u8; 6] = [0x02, 0xbb, 0, 0, 0, 1];

/// A test frame carrying `seq`.
pub fn frame(seq: u32) -> Vec<u8> {
    let mut f = vec![0u8; 64];
    f[0..6].copy_from_slice(&DST_MAC);
    f[6..12].copy_from_slice(&SRC_MAC);
    f[12..14].copy_from_slice(&ETHERTYPE.to_be_bytes());
    f[14..18].copy_from_slice(&seq.to_be_bytes());
    for (i, b) in f[18..].iter_mut().enumerate() {
        *b = (seq as usize + i) as u8;
    }
    f
}

/// Send the test frames numbered `seqs` on `tx`.
pub fn send(tx: &OwnedFd, seqs: impl Iterator<Item = u32>) {
    for seq in seqs {
        let f = frame(seq);
        // SAFETY: sending our buffer on a bound packet socket.
        let rc = unsafe { libc::send(tx.as_raw_fd(), f.as_ptr().cast(), f.len(), 0) };
        assert_eq!(
            rc,
            f.len() as isize,
            "send: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// Send `n` frames on `tx` with at most `window` in flight, receiving on
/// `rx`; returns the frames received (in arrival order), stopping early if
/// a receive times out.
pub fn exchange(tx: &OwnedFd, rx: &OwnedFd, n: u32, window: u32) -> Vec<Vec<u8>> {
    let mut got = vec![];
    let mut sent = 0u32;
    let mut buf = vec![0u8; 2048];
    while (got.len() as u32) < n {
        while sent < n && sent - got.len() as u32 <= window {
            send(tx, sent..sent + 1);
            sent += 1;
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

/// Build the test L2fwd NF into `dir`.
pub fn build_l2fwd(dir: &Path) -> PathBuf {
    build_fixture(dir, "l2fwd")
}

/// Build the test NF `tests/netns_fixtures/<name>.c` into `dir`.
pub fn build_fixture(dir: &Path, name: &str) -> PathBuf {
    let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/crates/flash-rt"));
    let manifest = if manifest.is_dir() {
        manifest.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
    };
    let src = manifest.join(format!("tests/netns_fixtures/{name}.c"));
    let inc = manifest.join("../../nfs/include");
    let out = dir.join(format!("{name}.so"));
    let st = Command::new("clang-19")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg("-I")
        .arg(&inc)
        .arg(&src)
        .status()
        .expect("run clang-19");
    assert!(st.success(), "build {name}");
    out
}

/// A world-readable temp dir (NF hosts run as nobody).
pub fn open_tempdir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    d
}

/// MACs NF `i` writes.
pub fn nf_macs(i: usize) -> ([u8; 6], [u8; 6]) {
    (
        [0x02, 0, 0, 0, 0x10, i as u8],
        [0x02, 0, 0, 0, 0x20, i as u8],
    )
}

fn mac_str(m: [u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// A deployment YAML for a chain of `k` L2fwd NFs between `in` and `out`,
/// all in one UMEM group (zero-copy) or each in its own (single-copy).
pub fn chain_yaml(
    k: usize,
    zero_copy: bool,
    so: &Path,
    sock: &Path,
    uid: u32,
    in_ifname: &str,
) -> String {
    chain_yaml_with(
        k,
        zero_copy,
        so,
        sock,
        uid,
        in_ifname,
        "polling: {never_busy: true}",
    )
}

/// [`chain_yaml`] with `nf_keys` (YAML flow-map entries, e.g. polling and
/// cpus) on every NF instead of never-busy polling.
pub fn chain_yaml_with(
    k: usize,
    zero_copy: bool,
    so: &Path,
    sock: &Path,
    uid: u32,
    in_ifname: &str,
    nf_keys: &str,
) -> String {
    let mut y = format!(
        "version: 1\nname: chain{k}\nmonitor:\n  socket: {}\n  xdp_mode: auto\n  interfaces:\n    - {{name: in, ifname: {in_ifname}}}\n    - {{name: out, ifname: vo1}}\nnfs:\n",
        sock.display()
    );
    for i in 0..k {
        let (d, s) = nf_macs(i);
        y += &format!(
            "  - {{id: nf{i}, object: {}, uid: {uid}, gid: {uid}, frames: 1024, config: {{dst_mac: \"{}\", src_mac: \"{}\"}}, {nf_keys}}}\n",
            so.display(),
            mac_str(d),
            mac_str(s)
        );
    }
    if zero_copy {
        y += &format!(
            "groups:\n  - {{name: chain, nfs: [{}]}}\n",
            (0..k)
                .map(|i| format!("nf{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    y += "links:\n  - {from: {iface: in}, to: {nf: nf0}}\n";
    for i in 1..k {
        y += &format!(
            "  - {{from: {{nf: nf{}}}, to: {{nf: nf{i}}}, mode: {}}}\n",
            i - 1,
            if zero_copy {
                "zero-copy"
            } else {
                "single-copy"
            }
        );
    }
    y += &format!("  - {{from: {{nf: nf{}}}, to: {{iface: out}}}}\n", k - 1);
    y
}

/// Turn IPv6 off in both namespaces so the kernels' neighbour discovery
/// does not inject frames into the chain.
pub fn quiet(topo: &Topo) {
    disable_ipv6(&topo.dut.name);
    disable_ipv6(&topo.peer.name);
}

/// Turn IPv6 off in namespace `ns`.
pub fn disable_ipv6(ns: &str) {
    let st = Command::new("ip")
        .args([
            "netns",
            "exec",
            ns,
            "sysctl",
            "-qw",
            "net.ipv6.conf.all.disable_ipv6=1",
            "net.ipv6.conf.default.disable_ipv6=1",
        ])
        .status()
        .expect("sysctl");
    assert!(st.success(), "disable IPv6 in {ns}");
}

/// Make blocking receives on `fd` give up after `secs` seconds.
pub fn set_recv_timeout(fd: &OwnedFd, secs: i64) {
    let tv = libc::timeval {
        tv_sec: secs as libc::time_t,
        tv_usec: 0,
    };
    // SAFETY: valid timeval of the size passed, on an open socket.
    unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&tv as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as u32,
        )
    };
}

/// The monitor's stats JSON through `flash-rt stats`.
pub fn stats(dep: &Path) -> serde_json::Value {
    let out = Command::new(BIN).arg("stats").arg(dep).output().unwrap();
    assert!(
        out.status.success(),
        "stats: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stats is JSON")
}
