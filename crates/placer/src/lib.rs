//! `nfc-placer` chooses how a chain runs on a multi-core machine: which header
//! fields the NIC hashes, the Toeplitz key and indirection table realising that
//! choice, and which NFs keep per-core (shared-nothing) or shared state. It
//! solves an ILP with good_lp/HiGHS.
