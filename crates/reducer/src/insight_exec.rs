//! The behavioural CRC test: run a function for real and check the
//! definition of a CRC on what it computes (issue 19, thirteenth session).
//!
//! **Principle.** A CRC of width n with generator P maps a message to
//! `R = (I·x^k + M(x)·x^a) mod P`, complemented or not (`^ X`), where
//! `M(x) = Σ m_i x^(k-i)` holds the k message bits in processing order,
//! I is the preset and a ∈ [0, n] the augmentation (a = n for the direct and
//! table forms, a = 0 for a register the data is shifted into, as a syndrome
//! or check is computed). So the map is GF(2)-affine, `f(m) = f(0) ⊕ Σ m_i
//! c_i`, and the column of message bit i is `c_i = x^(a+k-i) mod P`: the
//! columns are the k consecutive powers x^a … x^(a+k-1) mod P, each the
//! previous times x (`mulx_P`), the last one x^a — fixed by P and a ≤ n,
//! never by a free key. Preset and final xor only move f(0). A register
//! kept reflected is the same after reversing its n bits; one kept shifted
//! (`crc << 1` for CRC-7) after removing the shift; one stored byte-swapped
//! after a byte swap. The implementation style (bitwise, tables, nibbles,
//! slicing, xor equations, syndromes) does not enter: only the function's
//! values do, and the message bits may be read in any order (words, bits of
//! a byte either way), because the test asks for the *set* of columns.
//!
//! What fails: Internet checksum, Adler, Fletcher and every multiplicative
//! or add-rotate hash are not affine (carries); parity folds have width 1;
//! bit reversal, copies, whitening and packers are affine but never reach
//! the feedback (the largest exponent stays below n: no P is ever used);
//! Toeplitz hashes and xorshift mixes give columns that are no run of
//! powers of any P; a keyed LFSR digest's columns are such a run, but
//! starting at the key's own exponent, which is not in [0, n] unless the key
//! happens to be one of the n + 1 values x^0 … x^n (probability about
//! (n + 1)/2^n). The test is exact on the columns; affinity is sampled
//! ([`RANDOM_CHECKS`] random messages must agree with the columns' xor).
//!
//! **Harness.** Third-party code can crash or loop, so it never runs in the
//! nfc process: the unit's C source is compiled with clang-19 for i386
//! (ILP32 and little-endian like the proxy riscv32 target, so `long` and
//! pointers are 32 bits as in the lowered IR), freestanding and without
//! libc (`-nostdinc`, the lowering's own include path, `-nostdlib -static`,
//! a tiny `_start` with raw system calls), together with a generated
//! driver for every function, into one static executable per unit.
//! Anything external a function reaches (a call, an extern table) resolves
//! to address 0, so the run that reaches it crashes and, with no other
//! role completing, the function is "not executable". Each role assignment runs in its own
//! child under `prlimit` (CPU seconds, address space) and a wall-clock
//! timeout, and a crash, a timeout or short output only fails that role.

use nfc_core::insight::Behaviour;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Random messages checked against the columns' xor (affinity), per role.
pub const RANDOM_CHECKS: usize = 24;
/// Bytes of the message buffer whose bits are varied.
pub const MESSAGE_BYTES: usize = 96;
/// The length argument handed to a (buffer, length) function: 12 bytes
/// (or words, or bits) exercise an 8-byte slicing loop and its tail.
pub const LENGTH: u64 = 12;
/// Size of the buffer and of each pointer cell (zero beyond the message).
const BUFFER_BYTES: usize = 4096;
const CELL_BYTES: usize = 256;
/// At most this many role assignments are tried per function.
const MAX_ROLES: usize = 12;
/// At most this many context roles (per fill) are tried per function.
const MAX_CONTEXT_ROLES: usize = 6;
/// The seed of the context fills.
const FILL_SEED: u64 = 0x19f11;

/// How to run functions.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    pub clang: PathBuf,
    /// The lowering's include directories, searched in the same order.
    pub include_dirs: Vec<PathBuf>,
    /// Searched after them (the freestanding libc prototypes).
    pub after_dirs: Vec<PathBuf>,
    /// Wall-clock limit per role run.
    pub timeout: Duration,
    /// CPU seconds per role run.
    pub cpu_seconds: u32,
    /// Address-space limit per role run, bytes.
    pub memory_bytes: u64,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            clang: PathBuf::from("clang-19"),
            include_dirs: vec![],
            after_dirs: vec![],
            timeout: Duration::from_secs(2),
            cpu_seconds: 1,
            memory_bytes: 256 << 20,
        }
    }
}

/// A parameter or return type, as the IR declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Void,
    Ptr,
    /// An integer of this many bits, sign-extended at calls when `signed`.
    Int {
        bits: u32,
        signed: bool,
    },
    /// Anything else (floating point, aggregates by value, vectors).
    Other,
}

/// A function's signature from its `define` line in textual IR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub ret: Ty,
    pub params: Vec<Ty>,
}

fn parse_ty(t: &str, attrs: &str) -> Ty {
    match t {
        "void" => Ty::Void,
        "ptr" => Ty::Ptr,
        _ => match t.strip_prefix('i').and_then(|b| b.parse::<u32>().ok()) {
            Some(bits) if bits <= 64 => Ty::Int {
                bits,
                signed: attrs.contains("signext"),
            },
            _ => Ty::Other,
        },
    }
}

/// The signature of `name` in textual IR, or `None` when it is not defined
/// there.
pub fn signature(ll: &str, name: &str) -> Option<Signature> {
    let needle = format!("@{name}(");
    let line = ll
        .lines()
        .find(|l| l.starts_with("define ") && l.contains(&needle))?;
    let at = line.find(&needle)?;
    // Return type: the last token before `@name` that is a type (attributes
    // such as `noundef`, `zeroext`, `signext` may precede the name).
    let head: Vec<&str> = line[..at].split_whitespace().collect();
    let ret_attrs = head.join(" ");
    let ret = head
        .iter()
        .rev()
        .map(|t| parse_ty(t, &ret_attrs))
        .find(|t| *t != Ty::Other)
        .unwrap_or(Ty::Other);
    // Parameters up to the matching parenthesis.
    let rest = &line[at + needle.len()..];
    let mut depth = 1;
    let mut end = rest.len();
    for (i, ch) in rest.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = i;
                    break;
                }
            }
            _ => {}
        }
    }
    let list = rest[..end].trim();
    let mut params = vec![];
    if !list.is_empty() {
        for p in list.split(',') {
            let p = p.trim();
            if p == "..." {
                params.push(Ty::Other);
                continue;
            }
            let ty = p.split_whitespace().next().unwrap_or("");
            params.push(parse_ty(ty, p));
        }
    }
    Some(Signature { ret, params })
}

/// What one parameter is given in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arg {
    /// The message buffer.
    Buffer,
    /// A zeroed cell of its own (read back as an output).
    Cell,
    /// The length constant [`LENGTH`].
    Length,
    /// Zero (a preset or a register held fixed).
    Zero,
    /// The message itself: every bit of the integer.
    Data,
    /// A fixed nonzero context value (the role's fill, [`FILLS`]): a
    /// polynomial, width or preset the function is handed.
    Fill,
    /// A cell filled with the role's fill words (a context struct or
    /// table the function reads), read back as an output.
    FilledCell,
}

/// One role assignment: what each parameter gets, and which context fill
/// ([`FILLS`]) its `Fill`/`FilledCell` arguments take.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Role(Vec<Arg>, usize);

impl Role {
    fn describe(&self) -> String {
        let args = self
            .0
            .iter()
            .map(|a| match a {
                Arg::Buffer => "buf",
                Arg::Cell => "cell",
                Arg::Length => "len",
                Arg::Zero => "0",
                Arg::Data => "data",
                Arg::Fill => "ctx",
                Arg::FilledCell => "ctx cell",
            })
            .collect::<Vec<_>>()
            .join(", ");
        if self.is_context() {
            format!("{args}; context {}", self.1)
        } else {
            args
        }
    }
    /// Whether the role fixes a context (nonzero values or filled cells).
    fn is_context(&self) -> bool {
        self.0
            .iter()
            .any(|a| matches!(a, Arg::Fill | Arg::FilledCell))
    }
    /// The same role under context fill `k`.
    fn with_fill(&self, k: usize) -> Role {
        Role(self.0.clone(), k)
    }
    /// Message bits per run.
    fn message_bits(&self, sig: &Signature) -> usize {
        self.0
            .iter()
            .zip(&sig.params)
            .map(|(a, t)| match (a, t) {
                (Arg::Buffer, _) => MESSAGE_BYTES * 8,
                (Arg::Data, Ty::Int { bits, .. }) => *bits as usize,
                _ => 0,
            })
            .sum()
    }
}

/// The role assignments tried for a signature (at most [`MAX_ROLES`]):
/// a buffer (each pointer in turn) with a length (each integer in turn, or
/// none) and the other integers zero; or an integer message (each integer
/// in turn) with the others zero. Other pointers get cells of their own.
fn roles(sig: &Signature) -> Vec<Role> {
    let ptrs: Vec<usize> = (0..sig.params.len())
        .filter(|i| sig.params[*i] == Ty::Ptr)
        .collect();
    let ints: Vec<usize> = (0..sig.params.len())
        .filter(|i| matches!(sig.params[*i], Ty::Int { .. }))
        .collect();
    let base = |i: usize| {
        if sig.params[i] == Ty::Ptr {
            Arg::Cell
        } else {
            Arg::Zero
        }
    };
    let mut out = vec![];
    for &b in &ptrs {
        let lens: Vec<Option<usize>> = if ints.is_empty() {
            vec![None]
        } else {
            ints.iter().map(|i| Some(*i)).collect()
        };
        for l in lens {
            let mut r: Vec<Arg> = (0..sig.params.len()).map(base).collect();
            r[b] = Arg::Buffer;
            if let Some(l) = l {
                r[l] = Arg::Length;
            }
            out.push(Role(r, 0));
        }
    }
    for &d in &ints {
        let mut r: Vec<Arg> = (0..sig.params.len()).map(base).collect();
        r[d] = Arg::Data;
        out.push(Role(r, 0));
    }
    out.truncate(MAX_ROLES);
    out
}

/// The context roles of a signature: each role of [`roles`] that leaves a
/// parameter zero or a zeroed cell, with those given the fill instead (a
/// CRC whose polynomial, width or table comes from an argument or a struct
/// computes nothing under a zero context). Fill 0; the proof needs fill 1
/// too (see [`behaviour_of`]).
fn context_roles(base: &[Role]) -> Vec<Role> {
    base.iter()
        .filter(|r| r.0.iter().any(|a| matches!(a, Arg::Zero | Arg::Cell)))
        .map(|r| {
            Role(
                r.0.iter()
                    .map(|a| match a {
                        Arg::Zero => Arg::Fill,
                        Arg::Cell => Arg::FilledCell,
                        a => *a,
                    })
                    .collect(),
                0,
            )
        })
        .take(MAX_CONTEXT_ROLES)
        .collect()
}

/// The context fills: per fill, 64 words, each an odd value in [9, 63]
/// (seeded shuffles; distinct within the first 28 words). Odd and with
/// several bits set, a fill word is never a single power of x, and two
/// words of one fill differ: a keyed LFSR digest whose generator and key
/// both come from the context starts its columns at the key, which is then
/// none of x^0 … x^(n-1) (single bits) nor x^n (the generator itself), so
/// it cannot pass `crc_of_columns` in the normal layout; small enough to
/// be a width (≤ 63 bits), a length or a count without running away.
fn fills() -> [[u32; CELL_BYTES / 4]; 2] {
    let odd: Vec<u32> = (9..=63).step_by(2).collect();
    let mut out = [[0u32; CELL_BYTES / 4]; 2];
    for (k, fill) in out.iter_mut().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(FILL_SEED + k as u64);
        let mut v = odd.clone();
        // Fisher–Yates with the seeded generator.
        for i in (1..v.len()).rev() {
            let j = rng.gen_range(0..=i);
            v.swap(i, j);
        }
        for (w, x) in fill.iter_mut().enumerate() {
            *x = v[w % v.len()];
        }
    }
    out
}

fn c_type(t: Ty) -> &'static str {
    match t {
        Ty::Void => "void",
        Ty::Ptr => "void *",
        Ty::Int { bits: 1, .. } => "_Bool",
        Ty::Int { bits, signed } => match (bits, signed) {
            (8, false) => "unsigned char",
            (8, true) => "signed char",
            (16, false) => "unsigned short",
            (16, true) => "short",
            (32, false) => "unsigned int",
            (32, true) => "int",
            (64, false) => "unsigned long long",
            (64, true) => "long long",
            _ => "unsigned int",
        },
        Ty::Other => "int",
    }
}

/// The driver's shared part: raw i386 system calls, the few memory
/// routines compiled code may call, the buffer, the cells, record I/O.
fn driver_prelude(max_params: usize) -> String {
    let np = max_params.max(1);
    format!(
        "\n/* ---- nfc behavioural-test driver ---- */\n\
         static long nfc_exec_sys(long n, long a, long b, long c) {{ long r; __asm__ volatile(\"int $0x80\" : \"=a\"(r) : \"a\"(n), \"b\"(a), \"c\"(b), \"d\"(c) : \"memory\"); return r; }}\n\
         void *memcpy(void *d, const void *s, __SIZE_TYPE__ n) {{ unsigned char *a = d; const unsigned char *b = s; while (n--) *a++ = *b++; return d; }}\n\
         void *memmove(void *d, const void *s, __SIZE_TYPE__ n) {{ unsigned char *a = d; const unsigned char *b = s; if (a < b) {{ while (n--) *a++ = *b++; }} else {{ a += n; b += n; while (n--) *--a = *--b; }} return d; }}\n\
         void *memset(void *d, int v, __SIZE_TYPE__ n) {{ unsigned char *a = d; while (n--) *a++ = (unsigned char)v; return d; }}\n\
         int memcmp(const void *x, const void *y, __SIZE_TYPE__ n) {{ const unsigned char *a = x, *b = y; for (; n; n--, a++, b++) if (*a != *b) return *a - *b; return 0; }}\n\
         static unsigned char nfc_exec_buf[{BUFFER_BYTES}] __attribute__((aligned(16)));\n\
         static unsigned char nfc_exec_cell[{np}][{CELL_BYTES}] __attribute__((aligned(16)));\n\
         static unsigned char nfc_exec_rec[{rec}];\n\
         static unsigned char nfc_exec_out[{out}];\n\
         static const unsigned int nfc_exec_fills[2][{fw}] = {{ {fills} }};\n\
         static void nfc_exec_fillc(int i, int k) {{ for (int w = 0; w < {fw}; w++) ((unsigned int *)nfc_exec_cell[i])[w] = nfc_exec_fills[k][w]; }}\n\
         static int nfc_exec_read(void *p, int n) {{ int got = 0; while (got < n) {{ long r = nfc_exec_sys(3, 0, (long)((char *)p + got), n - got); if (r <= 0) return got; got += r; }} return got; }}\n\
         static unsigned long long nfc_exec_u64(int i) {{ unsigned long long v = 0; for (int k = 7; k >= 0; k--) v = (v << 8) | nfc_exec_rec[{MESSAGE_BYTES} + 8 * i + k]; return v; }}\n\
         static void nfc_exec_put(int slot, unsigned long long v) {{ for (int k = 0; k < 8; k++) nfc_exec_out[8 * slot + k] = (unsigned char)(v >> (8 * k)); }}\n",
        rec = MESSAGE_BYTES + 8 * np,
        out = 8 * (np + 1),
        fw = CELL_BYTES / 4,
        fills = fills()
            .iter()
            .map(|f| format!(
                "{{ {} }}",
                f.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(", ")
            ))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// The runner of function number `fi`: reads fixed-size records (message
/// buffer bytes, then one u64 per integer parameter) until end of input;
/// per record it resets the buffer and the cells, calls the function in
/// role `role` and writes the return value and each cell's first 8 bytes as
/// u64 (little-endian).
fn driver_runner(fi: usize, name: &str, sig: &Signature, roles: &[Role]) -> String {
    let np = sig.params.len();
    let rec = MESSAGE_BYTES + 8 * np;
    let mut s = String::new();
    let params: Vec<&str> = sig.params.iter().map(|t| c_type(*t)).collect();
    s.push_str(&format!(
        "typedef {} (*nfc_exec_fn{fi})({});\n",
        c_type(sig.ret),
        if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        }
    ));
    s.push_str(&format!(
        "static void nfc_exec_run{fi}(int role) {{\n  nfc_exec_fn{fi} f = (nfc_exec_fn{fi}){name};\n  while (nfc_exec_read(nfc_exec_rec, {rec}) == {rec}) {{\n    memset(nfc_exec_buf, 0, sizeof nfc_exec_buf);\n    memcpy(nfc_exec_buf, nfc_exec_rec, {MESSAGE_BYTES});\n    memset(nfc_exec_cell, 0, sizeof nfc_exec_cell);\n    memset(nfc_exec_out, 0, sizeof nfc_exec_out);\n    switch (role) {{\n"
    ));
    for (ri, r) in roles.iter().enumerate() {
        let args: Vec<String> =
            r.0.iter()
                .enumerate()
                .map(|(i, a)| {
                    let t = c_type(sig.params[i]);
                    match a {
                        Arg::Buffer => "(void *)nfc_exec_buf".to_string(),
                        Arg::Cell => format!("(void *)nfc_exec_cell[{i}]"),
                        Arg::Length => format!("({t}){LENGTH}ULL"),
                        Arg::Zero => format!("({t})0"),
                        Arg::Data => format!("({t})nfc_exec_u64({i})"),
                        Arg::Fill => format!("({t})nfc_exec_fills[{}][{i}]", r.1),
                        Arg::FilledCell => format!("(void *)nfc_exec_cell[{i}]"),
                    }
                })
                .collect();
        let call = format!("f({})", args.join(", "));
        let prepare: String =
            r.0.iter()
                .enumerate()
                .filter(|(_, a)| **a == Arg::FilledCell)
                .map(|(i, _)| format!("nfc_exec_fillc({i}, {}); ", r.1))
                .collect();
        let store = match sig.ret {
            Ty::Int { bits, .. } if bits < 64 => {
                format!("nfc_exec_put(0, (unsigned long long){call} & ((1ULL << {bits}) - 1));")
            }
            Ty::Int { .. } => format!("nfc_exec_put(0, (unsigned long long){call});"),
            _ => format!("(void){call};"),
        };
        s.push_str(&format!("    case {ri}: {{ {prepare}{store} break; }}\n"));
    }
    s.push_str("    default: nfc_exec_sys(1, 2, 0, 0);\n    }\n");
    for i in 0..np {
        s.push_str(&format!(
            "    {{ unsigned long long v = 0; for (int k = 7; k >= 0; k--) v = (v << 8) | nfc_exec_cell[{i}][k]; nfc_exec_put({}, v); }}\n",
            i + 1
        ));
    }
    s.push_str(&format!(
        "    nfc_exec_sys(4, 1, (long)nfc_exec_out, {});\n  }}\n}}\n",
        8 * (np + 1)
    ));
    s
}

/// `_start`: two bytes (function number, role), then that runner.
fn driver_main(n: usize) -> String {
    let mut s = String::from(
        "void nfc_exec_main(void) {\n  unsigned char sel[2];\n  if (nfc_exec_read(sel, 2) != 2) nfc_exec_sys(1, 2, 0, 0);\n  switch (sel[0]) {\n",
    );
    for fi in 0..n {
        s.push_str(&format!("  case {fi}: nfc_exec_run{fi}(sel[1]); break;\n"));
    }
    s.push_str("  default: nfc_exec_sys(1, 2, 0, 0);\n  }\n  nfc_exec_sys(1, 0, 0, 0);\n}\n");
    s.push_str("__asm__(\".globl _start\\n_start:\\n andl $-16, %esp\\n call nfc_exec_main\\n hlt\\n\");\n");
    s
}

/// The message vectors of a role: all zero, each single bit, then
/// [`RANDOM_CHECKS`] random messages (seeded).
fn vectors(bits: usize, seed: u64) -> Vec<Vec<bool>> {
    let mut out = vec![vec![false; bits]];
    for b in 0..bits {
        let mut v = vec![false; bits];
        v[b] = true;
        out.push(v);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..RANDOM_CHECKS {
        out.push((0..bits).map(|_| rng.gen_bool(0.5)).collect());
    }
    out
}

/// The record bytes of a message for a role.
fn record(sig: &Signature, role: &Role, msg: &[bool]) -> Vec<u8> {
    let mut rec = vec![0u8; MESSAGE_BYTES + 8 * sig.params.len()];
    let mut k = 0;
    for (i, a) in role.0.iter().enumerate() {
        match (a, sig.params[i]) {
            (Arg::Buffer, _) => {
                for byte in rec.iter_mut().take(MESSAGE_BYTES) {
                    for bit in 0..8 {
                        if msg[k] {
                            *byte |= 1 << bit;
                        }
                        k += 1;
                    }
                }
            }
            (Arg::Data, Ty::Int { bits, .. }) => {
                let mut v = 0u64;
                for bit in 0..bits {
                    if msg[k] {
                        v |= 1 << bit;
                    }
                    k += 1;
                }
                rec[MESSAGE_BYTES + 8 * i..MESSAGE_BYTES + 8 * i + 8]
                    .copy_from_slice(&v.to_le_bytes());
            }
            _ => {}
        }
    }
    rec
}

/// Run one role; the outputs per vector (return value, then one u64 per
/// parameter cell), or why the run failed.
fn run_role(
    exe: &Path,
    fi: usize,
    ri: usize,
    records: &[Vec<u8>],
    slots: usize,
    opts: &ExecOptions,
) -> Result<Vec<Vec<u64>>, String> {
    let mut child = Command::new("prlimit")
        .arg(format!("--cpu={}", opts.cpu_seconds))
        .arg(format!("--as={}", opts.memory_bytes))
        .arg("--core=0")
        .arg(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the driver: {e}"))?;
    let mut input = vec![fi as u8, ri as u8];
    for r in records {
        input.extend_from_slice(r);
    }
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let writer = std::thread::spawn(move || {
        // A function that stops reading (a crash, a loop) closes the pipe:
        // the error is the run's, reported by its status below.
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut v = vec![];
        let _ = stdout.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > opts.timeout => {
                // Only the child this call started, by its own handle.
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(format!("wait: {e}")),
        }
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    let Some(status) = status else {
        return Err(format!("timed out after {:?}", opts.timeout));
    };
    if !status.success() {
        return Err(format!("the run ended with {status}"));
    }
    let per = 8 * slots;
    if out.len() != per * records.len() {
        return Err(format!(
            "short output ({} of {} bytes)",
            out.len(),
            per * records.len()
        ));
    }
    Ok(out
        .chunks(per)
        .map(|c| {
            c.chunks(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                .collect()
        })
        .collect())
}

/// A register layout: how the function keeps the register's bits.
type Layout<'a> = Box<dyn Fn(u64) -> u64 + 'a>;

/// The CRC a set of columns proves, if any: `(width, poly, reflected)`,
/// the polynomial in normal form without its x^width term.
///
/// The columns (response to each single message bit, f(0) removed) must
/// be nonzero, and, after removing a common low shift and choosing one of
/// four register layouts (as is, bit-reversed over the width, byte-swapped,
/// both), be exactly {x^j, …, x^(j+k-1)} mod P for an odd P with at least
/// two terms below x^n, with 0 ≤ j ≤ n ≤ j + k - 1 (the feedback through P
/// is exercised): see the module docs.
pub fn crc_of_columns(columns: &[u64]) -> Option<(u32, u64, bool)> {
    let k = columns.len();
    if k < 2 || columns.contains(&0) {
        return None;
    }
    let or = columns.iter().fold(0u64, |a, c| a | c);
    let shift = or.trailing_zeros();
    let n = 64 - (or >> shift).leading_zeros();
    if !(3..=64).contains(&n) {
        return None;
    }
    let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let reflect = |c: u64| c.reverse_bits() >> (64 - n);
    let bswap = |c: u64| c.swap_bytes() >> (64 - n);
    let mut layouts: Vec<(bool, Layout<'_>)> =
        vec![(false, Box::new(|c| c)), (true, Box::new(reflect))];
    if n % 8 == 0 && n > 8 {
        layouts.push((false, Box::new(bswap)));
        layouts.push((true, Box::new(move |c| reflect(bswap(c)))));
    }
    for (reflected, layout) in &layouts {
        let cols: Vec<u64> = columns.iter().map(|c| layout(c >> shift) & mask).collect();
        let distinct: std::collections::HashSet<u64> = cols.iter().copied().collect();
        if distinct.len() != k {
            continue;
        }
        for &p in &cols {
            if p & 1 == 0 || p == 1 {
                continue;
            }
            // x^0 … x^(n + k) mod P, first exponent of each value.
            let mut exp: HashMap<u64, usize> = HashMap::new();
            let mut v = 1u64;
            for e in 0..=(n as usize + k) {
                exp.entry(v).or_insert(e);
                let top = (v >> (n - 1)) & 1;
                v = (v << 1) & mask;
                if top == 1 {
                    v ^= p;
                }
            }
            let mut es: Vec<usize> = Vec::with_capacity(k);
            for c in &cols {
                match exp.get(c) {
                    Some(e) => es.push(*e),
                    None => break,
                }
            }
            if es.len() != k {
                continue;
            }
            es.sort_unstable();
            let (lo, hi) = (es[0], es[k - 1]);
            let contiguous = es.windows(2).all(|w| w[1] == w[0] + 1);
            if contiguous && lo <= n as usize && hi >= n as usize {
                return Some((n, p, *reflected));
            }
        }
    }
    None
}

/// The outcome of the outputs of one role (`msgs` as [`vectors`] made
/// them): per output slot, the columns over the bits that move it, the
/// affinity check on the random messages, the CRC test.
fn judge(outputs: &[Vec<u64>], msgs: &[Vec<bool>], role: &str) -> Behaviour {
    let bits = msgs[0].len();
    let f0 = &outputs[0];
    let slots = f0.len();
    let mut affine_any = false;
    for s in 0..slots {
        let cols: Vec<u64> = (0..bits).map(|b| outputs[1 + b][s] ^ f0[s]).collect();
        if cols.iter().all(|c| *c == 0) {
            continue;
        }
        // Affinity: each random message's output is f(0) xor its columns.
        let affine = outputs[1 + bits..]
            .iter()
            .zip(&msgs[1 + bits..])
            .all(|(o, msg)| {
                let want = msg
                    .iter()
                    .zip(&cols)
                    .filter(|(on, _)| **on)
                    .fold(f0[s], |a, (_, c)| a ^ c);
                o[s] == want
            });
        if !affine {
            continue;
        }
        affine_any = true;
        let live: Vec<u64> = cols.into_iter().filter(|c| *c != 0).collect();
        if let Some((width, poly, reflected)) = crc_of_columns(&live) {
            return Behaviour::Crc {
                width,
                poly,
                reflected,
                bits: live.len() as u32,
                role: format!(
                    "{role} -> {}",
                    if s == 0 {
                        "return".to_string()
                    } else {
                        format!("cell {}", s - 1)
                    }
                ),
            };
        }
    }
    if affine_any {
        Behaviour::Affine {
            role: role.to_string(),
        }
    } else {
        Behaviour::NotAffine
    }
}

/// The seed of the random messages.
const SEED: u64 = 0x19c2c;

/// Run `names` of the C unit `src` (whose textual IR `ll` gives their
/// signatures) and judge each: see the module docs. The unit is compiled
/// once, with a driver for every function appended (so static functions
/// are reachable); every run is a child process. An external symbol the
/// unit uses resolves to address 0, so reaching it crashes that run only.
pub fn behaviours(
    src: &Path,
    ll: &str,
    names: &[String],
    opts: &ExecOptions,
) -> Vec<(String, Behaviour)> {
    let mut out: Vec<(String, Behaviour)> = vec![];
    // The functions that can be driven, with their roles.
    let mut driven: Vec<(usize, Signature, Vec<Role>)> = vec![];
    for (i, name) in names.iter().enumerate() {
        let why = match signature(ll, name) {
            None => Some("not defined in the IR"),
            Some(sig) if sig.params.contains(&Ty::Other) || sig.ret == Ty::Other => {
                Some("a parameter or the result is not an integer or pointer")
            }
            Some(sig) => {
                let mut r = roles(&sig);
                let ctx = context_roles(&r);
                r.extend(ctx.iter().cloned());
                r.extend(ctx.iter().map(|c| c.with_fill(1)));
                if r.is_empty() {
                    Some("no inputs")
                } else if driven.len() < 255 {
                    driven.push((i, sig, r));
                    None
                } else {
                    Some("too many functions in the unit")
                }
            }
        };
        out.push((name.clone(), not_exec(why.unwrap_or("not run"))));
    }
    if driven.is_empty() {
        return out;
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            for (i, _, _) in &driven {
                out[*i].1 = not_exec(format!("no temporary directory: {e}"));
            }
            return out;
        }
    };
    let max_params = driven.iter().map(|d| d.1.params.len()).max().unwrap_or(0);
    // The driver lives elsewhere: include the unit by its absolute path.
    let src = std::fs::canonicalize(src).unwrap_or_else(|_| src.to_path_buf());
    let mut text = format!(
        "#include \"{}\"\n{}",
        src.display(),
        driver_prelude(max_params)
    );
    for (fi, (i, sig, r)) in driven.iter().enumerate() {
        text.push_str(&driver_runner(fi, &names[*i], sig, r));
    }
    text.push_str(&driver_main(driven.len()));
    let unit = dir.path().join("driver.c");
    let exe = dir.path().join("driver.exe");
    let built = std::fs::write(&unit, text)
        .map_err(|e| format!("cannot write the driver: {e}"))
        .and_then(|_| build(&unit, &exe, opts));
    if let Err(why) = built {
        for (i, _, _) in &driven {
            out[*i].1 = not_exec(why.clone());
        }
        return out;
    }
    for (fi, (i, sig, roles)) in driven.iter().enumerate() {
        out[*i].1 = behaviour_of(&exe, fi, sig, roles, opts);
    }
    out
}

fn not_exec(why: impl Into<String>) -> Behaviour {
    Behaviour::NotExecutable { why: why.into() }
}

/// Compile the unit with its driver into a static i386 executable.
fn build(unit: &Path, exe: &Path, opts: &ExecOptions) -> Result<(), String> {
    let mut cmd = Command::new(&opts.clang);
    cmd.args([
        "-m32",
        "-O0",
        "-w",
        "-nostdinc",
        "-ffreestanding",
        "-fno-pic",
        "-fno-stack-protector",
        "-nostdlib",
        "-static",
        "-ffunction-sections",
        "-fdata-sections",
        "-Wl,--gc-sections",
        // Externals resolve to 0: reaching one crashes that run only.
        "-Wl,--unresolved-symbols=ignore-all",
    ]);
    if let Ok(o) = Command::new(&opts.clang)
        .arg("-print-resource-dir")
        .output()
    {
        let res = String::from_utf8_lossy(&o.stdout).trim().to_string();
        cmd.arg("-isystem").arg(Path::new(&res).join("include"));
    }
    for i in &opts.include_dirs {
        cmd.arg("-I").arg(i);
    }
    for i in &opts.after_dirs {
        cmd.arg("-idirafter").arg(i);
    }
    cmd.arg(unit).arg("-o").arg(exe);
    match cmd.output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            Err(err
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("the build failed")
                .trim()
                .to_string())
        }
        Err(e) => Err(format!("cannot run {}: {e}", opts.clang.display())),
    }
}

/// Run every role of function `fi`. A buffer role that runs to the end
/// makes the integer-message roles moot (they would hand a length a random
/// 32-bit value: long runs to the time limit for nothing).
///
/// Context roles (fill 0) run only when no zero-context role proved a CRC;
/// one that proves a CRC counts only when the same role under fill 1 proves
/// one too: a CRC parameterised by its context is a CRC under every valid
/// context, a look-alike only by a coincidence of the fill (see [`fills`]),
/// which two independent fills make twice as unlikely.
fn behaviour_of(
    exe: &Path,
    fi: usize,
    sig: &Signature,
    roles: &[Role],
    opts: &ExecOptions,
) -> Behaviour {
    let slots = sig.params.len() + 1;
    let mut first_failure = None;
    let mut affine = None;
    let mut executed = false;
    let mut buffer_ran = false;
    let run = |ri: usize, role: &Role| -> Result<Behaviour, String> {
        let vs = vectors(role.message_bits(sig), SEED);
        let records: Vec<Vec<u8>> = vs.iter().map(|m| record(sig, role, m)).collect();
        run_role(exe, fi, ri, &records, slots, opts).map(|out| judge(&out, &vs, &role.describe()))
    };
    for (ri, role) in roles.iter().enumerate() {
        if role.1 != 0 {
            continue;
        }
        let bits = role.message_bits(sig);
        let is_buffer = role.0.contains(&Arg::Buffer);
        if bits == 0 || (!is_buffer && buffer_ran) {
            continue;
        }
        match run(ri, role) {
            Ok(b) => {
                executed = true;
                buffer_ran |= is_buffer;
                match b {
                    b @ Behaviour::Crc { .. } if !role.is_context() => return b,
                    b @ Behaviour::Crc { .. } => {
                        let again = role.with_fill(1);
                        let confirmed = roles
                            .iter()
                            .position(|r| *r == again)
                            .and_then(|rj| run(rj, &again).ok())
                            .is_some_and(|b2| matches!(b2, Behaviour::Crc { .. }));
                        if confirmed {
                            return b;
                        }
                        affine.get_or_insert(Behaviour::Affine {
                            role: role.describe(),
                        });
                    }
                    b @ Behaviour::Affine { .. } => {
                        affine.get_or_insert(b);
                    }
                    _ => {}
                }
            }
            Err(e) => {
                first_failure.get_or_insert(format!("({}): {e}", role.describe()));
            }
        }
    }
    match (affine, executed) {
        (Some(b), _) => b,
        (None, true) => Behaviour::NotAffine,
        (None, false) => not_exec(first_failure.unwrap_or_else(|| "no run".to_string())),
    }
}
