//! `nfc-reducer` specialises NFs to their configured rules and removes
//! unused, duplicated and overwritten logic across a chain (NFReducer), on
//! LLVM 19 IR through inkwell.
