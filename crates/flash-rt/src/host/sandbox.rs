//! The NF host's sandbox: once the host has loaded its NF, attached to the
//! monitor and set up its data path, it sets `PR_SET_NO_NEW_PRIVS` and
//! installs a seccomp filter (built with `seccompiler`) that allows only
//! the system calls of the packet path: memory management without new
//! executable mappings, poll/ppoll and the eventfd reads and writes that
//! sleep and wake NFs, `sendto`/`recvfrom` that kick AF_XDP rings,
//! sleeping, yielding, clocks, `sched_setscheduler` (SCHED_BATCH under
//! contention), reading the schedstat file already open, and exiting.
//! Everything else — creating sockets, opening files, exec, fork, signals
//! to other processes, ptrace, bpf — is refused.
//!
//! A refused call does not kill the host. The filter traps it
//! (`SECCOMP_RET_TRAP`); the SIGSYS handler makes the call return `EPERM`
//! to the NF and reports it on stderr once per system call, naming the NF
//! and the call, e.g.
//!
//! ```text
//! NF `bad`: refused system call socket (41): an NF host may only use the packet path (the call failed with EPERM)
//! ```
//!
//! [`refused`] counts the refusals. The filter applies to the calling
//! thread and the threads it starts later (none, in an NF host process).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The NF named in reports (set once per process, by the first host).
static NF_NAME: OnceLock<String> = OnceLock::new();
/// System calls reported so far (one bit per number below 512).
static SEEN: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];
/// Refused calls so far.
static REFUSED: AtomicU64 = AtomicU64::new(0);

/// How many system calls the sandbox refused in this process.
pub fn refused() -> u64 {
    REFUSED.load(Ordering::Relaxed)
}

/// Why the sandbox could not be entered.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// Building the filter failed (a bug in the rule set).
    #[error("building the seccomp filter: {0}")]
    Build(String),
    /// The kernel refused NO_NEW_PRIVS, the filter or the SIGSYS handler.
    #[error("installing the seccomp filter: {0}")]
    Install(String),
}

/// Enter the sandbox for NF `nf` on the calling thread: NO_NEW_PRIVS, the
/// SIGSYS reporter, then the packet-path seccomp filter.
#[cfg(target_arch = "x86_64")]
pub fn enter(nf: &str) -> Result<(), SandboxError> {
    let _ = NF_NAME.set(nf.to_string());
    let program = filter()?;
    // SAFETY: plain prctl; the filter below requires it for an
    // unprivileged process.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(SandboxError::Install(format!(
            "prctl(PR_SET_NO_NEW_PRIVS): {}",
            std::io::Error::last_os_error()
        )));
    }
    install_sigsys_handler()?;
    seccompiler::apply_filter(&program).map_err(|e| SandboxError::Install(e.to_string()))
}

/// Other architectures: no filter (the register that carries a system
/// call's result differs); the host runs with NO_NEW_PRIVS only.
#[cfg(not(target_arch = "x86_64"))]
pub fn enter(nf: &str) -> Result<(), SandboxError> {
    let _ = NF_NAME.set(nf.to_string());
    // SAFETY: plain prctl.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(SandboxError::Install(format!(
            "prctl(PR_SET_NO_NEW_PRIVS): {}",
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

/// The system calls the packet path makes, unconditionally allowed.
#[cfg(target_arch = "x86_64")]
const ALLOWED: &[libc::c_long] = &[
    // Reading and writing fds the host already holds: eventfds (sleep and
    // wake), stderr (reports), the schedstat file (pread).
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_readv,
    libc::SYS_writev,
    libc::SYS_pread64,
    libc::SYS_close,
    // Sleeping on the RX socket, the NF's eventfd, the stop signal and the
    // monitor connection.
    libc::SYS_poll,
    libc::SYS_ppoll,
    // AF_XDP TX/RX kicks on the sockets the monitor handed over.
    libc::SYS_sendto,
    libc::SYS_recvfrom,
    // Memory (the allocator); mmap and mprotect are allowed below only
    // without PROT_EXEC.
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_madvise,
    libc::SYS_brk,
    libc::SYS_futex,
    // Scheduling: yield when idle, throttle/coalescing sleeps, SCHED_BATCH
    // on a contended CPU.
    libc::SYS_sched_yield,
    libc::SYS_nanosleep,
    libc::SYS_clock_nanosleep,
    libc::SYS_sched_setscheduler,
    libc::SYS_sched_getscheduler,
    libc::SYS_sched_getaffinity,
    libc::SYS_getrusage,
    // Clocks (normally the vDSO) and identity.
    libc::SYS_clock_gettime,
    libc::SYS_clock_getres,
    libc::SYS_gettimeofday,
    libc::SYS_time,
    libc::SYS_getpid,
    libc::SYS_gettid,
    libc::SYS_getrandom,
    // Signals: returning from the SIGSYS reporter, masks.
    libc::SYS_rt_sigreturn,
    libc::SYS_rt_sigprocmask,
    libc::SYS_sigaltstack,
    libc::SYS_restart_syscall,
    // Ending.
    libc::SYS_exit,
    libc::SYS_exit_group,
];

#[cfg(target_arch = "x86_64")]
fn filter() -> Result<seccompiler::BpfProgram, SandboxError> {
    use seccompiler::{
        SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    use std::collections::BTreeMap;
    let build = |e: seccompiler::BackendError| SandboxError::Build(e.to_string());
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        ALLOWED.iter().map(|&nr| (nr, vec![])).collect();
    // mmap(addr, len, prot, ...) and mprotect(addr, len, prot): no new
    // executable memory.
    let no_exec = |arg: u8| -> Result<Vec<SeccompRule>, SandboxError> {
        let cond = SeccompCondition::new(
            arg,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(libc::PROT_EXEC as u64),
            0,
        )
        .map_err(build)?;
        Ok(vec![SeccompRule::new(vec![cond]).map_err(build)?])
    };
    rules.insert(libc::SYS_mmap, no_exec(2)?);
    rules.insert(libc::SYS_mprotect, no_exec(2)?);
    // fcntl only to read an fd's flags (F_GETFD/F_GETFL): Rust's OwnedFd
    // checks the fd it closes that way in debug builds.
    let fcntl_cmd = |cmd: libc::c_int| -> Result<SeccompRule, SandboxError> {
        SeccompRule::new(vec![SeccompCondition::new(
            1,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            cmd as u64,
        )
        .map_err(build)?])
        .map_err(build)
    };
    rules.insert(
        libc::SYS_fcntl,
        vec![fcntl_cmd(libc::F_GETFD)?, fcntl_cmd(libc::F_GETFL)?],
    );
    // tgkill only on this process (abort() raises SIGABRT on itself).
    let pid = u64::from(std::process::id());
    rules.insert(
        libc::SYS_tgkill,
        vec![SeccompRule::new(vec![SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            pid,
        )
        .map_err(build)?])
        .map_err(build)?],
    );
    let f = SeccompFilter::new(
        rules,
        SeccompAction::Trap,
        SeccompAction::Allow,
        TargetArch::x86_64,
    )
    .map_err(build)?;
    f.try_into().map_err(build)
}

#[cfg(target_arch = "x86_64")]
fn install_sigsys_handler() -> Result<(), SandboxError> {
    // SAFETY: a zeroed sigaction with our handler, SA_SIGINFO, an empty
    // mask; the handler only uses async-signal-safe operations.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigsys as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        if libc::sigaction(libc::SIGSYS, &sa, std::ptr::null_mut()) != 0 {
            return Err(SandboxError::Install(format!(
                "sigaction(SIGSYS): {}",
                std::io::Error::last_os_error()
            )));
        }
        // A SIGSYS blocked by the caller's mask would kill the process.
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGSYS);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
    }
    Ok(())
}

/// SIGSYS from the filter: make the call fail with EPERM and report it
/// (once per system call number).
#[cfg(target_arch = "x86_64")]
extern "C" fn on_sigsys(_sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // siginfo_t for SIGSYS (x86_64): si_signo, si_errno, si_code, padding,
    // then _call_addr (8 bytes) and _syscall (int) at offset 24.
    // SAFETY: the kernel passes a valid siginfo_t and ucontext_t.
    let nr = unsafe { info.cast::<u8>().add(24).cast::<libc::c_int>().read() };
    // SAFETY: as above; RAX holds the system call's return value.
    unsafe {
        let uc = ctx.cast::<libc::ucontext_t>();
        (*uc).uc_mcontext.gregs[libc::REG_RAX as usize] = -(libc::EPERM as i64);
    }
    REFUSED.fetch_add(1, Ordering::Relaxed);
    let (word, bit) = ((nr as usize / 64).min(7), nr as usize % 64);
    let first = (0..512).contains(&nr)
        && SEEN[word].fetch_or(1 << bit, Ordering::Relaxed) & (1 << bit) == 0;
    if !first {
        return;
    }
    let mut out = Buf::new();
    out.push(b"NF `");
    out.push(NF_NAME.get().map_or(&b"?"[..], |s| s.as_bytes()));
    out.push(b"`: refused system call ");
    out.push(syscall_name(nr).as_bytes());
    out.push(b" (");
    out.num(nr as i64);
    out.push(b"): an NF host may only use the packet path (the call failed with EPERM)\n");
    // SAFETY: write(2) on stderr is async-signal-safe and allowed.
    unsafe { libc::write(2, out.bytes.as_ptr().cast(), out.len) };
}

/// A fixed buffer for the async-signal-safe report.
struct Buf {
    bytes: [u8; 320],
    len: usize,
}

impl Buf {
    fn new() -> Buf {
        Buf {
            bytes: [0; 320],
            len: 0,
        }
    }
    fn push(&mut self, s: &[u8]) {
        let n = s.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&s[..n]);
        self.len += n;
    }
    fn num(&mut self, mut v: i64) {
        if v < 0 {
            self.push(b"-");
            v = -v;
        }
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
    }
}

/// Name of an x86_64 system call an NF is likely to try.
pub fn syscall_name(nr: libc::c_int) -> &'static str {
    match nr as libc::c_long {
        libc::SYS_open => "open",
        libc::SYS_openat => "openat",
        libc::SYS_openat2 => "openat2",
        libc::SYS_creat => "creat",
        libc::SYS_stat => "stat",
        libc::SYS_fstat => "fstat",
        libc::SYS_newfstatat => "newfstatat",
        libc::SYS_statx => "statx",
        libc::SYS_access => "access",
        libc::SYS_faccessat => "faccessat",
        libc::SYS_unlink => "unlink",
        libc::SYS_unlinkat => "unlinkat",
        libc::SYS_rename => "rename",
        libc::SYS_mkdir => "mkdir",
        libc::SYS_chmod => "chmod",
        libc::SYS_chown => "chown",
        libc::SYS_ioctl => "ioctl",
        libc::SYS_fcntl => "fcntl",
        libc::SYS_lseek => "lseek",
        libc::SYS_dup => "dup",
        libc::SYS_dup2 => "dup2",
        libc::SYS_dup3 => "dup3",
        libc::SYS_pipe => "pipe",
        libc::SYS_pipe2 => "pipe2",
        libc::SYS_socket => "socket",
        libc::SYS_socketpair => "socketpair",
        libc::SYS_connect => "connect",
        libc::SYS_accept => "accept",
        libc::SYS_accept4 => "accept4",
        libc::SYS_bind => "bind",
        libc::SYS_listen => "listen",
        libc::SYS_sendmsg => "sendmsg",
        libc::SYS_recvmsg => "recvmsg",
        libc::SYS_getsockopt => "getsockopt",
        libc::SYS_setsockopt => "setsockopt",
        libc::SYS_clone => "clone",
        libc::SYS_clone3 => "clone3",
        libc::SYS_fork => "fork",
        libc::SYS_vfork => "vfork",
        libc::SYS_execve => "execve",
        libc::SYS_execveat => "execveat",
        libc::SYS_kill => "kill",
        libc::SYS_tkill => "tkill",
        libc::SYS_tgkill => "tgkill",
        libc::SYS_rt_sigaction => "rt_sigaction",
        libc::SYS_ptrace => "ptrace",
        libc::SYS_prctl => "prctl",
        libc::SYS_mmap => "mmap (executable)",
        libc::SYS_mprotect => "mprotect (executable)",
        libc::SYS_setuid => "setuid",
        libc::SYS_setgid => "setgid",
        libc::SYS_mount => "mount",
        libc::SYS_bpf => "bpf",
        libc::SYS_perf_event_open => "perf_event_open",
        libc::SYS_memfd_create => "memfd_create",
        libc::SYS_sched_setaffinity => "sched_setaffinity",
        libc::SYS_wait4 => "wait4",
        libc::SYS_uname => "uname",
        libc::SYS_getuid => "getuid",
        _ => "?",
    }
}
