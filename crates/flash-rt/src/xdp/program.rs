//! The XDP redirect program (`bpf/xdp_redirect.c`, built by build.rs with
//! clang-19) loaded with aya: one instance per interface, each with its own
//! XSKMAP (`flash_xsks`, indexed by RX queue). Attachment uses a BPF link, so
//! the program is detached when the [`AttachedXdp`] is dropped — and by the
//! kernel if the monitor dies without running its cleanup.

use super::{FlashError, Result};
use crate::deploy::XdpMode;
use aya::maps::XskMap;
use aya::programs::{Xdp, XdpFlags};
use std::os::fd::{AsFd, AsRawFd, RawFd};

/// `bpf(2)` command number of BPF_MAP_DELETE_ELEM (uapi/linux/bpf.h).
const BPF_MAP_DELETE_ELEM: libc::c_long = 3;

/// The compiled XDP object.
pub static XDP_REDIRECT_OBJ: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/xdp_redirect.o"));

/// An XDP redirect program attached to one interface.
pub struct AttachedXdp {
    ifname: String,
    /// Mode actually used ("native" or "skb").
    pub mode: &'static str,
    ebpf: aya::Ebpf,
}

impl std::fmt::Debug for AttachedXdp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AttachedXdp({} {})", self.ifname, self.mode)
    }
}

fn err(ifname: &str, message: impl std::fmt::Display) -> FlashError {
    FlashError::Xdp {
        ifname: ifname.to_string(),
        message: message.to_string(),
    }
}

impl AttachedXdp {
    /// Load the program and attach it to `ifindex` in `mode`.
    pub fn attach(ifname: &str, ifindex: u32, mode: XdpMode) -> Result<AttachedXdp> {
        // The ELF parser needs 8-byte-aligned input; include_bytes! gives no alignment.
        let mut aligned = vec![0u64; XDP_REDIRECT_OBJ.len().div_ceil(8)];
        // SAFETY: the u64 buffer has at least as many bytes as the object.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                aligned.as_mut_ptr().cast::<u8>(),
                XDP_REDIRECT_OBJ.len(),
            )
        };
        bytes.copy_from_slice(XDP_REDIRECT_OBJ);
        let mut ebpf =
            aya::Ebpf::load(bytes).map_err(|e| err(ifname, format!("load object: {e}")))?;
        let prog: &mut Xdp = ebpf
            .program_mut("flash_redirect")
            .ok_or_else(|| err(ifname, "object has no flash_redirect program"))?
            .try_into()
            .map_err(|e| err(ifname, e))?;
        prog.load()
            .map_err(|e| err(ifname, format!("verifier/load: {e}")))?;
        let tries: &[(XdpFlags, &'static str)] = match mode {
            XdpMode::Native => &[(XdpFlags::DRV_MODE, "native")],
            XdpMode::Skb => &[(XdpFlags::SKB_MODE, "skb")],
            XdpMode::Auto => &[(XdpFlags::DRV_MODE, "native"), (XdpFlags::SKB_MODE, "skb")],
        };
        let mut last = String::new();
        for &(flags, name) in tries {
            match prog.attach_to_if_index(ifindex, flags) {
                Ok(_) => {
                    return Ok(AttachedXdp {
                        ifname: ifname.to_string(),
                        mode: name,
                        ebpf,
                    })
                }
                Err(e) => last = format!("attach in {name} mode: {e}"),
            }
        }
        Err(err(ifname, last))
    }

    /// Put the AF_XDP socket `fd` in the XSKMAP slot of `queue`.
    pub fn insert_socket(&mut self, queue: u32, fd: RawFd) -> Result<()> {
        let ifname = self.ifname.clone();
        let map = self
            .ebpf
            .map_mut("flash_xsks")
            .ok_or_else(|| err(&ifname, "object has no flash_xsks map"))?;
        let mut xsks = XskMap::try_from(map).map_err(|e| err(&ifname, e))?;
        xsks.set(queue, fd, 0)
            .map_err(|e| err(&ifname, format!("XSKMAP[{queue}] = socket: {e}")))
    }

    /// Empty the XSKMAP slot of `queue` (its NF died or detached): frames on
    /// that queue then go to the kernel stack instead of piling up in a
    /// socket nobody drains. An already empty slot is not an error.
    pub fn remove_socket(&mut self, queue: u32) -> Result<()> {
        let ifname = self.ifname.clone();
        let map = self
            .ebpf
            .map("flash_xsks")
            .ok_or_else(|| err(&ifname, "object has no flash_xsks map"))?;
        let aya::maps::Map::XskMap(data) = map else {
            return Err(err(&ifname, "flash_xsks is not an XSKMAP"));
        };
        let map_fd = data.fd().as_fd().as_raw_fd();
        // SAFETY: a zeroed bpf_attr with map_fd/key set is the documented
        // BPF_MAP_DELETE_ELEM argument; `key` outlives the call.
        let rc = unsafe {
            let mut attr = [0u64; 16];
            let key: u32 = queue;
            attr[0] = u64::from(map_fd as u32);
            attr[1] = &key as *const u32 as u64;
            libc::syscall(
                libc::SYS_bpf,
                BPF_MAP_DELETE_ELEM,
                attr.as_mut_ptr(),
                std::mem::size_of_val(&attr),
            )
        };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::ENOENT) {
                return Err(err(&ifname, format!("delete XSKMAP[{queue}]: {e}")));
            }
        }
        Ok(())
    }
}
