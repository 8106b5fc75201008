//! The FastClick emitter: `nfc build --target fastclick` writes a `.click`
//! configuration for the chain and its plan, and `nfc build x.click` rewrites
//! an operator's configuration in place (FlowMage Fig. 7). The lowering is
//! plain data over `nfc-core` types and lives in `nfc_placer::fastclick`
//! (tested there); this module is the binary's entry point to it.

pub use nfc_placer::fastclick::{class_name, emit_chain, rewrite_click, validate_upstream};
