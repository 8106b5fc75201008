//! `nfc-analyzer` learns what an NF does with state from its source: whether it
//! keeps per-flow state, the flow key, symmetry, write intensity, pointer
//! chasing, state objects, cost and accelerator candidates, each with evidence.
//! The static backend (tree-sitter) is the default; an LLM backend speaks to
//! any OpenAI-compatible endpoint.
