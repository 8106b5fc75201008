//! The NF host's sandbox with real namespaces, veths and XDP: an NF whose
//! packet function tries socket(), openat() and execve() (fixture
//! `forbidden.c`) runs in a `flash-rt nf` host as uid 65534. Each call
//! must fail with EPERM inside the NF (the NF writes the results into the
//! frame), the frame must still come out of the chain, the host must say
//! on stderr which NF made which forbidden call, the monitor's stats must
//! count the refusals, and the host must run with NO_NEW_PRIVS and a
//! seccomp filter (/proc/<pid>/status). Skips loudly without root.

mod netns_common;

use netns_common::*;
use std::os::fd::AsRawFd;

const NOBODY: u32 = 65534;

fn be32(b: &[u8]) -> i32 {
    i32::from_be_bytes(b[..4].try_into().unwrap())
}

#[test]
fn netns_seccomp_refuses_and_reports_forbidden_syscalls() {
    if !root_or_skip("netns_seccomp_refuses_and_reports_forbidden_syscalls") {
        return;
    }
    let dir = open_tempdir();
    let so = build_fixture(dir.path(), "forbidden");
    let sock = dir.path().join("mon.sock");
    let dep = dir.path().join("deploy.yaml");
    std::fs::write(&dep, chain_yaml(1, true, &so, &sock, NOBODY, "vi1")).unwrap();
    let topo = Topo::new();
    quiet(&topo);
    let mut monitor = spawn_monitor(&topo.dut.name, &dep);
    let mut host = spawn_nf_host(&dep, "nf0");
    let pid = host.child.id();

    let got = in_netns(&topo.peer.name.clone(), || {
        let (tx, _) = packet_socket("vi0");
        let (rx, _) = packet_socket("vo0");
        let mut got = vec![];
        let mut buf = vec![0u8; 2048];
        for seq in 0..3u32 {
            let f = frame(seq);
            // SAFETY: sending our buffer on a bound packet socket.
            let rc = unsafe { libc::send(tx.as_raw_fd(), f.as_ptr().cast(), f.len(), 0) };
            assert_eq!(rc, f.len() as isize);
            // SAFETY: receiving into our buffer (10 s timeout).
            let n = unsafe { libc::recv(rx.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
            if n < 0 {
                break;
            }
            got.push(buf[..n as usize].to_vec());
        }
        got
    });
    assert_eq!(got.len(), 3, "frames lost: the host died or dropped them");
    for f in &got {
        for (i, call) in ["socket", "openat", "execve"].iter().enumerate() {
            let (ret, errno) = (be32(&f[18 + 8 * i..]), be32(&f[22 + 8 * i..]));
            assert_eq!(
                (ret, errno),
                (-1, libc::EPERM),
                "{call} inside the NF was not refused with EPERM"
            );
        }
    }
    let st = stats(&dep);
    assert!(
        st["nfs"][0]["counters"]["syscalls_refused"].as_u64() >= Some(9),
        "refusals not counted: {st:#}"
    );
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("host alive");
    assert!(status.contains("NoNewPrivs:\t1"), "{status}");
    assert!(status.contains("Seccomp:\t2"), "{status}");

    let exit = host.stop();
    assert!(exit.success(), "host exit {exit:?}");
    let err = stderr_of(&mut host);
    for (name, nr) in [
        ("socket", libc::SYS_socket),
        ("openat", libc::SYS_openat),
        ("execve", libc::SYS_execve),
    ] {
        let line = format!("NF `nf0`: refused system call {name} ({nr}): an NF host may only use the packet path (the call failed with EPERM)");
        assert_eq!(
            err.matches(&line).count(),
            1,
            "want `{line}` once (reported once per call) in:\n{err}"
        );
    }
    assert!(monitor.stop().success());
}
