//! The four AF_XDP rings as the kernel lays them out (`producer`, `consumer`,
//! `flags` words and a power-of-two array of entries, all in one mapping of
//! the socket fd), driven from user space: the fill and TX rings are
//! produced here, the RX and completion rings consumed. Cached indices keep
//! shared-word traffic to one load/store per batch, as in libxdp.

use super::mem::Mapping;
use std::sync::atomic::{AtomicU32, Ordering};

/// One mapped kernel ring with entries of type `T` (`u64` for fill and
/// completion, `libc::xdp_desc` for RX and TX).
#[derive(Debug)]
pub struct KernelRing<T: Copy> {
    producer: *const AtomicU32,
    consumer: *const AtomicU32,
    flags: *const AtomicU32,
    entries: *mut T,
    mask: u32,
    size: u32,
    cached_prod: u32,
    cached_cons: u32,
    _map: Mapping,
}

// SAFETY: the ring is only driven by its owning thread; the kernel is the other side.
unsafe impl<T: Copy> Send for KernelRing<T> {}

impl<T: Copy> KernelRing<T> {
    /// Wrap a mapping using the offsets from `XDP_MMAP_OFFSETS`.
    ///
    /// # Safety
    /// `map` must be the mapping of an AF_XDP ring of `size` entries of `T`
    /// and `off` its offsets.
    pub unsafe fn new(map: Mapping, off: &libc::xdp_ring_offset, size: u32) -> Self {
        let base = map.ptr();
        // SAFETY: offsets come from the kernel for this mapping.
        let (producer, consumer, flags, entries) = unsafe {
            (
                base.add(off.producer as usize).cast::<AtomicU32>(),
                base.add(off.consumer as usize).cast::<AtomicU32>(),
                base.add(off.flags as usize).cast::<AtomicU32>(),
                base.add(off.desc as usize).cast::<T>(),
            )
        };
        // SAFETY: producer/consumer point into the live mapping.
        let (p, c) = unsafe {
            (
                (*producer).load(Ordering::Acquire),
                (*consumer).load(Ordering::Acquire),
            )
        };
        KernelRing {
            producer,
            consumer,
            flags,
            entries,
            mask: size - 1,
            size,
            cached_prod: p,
            cached_cons: c,
            _map: map,
        }
    }

    /// Entries in the ring.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Whether the kernel asks for a wakeup (`XDP_RING_NEED_WAKEUP`).
    pub fn needs_wakeup(&self) -> bool {
        // SAFETY: flags points into the live mapping.
        unsafe { (*self.flags).load(Ordering::Relaxed) & libc::XDP_RING_NEED_WAKEUP != 0 }
    }

    // ---- producer side (fill, tx)

    /// Free slots for the producer (refreshing the cached consumer index when needed).
    pub fn free(&mut self, want: u32) -> u32 {
        let free = self.cached_cons.wrapping_sub(self.cached_prod);
        if free >= want {
            return free;
        }
        // SAFETY: live mapping.
        self.cached_cons =
            unsafe { (*self.consumer).load(Ordering::Acquire) }.wrapping_add(self.size);
        self.cached_cons.wrapping_sub(self.cached_prod)
    }

    /// Produce up to `items.len()` entries; returns how many were produced.
    pub fn produce(&mut self, items: &[T]) -> usize {
        let n = (self.free(items.len() as u32) as usize).min(items.len());
        for (i, it) in items[..n].iter().enumerate() {
            let idx = self.cached_prod.wrapping_add(i as u32) & self.mask;
            // SAFETY: idx is masked into the ring; the slot is owned by the producer.
            unsafe { self.entries.add(idx as usize).write(*it) };
        }
        if n > 0 {
            self.cached_prod = self.cached_prod.wrapping_add(n as u32);
            // SAFETY: live mapping; Release publishes the entries written above.
            unsafe { (*self.producer).store(self.cached_prod, Ordering::Release) };
        }
        n
    }

    /// Entries the producer has published that the kernel has not consumed yet.
    pub fn outstanding(&self) -> u32 {
        // SAFETY: live mapping.
        let cons = unsafe { (*self.consumer).load(Ordering::Acquire) };
        self.cached_prod.wrapping_sub(cons)
    }

    // ---- consumer side (rx, completion)

    /// Consume up to `max` entries into `out`; returns how many.
    pub fn consume(&mut self, out: &mut Vec<T>, max: usize) -> usize {
        let n = self.peek(out, max);
        self.release(n);
        n
    }

    /// Entries published but not yet consumed (by either side), read without
    /// consuming them: what a restarted NF host must not treat as free frames.
    pub fn in_flight(&self) -> Vec<T> {
        // SAFETY: live mapping.
        let (prod, cons) = unsafe {
            (
                (*self.producer).load(Ordering::Acquire),
                (*self.consumer).load(Ordering::Acquire),
            )
        };
        let n = prod.wrapping_sub(cons).min(self.size);
        (0..n)
            .map(|i| {
                let idx = cons.wrapping_add(i) & self.mask;
                // SAFETY: idx is masked into the ring.
                unsafe { self.entries.add(idx as usize).read() }
            })
            .collect()
    }

    /// Copy up to `max` waiting entries into `out` without consuming them
    /// (finish with [`Self::release`]); returns how many.
    pub fn peek(&mut self, out: &mut Vec<T>, max: usize) -> usize {
        let mut avail = self.cached_prod.wrapping_sub(self.cached_cons);
        if avail == 0 {
            // SAFETY: live mapping; Acquire pairs with the kernel's release.
            self.cached_prod = unsafe { (*self.producer).load(Ordering::Acquire) };
            avail = self.cached_prod.wrapping_sub(self.cached_cons);
        }
        let n = (avail as usize).min(max);
        for i in 0..n {
            let idx = self.cached_cons.wrapping_add(i as u32) & self.mask;
            // SAFETY: idx is masked; the kernel published this slot.
            out.push(unsafe { self.entries.add(idx as usize).read() });
        }
        n
    }

    /// Consume `n` entries returned by [`Self::peek`].
    pub fn release(&mut self, n: usize) {
        if n > 0 {
            self.cached_cons = self.cached_cons.wrapping_add(n as u32);
            // SAFETY: live mapping; Release hands the slots back.
            unsafe { (*self.consumer).store(self.cached_cons, Ordering::Release) };
        }
    }

    /// The shared consumer index (what the consumer has released so far).
    pub fn consumer_index(&self) -> u32 {
        // SAFETY: live mapping.
        unsafe { (*self.consumer).load(Ordering::Acquire) }
    }

    /// Entries waiting for the consumer.
    pub fn waiting(&mut self) -> u32 {
        // SAFETY: live mapping.
        self.cached_prod = unsafe { (*self.producer).load(Ordering::Acquire) };
        self.cached_prod.wrapping_sub(self.cached_cons)
    }

    /// Whether the consumer side has entries waiting.
    pub fn has_entries(&mut self) -> bool {
        self.waiting() != 0
    }
}
