//! Data synthesis for the compute model (Clara §3.2): random NF-like C
//! programs against nf.h whose IR instruction mix resembles real NFs'
//! (header reads and writes through `nf_parse`, flow-table lookups and
//! inserts, rule loops, counters in the state instance, checksum-like
//! arithmetic, branches, helper calls), and a naive generator for contrast
//! (generic integer code: arithmetic, loops over global arrays, branches —
//! what a program generator produces without the NF corpus' distribution).
//!
//! The program text is all this module makes; lowering it to IR and to the
//! proxy ISA is `nfc-reducer`'s `insight_ir`. Generation is deterministic
//! in the seed.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Statement kinds the generators draw from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stmt {
    HeaderRead,
    HeaderWrite,
    TableLookup,
    TableInsert,
    RuleLoop,
    Counter,
    Checksum,
    Arith,
    IfElse,
    CallHelper,
    EarlyReturn,
    ConfigCheck,
    ArrayLoop,
    GlobalArray,
    Switch,
    // Second-session kinds (weight 0 in `nf_like_v1`): what the shift
    // diagnosis found real NFs have and the first generator lacked.
    TimeCheck,
    ChainWalk,
    StructCopy,
    FlowHash,
    CsumReplace32,
    FtableRemove,
    MacSwap,
    PacketBytes,
    OutParams,
    SmallCall,
    // Seventeenth-session kinds, drawn only in XDP programs (see
    // `Profile::xdp_share`): what eBPF packet code outside the held-out set
    // is made of and the nf.h programs lack.
    XdpHeaderRead,
    XdpHeaderWrite,
    MapLookup,
    MapUpdate,
    CpuCounter,
    HelperCall,
    Redirect,
    XdpMacSwap,
    VlanWalk,
    AdjustHead,
}

const ALL: [Stmt; 35] = [
    Stmt::HeaderRead,
    Stmt::HeaderWrite,
    Stmt::TableLookup,
    Stmt::TableInsert,
    Stmt::RuleLoop,
    Stmt::Counter,
    Stmt::Checksum,
    Stmt::Arith,
    Stmt::IfElse,
    Stmt::CallHelper,
    Stmt::EarlyReturn,
    Stmt::ConfigCheck,
    Stmt::ArrayLoop,
    Stmt::GlobalArray,
    Stmt::Switch,
    Stmt::TimeCheck,
    Stmt::ChainWalk,
    Stmt::StructCopy,
    Stmt::FlowHash,
    Stmt::CsumReplace32,
    Stmt::FtableRemove,
    Stmt::MacSwap,
    Stmt::PacketBytes,
    Stmt::OutParams,
    Stmt::SmallCall,
    Stmt::XdpHeaderRead,
    Stmt::XdpHeaderWrite,
    Stmt::MapLookup,
    Stmt::MapUpdate,
    Stmt::CpuCounter,
    Stmt::HelperCall,
    Stmt::Redirect,
    Stmt::XdpMacSwap,
    Stmt::VlanWalk,
    Stmt::AdjustHead,
];

/// A generator's statement and shape distribution.
#[derive(Debug, Clone)]
pub struct Profile {
    pub name: &'static str,
    /// Weight of each statement kind, in the order of `ALL`.
    weights: [f64; 35],
    /// The same for XDP programs (only kinds that need no nf.h API).
    xdp_weights: [f64; 35],
    /// Share of programs written as XDP/eBPF programs (`struct xdp_md`
    /// entry, bounds-checked header pointers, BPF helpers called through
    /// constant function pointers, BTF-style maps) instead of against nf.h;
    /// drawn per program from its seed.
    pub xdp_share: f64,
    /// Statements per function body (uniform in the range).
    pub stmts: (usize, usize),
    /// Helper functions per program (uniform in the range).
    pub helpers: (usize, usize),
    /// Maximum expression depth.
    pub expr_depth: u32,
    /// Use nf.h's headers, state and framework calls.
    pub nf_api: bool,
    /// Emit the other entry points real NFs have (`nf_describe`, `nf_init`
    /// parsing configuration, `nf_state_init`), small predicate helpers,
    /// compound conditions, a time base (`ctx->now_ns`) and a chained flow
    /// cache in the state (second session; needs `nf_api`).
    pub entry_points: bool,
}

impl Profile {
    /// Tuned to the real NFs' IR mix (many pointer loads from locals, header
    /// field GEPs, compares and branches, state through `ctx->state`, few
    /// wide arithmetic chains).
    pub fn nf_like() -> Profile {
        Profile {
            name: "nf-like",
            //        HR   HW   TL   TI   RL   Ctr  Csum Ar   If   Call Ret  Cfg  ALp  GA   Sw
            //        Time Chain Copy Hash Cs32 Rm   Mac  Pkt  Out  Small
            weights: [
                3.0, 1.0, 1.2, 0.8, 0.7, 1.6, 0.5, 1.0, 2.2, 0.8, 1.6, 1.4, 0.1, 0.1, 0.3, //
                1.0, 0.6, 0.6, 0.5, 0.3, 0.2, 0.2, 0.6, 0.4, 0.4, //
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            ],
            xdp_weights: XDP_WEIGHTS,
            xdp_share: 0.25,
            stmts: (3, 12),
            helpers: (1, 4),
            expr_depth: 2,
            nf_api: true,
            entry_points: true,
        }
    }

    /// The same generator writing nf.h programs only (no XDP program):
    /// with `xdp_share` 0 no XDP draw is made, so every seed gives the
    /// sixteenth session's program to the byte (the accelerator
    /// classifier's synthesised negatives stay what its model was fitted
    /// on).
    pub fn without_xdp(mut self) -> Profile {
        self.xdp_share = 0.0;
        self
    }

    /// The first session's NF-like generator (tuned on the opcode mix
    /// only), kept as the reference the shift diagnosis compares against.
    pub fn nf_like_v1() -> Profile {
        Profile {
            name: "nf-like-v1",
            weights: [
                3.0, 1.0, 1.2, 0.8, 0.7, 1.6, 0.5, 1.6, 2.2, 0.8, 1.6, 1.4, 0.2, 0.2, 0.3, //
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            ],
            xdp_weights: [0.0; 35],
            xdp_share: 0.0,
            stmts: (3, 12),
            helpers: (1, 4),
            expr_depth: 2,
            nf_api: true,
            entry_points: false,
        }
    }

    /// Generic integer programs: uniform over the kinds that need no NF API.
    pub fn naive() -> Profile {
        let mut weights = [0.0; 35];
        for (i, k) in ALL.iter().enumerate() {
            if matches!(
                k,
                Stmt::Arith
                    | Stmt::IfElse
                    | Stmt::CallHelper
                    | Stmt::ArrayLoop
                    | Stmt::GlobalArray
                    | Stmt::Switch
                    | Stmt::EarlyReturn
                    | Stmt::Checksum
            ) {
                weights[i] = 1.0;
            }
        }
        Profile {
            name: "naive",
            weights,
            xdp_weights: [0.0; 35],
            xdp_share: 0.0,
            stmts: (3, 12),
            helpers: (1, 4),
            expr_depth: 4,
            nf_api: false,
            entry_points: false,
        }
    }
}

/// Statement weights of XDP programs, in the order of `ALL`: the generic
/// kinds that need no nf.h API, and the XDP kinds, weighted after the
/// seventeenth session's guide (eBPF packet programs outside the held-out
/// set: bounds-checked header reads dominate, then map lookups with their
/// null checks and helper calls).
const XDP_WEIGHTS: [f64; 35] = [
    //   HR   HW   TL   TI   RL   Ctr  Csum Ar   If   Call Ret  Cfg  ALp  GA   Sw
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.6, 0.6, 1.0, 0.6, 0.0, 0.0, 0.3, //
    // Time Chain Copy Hash Cs32 Rm Mac Pkt Out Small
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
    // XHR XHW  Map  Upd  Cpu  Hlp  Rdr  XMac Vlan Adj
    3.0, 0.8, 1.4, 0.5, 0.6, 0.6, 0.4, 0.3, 0.3, 0.2,
];

/// A header the generator reads and writes: its short name, the nf.h
/// struct that holds it, and its fields with their widths in bits.
type HeaderLayout = (&'static str, &'static str, &'static [(&'static str, u32)]);

const HEADERS: &[HeaderLayout] = &[
    (
        "ip4",
        "nf_ipv4",
        &[
            ("saddr", 32),
            ("daddr", 32),
            ("ttl", 8),
            ("proto", 8),
            ("tot_len", 16),
            ("id", 16),
            ("tos", 8),
            ("check", 16),
        ],
    ),
    (
        "tcp",
        "nf_tcp",
        &[
            ("sport", 16),
            ("dport", 16),
            ("seq", 32),
            ("ack", 32),
            ("flags", 8),
            ("window", 16),
        ],
    ),
    (
        "udp",
        "nf_udp",
        &[("sport", 16), ("dport", 16), ("len", 16), ("check", 16)],
    ),
    (
        "icmp",
        "nf_icmp",
        &[("type", 8), ("code", 8), ("id", 16), ("seq", 16)],
    ),
    ("eth", "nf_eth", &[("type", 16)]),
];

struct Gen<'p> {
    p: &'p Profile,
    rng: ChaCha8Rng,
    out: String,
    /// Local variable names by width.
    vars: Vec<(String, u32)>,
    helpers_before: usize,
    in_process: bool,
    loop_var: u32,
    /// This program is an XDP program (see `Profile::xdp_share`).
    xdp: bool,
}

fn cty(bits: u32) -> &'static str {
    match bits {
        8 => "uint8_t",
        16 => "uint16_t",
        64 => "uint64_t",
        _ => "uint32_t",
    }
}

impl<'p> Gen<'p> {
    fn pick_stmt(&mut self, depth: u32) -> Stmt {
        let weights = if self.xdp {
            &self.p.xdp_weights
        } else {
            &self.p.weights
        };
        let total: f64 = weights.iter().sum();
        loop {
            let mut x = self.rng.gen::<f64>() * total;
            let mut chosen = Stmt::Arith;
            for (i, w) in weights.iter().enumerate() {
                if x < *w {
                    chosen = ALL[i];
                    break;
                }
                x -= w;
            }
            if chosen == Stmt::CallHelper && self.helpers_before == 0 {
                continue;
            }
            if depth > 2
                && matches!(
                    chosen,
                    Stmt::IfElse | Stmt::RuleLoop | Stmt::Switch | Stmt::ArrayLoop
                )
            {
                continue;
            }
            return chosen;
        }
    }

    fn var(&mut self) -> String {
        let i = self.rng.gen_range(0..self.vars.len());
        self.vars[i].0.clone()
    }

    fn konst(&mut self) -> String {
        match self.rng.gen_range(0..4) {
            0 => format!("{}", self.rng.gen_range(0..8)),
            1 => format!("{}u", self.rng.gen_range(0..256)),
            2 => format!("0x{:x}u", self.rng.gen::<u16>()),
            _ => format!("0x{:x}u", self.rng.gen::<u32>()),
        }
    }

    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.gen_bool(0.35) {
            return if self.rng.gen_bool(0.6) {
                self.var()
            } else {
                self.konst()
            };
        }
        let ops = ["+", "-", "^", "&", "|", "<<", ">>", "*", "+", "&"];
        let op = ops[self.rng.gen_range(0..ops.len())];
        let a = self.expr(depth - 1);
        let b = if op == "<<" || op == ">>" {
            format!("{}", self.rng.gen_range(1..24))
        } else {
            self.expr(depth - 1)
        };
        format!("({a} {op} {b})")
    }

    fn cond(&mut self) -> String {
        if self.p.entry_points && self.rng.gen_bool(0.3) {
            let a = self.simple_cond();
            let b = self.simple_cond();
            let op = if self.rng.gen_bool(0.6) { "&&" } else { "||" };
            return format!("({a}) {op} ({b})");
        }
        self.simple_cond()
    }

    fn simple_cond(&mut self) -> String {
        let cmp = ["==", "!=", "<", ">", "<=", ">="][self.rng.gen_range(0..6)];
        let a = self.expr(1);
        let b = if self.rng.gen_bool(0.6) {
            self.konst()
        } else {
            self.var()
        };
        format!("{a} {cmp} {b}")
    }

    fn line(&mut self, indent: usize, s: &str) {
        for _ in 0..indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn block(&mut self, indent: usize, n: usize, depth: u32) {
        for _ in 0..n {
            self.stmt(indent, depth);
        }
    }

    fn header(&mut self) -> (&'static str, &'static str, u32) {
        let (h, _, fields) = HEADERS[self.rng.gen_range(0..HEADERS.len())];
        let (f, bits) = fields[self.rng.gen_range(0..fields.len())];
        (h, f, bits)
    }

    fn conv(bits: u32, e: &str) -> String {
        match bits {
            16 => format!("nf_ntohs({e})"),
            32 => format!("nf_ntohl({e})"),
            _ => e.to_string(),
        }
    }

    fn stmt(&mut self, indent: usize, depth: u32) {
        let k = self.pick_stmt(depth);
        match k {
            Stmt::HeaderRead => {
                let (h, f, bits) = self.header();
                let v = self.var();
                let e = Self::conv(bits, &format!("h->{h}->{f}"));
                self.line(indent, &format!("if (h->{h}) {{"));
                self.line(indent + 1, &format!("{v} = {e};"));
                if self.rng.gen_bool(0.4) {
                    let c = self.cond();
                    self.line(indent + 1, &format!("if ({c}) {v} = {v} + 1;"));
                }
                self.line(indent, "}");
            }
            Stmt::HeaderWrite => {
                let (h, f, bits) = self.header();
                let e = self.expr(1);
                let conv = match bits {
                    16 => format!("nf_htons((uint16_t)({e}))"),
                    32 => format!("nf_htonl((uint32_t)({e}))"),
                    _ => format!("(uint8_t)({e})"),
                };
                self.line(indent, &format!("if (h->{h}) h->{h}->{f} = {conv};"));
            }
            Stmt::TableLookup | Stmt::TableInsert => {
                let call = if k == Stmt::TableLookup {
                    "nf_ftable_lookup"
                } else {
                    "nf_ftable_insert"
                };
                let v = self.var();
                self.line(indent, "{");
                self.line(indent + 1, "struct flow_key key;");
                self.line(indent + 1, "struct flow_val *e;");
                self.line(indent + 1, "memset(&key, 0, sizeof key);");
                let a = self.expr(1);
                self.line(indent + 1, &format!("key.a = (uint32_t)({a});"));
                if self.rng.gen_bool(0.6) {
                    let b = self.var();
                    self.line(indent + 1, &format!("key.b = (uint16_t){b};"));
                }
                self.line(indent + 1, &format!("e = {call}(&st->flows.hdr, &key);"));
                self.line(indent + 1, "if (e) {");
                self.line(indent + 2, "e->pkts++;");
                if self.rng.gen_bool(0.5) {
                    self.line(indent + 2, "e->bytes += pkt->len;");
                }
                if self.rng.gen_bool(0.5) {
                    self.line(indent + 2, &format!("{v} = e->mark;"));
                }
                self.line(indent + 1, "}");
                self.line(indent, "}");
            }
            Stmt::RuleLoop => {
                let v = self.var();
                let w = self.var();
                self.line(indent, "{");
                self.line(indent + 1, "uint32_t i;");
                self.line(indent + 1, "for (i = 0; i < n_rules; i++) {");
                self.line(
                    indent + 2,
                    &format!("if ((({v}) & rules[i].mask) == rules[i].addr) {{"),
                );
                self.line(indent + 3, &format!("{w} = rules[i].action;"));
                self.line(indent + 3, "break;");
                self.line(indent + 2, "}");
                self.line(indent + 1, "}");
                self.line(indent, "}");
            }
            Stmt::Counter => {
                let e = self.expr(1);
                match self.rng.gen_range(0..3) {
                    0 => self.line(indent, &format!("st->counters[({e}) % NCOUNTERS]++;")),
                    1 => self.line(indent, &format!("st->total_bytes += {e};")),
                    _ => self.line(indent, "st->total_pkts++;"),
                }
            }
            Stmt::Checksum => {
                let v = self.var();
                if self.p.nf_api && self.rng.gen_bool(0.5) {
                    self.line(indent, &format!("if (h->ip4) h->ip4->check = nf_csum_replace16(h->ip4->check, (uint16_t){v}, (uint16_t)({v} + 1));"));
                } else {
                    let n = self.rng.gen_range(4..20);
                    self.line(indent, "{");
                    self.line(indent + 1, "uint32_t s = 0, j;");
                    let src = if self.p.nf_api {
                        "pkt->data[j]"
                    } else {
                        "garr[j & 15]"
                    };
                    self.line(
                        indent + 1,
                        &format!("for (j = 0; j < {n}; j++) s += {src};"),
                    );
                    self.line(indent + 1, "s = (s & 0xffff) + (s >> 16);");
                    self.line(indent + 1, &format!("{v} = ~s;"));
                    self.line(indent, "}");
                }
            }
            Stmt::Arith => {
                let v = self.var();
                let e = self.expr(self.p.expr_depth);
                self.line(indent, &format!("{v} = {e};"));
            }
            Stmt::IfElse => {
                let c = self.cond();
                self.line(indent, &format!("if ({c}) {{"));
                let n = self.rng.gen_range(1..4);
                self.block(indent + 1, n, depth + 1);
                if self.rng.gen_bool(0.5) {
                    self.line(indent, "} else {");
                    let n = self.rng.gen_range(1..3);
                    self.block(indent + 1, n, depth + 1);
                }
                self.line(indent, "}");
            }
            Stmt::CallHelper => {
                let k = self.rng.gen_range(0..self.helpers_before);
                let v = self.var();
                let a = self.expr(1);
                let b = self.var();
                if self.xdp {
                    self.line(
                        indent,
                        &format!("{v} = helper{k}(ctx, data, data_end, {a}, {b});"),
                    );
                } else if self.p.entry_points {
                    self.line(
                        indent,
                        &format!("{v} = helper{k}(st, h, pkt, now, {a}, {b});"),
                    );
                } else if self.p.nf_api {
                    self.line(indent, &format!("{v} = helper{k}(st, h, pkt, {a}, {b});"));
                } else {
                    self.line(indent, &format!("{v} = helper{k}({a}, {b});"));
                }
            }
            Stmt::EarlyReturn => {
                let c = self.cond();
                let r = if self.in_process && self.xdp {
                    self.xdp_verdict().to_string()
                } else if self.in_process {
                    if self.rng.gen_bool(0.5) {
                        "NF_DROP".to_string()
                    } else {
                        format!("NF_PORT({})", self.rng.gen_range(0..2))
                    }
                } else {
                    self.expr(1)
                };
                let r = if self.p.nf_api || !self.in_process {
                    r
                } else {
                    "0".to_string()
                };
                self.line(indent, &format!("if ({c}) return {r};"));
            }
            Stmt::ConfigCheck => {
                let v = self.var();
                let g = ["cfg_threshold", "cfg_limit", "cfg_mask"][self.rng.gen_range(0..3)];
                if self.rng.gen_bool(0.5) {
                    self.line(indent, &format!("if ({v} > {g}) {v} = {g};"));
                } else {
                    self.line(indent, &format!("{v} = {v} & {g};"));
                }
            }
            Stmt::ArrayLoop => {
                let n = self.rng.gen_range(2..16);
                let e = self.expr(self.p.expr_depth.min(2));
                self.loop_var += 1;
                let lv = format!("k{}", self.loop_var);
                self.line(indent, "{");
                self.line(indent + 1, &format!("uint32_t {lv};"));
                self.line(indent + 1, &format!("for ({lv} = 0; {lv} < {n}; {lv}++) garr[{lv} & 15] = garr[{lv} & 15] + ({e});"));
                self.line(indent, "}");
            }
            Stmt::GlobalArray => {
                let v = self.var();
                let e = self.expr(1);
                self.line(indent, &format!("garr[{v} & 15] ^= {e};"));
            }
            Stmt::TimeCheck => {
                let v = self.var();
                match self.rng.gen_range(0..3) {
                    0 => {
                        self.line(
                            indent,
                            "if (now > st->last_ns && now - st->last_ns > cfg_timeout_ns) {",
                        );
                        self.line(indent + 1, "st->last_ns = now;");
                        self.line(indent + 1, &format!("{v} = 0;"));
                        self.line(indent, "}");
                    }
                    1 => {
                        self.line(indent, "{");
                        self.line(indent + 1, "uint64_t el = now - st->last_ns;");
                        self.line(indent + 1, "st->tokens += el * cfg_rate / 1000000000ull;");
                        self.line(
                            indent + 1,
                            "if (st->tokens > cfg_burst) st->tokens = cfg_burst;",
                        );
                        self.line(indent + 1, "st->last_ns = now;");
                        if self.in_process && self.rng.gen_bool(0.5) {
                            self.line(indent + 1, "if (st->tokens == 0) return NF_DROP;");
                        } else {
                            self.line(indent + 1, &format!("if (st->tokens == 0) {v} = 1;"));
                        }
                        self.line(indent + 1, "else st->tokens--;");
                        self.line(indent, "}");
                    }
                    _ => {
                        let e = self.expr(1);
                        self.line(
                            indent,
                            &format!(
                                "if (expired(&st->pool[({e}) & (NPOOL - 1)], now)) {v} = {v} + 1;"
                            ),
                        );
                    }
                }
            }
            Stmt::ChainWalk => {
                let v = self.var();
                self.line(indent, "{");
                self.line(indent + 1, "struct nf_flow5 k;");
                self.line(indent + 1, "struct node *r;");
                self.line(indent + 1, "if (nf_flow5_from(h, &k) == 0) {");
                self.line(
                    indent + 2,
                    "uint32_t bkt = nf_hash_bytes(&k, sizeof k) & (NBUCKETS - 1);",
                );
                if self.rng.gen_bool(0.5) {
                    self.line(indent + 2, "for (r = st->bucket[bkt]; r; r = r->next)");
                    self.line(indent + 3, "if (memcmp(&r->key, &k, sizeof k) == 0) break;");
                } else {
                    self.line(indent + 2, "for (r = st->bucket[bkt]; r; r = r->next)");
                    self.line(indent + 3, "if (key_eq(&r->key, &k)) break;");
                }
                if self.rng.gen_bool(0.6) {
                    self.line(indent + 2, "if (!r && st->free_list) {");
                    self.line(indent + 3, "r = st->free_list;");
                    self.line(indent + 3, "st->free_list = r->next;");
                    self.line(indent + 3, "memset(r, 0, sizeof *r);");
                    self.line(indent + 3, "r->key = k;");
                    self.line(indent + 3, "r->next = st->bucket[bkt];");
                    self.line(indent + 3, "st->bucket[bkt] = r;");
                    self.line(indent + 2, "}");
                }
                self.line(indent + 2, "if (r) {");
                self.line(indent + 3, "r->pkts++;");
                self.line(indent + 3, "r->last_ns = now;");
                self.line(indent + 3, &format!("{v} = r->mark;"));
                self.line(indent + 2, "}");
                self.line(indent + 1, "}");
                self.line(indent, "}");
            }
            Stmt::StructCopy => {
                let v = self.var();
                self.line(indent, "{");
                self.line(indent + 1, "struct nf_flow5 k;");
                self.line(indent + 1, "if (nf_flow5_from(h, &k) == 0) {");
                if self.rng.gen_bool(0.5) {
                    self.line(indent + 2, "st->last_key = k;");
                } else {
                    self.line(indent + 2, "memcpy(&st->last_key, &k, sizeof k);");
                }
                self.line(indent + 2, &format!("{v} = k.src_port ^ k.dst_port;"));
                self.line(indent + 1, "} else {");
                self.line(indent + 2, "memset(&st->last_key, 0, sizeof st->last_key);");
                self.line(indent + 1, "}");
                self.line(indent, "}");
            }
            Stmt::FlowHash => {
                let v = self.var();
                self.line(indent, "{");
                self.line(indent + 1, "struct flow_key key;");
                self.line(indent + 1, "memset(&key, 0, sizeof key);");
                let a = self.expr(1);
                self.line(indent + 1, &format!("key.a = (uint32_t)({a});"));
                self.line(
                    indent + 1,
                    &format!("{v} = nf_hash_bytes(&key, sizeof key) & (NCOUNTERS - 1);"),
                );
                self.line(indent, "}");
            }
            Stmt::CsumReplace32 => {
                let f = ["saddr", "daddr"][self.rng.gen_range(0..2)];
                let e = self.expr(1);
                self.line(indent, "if (h->ip4) {");
                self.line(indent + 1, &format!("uint32_t old = h->ip4->{f};"));
                self.line(
                    indent + 1,
                    &format!("h->ip4->{f} = nf_htonl((uint32_t)({e}));"),
                );
                self.line(
                    indent + 1,
                    &format!("h->ip4->check = nf_csum_replace32(h->ip4->check, old, h->ip4->{f});"),
                );
                self.line(indent, "}");
            }
            Stmt::FtableRemove => {
                let a = self.expr(1);
                self.line(indent, "{");
                self.line(indent + 1, "struct flow_key key;");
                self.line(indent + 1, "memset(&key, 0, sizeof key);");
                self.line(indent + 1, &format!("key.a = (uint32_t)({a});"));
                self.line(
                    indent + 1,
                    "if (nf_ftable_remove(&st->flows.hdr, &key) == 0) st->total_pkts--;",
                );
                self.line(indent, "}");
            }
            Stmt::MacSwap => {
                self.line(indent, "if (h->eth) {");
                self.line(indent + 1, "uint8_t tmp[6];");
                if self.rng.gen_bool(0.5) {
                    self.line(indent + 1, "memcpy(tmp, h->eth->dst, 6);");
                    self.line(indent + 1, "memcpy(h->eth->dst, h->eth->src, 6);");
                    self.line(indent + 1, "memcpy(h->eth->src, tmp, 6);");
                } else {
                    self.line(indent + 1, "for (int j = 0; j < 6; j++) {");
                    self.line(indent + 2, "tmp[j] = h->eth->dst[j];");
                    self.line(indent + 2, "h->eth->dst[j] = h->eth->src[j];");
                    self.line(indent + 2, "h->eth->src[j] = tmp[j];");
                    self.line(indent + 1, "}");
                }
                self.line(indent, "}");
            }
            Stmt::PacketBytes => {
                let v = self.var();
                let off = ["l4_off", "l3_off"][self.rng.gen_range(0..2)];
                let (c0, c1) = (self.rng.gen_range(0..8), self.rng.gen_range(0..8));
                self.line(
                    indent,
                    &format!("if (h->{off} && pkt->len >= h->{off} + 8u) {{"),
                );
                if self.rng.gen_bool(0.6) {
                    self.line(
                        indent + 1,
                        &format!("const uint8_t *p = pkt->data + h->{off};"),
                    );
                    self.line(
                        indent + 1,
                        &format!("{v} = (uint32_t)p[{c0}] << 8 | p[{c1}];"),
                    );
                } else {
                    let e = self.expr(1);
                    self.line(indent + 1, &format!("uint8_t *p = pkt->data + h->{off};"));
                    self.line(indent + 1, &format!("p[{c0}] = (uint8_t)({e});"));
                }
                self.line(indent, "}");
            }
            Stmt::OutParams => {
                let v = self.var();
                self.line(indent, "{");
                self.line(indent + 1, "uint16_t sp, dp;");
                self.line(
                    indent + 1,
                    &format!("if (l4_ports(h, &sp, &dp) == 0) {v} = sp ^ dp;"),
                );
                self.line(indent, "}");
            }
            Stmt::XdpHeaderRead => {
                let (ty, var, off, fields) = self.xdp_header();
                let (f, bits) = fields[self.rng.gen_range(0..fields.len())];
                let v = self.var();
                let fail = self.fail_ret();
                self.line(indent, "{");
                self.line(indent + 1, &format!("struct {ty} *{var} = data + {off};"));
                if self.rng.gen_bool(0.5) {
                    self.line(indent + 1, &format!("if ((void *)({var} + 1) > data_end)"));
                } else {
                    self.line(
                        indent + 1,
                        &format!("if (data + {off} + sizeof(*{var}) > data_end)"),
                    );
                }
                self.line(indent + 2, &format!("return {fail};"));
                let e = match (f, bits) {
                    ("ihl", _) => format!("{var}->ihl * 4"),
                    (_, 16) => format!("bpf_ntohs({var}->{f})"),
                    (_, 32) => format!("bpf_ntohl({var}->{f})"),
                    _ => format!("{var}->{f}"),
                };
                self.line(indent + 1, &format!("{v} = {e};"));
                if self.rng.gen_bool(0.4) {
                    let c = self.cond();
                    let fail = self.fail_ret();
                    self.line(indent + 1, &format!("if ({c}) return {fail};"));
                }
                self.line(indent, "}");
            }
            Stmt::XdpHeaderWrite => {
                let fail = self.fail_ret();
                self.line(indent, "{");
                if self.rng.gen_bool(0.4) {
                    // The kernel's ip_decrease_ttl: incremental checksum.
                    self.line(
                        indent + 1,
                        "struct iphdr *iph = data + sizeof(struct ethhdr);",
                    );
                    self.line(indent + 1, "__u32 check;");
                    self.line(indent + 1, "if ((void *)(iph + 1) > data_end)");
                    self.line(indent + 2, &format!("return {fail};"));
                    self.line(indent + 1, "check = iph->check;");
                    self.line(indent + 1, "check += bpf_htons(0x0100);");
                    self.line(
                        indent + 1,
                        "iph->check = (__u16)(check + (check >= 0xFFFF));",
                    );
                    self.line(indent + 1, "iph->ttl--;");
                } else {
                    let (ty, var, off, fields) = self.xdp_header();
                    let (f, bits) = fields[self.rng.gen_range(0..fields.len())];
                    let e = self.expr(1);
                    self.line(indent + 1, &format!("struct {ty} *{var} = data + {off};"));
                    self.line(indent + 1, &format!("if ((void *)({var} + 1) > data_end)"));
                    self.line(indent + 2, &format!("return {fail};"));
                    let conv = match (f, bits) {
                        ("ihl", _) => format!("(__u8)({e}) & 15"),
                        (_, 16) => format!("bpf_htons((__u16)({e}))"),
                        (_, 32) => format!("bpf_htonl((__u32)({e}))"),
                        _ => format!("(__u8)({e})"),
                    };
                    self.line(indent + 1, &format!("{var}->{f} = {conv};"));
                }
                self.line(indent, "}");
            }
            Stmt::MapLookup => {
                let v = self.var();
                let a = self.expr(1);
                self.line(indent, "{");
                self.line(indent + 1, "struct xflow_key key = {};");
                self.line(indent + 1, "struct xflow_val *fv;");
                self.line(indent + 1, &format!("key.saddr = (__u32)({a});"));
                if self.rng.gen_bool(0.6) {
                    let b = self.var();
                    self.line(indent + 1, &format!("key.dport = (__u16){b};"));
                    self.line(indent + 1, "key.proto = 17;");
                }
                self.line(indent + 1, "fv = bpf_map_lookup_elem(&flows, &key);");
                if self.rng.gen_bool(0.5) {
                    let fail = self.fail_ret();
                    self.line(indent + 1, "if (!fv)");
                    self.line(indent + 2, &format!("return {fail};"));
                    self.map_value_use(indent + 1, &v);
                } else {
                    self.line(indent + 1, "if (fv) {");
                    self.map_value_use(indent + 2, &v);
                    self.line(indent + 1, "}");
                }
                self.line(indent, "}");
            }
            Stmt::MapUpdate => {
                let v = self.var();
                let a = self.expr(1);
                self.line(indent, "{");
                self.line(indent + 1, "struct xflow_key key = {};");
                self.line(indent + 1, &format!("key.saddr = (__u32)({a});"));
                if self.rng.gen_bool(0.7) {
                    self.line(indent + 1, "struct xflow_val nv = {};");
                    self.line(indent + 1, "nv.pkts = 1;");
                    self.line(indent + 1, "nv.bytes = data_end - data;");
                    if self.rng.gen_bool(0.5) {
                        self.line(indent + 1, "nv.last_ns = bpf_ktime_get_ns();");
                    }
                    let flag = ["BPF_ANY", "BPF_NOEXIST"][self.rng.gen_range(0..2)];
                    self.line(
                        indent + 1,
                        &format!("if (bpf_map_update_elem(&flows, &key, &nv, {flag}) < 0)"),
                    );
                    self.line(indent + 2, &format!("{v} = 1;"));
                } else {
                    self.line(indent + 1, "if (bpf_map_delete_elem(&flows, &key) == 0)");
                    self.line(indent + 2, &format!("{v} = 0;"));
                }
                self.line(indent, "}");
            }
            Stmt::CpuCounter => {
                let fail = self.fail_ret();
                self.line(indent, "{");
                if self.rng.gen_bool(0.5) {
                    self.line(indent + 1, "__u32 key = 0;");
                } else {
                    self.line(indent + 1, "__u32 key = bpf_get_smp_processor_id();");
                }
                self.line(
                    indent + 1,
                    "__u64 *cnt = bpf_map_lookup_elem(&rx_cnt, &key);",
                );
                self.line(indent + 1, "if (!cnt)");
                self.line(indent + 2, &format!("return {fail};"));
                if self.rng.gen_bool(0.5) {
                    self.line(indent + 1, "*cnt += 1;");
                } else {
                    self.line(indent + 1, "__sync_fetch_and_add(cnt, 1);");
                }
                self.line(indent, "}");
            }
            Stmt::HelperCall => {
                let v = self.var();
                match self.rng.gen_range(0..4) {
                    0 => self.line(indent, &format!("{v} = bpf_ktime_get_ns();")),
                    1 => {
                        let n = self.rng.gen_range(2..64);
                        self.line(indent, &format!("{v} = bpf_get_prandom_u32() % {n};"));
                    }
                    2 => self.line(indent, &format!("{v} = bpf_get_smp_processor_id();")),
                    _ => {
                        let (a, b) = (self.expr(1), self.var());
                        self.line(indent, "{");
                        self.line(
                            indent + 1,
                            &format!("__u32 from = (__u32)({a}), to = (__u32){b};"),
                        );
                        self.line(
                            indent + 1,
                            &format!("{v} = bpf_csum_diff(&from, 4, &to, 4, ~{v});"),
                        );
                        self.line(indent, "}");
                    }
                }
            }
            Stmt::Redirect => {
                let e = self.expr(1);
                let call = if self.rng.gen_bool(0.6) {
                    format!("bpf_redirect_map(&tx_port, (__u32)({e}) & 63, 0)")
                } else {
                    format!("bpf_redirect((__u32)({e}), 0)")
                };
                if self.in_process {
                    let c = self.cond();
                    self.line(indent, &format!("if ({c})"));
                    self.line(indent + 1, &format!("return {call};"));
                } else {
                    let v = self.var();
                    self.line(indent, &format!("{v} = {call};"));
                }
            }
            Stmt::XdpMacSwap => {
                self.line(indent, "{");
                if self.rng.gen_bool(0.5) {
                    self.line(indent + 1, "unsigned char tmp[6];");
                    self.line(indent + 1, "__builtin_memcpy(tmp, eth->h_source, 6);");
                    self.line(
                        indent + 1,
                        "__builtin_memcpy(eth->h_source, eth->h_dest, 6);",
                    );
                    self.line(indent + 1, "__builtin_memcpy(eth->h_dest, tmp, 6);");
                } else {
                    // xdp-bench's swap_src_dst_mac: three 16-bit words each way.
                    self.line(indent + 1, "__u16 *p = data;");
                    self.line(indent + 1, "__u16 dst[3];");
                    self.line(indent + 1, "dst[0] = p[0];");
                    self.line(indent + 1, "dst[1] = p[1];");
                    self.line(indent + 1, "dst[2] = p[2];");
                    self.line(indent + 1, "p[0] = p[3];");
                    self.line(indent + 1, "p[1] = p[4];");
                    self.line(indent + 1, "p[2] = p[5];");
                    self.line(indent + 1, "p[3] = dst[0];");
                    self.line(indent + 1, "p[4] = dst[1];");
                    self.line(indent + 1, "p[5] = dst[2];");
                }
                self.line(indent, "}");
            }
            Stmt::VlanWalk => {
                let v = self.var();
                let fail = self.fail_ret();
                self.line(indent, "{");
                self.line(indent + 1, "__u16 proto = eth->h_proto;");
                self.line(indent + 1, "__u64 off = sizeof(struct ethhdr);");
                self.line(indent + 1, "int j;");
                self.line(indent + 1, "for (j = 0; j < 2; j++) {");
                self.line(indent + 2, "struct vlan_hdr *vh = data + off;");
                self.line(
                    indent + 2,
                    "if (proto != bpf_htons(0x8100) && proto != bpf_htons(0x88A8))",
                );
                self.line(indent + 3, "break;");
                self.line(indent + 2, "if ((void *)(vh + 1) > data_end)");
                self.line(indent + 3, &format!("return {fail};"));
                self.line(indent + 2, "proto = vh->h_vlan_encapsulated_proto;");
                self.line(indent + 2, "off += sizeof(struct vlan_hdr);");
                self.line(indent + 1, "}");
                self.line(indent + 1, &format!("{v} = bpf_ntohs(proto);"));
                self.line(indent, "}");
            }
            Stmt::AdjustHead => {
                let fail = self.fail_ret();
                let (call, d) = if self.rng.gen_bool(0.6) {
                    (
                        "bpf_xdp_adjust_head",
                        [
                            "(int)sizeof(struct vlan_hdr)",
                            "0 - (int)sizeof(struct vlan_hdr)",
                            "(int)sizeof(struct ethhdr)",
                        ][self.rng.gen_range(0..3)],
                    )
                } else {
                    (
                        "bpf_xdp_adjust_tail",
                        ["-4", "0 - (int)sizeof(struct udphdr)"][self.rng.gen_range(0..2)],
                    )
                };
                self.line(indent, &format!("if ({call}(ctx, {d}))"));
                self.line(indent + 1, &format!("return {fail};"));
                self.line(indent, "data = (void *)(long)ctx->data;");
                self.line(indent, "data_end = (void *)(long)ctx->data_end;");
                self.line(indent, "eth = data;");
                self.line(indent, "if ((void *)(eth + 1) > data_end)");
                let fail = self.fail_ret();
                self.line(indent + 1, &format!("return {fail};"));
            }
            Stmt::SmallCall => {
                let v = self.var();
                let e = self.expr(1);
                let f = ["bucket_of", "is_private"][self.rng.gen_range(0..2)];
                self.line(indent, &format!("{v} = {f}((uint32_t)({e}));"));
            }
            Stmt::Switch => {
                let v = self.var();
                self.line(indent, &format!("switch ({v} & 7) {{"));
                for case in 0..self.rng.gen_range(2..5) {
                    let w = self.var();
                    let e = self.expr(1);
                    self.line(indent, &format!("case {case}: {w} = {e}; break;"));
                }
                self.line(indent, "default: break;");
                self.line(indent, "}");
            }
        }
    }

    fn function(&mut self, name: &str, process: bool) {
        self.in_process = process;
        self.vars.clear();
        let nvars = self.rng.gen_range(2..6);
        let mut decls = vec![];
        let mut params = vec![];
        if !process {
            params.push(("a".to_string(), 32));
            params.push(("b".to_string(), 32));
        }
        for i in 0..nvars {
            let bits = [8, 16, 32, 32, 32, 64][self.rng.gen_range(0..6)];
            decls.push((format!("v{i}"), bits));
        }
        self.vars.extend(params.iter().cloned());
        self.vars.extend(decls.iter().cloned());
        if self.p.nf_api {
            if process {
                self.out
                    .push_str("int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)\n{\n");
                self.line(1, "struct gen_state *st = ctx->state;");
                self.line(1, "struct nf_headers hh, *h = &hh;");
                if self.p.entry_points {
                    self.line(1, "uint64_t now = ctx->now_ns;");
                }
                for (n, b) in &decls {
                    self.line(1, &format!("{} {n} = 0;", cty(*b)));
                }
                self.line(1, "if (nf_parse(pkt, h) != 0) return NF_DROP;");
            } else if self.p.entry_points {
                self.out.push_str(&format!(
                    "static uint32_t {name}(struct gen_state *st, struct nf_headers *h, struct nf_packet *pkt, uint64_t now, uint32_t a, uint32_t b)\n{{\n"
                ));
                for (n, b) in &decls {
                    self.line(1, &format!("{} {n} = a;", cty(*b)));
                }
            } else {
                self.out.push_str(&format!(
                    "static uint32_t {name}(struct gen_state *st, struct nf_headers *h, struct nf_packet *pkt, uint32_t a, uint32_t b)\n{{\n"
                ));
                for (n, b) in &decls {
                    self.line(1, &format!("{} {n} = a;", cty(*b)));
                }
            }
        } else {
            if process {
                self.out
                    .push_str("uint32_t entry(uint32_t a, uint32_t b)\n{\n");
            } else {
                self.out.push_str(&format!(
                    "static uint32_t {name}(uint32_t a, uint32_t b)\n{{\n"
                ));
            }
            for (n, b) in &decls {
                self.line(1, &format!("{} {n} = b;", cty(*b)));
            }
        }
        let n = self.rng.gen_range(self.p.stmts.0..=self.p.stmts.1);
        self.block(1, n, 0);
        let ret = if process && self.p.nf_api {
            format!("NF_PORT({})", self.rng.gen_range(0..2))
        } else {
            let v = self.var();
            format!("(uint32_t){v}")
        };
        self.line(1, &format!("return {ret};"));
        self.out.push_str("}\n\n");
    }
}

impl Gen<'_> {
    /// `nf_init`: one to six configuration items, each read, range-checked
    /// and stored in a global, failing through `nf_fail` as real NFs do
    /// (numbers, words compared with `strcmp`, prefixes, addresses, and a
    /// rule list read with `snprintf`-built keys).
    fn init_function(&mut self) {
        self.out.push_str(
            "int nf_init(const struct nf_config *cfg, char *err, size_t err_len)\n{\n    static char key[64];\n    const char *v;\n    uint64_t n;\n    uint8_t w;\n",
        );
        let items = self.rng.gen_range(1..=6);
        for i in 0..items {
            let k = format!("k{i}");
            match self.rng.gen_range(0..7) {
                0 | 1 => {
                    let max = [1000u64, 65535, 1_000_000_000, 86_400_000][self.rng.gen_range(0..4)];
                    let g = ["cfg_threshold", "cfg_limit", "cfg_mask"][self.rng.gen_range(0..3)];
                    let dflt = self.rng.gen_range(1..100);
                    self.line(1, &format!("if (nf_config_u64(cfg, \"{k}\", {dflt}, &n) || n == 0 || n > {max}ull)"));
                    self.line(2, &format!("return nf_fail(err, err_len, \"expected a number (1..{max})\", \"{k}\");"));
                    if self.rng.gen_bool(0.4) {
                        self.line(1, "cfg_timeout_ns = n * 1000000ull;");
                    } else {
                        self.line(1, &format!("{g} = (uint32_t)n;"));
                    }
                }
                2 => {
                    self.line(1, &format!("v = nf_config_get(cfg, \"{k}\");"));
                    self.line(1, "if (!v || !strcmp(v, \"true\"))");
                    self.line(2, "cfg_flag = 1;");
                    self.line(1, "else if (!strcmp(v, \"false\"))");
                    self.line(2, "cfg_flag = 0;");
                    self.line(1, "else");
                    self.line(
                        2,
                        &format!(
                            "return nf_fail(err, err_len, \"expected true or false\", \"{k}\");"
                        ),
                    );
                }
                3 => {
                    self.line(1, &format!("v = nf_config_get(cfg, \"{k}\");"));
                    self.line(1, "if (!v || nf_parse_u64(v, &cfg_rate) || cfg_rate == 0 || cfg_rate > 1000000000ull)");
                    self.line(
                        2,
                        &format!("return nf_fail(err, err_len, \"expected a rate\", \"{k}\");"),
                    );
                    self.line(1, &format!("if (nf_config_u64(cfg, \"{k}_burst\", cfg_rate, &cfg_burst) || cfg_burst == 0)"));
                    self.line(
                        2,
                        &format!(
                            "return nf_fail(err, err_len, \"expected a burst\", \"{k}_burst\");"
                        ),
                    );
                }
                4 => {
                    self.line(
                        1,
                        &format!("if ((v = nf_config_get(cfg, \"{k}\")) && parse_word(v, &w))"),
                    );
                    self.line(
                        2,
                        &format!(
                            "return nf_fail(err, err_len, \"expected allow or drop\", \"{k}\");"
                        ),
                    );
                    self.line(1, "cfg_flag = v ? w : cfg_flag;");
                }
                5 => {
                    self.line(1, &format!("v = nf_config_get(cfg, \"{k}\");"));
                    match self.rng.gen_range(0..3) {
                        0 => self.line(1, "if (v && nf_parse_ipv4(v, &cfg_addr))"),
                        1 => self.line(1, "if (v && nf_parse_mac(v, cfg_mac))"),
                        _ => self.line(
                            1,
                            "if (v && nf_parse_prefix(v, &rules[0].addr, &rules[0].mask))",
                        ),
                    }
                    self.line(
                        2,
                        &format!("return nf_fail(err, err_len, \"expected an address\", \"{k}\");"),
                    );
                }
                _ => {
                    self.line(
                        1,
                        &format!("if (nf_config_u64(cfg, \"{k}.len\", 0, &n) || n > 16)"),
                    );
                    self.line(
                        2,
                        &format!(
                            "return nf_fail(err, err_len, \"expected at most 16 rules\", \"{k}\");"
                        ),
                    );
                    self.line(1, "for (n_rules = 0; n_rules < n; n_rules++) {");
                    self.line(
                        2,
                        &format!("snprintf(key, sizeof key, \"{k}.%u.prefix\", n_rules);"),
                    );
                    self.line(2, "v = nf_config_get(cfg, key);");
                    self.line(
                        2,
                        "if (!v || nf_parse_prefix(v, &rules[n_rules].addr, &rules[n_rules].mask))",
                    );
                    self.line(
                        3,
                        &format!("return nf_fail(err, err_len, \"expected a prefix\", \"{k}\");"),
                    );
                    self.line(
                        2,
                        &format!("snprintf(key, sizeof key, \"{k}.%u.action\", n_rules);"),
                    );
                    self.line(2, "v = nf_config_get(cfg, key);");
                    self.line(2, "if (v && parse_word(v, &w))");
                    self.line(
                        3,
                        &format!(
                            "return nf_fail(err, err_len, \"expected allow or drop\", \"{k}\");"
                        ),
                    );
                    self.line(2, "rules[n_rules].action = v ? w : 0;");
                    self.line(1, "}");
                }
            }
        }
        self.line(1, "return 0;");
        self.out.push_str("}\n\n");
    }
}

/// An XDP header: its struct, the pointer's name, its offset from `data`,
/// and its fields with their widths in bits (`ihl` is a 4-bit field).
type XdpHeader = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, u32)],
);

const XDP_HEADERS: &[XdpHeader] = &[
    (
        "iphdr",
        "iph",
        "sizeof(struct ethhdr)",
        &[
            ("ihl", 4),
            ("tos", 8),
            ("tot_len", 16),
            ("id", 16),
            ("frag_off", 16),
            ("ttl", 8),
            ("protocol", 8),
            ("check", 16),
            ("saddr", 32),
            ("daddr", 32),
        ],
    ),
    (
        "udphdr",
        "uh",
        "sizeof(struct ethhdr) + sizeof(struct iphdr)",
        &[("source", 16), ("dest", 16), ("len", 16), ("check", 16)],
    ),
    (
        "tcphdr",
        "th",
        "sizeof(struct ethhdr) + sizeof(struct iphdr)",
        &[
            ("source", 16),
            ("dest", 16),
            ("seq", 32),
            ("ack_seq", 32),
            ("window", 16),
            ("check", 16),
        ],
    ),
    ("ethhdr", "eh", "0", &[("h_proto", 16)]),
];

impl Gen<'_> {
    fn xdp_header(&mut self) -> XdpHeader {
        XDP_HEADERS[self.rng.gen_range(0..XDP_HEADERS.len())]
    }

    /// An XDP program's verdict (the entry's return values).
    fn xdp_verdict(&mut self) -> &'static str {
        ["XDP_DROP", "XDP_PASS", "XDP_ABORTED", "XDP_TX"][self.rng.gen_range(0..4)]
    }

    /// What a failed bounds or null check returns: a verdict in the entry,
    /// 0 in a helper.
    fn fail_ret(&mut self) -> &'static str {
        if self.in_process {
            ["XDP_DROP", "XDP_PASS", "XDP_ABORTED"][self.rng.gen_range(0..3)]
        } else {
            "0"
        }
    }

    /// Uses of a looked-up flow value `fv` (counters, atomics, a field read).
    fn map_value_use(&mut self, indent: usize, v: &str) {
        if self.rng.gen_bool(0.5) {
            self.line(indent, "__sync_fetch_and_add(&fv->pkts, 1);");
        } else {
            self.line(indent, "fv->pkts++;");
        }
        if self.rng.gen_bool(0.5) {
            self.line(indent, "fv->bytes += data_end - data;");
        }
        if self.rng.gen_bool(0.3) {
            self.line(indent, "fv->last_ns = bpf_ktime_get_ns();");
        }
        if self.rng.gen_bool(0.5) {
            self.line(indent, &format!("{v} = fv->mark;"));
        }
    }

    /// One function of an XDP program: the `SEC("xdp")` entry, or a helper
    /// taking the context and the packet bounds (always inlined, as most
    /// eBPF helpers are, or a BPF-to-BPF call).
    fn xdp_function(&mut self, name: &str, process: bool) {
        self.in_process = process;
        self.vars.clear();
        let nvars = self.rng.gen_range(2..6);
        let mut decls = vec![];
        for i in 0..nvars {
            let bits = [8, 16, 32, 32, 32, 64][self.rng.gen_range(0..6)];
            decls.push((format!("v{i}"), bits));
        }
        if process {
            self.out
                .push_str("SEC(\"xdp\") int xdp_prog(struct xdp_md *ctx)\n{\n");
            self.line(1, "void *data_end = (void *)(long)ctx->data_end;");
            self.line(1, "void *data = (void *)(long)ctx->data;");
        } else {
            self.vars.push(("a".to_string(), 32));
            self.vars.push(("b".to_string(), 32));
            let inline = if self.rng.gen_bool(0.6) {
                "static __always_inline"
            } else {
                "static __attribute__((noinline))"
            };
            self.out.push_str(&format!(
                "{inline} __u32 {name}(struct xdp_md *ctx, void *data, void *data_end, __u32 a, __u32 b)\n{{\n"
            ));
        }
        self.line(1, "struct ethhdr *eth = data;");
        let init = if process { "0" } else { "a" };
        for (n, b) in &decls {
            self.line(1, &format!("{} {n} = {init};", cty(*b)));
        }
        self.vars.extend(decls.iter().cloned());
        let fail = self.fail_ret();
        self.line(1, "if ((void *)(eth + 1) > data_end)");
        self.line(2, &format!("return {fail};"));
        let n = self.rng.gen_range(self.p.stmts.0..=self.p.stmts.1);
        self.block(1, n, 0);
        let ret = if process {
            ["XDP_PASS", "XDP_TX", "XDP_PASS", "XDP_DROP"][self.rng.gen_range(0..4)].to_string()
        } else {
            let v = self.var();
            format!("(__u32){v}")
        };
        self.line(1, &format!("return {ret};"));
        self.out.push_str("}\n\n");
    }
}

/// The XDP programs' prelude, self-contained as eBPF programs are built
/// (no libc): the UAPI structs they parse, the BPF helpers declared as
/// libbpf's `bpf_helper_defs.h` declares them (constant function pointers
/// holding the helper's number, so every call loads a global and calls
/// through it), byte swaps as `bpf_endian.h` writes them, BTF-style map
/// definitions and `const volatile` configuration (libbpf's rodata).
const XDP_PRELUDE: &str = "#include <stdint.h>\n\n\
typedef uint8_t __u8;\ntypedef uint16_t __u16;\ntypedef uint32_t __u32;\ntypedef uint64_t __u64;\ntypedef int64_t __s64;\n\
#define SEC(name) __attribute__((section(name), used))\n\
#define __always_inline inline __attribute__((always_inline))\n\
#define __uint(name, val) int (*name)[val]\n\
#define __type(name, val) __typeof__(val) *name\n\
#define ___constant_swab16(x) ((__u16)((((__u16)(x) & 0x00ffU) << 8) | (((__u16)(x) & 0xff00U) >> 8)))\n\
#define ___constant_swab32(x) ((__u32)((((__u32)(x) & 0xffU) << 24) | (((__u32)(x) & 0xff00U) << 8) | (((__u32)(x) & 0xff0000U) >> 8) | (((__u32)(x) & 0xff000000U) >> 24)))\n\
#define bpf_htons(x) (__builtin_constant_p(x) ? ___constant_swab16(x) : __builtin_bswap16(x))\n\
#define bpf_ntohs(x) bpf_htons(x)\n\
#define bpf_htonl(x) (__builtin_constant_p(x) ? ___constant_swab32(x) : __builtin_bswap32(x))\n\
#define bpf_ntohl(x) bpf_htonl(x)\n\
enum xdp_action { XDP_ABORTED = 0, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT };\n\
enum { BPF_ANY = 0, BPF_NOEXIST = 1, BPF_EXIST = 2 };\n\
enum { BPF_MAP_TYPE_HASH = 1, BPF_MAP_TYPE_PERCPU_ARRAY = 6, BPF_MAP_TYPE_DEVMAP = 14 };\n\
struct xdp_md { __u32 data; __u32 data_end; __u32 data_meta; __u32 ingress_ifindex; __u32 rx_queue_index; __u32 egress_ifindex; };\n\
struct ethhdr { unsigned char h_dest[6]; unsigned char h_source[6]; __u16 h_proto; } __attribute__((packed));\n\
struct vlan_hdr { __u16 h_vlan_TCI; __u16 h_vlan_encapsulated_proto; };\n\
struct iphdr { __u8 ihl:4, version:4; __u8 tos; __u16 tot_len; __u16 id; __u16 frag_off; __u8 ttl; __u8 protocol; __u16 check; __u32 saddr; __u32 daddr; };\n\
struct udphdr { __u16 source; __u16 dest; __u16 len; __u16 check; };\n\
struct tcphdr { __u16 source; __u16 dest; __u32 seq; __u32 ack_seq; __u16 flags; __u16 window; __u16 check; __u16 urg_ptr; };\n\
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;\n\
static long (*bpf_map_update_elem)(void *map, const void *key, const void *value, __u64 flags) = (void *) 2;\n\
static long (*bpf_map_delete_elem)(void *map, const void *key) = (void *) 3;\n\
static __u64 (*bpf_ktime_get_ns)(void) = (void *) 5;\n\
static __u32 (*bpf_get_prandom_u32)(void) = (void *) 7;\n\
static __u32 (*bpf_get_smp_processor_id)(void) = (void *) 8;\n\
static long (*bpf_redirect)(__u32 ifindex, __u64 flags) = (void *) 23;\n\
static __s64 (*bpf_csum_diff)(__u32 *from, __u32 from_size, __u32 *to, __u32 to_size, __u32 seed) = (void *) 28;\n\
static long (*bpf_xdp_adjust_head)(struct xdp_md *xdp_md, int delta) = (void *) 44;\n\
static long (*bpf_redirect_map)(void *map, __u64 key, __u64 flags) = (void *) 51;\n\
static long (*bpf_xdp_adjust_tail)(struct xdp_md *xdp_md, int delta) = (void *) 65;\n\
struct xflow_key { __u32 saddr; __u32 daddr; __u16 sport; __u16 dport; __u8 proto; };\n\
struct xflow_val { __u64 pkts; __u64 bytes; __u64 last_ns; __u32 mark; };\n\
struct { __uint(type, BPF_MAP_TYPE_HASH); __type(key, struct xflow_key); __type(value, struct xflow_val); __uint(max_entries, 4096); } flows SEC(\".maps\");\n\
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __type(key, __u32); __type(value, __u64); __uint(max_entries, 1); } rx_cnt SEC(\".maps\");\n\
struct { __uint(type, BPF_MAP_TYPE_DEVMAP); __type(key, __u32); __type(value, __u32); __uint(max_entries, 64); } tx_port SEC(\".maps\");\n\
const volatile __u32 cfg_threshold = 64, cfg_limit = 1024, cfg_mask = 0xffffff;\n\n";

/// The second generator's prelude: a chained flow cache with a node pool,
/// a time base, configuration globals, and the small helpers real NFs
/// write (static, so `-O0` emits only those a program uses).
const ENTRY_POINTS_PRELUDE: &str = "#include \"nf.h\"\n#include <stdio.h>\n\n\
#define NCOUNTERS 64\n\
#define NPOOL 256\n\
#define NBUCKETS 64\n\
struct flow_key { uint32_t a; uint16_t b; uint16_t pad; };\n\
struct flow_val { uint64_t pkts; uint64_t bytes; uint32_t mark; };\n\
struct rule { uint32_t addr, mask, action; };\n\
struct node { struct node *next; struct nf_flow5 key; uint64_t pkts, last_ns; uint32_t mark; };\n\
struct gen_state { NF_FTABLE(struct flow_key, struct flow_val, 256) flows; uint64_t counters[NCOUNTERS]; uint64_t total_bytes, total_pkts; uint64_t last_ns, tokens; struct nf_flow5 last_key; struct node *bucket[NBUCKETS]; struct node *free_list; struct node pool[NPOOL]; };\n\
static struct rule rules[16];\n\
static uint32_t n_rules, cfg_threshold, cfg_limit, cfg_mask, cfg_addr;\n\
static uint64_t cfg_timeout_ns = 30000000000ull, cfg_rate = 1000, cfg_burst = 64;\n\
static uint8_t cfg_flag = 1, cfg_mac[6];\n\
static const struct nf_info gen_info = {NF_ABI_VERSION, \"gen\", 2};\n\n\
const struct nf_info *nf_describe(void) { return &gen_info; }\n\n\
size_t nf_state_size(void) { return sizeof(struct gen_state); }\n\n\
static int parse_word(const char *s, uint8_t *out)\n{\n\
    if (!strcmp(s, \"allow\") || !strcmp(s, \"accept\") || !strcmp(s, \"pass\"))\n\
        *out = 0;\n\
    else if (!strcmp(s, \"drop\") || !strcmp(s, \"deny\"))\n\
        *out = 1;\n\
    else\n\
        return -1;\n\
    return 0;\n}\n\n\
static int expired(const struct node *r, uint64_t now)\n{\n\
    return now > r->last_ns && now - r->last_ns > cfg_timeout_ns;\n}\n\n\
static int l4_ports(const struct nf_headers *h, uint16_t *sport, uint16_t *dport)\n{\n\
    if (h->tcp) {\n\
        *sport = nf_ntohs(h->tcp->sport);\n\
        *dport = nf_ntohs(h->tcp->dport);\n\
        return 0;\n\
    }\n\
    if (h->udp) {\n\
        *sport = nf_ntohs(h->udp->sport);\n\
        *dport = nf_ntohs(h->udp->dport);\n\
        return 0;\n\
    }\n\
    return -1;\n}\n\n\
static uint32_t bucket_of(uint32_t x) { return (x * 2654435761u) >> 26; }\n\n\
static uint32_t is_private(uint32_t a)\n{\n\
    return (a & 0xff000000u) == 0x0a000000u || (a & 0xfff00000u) == 0xac100000u || (a & 0xffff0000u) == 0xc0a80000u;\n}\n\n\
static int key_eq(const struct nf_flow5 *a, const struct nf_flow5 *b)\n{\n\
    return a->src_ip == b->src_ip && a->dst_ip == b->dst_ip && a->src_port == b->src_port &&\n\
           a->dst_port == b->dst_port && a->proto == b->proto;\n}\n\n";

const STATE_INIT: &str = "void nf_state_init(void *state)\n{\n\
    struct gen_state *st = state;\n\
    NF_FTABLE_INIT(&st->flows);\n\
    st->free_list = 0;\n\
    for (uint32_t i = NPOOL; i-- > 0;) {\n\
        st->pool[i].next = st->free_list;\n\
        st->free_list = &st->pool[i];\n\
    }\n}\n\n";

/// One synthesised C program (deterministic in `seed`).
pub fn generate(profile: &Profile, seed: u64) -> String {
    let mut g = Gen {
        p: profile,
        rng: ChaCha8Rng::seed_from_u64(seed),
        out: String::new(),
        vars: vec![],
        helpers_before: 0,
        in_process: false,
        loop_var: 0,
        xdp: false,
    };
    g.out.push_str(&format!(
        "/* synthesised by nfc-smartnic ({}), seed {seed} */\n",
        profile.name
    ));
    // Drawn first, and only when the profile writes XDP programs, so the
    // other profiles' programs stay what their seeds made before.
    g.xdp = profile.xdp_share > 0.0 && g.rng.gen_bool(profile.xdp_share);
    if g.xdp {
        g.out.push_str(XDP_PRELUDE);
        let helpers = g.rng.gen_range(profile.helpers.0..=profile.helpers.1);
        for k in 0..helpers {
            g.helpers_before = k;
            g.xdp_function(&format!("helper{k}"), false);
        }
        g.helpers_before = helpers;
        g.xdp_function("xdp_prog", true);
        g.out
            .push_str("char _license[] SEC(\"license\") = \"GPL\";\n");
        return g.out;
    }
    if profile.entry_points {
        g.out.push_str(ENTRY_POINTS_PRELUDE);
        g.out.push_str("static uint32_t garr[16];\n\n");
        g.init_function();
        if g.rng.gen_bool(0.6) {
            g.out.push_str(STATE_INIT);
        }
    } else if profile.nf_api {
        g.out.push_str(
            "#include \"nf.h\"\n\n\
             #define NCOUNTERS 64\n\
             struct flow_key { uint32_t a; uint16_t b; uint16_t pad; };\n\
             struct flow_val { uint64_t pkts; uint64_t bytes; uint32_t mark; };\n\
             struct rule { uint32_t addr, mask, action; };\n\
             struct gen_state { NF_FTABLE(struct flow_key, struct flow_val, 256) flows; uint64_t counters[NCOUNTERS]; uint64_t total_bytes, total_pkts; };\n\
             static struct rule rules[16];\n\
             static uint32_t n_rules, cfg_threshold, cfg_limit, cfg_mask;\n\n\
             size_t nf_state_size(void) { return sizeof(struct gen_state); }\n\n",
        );
    } else {
        g.out
            .push_str("#include <stdint.h>\n\nstatic uint32_t garr[16];\n\n");
    }
    // Naive programs use garr too when drawn; NF-like ones rarely do.
    if profile.nf_api && !profile.entry_points {
        g.out.push_str("static uint32_t garr[16];\n\n");
    }
    let helpers = g.rng.gen_range(profile.helpers.0..=profile.helpers.1);
    for k in 0..helpers {
        g.helpers_before = k;
        g.function(&format!("helper{k}"), false);
    }
    g.helpers_before = helpers;
    g.function("nf_process", true);
    g.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_seed_dependent() {
        let p = Profile::nf_like();
        assert_eq!(generate(&p, 7), generate(&p, 7));
        assert_ne!(generate(&p, 7), generate(&p, 8));
        let n = generate(&Profile::naive(), 7);
        assert!(!n.contains("nf.h") && n.contains("entry("));
    }
    /// `n` XDP programs of the NF-like generator's XDP mix.
    fn xdp_programs(n: u64) -> Vec<String> {
        let mut p = Profile::nf_like();
        p.xdp_share = 1.0;
        (1..=n).map(|sd| generate(&p, sd)).collect()
    }

    /// How many of `programs` contain `needle`.
    fn with(programs: &[String], needle: &str) -> usize {
        programs.iter().filter(|p| p.contains(needle)).count()
    }

    #[test]
    fn the_nf_like_generator_writes_xdp_programs_at_its_share_and_the_others_none() {
        let p = Profile::nf_like();
        let xdp = (1..=400)
            .filter(|sd| {
                generate(&p, *sd).contains("SEC(\"xdp\") int xdp_prog(struct xdp_md *ctx)")
            })
            .count();
        // 25% of 400 programs: 100 expected, binomial sd ≈ 8.7.
        assert!((70..=130).contains(&xdp), "{xdp} XDP programs of 400");
        for q in [
            Profile::nf_like().without_xdp(),
            Profile::nf_like_v1(),
            Profile::naive(),
        ] {
            assert!(
                (1..=50).all(|sd| !generate(&q, sd).contains("xdp_md")),
                "{}",
                q.name
            );
        }
        // An XDP program is self-contained: no nf.h, helpers through
        // constant function pointers, a BTF-style map section.
        let x = xdp_programs(1).remove(0);
        assert!(!x.contains("nf.h"));
        assert!(x.contains(
            "static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;"
        ));
        assert!(x.contains("SEC(\".maps\")"));
    }

    #[test]
    fn xdp_header_accesses_are_bounds_checked_and_byte_swapped() {
        let ps = xdp_programs(60);
        // Every header pointer is checked against data_end before it is
        // first dereferenced.
        let mut pointers = 0;
        for prog in &ps {
            let lines: Vec<&str> = prog.lines().map(str::trim).collect();
            for (i, line) in lines.iter().enumerate() {
                let Some(rest) = line.strip_prefix("struct ") else {
                    continue;
                };
                let Some((decl, _)) = rest.split_once(" = data + ") else {
                    continue;
                };
                let name = decl.rsplit('*').next().unwrap_or(decl);
                let (check, deref) = (format!("({name} + 1) > data_end"), format!("{name}->"));
                let sized = format!("sizeof(*{name}) > data_end");
                let first = lines[i + 1..]
                    .iter()
                    .find(|l| l.contains(&check) || l.contains(&sized) || l.contains(&deref))
                    .unwrap_or_else(|| panic!("{name} is never used: {line}"));
                assert!(
                    !first.contains(&deref),
                    "{name} dereferenced unchecked: {first}"
                );
                pointers += 1;
            }
        }
        assert!(pointers > 50, "{pointers} header pointers");
        assert!(with(&ps, "(void *)(iph + 1) > data_end") > 0);
        assert!(with(&ps, "bpf_ntohs(") > 0 && with(&ps, "bpf_htons((__u16)(") > 0);
        assert!(with(&ps, "->ihl * 4") > 0, "the 4-bit field is read");
        assert!(
            with(&ps, "iph->ttl--;") > 0,
            "the incremental checksum update"
        );
    }

    #[test]
    fn xdp_map_lookups_are_null_checked_and_updated_in_place() {
        let ps = xdp_programs(60);
        assert!(with(&ps, "fv = bpf_map_lookup_elem(&flows, &key);") > 0);
        for prog in &ps {
            let lines: Vec<&str> = prog.lines().collect();
            for (i, l) in lines.iter().enumerate() {
                if l.contains("fv = bpf_map_lookup_elem(") {
                    let next = lines[i + 1].trim();
                    assert!(next == "if (!fv)" || next == "if (fv) {", "{next}");
                }
                if l.contains("*cnt = bpf_map_lookup_elem(&rx_cnt") {
                    assert_eq!(lines[i + 1].trim(), "if (!cnt)");
                }
            }
        }
        assert!(with(&ps, "__sync_fetch_and_add(") > 0, "atomic counters");
        assert!(with(&ps, "bpf_map_update_elem(&flows, &key, &nv,") > 0);
        assert!(with(&ps, "bpf_map_delete_elem(&flows, &key)") > 0);
        assert!(with(&ps, "bpf_get_smp_processor_id();") > 0);
    }

    #[test]
    fn xdp_programs_call_helpers_redirect_swap_macs_walk_vlans_and_move_the_head() {
        let ps = xdp_programs(80);
        for needle in [
            "bpf_ktime_get_ns()",
            "bpf_get_prandom_u32() %",
            "bpf_csum_diff(&from, 4, &to, 4,",
            "return bpf_redirect_map(&tx_port,",
            "__builtin_memcpy(eth->h_source, eth->h_dest, 6);",
            "p[0] = p[3];",
            "proto = vh->h_vlan_encapsulated_proto;",
            "data = (void *)(long)ctx->data;",
            "static __always_inline __u32 helper",
            "static __attribute__((noinline)) __u32 helper",
        ] {
            assert!(with(&ps, needle) > 0, "no program has `{needle}`");
        }
        // Moving the head invalidates the bounds: they are reloaded and
        // the Ethernet header checked again.
        for prog in &ps {
            let lines: Vec<&str> = prog.lines().map(str::trim).collect();
            for (i, l) in lines.iter().enumerate() {
                if l.starts_with("if (bpf_xdp_adjust_") {
                    assert_eq!(lines[i + 2], "data = (void *)(long)ctx->data;");
                    assert_eq!(lines[i + 5], "if ((void *)(eth + 1) > data_end)");
                }
            }
        }
    }
}
