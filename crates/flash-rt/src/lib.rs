//! `flash-rt` runs NF chains: offline over pcap files (the reference executor,
//! nfc's oracle for what a chain does to each packet) and, on line, as a
//! FLASH-style AF_XDP runtime with a privileged monitor and unprivileged NF
//! hosts. It never links compiler crates; it reads emitted deployments.

pub mod counters;
pub mod deploy;
pub mod host;
pub mod links;
pub mod monitor;
pub mod offline;
pub mod rss;
pub mod signals;
pub mod trace;
pub mod xdp;
