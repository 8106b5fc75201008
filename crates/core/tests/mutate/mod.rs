//! Random edits of parser inputs for the no-panic property tests: byte
//! flips, deletions, duplications, truncations and splices of tokens the
//! caller chooses (its format's punctuation and keys). Shared by the
//! chain.yaml test here and flash-rt's deployment test (`#[path]`).

use proptest::prelude::*;

/// One edit of the input bytes.
#[derive(Debug, Clone)]
pub enum Mutation {
    Flip(usize, u8),
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

/// One random edit; `Insert` picks from the caller's token list by index
/// (modulo its length).
pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<usize>(), 1usize..80).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

/// Apply `muts` to `text` (bytes; invalid UTF-8 is replaced), inserting
/// from `tokens`.
pub fn apply(text: &str, muts: &[Mutation], tokens: &[&str]) -> String {
    let mut b = text.as_bytes().to_vec();
    for m in muts {
        let len = b.len().max(1);
        match *m {
            Mutation::Flip(i, v) => {
                if !b.is_empty() {
                    b[i % len] = v;
                }
            }
            Mutation::Delete(i, n) => {
                let s = i % len;
                let e = (s + n).min(b.len());
                if s < e {
                    b.drain(s..e);
                }
            }
            Mutation::Insert(i, t) => {
                let at = i % (b.len() + 1);
                b.splice(at..at, tokens[t % tokens.len().max(1)].bytes());
            }
            Mutation::Duplicate(i, n) => {
                let s = i % len;
                let e = (s + n).min(b.len());
                if s < e {
                    let chunk: Vec<u8> = b[s..e].to_vec();
                    b.splice(e..e, chunk);
                }
            }
            Mutation::Truncate(i) => b.truncate(i % len),
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}
