//! AF_XDP sockets. The monitor (privileged) creates a socket, registers a
//! UMEM on it or shares an earlier socket's UMEM, sizes its rings and binds
//! it to a netdev queue in copy mode (veth refuses XDP_ZEROCOPY); the NF host
//! that receives the fd maps the four rings into its own address space
//! ([`XskRings::map`]) and drives them. After binding, mapping works in any
//! process holding the fd, which is what makes the fd hand-off possible.

use super::mem::Mapping;
use super::ring::KernelRing;
use super::{FlashError, Result};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// How the monitor builds one socket.
#[derive(Debug, Clone)]
pub struct SocketSetup {
    /// Interface index.
    pub ifindex: u32,
    /// Queue id.
    pub queue: u32,
    /// Entries per ring.
    pub ring_size: u32,
    /// Register this UMEM (address/length in the monitor's mapping, frame size).
    pub register: Option<(u64, u64, u32)>,
    /// Share the UMEM of this already-bound socket.
    pub share_fd: Option<RawFd>,
    /// Create fill/completion rings (false when sharing a queue's rings).
    pub fill_completion: bool,
    /// Bind with XDP_ZEROCOPY instead of XDP_COPY.
    pub zerocopy: bool,
}

fn setsockopt<T>(fd: RawFd, opt: libc::c_int, val: &T, what: &str) -> Result<()> {
    // SAFETY: val points to a T of the given size.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_XDP,
            opt,
            (val as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(FlashError::last_os(what.to_string()));
    }
    Ok(())
}

/// Create, configure and bind an AF_XDP socket (privileged).
pub fn create_bound(s: &SocketSetup) -> Result<OwnedFd> {
    // SAFETY: plain socket() call.
    let fd = unsafe { libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(FlashError::last_os("socket(AF_XDP) (needs CAP_NET_RAW)"));
    }
    // SAFETY: fresh fd.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let raw = fd.as_raw_fd();
    if let Some((addr, len, chunk)) = s.register {
        let reg = libc::xdp_umem_reg {
            addr,
            len,
            chunk_size: chunk,
            headroom: 0,
            flags: 0,
            tx_metadata_len: 0,
        };
        setsockopt(
            raw,
            libc::XDP_UMEM_REG,
            &reg,
            "register UMEM (XDP_UMEM_REG)",
        )?;
    }
    if s.fill_completion {
        setsockopt(
            raw,
            libc::XDP_UMEM_FILL_RING,
            &s.ring_size,
            "size fill ring",
        )?;
        setsockopt(
            raw,
            libc::XDP_UMEM_COMPLETION_RING,
            &s.ring_size,
            "size completion ring",
        )?;
    }
    setsockopt(raw, libc::XDP_RX_RING, &s.ring_size, "size RX ring")?;
    setsockopt(raw, libc::XDP_TX_RING, &s.ring_size, "size TX ring")?;
    let mut sa: libc::sockaddr_xdp = unsafe { std::mem::zeroed() };
    sa.sxdp_family = libc::AF_XDP as u16;
    sa.sxdp_ifindex = s.ifindex;
    sa.sxdp_queue_id = s.queue;
    match s.share_fd {
        Some(other) => {
            sa.sxdp_flags = libc::XDP_SHARED_UMEM;
            sa.sxdp_shared_umem_fd = other as u32;
        }
        None => {
            sa.sxdp_flags = (if s.zerocopy {
                libc::XDP_ZEROCOPY
            } else {
                libc::XDP_COPY
            }) | libc::XDP_USE_NEED_WAKEUP;
        }
    }
    // The kernel releases a closed socket's queue binding asynchronously:
    // a chain restarted right after the previous run stopped sees EBUSY
    // for a moment. Retry for up to 2 s; a queue still held after that
    // belongs to a live program, and the error says so.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    let rc = loop {
        // SAFETY: sa is a valid sockaddr_xdp.
        let rc = unsafe {
            libc::bind(
                raw,
                (&sa as *const libc::sockaddr_xdp).cast(),
                std::mem::size_of::<libc::sockaddr_xdp>() as libc::socklen_t,
            )
        };
        let busy = rc != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBUSY);
        if !busy || std::time::Instant::now() > deadline {
            break rc;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    if rc != 0 {
        return Err(FlashError::last_os(format!(
            "bind AF_XDP socket to ifindex {} queue {}",
            s.ifindex, s.queue
        )));
    }
    Ok(fd)
}

/// Interface index of `ifname` in the caller's network namespace.
pub fn ifindex(ifname: &str) -> Option<u32> {
    let c = std::ffi::CString::new(ifname).ok()?;
    // SAFETY: valid C string.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    (i != 0).then_some(i)
}

/// The rings of one socket, mapped in the calling process.
#[derive(Debug)]
pub struct XskRings {
    pub fd: RawFd,
    pub rx: KernelRing<libc::xdp_desc>,
    pub tx: KernelRing<libc::xdp_desc>,
    pub fill: Option<KernelRing<u64>>,
    pub completion: Option<KernelRing<u64>>,
}

impl XskRings {
    /// Map the rings of the bound socket `fd` (ring sizes as the monitor set them).
    pub fn map(fd: RawFd, ring_size: u32, fill_completion: bool) -> Result<XskRings> {
        let mut off: libc::xdp_mmap_offsets = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::xdp_mmap_offsets>() as libc::socklen_t;
        // SAFETY: off/len are valid out-parameters.
        if unsafe {
            libc::getsockopt(
                fd,
                libc::SOL_XDP,
                libc::XDP_MMAP_OFFSETS,
                (&mut off as *mut libc::xdp_mmap_offsets).cast(),
                &mut len,
            )
        } != 0
        {
            return Err(FlashError::last_os("getsockopt(XDP_MMAP_OFFSETS)"));
        }
        let desc = std::mem::size_of::<libc::xdp_desc>();
        let n = ring_size as usize;
        let rx_map = Mapping::map(
            fd,
            off.rx.desc as usize + n * desc,
            libc::XDP_PGOFF_RX_RING as u64,
            true,
            "RX ring",
        )?;
        let tx_map = Mapping::map(
            fd,
            off.tx.desc as usize + n * desc,
            libc::XDP_PGOFF_TX_RING as u64,
            true,
            "TX ring",
        )?;
        // SAFETY: mappings of this socket's rings with the kernel's offsets.
        let (rx, tx) = unsafe {
            (
                KernelRing::new(rx_map, &off.rx, ring_size),
                KernelRing::new(tx_map, &off.tx, ring_size),
            )
        };
        let (fill, completion) = if fill_completion {
            let f = Mapping::map(
                fd,
                off.fr.desc as usize + n * 8,
                libc::XDP_UMEM_PGOFF_FILL_RING,
                true,
                "fill ring",
            )?;
            let c = Mapping::map(
                fd,
                off.cr.desc as usize + n * 8,
                libc::XDP_UMEM_PGOFF_COMPLETION_RING,
                true,
                "completion ring",
            )?;
            // SAFETY: as above.
            unsafe {
                (
                    Some(KernelRing::new(f, &off.fr, ring_size)),
                    Some(KernelRing::new(c, &off.cr, ring_size)),
                )
            }
        } else {
            (None, None)
        };
        Ok(XskRings {
            fd,
            rx,
            tx,
            fill,
            completion,
        })
    }

    /// Kick the kernel to transmit what is on the TX ring (copy mode needs it).
    pub fn kick_tx(&self) -> Result<()> {
        // SAFETY: zero-length sendto on our socket, as AF_XDP documents.
        let rc = unsafe {
            libc::sendto(
                self.fd,
                std::ptr::null(),
                0,
                libc::MSG_DONTWAIT,
                std::ptr::null(),
                0,
            )
        };
        if rc < 0 {
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EBUSY) | Some(libc::ENOBUFS)
                | Some(libc::ENETDOWN) => {}
                _ => {
                    return Err(FlashError::Sys {
                        what: "sendto (TX kick)".into(),
                        source: e,
                    })
                }
            }
        }
        Ok(())
    }

    /// Ask the kernel to refill from the fill ring (when it flags need-wakeup).
    pub fn kick_rx(&self) {
        // SAFETY: zero-length non-blocking recvfrom on our socket.
        unsafe {
            libc::recvfrom(
                self.fd,
                std::ptr::null_mut(),
                0,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
    }
}
