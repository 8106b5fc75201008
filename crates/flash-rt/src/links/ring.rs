//! A bounded multi-producer single-consumer ring of `Copy` entries living in
//! shared memory (so it works across processes: it holds no pointers, only
//! indices). Producers reserve a whole batch with one compare-and-swap on
//! `prod_head`, write their entries, then publish in reservation order by
//! advancing `prod_tail` (the DPDK/FreeBSD buf_ring scheme FLASH adopts for
//! its MPSC RX ring); the single consumer reads up to `prod_tail` and
//! releases slots by advancing `cons`. Partial batches are normal: enqueue
//! returns how many entries fit, which is the backpressure signal.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of the ring header (three cache lines: prod_head, prod_tail, cons).
pub const HEADER_BYTES: usize = 192;

/// A view of a ring placed in shared memory.
#[derive(Debug)]
pub struct ShmRing<T: Copy> {
    base: *mut u8,
    cap: u64,
    _t: PhantomData<T>,
}

// SAFETY: all shared state is accessed through atomics; entries are handed
// over with release/acquire on the indices.
unsafe impl<T: Copy + Send> Send for ShmRing<T> {}
unsafe impl<T: Copy + Send> Sync for ShmRing<T> {}

impl<T: Copy> ShmRing<T> {
    /// Bytes a ring of `cap` entries occupies (header + entries, rounded to 64).
    pub fn bytes(cap: u32) -> usize {
        (HEADER_BYTES + cap as usize * std::mem::size_of::<T>()).next_multiple_of(64)
    }

    /// View the ring at `base`.
    ///
    /// # Safety
    /// `base` must be 64-byte aligned, point to [`Self::bytes`]`(cap)` bytes
    /// of (shared) memory that stays mapped while the view lives, zeroed
    /// before first use; `cap` must be a power of two; every process must use
    /// the same `cap` and `T`.
    pub unsafe fn at(base: *mut u8, cap: u32) -> Self {
        debug_assert!(cap.is_power_of_two());
        ShmRing {
            base,
            cap: u64::from(cap),
            _t: PhantomData,
        }
    }

    fn word(&self, i: usize) -> &AtomicU64 {
        // SAFETY: the header holds three 8-byte-aligned words at 0, 64, 128.
        unsafe { &*self.base.add(i * 64).cast::<AtomicU64>() }
    }

    fn slot(&self, idx: u64) -> *mut T {
        // SAFETY: idx is masked below cap; entries follow the header.
        unsafe {
            self.base
                .add(HEADER_BYTES)
                .cast::<T>()
                .add((idx & (self.cap - 1)) as usize)
        }
    }

    /// Capacity in entries.
    pub fn capacity(&self) -> usize {
        self.cap as usize
    }

    /// Entries currently queued (a snapshot).
    pub fn len(&self) -> usize {
        let tail = self.word(1).load(Ordering::Acquire);
        let cons = self.word(2).load(Ordering::Acquire);
        tail.saturating_sub(cons) as usize
    }

    /// Whether the ring is empty (a snapshot).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Enqueue as many of `items` as fit (any number of concurrent
    /// producers); returns how many were enqueued, in order.
    pub fn enqueue_batch(&self, items: &[T]) -> usize {
        if items.is_empty() {
            return 0;
        }
        let (head_w, tail_w, cons_w) = (self.word(0), self.word(1), self.word(2));
        let mut head = head_w.load(Ordering::Relaxed);
        let n = loop {
            let cons = cons_w.load(Ordering::Acquire);
            let free = self.cap - (head - cons);
            let n = (items.len() as u64).min(free);
            if n == 0 {
                return 0;
            }
            match head_w.compare_exchange_weak(head, head + n, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => break n,
                Err(h) => head = h,
            }
        };
        for (i, it) in items[..n as usize].iter().enumerate() {
            // SAFETY: slots [head, head+n) are reserved for this producer.
            unsafe { self.slot(head + i as u64).write(*it) };
        }
        // Publish in reservation order: wait for earlier producers.
        let mut spins = 0u32;
        while tail_w.load(Ordering::Acquire) != head {
            spins += 1;
            if spins < 128 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        tail_w.store(head + n, Ordering::Release);
        n as usize
    }

    /// Entries published and not yet dequeued, read without dequeuing them
    /// (a restarted NF host uses it to find frames still in flight).
    pub fn peek_all(&self) -> Vec<T> {
        let cons = self.word(2).load(Ordering::Acquire);
        let tail = self.word(1).load(Ordering::Acquire);
        let n = tail.saturating_sub(cons).min(self.cap);
        // SAFETY: slots in [cons, tail) were published by producers.
        (0..n)
            .map(|i| unsafe { self.slot(cons + i).read() })
            .collect()
    }

    /// Dequeue up to `max` entries into `out` (single consumer only).
    pub fn dequeue_batch(&self, out: &mut Vec<T>, max: usize) -> usize {
        let cons_w = self.word(2);
        let cons = cons_w.load(Ordering::Relaxed);
        let tail = self.word(1).load(Ordering::Acquire);
        let n = (tail - cons).min(max as u64);
        for i in 0..n {
            // SAFETY: slots [cons, tail) were published by producers.
            out.push(unsafe { self.slot(cons + i).read() });
        }
        if n > 0 {
            cons_w.store(cons + n, Ordering::Release);
        }
        n as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::{alloc_zeroed, dealloc, Layout};

    struct Mem(*mut u8, Layout);
    impl Mem {
        fn new(bytes: usize) -> Mem {
            let l = Layout::from_size_align(bytes, 64).unwrap();
            // SAFETY: non-zero size.
            Mem(unsafe { alloc_zeroed(l) }, l)
        }
    }
    impl Drop for Mem {
        fn drop(&mut self) {
            // SAFETY: allocated with this layout.
            unsafe { dealloc(self.0, self.1) }
        }
    }
    unsafe impl Send for Mem {}
    unsafe impl Sync for Mem {}

    /// Enqueue `batches` (each a slice) in order, then dequeue with `max`
    /// per call; `expect` lists (enqueued per batch, dequeued total).
    fn check(cap: u32, batches: &[&[u64]], expect_enq: &[usize], expect_out: &[u64]) {
        let mem = Mem::new(ShmRing::<u64>::bytes(cap));
        // SAFETY: fresh zeroed aligned memory of the right size.
        let r = unsafe { ShmRing::<u64>::at(mem.0, cap) };
        let got: Vec<usize> = batches.iter().map(|b| r.enqueue_batch(b)).collect();
        assert_eq!(got, expect_enq);
        let mut out = vec![];
        while r.dequeue_batch(&mut out, 3) > 0 {}
        assert_eq!(out, expect_out);
        assert!(r.is_empty());
    }

    #[test]
    fn batches_fill_then_partial() {
        check(4, &[&[1, 2], &[3, 4, 5], &[6]], &[2, 2, 0], &[1, 2, 3, 4]);
        check(8, &[&[], &[9; 3]], &[0, 3], &[9, 9, 9]);
    }

    #[test]
    fn wraps_around() {
        let mem = Mem::new(ShmRing::<u64>::bytes(4));
        // SAFETY: as above.
        let r = unsafe { ShmRing::<u64>::at(mem.0, 4) };
        let mut out = vec![];
        for round in 0..10u64 {
            assert_eq!(r.enqueue_batch(&[round, round + 100, round + 200]), 3);
            out.clear();
            assert_eq!(r.dequeue_batch(&mut out, 8), 3);
            assert_eq!(out, vec![round, round + 100, round + 200]);
        }
    }

    #[test]
    fn concurrent_producers_lose_nothing_and_keep_per_producer_order() {
        const PRODUCERS: u64 = 3;
        const PER: u64 = 20_000;
        let mem = std::sync::Arc::new(Mem::new(ShmRing::<u64>::bytes(64)));
        let mut handles = vec![];
        for p in 0..PRODUCERS {
            let mem = mem.clone();
            handles.push(std::thread::spawn(move || {
                // SAFETY: shared aligned zeroed memory.
                let r = unsafe { ShmRing::<u64>::at(mem.0, 64) };
                let mut next = 0;
                while next < PER {
                    let batch: Vec<u64> =
                        (next..(next + 7).min(PER)).map(|i| (p << 32) | i).collect();
                    let n = r.enqueue_batch(&batch);
                    next += n as u64;
                    if n == 0 {
                        std::thread::yield_now();
                    }
                }
            }));
        }
        // SAFETY: as above.
        let r = unsafe { ShmRing::<u64>::at(mem.0, 64) };
        let mut seen = [0u64; PRODUCERS as usize];
        let mut out = vec![];
        let mut total = 0;
        while total < PRODUCERS * PER {
            out.clear();
            if r.dequeue_batch(&mut out, 16) == 0 {
                std::thread::yield_now();
            }
            for v in &out {
                let (p, i) = ((v >> 32) as usize, v & 0xffff_ffff);
                assert_eq!(i, seen[p], "producer {p} out of order");
                seen[p] += 1;
                total += 1;
            }
        }
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(seen, [PER; PRODUCERS as usize]);
    }
}
