//! One home for what every packet-handling crate needs: the `nf.h` ABI
//! mirror ([`abi`]), the Toeplitz hash and RSS input ([`rss`]), Ethernet/IPv4
//! frame parsing and crafting ([`packet`], [`craft`]) and pcap files
//! ([`pcap`], through the `pcap-file` crate).
//!
//! A plain crate: no compiler crate and no heavy native library, so the
//! placer, the reducer, the runtime and the NF library can all use it.

pub mod abi;
pub mod craft;
pub mod packet;
pub mod packets;
pub mod pcap;
pub mod rss;
