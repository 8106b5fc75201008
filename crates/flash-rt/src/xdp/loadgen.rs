//! A user-space AF_XDP packet generator and sink, the software stand-in for
//! the hardware traffic generator of FLASH's evaluation (§6): the generator
//! owns a UMEM of pre-built frames and transmits them in batches from its TX
//! ring (only the sequence number and send timestamp are rewritten per
//! frame), recycling frames from its completion ring; the sink owns another
//! UMEM, attaches flash-rt's XDP redirect program to its interface, keeps its
//! fill ring topped up and consumes its RX ring in batches. Neither side
//! touches the socket layer per packet, so on this VM it is several times
//! faster than AF_PACKET `sendmmsg`/`recvmmsg` (the benchmark prints its own
//! ceiling through a plain veth pair).
//!
//! Frames carry, after the Ethernet header, a big-endian 64-bit sequence
//! number at byte 14 and a 64-bit CLOCK_MONOTONIC send time at byte 22, so
//! the sink can count, order-check and time what arrives. Copy mode only
//! (veth refuses XDP_ZEROCOPY); both sockets use need-wakeup.

use super::mem::{memfd, Mapping};
use super::program::AttachedXdp;
use super::socket::{create_bound, ifindex, SocketSetup, XskRings};
use super::{FlashError, Result};
use crate::deploy::XdpMode;
use std::os::fd::{AsRawFd, OwnedFd};

/// Byte offset of the sequence number in a generated frame.
pub const SEQ_OFFSET: usize = 14;
/// Byte offset of the send timestamp in a generated frame.
pub const TS_OFFSET: usize = 22;
/// Smallest frame the generator builds (header + sequence + timestamp).
pub const MIN_FRAME: usize = 30;

const FRAME_SIZE: u32 = 2048;
/// Copy-mode TX sends at most this many frames per `sendto` kick.
const KICKS_PER_SEND: usize = 16;

/// Sizes of the generator's and sink's rings and UMEMs.
#[derive(Debug, Clone, Copy)]
pub struct LoadGenConfig {
    /// Entries of every AF_XDP ring (power of two).
    pub ring_size: u32,
    /// Frames in each UMEM (generator and sink).
    pub frames: u32,
    /// XDP attach mode on the sink interface.
    pub xdp_mode: XdpMode,
    /// Stamp each frame with a sequence number and send time (bytes 14..30).
    /// Off, frames go out exactly as the template (e.g. a real IPv4/TCP
    /// frame that NFs parse); the sink then has no latency samples.
    pub stamp: bool,
    /// Where the stamp goes: the sequence number at this byte offset, the
    /// send time 8 bytes later (default [`SEQ_OFFSET`]; put it in the
    /// payload of a real IPv4 frame, e.g. 54 for TCP, so NFs parse the
    /// headers and the sink still times every frame).
    pub stamp_at: usize,
}

impl Default for LoadGenConfig {
    fn default() -> Self {
        LoadGenConfig {
            ring_size: 2048,
            frames: 4096,
            xdp_mode: XdpMode::Auto,
            stamp: true,
            stamp_at: SEQ_OFFSET,
        }
    }
}

/// One AF_XDP socket with its own UMEM.
struct Port {
    rings: XskRings,
    umem: Mapping,
    free: Vec<u64>,
    _sock: OwnedFd,
    _umem_fd: OwnedFd,
}

impl Port {
    fn open(ifname: &str, cfg: &LoadGenConfig, what: &str) -> Result<Port> {
        let idx = ifindex(ifname).ok_or_else(|| FlashError::NoInterface {
            name: what.to_string(),
            ifname: ifname.to_string(),
        })?;
        let len = cfg.frames as usize * FRAME_SIZE as usize;
        let umem_fd = memfd(&format!("flash-rt-loadgen-{what}"), len)?;
        let umem = Mapping::map(umem_fd.as_raw_fd(), len, 0, true, "load generator UMEM")?;
        let sock = create_bound(&SocketSetup {
            ifindex: idx,
            queue: 0,
            ring_size: cfg.ring_size,
            register: Some((umem.ptr() as u64, len as u64, FRAME_SIZE)),
            share_fd: None,
            fill_completion: true,
            zerocopy: false,
        })?;
        let rings = XskRings::map(sock.as_raw_fd(), cfg.ring_size, true)?;
        let free = (0..u64::from(cfg.frames))
            .rev()
            .map(|f| f * u64::from(FRAME_SIZE))
            .collect();
        Ok(Port {
            rings,
            umem,
            free,
            _sock: sock,
            _umem_fd: umem_fd,
        })
    }

    fn frame(&mut self, addr: u64, len: usize) -> &mut [u8] {
        debug_assert!(addr as usize + len <= self.umem.len());
        // SAFETY: addr is a frame base of this UMEM (or a kernel RX address
        // inside it) and len fits the frame; the frame is owned by user
        // space (free list or just consumed from RX).
        unsafe { std::slice::from_raw_parts_mut(self.umem.ptr().add(addr as usize), len) }
    }
}

/// Generator (TX side) and sink (RX side) of a benchmark.
pub struct LoadGen {
    tx: Port,
    rx: Port,
    template: Vec<u8>,
    /// Length of the frame built in each UMEM frame.
    lens: Vec<u32>,
    _xdp: AttachedXdp,
    scratch_desc: Vec<libc::xdp_desc>,
    scratch_addr: Vec<u64>,
    next_seq: u64,
    stamp: bool,
    stamp_at: usize,
    /// Frames handed to the TX ring so far.
    pub sent: u64,
    /// Frames received by the sink so far.
    pub received: u64,
    /// `sendto` kicks issued by the generator.
    pub tx_kicks: u64,
}

impl std::fmt::Debug for LoadGen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadGen")
            .field("sent", &self.sent)
            .field("received", &self.received)
            .finish()
    }
}

/// Kernel drop counters of the sink socket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SinkDrops {
    /// Frames the kernel dropped for this socket (no fill-ring buffer, etc.).
    pub rx_dropped: u64,
    /// Frames dropped because the RX ring was full.
    pub rx_ring_full: u64,
}

impl LoadGen {
    /// Transmit copies of `template` (an Ethernet frame of at least
    /// [`MIN_FRAME`] bytes) on `tx_if` and receive on `rx_if`, in the calling
    /// thread's network namespace (needs CAP_NET_ADMIN/CAP_NET_RAW/CAP_BPF).
    pub fn new(tx_if: &str, rx_if: &str, template: &[u8], cfg: &LoadGenConfig) -> Result<LoadGen> {
        Self::with_templates(tx_if, rx_if, &[template.to_vec()], cfg)
    }

    /// [`LoadGen::new`] with several frames (e.g. a traffic profile's
    /// flows): UMEM frame `i` is built from `templates[i % len]`, so what
    /// goes out cycles through them as frames are recycled.
    pub fn with_templates(
        tx_if: &str,
        rx_if: &str,
        templates: &[Vec<u8>],
        cfg: &LoadGenConfig,
    ) -> Result<LoadGen> {
        let min = if cfg.stamp {
            MIN_FRAME.max(cfg.stamp_at + 16)
        } else {
            MIN_FRAME
        };
        if templates.is_empty() {
            return Err(FlashError::Protocol(
                "load generator without a frame".into(),
            ));
        }
        for template in templates {
            if template.len() < min || template.len() > FRAME_SIZE as usize {
                return Err(FlashError::Protocol(format!(
                    "load generator frame of {} bytes (need {min}..={FRAME_SIZE} with the stamp at byte {})",
                    template.len(),
                    cfg.stamp_at
                )));
            }
        }
        let template = &templates[0];
        if !cfg.ring_size.is_power_of_two() || cfg.frames < 2 * cfg.ring_size {
            return Err(FlashError::Protocol(format!(
                "load generator rings of {} entries with {} frames (need a power of two and frames >= 2x ring)",
                cfg.ring_size, cfg.frames
            )));
        }
        let mut tx = Port::open(tx_if, cfg, "generator")?;
        let rx = Port::open(rx_if, cfg, "sink")?;
        // Pre-build every generator frame.
        let frames: Vec<u64> = tx.free.clone();
        let mut lens = vec![0u32; cfg.frames as usize];
        for a in frames {
            let i = (a / u64::from(FRAME_SIZE)) as usize;
            let t = &templates[i % templates.len()];
            tx.frame(a, t.len()).copy_from_slice(t);
            lens[i] = t.len() as u32;
        }
        let rx_idx = ifindex(rx_if).ok_or_else(|| FlashError::NoInterface {
            name: "sink".into(),
            ifname: rx_if.to_string(),
        })?;
        let mut xdp = AttachedXdp::attach(rx_if, rx_idx, cfg.xdp_mode)?;
        xdp.insert_socket(0, rx.rings.fd)?;
        let mut g = LoadGen {
            tx,
            rx,
            template: template.to_vec(),
            lens,
            _xdp: xdp,
            scratch_desc: Vec::with_capacity(cfg.ring_size as usize),
            scratch_addr: Vec::with_capacity(cfg.ring_size as usize),
            next_seq: 0,
            stamp: cfg.stamp,
            stamp_at: cfg.stamp_at,
            sent: 0,
            received: 0,
            tx_kicks: 0,
        };
        g.refill_sink();
        Ok(g)
    }

    fn refill_sink(&mut self) {
        let Some(fill) = self.rx.rings.fill.as_mut() else {
            return;
        };
        let want = (fill.free(fill.size()) as usize).min(self.rx.free.len());
        if want > 0 {
            let start = self.rx.free.len() - want;
            let n = fill.produce(&self.rx.free[start..]);
            self.rx.free.truncate(start + (want - n));
        }
        if fill.needs_wakeup() {
            self.rx.rings.kick_rx();
        }
    }

    fn reclaim_tx(&mut self) {
        if let Some(c) = self.tx.rings.completion.as_mut() {
            self.scratch_addr.clear();
            c.consume(&mut self.scratch_addr, usize::MAX);
            self.tx.free.extend_from_slice(&self.scratch_addr);
        }
    }

    /// Frames the generator could send right now (free frames with TX room).
    pub fn tx_room(&mut self) -> usize {
        self.reclaim_tx();
        self.tx.free.len()
    }

    /// Transmit up to `n` frames stamped with consecutive sequence numbers
    /// and the current time; returns how many went onto the TX ring (the
    /// kernel is kicked until it has taken them or stops making progress).
    pub fn send(&mut self, n: usize, now_ns: u64) -> usize {
        self.reclaim_tx();
        let n = n.min(self.tx.free.len());
        if n == 0 {
            return 0;
        }
        self.scratch_desc.clear();
        for _ in 0..n {
            let Some(addr) = self.tx.free.pop() else {
                break;
            };
            let seq = self.next_seq;
            self.next_seq += 1;
            if self.stamp {
                let at = self.stamp_at;
                let f = self.tx.frame(addr, at + 16);
                f[at..at + 8].copy_from_slice(&seq.to_be_bytes());
                f[at + 8..at + 16].copy_from_slice(&now_ns.to_be_bytes());
            }
            let len = self
                .lens
                .get((addr / u64::from(FRAME_SIZE)) as usize)
                .copied()
                .unwrap_or(self.template.len() as u32);
            self.scratch_desc.push(libc::xdp_desc {
                addr,
                len,
                options: 0,
            });
        }
        let produced = self.tx.rings.tx.produce(&self.scratch_desc);
        // Frames that did not fit go back to the free list (sequence numbers
        // are not reused; the sink sees a gap it does not count as loss).
        for d in &self.scratch_desc[produced..] {
            self.tx.free.push(d.addr);
        }
        self.next_seq -= (self.scratch_desc.len() - produced) as u64;
        self.sent += produced as u64;
        self.kick();
        produced
    }

    /// Kick the kernel until the TX ring is drained or it stops taking frames.
    pub fn kick(&mut self) {
        let mut last = u32::MAX;
        for _ in 0..KICKS_PER_SEND {
            let out = self.tx.rings.tx.outstanding();
            if out == 0 || out == last {
                break;
            }
            last = out;
            let _ = self.tx.rings.kick_tx();
            self.tx_kicks += 1;
        }
    }

    /// Frames on the generator's TX ring the kernel has not taken yet.
    pub fn tx_backlog(&self) -> u32 {
        self.tx.rings.tx.outstanding()
    }

    /// Receive what the sink has (up to `max`); pushes one latency sample
    /// (now − send time, ns) per frame into `lat` when given; returns the
    /// number received.
    pub fn recv(&mut self, max: usize, now_ns: u64, mut lat: Option<&mut Vec<u64>>) -> usize {
        self.scratch_desc.clear();
        let n = self.rx.rings.rx.consume(&mut self.scratch_desc, max);
        let descs = std::mem::take(&mut self.scratch_desc);
        for d in &descs {
            if let Some(l) = lat.as_deref_mut() {
                let at = self.stamp_at + 8;
                if d.len as usize >= at + 8 {
                    let f = self.rx.frame(d.addr, at + 8);
                    let ts = u64::from_be_bytes(f[at..at + 8].try_into().unwrap_or_default());
                    l.push(now_ns.saturating_sub(ts));
                }
            }
            self.rx.free.push(d.addr - d.addr % u64::from(FRAME_SIZE));
        }
        self.scratch_desc = descs;
        self.received += n as u64;
        self.refill_sink();
        n
    }

    /// Copy of the first `len` bytes of the next frame waiting at the sink,
    /// without consuming it.
    pub fn peek(&mut self, len: usize) -> Option<Vec<u8>> {
        let d = *self.rx.rings.rx.in_flight().first()?;
        let len = len.min(d.len as usize);
        Some(self.rx.frame(d.addr, len).to_vec())
    }

    /// Block until the sink has frames or `timeout_ms` passes; true if it has.
    pub fn wait_rx(&mut self, timeout_ms: i32) -> bool {
        if self.rx.rings.rx.has_entries() {
            return true;
        }
        let mut p = libc::pollfd {
            fd: self.rx.rings.fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut p, 1, timeout_ms) > 0 }
    }

    /// Kernel drop counters of the sink socket.
    pub fn sink_drops(&self) -> SinkDrops {
        // SAFETY: zeroed struct is a valid out-parameter.
        let mut st: libc::xdp_statistics = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::xdp_statistics>() as libc::socklen_t;
        // SAFETY: valid out-parameters on our socket.
        let rc = unsafe {
            libc::getsockopt(
                self.rx.rings.fd,
                libc::SOL_XDP,
                libc::XDP_STATISTICS,
                (&mut st as *mut libc::xdp_statistics).cast(),
                &mut len,
            )
        };
        if rc != 0 {
            return SinkDrops::default();
        }
        SinkDrops {
            rx_dropped: st.rx_dropped,
            rx_ring_full: st.rx_ring_full,
        }
    }
}
