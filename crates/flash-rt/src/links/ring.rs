//! A bounded multi-producer single-consumer ring of `Copy` entries living in
//! shared memory (so it works across processes: it holds no pointers, only
//! indices). Producers reserve a whole batch with one compare-and-swap on
//! `prod_head`, write their entries, then publish in reservation order by
//! advancing `prod_tail` (the DPDK/FreeBSD buf_ring scheme FLASH adopts for
//! its MPSC RX ring); the single consumer reads up to `prod_tail` and
//! releases slots by advancing `cons`. Partial batches are normal: enqueue
//! returns how many entries fit, which is the backpressure signal.
//!
//! Producers may die (an NF host is SIGKILLed) between reserving slots and
//! publishing them, which would leave `prod_tail` stuck below the dead
//! reservation and freeze every later producer. So an enqueue can be
//! *logged* ([`ShmRing::enqueue_batch_logged`]): the producer records its
//! reservation and progress in a [`ReserveLog`] in shared memory, and
//! whoever notices the death (the monitor) calls [`ShmRing::recover`] with
//! the dead producer's log: a reservation whose entries were fully written
//! is published, one whose entries may be half-written is published as
//! *skip* entries the consumer drops (the caller chooses the skip value).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of the ring header (three cache lines: prod_head, prod_tail, cons).
pub const HEADER_BYTES: usize = 192;

const LOG_IDLE: u64 = 0;
const LOG_RESERVING: u64 = 1;
const LOG_RESERVED: u64 = 2;
const LOG_WRITTEN: u64 = 3;

/// Bytes of a [`ReserveLog`].
pub const LOG_BYTES: usize = 64;

/// A producer's record of its enqueue in progress (one cache line of
/// shared memory owned by that producer): ring id, first reserved slot,
/// slot count and state (idle, reserving, reserved, written).
#[derive(Debug)]
pub struct ReserveLog<'a> {
    ring: &'a AtomicU64,
    start: &'a AtomicU64,
    n: &'a AtomicU64,
    state: &'a AtomicU64,
}

impl<'a> ReserveLog<'a> {
    /// View the log at `base`.
    ///
    /// # Safety
    /// `base` must be 8-aligned and point to [`LOG_BYTES`] bytes of (shared)
    /// memory that outlive the view, zeroed before first use.
    pub unsafe fn at(base: *mut u8) -> ReserveLog<'a> {
        // SAFETY: four 8-aligned words inside the caller's region.
        unsafe {
            ReserveLog {
                ring: &*base.cast::<AtomicU64>(),
                start: &*base.add(8).cast::<AtomicU64>(),
                n: &*base.add(16).cast::<AtomicU64>(),
                state: &*base.add(24).cast::<AtomicU64>(),
            }
        }
    }

    /// Ring id of the enqueue in progress, if any.
    pub fn active_ring(&self) -> Option<u64> {
        (self.state.load(Ordering::Acquire) != LOG_IDLE).then(|| self.ring.load(Ordering::Acquire))
    }
}

/// What [`ShmRing::recover`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// The log showed no unpublished reservation.
    Nothing,
    /// A fully written reservation of this many entries was published.
    Published(u64),
    /// A possibly half-written reservation of this many entries was
    /// replaced by skip entries and published.
    Skipped(u64),
    /// Earlier reservations stayed unpublished through the grace period.
    Stuck,
}

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
        let (head_w, cons_w) = (self.word(0), self.word(2));
        let mut head = head_w.load(Ordering::Relaxed);
        let n = loop {
            let cons = cons_w.load(Ordering::Acquire);
            let Some(free) = free_slots(self.cap, head, cons) else {
                head = head_w.load(Ordering::Relaxed);
                continue;
            };
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
        self.publish(head, n);
        n as usize
    }

    /// Like [`Self::enqueue_batch`], recording the reservation in `log`
    /// (ring id `ring`) so a crash at any point can be repaired with
    /// [`Self::recover`]; `written` runs after the entries are in place and
    /// before they are published (the host shrinks its held-frame list
    /// there: from then on the frames count as being in this ring).
    pub fn enqueue_batch_logged(
        &self,
        items: &[T],
        log: &ReserveLog<'_>,
        ring: u64,
        written: impl FnOnce(usize),
    ) -> usize {
        if items.is_empty() {
            return 0;
        }
        let (head_w, cons_w) = (self.word(0), self.word(2));
        log.ring.store(ring, Ordering::Relaxed);
        log.state.store(LOG_RESERVING, Ordering::Release);
        let mut head = head_w.load(Ordering::Relaxed);
        let n = loop {
            let cons = cons_w.load(Ordering::Acquire);
            let Some(free) = free_slots(self.cap, head, cons) else {
                head = head_w.load(Ordering::Relaxed);
                continue;
            };
            let n = (items.len() as u64).min(free);
            if n == 0 {
                log.state.store(LOG_IDLE, Ordering::Release);
                return 0;
            }
            log.start.store(head, Ordering::Relaxed);
            log.n.store(n, Ordering::Release);
            match head_w.compare_exchange_weak(head, head + n, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => break n,
                Err(h) => head = h,
            }
        };
        log.state.store(LOG_RESERVED, Ordering::Release);
        for (i, it) in items[..n as usize].iter().enumerate() {
            // SAFETY: slots [head, head+n) are reserved for this producer.
            unsafe { self.slot(head + i as u64).write(*it) };
        }
        written(n as usize);
        log.state.store(LOG_WRITTEN, Ordering::Release);
        self.publish(head, n);
        log.state.store(LOG_IDLE, Ordering::Release);
        n as usize
    }

    /// Wait for earlier producers, then publish `[head, head+n)`.
    fn publish(&self, head: u64, n: u64) {
        let tail_w = self.word(1);
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
    }

    /// Repair what a dead producer left per its `log` (see the module doc):
    /// a fully written reservation is published, a possibly half-written
    /// one is overwritten with `skip` entries and published. Waits at most
    /// `grace` for live producers holding earlier reservations to publish
    /// theirs. Returns what was done.
    pub fn recover(&self, log: &ReserveLog<'_>, skip: T, grace: std::time::Duration) -> Recovery {
        let state = log.state.load(Ordering::Acquire);
        let (start, n) = (
            log.start.load(Ordering::Acquire),
            log.n.load(Ordering::Acquire),
        );
        let head = self.word(0).load(Ordering::Acquire);
        let tail_w = self.word(1);
        let deadline = std::time::Instant::now() + grace;
        let wait_tail = |target: u64| -> bool {
            loop {
                let t = tail_w.load(Ordering::Acquire);
                if t >= target {
                    return t == target;
                }
                if std::time::Instant::now() >= deadline {
                    return false;
                }
                std::thread::yield_now();
            }
        };
        let r = match state {
            LOG_IDLE => Recovery::Nothing,
            // The CAS may or may not have happened: the reservation at
            // `start` is the dead producer's only if nobody publishes it.
            LOG_RESERVING => {
                if head < start + n || tail_w.load(Ordering::Acquire) > start {
                    Recovery::Nothing
                } else if wait_tail(start) {
                    // Every earlier reservation is published and `start`
                    // stays unpublished: give live owners the grace period.
                    let until = std::time::Instant::now() + grace;
                    while std::time::Instant::now() < until
                        && tail_w.load(Ordering::Acquire) == start
                    {
                        std::thread::yield_now();
                    }
                    if tail_w.load(Ordering::Acquire) == start {
                        self.fill_skip(start, n, skip);
                        tail_w.store(start + n, Ordering::Release);
                        Recovery::Skipped(n)
                    } else {
                        Recovery::Nothing
                    }
                } else {
                    Recovery::Stuck
                }
            }
            LOG_RESERVED | LOG_WRITTEN => {
                if tail_w.load(Ordering::Acquire) > start {
                    Recovery::Nothing
                } else if wait_tail(start) {
                    if state == LOG_RESERVED {
                        self.fill_skip(start, n, skip);
                    }
                    tail_w.store(start + n, Ordering::Release);
                    if state == LOG_RESERVED {
                        Recovery::Skipped(n)
                    } else {
                        Recovery::Published(n)
                    }
                } else {
                    Recovery::Stuck
                }
            }
            _ => Recovery::Nothing,
        };
        log.state.store(LOG_IDLE, Ordering::Release);
        r
    }

    fn fill_skip(&self, start: u64, n: u64, skip: T) {
        for i in 0..n {
            // SAFETY: the dead producer's reserved, unpublished slots.
            unsafe { self.slot(start + i).write(skip) };
        }
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

    /// Copy up to `max` published entries into `out` without dequeuing
    /// them (single consumer; finish with [`Self::release`]); returns the
    /// consumer index they start at and how many were copied.
    pub fn peek_batch(&self, out: &mut Vec<T>, max: usize) -> (u64, usize) {
        let cons = self.word(2).load(Ordering::Relaxed);
        let tail = self.word(1).load(Ordering::Acquire);
        let n = (tail - cons).min(max as u64);
        for i in 0..n {
            // SAFETY: slots [cons, tail) were published by producers.
            out.push(unsafe { self.slot(cons + i).read() });
        }
        (cons, n as usize)
    }

    /// Dequeue the `n` entries returned by [`Self::peek_batch`].
    pub fn release(&self, n: usize) {
        if n > 0 {
            let cons_w = self.word(2);
            let cons = cons_w.load(Ordering::Relaxed);
            cons_w.store(cons + n as u64, Ordering::Release);
        }
    }

    /// The consumer index (entries dequeued so far).
    pub fn consumer_index(&self) -> u64 {
        self.word(2).load(Ordering::Acquire)
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

/// Free slots for a producer that read the head as `head` when the
/// consumer is at `cons`; None when that head is stale: with several
/// producers, others may have reserved past it and the consumer consumed
/// past it since it was read (the reservation's compare-exchange would fail
/// anyway), so `head − cons` must not be taken — it underflowed and killed
/// the NF host in debug builds (flash-dag's merge into `out`, two
/// producers: the DAG stalled behind a dead `mon_a`, docs/predictor.md).
fn free_slots(cap: u64, head: u64, cons: u64) -> Option<u64> {
    cap.checked_sub(head.checked_sub(cons)?)
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

    /// A producer that dies after reserving (entries possibly half
    /// written) must not freeze later producers: recovery publishes skip
    /// entries in its place; one that dies after writing gets its entries
    /// published.
    #[test]
    fn recover_dead_reservation() {
        for written in [false, true] {
            let mem = std::sync::Arc::new(Mem::new(ShmRing::<u64>::bytes(8) + LOG_BYTES));
            // SAFETY: fresh zeroed aligned memory.
            let r = unsafe { ShmRing::<u64>::at(mem.0, 8) };
            // SAFETY: the log lives after the ring.
            let log = unsafe { ReserveLog::at(mem.0.add(ShmRing::<u64>::bytes(8))) };
            assert_eq!(r.enqueue_batch(&[1]), 1);
            // The "dead" producer: reserve 2 slots, write them, never publish.
            log.ring.store(7, Ordering::Relaxed);
            log.start.store(1, Ordering::Relaxed);
            log.n.store(2, Ordering::Relaxed);
            r.word(0).store(3, Ordering::Release);
            r.fill_skip(1, 2, 42);
            log.state.store(
                if written { LOG_WRITTEN } else { LOG_RESERVED },
                Ordering::Release,
            );
            assert_eq!(log.active_ring(), Some(7));
            // A live producer reserves after it and blocks publishing.
            let m2 = mem.clone();
            let live = std::thread::spawn(move || {
                // SAFETY: as above.
                let r = unsafe { ShmRing::<u64>::at(m2.0, 8) };
                r.enqueue_batch(&[5, 6])
            });
            while r.word(0).load(Ordering::Acquire) != 5 {
                std::thread::yield_now();
            }
            let got = r.recover(&log, 0, std::time::Duration::from_secs(5));
            assert_eq!(
                got,
                if written {
                    Recovery::Published(2)
                } else {
                    Recovery::Skipped(2)
                }
            );
            assert_eq!(live.join().unwrap(), 2);
            let mut out = vec![];
            while r.dequeue_batch(&mut out, 8) > 0 {}
            let mid = if written { 42 } else { 0 };
            assert_eq!(out, vec![1, mid, mid, 5, 6]);
            assert_eq!(log.active_ring(), None);
            assert_eq!(
                r.recover(&log, 0, std::time::Duration::ZERO),
                Recovery::Nothing
            );
        }
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
    fn a_stale_head_behind_the_consumer_is_re_read_not_subtracted() {
        assert_eq!(free_slots(64, 120, 100), Some(44));
        assert_eq!(free_slots(64, 164, 100), Some(0));
        // Read head 100; since then other producers reserved to 130 and
        // the consumer consumed to 120.
        assert_eq!(free_slots(64, 100, 120), None);
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
