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
    /// Write the low 16 bits of each frame's sequence number into its
    /// IPv4 identification field (header checksum updated; other frames
    /// untouched) and report the identifications of the frames received
    /// in [`LoadGen::returned`]: which frames came back, for a closed loop
    /// that must tell the frames a chain dropped ([`ClosedLoop`]), without
    /// writing into the payload NFs may inspect.
    pub ip_id_seq: bool,
}

impl Default for LoadGenConfig {
    fn default() -> Self {
        LoadGenConfig {
            ring_size: 2048,
            frames: 4096,
            xdp_mode: XdpMode::Auto,
            stamp: true,
            stamp_at: SEQ_OFFSET,
            ip_id_seq: false,
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
    ip_id_seq: bool,
    /// The identities (low 16 bits of the sequence number) of the frames
    /// the last [`LoadGen::recv`] received: with
    /// [`LoadGenConfig::ip_id_seq`] their IPv4 identification (non-IPv4
    /// frames none), else with [`LoadGenConfig::stamp`] the stamped
    /// sequence number; empty when frames carry neither
    /// ([`LoadGen::identifies_frames`]).
    pub returned: Vec<u16>,
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
            ip_id_seq: cfg.ip_id_seq,
            returned: Vec::with_capacity(cfg.ring_size as usize),
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
            if self.ip_id_seq && len >= 34 {
                set_ipv4_id(self.tx.frame(addr, 34), seq as u16);
            }
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

    /// The sequence number the next frame sent gets.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Whether received frames say which frame they are
    /// ([`LoadGen::returned`]: IPv4 identification or stamp), as a
    /// [`ClosedLoop`] needs.
    pub fn identifies_frames(&self) -> bool {
        self.ip_id_seq || self.stamp
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
        self.returned.clear();
        for d in &descs {
            if self.ip_id_seq {
                if d.len >= 34 {
                    if let Some(id) = ipv4_id(self.rx.frame(d.addr, 34)) {
                        self.returned.push(id);
                    }
                }
            } else if self.stamp && d.len as usize >= self.stamp_at + 8 {
                let at = self.stamp_at;
                let f = self.rx.frame(d.addr, at + 8);
                self.returned
                    .push(u16::from_be_bytes([f[at + 6], f[at + 7]]));
            }
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

/// An IPv4-in-Ethernet frame (no VLAN) whose header is at least 20 bytes.
fn is_ipv4(f: &[u8]) -> bool {
    f.len() >= 34 && f[12] == 0x08 && f[13] == 0x00 && f[14] >> 4 == 4 && f[14] & 0x0f >= 5
}

/// The IPv4 identification of a frame, if it is IPv4.
fn ipv4_id(f: &[u8]) -> Option<u16> {
    is_ipv4(f).then(|| u16::from_be_bytes([f[18], f[19]]))
}

/// Set the IPv4 identification of a frame, updating the header checksum
/// incrementally (RFC 1624: HC' = ~(~HC + ~m + m')); other frames are left
/// as they are.
fn set_ipv4_id(f: &mut [u8], id: u16) {
    if !is_ipv4(f) {
        return;
    }
    let old = u16::from_be_bytes([f[18], f[19]]);
    let hc = u16::from_be_bytes([f[24], f[25]]);
    let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(id);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    f[18..20].copy_from_slice(&id.to_be_bytes());
    f[24..26].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

/// Closed-loop pacing for a generator whose frames a chain may drop: at
/// most `window` frames in flight, where a frame still not back a
/// retransmission-style timeout after it was sent counts as lost and frees
/// its slot.
///
/// Counting in flight as sent − received (what the benches and `nfc
/// profile` did) never frees the slot of a dropped frame while other
/// frames keep coming back: every drop shrinks the window for good, until
/// nothing at all returns for a timeout. A chain that drops a fraction of
/// a percent (a policer's burst, a firewall rule, the kernel's fill-ring
/// drops at start-up) then runs at a fraction of its capacity in the
/// closed loop, with offered = delivered in the measured window. Counts
/// alone cannot tell which frame was lost while the others flow (a later
/// frame's return covers for it), so frames carry their identity: the
/// generator's sequence number, in the IPv4 identification field
/// ([`LoadGenConfig::ip_id_seq`]) or the stamp; the loop keeps the frames
/// out in send order, marks the ones that come back
/// ([`ClosedLoop::on_returned`]), and a frame older than the timeout that
/// is not back is lost. A frame that comes back after it was counted lost
/// is not counted again.
///
/// Loss is detected as TCP's RACK does (RFC 8985), not by a timeout
/// alone: a frame is lost once a frame sent after it has come back and
/// the reordering window has passed beyond that frame's round trip
/// (frames leave a linear chain in order; a DAG's branches may reorder
/// them, and every frame counted lost that comes back after all doubles
/// the window, up to the timeout); a frame with nothing sent after it
/// back is lost after the `timeout` given. A fixed timeout alone is its
/// own slowdown for a chain that drops by rate: each lost frame holds a
/// slot for the whole timeout, so a policer dropping 3% of 115k pps with
/// 100 ms holds ~350 of 1,024 slots (flowmage-2nf, docs/predictor.md).
/// A timeout adapted to the round trip (RFC 6298: smoothed RTT + 4 ×
/// deviation) was tried and is wrong here: NF hosts descheduled for tens
/// of ms on a loaded 2-CPU machine stall every frame at once, and it
/// counted most frames of a chain that drops nothing as lost. Under a
/// stall no later frame returns, so RACK counts nothing.
/// [`ClosedLoop::with_fixed_timeout`] keeps the timeout alone (for
/// comparison).
#[derive(Debug, Clone)]
pub struct ClosedLoop {
    window: u64,
    timeout_ns: u64,
    rack: bool,
    /// Send time, identification and round trip of the latest-sent frame
    /// that came back (frames of one send batch share a send time: the
    /// identification orders them).
    rack_sent_ns: u64,
    rack_id: u16,
    rack_rtt_ns: u64,
    /// A frame came back (the three fields above are set).
    rack_valid: bool,
    /// Reordering window, ns.
    reo_wnd_ns: u64,
    /// Frames out, in send order: (sequence number, send time).
    out: std::collections::VecDeque<(u64, u64)>,
    /// Per identification (sequence number mod 2^16): frames out with it.
    pending: Vec<u8>,
    /// Per identification: came back, still in `out`.
    back: Vec<bool>,
    /// Per identification: when the last frame with it was sent.
    sent_at: Vec<u64>,
    back_in_out: u64,
    /// Frames counted as lost so far.
    pub lost: u64,
    /// Frames that came back.
    pub returned: u64,
    /// Frames that came back after they had been counted lost.
    pub late: u64,
}

impl ClosedLoop {
    /// Default age after which a frame not back counts as lost.
    pub const TIMEOUT_NS: u64 = 100_000_000;
    /// Initial reordering window: a frame later than this beyond the
    /// round trip of a frame sent after it is lost.
    pub const REORDER_NS: u64 = 2_000_000;
    /// Default frames in flight at most.
    pub const WINDOW: u64 = 1024;
    /// Frames sent and received per [`ClosedLoop::step`] at most.
    pub const BATCH: usize = 256;
    /// More frames out than this (lost ones waiting for their timeout
    /// included) count the oldest as lost: identifications are 16 bits.
    const MAX_OUT: usize = 32_768;

    /// At most `window` frames in flight; a frame is lost when a frame
    /// sent after it came back and the reordering window has passed, or
    /// after `timeout_ns`.
    pub fn new(window: u64, timeout_ns: u64) -> ClosedLoop {
        ClosedLoop {
            window,
            timeout_ns,
            rack: true,
            rack_sent_ns: 0,
            rack_id: 0,
            rack_rtt_ns: 0,
            rack_valid: false,
            reo_wnd_ns: Self::REORDER_NS.min(timeout_ns),
            out: Default::default(),
            pending: vec![0; 1 << 16],
            back: vec![false; 1 << 16],
            sent_at: vec![0; 1 << 16],
            back_in_out: 0,
            lost: 0,
            returned: 0,
            late: 0,
        }
    }

    /// [`ClosedLoop::new`] with the timeout alone: a frame not back after
    /// `timeout_ns` is lost, whatever came back after it.
    pub fn with_fixed_timeout(window: u64, timeout_ns: u64) -> ClosedLoop {
        ClosedLoop {
            rack: false,
            ..ClosedLoop::new(window, timeout_ns)
        }
    }

    /// The reordering window now, ns.
    pub fn reorder_window_ns(&self) -> u64 {
        self.reo_wnd_ns
    }

    /// Whether frame `seq`, sent at `t`, is lost at `now_ns`.
    fn is_lost(&self, seq: u64, t: u64, now_ns: u64) -> bool {
        now_ns.saturating_sub(t) >= self.timeout_ns
            || (self.rack
                && self.rack_valid
                && self.sent_before_rack(t, seq as u16)
                && now_ns >= t + self.rack_rtt_ns + self.reo_wnd_ns)
    }

    /// Whether the frame sent at `t` with identification `id` was sent
    /// before the latest-sent frame that came back.
    fn sent_before_rack(&self, t: u64, id: u16) -> bool {
        t < self.rack_sent_ns
            || (t == self.rack_sent_ns && (self.rack_id.wrapping_sub(id) as i16) > 0)
    }

    /// Frames in flight: out, not back, not counted lost.
    pub fn in_flight(&self) -> u64 {
        self.out.len() as u64 - self.back_in_out
    }

    /// How many frames may be sent at `now_ns`, after retiring the frames
    /// at the head of the send order that came back or are older than the
    /// timeout (those are lost).
    pub fn room(&mut self, now_ns: u64) -> u64 {
        while let Some(&(seq, t)) = self.out.front() {
            let id = (seq & 0xffff) as usize;
            if self.back[id] {
                self.back[id] = false;
                self.back_in_out -= 1;
            } else if self.is_lost(seq, t, now_ns) || self.out.len() > Self::MAX_OUT {
                self.lost += 1;
            } else {
                break;
            }
            self.pending[id] -= 1;
            self.out.pop_front();
        }
        self.window.saturating_sub(self.in_flight())
    }

    /// Frames `first_seq .. first_seq + n` sent at `now_ns`.
    pub fn on_sent(&mut self, first_seq: u64, n: u64, now_ns: u64) {
        for seq in first_seq..first_seq + n {
            let id = (seq & 0xffff) as usize;
            self.pending[id] = self.pending[id].saturating_add(1);
            self.sent_at[id] = now_ns;
            self.out.push_back((seq, now_ns));
        }
    }

    /// Send up to `max` frames through `g`, no more than the window has
    /// room for at `now_ns`, and record them; returns how many went out.
    pub fn send(&mut self, g: &mut LoadGen, max: usize, now_ns: u64) -> u64 {
        let n = (self.room(now_ns) as usize).min(max);
        self.send_unpaced(g, n, now_ns)
    }

    /// Send up to `n` frames through `g` whatever the window (an open-loop
    /// phase), recording them so that a closed loop later starts from
    /// what is really in flight; returns how many went out.
    pub fn send_unpaced(&mut self, g: &mut LoadGen, n: usize, now_ns: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let first = g.next_seq();
        let sent = g.send(n, now_ns) as u64;
        self.on_sent(first, sent, now_ns);
        sent
    }

    /// Receive up to `max` frames at `g`'s sink and mark them back (one
    /// latency sample per frame into `lat` when given).
    pub fn recv(&mut self, g: &mut LoadGen, max: usize, lat: Option<&mut Vec<u64>>) -> usize {
        let now = crate::host::now_ns();
        let r = g.recv(max, now, lat);
        self.on_returned(&g.returned, now);
        r
    }

    /// One step of the closed loop: send what the window has room for (at
    /// most [`ClosedLoop::BATCH`]; a TX backlog is kicked instead when it
    /// has none), receive, and when nothing moved wait up to 1 ms for
    /// frames rather than spin (the timeout ages lost frames meanwhile).
    /// Returns (sent, received).
    pub fn step(&mut self, g: &mut LoadGen, lat: Option<&mut Vec<u64>>) -> (u64, usize) {
        let s = self.send(g, Self::BATCH, crate::host::now_ns());
        if s == 0 && g.tx_backlog() > 0 {
            g.kick();
        }
        let r = self.recv(g, Self::BATCH, lat);
        if r == 0 && s == 0 {
            g.wait_rx(1);
        }
        (s, r)
    }

    /// Drive `g` closed loop for `secs`: what the chain sustains without
    /// overload (and without the generator spending the CPUs on frames
    /// the chain's ingress would drop).
    pub fn run_for(
        &mut self,
        g: &mut LoadGen,
        secs: f64,
        mut lat: Option<&mut Vec<u64>>,
    ) -> LoopWindow {
        let start = crate::host::now_ns();
        let end = start + (secs * 1e9) as u64;
        let (sent0, got0, lost0) = (g.sent, g.received, self.lost);
        while crate::host::now_ns() < end {
            self.step(g, lat.as_deref_mut());
        }
        LoopWindow {
            sent: g.sent - sent0,
            received: g.received - got0,
            lost: self.lost - lost0,
            secs: (crate::host::now_ns() - start) as f64 / 1e9,
        }
    }

    /// Frames with these identifications came back at `now_ns`.
    pub fn on_returned(&mut self, ids: &[u16], now_ns: u64) {
        for &id in ids {
            let id = id as usize;
            let sent = self.sent_at[id];
            if self.pending[id] > 0 && !self.back[id] {
                self.back[id] = true;
                self.back_in_out += 1;
                self.returned += 1;
                if !self.rack_valid || !self.sent_before_rack(sent, id as u16) {
                    self.rack_valid = true;
                    self.rack_sent_ns = sent;
                    self.rack_id = id as u16;
                    self.rack_rtt_ns = now_ns.saturating_sub(sent);
                }
            } else if self.pending[id] == 0 && now_ns.saturating_sub(sent) < 2 * self.timeout_ns {
                // Back after it was counted lost: reordered more than the
                // window allowed.
                self.late += 1;
                self.reo_wnd_ns = (2 * self.reo_wnd_ns).min(self.timeout_ns);
            }
        }
    }
}

/// What a [`ClosedLoop::run_for`] window moved.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoopWindow {
    pub sent: u64,
    pub received: u64,
    /// Frames counted lost in the window (sent in it or before).
    pub lost: u64,
    /// Its length, s.
    pub secs: f64,
}

impl LoopWindow {
    /// Frames per second out of the chain.
    pub fn delivered_pps(&self) -> f64 {
        self.received as f64 / self.secs.max(1e-9)
    }
    /// Frames per second into the chain.
    pub fn offered_pps(&self) -> f64 {
        self.sent as f64 / self.secs.max(1e-9)
    }
}

impl Default for ClosedLoop {
    /// [`ClosedLoop::WINDOW`] frames, [`ClosedLoop::TIMEOUT_NS`].
    fn default() -> Self {
        ClosedLoop::new(Self::WINDOW, Self::TIMEOUT_NS)
    }
}

#[cfg(test)]
mod closed_loop_tests {
    use super::{ipv4_id, set_ipv4_id, ClosedLoop};

    /// A FIFO chain serving `rate` frames/s that drops every `drop_every`-th
    /// frame, driven by the closed loop for `secs` simulated seconds in
    /// steps of 10 µs: (delivered/s, frames it dropped, lost counted,
    /// in flight at the end, frames in the chain at the end).
    fn drive(drop_every: u64, rate: f64, secs: f64) -> (f64, u64, u64, u64, u64) {
        drive_with(
            ClosedLoop::new(1024, ClosedLoop::TIMEOUT_NS),
            drop_every,
            rate,
            0,
            secs,
        )
    }

    /// [`drive`] with a given loop and a fixed delay after the chain's
    /// server (the hops, wake-ups and sink of a real chain: the round trip
    /// a window must cover).
    fn drive_with(
        mut cl: ClosedLoop,
        drop_every: u64,
        rate: f64,
        delay_ns: u64,
        secs: f64,
    ) -> (f64, u64, u64, u64, u64) {
        let mut queue = std::collections::VecDeque::new(); // sequence numbers in the chain
        let mut wire = std::collections::VecDeque::new(); // (due, seq) after the server
        let (mut next, mut delivered, mut dropped, mut credit) = (0u64, 0u64, 0u64, 0.0f64);
        let step = 10_000u64;
        let mut now = 0u64;
        while (now as f64) < secs * 1e9 {
            let n = cl.room(now).min(256);
            cl.on_sent(next, n, now);
            for _ in 0..n {
                queue.push_back(next);
                next += 1;
            }
            credit += rate * step as f64 / 1e9;
            while credit >= 1.0 {
                let Some(seq) = queue.pop_front() else {
                    credit = 0.0;
                    break;
                };
                credit -= 1.0;
                if (seq + 1) % drop_every == 0 {
                    dropped += 1;
                } else {
                    wire.push_back((now + delay_ns, seq));
                }
            }
            let mut back = vec![];
            while let Some(&(due, seq)) = wire.front() {
                if due > now {
                    break;
                }
                back.push(seq as u16);
                wire.pop_front();
            }
            delivered += back.len() as u64;
            cl.on_returned(&back, now);
            now += step;
        }
        (
            delivered as f64 / secs,
            dropped,
            cl.lost,
            cl.in_flight(),
            (queue.len() + wire.len()) as u64,
        )
    }

    #[test]
    fn a_lost_frame_holds_its_slot_only_about_a_round_trip() {
        // 200k frames/s, 5 ms of fixed delay (1,000 frames in flight to
        // keep it busy), 5% dropped: with a fixed 100 ms timeout each lost
        // frame holds a slot for 100 ms, ~1,000 slots at ~100k/s, and the
        // loop settles near half the chain's rate (flowmage-2nf's
        // policer); RACK (a lost frame found a round trip after a later
        // one came back) keeps most of it.
        let fixed = drive_with(
            ClosedLoop::with_fixed_timeout(1024, ClosedLoop::TIMEOUT_NS),
            20,
            200_000.0,
            5_000_000,
            3.0,
        );
        let rack = drive_with(
            ClosedLoop::new(1024, ClosedLoop::TIMEOUT_NS),
            20,
            200_000.0,
            5_000_000,
            3.0,
        );
        assert!(fixed.0 < 0.6 * 190_000.0, "fixed timeout: {fixed:?}");
        assert!(rack.0 > 0.8 * 190_000.0, "RACK: {rack:?}");
        // Every frame the chain dropped and that is old enough is lost,
        // none that came back.
        assert!(rack.2 <= rack.1 && rack.2 + 200 >= rack.1, "{rack:?}");
    }

    #[test]
    fn a_stall_loses_nothing_and_a_reordered_frame_widens_the_window() {
        let mut cl = ClosedLoop::new(8, 100_000_000);
        cl.on_sent(0, 4, 0);
        // A 50 ms stall: nothing came back, nothing sent later came back,
        // so nothing is lost before the timeout.
        assert_eq!(cl.room(50_000_000), 4);
        assert_eq!(cl.lost, 0);
        // Frames 1..3 come back at 51 ms (round trip 51 ms); frame 0 is
        // lost once the reordering window passed beyond that.
        cl.on_returned(&[1, 2, 3], 51_000_000);
        cl.room(51_000_000 + ClosedLoop::REORDER_NS - 1);
        assert_eq!(cl.lost, 0);
        assert_eq!(cl.room(51_000_000 + ClosedLoop::REORDER_NS), 8);
        assert_eq!(cl.lost, 1);
        // It was only reordered: counted late, not twice, and the window
        // doubles.
        cl.on_returned(&[0], 54_000_000);
        assert_eq!((cl.late, cl.returned), (1, 3));
        assert_eq!(cl.reorder_window_ns(), 2 * ClosedLoop::REORDER_NS);
    }

    #[test]
    fn a_chain_that_drops_some_frames_keeps_its_rate_in_the_closed_loop() {
        let (clean, _, lost_clean, _, _) = drive(u64::MAX, 100_000.0, 3.0);
        assert_eq!(lost_clean, 0);
        assert!(clean > 99_000.0, "{clean}");
        // Dropping 1 frame in 100 costs 1% of the rate, not the window:
        // counting sent − received, the 1,024 slots would all be held by
        // dropped frames after ~1 s and the loop would stall.
        let (lossy, dropped, lost, in_flight, in_chain) = drive(100, 100_000.0, 3.0);
        assert!(lossy > 0.97 * clean, "lossy {lossy} vs clean {clean}");
        // Every dropped frame older than the timeout is counted lost, and
        // what counts as in flight is what is in the chain plus the
        // dropped frames younger than the timeout.
        assert!(
            lost <= dropped && lost + 120 >= dropped,
            "lost {lost} of {dropped}"
        );
        assert!(
            in_flight >= in_chain && in_flight <= in_chain + 120,
            "{in_flight} vs {in_chain}"
        );
    }

    #[test]
    fn frames_in_flight_never_exceed_the_window_and_late_ones_are_lost() {
        let mut cl = ClosedLoop::with_fixed_timeout(8, 1_000);
        assert_eq!(cl.room(0), 8);
        cl.on_sent(0, 8, 0);
        assert_eq!(cl.room(10), 0);
        // Frames 0..3 and 4 come back; 3, 5, 6, 7 do not (yet).
        cl.on_returned(&[0, 1, 2, 4], 15);
        assert_eq!(cl.room(20), 4);
        // Past the timeout the missing ones are lost.
        assert_eq!(cl.room(1_000), 8);
        assert_eq!(cl.lost, 4);
        // A frame counted lost that comes back after all changes nothing.
        cl.on_returned(&[5], 1_100);
        assert_eq!((cl.in_flight(), cl.returned), (0, 4));
    }

    #[test]
    fn the_ipv4_identification_carries_the_sequence_and_the_checksum_stays_valid() {
        let mut f = vec![0u8; 60];
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f[14] = 0x45;
        f[16..18].copy_from_slice(&46u16.to_be_bytes());
        f[22] = 64;
        f[23] = 6;
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&[10, 0, 0, 2]);
        let csum = |h: &[u8]| {
            let mut s: u32 = h
                .chunks(2)
                .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
                .sum();
            while s > 0xffff {
                s = (s & 0xffff) + (s >> 16);
            }
            !(s as u16)
        };
        let c = csum(&f[14..34]);
        f[24..26].copy_from_slice(&c.to_be_bytes());
        for id in [1u16, 0xffff, 0, 4242] {
            set_ipv4_id(&mut f, id);
            assert_eq!(ipv4_id(&f), Some(id));
            assert_eq!(csum(&f[14..34]), 0, "id {id}");
        }
        // Not IPv4: untouched.
        let mut arp = f.clone();
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        let before = arp.clone();
        set_ipv4_id(&mut arp, 7);
        assert_eq!(arp, before);
        assert_eq!(ipv4_id(&arp), None);
    }
}
