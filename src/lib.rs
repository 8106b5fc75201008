//! nfc: a compiler for network-function chains (library API; being written).
