//! The Rust NF API (FLASH's Rust library, §5.2): a received packet is an
//! owned [`Packet`] handle with exclusive, mutable access to its bytes in the
//! UMEM. An NF must hand it off exactly once — [`Packet::forward`] to an
//! output port or [`Packet::drop`] — and each consumes the handle, so the
//! bytes cannot be touched after hand-off (the borrow checker enforces it).
//! `process` must return the [`Handled`] token only a hand-off can create,
//! and the token's invariant lifetime ties it to this call's packet, so an
//! NF can neither skip a packet nor hand one off twice.

use std::marker::PhantomData;

/// What happened to a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Drop the packet (its frame is recycled).
    Drop,
    /// Send it out of this output port (the link on that port decides where).
    Port(u32),
}

/// Proof that a packet was handed off; only [`Packet`] methods create it.
#[derive(Debug)]
#[must_use = "return the Handled token from process()"]
pub struct Handled<'a> {
    pub(crate) verdict: Verdict,
    pub(crate) len: u32,
    _call: PhantomData<fn(&'a ()) -> &'a ()>,
}

impl Handled<'_> {
    /// The verdict recorded by the hand-off.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }
}

/// A received packet, owned by the NF until handed off.
#[derive(Debug)]
#[must_use = "a packet must be forwarded or dropped exactly once"]
pub struct Packet<'a> {
    buf: &'a mut [u8],
    len: u32,
    in_port: u32,
    _call: PhantomData<fn(&'a ()) -> &'a ()>,
}

/// Error growing a packet past its frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("packet length {asked} exceeds the frame capacity {cap}")]
pub struct TooLong {
    /// Requested length.
    pub asked: usize,
    /// Frame capacity.
    pub cap: usize,
}

impl<'a> Packet<'a> {
    /// Wrap `buf` (the whole usable frame) holding a `len`-byte frame.
    pub(crate) fn new(buf: &'a mut [u8], len: u32, in_port: u32) -> Packet<'a> {
        let len = len.min(buf.len() as u32);
        Packet {
            buf,
            len,
            in_port,
            _call: PhantomData,
        }
    }

    /// The frame bytes.
    pub fn data(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }

    /// The frame bytes, mutable.
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len as usize]
    }

    /// Input port the packet arrived on.
    pub fn in_port(&self) -> u32 {
        self.in_port
    }

    /// Bytes available for the frame (the length may grow up to this).
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Change the frame length (new bytes keep whatever the buffer held).
    pub fn set_len(&mut self, len: usize) -> Result<(), TooLong> {
        if len > self.buf.len() {
            return Err(TooLong {
                asked: len,
                cap: self.buf.len(),
            });
        }
        self.len = len as u32;
        Ok(())
    }

    /// Raw access for the C ABI adapter: (data pointer, len, cap).
    pub(crate) fn raw_parts(&mut self) -> (*mut u8, u32, u32) {
        (self.buf.as_mut_ptr(), self.len, self.buf.len() as u32)
    }

    /// Hand the packet to output `port`.
    pub fn forward(self, port: u32) -> Handled<'a> {
        Handled {
            verdict: Verdict::Port(port),
            len: self.len,
            _call: PhantomData,
        }
    }

    /// Drop the packet.
    #[allow(clippy::should_implement_trait)]
    pub fn drop(self) -> Handled<'a> {
        Handled {
            verdict: Verdict::Drop,
            len: self.len,
            _call: PhantomData,
        }
    }

    /// Hand off with a verdict decided elsewhere (e.g. by a C NF), with the
    /// frame length `len` (clamped to the capacity).
    pub fn finish(self, verdict: Verdict, len: u32) -> Handled<'a> {
        let len = len.min(self.buf.len() as u32);
        Handled {
            verdict,
            len,
            _call: PhantomData,
        }
    }
}

/// An NF written against the Rust API.
pub trait RustNf {
    /// Process one packet; hand it off exactly once.
    fn process<'a>(&mut self, pkt: Packet<'a>, now_ns: u64) -> Handled<'a>;
}

/// A Rust L2 forwarder (FLASH's L2fwd): rewrites the MACs, sends to port 0.
#[derive(Debug, Clone)]
pub struct L2Fwd {
    /// New destination MAC.
    pub dst: [u8; 6],
    /// New source MAC.
    pub src: [u8; 6],
}

impl RustNf for L2Fwd {
    fn process<'a>(&mut self, mut pkt: Packet<'a>, _now_ns: u64) -> Handled<'a> {
        let d = pkt.data_mut();
        if d.len() < 14 {
            return pkt.drop();
        }
        d[0..6].copy_from_slice(&self.dst);
        d[6..12].copy_from_slice(&self.src);
        pkt.forward(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run `nf` over `frame` with capacity `cap`; compare verdict and bytes.
    fn check(nf: &mut dyn RustNf, frame: &[u8], expect: (Verdict, &[u8])) {
        let mut buf = vec![0u8; frame.len().max(64)];
        buf[..frame.len()].copy_from_slice(frame);
        let h = nf.process(Packet::new(&mut buf, frame.len() as u32, 0), 0);
        let (verdict, len) = (h.verdict(), h.len as usize);
        assert_eq!(verdict, expect.0);
        assert_eq!(&buf[..len], expect.1);
    }

    #[test]
    fn l2fwd_rewrites_macs_and_drops_runts() {
        let mut nf = L2Fwd {
            dst: [2, 0, 0, 0, 0, 9],
            src: [2, 0, 0, 0, 0, 8],
        };
        let mut frame = vec![0xffu8; 12];
        frame.extend_from_slice(&[0x08, 0x00, 1, 2]);
        check(
            &mut nf,
            &frame,
            (
                Verdict::Port(0),
                &[2, 0, 0, 0, 0, 9, 2, 0, 0, 0, 0, 8, 8, 0, 1, 2],
            ),
        );
        check(&mut nf, &[1, 2, 3], (Verdict::Drop, &[1, 2, 3]));
    }

    #[test]
    fn set_len_is_bounded_by_the_frame() {
        let mut buf = [0u8; 16];
        let mut p = Packet::new(&mut buf, 10, 1);
        assert_eq!(p.set_len(17), Err(TooLong { asked: 17, cap: 16 }));
        p.set_len(16).unwrap();
        assert_eq!(p.data().len(), 16);
        assert_eq!(p.in_port(), 1);
        let h = p.forward(2);
        assert_eq!((h.verdict(), h.len), (Verdict::Port(2), 16));
    }
}
