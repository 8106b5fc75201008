//! The monitor's Unix-socket protocol (SOCK_SEQPACKET, so every message is
//! one datagram and fds ride on it with SCM_RIGHTS). A client sends one JSON
//! [`Request`]; the monitor answers with one JSON [`Response`] and, for an
//! attach, the fds its [`Grant`] describes, in order.

use crate::xdp::{FlashError, Result};
use serde::{Deserialize, Serialize};
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// Largest message either side sends.
pub const MAX_MSG: usize = 1 << 20;
/// Most fds in one message (the kernel's SCM_MAX_FD).
pub const MAX_FDS: usize = 253;

/// What a client asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// An NF host asks for the resources of NF `nf`.
    Attach { nf: String },
    /// Counters of every NF and link, kernel socket statistics.
    Stats,
}

/// What an fd handed to an NF host is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FdRole {
    /// The shared fabric (rings, flags, counters), read-write.
    Fabric,
    /// The UMEM of group `group`; read-only for single-copy upstream groups.
    Umem { group: usize, writable: bool },
    /// A bound AF_XDP socket on interface `iface` (deployment index).
    Socket {
        iface: usize,
        rx: bool,
        tx: bool,
        fill_completion: bool,
    },
    /// The wakeup eventfd of NF `nf`.
    Wake { nf: usize },
}

/// Resources granted to an NF host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// Index of the NF in the deployment.
    pub nf: usize,
    /// Role of each fd attached to the response, in order.
    pub fds: Vec<FdRole>,
}

/// The monitor's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Response {
    /// Attach granted (fds attached).
    Granted(Grant),
    /// Stats snapshot.
    Stats { stats: serde_json::Value },
    /// Request refused.
    Refused { reason: String },
}

/// Send `bytes` with `fds` attached.
pub fn send_msg(sock: RawFd, bytes: &[u8], fds: &[RawFd]) -> Result<()> {
    if fds.len() > MAX_FDS || bytes.len() > MAX_MSG {
        return Err(FlashError::Protocol(format!(
            "message too large ({} bytes, {} fds)",
            bytes.len(),
            fds.len()
        )));
    }
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut _,
        iov_len: bytes.len(),
    };
    // SAFETY: CMSG_SPACE is a pure computation.
    let space = unsafe { libc::CMSG_SPACE((fds.len() * 4) as u32) } as usize;
    let mut cbuf = vec![0u64; space.div_ceil(8).max(1)];
    // SAFETY: zeroed msghdr is valid; fields set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !fds.is_empty() {
        msg.msg_control = cbuf.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: control buffer has room for one header with fds.len() ints.
        unsafe {
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN((fds.len() * 4) as u32) as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr(),
                libc::CMSG_DATA(c).cast::<RawFd>(),
                fds.len(),
            );
        }
    }
    // SAFETY: msg describes valid buffers.
    if unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) } < 0 {
        return Err(FlashError::last_os("sendmsg on monitor socket"));
    }
    Ok(())
}

/// Receive one message and any fds attached to it.
pub fn recv_msg(sock: RawFd) -> Result<(Vec<u8>, Vec<OwnedFd>)> {
    let mut buf = vec![0u8; MAX_MSG];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: pure computation.
    let space = unsafe { libc::CMSG_SPACE((MAX_FDS * 4) as u32) } as usize;
    let mut cbuf = vec![0u64; space.div_ceil(8)];
    // SAFETY: zeroed msghdr is valid.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: msg describes valid buffers.
    let n = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(FlashError::last_os("recvmsg on monitor socket"));
    }
    let mut fds = vec![];
    // SAFETY: walking the control messages the kernel filled in.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let count = ((*c).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / 4;
                let data = libc::CMSG_DATA(c).cast::<RawFd>();
                for i in 0..count {
                    fds.push(OwnedFd::from_raw_fd(data.add(i).read_unaligned()));
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    if msg.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0 {
        return Err(FlashError::Protocol(
            "message or its fds were truncated".into(),
        ));
    }
    buf.truncate(n as usize);
    if n == 0 {
        return Err(FlashError::Protocol("peer closed the connection".into()));
    }
    Ok((buf, fds))
}

/// Peer credentials (pid, uid, gid) of a connected Unix socket.
pub fn peer_cred(sock: RawFd) -> Result<libc::ucred> {
    // SAFETY: zeroed ucred is a valid out-parameter.
    let mut cred: libc::ucred = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: valid out-parameters.
    if unsafe {
        libc::getsockopt(
            sock,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    } != 0
    {
        return Err(FlashError::last_os("getsockopt(SO_PEERCRED)"));
    }
    Ok(cred)
}

/// Connect to the monitor, send `req` and return its response and fds.
pub fn request(path: &std::path::Path, req: &Request) -> Result<(Response, Vec<OwnedFd>)> {
    request_keep(path, req).map(|(resp, fds, _)| (resp, fds))
}

/// [`request`], also returning the connection. After a granted attach the
/// monitor keeps its end open while the host runs: the host holds this one
/// to learn when the monitor goes away (it hangs up), and the monitor
/// learns from its end when the host does.
pub fn request_keep(
    path: &std::path::Path,
    req: &Request,
) -> Result<(Response, Vec<OwnedFd>, OwnedFd)> {
    use std::os::fd::AsRawFd;
    let sock = seqpacket_socket()?;
    let addr = unix_addr(path)?;
    // SAFETY: addr is a valid sockaddr_un.
    let rc = unsafe {
        libc::connect(
            sock.as_raw_fd(),
            (&addr as *const libc::sockaddr_un).cast(),
            std::mem::size_of::<libc::sockaddr_un>() as u32,
        )
    };
    if rc != 0 {
        return Err(FlashError::Connect {
            path: path.to_path_buf(),
            source: std::io::Error::last_os_error(),
        });
    }
    let body = serde_json::to_vec(req).map_err(|e| FlashError::Protocol(e.to_string()))?;
    send_msg(sock.as_raw_fd(), &body, &[])?;
    let (bytes, fds) = recv_msg(sock.as_raw_fd())?;
    let resp: Response = serde_json::from_slice(&bytes)
        .map_err(|e| FlashError::Protocol(format!("bad response: {e}")))?;
    Ok((resp, fds, sock))
}

/// A new SOCK_SEQPACKET Unix socket.
pub fn seqpacket_socket() -> Result<OwnedFd> {
    // SAFETY: plain socket() call.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(FlashError::last_os("socket(AF_UNIX, SOCK_SEQPACKET)"));
    }
    // SAFETY: fresh fd.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A sockaddr_un for `path`.
pub fn unix_addr(path: &std::path::Path) -> Result<libc::sockaddr_un> {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: zeroed sockaddr_un is valid.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as u16;
    let bytes = path.as_os_str().as_bytes();
    if bytes.len() >= addr.sun_path.len() {
        return Err(FlashError::Protocol(format!(
            "socket path {} is longer than {} bytes",
            path.display(),
            addr.sun_path.len() - 1
        )));
    }
    for (d, s) in addr.sun_path.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    Ok(addr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn fds_and_json_cross_a_socketpair() {
        let mut sv = [0; 2];
        // SAFETY: sv is a valid out-array.
        assert_eq!(
            unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET, 0, sv.as_mut_ptr()) },
            0
        );
        // SAFETY: fresh fds.
        let (a, b) = unsafe { (OwnedFd::from_raw_fd(sv[0]), OwnedFd::from_raw_fd(sv[1])) };
        let mfd = crate::xdp::mem::memfd("proto-test", 8192).unwrap();
        let body = serde_json::to_vec(&Response::Granted(Grant {
            nf: 3,
            fds: vec![FdRole::Fabric],
        }))
        .unwrap();
        send_msg(a.as_raw_fd(), &body, &[mfd.as_raw_fd()]).unwrap();
        let (got, fds) = recv_msg(b.as_raw_fd()).unwrap();
        let resp: Response = serde_json::from_slice(&got).unwrap();
        assert_eq!(
            resp,
            Response::Granted(Grant {
                nf: 3,
                fds: vec![FdRole::Fabric]
            })
        );
        assert_eq!(fds.len(), 1);
        assert_eq!(crate::xdp::mem::fd_len(fds[0].as_raw_fd()).unwrap(), 8192);
        let cred = peer_cred(b.as_raw_fd()).unwrap();
        // SAFETY: getuid never fails.
        assert_eq!(cred.uid, unsafe { libc::getuid() });
    }
}
