//! The fabric: one shared memfd holding every NF's inbox (MPSC ring of
//! [`LinkDesc`]), free-buffer return ring (MPSC ring of frame addresses,
//! sized so it can never overflow), wake flag and counters, plus per-link
//! counters. Monitor and NF hosts compute the same [`FabricLayout`] from the
//! deployment, so only the fd crosses the Unix socket. The monitor reads the
//! counters for `flash-rt stats` without disturbing the data path.

use super::ring::{ReserveLog, ShmRing, LOG_BYTES};
use crate::deploy::{Deployment, Topology};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// A packet descriptor crossing an NF→NF link.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LinkDesc {
    /// Address in the sender's UMEM (frame base + offset).
    pub addr: u64,
    /// Frame length.
    pub len: u32,
    /// Index of the link (in the topology) the packet took.
    pub link: u32,
}

/// Per-NF counters, in the order they are stored; names are the stats keys.
pub const NF_COUNTERS: &[&str] = &[
    "rx_iface",
    "rx_link",
    "tx_iface",
    "tx_link",
    "drop_verdict",
    "drop_no_route",
    "drop_oversize",
    "batches",
    "batch_packets",
    "copies",
    "copy_bytes",
    "backpressure_events",
    "throttle_sleeps",
    "to_busy",
    "to_interrupt",
    "sleeps",
    "wakeups_sent",
    "frames_returned",
    "tx_kicks",
    "frames_recovered",
    "wakeups_deferred",
    "batch_waits",
    "rx_moderated_sleeps",
    "contention_backoffs",
    "syscalls_refused",
];

/// Index of a counter in [`NF_COUNTERS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
#[allow(missing_docs)]
pub enum NfCounter {
    RxIface,
    RxLink,
    TxIface,
    TxLink,
    DropVerdict,
    DropNoRoute,
    DropOversize,
    Batches,
    BatchPackets,
    Copies,
    CopyBytes,
    BackpressureEvents,
    ThrottleSleeps,
    ToBusy,
    ToInterrupt,
    Sleeps,
    WakeupsSent,
    FramesReturned,
    TxKicks,
    FramesRecovered,
    /// Enqueues into a sleeping NF's ring below the wake batch (no wakeup).
    WakeupsDeferred,
    /// Sleeps taken on a partial batch while an upstream NF was running.
    BatchWaits,
    /// Sleeps on a timer instead of the RX socket (interrupt moderation).
    RxModeratedSleeps,
    /// Times a busy-polling NF found its CPU contended and backed off.
    ContentionBackoffs,
    /// System calls the NF host's seccomp sandbox refused.
    SyscallsRefused,
}

/// Per-link counters.
pub const LINK_COUNTERS: &[&str] = &["packets", "batches", "full_events"];

/// Polling mode values published in the NF block.
pub const MODE_NAMES: &[&str] = &["interrupt", "busy", "throttle", "starting", "stopped"];

const MAGIC: u64 = 0x464c_4153_4852_5431; // "FLASHRT1"

/// Offsets of everything in the fabric.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FabricLayout {
    pub size: usize,
    pub nf_block: Vec<usize>,
    pub inbox: Vec<usize>,
    pub inbox_cap: u32,
    pub free: Vec<usize>,
    pub free_cap: Vec<u32>,
    pub link_block: Vec<usize>,
    /// Per NF: its reserve log and held-frame list ("hand", see [`Hand`]).
    pub hand: Vec<usize>,
    /// Entries of each hand.
    pub hand_cap: u32,
}

/// Bytes of one NF block: sleeping flag, mode, pid line, then counters.
const NF_BLOCK: usize = (64 + NF_COUNTERS.len() * 8).next_multiple_of(64);
const LINK_BLOCK: usize = (LINK_COUNTERS.len() * 8).next_multiple_of(64);

impl FabricLayout {
    /// Lay out the fabric for a (valid) deployment.
    pub fn new(d: &Deployment, t: &Topology) -> FabricLayout {
        let mut off = 64usize;
        let n = d.nfs.len();
        let inbox_cap = d.monitor.inbox_size;
        let (mut nf_block, mut inbox, mut free, mut free_cap) = (vec![], vec![], vec![], vec![]);
        for nf in &d.nfs {
            nf_block.push(off);
            off += NF_BLOCK;
            inbox.push(off);
            off += ShmRing::<LinkDesc>::bytes(inbox_cap);
            let cap = nf.frames.next_power_of_two();
            free.push(off);
            free_cap.push(cap);
            off += ShmRing::<u64>::bytes(cap);
        }
        debug_assert_eq!(nf_block.len(), n);
        let hand_cap = (8 * d.monitor.batch_size.max(64)).next_power_of_two();
        let mut hand = vec![];
        for _ in &d.nfs {
            hand.push(off);
            off += (LOG_BYTES + HAND_HEADER + hand_cap as usize * 8).next_multiple_of(64);
        }
        let mut link_block = vec![];
        for _ in &t.links {
            link_block.push(off);
            off += LINK_BLOCK;
        }
        FabricLayout {
            size: off.next_multiple_of(4096),
            nf_block,
            inbox,
            inbox_cap,
            free,
            free_cap,
            link_block,
            hand,
            hand_cap,
        }
    }
}

/// Bytes of a hand's header (length, then the pending take: source ring
/// id + 1, source position, count).
const HAND_HEADER: usize = 64;

/// Hand entry encoding: owner NF index in the top 16 bits, frame address below.
pub fn hand_entry(owner: usize, addr: u64) -> u64 {
    ((owner as u64) << 48) | (addr & ((1 << 48) - 1))
}

/// Owner and address of a hand entry.
pub fn hand_split(e: u64) -> (usize, u64) {
    ((e >> 48) as usize, e & ((1 << 48) - 1))
}

/// The frames an NF host holds outside every shared ring (taken from its
/// inbox or completion ring and not yet handed on), mirrored in the
/// fabric so that when the host dies its restarted successor can return
/// them to their owners instead of losing them. Protocol: a take first
/// appends the frames and records where they came from (`take`), then
/// advances the source ring, then clears `take`; a give writes the ring
/// slots, rewrites the hand without the given frames (in the ring log's
/// `written` step), then publishes.
#[derive(Debug)]
pub struct Hand<'a> {
    len: &'a AtomicU64,
    take_src: &'a AtomicU64,
    take_pos: &'a AtomicU64,
    take_n: &'a AtomicU64,
    entries: *mut u64,
    cap: usize,
}

impl Hand<'_> {
    /// Capacity in entries.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Current entries.
    pub fn entries(&self) -> Vec<u64> {
        let n = (self.len.load(Ordering::Acquire) as usize).min(self.cap);
        // SAFETY: n entries inside the hand region.
        (0..n)
            .map(|i| unsafe { self.entries.add(i).read_volatile() })
            .collect()
    }

    /// Replace the entries (at most `capacity`; the rest is not mirrored).
    pub fn set(&self, items: impl Iterator<Item = u64>) {
        let mut n = 0;
        for e in items.take(self.cap) {
            // SAFETY: n < cap.
            unsafe { self.entries.add(n).write_volatile(e) };
            n += 1;
        }
        self.len.store(n as u64, Ordering::Release);
    }

    /// Append entries before taking them from source `src` at position
    /// `pos` (cleared with [`Self::taken`] once the source advanced).
    pub fn begin_take(&self, src: u64, pos: u64, items: impl Iterator<Item = u64>) {
        let mut n = self.len.load(Ordering::Relaxed) as usize;
        let first = n;
        for e in items {
            if n >= self.cap {
                break;
            }
            // SAFETY: n < cap.
            unsafe { self.entries.add(n).write_volatile(e) };
            n += 1;
        }
        self.take_pos.store(pos, Ordering::Relaxed);
        self.take_n.store((n - first) as u64, Ordering::Relaxed);
        self.take_src.store(src + 1, Ordering::Release);
        self.len.store(n as u64, Ordering::Release);
    }

    /// The take recorded by [`Self::begin_take`] completed.
    pub fn taken(&self) {
        self.take_src.store(0, Ordering::Release);
    }

    /// The take in progress, if any: (source id, source position, count).
    pub fn pending_take(&self) -> Option<(u64, u64, u64)> {
        let s = self.take_src.load(Ordering::Acquire);
        (s != 0).then(|| {
            (
                s - 1,
                self.take_pos.load(Ordering::Acquire),
                self.take_n.load(Ordering::Acquire),
            )
        })
    }
}

/// A mapped fabric.
#[derive(Debug)]
pub struct Fabric {
    base: *mut u8,
    pub layout: FabricLayout,
}

// SAFETY: the fabric is accessed only through atomics and the MPSC rings.
unsafe impl Send for Fabric {}
unsafe impl Sync for Fabric {}

impl Fabric {
    /// View a mapping of `layout.size` bytes.
    ///
    /// # Safety
    /// `base` must be a page-aligned mapping of at least `layout.size` bytes
    /// that outlives the view.
    pub unsafe fn at(base: *mut u8, layout: FabricLayout) -> Fabric {
        Fabric { base, layout }
    }

    /// Stamp the header (monitor, once, on a zeroed fabric).
    pub fn init(&self) {
        self.word(0).store(MAGIC, Ordering::Release);
    }

    /// Whether the header was stamped by a monitor.
    pub fn valid(&self) -> bool {
        self.word(0).load(Ordering::Acquire) == MAGIC
    }

    fn word(&self, off: usize) -> &AtomicU64 {
        // SAFETY: every offset used is 8-aligned and inside the layout.
        unsafe { &*self.base.add(off).cast::<AtomicU64>() }
    }

    /// Inbox of NF `nf`.
    pub fn inbox(&self, nf: usize) -> ShmRing<LinkDesc> {
        // SAFETY: offset and capacity from the shared layout; 64-aligned.
        unsafe { ShmRing::at(self.base.add(self.layout.inbox[nf]), self.layout.inbox_cap) }
    }

    /// Free-buffer return ring of NF `nf`.
    pub fn free_ring(&self, nf: usize) -> ShmRing<u64> {
        // SAFETY: as above.
        unsafe {
            ShmRing::at(
                self.base.add(self.layout.free[nf]),
                self.layout.free_cap[nf],
            )
        }
    }

    /// The "sleeping in poll()" flag of NF `nf`.
    pub fn sleeping(&self, nf: usize) -> &AtomicU32 {
        // SAFETY: first word of the NF block.
        unsafe { &*self.base.add(self.layout.nf_block[nf]).cast::<AtomicU32>() }
    }

    /// Current polling mode of NF `nf` (index into [`MODE_NAMES`]).
    pub fn mode(&self, nf: usize) -> &AtomicU64 {
        self.word(self.layout.nf_block[nf] + 8)
    }

    /// Pid of the host running NF `nf` (0 when none attached).
    pub fn pid(&self, nf: usize) -> &AtomicU64 {
        self.word(self.layout.nf_block[nf] + 16)
    }

    /// Counter `c` of NF `nf`.
    pub fn nf_counter(&self, nf: usize, c: NfCounter) -> &AtomicU64 {
        self.word(self.layout.nf_block[nf] + 64 + c as usize * 8)
    }

    /// The reserve log of NF `nf` (its enqueue in progress).
    pub fn log(&self, nf: usize) -> ReserveLog<'_> {
        // SAFETY: LOG_BYTES at the start of the NF's hand area.
        unsafe { ReserveLog::at(self.base.add(self.layout.hand[nf])) }
    }

    /// The held-frame list of NF `nf`.
    pub fn hand(&self, nf: usize) -> Hand<'_> {
        let off = self.layout.hand[nf] + LOG_BYTES;
        Hand {
            len: self.word(off),
            take_src: self.word(off + 8),
            take_pos: self.word(off + 16),
            take_n: self.word(off + 24),
            // SAFETY: entries follow the header inside the hand area.
            entries: unsafe { self.base.add(off + HAND_HEADER).cast::<u64>() },
            cap: self.layout.hand_cap as usize,
        }
    }

    /// Free frames of NF `nf` (its pool plus its fill rings), published by its host.
    pub fn free_gauge(&self, nf: usize) -> &AtomicU64 {
        self.word(self.layout.nf_block[nf] + 24)
    }

    /// Counter `i` (index into [`LINK_COUNTERS`]) of link `link`.
    pub fn link_counter(&self, link: usize, i: usize) -> &AtomicU64 {
        self.word(self.layout.link_block[link] + i * 8)
    }

    /// All counters of NF `nf` by name.
    pub fn nf_counters(&self, nf: usize) -> Vec<(&'static str, u64)> {
        NF_COUNTERS
            .iter()
            .enumerate()
            .map(|(i, name)| {
                (
                    *name,
                    self.word(self.layout.nf_block[nf] + 64 + i * 8)
                        .load(Ordering::Relaxed),
                )
            })
            .collect()
    }
}
