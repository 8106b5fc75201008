//! The stop signal every long-running flash-rt process waits on: SIGINT and
//! SIGTERM turned into a readable fd (signalfd), so the monitor and NF hosts
//! can poll it next to their sockets instead of running signal handlers.

use std::os::fd::{FromRawFd, OwnedFd};

/// The set {SIGINT, SIGTERM}. Async-signal-safe.
fn stop_set() -> libc::sigset_t {
    // SAFETY: sigset manipulation on a local, zero-initialised set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        set
    }
}

/// Block SIGINT/SIGTERM for this thread (and threads it spawns later) and
/// return a signalfd that becomes readable when either arrives. Call it
/// before spawning threads, or those threads keep the default handlers.
pub fn stop_signal_fd() -> std::io::Result<OwnedFd> {
    let set = stop_set();
    // SAFETY: blocking a valid set, then signalfd on it.
    unsafe {
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        let fd = libc::signalfd(-1, &set, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

/// Undo [`stop_signal_fd`]'s blocking, e.g. in a child between fork and exec
/// (a blocked mask survives exec). Async-signal-safe.
pub fn unblock_stop_signals() {
    let set = stop_set();
    // SAFETY: unblocking a valid set.
    unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
}
