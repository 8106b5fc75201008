//! IR-level insight data (Clara §3.1): an NF lowered to LLVM IR for the
//! proxy NIC target, every instruction annotated (compute, stack memory,
//! packet memory, stateful memory, framework call) and written as a word of
//! the compacted vocabulary, per basic block and per function, with the
//! proxy compiler's machine-instruction counts per function when measured.
//!
//! `nfc-reducer` produces it (`insight_ir`), `nfc-smartnic` (generator,
//! accelerator classifier) and `nfc-predictor` (sequence models) consume it.

use serde::{Deserialize, Serialize};

/// What an IR instruction does, for the SmartNIC model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstrClass {
    /// Arithmetic, logic, comparisons, casts, address arithmetic, control flow.
    Compute,
    /// A load or store of a function-local (stack) variable: stateless.
    StackMemory,
    /// A load or store of packet bytes (stateless, per packet).
    PacketMemory,
    /// A load or store of state that persists across packets (globals and
    /// the NF's state instance, `ctx->state`).
    StatefulMemory,
    /// A load or store through a pointer whose target the annotation cannot
    /// name (neither stack, packet nor state).
    IndirectMemory,
    /// A call to the NF framework (nf.h helpers, libc, intrinsics).
    FrameworkCall,
    /// A call to one of the NF's own functions.
    Call,
}

/// One basic block: its compacted words and the class of each instruction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrBlock {
    pub name: String,
    pub words: Vec<String>,
    pub classes: Vec<InstrClass>,
    /// Memory accesses that are not stack accesses, in 32-bit words (an i64
    /// load is two), as the proxy ISA has to issue them.
    pub memory_words: u32,
}

/// Machine-code counts of one function, from the proxy NIC compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyCounts {
    /// Every machine instruction of the function.
    pub instructions: u32,
    /// Loads and stores whose base register is not the stack or frame pointer.
    pub memory: u32,
}

impl ProxyCounts {
    /// Machine instructions that are not non-stack memory accesses: what the
    /// compute model predicts (Clara's "compute instructions", stack traffic included).
    pub fn compute(&self) -> u32 {
        self.instructions.saturating_sub(self.memory)
    }
}

/// One defined function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrFunction {
    pub name: String,
    /// Defined by the framework header (nf.h), not by the NF: such functions
    /// are neither trained on nor evaluated.
    pub framework: bool,
    pub blocks: Vec<IrBlock>,
    /// Measured by the proxy compiler; `None` when it was not run.
    #[serde(default)]
    pub proxy: Option<ProxyCounts>,
    /// The NF's own functions this one calls directly (the call graph the
    /// per-packet path is summed over).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub callees: Vec<String>,
    /// Value-level signals of accelerator code that the compacted words
    /// drop (they write every constant as `const`), read after the
    /// function's framework-independent callees were inlined (Clara §3).
    #[serde(default)]
    pub signals: AccelSignals,
    /// The function's blocks with its framework-independent callees
    /// inlined (what the accelerator classifier reads, [`Self::accel_blocks`]);
    /// empty when nothing was inlined. The compute models read `blocks`,
    /// which match the proxy compiler's per-function counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inlined_blocks: Vec<IrBlock>,
    /// What running the function says about it being a CRC
    /// (`insight_exec`); `None` when it was not run (compute-model
    /// programs, callers that did not ask).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behaviour: Option<Behaviour>,
}

/// The behavioural CRC test's outcome for one function: the function is
/// run for real (in a child process) on chosen inputs, and its response to
/// single set message bits (its columns) is checked against the definition
/// of a CRC (see `nfc_reducer::insight_exec`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Behaviour {
    /// GF(2)-affine in `bits` message bits, and the columns are exactly
    /// x^j, x^(j+1), …, x^(j+bits-1) mod P for a generator P of width
    /// `width` (normal form, the x^width term implied) with 0 ≤ j ≤ width:
    /// the CRC recurrence, the last column fixed by P alone. `reflected`
    /// when the register holds the bits in reflected order.
    Crc {
        width: u32,
        poly: u64,
        reflected: bool,
        bits: u32,
        role: String,
    },
    /// Affine in its message bits under some role assignment, but no CRC
    /// recurrence (parity, bit reversal, copies, Toeplitz, keyed LFSR
    /// digests).
    Affine { role: String },
    /// Ran consistently, never affine (checksums, hashes, checks).
    NotAffine,
    /// No run could be made or completed (opaque inputs, external calls or
    /// tables, crashes, timeouts).
    NotExecutable { why: String },
}

impl Behaviour {
    /// The CRC proven by execution, as evidence text (width and polynomial).
    pub fn crc_evidence(&self) -> Option<String> {
        match self {
            Behaviour::Crc {
                width,
                poly,
                reflected,
                bits,
                role,
            } => Some(format!(
                "executed: CRC-{width} polynomial 0x{poly:0w$x}{} ({bits} message bits, {role})",
                if *reflected { " reflected" } else { "" },
                w = (*width as usize).div_ceil(4)
            )),
            _ => None,
        }
    }
}

/// Value-level evidence for accelerator identification (Clara §4.1), counted
/// per function on the IR by `insight_ir`: the constants and data flow that
/// tell a CRC (a polynomial reduction, or a table indexed by `crc ^ byte`)
/// from a plain hash (rotations, multiplications, additions) and a binary
/// search from a linear walk. "In a loop" means inside a back edge's span in
/// block layout order (clang's `-O0` layout keeps loops contiguous).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccelSignals {
    /// The polynomial-reduction step in a loop: an xor of a one-bit shift,
    /// `(x >> 1) ^ P` or `(x << 1) ^ P`, with P a constant that is not a
    /// complement mask (`0xff`, `0xffff`, …) or a variable (a parameterised
    /// polynomial, `-(x & 1) & P`), the shift possibly stored in the `-O0`
    /// local first when P is a constant (`c >>= 1; if (m) c ^= P;`); or a
    /// nibble/byte step, `(x >> 4) ^
    /// ((q & 0xf) * P)` (the reduction of the shifted-out bits as a product).
    #[serde(default)]
    pub xor_poly_in_loop: u32,
    /// Shift left or right by exactly one bit, in a loop.
    #[serde(default)]
    pub shift1_in_loop: u32,
    /// A load from a table whose index is `(x ^ y)` masked to a byte or a
    /// nibble (`and 0xff`, `and 0xf`, an 8-bit value, `lshr 4/24/28/56`),
    /// with the loaded entry xored in turn: the table-driven CRC step.
    #[serde(default)]
    pub table_xor_index: u32,
    /// The table step with the data xored in *after* the lookup: a
    /// register `R` replaced, in a loop, by an xor of a table entry indexed
    /// by bits of `R` alone (a constant shift and/or byte mask, no xor in
    /// the index), a constant shift of `R` and the data (a term read from
    /// memory, or xored into `R` by another store of the loop): `acc =
    /// ((acc << 8) & 0x3ff) ^ t[(acc >> 2) & 0xff] ^ *p++`. Every table
    /// term must be indexed by `R` (a cipher round indexing by several state
    /// words is not a CRC step); a tabulation hash indexes by the key, not
    /// by the register it updates.
    #[serde(default)]
    pub table_register_step: u32,
    /// A CRC written as its xor equations: an xor of at least three
    /// constant shifts (one may be zero) of one value, the amounts neither
    /// evenly spaced (a fold, `p ^ p >> 8 ^ p >> 16 ^ p >> 24`, or a prefix
    /// xor) nor pairing into a rotation
    /// (`crc = (crc << 8) ^ (x << 12) ^ (x << 5) ^ x`, a sparse polynomial
    /// product); or at least two xors of four or more single bits kept in
    /// local bit arrays (`nc[0] = d[31] ^ d[30] ^ … ^ c[7]`, one output bit
    /// each, as hardware CRC generators print them). Hash and cipher
    /// rounds rotate, multiply, or xor one shift at a time (xorshift,
    /// murmur's finaliser).
    #[serde(default)]
    pub xor_equations: u32,
    /// Rotations by constants: `(x << c) | (x >> (w - c))`.
    #[serde(default)]
    pub rotate_const: u32,
    /// Multiplication by a large odd constant (multiplicative hashing).
    #[serde(default)]
    pub mul_large_const: u32,
    /// 16-bit folding, `(x >> 16) + (x & 0xffff)` (Internet checksum).
    #[serde(default)]
    pub fold16: u32,
    /// Halving a sum or a difference in a loop, `(lo + hi) / 2`,
    /// `lo + ((hi - lo) >> 1)` (binary search).
    #[serde(default)]
    pub halving_in_loop: u32,
    /// A key masked by a variable compared with a variable in a loop,
    /// `(addr & mask) == prefix` (prefix lists, per-length tables).
    #[serde(default)]
    pub masked_compare_in_loop: u32,
    /// A table or child array indexed by key bits at a variable position in
    /// a loop, `child[(key >> shift) & 1]` (trie walks).
    #[serde(default)]
    pub key_bits_index_in_loop: u32,
    /// A prefix mask built from a length: an all-ones constant shifted by a
    /// variable amount, `~0u << (32 - len)` (rotations shift a variable by
    /// a constant instead).
    #[serde(default)]
    pub prefix_mask: u32,
    /// A data-dependent walk in a loop: a local variable (pointer or index)
    /// whose next value is loaded from memory addressed by its current
    /// value, also through a pointer local set from it (`h = &hosts[idx];
    /// idx = h->next;`), `node = node->child[bit]`, `i = next[i]` (trie, list and tree
    /// walks; a table CRC mixes its load with an xor instead).
    #[serde(default)]
    pub walk_in_loop: u32,
    /// Add-rotate-xor mixing: an xor, add or subtract with a value rotated
    /// by a constant, looking through `-O0` locals (SipHash, jhash rounds;
    /// a CRC shifts by one bit or a byte and never rotates).
    #[serde(default)]
    pub arx_mix: u32,
    /// Best-so-far in a loop: a value loaded from memory stored into a local
    /// variable in the body of an `if` inside a loop, the loop going on
    /// (`if (n->nh >= 0) best = n->nh;` then continue), as a *longest*
    /// match does; a first match leaves the loop right after the store
    /// (`action = r->action; break;`), a swap is not conditional, and a
    /// running minimum or maximum (`if (*c < est) est = *c;`) compares
    /// with the local it updates. A local the function also updates from
    /// its own value (`mlen = vec->len; … mlen -= 2;`, `w = vec->ptr; … w
    /// += 16;`: a work counter or a cursor, as an Internet checksum's chunk
    /// bookkeeping keeps) is no best-so-far:
    /// a longest match's best is only ever replaced.
    #[serde(default)]
    pub best_update_in_loop: u32,
    /// The next level of a multi-level table: a load whose address combines
    /// an entry of a level (a value loaded at an index that is key bits,
    /// or depends on such an entry) with key bits that come from no entry:
    /// next index = f(entry, key >> shift & mask), DIR-24-8's
    /// `tbl8[(e << 8) | (ip & 0xff)]`, DIR-16-8-8's `l2[e].entry[(a >> 8) &
    /// 0xff]`, following `-O0` pointer locals (`ptbl = &tbl24[i]; e =
    /// *ptbl`). A hash chain's next node (`hosts[heads[h]]`: an entry
    /// alone) and RC4's `S[(S[i] + S[j]) & 0xff]` (entries only) are not.
    #[serde(default)]
    pub two_level_lookup: u32,
    /// A walk step in a loop ([`Self::walk_in_loop`]) steered by key bits:
    /// the loaded address is indexed by key bits (`n = n->child[(k >> s) &
    /// 1]`), or the step is taken under a test of one bit at a variable
    /// position (`if (k & (1 << (31 - n->depth))) n = n->right;`): a trie.
    /// A list or hash-chain walk (`n = n->next`) is not.
    #[serde(default)]
    pub keyed_walk_in_loop: u32,
    /// An exact match leaving a loop: `==`/`!=` of a value read from a
    /// field or element with a whole (unmasked, unshifted) non-constant
    /// key, the branch on it leaving the loop (`if (h->src_ip == src_ip)
    /// return h;`, `while (n && n->hash != hash)`): hash chains, buckets,
    /// exact searches. An LPM compares masked keys.
    #[serde(default)]
    pub exact_match_exit_in_loop: u32,
    /// "Shorten and retry": a loop that shortens a value (`len--`,
    /// `n->pxlen--`, `x >>= c`) and, each time round, looks it up and
    /// tests for a hit — a call handed the shortened value (or the prefix
    /// object whose length it is) whose result is tested against null or
    /// zero (`for (i = 32; i >= 0; i--) if ((r = find(t, a, i))) return
    /// r;`), or an equality of a stored key with one computed from it, the
    /// length also building a mask, on a branch that leaves the loop. A
    /// retry loop whose counter the call never sees, and a reverse exact
    /// search (a decreasing index compared with nothing derived from it),
    /// are not. Also the lengths read from an array walked by the loop's
    /// index (`netbits = lens[i]`) when the length builds a prefix mask
    /// in the loop (all ones shifted by it) and the masked key is looked
    /// up as above: trying the configured prefix lengths in turn. Also
    /// (seventeenth session) a key *cut at a delimiter* — a pointer
    /// advanced past the `.` a search found in it (`p = strchr(p + 1,
    /// '.')`), a buffer truncated where one was found, or handed to a call
    /// that searches it for a delimiter and whose result the loop tests
    /// (`while (split_at_right(addr, delim))`) — and looked up again; a key
    /// buffer the loop formats from a shortened length (`snprintf(buf, n,
    /// "%d", bits)`) handed to the lookup; and a global key the lookup
    /// reads without being handed it, when the loop tests the key's byte
    /// at the shortened length against a delimiter (ucspi-tcp's
    /// `--rules_name.len`).
    #[serde(default)]
    pub shorten_retry_in_loop: u32,
    /// A walk that returns at its first match: in a function with a walk
    /// step ([`Self::walk_in_loop`]), a block of the loop that leaves it
    /// under a test that is no null test (a match test: a masked or exact
    /// compare, a length equality, a match helper's result) and hands a
    /// non-constant value out — a store into a local no other block of the
    /// loop writes (`-O0`'s return slot) or a return — that is not the
    /// result of a self-call. A longest match keeps walking past a match
    /// (or returns the deepest one it remembered); a walk that returns at
    /// the first match while descending finds the shortest covering entry,
    /// and one whose only match test is equality of the whole key is an
    /// exact lookup. In a function with no walk, a scan whose loop
    /// compares masked keys ([`Self::masked_compare_in_loop`]) is read the
    /// same way (seventeenth session): its first match is the longest only
    /// in an order the function does not establish (a table sorted
    /// elsewhere, a list its insert keeps sorted), which is not provable
    /// from the function.
    #[serde(default)]
    pub first_match_exit_in_walk: u32,
    /// Covering nodes pushed while walking: in a loop, a walked node (the
    /// walk local's own value, not a field of it) stored at a position
    /// given by a counter or cursor the loop also advances (`stack[cnt++]
    /// = node`, `*sp++ = node`): the matches of the descent kept so that
    /// the deepest can be taken afterwards (MRT's `radix_search_best`).
    /// A pre-order traversal pushes the node's *children* (fields), not
    /// the node.
    #[serde(default)]
    pub covering_stack_in_walk: u32,
    /// A polynomial step on state only: a one-bit step (as
    /// [`Self::xor_poly_in_loop`] finds it) whose register is seeded from
    /// global memory the function itself writes — a generator's state —
    /// and into which no other data enters (the Mersenne Twister's
    /// `x = (mt[i] & UM) | (mt[i+1] & LM); mt[i] = mt[i+MM] ^ (x >> 1) ^
    /// mag01[x & 1]`). A CRC divides a message: data read from outside the
    /// state it keeps (a buffer, an argument) enters its register; a table
    /// fill seeds it with each index.
    #[serde(default)]
    pub state_only_step: u32,
    /// The table step of a small or whole-register CRC (eighteenth
    /// session): a register `R` replaced, in a loop, by the entry of a
    /// table indexed by `R` xored with data (`crc = t[(crc ^ *p++) &
    /// 0xff]`, CRC-8's byte table; `c = t[c ^ ((x >> i) & 0xf)]`, a
    /// nibble table), the entry not xored with anything after the lookup
    /// ([`Self::table_xor_index`] needs that). The table is either a
    /// parameter (its contents are the caller's), or a constant of the
    /// unit whose entries are GF(2)-linear in the index (`t[0] = 0`,
    /// `t[i ^ j] = t[i] ^ t[j]`), as every CRC table is: a Pearson hash's
    /// or a cipher's S-box is a permutation and is not.
    #[serde(default)]
    pub table_whole_step: u32,
    /// A first-match scan over a table whose order is provable from the
    /// unit (eighteenth session): the masked compare of the scan reads
    /// the mask, or the prefix length a mask is built from, from a
    /// constant global table indexed by the loop's counter, and the
    /// prefix lengths of the table's entries (the mask's bits, or the
    /// length) never increase in table order — so the first entry that
    /// matches is the longest that matches. The order is the constant
    /// initialiser's, read from the unit, not assumed.
    #[serde(default)]
    pub ordered_table_scan: u32,
    /// An exact binary search (twentieth session): a loop that halves its
    /// range (`m = (l + r) / 2`) and leaves, handing a value out, on the
    /// outcome where the probe *equals* the key — an equality of a value
    /// read at the probe (or a comparator handed it) with the key, or the
    /// else of the two strict orders of one pair (`if (c > 0) … else if
    /// (c < 0) … else return m;`) — while the loop's own way out (the
    /// range emptied) hands out constants only (`return -1`). A search for
    /// the longest prefix over sorted range endpoints returns the entry
    /// it stopped at when the range empties (a floor), whatever it does
    /// on equality; an exact search finds nothing there.
    #[serde(default)]
    pub exact_bisection_exit: u32,
    /// A CRC remainder as the xor of precomputed powers (twentieth
    /// session): in a loop, a register xored with the entry of a global
    /// table indexed by the loop's counter, under a test of the data's
    /// bit at that counter (`if (m & (1 << i)) rem ^= r[i]`) — the
    /// remainder of a message is the xor of the remainders of the powers
    /// of x its bits select — where the table holds successive powers of
    /// x modulo one polynomial: a constant whose consecutive entries
    /// satisfy `t[i + 1] = (t[i] << 1) ^ (top bit of t[i] ? P : 0)` (or
    /// the reflected step) for one P, or a global the unit fills with a
    /// one-bit polynomial step. A random linear hash (H3) selects the rows
    /// of a random matrix, and a table of single bits selects the bits
    /// themselves: neither is a table of powers.
    #[serde(default)]
    pub power_xor_step: u32,
}

impl IrFunction {
    /// The blocks the accelerator classifier reads: with the callees
    /// inlined when there were any.
    pub fn accel_blocks(&self) -> &[IrBlock] {
        if self.inlined_blocks.is_empty() {
            &self.blocks
        } else {
            &self.inlined_blocks
        }
    }
    /// Every word of the function, blocks in order.
    pub fn words(&self) -> impl Iterator<Item = &str> {
        self.blocks
            .iter()
            .flat_map(|b| b.words.iter().map(|s| s.as_str()))
    }
    /// Number of IR instructions.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(|b| b.words.len()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Instructions of a class.
    pub fn count(&self, class: InstrClass) -> usize {
        self.blocks
            .iter()
            .map(|b| b.classes.iter().filter(|c| **c == class).count())
            .sum()
    }
    /// Non-stack memory accesses in 32-bit words (Clara counts these instead of predicting them).
    pub fn memory_words(&self) -> u32 {
        self.blocks.iter().map(|b| b.memory_words).sum()
    }
}

/// One compilation unit (an NF, or one synthesised program).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrUnit {
    /// Name of the NF or program.
    pub name: String,
    /// The proxy target triple the IR was produced for.
    pub target: String,
    pub functions: Vec<IrFunction>,
}
