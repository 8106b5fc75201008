//! Repairs after an NF host dies (the monitor calls this when the host's
//! pidfd fires): a reservation the host held in a downstream inbox or an
//! owner's free-buffer ring is published (if its entries were fully written)
//! or replaced by skip entries (if they may be half-written), so the ring's
//! other producers are not frozen behind it. The frames the host held are
//! returned by its restarted successor from the fabric's hand (see
//! [`super::fabric::Hand`] and `NfHost::attach`).

use super::fabric::{Fabric, LinkDesc};
use super::ring::Recovery;
use crate::deploy::{Deployment, Topology};
use std::time::Duration;

/// Link index of a skipped inbox entry (never a real link).
pub const SKIP_LINK: u32 = u32::MAX;
/// Address of a skipped free-ring entry (never a real frame).
pub const SKIP_FRAME: u64 = u64::MAX;

/// How long live producers get to publish reservations older than the dead one's.
const GRACE: Duration = Duration::from_millis(50);

/// Ring id of NF `nf`'s inbox in reserve logs.
pub fn inbox_ring_id(nf: usize) -> u64 {
    2 * nf as u64
}

/// Ring id of NF `nf`'s free-buffer ring in reserve logs.
pub fn free_ring_id(nf: usize) -> u64 {
    2 * nf as u64 + 1
}

/// What was repaired for one dead NF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadNfRepair {
    /// The ring it was enqueueing into, if any, and the outcome.
    pub ring: Option<(String, Recovery)>,
}

impl DeadNfRepair {
    /// One line for the monitor log.
    pub fn describe(&self) -> String {
        match &self.ring {
            None => "no enqueue in progress".into(),
            Some((r, Recovery::Nothing)) => format!("enqueue into {r} had completed"),
            Some((r, Recovery::Published(n))) => {
                format!("published its {n} written entries in {r}")
            }
            Some((r, Recovery::Skipped(n))) => {
                format!("skipped its {n} half-written entries in {r}")
            }
            Some((r, Recovery::Stuck)) => {
                format!("{r} still blocked by an older unpublished reservation")
            }
        }
    }
}

/// Repair the rings NF `nf` (now dead) was enqueueing into.
pub fn recover_dead_nf(
    fabric: &Fabric,
    _topo: &Topology,
    dep: &Deployment,
    nf: usize,
) -> DeadNfRepair {
    let log = fabric.log(nf);
    let Some(ring) = log.active_ring() else {
        return DeadNfRepair { ring: None };
    };
    let target = (ring / 2) as usize;
    if target >= dep.nfs.len() {
        return DeadNfRepair { ring: None };
    }
    let name = dep.nfs[target].id.clone();
    let (what, r) = if ring % 2 == 0 {
        let skip = LinkDesc {
            addr: 0,
            len: 0,
            link: SKIP_LINK,
        };
        (
            format!("the inbox of `{name}`"),
            fabric.inbox(target).recover(&log, skip, GRACE),
        )
    } else {
        (
            format!("the free ring of `{name}`"),
            fabric.free_ring(target).recover(&log, SKIP_FRAME, GRACE),
        )
    };
    DeadNfRepair {
        ring: Some((what, r)),
    }
}
