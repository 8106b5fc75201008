//! Spanned YAML tree (being written).
