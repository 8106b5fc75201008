//! Links between NFs, in user-space shared memory (the stock kernel cannot
//! redirect between AF_XDP sockets as FLASH's patched kernel does):
//!
//! - [`ring`]: a lock-free MPSC descriptor ring with batched enqueue (one CAS
//!   reservation per batch, FLASH §4.2/§4.3) and batched dequeue; every NF's
//!   inbox is one, so fan-in from many upstream NFs is safe.
//! - [`fabric`]: the layout of the one shared "fabric" memfd the monitor
//!   creates: per-NF inbox, per-NF free-buffer return ring, wake flag and
//!   counters, and per-link counters.
//!
//! Zero-copy links pass UMEM descriptors (same UMEM, no copy); single-copy
//! links pass descriptors into the sender's UMEM, which the receiver maps
//! read-only and copies from once into its own frames. Frames always go back
//! to the NF that owns them (its partition of the UMEM) through that NF's
//! return ring — the free-buffer rebalancing between the paths that consume
//! frames (completion, drops, copies) and the path that needs them (fill).

pub mod fabric;
pub mod recover;
pub mod ring;
