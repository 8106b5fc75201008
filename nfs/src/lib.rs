//! `nfc-nfs` is the built-in NF library: C NFs written against
//! `nfs/include/nf.h`, each with its ground-truth `facts.yaml` and example
//! configs, plus the clang-19 build that turns NF sources (built-in or user)
//! into a shared object and LLVM IR.
