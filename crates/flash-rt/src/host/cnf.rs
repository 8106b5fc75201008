//! C NFs (nf.h ABI v1) behind the Rust NF API: the shared object is loaded
//! with the reference executor's loader ([`crate::offline::abi::NfLibrary`]),
//! so on-line and off-line runs use the same load, ABI check and `nf_init`
//! path; one state instance is allocated for the single worker.

use super::packet::{Handled, Packet, RustNf, Verdict};
use crate::offline::abi::{NfCtx, NfLibrary, NfPacket, StateBlock};
use crate::xdp::{FlashError, Result};
use std::path::Path;

/// A loaded C NF with its state instance.
#[derive(Debug)]
pub struct CNf {
    lib: NfLibrary,
    state: StateBlock,
}

impl CNf {
    /// Load `object` for NF `id`, run `nf_init(config)` and allocate its state
    /// (`scratch` is a writable directory for the loader's private copy).
    pub fn load(
        id: &str,
        object: &Path,
        config: &[(String, String)],
        scratch: &Path,
    ) -> Result<CNf> {
        let nf_err = |message: String| FlashError::Nf {
            nf: id.to_string(),
            message,
        };
        let lib =
            NfLibrary::load(id, object, config, scratch).map_err(|e| nf_err(e.to_string()))?;
        let mut state = StateBlock::new(lib.state_size).map_err(|e| nf_err(e.to_string()))?;
        state.reset(lib.state_init);
        Ok(CNf { lib, state })
    }

    /// Output ports the NF declares.
    pub fn n_ports(&self) -> u32 {
        self.lib.n_ports
    }
}

impl RustNf for CNf {
    fn process<'a>(&mut self, mut pkt: Packet<'a>, now_ns: u64) -> Handled<'a> {
        let in_port = pkt.in_port();
        let (data, len, cap) = pkt.raw_parts();
        let mut p = NfPacket {
            data,
            len,
            cap,
            in_port,
            reserved: 0,
        };
        let mut ctx = NfCtx {
            state: self.state.ptr(),
            now_ns,
            worker: 0,
            n_workers: 1,
        };
        // SAFETY: data points to `cap` bytes owned by this packet for the
        // call; ctx.state is this NF's state instance; the ABI forbids
        // touching memory outside [data, data+cap).
        let v = unsafe { (self.lib.process)(&mut ctx, &mut p) };
        let verdict = if v < 0 {
            Verdict::Drop
        } else {
            Verdict::Port(v as u32)
        };
        pkt.finish(verdict, p.len)
    }
}
