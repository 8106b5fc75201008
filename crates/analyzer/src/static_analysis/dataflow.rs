//! The data-flow engine of the static backend: a flow-insensitive,
//! context-sensitive (full call strings) abstract interpretation over the
//! tree-sitter trees. Each variable / struct-member access path holds a
//! [`Val`]: the packet header fields it was derived from, whether it points
//! into the packet (and at which header/offset), and which state objects it
//! points into. Calls bind arguments to parameters (and copy out-parameters
//! back), returns flow to call sites. A final pass records [`Events`]: keyed
//! accesses and writes to state objects (with whether the write is guarded by
//! a lookup miss / new-flow condition), loops that chase links, stores and
//! comparisons that reveal symmetric keys, per-packet statement cost and
//! accelerator candidates.

use super::contracts;
use super::headers::{self, Hdr};
use super::narrowing::{self, Narrowing};
use super::program::{norm_type, parse_int, text, FnDef, NodeExt, Program, TypeRef};
use super::walks::{Stamps, WalkEntry, WalkLog, Walked};
use nfc_core::facts::{Accelerator, Field};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use tree_sitter::Node;

/// The pseudo-object a value "was computed from" when it is the id of the
/// core running the code (`rte_lcore_id()`, `bpf_get_smp_processor_id()`):
/// storage located by it is the running core's own.
pub const RUNNING_CORE: &str = "<running core>";

/// Framework calls that return the id of the core (or CPU, or worker
/// thread pinned to one) running the caller.
fn returns_running_core(name: &str) -> bool {
    matches!(
        name,
        "rte_lcore_id"
            | "bpf_get_smp_processor_id"
            | "smp_processor_id"
            | "raw_smp_processor_id"
            | "get_cpu"
            | "sched_getcpu"
    )
}

/// Rounds of the flow-insensitive fixpoint before the collecting pass; a
/// fixpoint that has not settled after them (and after the collecting
/// pass) gives no answers: values may still lack fields and accesses.
/// Every real-world unit settles within 16 (the slowest, iptraf-ng's IP
/// monitor and nDPI's detection, needed 9-16); the time budget, not this
/// count, is what bounds the work in practice.
const FIXPOINT_ROUNDS: usize = 32;

/// Abstract value of an expression or access path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Val {
    pub fields: FieldSet,
    pub hdr: Option<Hdr>,
    pub off: Option<i64>,
    pub konst: Option<i64>,
    /// State objects this value points into (or was read from).
    pub objs: NameSet,
    /// The objects (of `objs`) whose own storage this value designates at
    /// its top: a global array, an element of one, an aggregate part of
    /// one. An aggregate or pointer member taken there is a distinct part
    /// of the object (`lcore_conf[i].tx_mbufs` beside
    /// `lcore_conf[i].lpm`), tracked as its own object `obj.member`; other
    /// pointers loaded from state reach storage that belongs to the object
    /// they were loaded from, and are not refined.
    pub direct: NameSet,
    /// This value is the state container itself (objects are its members).
    pub root: bool,
    /// Built from a field and its mirror (min/max, xor, direction-dependent).
    pub mixed: bool,
    /// Derived from packet data whose header field the analysis cannot name
    /// (bytes returned by an unknown callee that was handed the packet, a
    /// NIC hash over configured fields): a key of unknown fields.
    pub opaque: bool,
    /// State objects this value was computed from (a cursor read into an
    /// index, a counter compared with a limit): what the value depends on,
    /// kept through arithmetic and comparisons.
    pub from: NameSet,
    /// The packet descriptor itself (mbuf, Packet, sk_buff), not bytes
    /// inside it: handing it on (enqueue, transmit) keys nothing.
    pub descriptor: bool,
    /// The result (status, index or entry) of a keyed lookup in state: a
    /// test of it tells a hit from a miss.
    pub lookup: bool,
    /// Reached through an object the caller handed the entry point: the
    /// caller located it, by fields this code does not show.
    pub handed: bool,
    /// Located by packet fields on every path, but by none common to all
    /// of them (`if (client) k = dst; else k = src;`): keyed, with no field
    /// the key can be narrowed to. Set only by the flow-sensitive pass.
    pub alternatives: bool,
}

impl Val {
    fn konst(k: i64) -> Val {
        Val {
            konst: Some(k),
            ..Default::default()
        }
    }
    fn field(f: Field) -> Val {
        Val {
            fields: [f].into_iter().collect(),
            ..Default::default()
        }
    }
    fn hdr(h: Hdr, off: i64) -> Val {
        Val {
            hdr: Some(h),
            off: Some(off),
            ..Default::default()
        }
    }
    /// Join `o` into self; returns true if self changed. An empty value
    /// counts as "nothing yet" and takes `o`'s constant.
    pub fn join(&mut self, o: &Val) -> bool {
        let from_nothing = *self == Val::default();
        self.join_with(o, from_nothing)
    }

    /// Join `o` into a slot that already holds a value, even an empty one:
    /// an environment entry or a return slot after its first join. There an
    /// empty value is "not one constant", so a constant joined later does
    /// not replace it. Without this the constant of a slot assigned both a
    /// constant and an unknown value flipped on every round and the
    /// fixpoint never settled (every unit ran all its rounds).
    fn join_existing(&mut self, o: &Val) -> bool {
        self.join_with(o, false)
    }

    fn join_with(&mut self, o: &Val, from_nothing: bool) -> bool {
        // Sets only grow here, so a change shows in their sizes: no clone
        // of the value is needed to tell (this runs for every assignment).
        let was_default = from_nothing;
        let shape = |v: &Val| {
            (
                (v.fields.len(), v.objs.len(), v.from.len(), v.direct.len()),
                (v.hdr, v.off, v.konst),
                [
                    v.root,
                    v.mixed,
                    v.opaque,
                    v.descriptor,
                    v.lookup,
                    v.handed,
                    v.alternatives,
                ],
            )
        };
        let before = shape(self);
        self.fields.extend(o.fields.iter().copied());
        add_missing(&mut self.objs, &o.objs);
        add_missing(&mut self.direct, &o.direct);
        self.root |= o.root;
        self.mixed |= o.mixed;
        self.opaque |= o.opaque;
        add_missing(&mut self.from, &o.from);
        self.descriptor |= o.descriptor;
        self.lookup |= o.lookup;
        self.handed |= o.handed;
        self.alternatives |= o.alternatives;
        match (self.hdr, o.hdr) {
            (None, Some(h)) => {
                self.hdr = Some(h);
                self.off = o.off;
            }
            (Some(a), Some(b)) if a == b && self.off != o.off => {
                self.off = None;
            }
            _ => {}
        }
        if self.konst != o.konst {
            self.konst = match (self.konst, o.konst) {
                _ if was_default => o.konst,
                // Alternative offsets (e.g. with/without a VLAN tag): keep the untagged one.
                (Some(a), Some(b)) => Some(a.min(b)),
                _ => None,
            };
        }
        shape(self) != before
    }
    fn union(mut self, o: &Val) -> Val {
        self.join(o);
        self
    }
    /// Designates the top storage of every object it points into (and
    /// points into some): where a member can be a part (see `direct`).
    fn designates_all(&self) -> bool {
        !self.objs.is_empty() && self.objs.iter().all(|o| self.direct.contains(o))
    }
    fn has_mirror_pair(&self) -> bool {
        self.fields
            .iter()
            .any(|f| *f != f.mirror() && self.fields.contains(&f.mirror()))
    }
    /// Only the taint (fields, mixed, opaque), no pointer facts.
    fn taint(&self) -> Val {
        // `from` and `objs` together, sharing either set when the other
        // adds nothing (most values have one of them empty): a taint is
        // taken at every member read and argument.
        let mut from = self.from.clone();
        add_missing(&mut from, &self.objs);
        Val {
            fields: self.fields,
            mixed: self.mixed,
            opaque: self.opaque,
            from,
            handed: self.handed,
            alternatives: self.alternatives,
            ..Default::default()
        }
    }
    /// Carries packet-derived data (named fields, alternatives of them, or
    /// opaque bytes).
    fn keyed(&self) -> bool {
        !self.fields.is_empty() || self.opaque || self.alternatives
    }
    /// Says where in state an access goes: packet data, or the caller's
    /// choice of the object handed in.
    fn locates(&self) -> bool {
        self.keyed() || self.handed
    }
}

/// Add the names of `from` that `to` lacks. A join mostly meets names
/// already there, which `extend` would clone only to drop again (an
/// allocation and a free per name, on every join of the fixpoint).
fn add_missing(to: &mut NameSet, from: &NameSet) {
    if from.is_empty() || to.shares(from) {
        return;
    }
    if to.is_empty() {
        // Share the names: the common join into a fresh slot costs a
        // reference count, not a copy of the set.
        *to = from.clone();
        return;
    }
    // One merge of the two ordered sets finds the names `to` lacks and
    // whether `to` has any name `from` lacks (a search per name cost a
    // string comparison at every level of the tree).
    let mut missing: Vec<&String> = vec![];
    let mut to_has_more = false;
    let (mut a, mut b) = (to.iter().peekable(), from.iter().peekable());
    loop {
        match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.cmp(y) {
                std::cmp::Ordering::Less => {
                    to_has_more = true;
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    missing.push(y);
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    a.next();
                    b.next();
                }
            },
            (Some(_), None) => {
                to_has_more = true;
                break;
            }
            (None, Some(_)) => {
                missing.extend(b);
                break;
            }
            (None, None) => break,
        }
    }
    // `to` ends up holding every name of `from`; without a name of its
    // own it is the same set, so share it: the next join of the two (the
    // same struct copy on the next round of the fixpoint) is one pointer
    // comparison, and no copy of `to` is made to add the names.
    if !to_has_more {
        *to = from.clone();
        return;
    }
    if missing.is_empty() {
        return;
    }
    to.extend(missing.into_iter().cloned());
}

/// A set of header fields as bits, in the order of [`Field::ALL`] (the
/// order of `Field`'s `Ord`, so iteration matches a `BTreeSet<Field>`).
/// Every value carries one, and values are cloned and joined throughout
/// the fixpoint: as bits that costs no allocation.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct FieldSet(u8);

const _: () = assert!(Field::ALL.len() <= u8::BITS as usize);

impl FieldSet {
    fn bit(f: Field) -> u8 {
        1 << Field::ALL.iter().position(|g| *g == f).unwrap_or(0)
    }
    pub fn bits(self) -> u8 {
        self.0
    }
    pub fn contains(&self, f: &Field) -> bool {
        self.0 & Self::bit(*f) != 0
    }
    pub fn insert(&mut self, f: Field) -> bool {
        let had = self.contains(&f);
        self.0 |= Self::bit(f);
        !had
    }
    pub fn remove(&mut self, f: &Field) -> bool {
        let had = self.contains(f);
        self.0 &= !Self::bit(*f);
        had
    }
    pub fn len(&self) -> usize {
        self.0.count_ones() as usize
    }
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }
    pub fn clear(&mut self) {
        self.0 = 0;
    }
    /// Keep only the fields whose bit is in `m`.
    pub fn retain_bits(&mut self, m: u8) {
        self.0 &= m;
    }
    pub fn retain(&mut self, mut keep: impl FnMut(&Field) -> bool) {
        for f in self.iter() {
            if !keep(f) {
                self.remove(f);
            }
        }
    }
    pub fn iter(&self) -> FieldIter {
        FieldIter {
            bits: self.0,
            at: 0,
        }
    }
    pub fn to_set(self) -> BTreeSet<Field> {
        self.iter().copied().collect()
    }
}

impl std::fmt::Debug for FieldSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Extend<Field> for FieldSet {
    fn extend<I: IntoIterator<Item = Field>>(&mut self, it: I) {
        for f in it {
            self.insert(f);
        }
    }
}

impl<'a> Extend<&'a Field> for FieldSet {
    fn extend<I: IntoIterator<Item = &'a Field>>(&mut self, it: I) {
        for f in it {
            self.insert(*f);
        }
    }
}

impl FromIterator<Field> for FieldSet {
    fn from_iter<I: IntoIterator<Item = Field>>(it: I) -> FieldSet {
        let mut s = FieldSet::default();
        s.extend(it);
        s
    }
}

impl<'a> FromIterator<&'a Field> for FieldSet {
    fn from_iter<I: IntoIterator<Item = &'a Field>>(it: I) -> FieldSet {
        let mut s = FieldSet::default();
        s.extend(it);
        s
    }
}

impl IntoIterator for &FieldSet {
    type Item = &'static Field;
    type IntoIter = FieldIter;
    fn into_iter(self) -> FieldIter {
        self.iter()
    }
}

/// The fields of a [`FieldSet`], in [`Field::ALL`] order.
#[derive(Clone)]
pub struct FieldIter {
    bits: u8,
    at: usize,
}

impl Iterator for FieldIter {
    type Item = &'static Field;
    fn next(&mut self) -> Option<&'static Field> {
        while self.at < Field::ALL.len() {
            let i = self.at;
            self.at += 1;
            if self.bits & (1 << i) != 0 {
                return Some(&Field::ALL[i]);
            }
        }
        None
    }
}

/// A set of state-object names, shared between the values that hold it
/// until one of them changes it (copy on write). Values are cloned on
/// every environment read, join and taint of the fixpoint; with plain sets
/// each clone copied every name (an allocation and a free per name).
/// Reads see an ordinary `BTreeSet`, so iteration order is unchanged. The
/// empty set (most values') holds no allocation at all.
#[derive(Clone, Default)]
pub struct NameSet(Option<Rc<BTreeSet<String>>>);

static NO_NAMES: BTreeSet<String> = BTreeSet::new();

impl std::fmt::Debug for NameSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl PartialEq for NameSet {
    fn eq(&self, o: &NameSet) -> bool {
        self.shares(o) || **self == **o
    }
}

impl Eq for NameSet {}

impl std::ops::Deref for NameSet {
    type Target = BTreeSet<String>;
    fn deref(&self) -> &BTreeSet<String> {
        self.0.as_deref().unwrap_or(&NO_NAMES)
    }
}

impl NameSet {
    /// Both hold the very same set.
    fn shares(&self, o: &NameSet) -> bool {
        matches!((&self.0, &o.0), (Some(a), Some(b)) if Rc::ptr_eq(a, b))
    }
    /// Adds `x`; copies a shared set only when `x` is new to it.
    pub fn insert(&mut self, x: String) -> bool {
        match &mut self.0 {
            None => {
                self.0 = Some(Rc::new(BTreeSet::from([x])));
                true
            }
            Some(s) if s.contains(&x) => false,
            Some(s) => Rc::make_mut(s).insert(x),
        }
    }
    pub fn clear(&mut self) {
        self.0 = None;
    }
    /// The names as an owned set (a copy only if shared).
    pub fn into_set(self) -> BTreeSet<String> {
        self.0.map(Rc::unwrap_or_clone).unwrap_or_default()
    }
}

impl Extend<String> for NameSet {
    fn extend<I: IntoIterator<Item = String>>(&mut self, it: I) {
        for x in it {
            self.insert(x);
        }
    }
}

impl FromIterator<String> for NameSet {
    fn from_iter<I: IntoIterator<Item = String>>(it: I) -> NameSet {
        NameSet::from(it.into_iter().collect::<BTreeSet<String>>())
    }
}

impl From<BTreeSet<String>> for NameSet {
    fn from(s: BTreeSet<String>) -> NameSet {
        NameSet((!s.is_empty()).then(|| Rc::new(s)))
    }
}

impl<'a> IntoIterator for &'a NameSet {
    type Item = &'a String;
    type IntoIter = std::collections::btree_set::Iter<'a, String>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for NameSet {
    type Item = String;
    type IntoIter = std::collections::btree_set::IntoIter<String>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_set().into_iter()
    }
}

/// What a struct member holds, for telling parts of an object apart
/// (see [`Val::direct`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MemberKind {
    Aggregate,
    Pointer,
    Field,
}

impl MemberKind {
    /// Is a member of this kind, taken in the top storage of `obj`, a part
    /// of `obj` tracked on its own? Aggregates one level down only (and
    /// not in an object the caller hands in): inside
    /// a part, an array or a struct belongs to the entry (a buffer and its
    /// fill count); a pointer refers to storage of its own wherever it sits.
    fn makes_part_of(self, obj: &str) -> bool {
        match self {
            MemberKind::Field => false,
            // A handed object (`*p`) keeps its aggregates: the caller
            // located the whole, and a part of it would look located by
            // nobody.
            MemberKind::Aggregate => !obj.contains('.') && !obj.starts_with('*'),
            MemberKind::Pointer => true,
        }
    }
}

/// Kind of function an event happened in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FnKind {
    Packet,
    Init,
    Other,
}

/// A read or write of a state object.
#[derive(Debug, Clone)]
pub struct Access {
    pub obj: String,
    /// Packet fields every reaching definition of the location carries
    /// (narrowed flow-sensitively, see `narrowing`).
    pub key: BTreeSet<Field>,
    /// Packet fields that may flow into the location on some path (the
    /// flow-insensitive value): whether packet data locates the access at
    /// all.
    pub may_key: BTreeSet<Field>,
    /// The function context (call string) the access was seen in.
    pub scope: String,
    /// The location also depends on packet data of unknown fields.
    pub opaque: bool,
    /// Every path locates the access by packet fields, but no field is
    /// common to them all (see [`Val::alternatives`]): keyed, by no field.
    pub alternatives: bool,
    /// State the location was computed from, when no packet data locates
    /// it: an index the NF allocated (a cursor, a free-list head).
    pub alloc_from: BTreeSet<String>,
    /// Reached through an object the caller handed in (its location is the
    /// caller's choice); with no packet data in `key`, this access says
    /// nothing else about where it goes.
    pub handed: bool,
    /// Located by the running core's id and no packet data
    /// (`stats[rte_lcore_id()].rx++`): each core's own storage.
    pub per_core: bool,
    /// A write that stores a pointer into the same object (a bucket head,
    /// a `next` link): structure, not the data entries are identified by.
    pub link: bool,
    /// A write that stores packet data (fields or bytes, not the packet
    /// descriptor itself).
    pub stores_packet: bool,
    /// The stored value was computed from the object itself (`len + 1`).
    pub self_derived: bool,
    /// A write that stores the packet descriptor itself (an mbuf pointer
    /// queued for transmission or reordering).
    pub stores_descriptor: bool,
    pub mixed: bool,
    pub write: bool,
    /// Insert/remove-like API call (a per-flow event by nature).
    pub insertish: bool,
    pub guarded: bool,
    pub kind: FnKind,
    pub file: usize,
    pub line: u32,
    pub what: String,
}

/// A loop that follows links through a state object.
#[derive(Debug, Clone)]
pub struct Chase {
    pub objs: BTreeSet<String>,
    pub file: usize,
    pub line: u32,
}

/// Evidence that both directions of a connection meet the same entry.
#[derive(Debug, Clone)]
pub struct SymEvidence {
    pub obj: String,
    pub file: usize,
    pub line: u32,
    pub reason: String,
}

/// One equality a search loop's match tests between a stored entry's
/// member and a packet value held in a member (`e->key.src == k->src`,
/// `!memcmp(&e->src, &k->src, 4)`), see `note_match_member`.
#[derive(Debug, Clone)]
pub struct MatchMember {
    pub obj: String,
    pub file: usize,
    pub line: u32,
    /// The entry's member and the packet value's member have one name.
    pub same_member: bool,
    pub reason: String,
}

/// Everything the final pass records.
#[derive(Debug, Default)]
pub struct Events {
    pub accesses: Vec<Access>,
    pub chases: Vec<Chase>,
    pub sym: Vec<SymEvidence>,
    /// Member equalities of search-loop matches (see `MatchMember`).
    pub match_members: Vec<MatchMember>,
    /// State handed, on the packet path, to code whose body is not visible
    /// and that may write it, which hands back a value computed from it
    /// through an out-parameter (`alloc_index(pool, &i)`): a position it
    /// may have allocated.
    pub handed_out: BTreeSet<String>,
    /// Two-element state members indexed by a direction selector: (objects,
    /// member, selector) -> which of `sel` (1) and its complement (2) the
    /// packet path used (see `note_direction_half`).
    direction_halves: BTreeMap<(String, String, String), u8>,
    /// Entries handed, beside a state object, to one callee at one
    /// argument position: (callee, argument, object) -> the access path of
    /// each entry and the packet fields its members hold (see
    /// `note_swapped_entry`).
    entries_handed: BTreeMap<(String, usize, String), Vec<(String, MemberFields)>>,
    pub key_slots: Vec<KeySlots>,
    pub cost: u64,
    pub accels: BTreeMap<Accelerator, (usize, u32, String)>,
    pub packet_fns: BTreeSet<usize>,
    /// State objects whose value the packet path uses beyond updating it:
    /// read in a branch condition, or copied into another location.
    pub influences: Vec<Influence>,
    /// Calls on the packet path to functions whose body is not visible that
    /// are handed state: (callee, file, line). What they do to it is unseen.
    pub hidden_state_calls: Vec<(String, usize, u32)>,
    /// Objects the caller hands the entry point by pointer (a flow struct,
    /// a table, a context): state only if the packet path records packet
    /// data in them and reads it back.
    pub caller_objs: BTreeSet<String>,
    /// Of `caller_objs`, storage that code the analysis cannot see handed
    /// back for a handle (see `note_handed_back_storage`).
    pub handed_back: BTreeSet<String>,
    /// Function-like macros the packet path invokes on packet data or
    /// state, whose expansion the analysis does not see: (macro, file, line).
    pub blind_calls: Vec<(String, usize, u32)>,
    /// Calls on the packet path to functions whose body is not visible that
    /// are given packet fields and return a pointer to a struct the NF then
    /// holds (`t = bpf_xdp_flow_lookup(ctx, &tuple, ...)`): a lookup in a
    /// table kept outside the analysed code. (callee, file, line).
    pub external_lookups: Vec<(String, usize, u32)>,
}

/// A use of a state object's value on the packet path that can change what
/// the NF does (not just the object's own update, as a statistics counter).
#[derive(Debug, Clone)]
pub struct Influence {
    pub obj: String,
    pub file: usize,
    pub line: u32,
    pub how: &'static str,
}

/// An entry point of the per-packet path.
#[derive(Debug, Clone)]
pub struct Entry {
    pub fn_idx: usize,
    pub guarded: bool,
    /// Parameters that hold per-flow state located by a flow manager
    /// (FastClick FlowStateElement): (param name, object name, key).
    pub flow_params: Vec<(String, String, Vec<Field>)>,
    /// Parameters that point at the raw frame (generic byte-buffer entries).
    pub frame_params: Vec<String>,
    /// The entry is called by code outside the NF (no framework adapter
    /// knows its parameters): pointers it receives may be the caller's state.
    pub caller_state: bool,
}

impl Entry {
    /// An entry a framework calls with parameters the adapter knows: no
    /// flow-manager state, no raw frame, no caller state.
    pub fn framework(fn_idx: usize) -> Entry {
        Entry {
            fn_idx,
            guarded: false,
            flow_params: vec![],
            frame_params: vec![],
            caller_state: false,
        }
    }
}

/// The key slots passed to a call that also receives a state object: which
/// field sits in which argument and member of the key (`#1`, `#1.src.addr`),
/// to see mirrored keys.
#[derive(Debug, Clone)]
pub struct KeySlots {
    pub obj: String,
    /// The members of the state arguments the call is handed, below the
    /// variables holding them (`""` for `list`, `".d_sname"` for
    /// `e->d_sname`): keys are compared only between calls handed the same
    /// part of the state.
    pub handed: Vec<String>,
    pub slots: BTreeMap<String, BTreeSet<Field>>,
    pub insertish: bool,
    pub file: usize,
    pub line: u32,
}

/// The packet fields held in each member of an entry (`.src.addr` ->
/// {src_ip}), members holding none left out.
type MemberFields = BTreeMap<String, FieldSet>;

/// An environment slot: its value, the change count at its last change,
/// and how often a join lowered its constant.
#[derive(Default)]
struct Slot {
    val: Val,
    changed_at: u64,
    /// How often a join lowered the slot's constant (see
    /// [`CONSTANT_LOWERINGS`]).
    lowerings: u8,
    /// The stamp of the slot's creation or last change (see `walks`):
    /// unlike `changed_at`, it moves on every change, a new slot and a
    /// mirror pair included.
    touched: u64,
}

/// The keys walk logs name: key -> number, and the keys by number.
type LogKeys = (HashMap<Rc<str>, u32>, Vec<Rc<str>>);

/// The change counts of the members of a path (see
/// `Engine::members_changed`).
#[derive(Clone, Copy)]
struct MemberStamps {
    /// `env_changes` at the last change of a member.
    changed: u64,
    /// The stamp (see [`Slot::touched`]) of the last new or changed member.
    touched: u64,
}

/// A join keeps the smaller of two constants (alternative header offsets,
/// with and without a VLAN tag). A loop that counts down (`len -= 12`)
/// would lower it on every round without end; after this many lowerings
/// the slot holds "not one constant" instead (a widening: the fixpoint
/// then settles).
const CONSTANT_LOWERINGS: u8 = 3;

/// The environment: slots by access-path key. Most accesses look one key
/// up (every read and join of the fixpoint), which a hash finds with one
/// comparison of the key; the members of a path are found by a range of
/// keys in order (`p.` up to `p/`), which the ordered index serves.
///
/// A key is stored once, shared by both indexes: a struct copy takes the
/// keys of the members it copies (hundreds for a connection table, on
/// every call that hands the struct on) by a reference count.
#[derive(Default)]
struct Env {
    slots: Vec<Slot>,
    by_key: HashMap<Rc<str>, usize>,
    in_order: BTreeMap<Rc<str>, usize>,
}

impl Env {
    /// The slot of `key` and its index (which stays its own).
    fn get(&self, key: &str) -> Option<(usize, &Slot)> {
        self.by_key.get(key).map(|&i| (i, &self.slots[i]))
    }
    fn get_mut(&mut self, key: &str) -> Option<&mut Slot> {
        self.by_key.get(key).map(|&i| &mut self.slots[i])
    }
    /// Adds a slot for `key`, which has none.
    fn insert_new(&mut self, key: &str, slot: Slot) {
        debug_assert!(!self.by_key.contains_key(key));
        let key: Rc<str> = Rc::from(key);
        self.by_key.insert(Rc::clone(&key), self.slots.len());
        self.in_order.insert(key, self.slots.len());
        self.slots.push(slot);
    }
    /// The slots of keys from `lo` (included) to `hi` (excluded), in key order.
    fn range<'a>(
        &'a self,
        lo: &str,
        hi: &str,
    ) -> impl Iterator<Item = (&'a Rc<str>, &'a Slot)> + 'a {
        self.in_order
            .range::<str, _>((std::ops::Bound::Included(lo), std::ops::Bound::Excluded(hi)))
            .map(|(k, &i)| (k, &self.slots[i]))
    }
}

/// Context handed to the engine.
pub struct Engine<'p, 't> {
    pub prog: &'p Program<'t>,
    env: Env,
    /// Counts the changes of `env`; a slot records the count at its last
    /// change.
    env_changes: u64,
    /// `(from, to)` -> the change count when members of `from` were last
    /// copied to `to`: a later copy joins only the members changed since
    /// (the environment only grows, so the rest are already there).
    /// Keyed by `from`, then `to`: a repeated copy finds its count without
    /// building a key.
    copied: HashMap<String, HashMap<String, u64>>,
    /// Path -> the change count and the joined taint of its members when
    /// last read (`None`: it had none): valid while nothing changed.
    members_read: std::cell::RefCell<HashMap<String, (u64, Option<Val>)>>,
    /// Path -> the change count of the last change of one of its members
    /// (`a` for `a.b` and `a.b.c`): copying or reading the members of a path
    /// none of whose members changed needs no walk over them.
    ///
    /// With it, the stamp of the last new or changed slot among the path's
    /// members (see `walks`): one search per prefix serves both.
    members_changed: HashMap<String, MemberStamps>,
    /// See [`Self::static_type`]: (function, node id) -> type.
    static_types: std::cell::RefCell<HashMap<(usize, usize), Option<&'p TypeRef>>>,
    /// See [`Self::named_kids`]: node id -> its named children.
    kids: std::cell::RefCell<HashMap<usize, Rc<[Node<'t>]>>>,
    rets: HashMap<String, Val>,
    /// Functions whose result is an ageing test of an entry they are
    /// handed (`return now - h->stamp <= limit;`): `Some(true)` when a
    /// true result means the entry aged, `Some(false)` when it means the
    /// entry is recent, `None` once two returns disagree.
    ageing_results: HashMap<usize, Option<bool>>,
    /// Functions that are membership searches (see [`reports_found`]).
    found_searches: HashMap<usize, bool>,
    ctx_ids: HashMap<Vec<usize>, usize>,
    visited: HashSet<String>,
    /// Parameters bound to one constant in a calling context (`scope|name`
    /// -> value; `None` once two values met): `get_key(pkt, 1)` walks only
    /// the branch that `if (rev)` takes in that context.
    param_consts: HashMap<String, Option<i64>>,
    /// Parameters a function assigns or takes the address of (never
    /// constant within it), per function.
    mutated_params: HashMap<usize, HashSet<String>>,
    collect: bool,
    pub events: Events,
    cost_seen: HashSet<usize>,
    // current function state
    fn_idx: usize,
    scope: String,
    call_string: Vec<usize>,
    guard: bool,
    kind: FnKind,
    /// Enclosing loops of the statement being walked: (condition text, the
    /// loop statement).
    loop_conds: Vec<(String, Node<'t>)>,
    loop_depth: u32,
    /// Per function: the locals its receive loop carries from packet to
    /// packet (see `loop_carried_local`), computed on first use.
    carried_locals: HashMap<usize, Rc<BTreeSet<String>>>,
    /// Inside the condition of a search loop's match (`if (<cond>) return
    /// e;` in a loop), including the comparators it calls.
    match_depth: u32,
    /// Entries a guard proved equal to packet data, by the text of the
    /// expression that holds them (`tbl->last` after
    /// `if (tbl->last && cmp(key, &tbl->last->key) == 0)`), while the
    /// guarded branch is walked: what it returns is located by that key.
    guarded_entries: Vec<(String, Val)>,
    /// See [`Self::unsettled`].
    unsettled: bool,
    insert_depth: u32,
    nesting: u32,
    budget: BudgetState,
    /// Set by `write_target` for the access it records: the stored value
    /// points into the written object.
    storing_link: bool,
    storing_packet: bool,
    storing_descriptor: bool,
    storing_self_derived: bool,
    storing_received_descriptor: bool,
    /// Some environment or return value grew since the flag was cleared.
    dirty: bool,
    /// The assignment being stored: (target, value, compound `op=`), to
    /// tell an accumulation (`v = crc(p[1], v)`, `v ^= x`) from an
    /// alternative value.
    assigning: Option<(Node<'t>, Node<'t>, bool)>,
    /// The flow-sensitive second collecting pass is running.
    narrowing: Option<Box<Narrowing>>,
    /// See `walks`: the reads of the walks under way, innermost last
    /// (empty outside the fixpoint's rounds).
    walk_logs: std::cell::RefCell<Vec<WalkLog>>,
    /// See `walks`: the last walk of each context, by scope.
    walked: HashMap<String, Walked>,
    /// The last stamp given to a slot (see [`Slot::touched`]).
    touches: u64,
    /// Counts the changes of `ageing_results`.
    ageing_changes: u64,
    /// The last walk number given to a `Walked`.
    walk_gen: u64,
    /// The keys walk logs name, by number and numbered (see `log_key`).
    log_keys: std::cell::RefCell<LogKeys>,
}

/// The engine's budget: a deadline (a reading of the running thread's CPU
/// clock, see `cpu_clock`), a bound on the bytes of abstract state,
/// and the reason it ran out (then every evaluation returns at once).
#[derive(Debug)]
struct BudgetState {
    deadline: Option<std::time::Duration>,
    /// The wall-clock backstop (see `cpu_clock::WALL_BACKSTOP`).
    backstop: Option<std::time::Instant>,
    memory_limit: u64,
    memory_used: u64,
    steps: u64,
    exhausted: Option<String>,
}

/// Longest call string (caller fn, call site, callee fn, ...): 8 call levels.
const MAX_DEPTH: usize = 17;
/// Beyond this many contexts, new calls share one context per function
/// (context-insensitive), which bounds the cost on very large NFs.
const MAX_CONTEXTS: usize = 3000;
/// Expressions nested deeper than this are not evaluated (pathological input).
const MAX_NESTING: u32 = 200;
/// Member segments kept in an access path (`p.a.b.c...`); deeper paths are
/// folded into their prefix (k-limiting), which bounds the path space when
/// pointer cycles among members would otherwise grow paths without end.
/// Three, not five: on a module context of hundreds of members linked by
/// pointers (nDPI's detection module) the paths of depth four and five were
/// two thirds of the run and changed no answer on the real-world corpus
/// (every unit's facts are identical at 3, 4 and 5; at 2 two OVS units'
/// evidence changes).
const MAX_PATH_MEMBERS: usize = 3;
/// Rough bytes one environment entry costs beyond its key (the map node, the
/// value and its sets).
const ENTRY_OVERHEAD: u64 = 192;

/// Split an identifier into lower-case words (snake_case and camelCase).
fn words(name: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == ':' || !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Insert/remove-like container operations: by nature per-flow events.
fn is_insertish(name: &str) -> bool {
    let w = words(name);
    w.iter().any(|x| {
        matches!(
            x.as_str(),
            "insert"
                | "add"
                | "create"
                | "alloc"
                | "remove"
                | "delete"
                | "del"
                | "erase"
                | "emplace"
                | "evict"
        )
    }) || (w.iter().any(|x| x == "new")
        && w.iter()
            .any(|x| x == "flow" || x == "entry" || x == "session"))
}

/// Container operations that write (but may happen on every packet).
fn is_writeish(name: &str) -> bool {
    is_insertish(name)
        || words(name).iter().any(|x| {
            matches!(
                x.as_str(),
                "set"
                    | "put"
                    | "update"
                    | "store"
                    | "push"
                    | "incr"
                    | "inc"
                    | "write"
                    | "replace"
                    | "assign"
                    // atomic builtins and counter APIs (`__atomic_fetch_add`,
                    // `__sync_fetch_and_sub`, `rte_atomic32_dec`, ...)
                    | "fetch"
                    | "xadd"
                    | "xchg"
                    | "exchange"
                    | "cmpxchg"
                    | "dec"
                    | "sub"
            )
        })
}

fn is_copy_fn(name: &str) -> bool {
    matches!(
        name,
        "memcpy"
            | "memmove"
            | "rte_memcpy"
            | "clib_memcpy"
            | "clib_memcpy_fast"
            | "__builtin_memcpy"
            | "bcopy"
            | "copy_from"
    )
}

fn is_memset(name: &str) -> bool {
    matches!(
        name,
        "memset" | "clib_memset" | "bzero" | "__builtin_memset" | "rte_memset"
    )
}

/// Per-call contexts a framework hands the packet path beside the packet,
/// with the members that point at the instance's own storage: one per
/// configured NF or rule, the same for every packet it sees (like a
/// global), never located by a flow. The other members are per-call values
/// (a verdict flag, offsets, devices), not state.
/// - nf.h: `nf_ctx->state`, the NF's state container;
/// - Linux xtables: `xt_action_param->matchinfo` / `targinfo`, the rule's
///   private data, which the kernel allocates with the rule from its
///   `matchsize`/`targetsize` (`struct xt_action_param` in
///   `<linux/netfilter/x_tables.h>`); the parameter block itself is built
///   on the stack for each packet.
const FRAMEWORK_CONTEXTS: &[(&str, &[&str])] = &[
    ("nf_ctx", &["state"]),
    ("xt_action_param", &["matchinfo", "targinfo"]),
];

fn is_framework_ctx_type(t: &str) -> bool {
    FRAMEWORK_CONTEXTS.iter().any(|(c, _)| t.ends_with(c))
}

/// A member of a framework context that is the instance's storage.
fn is_state_ctx_field(base_ty: &str, field: &str) -> bool {
    FRAMEWORK_CONTEXTS
        .iter()
        .any(|(c, members)| base_ty.ends_with(c) && members.contains(&field))
}

/// A packet descriptor type by its name, strictly: the descriptor types of
/// the frameworks (rte_mbuf, Packet, nf_packet, ndpi_packet_struct,
/// sk_buff, xdp_md), not any type mentioning "pkt" (a reassembly table's
/// `ip_frag_pkt` entry).
pub(super) fn is_descriptor_type(t: &str) -> bool {
    let t = t.to_ascii_lowercase();
    t.contains("rte_mbuf") || t.contains("packet") || t.contains("sk_buff") || t.contains("xdp_md")
}

/// A struct the NF defines to describe a received packet: it points at
/// the packet's protocol headers (iptraf-ng's `struct pkt_hdr` holds
/// `struct iphdr *iphdr`, `struct ethhdr *ethhdr`). Known by its layout,
/// not by its name, which may say anything (`pkt_hdr`, `capture`, `frame`).
pub(super) fn points_at_headers(prog: &Program, ty: &str) -> bool {
    prog.structs.get(prog.resolve_type(ty)).is_some_and(|s| {
        s.fields
            .iter()
            .any(|(_, t)| t.ptr == 1 && headers::hdr_of_type(&t.name).is_some())
    })
}

/// Members of a packet descriptor that record arrival, not packet
/// contents: xdp_md's ingress_ifindex / rx_queue_index, sk_buff's skb_iif /
/// queue_mapping / mark / tstamp, rte_mbuf's port / timestamp.
fn is_arrival_metadata(member: &str) -> bool {
    let m = member.to_ascii_lowercase();
    m == "port"
        || m == "in_port"
        || m == "mark"
        || m == "skb_iif"
        || m.contains("ifindex")
        || m.contains("queue")
        || m.contains("tstamp")
        || m.contains("timestamp")
}

/// Integer types as wide as a pointer on the targets NFs run on (LP64).
fn is_address_width_int(t: &str) -> bool {
    matches!(
        t,
        "long"
            | "unsigned long"
            | "long int"
            | "long unsigned int"
            | "unsigned long int"
            | "long long"
            | "unsigned long long"
            | "uintptr_t"
            | "intptr_t"
            | "size_t"
            | "ssize_t"
            | "ptrdiff_t"
            | "uint64_t"
            | "int64_t"
            | "u64"
            | "__u64"
    )
}

/// For each parameter of the body-less function `name` (its file-scope
/// prototype in the analysed files, with `arity` parameters): the header field a
/// non-const pointer to a scalar is named for (`in_port_t *sport`), the
/// way [`super::adapters::field_params`] reads an entry's parameters. At
/// least two such names, or none: one name alone may be a coincidence.
fn declared_field_out_params(prog: &Program, name: &str, arity: usize) -> Vec<Option<Field>> {
    let Some(params) = prog.prototypes.get(name).filter(|ps| ps.len() == arity) else {
        return vec![];
    };
    let named: Vec<Option<Field>> = params
        .iter()
        .map(|p| {
            let scalar_pointee = p.ty.ptr == 1
                && p.ty.dims.is_empty()
                && !p.is_const
                && headers::scalar_width(prog.resolve_type(&p.ty.name)).is_some();
            scalar_pointee
                .then(|| headers::generic_member_field(p.name.trim_start_matches('_')))
                .flatten()
        })
        .collect();
    if named.iter().flatten().count() >= 2 {
        named
    } else {
        vec![]
    }
}

fn is_packet_type(t: &str) -> bool {
    const NEEDLES: [&[u8]; 6] = [
        b"packet",
        b"mbuf",
        b"pkt",
        b"xdp_md",
        b"sk_buff",
        b"vlib_buffer",
    ];
    // A type named for a packet and then for what packets make up
    // (`packet_flow`, `pkt_state`, `packet_conn_data`) is what the NF
    // keeps about packets, not a packet: p0f hands its `packet_flow` to
    // the fingerprinting code beside the `packet_data` record.
    const KEPT_ABOUT_PACKETS: [&[u8]; 4] = [b"flow", b"conn", b"session", b"state"];
    let t = t.as_bytes();
    // Where the first of `needles` at or after `from` ends. Called for
    // every member access: no allocation, and a needle is only compared
    // where its first letter is.
    let end_of_first = |needles: &[&[u8]], from: usize| {
        (from..t.len()).find_map(|i| {
            let c = t[i].to_ascii_lowercase();
            needles.iter().find_map(|n| {
                (n[0] == c
                    && t.get(i..i + n.len())
                        .is_some_and(|w| w.eq_ignore_ascii_case(n)))
                .then_some(i + n.len())
            })
        })
    };
    end_of_first(&NEEDLES, 0).is_some_and(|end| end_of_first(&KEPT_ABOUT_PACKETS, end).is_none())
}

impl Stamps for Engine<'_, '_> {
    fn key(&self, id: u32) -> Rc<str> {
        Rc::clone(&self.log_keys.borrow().1[id as usize])
    }
    fn slot_stamp(&self, i: usize) -> u64 {
        self.env.slots[i].touched
    }
    fn has_slot(&self, key: &str) -> bool {
        self.env.by_key.contains_key(key)
    }
    fn members_stamp(&self, path: &str) -> u64 {
        self.members_changed.get(path).map_or(0, |m| m.touched)
    }
    fn ret(&self, scope: &str) -> Option<&Val> {
        self.rets.get(scope)
    }
    fn param_const(&self, key: &str) -> Option<Option<i64>> {
        self.param_consts.get(key).copied()
    }
    fn ageing_changes(&self) -> u64 {
        self.ageing_changes
    }
}

impl<'p, 't> Engine<'p, 't> {
    pub fn new(prog: &'p Program<'t>) -> Self {
        Engine {
            prog,
            env: Env::default(),
            env_changes: 0,
            copied: HashMap::default(),
            members_read: Default::default(),
            members_changed: HashMap::default(),
            static_types: Default::default(),
            kids: Default::default(),
            rets: HashMap::default(),
            ageing_results: HashMap::default(),
            found_searches: HashMap::default(),
            ctx_ids: HashMap::default(),
            visited: HashSet::default(),
            param_consts: HashMap::default(),
            mutated_params: HashMap::default(),
            collect: false,
            events: Events::default(),
            cost_seen: HashSet::default(),
            fn_idx: 0,
            scope: String::new(),
            call_string: vec![],
            guard: false,
            kind: FnKind::Packet,
            loop_conds: vec![],
            loop_depth: 0,
            carried_locals: HashMap::default(),
            match_depth: 0,
            guarded_entries: vec![],
            unsettled: false,
            insert_depth: 0,
            nesting: 0,
            storing_link: false,
            storing_packet: false,
            storing_descriptor: false,
            storing_self_derived: false,
            storing_received_descriptor: false,
            dirty: false,
            assigning: None,
            narrowing: None,
            walk_logs: Default::default(),
            walked: HashMap::default(),
            touches: 0,
            ageing_changes: 0,
            walk_gen: 0,
            log_keys: Default::default(),
            budget: BudgetState {
                deadline: None,
                backstop: None,
                memory_limit: u64::MAX,
                memory_used: 0,
                steps: 0,
                exhausted: None,
            },
        }
    }

    /// Stop the run when the running thread's CPU clock passes `deadline`
    /// (or the wall clock passes `backstop`) and at about `memory_bytes` of
    /// abstract state.
    pub fn with_budget(
        mut self,
        deadline: std::time::Duration,
        backstop: std::time::Instant,
        memory_bytes: u64,
    ) -> Self {
        self.budget.deadline = Some(deadline);
        self.budget.backstop = Some(backstop);
        // Headroom for what the count leaves out (the syntax trees, the
        // events).
        self.budget.memory_limit = memory_bytes / 2;
        self
    }

    /// Why the run stopped early, if it did.
    pub fn exhausted(&self) -> Option<&str> {
        self.budget.exhausted.as_deref()
    }

    /// The run stopped because its fixpoint kept growing past
    /// [`FIXPOINT_ROUNDS`], not because a budget ran out.
    pub fn unsettled(&self) -> bool {
        self.unsettled
    }

    /// Count one unit of work; true when the budget is gone.
    fn out_of_budget(&mut self) -> bool {
        if self.budget.exhausted.is_some() {
            return true;
        }
        self.budget.steps += 1;
        if self.budget.memory_used > self.budget.memory_limit {
            self.budget.exhausted = Some(format!(
                "abstract state grew past {} MB",
                self.budget.memory_limit >> 20
            ));
            return true;
        }
        if self.budget.steps % 1024 == 1 {
            if let Some(d) = self.budget.deadline {
                if super::cpu_clock::thread_cpu() > d
                    || self
                        .budget
                        .backstop
                        .is_some_and(|b| std::time::Instant::now() > b)
                {
                    self.budget.exhausted = Some("ran out of time".into());
                    return true;
                }
            }
        }
        false
    }

    fn src(&self) -> &'t str {
        self.prog.src(self.prog.fns[self.fn_idx].file)
    }
    fn file(&self) -> usize {
        self.prog.fns[self.fn_idx].file
    }
    fn t(&self, n: Node) -> &'t str {
        text(n, self.src())
    }
    fn line(n: Node) -> u32 {
        n.start_position().row as u32 + 1
    }
    fn f(&self) -> &'p FnDef<'t> {
        &self.prog.fns[self.fn_idx]
    }

    fn scope_for(&mut self, fn_idx: usize, cs: &[usize]) -> String {
        let n = self.ctx_ids.len();
        let id = *self.ctx_ids.entry(cs.to_vec()).or_insert(n);
        format!("f{fn_idx}#{id}")
    }

    /// The assignment being stored reads its own target (see `assigning`).
    fn accumulating(&self) -> bool {
        self.assigning
            .is_some_and(|(left, right, compound)| compound || mentions_path(self, right, left))
    }

    fn env_join(&mut self, key: &str, v: &Val) {
        let key = k_limit(key);
        // One search of the environment for a slot that exists (most
        // joins): this runs for every assignment and copied member.
        if self.join_into_slot(key, v, true).is_none() {
            self.budget.memory_used += key.len() as u64 + ENTRY_OVERHEAD;
            self.touches += 1;
            let slot = Slot {
                touched: self.touches,
                ..Slot::default()
            };
            self.env.insert_new(key, slot);
            // A join that changes the new slot stamps its paths' members;
            // a new slot that stays empty is still one more member.
            if self.join_into_slot(key, v, false) == Some(false) {
                self.stamp_members(key, false);
            }
        }
    }

    /// Stamp the members of each path `key` is a member of (`a` and `a.b`
    /// for `a.b.c`): as touched (see `walks`), and as changed if `changed`.
    fn stamp_members(&mut self, key: &str, changed: bool) {
        let (c, t) = (self.env_changes, self.touches);
        // A byte scan: keys are short, and a `char` searcher's set-up per
        // key cost more than the scan.
        for i in (0..key.len()).filter(|&i| key.as_bytes()[i] == b'.') {
            match self.members_changed.get_mut(&key[..i]) {
                Some(at) => {
                    if changed {
                        at.changed = c;
                    }
                    at.touched = t;
                }
                None => {
                    let at = MemberStamps {
                        changed: if changed { c } else { 0 },
                        touched: t,
                    };
                    self.members_changed.insert(key[..i].to_string(), at);
                }
            }
        }
    }

    /// Log a read of the walk under way, if a walk's reads are logged.
    fn log_read(&self, f: impl FnOnce(&mut WalkLog)) {
        if let Some(log) = self.walk_logs.borrow_mut().last_mut() {
            f(log);
        }
    }

    /// The number of a key a walk log names (see `walks`): the same key is
    /// logged by every round's walks, so its number is found by hash, not
    /// allocated anew for each read.
    fn log_key(&self, key: &str) -> u32 {
        let mut keys = self.log_keys.borrow_mut();
        if let Some(&id) = keys.0.get(key) {
            return id;
        }
        let key: Rc<str> = Rc::from(key);
        let id = keys.1.len() as u32;
        keys.0.insert(Rc::clone(&key), id);
        keys.1.push(key);
        id
    }

    /// Log a read of the members of `path`.
    fn log_members_read(&self, path: &str) {
        self.log_read(|l| {
            l.members
                .push((self.log_key(path), self.members_stamp(path)));
        });
    }

    /// [`Self::env_join`] into the slot `key` if it exists (`existed`: it
    /// held a value before this join): whether the slot changed; `None`
    /// if there is no such slot.
    fn join_into_slot(&mut self, key: &str, v: &Val, existed: bool) -> Option<bool> {
        let slot = self.env.get_mut(key)?;
        let e = &mut slot.val;
        let (had_objs, had_fields) = (e.objs.len(), e.fields.len());
        let had_pair = e.has_mirror_pair();
        let konst_before = e.konst;
        let mut changed = if existed {
            e.join_existing(v)
        } else {
            e.join(v)
        };
        if let (Some(a), Some(b)) = (konst_before, e.konst) {
            if b < a {
                slot.lowerings += 1;
                if slot.lowerings > CONSTANT_LOWERINGS {
                    slot.val.konst = None;
                }
            }
        }
        let e = &mut slot.val;
        let grown = e.objs.len().saturating_sub(had_objs);
        // A scalar slot fed by a field and (elsewhere) its mirror is
        // direction-agnostic (`k = reply ? dst : src`): this join is what
        // brings the pair together. A value computed from the slot itself
        // (a hash chained over the source then the destination) keeps them
        // in order, and the elements an array slot summarises are many
        // locations (`key[0..2] = src words, key[2..4] = dst words`): no
        // alternative in either.
        let pairs_here = !e.mixed
            && !had_pair
            && !key.ends_with("[]")
            && e.has_mirror_pair()
            && !v.has_mirror_pair()
            && had_fields != 0
            && v.fields.len() <= 2
            && had_fields <= 2;
        if changed && !pairs_here {
            self.env_changes += 1;
            slot.changed_at = self.env_changes;
            self.touches += 1;
            slot.touched = self.touches;
        }
        self.budget.memory_used += grown as u64 * 48;
        // Whether the assignment reads its own target is looked up only
        // here (rare), not for every assignment.
        if pairs_here {
            if !self.accumulating() {
                changed = true;
                if let Some(slot) = self.env.get_mut(key) {
                    slot.val.mixed = true;
                }
            }
            if changed {
                self.env_changes += 1;
                self.touches += 1;
                if let Some(slot) = self.env.get_mut(key) {
                    slot.changed_at = self.env_changes;
                    slot.touched = self.touches;
                }
            }
        }
        if changed {
            self.dirty = true;
            self.stamp_members(key, true);
        }
        Some(changed)
    }

    /// The change count of the last change of a member of `path`.
    fn members_changed_at(&self, path: &str) -> u64 {
        self.members_changed.get(path).map_or(0, |m| m.changed)
    }

    /// The value of an environment slot, if it has one.
    fn env_get(&self, key: &str) -> Option<&Val> {
        match self.env.get(key) {
            Some((i, slot)) => {
                self.log_read(|l| l.slots.push((i, slot.touched)));
                Some(&slot.val)
            }
            None => {
                self.log_read(|l| l.absent.push(self.log_key(key)));
                None
            }
        }
    }

    /// Value of a path: the entry itself and every member below it.
    fn env_read(&self, key: &str) -> Val {
        let mut v = self.env_get(key).cloned().unwrap_or_default();
        if let Some(nw) = &self.narrowing {
            nw.narrow_val(key, &mut v);
            if nw.points_to_no_state(key) {
                v.objs.clear();
            }
        }
        // A pointer into state or into the packet is identified by where it
        // points, not by what was stored through it (a rewritten header
        // byte does not make the frame pointer carry that value).
        if !v.objs.is_empty() || v.root || v.hdr.is_some() {
            return v;
        }
        self.log_members_read(key);
        // Searched only when needed: a cached join below needs no search.
        let members = || {
            let (lo, hi) = ([key, "."].concat(), [key, "/"].concat());
            self.env.range(&lo, &hi)
        };
        if let Some(nw) = &self.narrowing {
            for (k, x) in members() {
                if self.below_a_link(key, k) {
                    continue;
                }
                let mut x = x.val.taint();
                nw.narrow_val(k, &mut x);
                v.join(&x);
            }
            return v;
        }
        // Outside the flow-sensitive pass the members' join depends only on
        // the environment, so it is reused until a member changes (a struct
        // of hundreds of members is read at every use).
        let changed_at = self.members_changed_at(key);
        let cached = match self.members_read.borrow().get(key) {
            Some((at, m)) if *at >= changed_at => Some(m.clone()),
            _ => None,
        };
        let joined = cached.unwrap_or_else(|| {
            let mut joined: Option<Val> = None;
            for (k, x) in members() {
                if self.below_a_link(key, k) {
                    continue;
                }
                joined.get_or_insert_with(Val::default).join(&x.val.taint());
            }
            self.members_read
                .borrow_mut()
                .insert(key.to_string(), (self.env_changes, joined.clone()));
            joined
        });
        // Joining the members one by one or their join at once is the same
        // (taint carries no constant), as long as there is one.
        if let Some(m) = joined {
            v.join(&m);
        }
        v
    }

    /// Whether the member `member` of the path `key` (`key.a.b`) lies
    /// behind a link: a pointer member (`a`, or `a.b`, declared a pointer)
    /// that points at another object rather than into the packet. A
    /// struct's value is what its data members hold (a key struct, a
    /// decoded header, a parse cursor into the frame); a linked entry's
    /// members identify that entry, stored by whichever packet created it,
    /// not the struct that links to it (a list's `head`, `tail` and
    /// cursors). Unknown types keep the member.
    fn below_a_link(&self, key: &str, member: &str) -> bool {
        let Some(suffix) = member.get(key.len() + 1..) else {
            return false;
        };
        let Some(mut ty) = self.path_type(key) else {
            return false;
        };
        let mut end = key.len();
        for seg in suffix.split('.') {
            end += 1 + seg.len();
            let Some(t) = self.prog.field_type(&ty.name, seg) else {
                return false;
            };
            if t.ptr > 0 {
                let into_packet = self
                    .env
                    .get(&member[..end])
                    .is_some_and(|(_, s)| s.val.hdr.is_some() || s.val.descriptor);
                return !into_packet;
            }
            ty = t;
        }
        false
    }

    /// The declared type of an environment path (`f3#1|list.head`,
    /// `g|table.rules`): its root variable's declaration, then each member's.
    fn path_type(&self, key: &str) -> Option<&'p TypeRef> {
        let (scope, path) = key.split_once('|')?;
        let mut segs = path.split('.');
        let root = segs.next()?;
        let ty = match scope.strip_prefix('f') {
            Some(rest) => {
                let fi: usize = rest.split('#').next()?.parse().ok()?;
                let f = self.prog.fns.get(fi)?;
                f.params
                    .iter()
                    .find(|p| p.name == root)
                    .map(|p| &p.ty)
                    .or_else(|| f.locals.get(root).map(|l| &l.ty))?
            }
            None if scope == "g" => &self.prog.globals.get(root)?.ty,
            None => return None,
        };
        segs.try_fold(ty, |t, seg| self.prog.field_type(&t.name, seg))
    }

    /// Run to a fixpoint over the given entries, then a collecting pass.
    pub fn run(&mut self, entries: &[Entry], others: &[(usize, FnKind)]) {
        let inits: Vec<Entry> = others
            .iter()
            .filter(|(_, k)| *k == FnKind::Init)
            .map(|(fi, _)| Entry {
                fn_idx: *fi,
                guarded: false,
                flow_params: vec![],
                frame_params: vec![],
                caller_state: false,
            })
            .collect();
        let mut settled = false;
        for _ in 0..FIXPOINT_ROUNDS {
            // `dirty` says whether any value grew this round (cheaper than
            // comparing snapshots of the whole environment).
            self.dirty = false;
            self.visited.clear();
            for e in &inits {
                self.visit_fn_root(e, FnKind::Init);
            }
            for e in entries {
                self.visit_entry(e);
            }
            if !self.dirty {
                settled = true;
                break;
            }
        }
        self.visited.clear();
        self.collect = true;
        self.dirty = false;
        for e in entries {
            self.visit_entry(e);
        }
        // The collecting pass is one more round: if values still grew in it,
        // the answers would come from an analysis that has not reached its
        // fixpoint (values missing fields, accesses not yet seen), which can
        // err in the unsafe direction. Unknown, like a spent budget.
        if !settled && self.dirty && self.budget.exhausted.is_none() {
            self.unsettled = true;
            self.budget.exhausted = Some(format!(
                "the data-flow fixpoint did not settle in {FIXPOINT_ROUNDS} rounds"
            ));
        }
        self.events.packet_fns = self
            .visited
            .iter()
            .filter_map(|s| s.strip_prefix('f')?.split('#').next()?.parse().ok())
            .collect();
        let packet_fns = self.events.packet_fns.clone();
        for (fi, kind) in others {
            if packet_fns.contains(fi) {
                continue;
            }
            self.visited.clear();
            let e = Entry {
                fn_idx: *fi,
                guarded: false,
                flow_params: vec![],
                frame_params: vec![],
                caller_state: false,
            };
            self.kind = *kind;
            self.visit_fn_root(&e, *kind);
        }
        self.kind = FnKind::Packet;
        self.narrow_keys(entries);
    }

    /// The second collecting pass (see `narrowing`): walk the packet path
    /// again, flow-sensitively, and narrow every access key to what it saw
    /// at the same site. Over budget, the first pass's keys stand.
    fn narrow_keys(&mut self, entries: &[Entry]) {
        if self.budget.exhausted.is_some() {
            return;
        }
        let first = std::mem::take(&mut self.events);
        let cost_seen = std::mem::take(&mut self.cost_seen);
        self.narrowing = Some(Box::default());
        self.visited.clear();
        for e in entries {
            self.visit_entry(e);
        }
        self.narrowing = None;
        let second = std::mem::replace(&mut self.events, first);
        self.cost_seen = cost_seen;
        if self.budget.exhausted.take().is_none() {
            narrowing::apply(&mut self.events.accesses, &second.accesses, &self.visited);
        } else {
            for a in &mut self.events.accesses {
                a.may_key = a.key.clone();
            }
        }
    }

    fn visit_entry(&mut self, e: &Entry) {
        self.kind = FnKind::Packet;
        self.visit_fn_root(e, FnKind::Packet);
    }

    fn visit_fn_root(&mut self, e: &Entry, kind: FnKind) {
        let scope = self.scope_for(e.fn_idx, &[e.fn_idx]);
        // Seed flow-manager state parameters.
        for (pname, obj, key) in &e.flow_params {
            let v = Val {
                fields: key.iter().copied().collect(),
                opaque: key.is_empty(),
                objs: [obj.clone()].into_iter().collect(),
                ..Default::default()
            };
            self.env_join(&format!("{scope}|{pname}"), &v);
        }
        for pname in &e.frame_params {
            self.env_join(&format!("{scope}|{pname}"), &Val::hdr(Hdr::Frame, 0));
        }
        // Header fields handed in one by one (`ipfilter(saddr, daddr, sport,
        // dport, protocol)`): each parameter holds the field it is named for.
        if kind == FnKind::Packet {
            let f = &self.prog.fns[e.fn_idx];
            for (pname, field) in super::adapters::field_params(self.prog, f) {
                self.env_join(&format!("{scope}|{pname}"), &Val::field(field));
            }
        }
        // Objects the caller hands in by pointer: named after the parameter,
        // located by whatever the caller chose (opaque to this code).
        if kind == FnKind::Packet && e.caller_state {
            let params = self.prog.fns[e.fn_idx].params.clone();
            for p in params.iter().filter(|p| {
                p.ty.is_pointerish()
                    && !p.is_const
                    && !is_packet_type(&p.ty.name)
                    && !is_framework_ctx_type(&p.ty.name)
                    && headers::hdr_of_type(&p.ty.name).is_none()
                    && headers::scalar_width(self.prog.resolve_type(&p.ty.name)).is_none()
                    && p.ty.name != "void"
                    && !e.frame_params.contains(&p.name)
                    && !e.flow_params.iter().any(|(n, _, _)| n == &p.name)
            }) {
                let k = format!("{scope}|{}", p.name);
                if self
                    .env_get(&k)
                    .is_none_or(|v| v.objs.is_empty() && !v.root)
                {
                    let obj = format!("*{}", p.name);
                    self.events.caller_objs.insert(obj.clone());
                    // The parameter points at the handed object's own
                    // storage: what its pointer members reach are parts of
                    // their own (`Val::direct`); its aggregate members stay
                    // in it (see `MemberKind::makes_part_of`).
                    let direct = [obj.clone()].into_iter().collect();
                    self.env_join(
                        &k,
                        &Val {
                            objs: [obj].into_iter().collect(),
                            direct,
                            handed: true,
                            ..Default::default()
                        },
                    );
                }
            }
        }
        // Packet taint starts at the entry's packet argument: a packet
        // descriptor (mbuf, Packet, sk_buff, xdp_md, ...) handed to code the
        // analysis cannot see yields packet data.
        if kind == FnKind::Packet {
            let params = self.prog.fns[e.fn_idx].params.clone();
            for p in params.iter().filter(|p| {
                is_packet_type(&p.ty.name)
                    && (p.ty.is_pointerish() || !p.ty.dims.is_empty())
                    && !e.frame_params.contains(&p.name)
            }) {
                let k = format!("{scope}|{}", p.name);
                if self.env_get(&k).is_none_or(|v| v.hdr.is_none()) {
                    self.env_join(
                        &k,
                        &Val {
                            hdr: Some(Hdr::Frame),
                            off: None,
                            descriptor: true,
                            ..Default::default()
                        },
                    );
                }
            }
        }
        // nf.h adapter: nf_state_init(void *state) receives the state instance.
        let f = &self.prog.fns[e.fn_idx];
        if f.name == "nf_state_init" {
            if let Some(p) = f.params.first() {
                let k = format!("{scope}|{}", p.name);
                self.env_join(
                    &k,
                    &Val {
                        root: true,
                        ..Default::default()
                    },
                );
            }
        }
        self.kind = kind;
        self.visit_fn(e.fn_idx, vec![e.fn_idx], e.guarded);
    }

    fn visit_fn(&mut self, fn_idx: usize, cs: Vec<usize>, guard: bool) {
        if self.out_of_budget() {
            return;
        }
        let cs_len = cs.len();
        let scope = self.scope_for(fn_idx, &cs);
        if !self.visited.insert(scope.clone()) {
            return;
        }
        // See `walks`: a context's walk of the previous round stands when
        // it is entered as then and reads what it read then. The packet
        // entries themselves are walked every round.
        let logging = self.logs_walks();
        let entry = logging.then(|| self.walk_entry(guard));
        if let Some(entry) = &entry {
            let last = self
                .walked
                .get(&scope)
                .filter(|w| w.entry == *entry)
                .map(|w| w.gen);
            if let Some(gen) = last.filter(|&g| cs.len() > 1 && self.walk_holds(&scope, g)) {
                self.mark_reused(&scope);
                self.log_read(|l| l.callees.push((scope, gen)));
                return;
            }
            self.walk_logs.borrow_mut().push(WalkLog::default());
        }
        let saved = (
            self.fn_idx,
            std::mem::replace(&mut self.scope, scope),
            std::mem::replace(&mut self.call_string, cs),
            self.guard,
            std::mem::take(&mut self.loop_conds),
            self.loop_depth,
        );
        self.fn_idx = fn_idx;
        self.guard = guard;
        self.loop_depth = 0;
        let count_cost =
            self.collect && self.kind == FnKind::Packet && self.cost_seen.insert(fn_idx);
        if self.collect && self.kind == FnKind::Packet {
            self.scan_accelerator_constants(fn_idx);
        }
        if let Some(body) = self.f().body {
            self.stmt(body, count_cost);
        }
        if let Some(nw) = self.narrowing.as_deref_mut() {
            nw.finished(&self.scope);
        }
        if let Some(entry) = entry {
            let log = self.walk_logs.borrow_mut().pop().unwrap_or_default();
            // A walk cut short by the budget, or one during which calls
            // began to share contexts past `MAX_CONTEXTS`, is no walk to
            // reuse.
            let gen = if cs_len > 1
                && self.logs_walks()
                && entry.shared == (self.ctx_ids.len() > MAX_CONTEXTS)
            {
                self.walk_gen += 1;
                let gen = self.walk_gen;
                self.walked
                    .insert(self.scope.clone(), Walked { entry, log, gen });
                gen
            } else {
                self.walked.remove(&self.scope);
                0
            };
            // Logged in the caller's walk once this one is done.
            let scope = self.scope.clone();
            self.log_read(|l| l.callees.push((scope, gen)));
        }
        self.fn_idx = saved.0;
        self.scope = saved.1;
        self.call_string = saved.2;
        self.guard = saved.3;
        self.loop_conds = saved.4;
        self.loop_depth = saved.5;
    }

    /// Whether walks log their reads and may be reused (see `walks`): in
    /// the fixpoint's rounds, while the budget lasts.
    fn logs_walks(&self) -> bool {
        !self.collect && self.narrowing.is_none() && self.budget.exhausted.is_none()
    }

    /// How a context is entered now, with `guard`.
    fn walk_entry(&self, guard: bool) -> WalkEntry {
        WalkEntry {
            shared: self.ctx_ids.len() > MAX_CONTEXTS,
            guard,
            kind: self.kind,
            insert_depth: self.insert_depth,
            match_depth: self.match_depth,
            nesting: self.nesting,
            guarded_entries: self.guarded_entries.clone(),
            assigning: self.assigning.map(|(l, r, c)| (l.id(), r.id(), c)),
            storing: [
                self.storing_link,
                self.storing_packet,
                self.storing_descriptor,
                self.storing_self_derived,
                self.storing_received_descriptor,
            ],
        }
    }

    /// The walk `gen` of `scope` is its last, and it and the walks of the
    /// contexts it visited first would read what they read. A context
    /// shared past `MAX_CONTEXTS` may have been walked since for another
    /// caller: then it is not the walk this caller's walk saw.
    fn walk_holds(&self, scope: &str, gen: u64) -> bool {
        self.walked.get(scope).is_some_and(|w| {
            w.gen == gen
                && w.log.holds(self)
                && w.log.callees.iter().all(|(c, g)| self.walk_holds(c, *g))
        })
    }

    /// A reused walk of `scope` visits what its last walk visited.
    fn mark_reused(&mut self, scope: &str) {
        let mut stack: Vec<String> = self
            .walked
            .get(scope)
            .map(|w| w.log.callees.iter().map(|(c, _)| c.clone()).collect())
            .unwrap_or_default();
        while let Some(c) = stack.pop() {
            if let Some(w) = self.walked.get(&c) {
                stack.extend(w.log.callees.iter().map(|(c, _)| c.clone()));
            }
            self.visited.insert(c);
        }
    }

    // ------------------------------------------------------------ statements

    /// How many leading statements of `body` run before its receive loop,
    /// when `body` is the packet entry's own body and one of its statements
    /// receives packets (0 otherwise).
    fn receive_loop_prologue(&self, body: Node<'t>, kids: &[Node<'t>]) -> usize {
        if self.kind != FnKind::Packet
            || self.call_string.len() != 1
            || self.f().body.is_none_or(|b| b.id() != body.id())
        {
            return 0;
        }
        kids.iter()
            .position(|k| super::adapters::calls_receive(self.prog, self.f(), *k))
            .unwrap_or(0)
    }

    fn stmt(&mut self, n: Node<'t>, cost: bool) {
        if cost {
            let w = match n.kind_name() {
                "expression_statement"
                | "declaration"
                | "return_statement"
                | "if_statement"
                | "switch_statement"
                | "case_statement" => 1,
                "for_statement" | "while_statement" | "do_statement" | "for_range_loop" => 2,
                _ => 0,
            };
            if w > 0 {
                self.events.cost += w * 4u64.pow(self.loop_depth.min(2));
            }
        }
        match n.kind_name() {
            "compound_statement"
            | "translation_unit"
            | "declaration_list"
            | "field_declaration_list" => {
                let kids = self.named_kids(n);
                let saved = self.guard;
                // A receive loop's entry runs what precedes its loop once,
                // when the core starts (a rule added or deleted, a port
                // checked), not per packet: those statements are set-up.
                // Their locals still flow into the loop.
                let prologue = self.receive_loop_prologue(n, &kids);
                let kind = self.kind;
                for (i, &k) in kids.iter().enumerate() {
                    let setup = i < prologue;
                    if setup {
                        self.kind = FnKind::Init;
                    }
                    self.stmt(k, cost && !setup);
                    self.kind = kind;
                    // `if (hit) { ...; return; }` makes the rest of the block the miss path.
                    if k.kind_name() == "if_statement" && k.field("alternative").is_none() {
                        if let (Some(c), Some(cons)) =
                            (k.field("condition"), k.field("consequence"))
                        {
                            if (always_exits(cons) || self.leaves_only_on_rare_paths(cons))
                                && self.rare(c, true)
                            {
                                self.guard = true;
                            }
                        }
                    }
                }
                self.guard = saved;
            }
            "if_statement" => {
                let cond = n.field("condition");
                let mut cond_fields = FieldSet::default();
                let mut matched = vec![];
                if let Some(c) = cond {
                    let is_match =
                        self.loop_depth > 0 && n.field("consequence").is_some_and(exits_loop);
                    self.match_depth += u32::from(is_match);
                    let v = self.expr(c);
                    self.match_depth -= u32::from(is_match);
                    if self.collect
                        && self.kind == FnKind::Packet
                        && n.field("alternative").is_some()
                    {
                        cond_fields = self.tested_fields(c);
                    }
                    // `if (entry)`: an existence test, like `!entry`.
                    let existence = self
                        .static_type(strip(c))
                        .is_some_and(|t| t.is_pointerish());
                    if !existence && !self.updates_only_what_it_tests(n, &v) {
                        self.note_influence(&v, &BTreeSet::new(), c, "a branch condition");
                    }
                    if self.loop_depth > 0 && n.field("consequence").is_some_and(exits_loop) {
                        matched = self.search_match(c);
                    }
                }
                // A condition on a parameter the calling context bound to a
                // constant takes one branch; the other is dead here.
                let decided = cond.and_then(|c| self.constant_condition(c));
                let saved = self.guard;
                let scope = self.scope.clone();
                let before = self.narrowing.as_ref().map(|nw| nw.snapshot(&scope));
                let mut after_cons = None;
                let accesses_before = self.events.accesses.len();
                if let Some(cons) = n.field("consequence").filter(|_| decided != Some(false)) {
                    if let Some(c) = cond {
                        self.guard = saved || self.rare(c, false);
                    }
                    // The match holds on this branch only: the cursor the
                    // loop leaves with is located by the key here, whatever
                    // its definitions carried before the test.
                    if let Some(nw) = self.narrowing.as_deref_mut() {
                        for (k, key) in &matched {
                            nw.refine(k, narrowing::val_mask(key));
                        }
                    }
                    let guarded = cond.map_or(vec![], |c| self.guard_match(c));
                    let depth = self.guarded_entries.len();
                    self.guarded_entries.extend(guarded);
                    self.stmt(cons, cost);
                    self.guarded_entries.truncate(depth);
                    self.guard = saved;
                    if let (Some(nw), Some(b)) = (self.narrowing.as_deref_mut(), &before) {
                        if !ends_in_return(cons) {
                            after_cons = Some(nw.snapshot(&scope));
                        }
                        nw.restore(&scope, b.clone());
                    }
                }
                let alt = n.field("alternative");
                if let Some(alt) = alt.filter(|_| decided != Some(true)) {
                    let accesses_cons = self.events.accesses.len();
                    if let Some(c) = cond {
                        self.guard = saved || self.rare(c, true);
                    }
                    self.stmt(alt, cost);
                    self.guard = saved;
                    self.note_endpoint_choice(&cond_fields, accesses_before, accesses_cons, n);
                }
                if let (Some(nw), Some(b)) = (self.narrowing.as_deref_mut(), before) {
                    // Where the branches join, a path carries what both carry;
                    // a branch that returns, or that the context rules out,
                    // does not reach the join.
                    if decided == Some(false) {
                        after_cons = None;
                    }
                    let after_alt = match alt {
                        _ if decided == Some(true) => None,
                        Some(a) if ends_in_return(a) => None,
                        Some(_) => Some(nw.snapshot(&scope)),
                        None => Some(b.clone()),
                    };
                    let joined = match (after_cons, after_alt) {
                        (Some(x), Some(y)) => x.meet(&y),
                        (Some(x), None) | (None, Some(x)) => x,
                        (None, None) => b,
                    };
                    nw.restore(&scope, joined);
                }
            }
            "else_clause" => {
                let mut c = n.walk();
                let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
                for k in kids {
                    self.stmt(k, cost);
                }
            }
            "for_statement" | "while_statement" | "do_statement" | "for_range_loop" => {
                let cond_text = n
                    .field("condition")
                    .map(|c| self.t(c).to_string())
                    .unwrap_or_default();
                self.loop_conds.push((cond_text, n));
                // The second pass walks a loop twice (the second time from
                // the meet of the entry and the first walk's end, so that
                // definitions late in the body reach its top); nested
                // deeper than two loops, once.
                let walks = if self.narrowing.is_some() && self.loop_depth < 2 {
                    2
                } else {
                    1
                };
                let scope = self.scope.clone();
                let entry = self.narrowing.as_ref().map(|nw| nw.snapshot(&scope));
                self.loop_depth += 1;
                let mut c = n.walk();
                let kids: Vec<(Option<&str>, Node<'t>)> = n
                    .children(&mut c)
                    .enumerate()
                    .map(|(i, ch)| (n.field_name_for_child(i as u32), ch))
                    .collect();
                for (i, (field, k)) in (0..walks).flat_map(|_| kids.iter().copied()).enumerate() {
                    if i == kids.len() {
                        if let (Some(nw), Some(e)) = (self.narrowing.as_deref_mut(), &entry) {
                            let end = nw.snapshot(&scope);
                            nw.restore(&scope, end.meet(e));
                        }
                    }
                    if !k.is_named() {
                        continue;
                    }
                    match field {
                        Some("body") => self.stmt(k, cost),
                        Some("initializer") if k.kind_name() == "declaration" => {
                            self.stmt(k, false)
                        }
                        Some("right") if n.kind_name() == "for_range_loop" => {
                            // for (auto &e : container): e points into the container.
                            let v = self.expr(k);
                            if let Some(d) = n.field("declarator") {
                                if let Some(name) = decl_name(d, self.src()) {
                                    let key = self.var_key(&name);
                                    self.narrow_define(&key, &v);
                                    self.env_join(&key, &v);
                                }
                            }
                        }
                        _ => {
                            if k.kind_name().ends_with("statement")
                                || k.kind_name() == "compound_statement"
                            {
                                self.stmt(k, cost)
                            } else {
                                self.expr(k);
                            }
                        }
                    }
                }
                // The loop may run no iteration, or leave after any.
                if let (Some(nw), Some(e)) = (self.narrowing.as_deref_mut(), &entry) {
                    let end = nw.snapshot(&scope);
                    nw.restore(&scope, end.meet(e));
                }
                self.loop_depth -= 1;
                self.loop_conds.pop();
            }
            "declaration" => self.declaration(n),
            "expression_statement" | "return_statement" => {
                let mut c = n.walk();
                let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
                for k in kids {
                    let mut v = self.expr(k);
                    if n.kind_name() == "return_statement" {
                        let text = self.t(strip(k));
                        if let Some((_, key)) =
                            self.guarded_entries.iter().rev().find(|(e, _)| e == text)
                        {
                            v.fields.extend(key.fields.iter().copied());
                            v.mixed |= key.mixed;
                        }
                        // The entry's return value is the verdict; a helper's
                        // return is only a value on its way somewhere.
                        if self.call_string.len() == 1 {
                            self.note_influence(&v, &BTreeSet::new(), k, "the verdict");
                        }
                        if let Some(aged) = self.ageing_polarity(k) {
                            let before = self.ageing_results.get(&self.fn_idx).copied();
                            let now = match before {
                                Some(p) if p != Some(aged) => None,
                                Some(p) => p,
                                None => Some(aged),
                            };
                            if before != Some(now) {
                                self.ageing_changes += 1;
                                self.ageing_results.insert(self.fn_idx, now);
                            }
                        }
                        let key = self.scope.clone();
                        // `return NULL` / `return 0` hands back no entry: it
                        // does not narrow what the entries returned carry.
                        if !is_constant_like(&v) {
                            if let Some(nw) = self.narrowing.as_deref_mut() {
                                let state = !v.objs.is_empty() || v.root;
                                if !state && (v.hdr.is_some() || v.descriptor) {
                                    nw.returned(&key, None);
                                } else {
                                    nw.returned(&key, Some((narrowing::val_mask(&v), state)));
                                }
                            }
                        }
                        let joined = match self.rets.get_mut(&key) {
                            Some(e) => e.join_existing(&v),
                            None => self.rets.entry(key).or_default().join(&v),
                        };
                        if joined {
                            self.dirty = true;
                        }
                    }
                }
            }
            "switch_statement" => {
                if let Some(c) = n.field("condition") {
                    let v = self.expr(c);
                    self.note_influence(&v, &BTreeSet::new(), c, "a branch condition");
                }
                let scope = self.scope.clone();
                if let Some(nw) = self.narrowing.as_deref_mut() {
                    nw.enter_switch(&scope);
                }
                if let Some(b) = n.field("body") {
                    self.stmt(b, cost);
                }
                if let Some(nw) = self.narrowing.as_deref_mut() {
                    nw.leave_switch(&scope);
                }
            }
            "case_statement" | "labeled_statement" => {
                if n.kind_name() == "case_statement" {
                    let scope = self.scope.clone();
                    if let Some(nw) = self.narrowing.as_deref_mut() {
                        nw.case_label(&scope);
                    }
                }
                let mut c = n.walk();
                let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
                for k in kids.into_iter().skip(if n.kind_name() == "case_statement" {
                    0
                } else {
                    1
                }) {
                    if k.kind_name().ends_with("statement")
                        || k.kind_name() == "declaration"
                        || k.kind_name() == "compound_statement"
                    {
                        self.stmt(k, cost)
                    }
                }
            }
            "comment" | "break_statement" | "continue_statement" | "goto_statement" => {}
            "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif" | "ERROR" => {
                let mut c = n.walk();
                let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
                for k in kids {
                    if k.kind_name().ends_with("statement")
                        || k.kind_name() == "declaration"
                        || k.kind_name().starts_with("preproc")
                    {
                        self.stmt(k, cost)
                    } else if k.kind_name().ends_with("expression") {
                        self.expr(k);
                    }
                }
            }
            _ => {
                if n.kind_name().ends_with("expression") {
                    self.expr(n);
                } else {
                    let mut c = n.walk();
                    let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
                    for k in kids {
                        self.stmt(k, cost);
                    }
                }
            }
        }
    }

    fn declaration(&mut self, n: Node<'t>) {
        let Some(ty) = n.field("type") else {
            return;
        };
        let mut c = n.walk();
        let decls: Vec<Node<'t>> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            if d.kind_name() == "function_declarator" {
                // C++ `T x(a, b);` parsed as a prototype: a constructor call.
                if let Some((name, args)) = self.ctor_from_prototype(d) {
                    let tname = program_norm(self.t(ty));
                    let v = self.construct(&tname, &args);
                    let key = self.var_key(&name);
                    self.narrow_define(&key, &v);
                    self.env_join(&key, &v);
                }
                continue;
            }
            let (name, tr) = self.prog.declarator_type(self.file(), ty, d);
            let Some(name) = name else { continue };
            let key = self.var_key(&name);
            if d.kind_name() != "init_declarator" {
                // Declared without a value: nothing reaches it yet.
                if let Some(nw) = self.narrowing.as_deref_mut() {
                    nw.forget(&key);
                }
                // A packet descriptor held in place (`struct pkt_hdr pkt;`
                // that a capture call fills): the packet's own storage, so
                // its address is a descriptor of the packet.
                if self.kind == FnKind::Packet
                    && tr.ptr == 0
                    && tr.dims.is_empty()
                    && is_packet_type(&tr.name)
                    && self
                        .prog
                        .structs
                        .get(self.prog.resolve_type(&tr.name))
                        .is_some_and(|s| !s.fields.is_empty())
                {
                    self.env_join(
                        &key,
                        &Val {
                            hdr: Some(Hdr::Frame),
                            off: None,
                            descriptor: true,
                            ..Default::default()
                        },
                    );
                }
                continue;
            }
            let Some(value) = d.field("value") else {
                continue;
            };
            let mut v = match value.kind_name() {
                "argument_list" => {
                    // C++ constructor call: T x(args)
                    let args = self.args(value);
                    self.construct(&tr.name, &args)
                }
                "initializer_list" => {
                    // Members the list does not name are zero.
                    if let Some(nw) = self.narrowing.as_deref_mut() {
                        nw.define(&key, 0, false);
                    }
                    self.init_list(&key, &tr, value);
                    continue;
                }
                _ => self.expr(value),
            };
            // A local typed as a packet descriptor points at the packet,
            // even when reached through a context (`&ndpi_struct->packet`).
            if tr.ptr == 1 && is_descriptor_type(&tr.name) && v.hdr.is_none() {
                v = Val {
                    hdr: Some(Hdr::Frame),
                    off: None,
                    descriptor: true,
                    ..Default::default()
                };
            }
            // Declared header pointer types fix what the pointer points at.
            if tr.ptr > 0 {
                if let Some(h) = headers::hdr_of_type(&tr.name) {
                    if returned_into_packet(&v, value) {
                        v = Val::hdr(Hdr::Frame, 0);
                        v.off = None;
                    }
                    if v.hdr.is_some() || is_from_packet(&v) {
                        let off = if v.hdr == Some(Hdr::Frame) {
                            v.off
                                .map(|o| self.frame_to_hdr_off(o, h))
                                .unwrap_or(Some(0))
                        } else {
                            Some(0)
                        };
                        v.hdr = Some(h);
                        v.off = off;
                    }
                }
            }
            if let Some(fields) = self.flow_id_fields(&tr.name) {
                if value.kind_name() != "argument_list" && v.fields.is_empty() && v.hdr.is_some() {
                    v.fields.extend(fields.iter().copied());
                }
            }
            // A local copy (struct, scalar or vector value) of state is not a
            // pointer into state: it remembers where it came from, no more.
            if tr.ptr == 0 && tr.dims.is_empty() && !tr.reference && tr.name != "auto" {
                let objs = std::mem::take(&mut v.objs);
                v.from.extend(objs);
                v.root = false;
            }
            self.narrow_define(&key, &v);
            // Copy struct members when initialised from another path.
            if let Some(rk) = self.path_key(value) {
                self.copy_members(&rk, &key, true);
            }
            self.env_join(&key, &v);
        }
    }

    /// `T x(a, b)` misparsed as a function prototype inside a body: the
    /// variable name and the argument values (names of variables, literals).
    fn ctor_from_prototype(&mut self, d: Node<'t>) -> Option<(String, Vec<Val>)> {
        let nm = d.field("declarator")?;
        if nm.kind_name() != "identifier" {
            return None;
        }
        let name = self.t(nm).to_string();
        let pl = d.field("parameters")?;
        let mut c = pl.walk();
        let params: Vec<Node<'t>> = pl.named_children(&mut c).collect();
        let mut args = vec![];
        for p in params {
            if p.kind_name() != "parameter_declaration" || p.field("declarator").is_some() {
                return None;
            }
            let t = p
                .field("type")
                .map(|t| self.t(t).trim().to_string())
                .unwrap_or_default();
            let v = match t.as_str() {
                "true" => Val::konst(1),
                "false" => Val::konst(0),
                x if parse_int(x).is_some() => Val::konst(parse_int(x).unwrap_or(0)),
                x if self.is_local(x)
                    || self.prog.globals.contains_key(x)
                    || self.member(x).is_some() =>
                {
                    let k = self.var_key(x);
                    let mut v = self.env_read(&k);
                    if !self.is_local(x) {
                        if let Some((objs, root)) = self.global_state(x) {
                            v.objs.extend(objs);
                            v.root |= root;
                        }
                    }
                    v
                }
                _ => return None,
            };
            args.push(v);
        }
        Some((name, args))
    }

    fn init_list(&mut self, key: &str, tr: &TypeRef, list: Node<'t>) {
        let fields: Vec<String> = self
            .prog
            .structs
            .get(self.prog.resolve_type(&tr.name))
            .map(|d| d.fields.iter().map(|f| f.0.clone()).collect())
            .unwrap_or_default();
        let mut c = list.walk();
        let items: Vec<Node<'t>> = list.named_children(&mut c).collect();
        for (i, it) in items.into_iter().enumerate() {
            if it.kind_name() == "initializer_pair" {
                let designator = it
                    .field("designator")
                    .map(|d| self.t(d).trim_start_matches('.').to_string());
                if let (Some(dn), Some(v)) = (designator, it.field("value")) {
                    let val = self.expr(v);
                    let mk = format!("{key}.{dn}");
                    self.narrow_define(&mk, &val);
                    self.env_join(&mk, &val);
                }
            } else {
                let val = self.expr(it);
                match fields.get(i) {
                    Some(f) => {
                        let mk = format!("{key}.{f}");
                        self.narrow_define(&mk, &val);
                        self.env_join(&mk, &val)
                    }
                    None => {
                        if let Some(nw) = self.narrowing.as_deref_mut() {
                            nw.forget(key);
                        }
                        self.env_join(key, &val)
                    }
                }
            }
        }
    }

    fn frame_to_hdr_off(&self, frame_off: i64, h: Hdr) -> Option<i64> {
        match (h, frame_off) {
            (Hdr::Eth, o) => Some(o),
            (Hdr::Ip4, 14) | (Hdr::Ip6, 14) | (Hdr::L4, 34) => Some(0),
            (_, 0) => Some(0),
            _ => Some(0),
        }
    }

    // ------------------------------------------------------------ names, paths

    fn is_local(&self, name: &str) -> bool {
        let f = self.f();
        f.locals.contains_key(name) || f.params.iter().any(|p| p.name == name)
    }

    /// A local of the packet entry's own body that its receive loop
    /// carries from packet to packet: a struct declared at the function's
    /// top level (outside the loop) of an entry whose body receives
    /// packets (`struct ethtab table; ... while (...) { packet_get(...);
    /// process(&table, &pkt); }`). It lives as long as the loop, as a
    /// static would, so what the packet path records in it is state. A
    /// packet descriptor, a pointer or a scalar (a cursor into a burst, a
    /// timestamp) is no table.
    fn loop_carried_local(&mut self, name: &str) -> bool {
        if self.call_string.len() != 1 || self.kind != FnKind::Packet {
            return false;
        }
        let fi = self.fn_idx;
        let set = match self.carried_locals.get(&fi) {
            Some(s) => Rc::clone(s),
            None => {
                let s = Rc::new(self.compute_carried_locals());
                self.carried_locals.insert(fi, Rc::clone(&s));
                s
            }
        };
        set.contains(name)
    }

    fn compute_carried_locals(&self) -> BTreeSet<String> {
        let f = self.f();
        let Some(body) = f.body else {
            return BTreeSet::new();
        };
        let mut c = body.walk();
        let kids: Vec<Node<'t>> = body.named_children(&mut c).collect();
        // The entry loops over packets it obtains itself: a statement of
        // its body receives them, or, taking no packet as a parameter, its
        // body is a loop (a capture loop: `while (!exit) { get(&pkt);
        // process(&table, &pkt); }`). An entry handed one packet per call
        // (an XDP program, a DPDK per-packet function) carries nothing.
        let loops = || {
            kids.iter().any(|k| {
                matches!(
                    k.kind_name(),
                    "while_statement" | "for_statement" | "do_statement"
                )
            })
        };
        let handed_packet = f.params.iter().any(|p| is_descriptor_type(&p.ty.name));
        if !kids
            .iter()
            .any(|k| super::adapters::calls_receive(self.prog, f, *k))
            && (handed_packet || !loops())
        {
            return BTreeSet::new();
        }
        // Locals handed by address to code whose body is not visible (a
        // capture handle, the buffer a packet is received into) are that
        // code's business, not tables the NF keeps.
        let mut handed_unseen: BTreeSet<&str> = BTreeSet::new();
        let mut cur = body.walk();
        let mut stack = vec![body];
        while let Some(x) = stack.pop() {
            if x.kind_name() == "call_expression" {
                let callee = x.field("function").map(|c| self.t(c)).unwrap_or("");
                let unseen = !self.prog.has_body(callee);
                if unseen {
                    if let Some(args) = x.field("arguments") {
                        let mut ac = args.walk();
                        for a in args.named_children(&mut ac) {
                            if let Some(v) = address_of(a).filter(|v| v.kind_name() == "identifier")
                            {
                                handed_unseen.insert(self.t(v));
                            }
                        }
                    }
                }
            }
            cur.reset(x);
            for ch in x.named_children(&mut cur) {
                stack.push(ch);
            }
        }
        let mut out = BTreeSet::new();
        for k in kids.iter().filter(|k| k.kind_name() == "declaration") {
            let mut dc = k.walk();
            for d in k.children_by_field_name("declarator", &mut dc) {
                let d = if d.kind_name() == "init_declarator" {
                    d.field("declarator").unwrap_or(d)
                } else {
                    d
                };
                if d.kind_name() != "identifier" {
                    continue;
                }
                let name = self.t(d);
                if handed_unseen.contains(name) {
                    continue;
                }
                let Some(l) = f.locals.get(name) else {
                    continue;
                };
                let resolved = self.prog.resolve_type(&l.ty.name);
                // A struct the code defines (whatever its name says: a
                // `portlist` is the NF's own table).
                let table = l.ty.ptr == 0
                    && l.ty.dims.is_empty()
                    && !is_descriptor_type(&l.ty.name)
                    && self
                        .prog
                        .structs
                        .get(resolved)
                        .is_some_and(|s| !s.fields.is_empty());
                if table {
                    out.insert(name.to_string());
                }
            }
        }
        out
    }

    /// Borrowed from the program: types are asked for at every member
    /// read and call argument, and a copy of each cost an allocation.
    fn var_type(&self, name: &str) -> Option<&'p TypeRef> {
        let f = self.f();
        if let Some(p) = f.params.iter().find(|p| p.name == name) {
            return Some(&p.ty);
        }
        if let Some(l) = f.locals.get(name) {
            return Some(&l.ty);
        }
        if let Some(g) = self.prog.globals.get(name) {
            return Some(&g.ty);
        }
        self.member(name).map(|m| &m.ty)
    }

    fn member(&self, name: &str) -> Option<&'p super::program::VarDecl> {
        let f = self.f();
        if let Some(cl) = &f.class {
            if let Some(m) = self
                .prog
                .classes
                .get(cl)
                .and_then(|c| c.members.iter().find(|m| m.name == name))
            {
                return Some(m);
            }
        }
        None
    }

    fn var_key(&self, name: &str) -> String {
        if self.is_local(name) {
            [self.scope.as_str(), "|", name].concat()
        } else {
            ["g|", name].concat()
        }
    }

    /// The env key of an lvalue-ish expression.
    fn path_key(&self, n: Node<'t>) -> Option<String> {
        match n.kind_name() {
            "identifier" => Some(self.var_key(self.t(n))),
            "this" => Some("g|this".into()),
            "field_expression" => {
                let base = n.field("argument")?;
                let field = n.field("field")?;
                let fname = self.t(field);
                if base.kind_name() == "this" {
                    return Some(["g|", fname].concat());
                }
                let mut k = self.path_key(base)?;
                k.push('.');
                k.push_str(fname);
                Some(k)
            }
            "subscript_expression" => {
                let base = n.field("argument")?;
                let mut k = self.path_key(base)?;
                k.push_str(".[]");
                Some(k)
            }
            "pointer_expression" => {
                let arg = n.field("argument")?;
                self.path_key(arg)
            }
            "parenthesized_expression" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).next()?;
                self.path_key(inner)
            }
            "cast_expression" => self.path_key(n.field("value")?),
            _ => None,
        }
    }

    /// Copy the members below `from` to `to` (a struct assignment, an
    /// argument bound to a parameter); `certain` when the copy surely
    /// happens (else it is a callee's possible store).
    fn copy_members(&mut self, from: &str, to: &str, certain: bool) {
        // Members that did not change since the last copy from `from` to
        // `to` are already joined there (the environment only grows); the
        // flow-sensitive pass still defines every member anew.
        let since = match self.copied.get_mut(from).and_then(|m| m.get_mut(to)) {
            Some(at) => std::mem::replace(at, self.env_changes),
            None => {
                self.copied
                    .entry(from.to_string())
                    .or_default()
                    .insert(to.to_string(), self.env_changes);
                0
            }
        };
        let narrowing = self.narrowing.is_some();
        self.log_members_read(from);
        if !narrowing && since != 0 && self.members_changed_at(from) <= since {
            return;
        }
        let lo = [from, "."].concat();
        let hi = [from, "/"].concat();
        // Owned: the joins below need the environment mutably.
        let mut items: Vec<(Rc<str>, Val, bool)> = self
            .env
            .range(&lo, &hi)
            .filter_map(|(k, s)| {
                let changed = since == 0 || s.changed_at > since;
                (changed || narrowing).then(|| (Rc::clone(k), s.val.clone(), changed))
            })
            .collect();
        // The second pass narrows each member as read from `from` and
        // defines it in `to`, in key order; the environment's joins below
        // read no definitions, so they follow.
        if let Some(nw) = self.narrowing.as_deref_mut() {
            nw.copy_members(from, to, &mut items, certain);
        }
        let mut tk = String::with_capacity(to.len() + 16);
        for (key, v, changed) in items {
            if changed {
                tk.clear();
                tk.push_str(to);
                tk.push_str(&key[from.len()..]);
                self.env_join(&tk, &v);
            }
        }
    }

    /// The second pass: `key` (a local path) now holds `v`.
    fn narrow_define(&mut self, key: &str, v: &Val) {
        if let Some(nw) = self.narrowing.as_deref_mut() {
            if is_constant_like(v) {
                nw.forget(key);
            } else {
                let state = !v.objs.is_empty() || v.root;
                if !state && (v.hdr.is_some() || v.descriptor) {
                    // A pointer to the packet locates no state: on this
                    // path it puts no bound on the key of what the same
                    // local points to on another (`if (done) m = stored;`).
                    nw.define_unbounded(key);
                } else {
                    nw.define(key, narrowing::val_mask(v), state);
                }
            }
        }
    }

    /// An lvalue that names a local variable or a member of one (`k`,
    /// `k.src`, `&k.src`), not storage reached through a pointer or an
    /// array element: an assignment to it replaces what it held.
    fn is_direct_local(&self, n: Node<'t>) -> bool {
        let n = strip(n);
        match n.kind_name() {
            "identifier" => self.is_local(self.t(n)),
            "field_expression" => {
                n.field("operator").is_some_and(|o| self.t(o) == ".")
                    && n.field("argument").is_some_and(|a| self.is_direct_local(a))
            }
            "pointer_expression" => {
                n.field("operator").is_some_and(|o| self.t(o) == "&")
                    && n.field("argument").is_some_and(|a| self.is_direct_local(a))
            }
            _ => false,
        }
    }

    /// State reference of an access path: (objects, suffix below the object).
    fn state_ref(&mut self, n: Node<'t>) -> Option<(BTreeSet<String>, String, Val, bool)> {
        self.state_ref_parts(n)
            .map(|(objs, suffix, key, root, _)| (objs, suffix, key, root))
    }

    /// [`Self::state_ref`], and whether the path designates the objects'
    /// top storage (see [`Val::direct`]): a member taken there is a part of
    /// the object, `obj.member`, as [`Self::member_objs`] names it on reads.
    fn state_ref_parts(
        &mut self,
        n: Node<'t>,
    ) -> Option<(BTreeSet<String>, String, Val, bool, bool)> {
        self.state_ref_parts_given(n, None)
    }

    /// [`Self::state_ref_parts`] of a member expression whose base the
    /// caller has just evaluated (`base_val`): the base is not evaluated
    /// again. A member read evaluates its base and then resolves its own
    /// path; evaluating the base twice at every level of `a->b->c` made a
    /// chain of n members cost about 2^n evaluations.
    fn state_ref_parts_given(
        &mut self,
        n: Node<'t>,
        base_val: Option<&Val>,
    ) -> Option<(BTreeSet<String>, String, Val, bool, bool)> {
        match n.kind_name() {
            "identifier" => {
                let name = self.t(n).to_string();
                if self.is_local(&name) {
                    if self.loop_carried_local(&name) {
                        let objs = [name].into_iter().collect();
                        return Some((objs, String::new(), Val::default(), false, true));
                    }
                    return None;
                }
                self.global_state(&name).map(|(objs, root)| {
                    if root {
                        (BTreeSet::new(), String::new(), Val::default(), true, false)
                    } else {
                        let storage =
                            self.storage_global(&name) || self.struct_pointer_global(&name);
                        (objs, String::new(), Val::default(), false, storage)
                    }
                })
            }
            "field_expression" => {
                let base = n.field("argument")?;
                let fname = self.t(n.field("field")?).to_string();
                let arrow = n
                    .field("operator")
                    .map(|o| self.t(o) == "->")
                    .unwrap_or(false)
                    || self.t(n).contains("->");
                if base.kind_name() == "this" {
                    return self.global_state(&fname).map(|(objs, root)| {
                        if root {
                            (BTreeSet::new(), String::new(), Val::default(), true, false)
                        } else {
                            (objs, String::new(), Val::default(), false, false)
                        }
                    });
                }
                if let Some((objs, suffix, key, root, direct)) = self.state_ref_parts(base) {
                    if root {
                        return Some((
                            [fname].into_iter().collect(),
                            String::new(),
                            key,
                            false,
                            false,
                        ));
                    }
                    // The member's type is looked up only where a part can be.
                    let kind = if direct {
                        self.designated_member_kind(&objs, n)
                    } else {
                        MemberKind::Field
                    };
                    if direct && objs.iter().all(|o| kind.makes_part_of(o)) {
                        let parts = objs.iter().map(|o| format!("{o}.{fname}")).collect();
                        let designated = kind == MemberKind::Aggregate;
                        return Some((parts, String::new(), key, false, designated));
                    }
                    return Some((objs, format!("{suffix}.{fname}"), key, false, false));
                }
                // Through a pointer (or reference) value that points into state.
                let bv = match base_val {
                    Some(v) => std::borrow::Cow::Borrowed(v),
                    None => std::borrow::Cow::Owned(self.expr_quiet(base)),
                };
                if bv.root {
                    return Some((
                        [fname].into_iter().collect(),
                        String::new(),
                        Val::default(),
                        false,
                        false,
                    ));
                }
                if !bv.objs.is_empty() && (arrow || self.is_ref_or_ptr(base)) {
                    let kind = self.member_kind_if_designated(&bv, n);
                    let (objs, refined) = Self::member_objs(&bv, &fname, kind);
                    let objs = objs.into_set();
                    let suffix = if refined {
                        String::new()
                    } else {
                        format!(".{fname}")
                    };
                    let designated = refined && kind == MemberKind::Aggregate;
                    return Some((objs, suffix, bv.taint(), false, designated));
                }
                None
            }
            "subscript_expression" => {
                let base = n.field("argument")?;
                let idx = self.subscript_index(n);
                let iv = idx.map(|i| self.expr_quiet(i)).unwrap_or_default();
                // As in `subscript`: an element located by packet data is
                // an entry, not a container of parts.
                let part_holder = |e: &Self, designated: bool| {
                    designated && !iv.keyed() && e.element_is_storage(base)
                };
                if let Some((objs, suffix, mut key, root, direct)) = self.state_ref_parts(base) {
                    if root {
                        return None;
                    }
                    key.join(&iv.taint());
                    let direct = part_holder(self, direct);
                    return Some((objs, format!("{suffix}[]"), key, false, direct));
                }
                let bv = match base_val {
                    Some(v) => std::borrow::Cow::Borrowed(v),
                    None => std::borrow::Cow::Owned(self.expr_quiet(base)),
                };
                if !bv.objs.is_empty() {
                    let key = bv.taint().union(&iv.taint());
                    let direct = part_holder(self, bv.designates_all());
                    return Some((BTreeSet::clone(&bv.objs), "[]".into(), key, false, direct));
                }
                None
            }
            "pointer_expression" => {
                let arg = n.field("argument")?;
                let op = n.field("operator").map(|o| self.t(o)).unwrap_or("");
                if op == "&" {
                    return self.state_ref_parts(arg);
                }
                if let Some((objs, suffix, key, root, direct)) = self.state_ref_parts(arg) {
                    if !root {
                        let direct = direct && self.element_is_storage(arg);
                        return Some((objs, format!("{suffix}[]"), key, false, direct));
                    }
                }
                let bv = match base_val {
                    Some(v) => std::borrow::Cow::Borrowed(v),
                    None => std::borrow::Cow::Owned(self.expr_quiet(arg)),
                };
                if !bv.objs.is_empty() {
                    let direct = bv.designates_all() && self.element_is_storage(arg);
                    return Some((
                        BTreeSet::clone(&bv.objs),
                        "[]".into(),
                        bv.taint(),
                        false,
                        direct,
                    ));
                }
                None
            }
            "parenthesized_expression" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).next()?;
                self.state_ref_parts(inner)
            }
            "cast_expression" => self.state_ref_parts(n.field("value")?),
            _ => None,
        }
    }

    /// Does the statement `n` subscript something with `name`?
    fn indexes_with(&self, n: Node<'t>, name: &str) -> bool {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if x.kind_name() == "subscript_expression"
                && self
                    .subscript_index(x)
                    .is_some_and(|i| has_word(self.t(i), name))
            {
                return true;
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        false
    }

    fn is_ref_or_ptr(&self, n: Node<'t>) -> bool {
        if n.kind_name() == "identifier" {
            return self
                .var_type(self.t(n))
                .map(|t| t.is_pointerish() || t.name == "auto" || t.name.contains("iterator"))
                .unwrap_or(true);
        }
        true
    }

    /// Is a global / class member a state candidate; (objects, is_container).
    fn global_state(&self, name: &str) -> Option<(BTreeSet<String>, bool)> {
        let decl = self
            .prog
            .globals
            .get(name)
            .or_else(|| self.member(name))
            .or_else(|| {
                // Members of any class, for a method defined out of line in
                // another file. Outside a method a bare name is no member:
                // in C a struct member's name only appears bare as an
                // argument of a macro whose header was not found
                // (`list_for_each_entry(e, head, glist)` names the link
                // member `glist`), and it designates no storage.
                self.f().class.as_ref()?;
                self.prog
                    .classes
                    .values()
                    .flat_map(|c| c.members.iter())
                    .find(|m| m.name == name)
            })?;
        if decl.thread_local || (decl.is_const && decl.ty.ptr == 0) {
            return None;
        }
        let resolved = self.prog.resolve_type(&decl.ty.name);
        // A struct of data members is a container whose members are the
        // objects; a struct with no data members (a BPF map definition made
        // of `__uint(...)` / `__type(...)` macros) is itself one object.
        let is_struct = decl.ty.ptr == 0
            && decl.ty.dims.is_empty()
            && self
                .prog
                .structs
                .get(resolved)
                .is_some_and(|d| !d.fields.is_empty());
        if is_struct && !is_container_type(resolved) && self.prog.bpf_map_type(resolved).is_none() {
            return Some((BTreeSet::new(), true));
        }
        Some(([name.to_string()].into_iter().collect(), false))
    }

    /// A global whose name designates the object's own storage (an array
    /// or a struct, not a pointer to elsewhere, not a container type whose
    /// members are its implementation): members taken there are parts of
    /// the object (see [`Val::direct`]).
    /// `name` is not a local (the callers have looked).
    fn storage_global(&self, name: &str) -> bool {
        self.prog.globals.get(name).is_some_and(|g| {
            g.ty.ptr == 0 && {
                let resolved = self.prog.resolve_type(&g.ty.name);
                !is_container_type(resolved) && self.prog.bpf_map_type(resolved).is_none()
            }
        })
    }

    /// A global pointer to one struct (the NF's state block, set up at
    /// init: `static struct State *state`): its pointer members reach
    /// tables of their own, as a global struct's do.
    fn struct_pointer_global(&self, name: &str) -> bool {
        !self.is_local(name)
            && self.prog.globals.get(name).is_some_and(|g| {
                let resolved = self.prog.resolve_type(&g.ty.name);
                g.ty.ptr == 1
                    && g.ty.dims.is_empty()
                    && !is_container_type(resolved)
                    && self.prog.bpf_map_type(resolved).is_none()
                    && self
                        .prog
                        .structs
                        .get(resolved)
                        .is_some_and(|d| !d.fields.is_empty())
            })
    }

    /// The element `base[i]` (or `*base`) is storage (a struct or an array),
    /// not a pointer loaded from it; unknown types say no.
    fn element_is_storage(&self, base: Node<'t>) -> bool {
        self.static_type(base).is_some_and(|t| match t.dims.len() {
            0 => t.ptr == 1,
            1 => t.ptr == 0,
            _ => true,
        })
    }

    /// What the member `n` (a field expression) holds: an aggregate (an
    /// array or a struct held in place: a table or a buffer of its own
    /// inside the object), a pointer (to storage of its own: a table the
    /// object refers to), or a scalar field of an entry (or a type the
    /// analysis does not know).
    fn member_kind(&self, n: Node<'t>) -> MemberKind {
        let Some(t) = self.static_type(n) else {
            return MemberKind::Field;
        };
        if !t.dims.is_empty() {
            return MemberKind::Aggregate;
        }
        if t.ptr > 0 {
            return MemberKind::Pointer;
        }
        let resolved = self.prog.resolve_type(&t.name);
        if self
            .prog
            .structs
            .get(resolved)
            .is_some_and(|d| !d.fields.is_empty())
        {
            MemberKind::Aggregate
        } else {
            MemberKind::Field
        }
    }

    /// [`Self::member_kind`] where `bv` designates an object's top storage
    /// (only there can a member be a part); a field elsewhere, without
    /// looking the type up (this runs for every member access into state).
    fn member_kind_if_designated(&self, bv: &Val, n: Node<'t>) -> MemberKind {
        if bv.direct.is_empty() {
            MemberKind::Field
        } else {
            self.designated_member_kind(&bv.direct, n)
        }
    }

    /// [`Self::member_kind`] of a member of designated storage. Through a
    /// global pointer to the NF's state block only what pointer members
    /// reach is a table of its own; the block's arrays and structs stay in
    /// it (a transmit buffer's `pkts[]` is that buffer).
    fn designated_member_kind(&self, objs: &BTreeSet<String>, n: Node<'t>) -> MemberKind {
        let kind = self.member_kind(n);
        if kind == MemberKind::Aggregate && objs.iter().any(|o| self.struct_pointer_global(o)) {
            MemberKind::Field
        } else {
            kind
        }
    }

    /// The objects a member `fname` of `bv` belongs to, and whether they
    /// are parts of `bv`'s objects. When `bv` designates the top storage of
    /// every object it points into, an aggregate or pointer member is a
    /// part tracked on its own, `obj.fname` (an aggregate's storage is
    /// designated again, so its own members can be parts in turn; what a
    /// pointer member points to is storage of its own, reached through it).
    /// A scalar field of an entry, and storage reached through a pointer
    /// loaded from the objects, belong to the objects themselves.
    fn member_objs(bv: &Val, fname: &str, kind: MemberKind) -> (NameSet, bool) {
        if bv.designates_all() && bv.objs.iter().all(|o| kind.makes_part_of(o)) {
            let refined = bv.objs.iter().map(|o| format!("{o}.{fname}")).collect();
            (refined, true)
        } else {
            // The base's own set, shared (a member read of an entry is the
            // commonest read of state).
            (bv.objs.clone(), false)
        }
    }

    fn subscript_index(&self, n: Node<'t>) -> Option<Node<'t>> {
        if let Some(i) = n.field("index") {
            return Some(i);
        }
        let il = n.field("indices")?;
        let mut c = il.walk();
        let x = il.named_children(&mut c).next();
        x
    }

    // ------------------------------------------------------------ expressions

    /// Evaluate without recording events (used while resolving paths).
    fn expr_quiet(&mut self, n: Node<'t>) -> Val {
        let saved = self.collect;
        self.collect = false;
        let v = self.expr(n);
        self.collect = saved;
        v
    }

    /// How many times the value of `n` can be dereferenced (pointer levels
    /// plus array dimensions), when the declarations say.
    fn pointer_depth(&self, n: Node<'t>) -> Option<i64> {
        match n.kind_name() {
            "identifier" | "field_expression" => self.static_type(n).and_then(|t| {
                if t.reference {
                    return None;
                }
                Some(i64::from(t.ptr) + t.dims.len() as i64)
            }),
            "subscript_expression" => Some(self.pointer_depth(n.field("argument")?)? - 1),
            "pointer_expression" => {
                let arg = n.field("argument")?;
                let op = n.field("operator").map(|o| self.t(o))?;
                let d = self.pointer_depth(arg)?;
                Some(if op == "&" { d + 1 } else { d - 1 })
            }
            "parenthesized_expression" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).next()?;
                self.pointer_depth(inner)
            }
            "cast_expression" => {
                let ty = n.field("type")?;
                Some(self.t(ty).matches('*').count() as i64)
            }
            _ => None,
        }
    }

    /// Is `n` in a branch a build without `-D` flags drops: the body of
    /// an `#ifdef X` no analysed file defines, or the `#else` of one that
    /// is (see [`super::preprocess::ifdef_keeps_body`])? Such code is
    /// dropped unless the build passes `-DX` (debug switches).
    fn in_inactive_ifdef(&self, n: Node<'t>) -> bool {
        let mut cur = n;
        while let Some(p) = cur.parent() {
            if p.kind_name() == "preproc_ifdef"
                && p.field("name").is_some_and(|nm| nm.id() != cur.id())
            {
                let in_else = p
                    .field("alternative")
                    .is_some_and(|alt| alt.id() == cur.id());
                if self.prog.ifdef_keeps_body(self.file(), p) == Some(in_else) {
                    return true;
                }
            }
            cur = p;
        }
        false
    }

    /// The read a cursor's new value is computed from: `e->next`, or the
    /// member address an entry is recovered from (`(char *)(e->hh.next) -
    /// tbl->hho`, uthash's `ELMT_FROM_HH`; `container_of`).
    fn link_read(&self, n: Node<'t>) -> Node<'t> {
        let mut s = strip(n);
        // `(__typeof(e))(x)`, which the preprocessor spells
        // `(__auto_type)(x)` (uthash's `DECLTYPE`), parses as a call of a
        // parenthesised name: it is a cast.
        while s.kind_name() == "call_expression"
            && s.field("function")
                .is_some_and(|f| self.t(f) == "(__auto_type)")
        {
            let Some(arg) = s
                .field("arguments")
                .filter(|a| a.named_child_count() == 1)
                .and_then(|a| a.named_child(0))
            else {
                break;
            };
            s = strip(arg);
        }
        if s.kind_name() == "binary_expression"
            && s.field("operator")
                .is_some_and(|o| matches!(o.kind_name(), "+" | "-"))
        {
            if let Some(l) = s.field("left") {
                return strip(l);
            }
        }
        s
    }

    /// The base an lvalue writes through (`b` of `b->f`, `b[i]`, `*b`)
    /// and its value, evaluated quietly.
    fn lvalue_base(&mut self, left: Node<'t>) -> Option<(Node<'t>, Val)> {
        let l = strip(left);
        let base = match l.kind_name() {
            "field_expression" | "subscript_expression" => l.field("argument"),
            "pointer_expression" => l.field("argument"),
            _ => None,
        };
        base.map(|b| (b, self.expr_quiet(b)))
    }

    /// Is an lvalue with this base value (see [`Self::lvalue_base`]) packet
    /// memory (a header member or frame bytes)?
    fn writes_packet(bv: &Val) -> bool {
        bv.hdr.is_some() && bv.objs.is_empty() && !bv.root
    }

    /// An `if` whose branches only store into the state its condition read
    /// (`if (t->max < len) t->max = len;`, a running maximum): the test
    /// keeps an aggregate up to date and decides nothing else, so copies
    /// of the state on several cores, merged as such aggregates are, behave
    /// as one. Any other statement (a call, a store elsewhere, a return)
    /// may act on the packet.
    fn updates_only_what_it_tests(&mut self, n: Node<'t>, cond: &Val) -> bool {
        let tested: BTreeSet<&str> = cond
            .objs
            .iter()
            .chain(cond.from.iter())
            .map(|o| super::summarise::whole_object(o))
            .collect();
        if tested.is_empty() {
            return false;
        }
        let mut stores = vec![];
        let mut stack: Vec<Node<'t>> = ["consequence", "alternative"]
            .iter()
            .filter_map(|f| n.field(f))
            .collect();
        while let Some(x) = stack.pop() {
            match x.kind_name() {
                "compound_statement" | "else_clause" => {
                    let mut c = x.walk();
                    stack.extend(
                        x.named_children(&mut c)
                            .filter(|k| k.kind_name() != "comment"),
                    );
                }
                "expression_statement" => {
                    let Some(e) = x.named_child(0).map(strip) else {
                        return false;
                    };
                    let target = match e.kind_name() {
                        "assignment_expression" => e.field("left"),
                        "update_expression" => e.field("argument"),
                        _ => None,
                    };
                    let Some(t) = target else {
                        return false;
                    };
                    // The stored value may not call out (a store of a call's
                    // result acts through the call).
                    if e.field("right").is_some_and(|r| contains_call(r)) {
                        return false;
                    }
                    stores.push(t);
                }
                _ => return false,
            }
        }
        !stores.is_empty()
            && stores.into_iter().all(|t| {
                self.state_ref_quiet(t).is_some_and(|(objs, _, _, root)| {
                    !root
                        && !objs.is_empty()
                        && objs
                            .iter()
                            .all(|o| tested.contains(super::summarise::whole_object(o)))
                })
            })
    }

    /// Note that the state objects `v` was read from steer the packet path.
    fn note_influence(
        &mut self,
        v: &Val,
        except: &BTreeSet<String>,
        n: Node<'t>,
        how: &'static str,
    ) {
        if !self.collect || self.kind != FnKind::Packet {
            return;
        }
        let sources: BTreeSet<&String> = v.objs.iter().chain(v.from.iter()).collect();
        for o in sources.into_iter().filter(|o| !except.contains(*o)) {
            self.events.influences.push(Influence {
                obj: o.clone(),
                file: self.file(),
                line: Self::line(n),
                how,
            });
        }
    }

    fn record_access(
        &mut self,
        objs: &BTreeSet<String>,
        key: &Val,
        write: bool,
        insertish: bool,
        n: Node<'t>,
    ) {
        if !self.collect {
            return;
        }
        let guarded = self.guard || self.insert_depth > 0;
        let what = self
            .t(n)
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(80)
            .collect::<String>();
        for o in objs {
            self.events.accesses.push(Access {
                obj: o.clone(),
                key: key.fields.to_set(),
                may_key: key.fields.to_set(),
                scope: self.scope.clone(),
                opaque: key.opaque,
                alternatives: key.alternatives && key.fields.is_empty(),
                handed: key.handed,
                link: self.storing_link && write,
                stores_packet: self.storing_packet && write,
                stores_descriptor: self.storing_received_descriptor && write,
                self_derived: self.storing_self_derived && write,
                // Kept for keyed accesses too: on some path the slot may
                // come from the cursor alone (see `narrowing`).
                alloc_from: key
                    .from
                    .iter()
                    .filter(|f| *f != o && *f != RUNNING_CORE)
                    .cloned()
                    .collect(),
                per_core: !key.keyed() && key.from.contains(RUNNING_CORE),
                mixed: key.mixed,
                write,
                insertish: insertish || self.insert_depth > 0,
                guarded,
                kind: self.kind,
                file: self.file(),
                line: Self::line(n),
                what: what.clone(),
            });
        }
    }

    pub fn expr(&mut self, n: Node<'t>) -> Val {
        if self.nesting > MAX_NESTING || self.out_of_budget() {
            return Val::default();
        }
        self.nesting += 1;
        let v = self.expr_inner(n);
        self.nesting -= 1;
        v
    }

    fn expr_inner(&mut self, n: Node<'t>) -> Val {
        match n.kind_name() {
            "number_literal" => parse_int(self.t(n)).map(Val::konst).unwrap_or_default(),
            "char_literal"
            | "string_literal"
            | "true"
            | "false"
            | "null"
            | "nullptr"
            | "concatenated_string" => Val::default(),
            "sizeof_expression" | "alignof_expression" => {
                let v = n
                    .field("type")
                    .map(|t| {
                        let tt = self.t(t);
                        let tr = TypeRef {
                            name: norm_type(tt.trim_end_matches('*')),
                            ptr: tt.matches('*').count() as u8,
                            ..Default::default()
                        };
                        self.prog.sizeof(&tr).map(|x| x.0 as i64)
                    })
                    .unwrap_or(None);
                v.map(Val::konst).unwrap_or_default()
            }
            "identifier" => {
                let name = self.t(n).to_string();
                if !self.is_local(&name) {
                    if let Some(k) = self.prog.consts.get(&name) {
                        return Val::konst(*k);
                    }
                }
                let key = self.var_key(&name);
                let mut v = self.env_read(&key);
                if self.is_local(&name) && self.loop_carried_local(&name) {
                    v.objs.insert(name.clone());
                    v.direct.insert(name.clone());
                }
                if !self.is_local(&name) {
                    if let Some((objs, root)) = self.global_state(&name) {
                        if !root
                            && (self.storage_global(&name) || self.struct_pointer_global(&name))
                        {
                            v.direct.extend(objs.iter().cloned());
                        }
                        v.objs.extend(objs);
                        v.root |= root;
                    }
                }
                v
            }
            "this" => Val::default(),
            "qualified_identifier" => {
                let name = self.t(n).rsplit("::").next().unwrap_or("").to_string();
                self.prog
                    .consts
                    .get(&name)
                    .map(|k| Val::konst(*k))
                    .unwrap_or_default()
            }
            "parenthesized_expression" => {
                let mut c = n.walk();
                let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
                kids.into_iter().fold(Val::default(), |acc, k| {
                    let v = self.expr(k);
                    if acc == Val::default() {
                        v
                    } else {
                        acc.union(&v)
                    }
                })
            }
            "comma_expression" => {
                let l = n.field("left").map(|x| self.expr(x));
                let _ = l;
                n.field("right").map(|x| self.expr(x)).unwrap_or_default()
            }
            "cast_expression" => self.cast(n),
            "field_expression" => self.field_expr(n),
            "subscript_expression" => self.subscript(n),
            "pointer_expression" => {
                let Some(arg) = n.field("argument") else {
                    return Val::default();
                };
                let op = n.field("operator").map(|o| self.t(o)).unwrap_or("");
                if op == "&" {
                    if let Some(v) = self.member_address(arg) {
                        return v;
                    }
                    if let Some(v) = self.packet_element_address(arg) {
                        return v;
                    }
                    return self.expr(arg);
                }
                let pv = self.expr(arg);
                // `*tcph` of a `struct tcphdr **` an accessor filled in
                // (`*tcph = (struct tcphdr *) l4;`): what is read is the
                // header pointer, not bytes of the header.
                if pv.hdr.is_some()
                    && pv.objs.is_empty()
                    && self.pointer_depth(n).is_some_and(|d| d >= 1)
                {
                    return pv;
                }
                let width = self.elem_width(arg);
                self.deref(&pv, width, n, arg)
            }
            "assignment_expression" => self.assign(n),
            "update_expression" => {
                let Some(arg) = n.field("argument") else {
                    return Val::default();
                };
                let v = self.expr(arg);
                // `x++` stores a value computed from `x` itself.
                let mut stored = Val::default();
                stored.from.extend(v.objs.iter().cloned());
                stored.from.extend(v.from.iter().cloned());
                self.write_target(arg, &stored, None);
                Val { konst: None, ..v }
            }
            "binary_expression" => self.binary(n),
            "unary_expression" => {
                let v = n
                    .field("argument")
                    .map(|a| self.expr(a))
                    .unwrap_or_default();
                let op = n.field("operator").map(|o| self.t(o)).unwrap_or("");
                let konst = v.konst.and_then(|k| match op {
                    "-" => Some(-k),
                    "~" => Some(!k),
                    "!" => Some((k == 0) as i64),
                    _ => None,
                });
                let mut out = Val {
                    konst,
                    hdr: None,
                    off: None,
                    ..v.taint()
                };
                if op == "!" {
                    // `!entry` asks whether there is one, not what it holds.
                    out.from.clear();
                }
                out
            }
            "conditional_expression" => {
                let cond = n.field("condition");
                if let Some(c) = cond {
                    let v = self.expr(c);
                    self.note_influence(&v, &BTreeSet::new(), c, "a branch condition");
                }
                let a = n
                    .field("consequence")
                    .map(|x| self.expr(x))
                    .unwrap_or_default();
                let b = n
                    .field("alternative")
                    .map(|x| self.expr(x))
                    .unwrap_or_default();
                let mixed = a.fields.iter().any(|f| {
                    *f != f.mirror()
                        && b.fields.contains(&f.mirror())
                        && !a.fields.contains(&f.mirror())
                }) && cond.is_none_or(|c| !self.tests_no_direction(c));
                let mut v = a.union(&b);
                v.mixed |= mixed;
                v
            }
            "call_expression" => self.call(n),
            "new_expression" => {
                let mut v = Val::default();
                if let Some(a) = n.field("arguments") {
                    for x in self.args(a) {
                        v.join(&x.taint());
                    }
                }
                v
            }
            "initializer_list" | "argument_list" => {
                let mut c = n.walk();
                let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
                let mut v = Val::default();
                for k in kids {
                    let x = self.expr(k);
                    v.join(&x.taint());
                }
                v
            }
            "compound_literal_expression" => {
                n.field("value").map(|v| self.expr(v)).unwrap_or_default()
            }
            "lambda_expression" => Val::default(),
            _ => {
                let mut c = n.walk();
                let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
                let mut v = Val::default();
                for k in kids {
                    if k.kind_name().ends_with("expression") || k.kind_name() == "identifier" {
                        let x = self.expr(k);
                        v.join(&x.taint());
                    }
                }
                v
            }
        }
    }

    fn cast(&mut self, n: Node<'t>) -> Val {
        let Some(value) = n.field("value") else {
            return Val::default();
        };
        let mut v = self.expr(value);
        let ty_text = n
            .field("type")
            .map(|t| self.t(t).to_string())
            .unwrap_or_default();
        let ptr = ty_text.matches('*').count();
        let base = norm_type(&ty_text.replace('*', " "));
        if ptr > 0 {
            if let Some(h) = headers::hdr_of_type(&base) {
                if v.hdr.is_some() {
                    let off = match (v.hdr, v.off) {
                        (Some(Hdr::Frame), Some(o)) => self.frame_to_hdr_off(o, h),
                        _ => Some(0),
                    };
                    v.hdr = Some(h);
                    v.off = off;
                }
            }
        } else if v.hdr.is_some() && !is_address_width_int(&base) {
            // A pointer cast to a narrower integer (a hash input, a
            // length) loses its packet-ness; cast to an address-wide
            // integer (`(void *)(long)ctx->data`, `(uintptr_t)p + off`)
            // it is still the address.
            v.hdr = None;
            v.off = None;
        }
        v
    }

    fn field_expr(&mut self, n: Node<'t>) -> Val {
        let Some(base) = n.field("argument") else {
            return Val::default();
        };
        let Some(field) = n.field("field") else {
            return Val::default();
        };
        let fname = self.t(field).to_string();
        if base.kind_name() == "this" {
            let key = format!("g|{fname}");
            let mut v = self.env_read(&key);
            if let Some((objs, root)) = self.global_state(&fname) {
                v.objs.extend(objs);
                v.root |= root;
            }
            return v;
        }
        let bv = self.expr(base);
        let mut out = Val::default();
        // Header member reads.
        // The same record kept in a struct the descriptor points at
        // (`pkt->from->sll_ifindex`, `skb->dev->ifindex`).
        let in_descriptor_record = || {
            let b = strip(base);
            b.kind_name() == "field_expression"
                && b.field("argument")
                    .and_then(|x| self.static_type(x))
                    .is_some_and(|t| is_packet_type(self.prog.resolve_type(&t.name)))
        };
        // The cheap tests first: this runs for every member read.
        if ((bv.descriptor && bv.hdr.is_some())
            || ((bv.opaque || bv.hdr.is_some()) && in_descriptor_record()))
            && is_arrival_metadata(&fname)
        {
            // The descriptor's record of where and when the packet arrived
            // (input port or interface, receive queue, timestamp, mark) is
            // no packet data: a table indexed by it is per port or per
            // queue, not per flow.
            return Val::default();
        }
        if bv.hdr.is_some() && headers::is_length_member(&fname) {
            // The packet's length (on the wire, captured, of its IP
            // datagram) is a magnitude every flow's packets share: a table
            // indexed by it is a histogram of sizes, not per-flow state,
            // and it names no flow field.
            return Val::default();
        }
        if let Some(h) = bv.hdr {
            match headers::member_field(h, &fname) {
                Some(f) => {
                    out.fields.insert(f);
                }
                // A member the header layout does not name, of a struct laid
                // over the header at a known offset (OVS's
                // `ovs_16aligned_be32 { hi, lo }` over `ip_src`): the bytes
                // it covers say which field. Else packet data, but not a
                // flow field the analysis can name (VLAN id, IP id, input
                // port, length, ...).
                // Not in the raw frame: past Ethernet, which protocol sits
                // at an offset is what a header type says (PTP over L2 is
                // no IPv4).
                None => {
                    let covered = bv.off.filter(|_| h != Hdr::Frame).and_then(|off| {
                        let ty = self.static_type(base)?;
                        let member = self.prog.member_offset(&ty.name, &fname)?;
                        let width = self
                            .prog
                            .field_type(&ty.name, &fname)
                            .and_then(|t| self.prog.sizeof(t))?
                            .0;
                        Some(headers::fields_in(h, off + member as i64, width as i64))
                    });
                    match covered {
                        Some(fs) if !fs.is_empty() => out.fields.extend(fs),
                        _ => out.opaque = true,
                    }
                }
            }
        } else if !bv.fields.is_empty() || bv.objs.is_empty() {
            if let Some(f) = headers::generic_member_field(&fname) {
                if is_from_packet(&bv) {
                    out.fields.insert(f);
                }
            }
        }
        // Framework adapters.
        let base_ty = self
            .static_type(base)
            .map(|t| self.prog.resolve_type(&t.name).to_string())
            .unwrap_or_default();
        if is_state_ctx_field(&base_ty, &fname) {
            out.root = true;
            return out;
        }
        // Classified once: the tests below all ask it.
        let packet_base = is_packet_type(&base_ty);
        if packet_base && matches!(fname.as_str(), "data" | "buf_addr" | "head") {
            return Val::hdr(Hdr::Frame, 0);
        }
        // Any other untyped byte pointer a descriptor holds (OVS's
        // `dp_packet.base_`, nDPI's `payload`) points into the frame, at an
        // offset the code computes: what it is cast to says which header.
        if packet_base
            && self.prog.field_type(&base_ty, &fname).is_some_and(|t| {
                t.ptr == 1
                    && t.dims.is_empty()
                    && (t.name == "void"
                        || headers::scalar_width(self.prog.resolve_type(&t.name)) == Some(1))
            })
        {
            return Val {
                hdr: Some(Hdr::Frame),
                off: None,
                ..Default::default()
            };
        }
        // A descriptor's member typed as a header pointer (nDPI's
        // `packet->iph`) points at that header of this packet.
        if packet_base {
            if let Some(h) = self
                .prog
                .field_type(&base_ty, &fname)
                .filter(|t| t.ptr == 1)
                .and_then(|t| headers::hdr_of_type(&t.name))
            {
                return Val::hdr(h, 0);
            }
        }
        if packet_base && fname == "hash" {
            // mbuf->hash.rss: the NIC's hash over whichever fields the port
            // was configured to hash; the code alone does not name them.
            out.opaque = true;
        }
        // Path value (key structs, decoded-header structs). Members of a
        // pointer into state hold stored data, not the key: skip those.
        // Members of a header pointer are packet bytes: what the NF wrote
        // there (rewrites) does not change which field they are.
        if bv.objs.is_empty() && !bv.root && bv.hdr.is_none() {
            let pv = self
                .path_key(n)
                .map(|k| self.env_read(&k))
                .unwrap_or_default();
            // A pointer variable's value joins the members stored through
            // it (a key struct filled through `k->src`); a member nothing
            // stored is none of its siblings (`e->rate` of an entry whose
            // `port` holds a port).
            let through_pointer_variable = strip(base).kind_name() == "identifier"
                && self.static_type(strip(base)).is_some_and(|t| {
                    t.ptr > 0
                        && t.dims.is_empty()
                        && self
                            .prog
                            .structs
                            .contains_key(self.prog.resolve_type(&t.name))
                });
            if pv == Val::default()
                && bv.hdr.is_none()
                && out.fields.is_empty()
                && !through_pointer_variable
            {
                // A member of a field value (ip->src_address.as_u32): same
                // field; a member of opaque packet data is opaque too.
                out.fields.extend(bv.fields.iter().copied());
                out.mixed |= bv.mixed;
                out.opaque |= bv.opaque;
            }
            out.join(&pv);
        }
        // State: pointer into objects.
        if bv.root {
            out.objs.insert(fname.clone());
            if self.collect {
                // touching a member of the container
            }
        } else if !bv.objs.is_empty() {
            let kind = self.member_kind_if_designated(&bv, n);
            let (objs, refined) = Self::member_objs(&bv, &fname, kind);
            add_missing(&mut out.objs, &objs);
            if refined && kind == MemberKind::Aggregate {
                add_missing(&mut out.direct, &objs);
            }
            out.fields.extend(bv.fields.iter().copied());
            if bv.locates() && self.collect {
                let key = bv.taint();
                self.record_access(&objs, &key, false, false, n);
            }
        }
        // Stored slot values (what was written into the state slot).
        let saved = self.collect;
        self.collect = false;
        let slot = self
            .state_ref_parts_given(n, Some(&bv))
            .map(|(objs, suffix, key, root, _)| (objs, suffix, key, root));
        self.collect = saved;
        // A link (a pointer member: a bucket head, a `next`) holds the entry
        // some earlier packet linked there; the fields that located that
        // entry were that packet's, not this one's. What this packet's
        // fields choose is the slot it reads (the base's fields, above)
        // and the entry a search's match selects.
        let link_slot = self.static_type(n).is_some_and(|t| t.ptr >= 1);
        if let Some((objs, suffix, _, false)) = slot {
            // The slot keys built in one buffer: this runs for every member
            // read of state.
            let mut at = String::new();
            for o in &objs {
                at.clear();
                at.push('@');
                at.push_str(o);
                let whole_len = at.len();
                at.push_str(&suffix);
                if let Some(sv) = self.env_get(&at) {
                    if !link_slot {
                        out.fields.extend(sv.fields.iter().copied());
                    }
                    add_missing(&mut out.objs, &sv.objs);
                    add_missing(&mut out.from, &sv.from);
                }
                if let Some(whole) = self.env_get(&at[..whole_len]) {
                    add_missing(&mut out.from, &whole.from);
                }
            }
        }
        out
    }

    fn state_ref_quiet(&mut self, n: Node<'t>) -> Option<(BTreeSet<String>, String, Val, bool)> {
        let saved = self.collect;
        self.collect = false;
        let r = self.state_ref(n);
        self.collect = saved;
        r
    }

    /// The named children of `n`, remembered per node: every round of the
    /// fixpoint walks the same blocks and argument lists, and a step of the
    /// syntax tree's cursor to a sibling is costly (hidden repetition nodes).
    fn named_kids(&self, n: Node<'t>) -> Rc<[Node<'t>]> {
        if let Some(k) = self.kids.borrow().get(&n.id()) {
            return Rc::clone(k);
        }
        let mut c = n.walk();
        let k: Rc<[Node<'t>]> = n.named_children(&mut c).collect();
        self.kids.borrow_mut().insert(n.id(), Rc::clone(&k));
        k
    }

    /// The declared type of an lvalue-ish expression, by its syntax alone
    /// (within the current function), so remembered per node: member reads
    /// and call arguments ask it on every round of the fixpoint.
    fn static_type(&self, n: Node<'t>) -> Option<&'p TypeRef> {
        let at = (self.fn_idx, n.id());
        if let Some(t) = self.static_types.borrow().get(&at) {
            return *t;
        }
        let t = self.static_type_uncached(n);
        self.static_types.borrow_mut().insert(at, t);
        t
    }

    fn static_type_uncached(&self, n: Node<'t>) -> Option<&'p TypeRef> {
        match n.kind_name() {
            "identifier" => self.var_type(self.t(n)),
            "field_expression" => {
                let bt = self.static_type(n.field("argument")?)?;
                let f = self.t(n.field("field")?);
                self.prog.field_type(&bt.name, f)
            }
            "parenthesized_expression" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).next()?;
                self.static_type(inner)
            }
            "pointer_expression" => self.static_type(n.field("argument")?),
            "subscript_expression" => self.static_type(n.field("argument")?),
            _ => None,
        }
    }

    fn subscript(&mut self, n: Node<'t>) -> Val {
        let Some(base) = n.field("argument") else {
            return Val::default();
        };
        let bv = self.expr(base);
        let iv = self
            .subscript_index(n)
            .map(|i| self.expr(i))
            .unwrap_or_default();
        // An element of an array of packet descriptors (`pkts[i]` of a
        // burst, received or handed in) is a packet descriptor.
        if self
            .static_type(base)
            .is_some_and(|t| is_packet_type(&t.name) && usize::from(t.ptr) + t.dims.len() >= 2)
        {
            return Val {
                hdr: Some(Hdr::Frame),
                off: None,
                descriptor: true,
                ..Default::default()
            };
        }
        let mut out = Val::default();
        if let (Some(h), Some(off), Some(k)) = (bv.hdr, bv.off, iv.konst) {
            let w = self.elem_width(base);
            out.fields.extend(headers::fields_in(h, off + k * w, w));
        }
        if bv.hdr.is_some() && out.fields.is_empty() {
            // Packet bytes the analysis cannot name.
            out.opaque = true;
        }
        out.from.extend(iv.from.iter().cloned());
        out.from.extend(iv.objs.iter().cloned());
        if bv.objs.is_empty() && bv.hdr.is_none() {
            if let Some(k) = self.path_key(n) {
                let pv = self.env_read(&k);
                out.join(&Val {
                    hdr: None,
                    off: None,
                    ..pv
                });
            }
        }
        if !bv.objs.is_empty() && self.collect && self.kind == FnKind::Packet {
            if let Some(i) = self.subscript_index(n) {
                self.note_direction_half(base, &bv, i, n);
            }
        }
        if !bv.objs.is_empty() {
            out.objs.extend(bv.objs.iter().cloned());
            // An element located by packet data is an entry, whose members
            // go together (a transmit buffer and its fill count); one
            // located otherwise (by the core, the queue, a constant) holds
            // tables of its own, each a part (see `Val::direct`).
            if !bv.direct.is_empty() && !iv.keyed() && self.element_is_storage(base) {
                out.direct.extend(bv.direct.iter().cloned());
            }
            let mut key = bv.fields;
            key.extend(iv.fields.iter().copied());
            out.fields.extend(key.iter().copied());
            out.mixed |= iv.mixed || bv.mixed;
            if !key.is_empty() || bv.opaque || iv.opaque || bv.handed {
                let objs = bv.objs.clone();
                let kv = bv.taint().union(&iv.taint());
                self.record_access(&objs, &kv, false, false, n);
            }
        }
        if bv.fields.iter().any(|_| true) && bv.objs.is_empty() {
            out.fields.extend(bv.fields.iter().copied());
        }
        // An element of a table that is no state (a constant CRC table, a
        // local array) depends on the index it was read at.
        if bv.objs.is_empty() && !bv.root && bv.hdr.is_none() {
            out.fields.extend(iv.fields.iter().copied());
            out.opaque |= iv.opaque;
            out.mixed |= iv.mixed;
        }
        out
    }

    /// The packet fields a condition tests: the operands of its
    /// comparisons and connectives (a comparison's own value carries none).
    fn tested_fields(&mut self, c: Node<'t>) -> FieldSet {
        self.tested_taint(c).fields
    }

    /// The packet data a condition tests ([`Self::tested_fields`], and
    /// whether some operand is packet data of no named field).
    fn tested_taint(&mut self, c: Node<'t>) -> Val {
        let c = strip(c);
        if c.kind_name() == "binary_expression" {
            let op = c.field("operator").map(|o| self.t(o)).unwrap_or("");
            if matches!(op, "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||") {
                let mut out = Val::default();
                for side in [c.field("left"), c.field("right")].into_iter().flatten() {
                    out.join(&self.tested_taint(side));
                }
                return out;
            }
        }
        if c.kind_name() == "assignment_expression" {
            return Val::default();
        }
        let saved = self.collect;
        self.collect = false;
        let v = self.expr(c);
        self.collect = saved;
        v.taint()
    }

    /// A condition that tests packet data none of which tells the two
    /// directions apart (`ip->ttl > 64`, a TCP flag, the protocol): the
    /// request and its reply may take either branch, so values it puts in
    /// order (`c ? src : dst` beside `c ? dst : src`) are not ordered the
    /// same way for both (no symmetry). Comparing the pair itself (`src <
    /// dst`), testing one endpoint (`sport == 8080`), or a flag the caller
    /// hands in (the caller's direction) are no such test.
    fn tests_no_direction(&mut self, c: Node<'t>) -> bool {
        let t = self.tested_taint(c);
        (t.opaque || !t.fields.is_empty()) && t.fields.iter().all(|f| *f == f.mirror())
    }

    /// One endpoint of the connection, whichever way the packet goes: the
    /// branches of a test on a directional packet field (`if (sport ==
    /// 8080)`: is the sender the server?) access one object keyed by a
    /// field in one branch and by its mirror in the other (`add(cache,
    /// saddr)` / `add(cache, daddr)`). Both directions of a connection
    /// reach the same entry (symmetric). Accesses `[from, mid)` are the
    /// consequence's, `[mid, ..)` the alternative's.
    fn note_endpoint_choice(&mut self, cond: &FieldSet, from: usize, mid: usize, n: Node<'t>) {
        if !self.collect || self.kind != FnKind::Packet || !cond.iter().any(|f| *f != f.mirror()) {
            return;
        }
        let one_side = |k: &BTreeSet<Field>| {
            !k.is_empty()
                && k.iter()
                    .all(|f| *f != f.mirror() && !k.contains(&f.mirror()))
        };
        let names = |k: &BTreeSet<Field>| k.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ");
        let (file, line) = (self.file(), Self::line(n));
        let acc = &self.events.accesses;
        let mut found: Vec<SymEvidence> = vec![];
        for a in acc[from..mid].iter().filter(|a| one_side(&a.key)) {
            let mirror: BTreeSet<Field> = a.key.iter().map(|f| f.mirror()).collect();
            if acc[mid..].iter().any(|b| b.obj == a.obj && b.key == mirror)
                && !found.iter().any(|e| e.obj == a.obj)
            {
                found.push(SymEvidence {
                    obj: a.obj.clone(),
                    file,
                    line,
                    reason: format!(
                        "`{}` is keyed by one endpoint chosen by a test on the packet's direction: by [{}] if the test holds, by [{}] otherwise",
                        a.obj,
                        names(&a.key),
                        names(&mirror)
                    ),
                });
            }
        }
        self.events.sym.extend(found);
    }

    /// A second entry stored with the roles swapped: one callee is handed,
    /// beside a state object (`link(tbl, c)`, `link(tbl, c->other)`), two
    /// entries at the same argument position whose members hold one
    /// connection's endpoints, each member of the second holding the
    /// mirror of what the same member of the first holds (`c->src = s;
    /// c->dst = d; c->other->src = d; c->other->dst = s;`). The packet that
    /// creates the connection stores the entry the reply's lookup meets, so
    /// both directions reach state that packet wrote (symmetric). An entry
    /// whose members hold both a field and its mirror, or a second entry
    /// in the same orientation, or one handed with another object, is no
    /// evidence.
    fn note_swapped_entry(
        &mut self,
        name: &str,
        arg_nodes: &[Node<'t>],
        arg_vals: &[Val],
        n: Node<'t>,
    ) {
        if !arg_vals.iter().any(|v| !v.root && !v.objs.is_empty()) {
            return;
        }
        for (i, an) in arg_nodes.iter().enumerate() {
            // The state the entry is handed with: the other arguments'.
            let objs: BTreeSet<String> = arg_vals
                .iter()
                .enumerate()
                .filter(|(j, v)| *j != i && !v.root)
                .flat_map(|(_, v)| v.objs.iter().cloned())
                .collect();
            if objs.is_empty() {
                continue;
            }
            let Some(k) = self.path_key(*an) else {
                continue;
            };
            // The entry's own members: those held in place (`.src.addr`),
            // not what its pointer members link to (`.other.src`, `.next`):
            // a link holds other entries, stored by other packets.
            let Some(ty) = self
                .static_type(strip(*an))
                .filter(|t| t.ptr == 1 && t.dims.is_empty())
            else {
                continue;
            };
            let (lo, hi) = ([k.as_str(), "."].concat(), [k.as_str(), "/"].concat());
            let members: MemberFields = self
                .env
                .range(&lo, &hi)
                .filter(|(kk, s)| {
                    !s.val.fields.is_empty() && self.held_in_place(&ty.name, &kk[lo.len()..])
                })
                .map(|(kk, s)| (kk[k.len()..].to_string(), s.val.fields))
                .collect();
            // Both endpoints of one connection in their order: the members
            // together hold a field and its mirror (a key of one endpoint
            // is a per-host entry, which other rules judge), and no member
            // holds both (a value that mixes them is order-free already,
            // or a union of assignments the flow-insensitive value cannot
            // tell apart).
            let all: FieldSet = members.values().flat_map(|fs| fs.iter().copied()).collect();
            let directional = all
                .iter()
                .any(|f| *f != f.mirror() && all.contains(&f.mirror()))
                && members.values().all(|fs| {
                    !fs.iter()
                        .any(|f| *f != f.mirror() && fs.contains(&f.mirror()))
                });
            if !directional {
                continue;
            }
            // The roles are told by the members that hold a directional
            // field; a direction-free one (the protocol, set on one half
            // only) says nothing about which endpoint is which.
            let members: MemberFields = members
                .into_iter()
                .filter(|(_, fs)| fs.iter().any(|f| *f != f.mirror()))
                .collect();
            let swapped: MemberFields = members
                .iter()
                .map(|(m, fs)| (m.clone(), fs.iter().map(|f| f.mirror()).collect()))
                .collect();
            for o in &objs {
                let seen = self
                    .events
                    .entries_handed
                    .entry((name.to_string(), i, o.clone()))
                    .or_default();
                if seen.iter().any(|(p, _)| *p == k) {
                    continue;
                }
                let first = seen
                    .iter()
                    .find(|(_, m)| *m == swapped)
                    .map(|(p, _)| p.clone());
                seen.push((k.clone(), members.clone()));
                if let Some(p) = first {
                    let show = |path: &str| path.rsplit('|').next().unwrap_or(path).to_string();
                    self.events.sym.push(SymEvidence {
                        obj: o.clone(),
                        file: self.file(),
                        line: Self::line(n),
                        reason: format!(
                            "`{name}` is handed `{}` and `{}` with `{o}`: the second entry holds the first's fields with the roles swapped, so a reply meets an entry the connection's first packet stored",
                            show(&p),
                            show(&k)
                        ),
                    });
                }
            }
        }
    }

    /// Whether the member path `path` (`src.addr`) of a struct of type
    /// `ty` stays inside the struct: no member on it is a pointer. A member
    /// the struct does not declare (storage written through a cast of a
    /// generic buffer) ends what the types tell; an array element is the
    /// array's storage.
    fn held_in_place(&self, ty: &str, path: &str) -> bool {
        let mut cur = Some(ty.to_string());
        for m in path.split('.') {
            if m == "[]" {
                continue;
            }
            let Some(t) = cur.as_deref().and_then(|c| self.prog.field_type(c, m)) else {
                cur = None;
                continue;
            };
            if t.is_pointerish() {
                return false;
            }
            cur = Some(t.name.clone());
        }
        true
    }

    /// An entry with one half per direction: the packet path indexes a
    /// member of state by a selector and, elsewhere, by its complement
    /// (`peer[reply ? 1 : 0]` and `peer[reply ? 0 : 1]`, `seen[dir]` and
    /// `seen[!dir]`): the sender's half and the receiver's half of one
    /// connection entry, so packets of both directions reach the entry
    /// (symmetric). The selector must be per-packet data (a packet field,
    /// a flag the caller hands in), not state: a double buffer's
    /// `buf[cur]` / `buf[!cur]` flips on a stored index and says nothing
    /// about directions, and neither does packet data that names no
    /// directional field (`peer[tcp->flags & SYN ? 1 : 0]`, see
    /// `tests_no_direction`).
    fn note_direction_half(&mut self, base: Node<'t>, bv: &Val, index: Node<'t>, n: Node<'t>) {
        let Some((sel, polarity)) = direction_selector(self, index) else {
            return;
        };
        let saved = self.collect;
        self.collect = false;
        let sv = self.expr(sel);
        self.collect = saved;
        if !sv.objs.is_empty() || !sv.from.is_empty() || sv.root || sv.konst.is_some() {
            return;
        }
        // A TCP flag or a length picks no direction: a request and its
        // reply may both take the same half.
        if self.tests_no_direction(sel) {
            return;
        }
        let objs: Vec<String> = bv.objs.iter().cloned().collect();
        let member = self.t(strip(base)).to_string();
        let selector = self.t(sel).to_string();
        let key = (objs.join(","), member.clone(), selector.clone());
        let seen = self.events.direction_halves.entry(key).or_insert(0);
        let before = *seen;
        *seen |= polarity;
        if before != 3 && *seen == 3 {
            let (file, line) = (self.file(), Self::line(n));
            for o in objs {
                self.events.sym.push(SymEvidence {
                    obj: o,
                    file,
                    line,
                    reason: format!(
                        "`{member}` holds one half per direction: indexed by `{selector}` and by its complement"
                    ),
                });
            }
        }
    }

    /// Element width of a pointer expression used with `[]` (1 for bytes).
    fn elem_width(&self, base: Node<'t>) -> i64 {
        let b = {
            let mut cur = base;
            while cur.kind_name() == "parenthesized_expression" {
                let mut c = cur.walk();
                let inner = cur.named_children(&mut c).next();
                match inner {
                    Some(i) => cur = i,
                    None => break,
                }
            }
            cur
        };
        // Through typedefs: `unaligned_uint64_t *` reads 8 bytes.
        let width = |ty: &str| headers::scalar_width(self.prog.resolve_type(ty));
        match b.kind_name() {
            "cast_expression" => b
                .field("type")
                .map(|t| norm_type(&self.t(t).replace('*', " ")))
                .and_then(|t| width(&t))
                .unwrap_or(1),
            "identifier" => self
                .var_type(self.t(b))
                .filter(|t| t.ptr == 1)
                .and_then(|t| width(&t.name))
                .unwrap_or(1),
            _ => 1,
        }
    }

    /// The operands of a condition that is a conjunction of equalities:
    /// `a == b`, `cmp(a, b)` or `!cmp(a, b)` / `cmp(a, b) == 0` for a
    /// comparator (a call handed entries' members or elements, never a
    /// whole table: `insert(tbl, …) == FAIL` is no comparison), joined by
    /// `&&`. False for anything else (`||`, orderings, `!=`).
    fn equality_terms(&self, n: Node<'t>, out: &mut Vec<Node<'t>>) -> bool {
        let n = strip(n);
        match n.kind_name() {
            "binary_expression" => {
                let op = n.field("operator").map(|o| self.t(o)).unwrap_or("");
                let (Some(l), Some(r)) = (n.field("left"), n.field("right")) else {
                    return false;
                };
                match op {
                    "&&" => self.equality_terms(l, out) && self.equality_terms(r, out),
                    "==" => {
                        let zero = |x: Node<'t>| matches!(self.t(strip(x)), "0" | "NULL" | "false");
                        match (strip(l).kind_name(), strip(r).kind_name()) {
                            ("call_expression", _) if zero(r) => {
                                self.comparator_call(strip(l), out)
                            }
                            (_, "call_expression") if zero(l) => {
                                self.comparator_call(strip(r), out)
                            }
                            ("call_expression", _) | (_, "call_expression") => false,
                            _ => {
                                out.push(l);
                                out.push(r);
                                true
                            }
                        }
                    }
                    _ => false,
                }
            }
            "unary_expression" => {
                let op = n.field("operator").map(|o| self.t(o)).unwrap_or("");
                let arg = n.field("argument").map(strip);
                op == "!"
                    && arg.is_some_and(|a| {
                        a.kind_name() == "call_expression" && self.comparator_call(a, out)
                    })
            }
            "call_expression" => self.comparator_call(n, out),
            _ => false,
        }
    }

    /// A call that compares values: every argument is a value, a member or
    /// element read, or the address of one (never a bare handle on a table
    /// or a context), and a visible body holds no `||`.
    fn comparator_call(&self, call: Node<'t>, out: &mut Vec<Node<'t>>) -> bool {
        let Some(args) = call.field("arguments") else {
            return false;
        };
        let callee = call.field("function").map(|f| self.t(f));
        if let Some(fs) = callee.and_then(|f| self.prog.fn_index.get(f)) {
            let disjunctive = fs.iter().any(|fi| {
                let f = &self.prog.fns[*fi];
                f.body
                    .is_some_and(|b| self.prog.src(f.file)[b.byte_range()].contains("||"))
            });
            if disjunctive {
                return false;
            }
        }
        let mut c = args.walk();
        let list: Vec<Node<'t>> = args.named_children(&mut c).collect();
        for a in &list {
            let a = strip(*a);
            if a.kind_name() == "identifier" {
                // A handle on a table, an entry or a packet descriptor
                // (`insert(tbl, pkt, …)`): the call does more than compare.
                let held = self
                    .path_key(a)
                    .and_then(|k| self.env_get(&k))
                    .is_some_and(|v| !v.objs.is_empty() || v.root || v.descriptor);
                let global = !self.is_local(self.t(a)) && self.global_state(self.t(a)).is_some();
                if held || global {
                    return false;
                }
            }
        }
        out.extend(list);
        true
    }

    /// A guard that proves a stored entry equal to packet data:
    /// `if (c->last != NULL && cmp(key, &c->last->key) == 0) return c->last;`
    /// (a cache of the entry found last). The entry held in a state member
    /// (`c->last`) was put there by an earlier packet; under the guard it
    /// is the one this packet's key selects. Existence tests of it are
    /// neutral conjuncts; anything else must be an equality, as in a
    /// search loop's match (see [`Self::search_match`]).
    fn guard_match(&mut self, cond: Node<'t>) -> Vec<(String, Val)> {
        let mut conjuncts = vec![];
        let mut stack = vec![strip(cond)];
        while let Some(x) = stack.pop() {
            let op = x.field("operator").map(|o| self.t(o)).unwrap_or("");
            match (x.kind_name(), op) {
                ("binary_expression", "&&") => {
                    stack.extend(x.field("left").map(strip));
                    stack.extend(x.field("right").map(strip));
                }
                _ => conjuncts.push(x),
            }
        }
        let exists = |e: &Self, x: Node<'t>| {
            let op = x.field("operator").map(|o| e.t(o)).unwrap_or("");
            let null = |y: Node<'t>| matches!(e.t(strip(y)), "0" | "NULL" | "nullptr");
            match x.kind_name() {
                "binary_expression" if op == "!=" => {
                    x.field("right").is_some_and(null) || x.field("left").is_some_and(null)
                }
                "field_expression" | "identifier" => {
                    e.static_type(x).is_some_and(|t| t.is_pointerish())
                }
                _ => false,
            }
        };
        let mut operands = vec![];
        for c in conjuncts {
            if !exists(self, c) && !self.equality_terms(c, &mut operands) {
                return vec![];
            }
        }
        // The entries: `E->member` where `E` is itself read from a member
        // (`c->last`), compared with packet data.
        let mut entries: Vec<String> = vec![];
        let mut stack = operands.clone();
        while let Some(x) = stack.pop() {
            if x.kind_name() == "field_expression"
                && x.field("operator").is_some_and(|o| self.t(o) == "->")
            {
                if let Some(e) = x
                    .field("argument")
                    .map(strip)
                    .filter(|e| e.kind_name() == "field_expression")
                {
                    entries.push(self.t(e).to_string());
                }
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        if entries.is_empty() {
            return vec![];
        }
        let Some(key) = self.matched_key(&operands) else {
            return vec![];
        };
        entries.into_iter().map(|e| (e, key.clone())).collect()
    }

    /// The packet key an equality match of stored entries selects by: the
    /// fields of the operands that are packet data, when some other operand
    /// reads stored entries. Evaluated without recording: the condition's
    /// own walk already recorded its accesses.
    fn matched_key(&mut self, operands: &[Node<'t>]) -> Option<Val> {
        let saved = self.collect;
        self.collect = false;
        let vals: Vec<Val> = operands.iter().map(|o| self.expr(*o)).collect();
        self.collect = saved;
        // Stored entries on one side, packet data on the other.
        if !vals.iter().any(|v| !v.objs.is_empty()) {
            return None;
        }
        let mut key = Val::default();
        for v in vals.iter().filter(|v| v.objs.is_empty() && !v.root) {
            key.fields.extend(v.fields.iter().copied());
            key.mixed |= v.mixed;
        }
        (!key.fields.is_empty()).then_some(key)
    }

    /// A search loop's match: `if (<cond>) break;` (or `return`) inside a
    /// loop, where the condition is an equality between stored entries and
    /// packet data (`tbl[i].key == key`, `same_flow(e->key, key)`,
    /// `!memcmp(&e->k, &k, n)`). The entry the loop stops at is the one
    /// whose stored fields equal the packet's, so the cursor (`i`, `e`)
    /// locates entries by those fields after the loop. Only conjunctions of
    /// equalities qualify: a disjunction (`e->src == a || e->dst == a`)
    /// matches an entry by either field, and an ordering (`e->seq > s`)
    /// finds a position, not an entry, so neither says a key.
    /// Returns the cursors' paths with the key, for the branch the match
    /// guards (see [`Narrowing::refine`]).
    fn search_match(&mut self, cond: Node<'t>) -> Vec<(String, Val)> {
        // The compared operands (both sides of `==`, a comparator's
        // arguments), and the cursors they read entries through.
        let mut operands: Vec<Node<'t>> = vec![];
        if !self.equality_terms(cond, &mut operands) {
            return vec![];
        }
        let mut cursors: Vec<Node<'t>> = vec![];
        let mut stack = operands.clone();
        while let Some(x) = stack.pop() {
            match x.kind_name() {
                // `tbl[i].key`: `i` is the cursor, unless the array lies in
                // an entry already located by packet data (`h->ports[i]`
                // in a host's entry: a slot within it, whose own match
                // says nothing about which entry it is).
                "subscript_expression" => {
                    if let Some(i) = self.subscript_index(x).map(strip) {
                        if i.kind_name() == "identifier" && self.is_local(self.t(i)) {
                            let in_keyed_entry = x.field("argument").is_some_and(|b| {
                                let saved = self.collect;
                                self.collect = false;
                                let bv = self.expr(b);
                                self.collect = saved;
                                bv.keyed()
                            });
                            if !in_keyed_entry {
                                cursors.push(i);
                            }
                        }
                    }
                }
                // `e->key`: `e` is the cursor when it is a local the loop
                // moves (not a parameter: `tbl->flows[i]` reaches entries
                // through the table, and `tbl->flows` is no entry).
                "field_expression" => {
                    let is_table = x.parent().is_some_and(|p| {
                        p.kind_name() == "subscript_expression" && p.field("argument") == Some(x)
                    });
                    if let Some(b) = x.field("argument").map(strip) {
                        let name = self.t(b);
                        if !is_table
                            && b.kind_name() == "identifier"
                            && self.is_local(name)
                            && !self.f().params.iter().any(|p| p.name == name)
                            && x.field("operator").is_some_and(|o| self.t(o) == "->")
                        {
                            cursors.push(b);
                        }
                    }
                }
                _ => {}
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        let Some(key) = self.matched_key(&operands) else {
            return vec![];
        };
        let mut matched = vec![];
        for cur in cursors {
            let Some(k) = self.path_key(cur) else {
                continue;
            };
            let held = self.env_read(&k);
            // An index or a pointer to an entry, not a pointer into the
            // packet.
            if !held.objs.is_empty() || (held.hdr.is_none() && !held.descriptor) {
                self.env_join(&k, &key);
                matched.push((k, key.clone()));
            }
        }
        matched
    }

    /// `&hdr->member` of a header whose offset is known: a pointer into
    /// the packet at the member's offset (from the struct's layout), so a
    /// wider read through it (`*(uint64_t *)&ip->src_addr`) covers the
    /// fields that follow.
    fn member_address(&mut self, arg: Node<'t>) -> Option<Val> {
        if arg.kind_name() != "field_expression" {
            return None;
        }
        let base = arg.field("argument")?;
        let field = arg.field("field")?;
        if !matches!(
            base.kind_name(),
            "identifier" | "field_expression" | "parenthesized_expression"
        ) {
            return None;
        }
        let ty = self.static_type(base)?;
        let fname = self.t(field);
        let member = self.prog.member_offset(&ty.name, fname)?;
        let width = self
            .prog
            .field_type(&ty.name, fname)
            .and_then(|t| self.prog.sizeof(t))
            .map_or(1, |(s, _)| s as i64);
        let bv = self.expr(base);
        let (Some(h), Some(off)) = (bv.hdr, bv.off) else {
            return None;
        };
        let off = off + member as i64;
        // The layout must agree with the member's name where the name says
        // a field (a header struct at an offset the analysis misjudged
        // would otherwise name a neighbour).
        if let Some(named) = headers::member_field(h, fname) {
            if headers::fields_in(h, off, width) != [named] {
                return None;
            }
        }
        let mut v = bv;
        v.off = Some(off);
        Some(v)
    }

    /// A callee without a visible body that cannot write the state it is
    /// handed (at argument positions `state_args`): its visible prototype
    /// takes `const` pointers there, or, with no prototype visible, it is a
    /// comparison or search function of the C library, whose standard
    /// prototypes take `const` pointers (C11 7.24.4-7.24.5, POSIX
    /// `strcasecmp`). Its body cannot be in a project header that was not
    /// found.
    fn callee_reads_only(&self, name: &str, state_args: &[usize]) -> bool {
        if let Some(params) = self.prog.prototypes.get(name) {
            // The visible prototype says: every parameter handed state is a
            // pointer to `const`.
            return !state_args.is_empty()
                && state_args.iter().all(|i| {
                    params
                        .get(*i)
                        .is_some_and(|p| p.ty.is_pointerish() && p.is_const)
                });
        }
        matches!(
            name,
            "memcmp"
                | "memchr"
                | "strcmp"
                | "strncmp"
                | "strcasecmp"
                | "strncasecmp"
                | "strcoll"
                | "strlen"
                | "strnlen"
                | "strchr"
                | "strrchr"
                | "strstr"
                | "strspn"
                | "strcspn"
                | "strpbrk"
        )
    }

    /// `&p[i]` where `p` points into the packet: the address `p + i`, a
    /// pointer into the packet like `p + i` (a header cast from
    /// `&packet[ip_offset]` is that header), not the byte stored there.
    fn packet_element_address(&mut self, arg: Node<'t>) -> Option<Val> {
        if arg.kind_name() != "subscript_expression" {
            return None;
        }
        let base = arg.field("argument")?;
        let bv = self.expr_quiet(base);
        if bv.hdr.is_none() || bv.descriptor {
            return None;
        }
        let iv = self
            .subscript_index(arg)
            .map(|i| self.expr(i))
            .unwrap_or_default();
        let off = match (bv.off, iv.konst) {
            (Some(off), Some(k)) => Some(off + k * self.elem_width(base)),
            _ => None,
        };
        Some(Val {
            hdr: bv.hdr,
            off,
            from: bv.from,
            ..Default::default()
        })
    }

    /// Read through a pointer value of `width` bytes.
    fn deref(&mut self, pv: &Val, width: i64, n: Node<'t>, arg: Node<'t>) -> Val {
        let mut out = Val::default();
        if let (Some(h), Some(off)) = (pv.hdr, pv.off) {
            out.fields.extend(headers::fields_in(h, off, width));
        }
        // Bytes of the packet, or metadata carried with its descriptor (a
        // dynamic mbuf field such as a sequence number): packet data.
        if (pv.hdr.is_some() || pv.descriptor) && out.fields.is_empty() {
            out.opaque = true;
        }
        out.from.extend(pv.from.iter().cloned());
        if let Some(k) = self.path_key(arg) {
            if pv.hdr.is_none() {
                let v = self.env_read(&k);
                out.join(&Val {
                    hdr: None,
                    off: None,
                    objs: NameSet::default(),
                    direct: NameSet::default(),
                    root: false,
                    ..v
                });
            }
        }
        if !pv.objs.is_empty() {
            out.objs.extend(pv.objs.iter().cloned());
            if !pv.direct.is_empty() && self.element_is_storage(arg) {
                out.direct.extend(pv.direct.iter().cloned());
            }
            out.fields.extend(pv.fields.iter().copied());
            if pv.locates() {
                let objs = pv.objs.clone();
                let key = pv.taint();
                self.record_access(&objs, &key, false, false, n);
            }
        }
        out
    }

    fn binary(&mut self, n: Node<'t>) -> Val {
        let op = n
            .field("operator")
            .map(|o| self.t(o).to_string())
            .unwrap_or_default();
        let (Some(ln), Some(rn)) = (n.field("left"), n.field("right")) else {
            return Val::default();
        };
        let l = self.expr(ln);
        let r = self.expr(rn);
        if (op == "==" || op == "!=") && self.collect {
            self.compare(ln, &l, rn, &r, n);
        }
        // State compared with packet data decides how this packet is
        // treated (a sequence window, a per-flow threshold).
        if matches!(op.as_str(), "==" | "!=" | "<" | ">" | "<=" | ">=") {
            for (state_side, packet_side) in [(&l, &r), (&r, &l)] {
                if packet_side.keyed() && packet_side.objs.is_empty() {
                    let except = packet_side.from.clone();
                    self.note_influence(state_side, &except, n, "a comparison with packet data");
                }
            }
        }
        // `ip + ihl * 4` / `frame + 14 + (ihl << 2)`: the L4 header.
        if op == "+"
            && matches!(
                (l.hdr, l.off),
                (Some(Hdr::Ip4), _) | (Some(Hdr::Frame), Some(14))
            )
        {
            let rt = self.t(rn).to_ascii_lowercase();
            if rt.contains("ihl")
                || rt.contains("ip_hl")
                || rt.contains("hdr_len")
                || rt.contains("hlen")
            {
                let mut v = Val::hdr(Hdr::L4, 0);
                v.objs = l.objs.clone();
                return v;
            }
        }
        // `iph + 1` where every path on from here dropped packets with IPv4
        // options: the L4 header.
        if op == "+"
            && l.hdr == Some(Hdr::Ip4)
            && r.konst == Some(1)
            && ip4_options_rejected(self, n)
        {
            let mut v = Val::hdr(Hdr::L4, 0);
            v.objs = l.objs.clone();
            return v;
        }
        // Pointer arithmetic into the packet.
        if op == "+" || op == "-" {
            if l.hdr.is_some() && r.hdr.is_none() {
                let mut v = l.clone();
                v.off = match (l.off, r.konst) {
                    (Some(o), Some(k)) => {
                        // `ip + 1` on a typed header pointer skips the header: unknown offset.
                        let scale = if l.hdr != Some(Hdr::Frame) && k == 1 {
                            None
                        } else {
                            Some(k)
                        };
                        scale.map(|k| if op == "+" { o + k } else { o - k })
                    }
                    _ => None,
                };
                if l.hdr != Some(Hdr::Frame) && r.konst == Some(1) {
                    v.hdr = Some(Hdr::Frame);
                    v.off = None;
                }
                v.fields.extend(r.fields.iter().copied());
                // An offset read from state still points into the packet.
                v.from.extend(r.objs.iter().chain(r.from.iter()).cloned());
                return v;
            }
            if r.hdr.is_some() && l.hdr.is_none() && op == "+" {
                let mut v = r.clone();
                v.off = match (r.off, l.konst) {
                    (Some(o), Some(k)) => Some(o + k),
                    _ => None,
                };
                v.from.extend(l.objs.iter().chain(l.from.iter()).cloned());
                return v;
            }
            // `(uintptr_t)mbuf + offset` (a dynamic field of the packet
            // descriptor): still the descriptor, wherever the offset came from.
            let into_descriptor = |base: &Val, offset: &Val| {
                base.descriptor && base.objs.is_empty() && !base.root && !offset.descriptor
            };
            let (base, offset) = if into_descriptor(&l, &r) {
                (Some(&l), &r)
            } else if op == "+" && into_descriptor(&r, &l) {
                (Some(&r), &l)
            } else {
                (None, &r)
            };
            if let Some(base) = base {
                let mut v = base.clone();
                v.from
                    .extend(offset.objs.iter().chain(offset.from.iter()).cloned());
                return v;
            }
        }
        let konst = match (l.konst, r.konst) {
            (Some(a), Some(b)) => match op.as_str() {
                "+" => a.checked_add(b),
                "-" => a.checked_sub(b),
                "*" => a.checked_mul(b),
                "/" => a.checked_div(b),
                "<<" => a.checked_shl(b as u32),
                ">>" => a.checked_shr(b as u32),
                "|" => Some(a | b),
                "&" => Some(a & b),
                _ => None,
            },
            _ => None,
        };
        let comparison = matches!(
            op.as_str(),
            "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||"
        );
        // An ordering against a constant (a capacity bound) tells whether
        // the state has room, not how to treat the packet: no dependence.
        // An equality with a constant (a state machine's state) does steer.
        let const_bound = matches!(op.as_str(), "<" | ">" | "<=" | ">=")
            && (l.konst.is_some() || r.konst.is_some());
        let mut v = Val {
            konst,
            from: if const_bound {
                NameSet::default()
            } else {
                l.from
                    .iter()
                    .chain(l.objs.iter())
                    .chain(r.from.iter())
                    .chain(r.objs.iter())
                    .cloned()
                    .collect()
            },
            ..Default::default()
        };
        if !comparison {
            v.opaque = l.opaque || r.opaque;
            v.fields.extend(l.fields.iter().copied());
            v.fields.extend(r.fields.iter().copied());
            v.mixed = l.mixed || r.mixed;
            if op == "+" || op == "-" {
                // The result points where the pointer operand points; a
                // scalar read from state only shifts it (kept in `from`).
                for (side, val) in [(ln, &l), (rn, &r)] {
                    let scalar = self.static_type(side).is_some_and(|t| {
                        !t.is_pointerish()
                            && t.dims.is_empty()
                            && headers::scalar_width(self.prog.resolve_type(&t.name)).is_some()
                    });
                    if !scalar {
                        v.objs.extend(val.objs.iter().cloned());
                    }
                }
            }
            if op == "^" || op == "+" {
                // Both directions' same fields, one side each (`src ^ dst`,
                // `(sip ^ sport) + (dip ^ dport)`). Operands that carry other
                // data too are a hash's mixing steps (jhash's `a ^= c`),
                // which no longer decide anything about direction.
                let mirror: FieldSet = l.fields.iter().map(|f| f.mirror()).collect();
                let mirrored = mirror == r.fields
                    && l.fields != r.fields
                    && l.fields
                        .iter()
                        .all(|f| !l.fields.contains(&f.mirror()) || *f == f.mirror());
                if mirrored && (op == "^" || (is_plain(ln) && is_plain(rn))) {
                    v.mixed = true;
                }
            }
        }
        v
    }

    /// An equality inside a search loop's match between a stored entry's
    /// member and a packet value read from a member. The entry the loop
    /// stops at holds, in that member, what the packet holds in the member
    /// of the same name (`e->key.src_addr == k->src_addr`): entries are
    /// told apart by the key in its order, one per direction, whatever
    /// bucket a direction-agnostic hash picked for them. A member compared
    /// with a differently named one (`e->src == k->dst`) may be a mirror
    /// match; summarise then draws no conclusion from the order.
    fn note_match_member(&mut self, ln: Node<'t>, l: &Val, rn: Node<'t>, r: &Val, n: Node<'t>) {
        if !self.collect || self.kind != FnKind::Packet {
            return;
        }
        for (sn, pn, pv) in [(ln, rn, r), (rn, ln, l)] {
            // One direction's fields only: a value holding a field and its
            // mirror orders nothing.
            let one_direction = pv.fields.iter().any(|f| *f != f.mirror())
                && !pv
                    .fields
                    .iter()
                    .any(|f| *f != f.mirror() && pv.fields.contains(&f.mirror()));
            if pv.mixed || !pv.objs.is_empty() || !one_direction {
                continue;
            }
            let Some((objs, suffix, _, false)) = self.state_ref_quiet(sn) else {
                continue;
            };
            let Some(stored) = suffix
                .rsplit('.')
                .next()
                .filter(|m| suffix.contains('.') && !m.is_empty() && !m.contains('['))
            else {
                continue;
            };
            let pn = strip(pn);
            if pn.kind_name() != "field_expression" {
                continue;
            }
            let Some(held) = pn.field("field").map(|f| self.t(f)) else {
                continue;
            };
            let same_member = stored == held;
            let line = Self::line(n);
            for o in &objs {
                self.events.match_members.push(MatchMember {
                    obj: o.clone(),
                    file: self.file(),
                    line,
                    same_member,
                    reason: format!(
                        "a search loop matches the entries of `{o}` by member `{stored}` against the packet's {} held in member `{held}`",
                        pv.fields.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
                    ),
                });
            }
        }
    }

    /// Equality between a state slot and packet data: key checks and symmetry.
    fn compare(&mut self, ln: Node<'t>, l: &Val, rn: Node<'t>, r: &Val, n: Node<'t>) {
        if self.match_depth > 0 {
            self.note_match_member(ln, l, rn, r, n);
        }
        for (sn, pv) in [(ln, r), (rn, l)] {
            if pv.fields.is_empty() {
                continue;
            }
            let Some((objs, suffix, _, false)) = self.state_ref_quiet(sn) else {
                continue;
            };
            if objs.is_empty() {
                continue;
            }
            // Linear scan over the object's own entries: obj[i].key == packet field.
            if suffix.starts_with("[]") && !suffix[2..].contains("[]") {
                let objs2 = objs.clone();
                let key = pv.taint();
                self.record_access(&objs2, &key, false, false, n);
            }
            for o in &objs {
                let stored = self
                    .env_get(&format!("@{o}{suffix}"))
                    .cloned()
                    .unwrap_or_default();
                for f in &stored.fields {
                    if *f != f.mirror() && pv.fields.contains(&f.mirror()) && !pv.fields.contains(f)
                    {
                        let line = Self::line(n);
                        let reason = format!("state slot `{o}{suffix}` stores {f} and is compared with the packet's {}", f.mirror());
                        self.events.sym.push(SymEvidence {
                            obj: o.clone(),
                            file: self.file(),
                            line,
                            reason,
                        });
                    }
                }
            }
        }
    }

    fn assign(&mut self, n: Node<'t>) -> Val {
        let (Some(left), Some(right)) = (n.field("left"), n.field("right")) else {
            return Val::default();
        };
        let op = n
            .field("operator")
            .map(|o| self.t(o).to_string())
            .unwrap_or_else(|| "=".into());
        let mut v = self.expr(right);
        let rhs_val = v.clone();
        if op != "=" {
            let old = self.expr(left);
            let k = match (old.konst, v.konst, op.as_str()) {
                (Some(a), Some(b), "+=") => a.checked_add(b),
                (Some(a), Some(b), "-=") => a.checked_sub(b),
                (Some(a), Some(b), "*=") => a.checked_mul(b),
                (Some(a), Some(b), "|=") => Some(a | b),
                _ => None,
            };
            v = v.union(&Val {
                hdr: None,
                off: None,
                konst: None,
                ..old
            });
            v.konst = k;
        }
        let rhs_objs = v.objs.clone();
        let saved_assigning = self.assigning.replace((left, right, op != "="));
        let out = self.assign_to(n, (left, right, &op), v, rhs_val, rhs_objs);
        self.assigning = saved_assigning;
        out
    }

    fn assign_to(
        &mut self,
        n: Node<'t>,
        (left, right, op): (Node<'t>, Node<'t>, &str),
        mut v: Val,
        rhs_val: Val,
        rhs_objs: NameSet,
    ) -> Val {
        if let Some(k) = self.path_key(left) {
            // Declared header pointer variables keep their kind.
            if left.kind_name() == "identifier" {
                if let Some(tr) = self.var_type(self.t(left)) {
                    if tr.ptr == 0
                        && tr.dims.is_empty()
                        && !tr.reference
                        && tr.name != "auto"
                        && self.is_local(self.t(left))
                    {
                        // a value copy, not a pointer into state
                        let objs = std::mem::take(&mut v.objs);
                        v.from.extend(objs);
                        v.root = false;
                    }
                    if tr.ptr > 0 {
                        if let Some(h) = headers::hdr_of_type(&tr.name) {
                            if returned_into_packet(&v, right) {
                                v = Val::hdr(Hdr::Frame, 0);
                                v.off = None;
                            }
                            if v.hdr.is_some() {
                                v.off = match (v.hdr, v.off) {
                                    (Some(Hdr::Frame), Some(o)) => self.frame_to_hdr_off(o, h),
                                    _ => Some(0),
                                };
                                v.hdr = Some(h);
                            }
                        }
                    }
                }
            }
            // `*p = value` stores a value where `p` points; `p` and `*p`
            // share a path, so a non-pointer store must not make `p` point
            // into the state the value was read from.
            let deref_of_value_pointer = strip(left).kind_name() == "pointer_expression"
                && strip(left)
                    .field("argument")
                    .and_then(|p| self.pointer_depth(p))
                    == Some(1);
            if deref_of_value_pointer {
                let objs = std::mem::take(&mut v.objs);
                v.from.extend(objs);
                v.root = false;
            }
            let direct = self.is_direct_local(left);
            // `*p = v` stores where `p` points and shares `p`'s path: what
            // `p` itself was defined as is unchanged.
            let through_pointer = strip(left).kind_name() == "pointer_expression";
            if direct {
                self.narrow_define(&k, &v);
            }
            if let Some(rk) = self.path_key(right) {
                self.copy_members(&rk, &k, direct);
            }
            if !direct && !through_pointer {
                // A member behind a pointer or an array element: untracked.
                if let Some(nw) = self.narrowing.as_deref_mut() {
                    nw.forget(&k);
                }
            }
            self.env_join(&k, &v);
            // Pointer chasing: a loop cursor re-assigned from a state read.
            if self.collect
                && strip(left).kind_name() == "identifier"
                && !self.loop_conds.is_empty()
                && !rhs_objs.is_empty()
            {
                let name = self.t(strip(left)).to_string();
                let is_read = matches!(
                    self.link_read(right).kind_name(),
                    "field_expression" | "subscript_expression"
                );
                // A packet descriptor cursor (`m = m->next`) walks the
                // segments of a packet held in state, not the state's links;
                // a number read from state is a link only where the loop
                // indexes with it (`i = e[i].next`), not a compared offset.
                let ty = self.var_type(&name);
                let walks_packet = ty
                    .as_ref()
                    .is_some_and(|t| is_packet_type(self.prog.resolve_type(&t.name)));
                let follows = |l: &Node<'t>| {
                    ty.as_ref()
                        .is_none_or(|t| t.is_pointerish() || t.name == "auto")
                        || self.indexes_with(*l, &name)
                };
                if is_read
                    && !walks_packet
                    && self
                        .loop_conds
                        .iter()
                        .any(|(c, l)| has_word(c, &name) && follows(l))
                {
                    let mut objs = rhs_objs.clone();
                    objs.extend(self.env_read(&k).objs);
                    let line = Self::line(n);
                    self.events.chases.push(Chase {
                        objs: objs.into_set(),
                        file: self.file(),
                        line,
                    });
                }
            }
        }
        let rp = if op == "=" {
            self.path_key(right)
        } else {
            None
        };
        // State written into the packet is visible downstream (an
        // allocated port, a rewritten address): it steers what leaves.
        let lbase = self.lvalue_base(left);
        if lbase
            .as_ref()
            .is_some_and(|(_, bv)| Self::writes_packet(bv))
        {
            self.note_influence(
                &rhs_val,
                &BTreeSet::new(),
                n,
                "a value written into the packet",
            );
        }
        // Storing the packet descriptor (enqueueing the mbuf) records no
        // packet data.
        self.storing_descriptor = self
            .static_type(right)
            .is_some_and(|t| t.is_pointerish() && is_packet_type(&t.name));
        // The base just evaluated serves the state path too when `left`
        // writes through it directly (not through parentheses or a cast):
        // nothing between changes what it evaluates to.
        let given = lbase
            .as_ref()
            .filter(|(b, _)| left.field("argument") == Some(*b))
            .map(|(_, bv)| bv);
        self.write_target_given(left, &v, rp, given);
        self.storing_descriptor = false;
        v
    }

    /// Record a write to `target` if it is state; store the written value in the slot.
    fn write_target(&mut self, target: Node<'t>, v: &Val, rhs_path: Option<String>) {
        self.write_target_given(target, v, rhs_path, None)
    }

    /// [`Self::write_target`] with the value of the base the target writes
    /// through, when the caller has it (see [`Self::state_ref_parts_given`]).
    fn write_target_given(
        &mut self,
        target: Node<'t>,
        v: &Val,
        rhs_path: Option<String>,
        base_val: Option<&Val>,
    ) {
        let saved = self.collect;
        self.collect = false;
        let slot = self
            .state_ref_parts_given(target, base_val)
            .map(|(objs, suffix, key, root, _)| (objs, suffix, key, root));
        self.collect = saved;
        let (objs, suffix, key) = match slot {
            Some((_, _, _, true)) => return,
            Some((objs, suffix, key, false)) if !objs.is_empty() => (objs, suffix, key),
            _ => {
                self.note_write_through_handed_back(target);
                return;
            }
        };
        for o in &objs {
            let slot = format!("@{o}{suffix}");
            // Keep where stored pointers point (free lists, bucket heads).
            let stored = Val {
                objs: v.objs.clone(),
                ..v.taint()
            };
            self.env_join(&slot, &stored);
            if let Some(rk) = &rhs_path {
                self.copy_members(rk, &slot, true);
            }
        }
        let key = Val {
            mixed: false,
            ..key
        };
        self.storing_link = v.objs.iter().any(|o| objs.contains(o));
        self.storing_packet = v.keyed() && !v.descriptor && !self.storing_descriptor;
        // A stored packet descriptor: the value flowed from a received
        // packet, or is typed as one and points into no state (an entry
        // type whose name merely contains "pkt" is still an entry).
        self.storing_received_descriptor =
            v.descriptor || (self.storing_descriptor && v.objs.is_empty() && !v.root);
        self.storing_self_derived = v.from.iter().chain(v.objs.iter()).any(|o| objs.contains(o));
        self.record_access(&objs, &key, true, false, target);
        self.storing_received_descriptor = false;
        self.storing_self_derived = false;
        self.storing_link = false;
        self.storing_packet = false;
    }

    /// `ct->mark = …` (a member written through a struct pointer) where
    /// `ct` came back from code whose body is not
    /// visible and that was handed the packet (`ct = nf_ct_get(skb, …)`),
    /// typed as a struct whose layout the code does not show either (its
    /// header was not found) and whose name says no header: the pointer
    /// reaches storage the framework keeps for the packet (its connection,
    /// socket or route), so the write is to state located by packet data
    /// of fields the code does not show. Reading through such a pointer
    /// stays packet data; only a write tells state from a header rewrite,
    /// and the conservative reading of it is state. A struct the code does
    /// define (a mempool cache, an ACL context) is judged by what the
    /// analysis sees of it instead.
    fn note_write_through_handed_back(&mut self, target: Node<'t>) {
        if !self.collect || self.kind != FnKind::Packet {
            return;
        }
        let t = strip(target);
        let arrow = t.kind_name() == "field_expression"
            && t.field("operator").is_some_and(|o| self.t(o) == "->");
        let Some(base) = t
            .field("argument")
            .filter(|_| arrow)
            .map(strip)
            .filter(|b| b.kind_name() == "identifier")
        else {
            return;
        };
        let Some(ty) = self.var_type(self.t(base)) else {
            return;
        };
        let pointee = self.prog.resolve_type(&ty.name).to_string();
        let opaque_struct = ty.ptr == 1
            && ty.dims.is_empty()
            && pointee != "void"
            && !self.prog.structs.contains_key(pointee.as_str())
            && !self
                .prog
                .classes
                .contains_key(super::program::bare(&pointee))
            && headers::scalar_width(&pointee).is_none()
            && headers::hdr_of_type(&pointee).is_none()
            && !is_packet_type(&pointee)
            && !is_descriptor_type(&pointee);
        if !opaque_struct {
            return;
        }
        let bv = self.expr_quiet(base);
        if !(bv.opaque && bv.objs.is_empty() && bv.hdr.is_none() && !bv.root && !bv.descriptor) {
            return;
        }
        let obj = format!("*{}", self.t(base));
        let key = Val {
            opaque: true,
            ..Default::default()
        };
        self.record_access(&[obj].into_iter().collect(), &key, true, false, target);
    }

    fn args(&mut self, al: Node<'t>) -> Vec<Val> {
        let mut c = al.walk();
        let kids: Vec<Node<'t>> = al
            .named_children(&mut c)
            .filter(|k| k.kind_name() != "comment")
            .collect();
        kids.into_iter().map(|k| self.expr(k)).collect()
    }

    /// The fields a flow-identifier object holds: the framework's layout
    /// (upstream Click's IPFlowID has no protocol), widened by a protocol
    /// member when the definition the NF compiles against has one.
    fn flow_id_fields(&self, ty: &str) -> Option<Vec<Field>> {
        let mut fields = headers::flow_id_type(ty)?.to_vec();
        let class = self.prog.classes.get(super::program::bare(ty));
        if class.is_some_and(|c| {
            c.members
                .iter()
                .any(|m| m.name.to_ascii_lowercase().contains("proto"))
        }) && !fields.contains(&Field::Proto)
        {
            fields.push(Field::Proto);
        }
        Some(fields)
    }

    fn construct(&mut self, ty: &str, args: &[Val]) -> Val {
        let mut v = Val::default();
        if let Some(fields) = self.flow_id_fields(ty) {
            if args
                .iter()
                .any(|a| a.hdr.is_some() || !a.fields.is_empty() || a.konst.is_none())
            {
                v.fields.extend(fields.iter().copied());
            }
            if args.len() >= 2 && args[1].konst == Some(1) {
                v.mixed = true;
            }
            for a in args {
                v.fields.extend(a.fields.iter().copied());
            }
            return v;
        }
        for a in args {
            v.join(&a.taint());
        }
        v
    }

    /// Whether a parameter of `fn_idx` is assigned, incremented or has its
    /// address taken in the function's body.
    fn param_mutated(&mut self, fn_idx: usize, name: &str) -> bool {
        if !self.mutated_params.contains_key(&fn_idx) {
            let mut set = HashSet::default();
            // The callee's own file: the text of its nodes lives there.
            let src = self.prog.src(self.prog.fns[fn_idx].file);
            if let Some(body) = self.prog.fns[fn_idx].body {
                let mut stack = vec![body];
                while let Some(x) = stack.pop() {
                    let target = match x.kind_name() {
                        "assignment_expression" => x.field("left"),
                        "update_expression" => x.field("argument"),
                        "pointer_expression"
                            if x.field("operator").is_some_and(|o| text(o, src) == "&") =>
                        {
                            x.field("argument")
                        }
                        _ => None,
                    };
                    if let Some(t) = target.map(strip).filter(|t| t.kind_name() == "identifier") {
                        set.insert(text(t, src).to_string());
                    }
                    let mut c = x.walk();
                    stack.extend(x.named_children(&mut c));
                }
            }
            self.mutated_params.insert(fn_idx, set);
        }
        self.mutated_params[&fn_idx].contains(name)
    }

    /// The value of a literal (`1`, `true`) or of a named constant that is
    /// no local (an enumerator, a `#define`d number).
    fn literal_value(&self, x: Node<'t>) -> Option<i64> {
        let x = strip(x);
        match x.kind_name() {
            "number_literal" => parse_int(self.t(x)),
            "true" => Some(1),
            "false" => Some(0),
            "identifier" if !self.is_local(self.t(x)) => self.prog.consts.get(self.t(x)).copied(),
            _ => None,
        }
    }

    /// The value of a branch condition that tests only a parameter bound
    /// to one constant in this calling context (`rev`, `!rev`, `dir == 1`,
    /// `dir != 1`); `None` when anything else decides it.
    fn constant_condition(&self, c: Node<'t>) -> Option<bool> {
        let c = strip(c);
        let param = |x: Node<'t>| -> Option<i64> {
            let x = strip(x);
            if x.kind_name() != "identifier" {
                return None;
            }
            let name = self.t(x);
            if !self.f().params.iter().any(|p| p.name == name) {
                return None;
            }
            let key = self.var_key(name);
            let c = self.param_consts.get(&key).copied();
            self.log_read(|l| l.consts.push((self.log_key(&key), c)));
            c?
        };
        let literal = |x: Node<'t>| self.literal_value(x);
        match c.kind_name() {
            "identifier" => param(c).map(|k| k != 0),
            "unary_expression" => {
                let op = c.field("operator").map(|o| self.t(o))?;
                let arg = c.field("argument")?;
                (op == "!").then(|| param(arg).map(|k| k == 0)).flatten()
            }
            "binary_expression" => {
                let op = c.field("operator").map(|o| self.t(o))?;
                let (l, r) = (c.field("left")?, c.field("right")?);
                let (p, k) = match (param(l), param(r)) {
                    (Some(p), None) => (p, literal(r)?),
                    (None, Some(p)) => (p, literal(l)?),
                    _ => return None,
                };
                match op {
                    "==" => Some(p == k),
                    "!=" => Some(p != k),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn callee_name(&self, f: Node<'t>) -> (String, Option<Node<'t>>) {
        match f.kind_name() {
            "identifier" => (self.t(f).to_string(), None),
            "field_expression" => {
                let name = f
                    .field("field")
                    .map(|x| self.t(x).to_string())
                    .unwrap_or_default();
                (
                    name.rsplit("::").next().unwrap_or("").to_string(),
                    f.field("argument"),
                )
            }
            "qualified_identifier" => (
                self.t(f).rsplit("::").next().unwrap_or("").to_string(),
                None,
            ),
            "template_function" => {
                let n = f
                    .field("name")
                    .map(|x| self.t(x).to_string())
                    .unwrap_or_default();
                (n.rsplit("::").next().unwrap_or("").to_string(), None)
            }
            "parenthesized_expression" => {
                let mut c = f.walk();
                let inner = f.named_children(&mut c).next();
                match inner {
                    Some(i) => self.callee_name(i),
                    None => (String::new(), None),
                }
            }
            _ => (String::new(), None),
        }
    }

    /// A call handed a format string (a string literal with a conversion,
    /// `"%s"`) formats its other arguments into text: logging and tracing
    /// macros (`VLOG_DBG`, `RTE_LOG`, `pr_debug`) read what they are given,
    /// whatever their expansion does with the text.
    fn formats_arguments(&self, args: &[Node<'t>]) -> bool {
        args.iter().any(|a| {
            matches!(a.kind_name(), "string_literal" | "concatenated_string")
                && self.t(*a).contains('%')
        })
    }

    fn call(&mut self, n: Node<'t>) -> Val {
        let Some(fnode) = n.field("function") else {
            return Val::default();
        };
        let (name, receiver) = self.callee_name(fnode);
        let arg_nodes: Vec<Node<'t>> = n
            .field("arguments")
            .map(|al| {
                self.named_kids(al)
                    .iter()
                    .copied()
                    .filter(|k| k.kind_name() != "comment")
                    .collect()
            })
            .unwrap_or_default();
        let recv_val = receiver.map(|r| self.expr(r));
        let arg_vals: Vec<Val> = arg_nodes.iter().map(|a| self.expr(*a)).collect();
        if recv_val.is_none() && returns_running_core(&name) {
            return Val {
                from: [RUNNING_CORE.to_string()].into_iter().collect(),
                ..Default::default()
            };
        }
        if self.collect && self.kind == FnKind::Packet {
            self.note_accelerator_call(&name, n);
            self.note_key_slots(&name, recv_val.as_ref(), &arg_nodes, &arg_vals, n);
            self.note_swapped_entry(&name, &arg_nodes, &arg_vals, n);
            // `!memcmp(&e->src, &k->src, n)` in a search loop's match: an
            // equality of the two addressed members.
            if self.match_depth > 0
                && matches!(name.as_str(), "memcmp" | "bcmp")
                && arg_nodes.len() >= 2
            {
                let (a, b) = (addressed(arg_nodes[0]), addressed(arg_nodes[1]));
                self.collect = false;
                let (av, bv) = (self.expr(a), self.expr(b));
                self.collect = true;
                self.note_match_member(a, &av, b, &bv, n);
            }
        }

        // Header accessors.
        if let Some(rv) = &recv_val {
            if let Some(f) = headers::accessor_field(&name) {
                if rv.fields.contains(&f) || name == "dst_ip_anno" {
                    return Val::field(f);
                }
            }
            if matches!(name.as_str(), "reverse" | "rev") && !rv.fields.is_empty() {
                let mut v = rv.taint();
                v.mixed = true;
                return v;
            }
        }
        if let Some(h) = headers::accessor_hdr(&name) {
            let packet_like = match &recv_val {
                Some(rv) => rv.objs.is_empty() && !rv.root,
                None => !self.prog.fn_index.contains_key(&name),
            };
            if packet_like && (recv_val.is_some() || name.contains('_')) {
                let mut v = Val::hdr(h, 0);
                // rte_pktmbuf_mtod(m, T *) / rte_pktmbuf_mtod_offset(m, T *, off)
                if name.starts_with("rte_pktmbuf_mtod") {
                    if let Some(tn) = arg_nodes.get(1) {
                        let tt = self.t(*tn).replace('*', " ");
                        if let Some(h2) = headers::hdr_of_type(&norm_type(&tt)) {
                            v.hdr = Some(h2);
                        }
                    }
                    if name.ends_with("offset") {
                        let off = arg_vals.get(2).and_then(|a| a.konst);
                        if v.hdr == Some(Hdr::Frame) {
                            v.off = off;
                        }
                    }
                }
                return v;
            }
        }
        if name == "dst_ip_anno" {
            return Val::field(Field::DstIp);
        }
        if headers::flow_id_type(&name).is_some() {
            return self.construct(&name, &arg_vals);
        }
        if is_copy_fn(&name) && arg_nodes.len() >= 2 {
            let src = arg_vals[1].clone();
            // The destination's value before the copy: a pointer into state
            // stays one (the copy writes what it points to).
            let dest = strip(arg_nodes[0]);
            let through_pointer = (dest.kind_name() == "identifier"
                && self.is_local(self.t(dest))
                && self
                    .var_type(self.t(dest))
                    .is_some_and(|t| t.ptr > 0 && t.dims.is_empty())
                && !arg_vals[0].objs.is_empty()
                && !arg_vals[0].root)
                .then(|| arg_vals[0].clone());
            if let Some(dv) = through_pointer {
                // `memcpy(entry, &key, n)` with `entry` a local pointer into
                // state (a handle a lookup or a borrow gave back): the entry
                // it points to is written, as by `*entry = key`; the
                // pointer itself keeps pointing there.
                let objs: BTreeSet<String> = dv.objs.iter().cloned().collect();
                self.storing_packet = src.keyed() && !src.descriptor;
                let key = Val {
                    mixed: false,
                    ..dv.taint()
                };
                self.record_access(&objs, &key, true, false, arg_nodes[0]);
                self.storing_packet = false;
                return Val::default();
            }
            if let Some(dk) = self.path_key(arg_nodes[0]) {
                let mut sv = src.clone();
                if sv.hdr.is_some() {
                    // copying header bytes: the fields in the copied range
                    // (the field at that offset when the length is unknown)
                    if let (Some(h), Some(o)) = (sv.hdr, sv.off) {
                        match arg_vals.get(2).and_then(|a| a.konst).filter(|l| *l > 0) {
                            Some(len) => sv.fields.extend(headers::fields_in(h, o, len)),
                            None => sv.fields.extend(headers::field_at(h, o)),
                        }
                    }
                }
                let direct = self.is_direct_local(arg_nodes[0]);
                if direct {
                    self.narrow_define(&dk, &sv);
                } else if let Some(nw) = self.narrowing.as_deref_mut() {
                    nw.forget(&dk);
                }
                if let Some(sk) = self.path_key(arg_nodes[1]) {
                    self.copy_members(&sk, &dk, direct);
                }
                self.env_join(&dk, &sv.taint());
            }
            let sp = self.path_key(arg_nodes[1]);
            self.write_target(arg_nodes[0], &src, sp);
            return Val::default();
        }
        if is_memset(&name) && !arg_nodes.is_empty() {
            self.write_target(arg_nodes[0], &Val::default(), None);
            return Val::default();
        }
        if matches!(
            name.as_str(),
            "min" | "max" | "MIN" | "MAX" | "clib_min" | "clib_max" | "RTE_MIN" | "RTE_MAX"
        ) && arg_vals.len() == 2
        {
            let (a, b) = (&arg_vals[0], &arg_vals[1]);
            let mixed = a
                .fields
                .iter()
                .any(|f| *f != f.mirror() && b.fields.contains(&f.mirror()));
            let mut v = a.taint().union(&b.taint());
            v.mixed |= mixed;
            return v;
        }

        // In-file functions: interprocedural. Methods of a state container
        // (`_table.find_insert(k)`) are treated as the container's API.
        let recv_is_state = recv_val
            .as_ref()
            .map(|r| !r.objs.is_empty() || r.root)
            .unwrap_or(false);
        let targets: Vec<usize> = if recv_is_state {
            vec![]
        } else {
            self.resolve_call(&name, receiver.is_some())
        };
        if !targets.is_empty() && self.call_string.len() < MAX_DEPTH {
            let mut result = Val::default();
            for ti in targets {
                let mut cs = self.call_string.clone();
                let recursive = cs.iter().step_by(2).any(|f| *f == ti);
                if recursive {
                    continue;
                }
                if self.ctx_ids.len() > MAX_CONTEXTS {
                    cs = vec![usize::MAX, ti];
                } else {
                    cs.push(n.id());
                    cs.push(ti);
                }
                let callee_scope = self.scope_for(ti, &cs);
                // Borrowed from the program, not from the engine: no copy
                // of the parameter list per call.
                let prog = self.prog;
                let params = &prog.fns[ti].params;
                for (i, p) in params.iter().enumerate() {
                    let Some(av) = arg_vals.get(i) else { break };
                    let pk = [callee_scope.as_str(), "|", &p.name].concat();
                    // The cheap test first: classifying the type name
                    // costs a few dozen substring searches.
                    let header = (p.ty.ptr > 0 && av.hdr.is_some())
                        .then(|| headers::hdr_of_type(&p.ty.name))
                        .flatten();
                    // Copied only when it changes.
                    let retyped;
                    let av = match header {
                        Some(h) => {
                            retyped = Val {
                                hdr: Some(h),
                                off: Some(0),
                                ..av.clone()
                            };
                            &retyped
                        }
                        None => av,
                    };
                    // A context of its own (not the shared one past
                    // MAX_CONTEXTS) binds a constant argument once.
                    if cs.first() != Some(&usize::MAX) && !self.param_mutated(ti, &p.name) {
                        // Only a literal (or a named constant) is one value:
                        // a variable's `konst` is a join over its
                        // assignments, not proof that it holds one.
                        let c = self.literal_value(arg_nodes[i]);
                        match self.param_consts.get_mut(&pk) {
                            Some(x) => {
                                if *x != c {
                                    *x = None
                                }
                            }
                            None => {
                                self.param_consts.insert(pk.clone(), c);
                            }
                        }
                    }
                    self.narrow_define(&pk, av);
                    self.env_join(&pk, av);
                    if let Some(ak) = self.path_key(arg_nodes[i]) {
                        self.copy_members(&ak, &pk, true);
                    }
                }
                // receiver of a method call on an object of this class: members are shared (g|)
                let insertish = is_insertish(&self.prog.fns[ti].name)
                    && arg_vals
                        .iter()
                        .chain(recv_val.iter())
                        .any(|a| !a.objs.is_empty() || a.root);
                if insertish {
                    self.insert_depth += 1;
                }
                let guard = self.guard;
                let saved_kind = self.kind;
                self.visit_fn(ti, cs.clone(), guard);
                self.kind = saved_kind;
                if insertish {
                    self.insert_depth -= 1;
                }
                // copy out-parameters back: members, and for `&x` handed to
                // a pointer parameter, what the callee stored through it
                for (i, p) in params.iter().enumerate() {
                    let Some(an) = arg_nodes.get(i) else { break };
                    if let Some(ak) = self.path_key(*an) {
                        let pk = [callee_scope.as_str(), "|", &p.name].concat();
                        self.copy_members(&pk, &ak, false);
                        let a = strip(*an);
                        let addr_of = a.kind_name() == "pointer_expression"
                            && a.field("operator")
                                .map(|o| self.t(o) == "&")
                                .unwrap_or(false);
                        // A pointer parameter handed on (`return
                        // fill(id, port)`): what the callee stored through
                        // it goes back out to this function's caller too.
                        let forwarded = a.kind_name() == "identifier"
                            && self
                                .f()
                                .params
                                .iter()
                                .any(|q| q.name == self.t(a) && q.ty.ptr > 0);
                        if (addr_of || forwarded) && p.ty.ptr > 0 {
                            if let Some(raw) = self.env_get(&pk).cloned() {
                                // Packet data, or a pointer into the packet
                                // (a parser's `*hdr = pos`), comes back out.
                                let stored = Val {
                                    hdr: raw.hdr,
                                    off: raw.off,
                                    ..raw.taint()
                                };
                                if stored.keyed() || !stored.from.is_empty() || stored.hdr.is_some()
                                {
                                    if let Some(nw) = self.narrowing.as_deref_mut() {
                                        nw.may_define(&ak, narrowing::val_mask(&stored));
                                    }
                                    self.env_join(&ak, &stored);
                                }
                            }
                        }
                    }
                }
                let ret = self.rets.get(&callee_scope).cloned();
                self.log_read(|l| l.rets.push((self.log_key(&callee_scope), ret.clone())));
                if let Some(mut r) = ret {
                    if let Some(nw) = self.narrowing.as_deref() {
                        nw.narrow_return(&callee_scope, &mut r);
                    }
                    result.join(&r);
                }
            }
            self.note_handed_back_storage(n, &mut result);
            return result;
        }
        // An API whose body is not here but whose contract is documented
        // (see `contracts`): the lookup the contract describes.
        if targets.is_empty() && recv_val.is_none() {
            if let Some(c) = contracts::find(&name).filter(|c| c.applies(&arg_vals)) {
                return self.contract_call(c, &arg_vals, n);
            }
        }

        // Unknown (library) function. What it returns and writes through
        // its out-parameters derives from what it was given: packet fields
        // flow through, and a pointer into the packet handed to it yields
        // packet bytes of a field the analysis cannot name (opaque). With a
        // state argument it is a keyed access of that state.
        let mut v = Val::default();
        let mut objs = BTreeSet::new();
        let mut key = Val::default();
        let mut any_root = false;
        // A scalar read from state and passed by value is no handle on it:
        // the callee cannot reach the state through it.
        let by_value_scalar: Vec<bool> = arg_nodes
            .iter()
            .map(|an| {
                let a = strip(*an);
                let addr_of = a.kind_name() == "pointer_expression"
                    && a.field("operator")
                        .map(|o| self.t(o) == "&")
                        .unwrap_or(false);
                !addr_of
                    && self.static_type(a).is_some_and(|t| {
                        !t.is_pointerish()
                            && t.dims.is_empty()
                            && headers::scalar_width(self.prog.resolve_type(&t.name)).is_some()
                    })
            })
            .collect();
        let all: Vec<&Val> = recv_val.iter().chain(arg_vals.iter()).collect();
        let packet_pointer_in = all.iter().any(|a| a.hdr.is_some());
        let recv_n = usize::from(recv_val.is_some());
        for (ai, a) in all.iter().enumerate() {
            v.fields.extend(a.fields.iter().copied());
            v.mixed |= a.mixed;
            v.opaque |= a.opaque;
            let scalar = ai >= recv_n && by_value_scalar.get(ai - recv_n).copied().unwrap_or(false);
            v.from.extend(a.from.iter().cloned());
            if !a.objs.is_empty() && !scalar {
                objs.extend(a.objs.iter().cloned());
            } else {
                v.from.extend(a.objs.iter().cloned());
            }
            any_root |= a.root;
        }
        if packet_pointer_in && v.fields.is_empty() {
            v.opaque = true;
        }
        // `&st->member` (one storage cell, not a table or an element): what
        // its value carries is what was stored there, not where it is.
        let cell: Vec<bool> = (0..all.len())
            .map(|ai| {
                ai >= recv_n
                    && !all[ai].objs.is_empty()
                    && self.is_address_of_one_cell(arg_nodes[ai - recv_n])
            })
            .collect();
        // An array member of state handed on (`e->mac`, decayed to its
        // address) is located by where its entry is, not by the bytes
        // some earlier packet stored in it: those say which entry the
        // walk is at, not which one this packet's fields choose.
        let located: Vec<Val> = all
            .iter()
            .enumerate()
            .map(|(ai, a)| {
                let member = (ai >= recv_n && !a.objs.is_empty())
                    .then(|| strip(arg_nodes[ai - recv_n]))
                    .filter(|x| x.kind_name() == "field_expression")
                    .filter(|x| {
                        self.static_type(*x)
                            .is_some_and(|t| !t.dims.is_empty() && t.ptr == 0)
                    });
                match member.and_then(|x| x.field("argument")) {
                    Some(base) => {
                        let saved = self.collect;
                        self.collect = false;
                        let bv = self.expr(base);
                        self.collect = saved;
                        Val {
                            fields: bv.fields,
                            mixed: bv.mixed,
                            opaque: bv.opaque,
                            alternatives: bv.alternatives,
                            ..(*a).clone()
                        }
                    }
                    None => (*a).clone(),
                }
            })
            .collect();
        let all: Vec<&Val> = located.iter().collect();
        // A handle on an entry already located (`&table[i]`) says where the
        // access goes; the other arguments are values handed along. A handle
        // on a whole table (`h`) is located by the other arguments (the key).
        let located_handle = all
            .iter()
            .zip(&cell)
            .any(|(a, c)| !c && !a.objs.is_empty() && a.keyed());
        // `memcmp(&st->clock_id, &hdr->clock_id, 8)`: the address of one
        // member (not a table, not an element) is one storage cell; a call
        // handed only such cells and packet data compares or copies values,
        // it locates no entry.
        let state_args: Vec<bool> = arg_nodes
            .iter()
            .zip(arg_vals.iter())
            .filter(|(_, a)| !a.objs.is_empty())
            .map(|(an, _)| self.is_address_of_one_cell(*an))
            .collect();
        let only_cells = recv_val.as_ref().is_none_or(|r| r.objs.is_empty())
            && !state_args.is_empty()
            && state_args.iter().all(|c| *c);
        for (a, c) in all.iter().zip(&cell) {
            if only_cells {
                break;
            }
            let locates = if located_handle {
                !c && !a.objs.is_empty() && a.keyed()
            } else if *c {
                false
            } else {
                a.objs.is_empty() || a.keyed()
            };
            if locates {
                key.join(&a.taint());
                if a.hdr.is_some() && !a.descriptor && a.objs.is_empty() && a.fields.is_empty() {
                    key.opaque = true;
                }
            }
        }
        // Argument positions handed state: not a scalar read from it, and
        // not the caller's own storage holding pointers into it (a local
        // array `void *res[n]` or `&res` filled by a lookup: the callee
        // writes the local, not the state).
        let state_positions: Vec<usize> = (0..arg_vals.len())
            .filter(|i| {
                let own_storage = arg_nodes.get(*i).is_some_and(|an| {
                    let a = strip(*an);
                    let local =
                        |x: Node<'t>| x.kind_name() == "identifier" && self.is_local(self.t(x));
                    let addr_of_local = a.kind_name() == "pointer_expression"
                        && a.field("operator").is_some_and(|o| self.t(o) == "&")
                        && a.field("argument").map(strip).is_some_and(local);
                    addr_of_local
                        || (local(a)
                            && self.var_type(self.t(a)).is_some_and(|t| !t.dims.is_empty()))
                });
                !arg_vals[*i].objs.is_empty()
                    && !by_value_scalar.get(*i).copied().unwrap_or(false)
                    && !own_storage
            })
            .collect();
        let packet_in = v.keyed() || packet_pointer_in;
        // What a parser the analysis cannot see fills, as its declaration
        // names it: `int parse(struct pkt_hdr *p, in_port_t *sport,
        // in_port_t *dport)`, handed the packet (data from it, or the record
        // a framework keeps it in), hands its ports out through `sport` and
        // `dport`.
        // The prototype is looked up first: most callees have none, and
        // the record test types every argument.
        let declared = declared_field_out_params(self.prog, &name, arg_nodes.len());
        let declared = if !declared.is_empty()
            && (packet_in || arg_nodes.iter().any(|an| self.hands_a_packet_record(*an)))
        {
            declared
        } else {
            vec![]
        };
        // Handed state and no packet data (`alloc_index(pool, &i)`,
        // `borrow(vec, i, &entry)`): what it writes through an
        // out-parameter derives from that state, a position it hands out
        // or a handle on one of its entries.
        let state_only = !packet_in && !objs.is_empty();
        let mut hands_out_value = false;
        if packet_in || state_only || !declared.is_empty() {
            // Out-parameters: `&x`, `&x.m`, and local arrays/buffers.
            for (ai, (an, av)) in arg_nodes.iter().zip(arg_vals.iter()).enumerate() {
                if !(packet_in || state_only || matches!(declared.get(ai), Some(Some(_)))) {
                    continue;
                }
                let a = strip(*an);
                let target = if a.kind_name() == "pointer_expression"
                    && a.field("operator")
                        .map(|o| self.t(o) == "&")
                        .unwrap_or(false)
                {
                    a.field("argument").map(strip)
                } else if a.kind_name() == "identifier"
                    && self.is_local(self.t(a))
                    && av.objs.is_empty()
                    && av.hdr.is_none()
                    && !av.keyed()
                    && self
                        .var_type(self.t(a))
                        .map(|t| !t.dims.is_empty())
                        .unwrap_or(false)
                {
                    Some(a)
                } else {
                    None
                };
                let Some(target) = target else { continue };
                // From state alone, only a local scalar or pointer is
                // handed out (`&index`, `&entry`): a struct or buffer handed
                // by address is the callee's input (a digest context), and
                // a member or element is storage of its own.
                if state_only
                    && !(target.kind_name() == "identifier"
                        && self.is_local(self.t(target))
                        && self.var_type(self.t(target)).is_some_and(|t| {
                            t.dims.is_empty()
                                && (t.ptr > 0
                                    || headers::scalar_width(self.prog.resolve_type(&t.name))
                                        .is_some())
                        }))
                {
                    continue;
                }
                let Some(tk) = self.path_key(target) else {
                    continue;
                };
                if !tk.contains('|') || tk.starts_with("g|") {
                    continue; // globals and members are state, not out-parameters
                }
                let cur = self.env_read(&tk);
                // Already holding state or packet data: an input (a key
                // passed by address), not an out-parameter.
                if !cur.objs.is_empty() || cur.root || cur.keyed() || cur.hdr.is_some() {
                    continue;
                }
                let scalar_target = self.static_type(target).is_some_and(|t| {
                    !t.is_pointerish()
                        && t.dims.is_empty()
                        && headers::scalar_width(self.prog.resolve_type(&t.name)).is_some()
                });
                // A scalar the declaration names for a header field is that
                // field, whatever state the parser was also handed: a port
                // is no handle on an entry.
                if let (true, Some(Some(f))) = (scalar_target, declared.get(ai)) {
                    let out = Val::field(*f);
                    if let Some(nw) = self.narrowing.as_deref_mut() {
                        nw.may_define(&tk, narrowing::val_mask(&out));
                    }
                    self.env_join(&tk, &out);
                    continue;
                }
                if !(packet_in || state_only) {
                    continue;
                }
                let handle = target.kind_name() == "identifier"
                    && self.var_type(self.t(target)).is_some_and(|t| t.ptr > 0);
                let mut out = if objs.is_empty() {
                    key.clone()
                } else if state_only {
                    // Computed from the state alone: a handle on one of its
                    // entries, or a value (an index it hands out, a count).
                    let from: NameSet = key.from.iter().cloned().collect();
                    if handle {
                        Val {
                            objs: NameSet::from(objs.clone()),
                            from,
                            ..Default::default()
                        }
                    } else {
                        hands_out_value = true;
                        let mut from = from;
                        from.extend(objs.iter().cloned());
                        Val {
                            from,
                            ..Default::default()
                        }
                    }
                } else {
                    // A keyed lookup's result, or a handle on an entry:
                    // where the entry is.
                    Val {
                        objs: NameSet::from(objs.clone()),
                        ..key.clone()
                    }
                };
                if objs.is_empty() && packet_pointer_in {
                    out.opaque |= out.fields.is_empty();
                    // A header pointer filled in by an accessor.
                    if target.kind_name() == "identifier" {
                        if let Some(tr) = self.var_type(self.t(target)) {
                            if tr.ptr > 0 {
                                out.hdr = headers::hdr_of_type(&tr.name).or(Some(Hdr::Frame));
                                out.off = Some(0);
                                out.opaque = false;
                            }
                        }
                    }
                }
                if let Some(nw) = self.narrowing.as_deref_mut() {
                    nw.may_define(&tk, narrowing::val_mask(&out));
                }
                self.env_join(&tk, &out);
            }
        }
        // Unseen code that hands out a value from state it may write (an
        // allocator's next free index): the state may be a cursor the
        // packet path advances (see `Events::handed_out`).
        if hands_out_value
            && self.collect
            && self.kind == FnKind::Packet
            && !self.callee_reads_only(&name, &state_positions)
        {
            self.events.handed_out.extend(objs.iter().cloned());
        }
        // Storage handed back by unseen code is judged only by what the
        // analysis sees done to it (`note_handed_back_storage`): handing
        // it on to more unseen code is no hidden state.
        let only_handed_back = objs.iter().all(|o| {
            self.events
                .handed_back
                .contains(o.split_once('.').map_or(o.as_str(), |(w, _)| w))
        });
        if !objs.is_empty()
            && !only_handed_back
            && self.collect
            && self.kind == FnKind::Packet
            && !self.callee_reads_only(&name, &state_positions)
        {
            self.events
                .hidden_state_calls
                .push((name.clone(), self.file(), Self::line(n)));
        }
        if objs.is_empty()
            && !key.fields.is_empty()
            && self.collect
            && self.kind == FnKind::Packet
            && self.result_held_as_struct_pointer(n)
        {
            self.events
                .external_lookups
                .push((name.clone(), self.file(), Self::line(n)));
        }
        if self.collect
            && self.kind == FnKind::Packet
            && self.prog.fn_macros.contains(&name)
            && (packet_in || !objs.is_empty() || any_root)
            && !self.in_inactive_ifdef(n)
            && !self.formats_arguments(&arg_nodes)
        {
            self.events
                .blind_calls
                .push((name.clone(), self.file(), Self::line(n)));
        }
        if !objs.is_empty() && is_writeish(&name) {
            // What a container API stores, later reads of the container
            // return: keep what the stored values were computed from.
            let stored_from: NameSet = all
                .iter()
                .filter(|a| a.objs.is_empty())
                .flat_map(|a| a.from.iter().cloned())
                .collect();
            if !stored_from.is_empty() {
                for o in &objs {
                    self.env_join(
                        &format!("@{o}"),
                        &Val {
                            from: stored_from.clone(),
                            ..Default::default()
                        },
                    );
                }
            }
        }
        if !objs.is_empty() {
            v.objs = NameSet::from(objs.clone());
            v.lookup = key.keyed();
            key.handed |= all.iter().any(|a| !a.objs.is_empty() && a.handed);
            if key.locates() {
                let write = is_writeish(&name);
                let ins = is_insertish(&name);
                self.record_access(&objs, &key, write, ins, n);
            } else if is_writeish(&name) {
                self.record_access(&objs, &key, true, is_insertish(&name), n);
            }
        }
        // Storage handed back by code the analysis cannot see, given no
        // packet data and no state it knows (`net_generic(net, id)`, a
        // per-namespace or per-CPU area), held as a pointer to a struct:
        // where it lives is the framework's choice, as for an object the
        // caller hands in, and it is judged like one (state when the
        // packet path records packet data in it and reads it back).
        if objs.is_empty() && !packet_in && !any_root {
            self.note_handed_back_storage(n, &mut v);
        }
        let _ = any_root;
        // Header pointers passed through helpers (e.g. ip4_next_header) stay packet pointers.
        if let Some(a) = arg_vals.first() {
            if a.hdr.is_some() && v.fields.is_empty() && name.contains("header") {
                v.hdr = Some(Hdr::Frame);
            }
        }
        v
    }

    /// A call of an API with a documented contract (`contracts`): a keyed
    /// read of the contract's table, whose result points at the entry.
    /// What the NF then stores through that pointer is its write of the
    /// entry (the ordinary rule for pointers into state); the table's
    /// other properties become events like the code's own: a lookup that
    /// follows links, both directions reaching one entry.
    fn contract_call(
        &mut self,
        c: &'static contracts::Contract,
        arg_vals: &[Val],
        n: Node<'t>,
    ) -> Val {
        let key = c.key(arg_vals);
        let objs: BTreeSet<String> = [c.table.to_string()].into_iter().collect();
        self.record_access(&objs, &key, false, false, n);
        if self.collect && self.kind == FnKind::Packet {
            let (file, line) = (self.file(), Self::line(n));
            if c.both_directions {
                self.events.sym.push(SymEvidence {
                    obj: c.table.to_string(),
                    file,
                    line,
                    reason: format!("`{}`: {}", c.api, c.source),
                });
            }
            if c.chained {
                self.events.chases.push(Chase {
                    objs: objs.clone(),
                    file,
                    line,
                });
            }
        }
        Val {
            objs: NameSet::from(objs),
            lookup: key.keyed(),
            ..key
        }
    }

    /// `v`, the result of `call` that carries nothing the analysis can
    /// trace (no packet data, no known state), is storage handed back by
    /// code it cannot see when it is held as a pointer to a struct
    /// (`dn = net_generic(net, id)`, a per-namespace or per-CPU area, or a
    /// helper returning one): where it lives is the framework's choice, as
    /// for an object the caller hands in, and it is judged like one —
    /// state when the packet path records packet data in it and reads it
    /// back, and, as nothing says it persists, only when the packet path
    /// locates entries in it by packet data (a table, not a scratch area).
    fn note_handed_back_storage(&mut self, call: Node<'t>, v: &mut Val) {
        // Values it was computed from (an id read from a global) are no
        // trace of where it points.
        let traced = !v.objs.is_empty()
            || v.root
            || v.hdr.is_some()
            || v.descriptor
            || v.locates()
            || v.konst.is_some();
        if self.kind != FnKind::Packet || traced {
            return;
        }
        // Given a handle (a pointer: a namespace, a device, a table): an
        // allocator given only sizes and flags returns fresh storage,
        // which is judged where it is put.
        let mut c = call.walk();
        let handle = call.field("arguments").is_some_and(|al| {
            al.named_children(&mut c)
                .any(|a| self.static_type(a).is_some_and(|t| t.is_pointerish()))
        });
        if !handle {
            return;
        }
        let Some(var) = self.struct_pointer_holding_result(call) else {
            return;
        };
        let obj = format!("*{var}");
        self.events.caller_objs.insert(obj.clone());
        self.events.handed_back.insert(obj.clone());
        v.objs.insert(obj.clone());
        v.direct.insert(obj);
        v.handed = true;
    }

    /// `&x.m`, `&p->m` or `&g` where the member or global is neither an
    /// array nor a container: one storage cell.
    /// An argument that is a packet record (`pkt` or `&pkt`, its type one
    /// of the packet types `field_expr` reads headers through).
    fn hands_a_packet_record(&self, arg: Node<'t>) -> bool {
        let a = strip(arg);
        let (x, deref) = match address_of(a) {
            Some(inner) => (strip(inner), 1),
            None => (a, 0),
        };
        self.static_type(x).is_some_and(|t| {
            t.ptr + deref == 1
                && t.dims.is_empty()
                && is_packet_type(self.prog.resolve_type(&t.name))
        })
    }

    fn is_address_of_one_cell(&self, arg: Node<'t>) -> bool {
        let a = strip(arg);
        let addr_of = a.kind_name() == "pointer_expression"
            && a.field("operator")
                .map(|o| self.t(o) == "&")
                .unwrap_or(false);
        let Some(target) = addr_of.then(|| a.field("argument")).flatten().map(strip) else {
            return false;
        };
        if !matches!(target.kind_name(), "field_expression" | "identifier") {
            return false;
        }
        self.static_type(target).is_some_and(|t| {
            t.dims.is_empty() && t.ptr == 0 && !is_container_type(self.prog.resolve_type(&t.name))
        })
    }

    /// The call's result is stored in a variable that points to a struct
    /// which is neither a packet header nor a packet descriptor.
    fn result_held_as_struct_pointer(&self, call: Node<'t>) -> bool {
        self.struct_pointer_holding_result(call).is_some()
    }

    /// The variable a call's result is stored in, when it points to a
    /// struct which is neither a packet header nor a packet descriptor.
    fn struct_pointer_holding_result(&self, call: Node<'t>) -> Option<&'t str> {
        let parent = call.parent()?;
        let target = match parent.kind_name() {
            "assignment_expression" => parent.field("left"),
            "init_declarator" => parent.field("declarator"),
            _ => None,
        };
        let target = target.map(strip)?;
        let name = if target.kind_name() == "pointer_declarator" {
            target.field("declarator").map(|d| self.t(d))
        } else if target.kind_name() == "identifier" {
            Some(self.t(target))
        } else {
            None
        }?;
        let ty = self.var_type(name)?;
        let resolved = self.prog.resolve_type(&ty.name);
        (ty.ptr == 1
            && self.prog.structs.contains_key(resolved)
            && headers::hdr_of_type(resolved).is_none()
            && !is_packet_type(resolved))
        .then_some(name)
    }

    fn note_key_slots(
        &mut self,
        name: &str,
        recv: Option<&Val>,
        arg_nodes: &[Node<'t>],
        arg_vals: &[Val],
        n: Node<'t>,
    ) {
        let mut objs: BTreeSet<String> = BTreeSet::new();
        for v in recv.into_iter().chain(arg_vals.iter()) {
            if !v.root && v.fields.is_empty() {
                objs.extend(v.objs.iter().cloned());
            }
        }
        if objs.is_empty() {
            return;
        }
        // Which part of the state the call is handed (`list`, `e->d_name`):
        // the members below the variable that holds it.
        let handed: Vec<String> = arg_nodes
            .iter()
            .zip(arg_vals)
            .filter(|(_, v)| !v.root && v.fields.is_empty() && !v.objs.is_empty())
            .map(|(an, _)| {
                self.path_key(*an)
                    .and_then(|k| {
                        let path = k.rsplit('|').next()?;
                        Some(
                            path.find('.')
                                .map_or(String::new(), |i| path[i..].to_string()),
                        )
                    })
                    .unwrap_or_else(|| "?".into())
            })
            .collect();
        for (ai, (an, av)) in arg_nodes.iter().zip(arg_vals).enumerate() {
            if !av.objs.is_empty() || av.fields.is_empty() {
                continue;
            }
            // Slots are named by argument position and member: the source
            // address handed as one argument and the destination as the
            // next are two parts of one key, not one part seen mirrored.
            let at = format!("#{ai}");
            let mut slots: BTreeMap<String, BTreeSet<Field>> = BTreeMap::new();
            match self.path_key(*an) {
                Some(k) => {
                    if let Some(x) = self.env_get(&k) {
                        if !x.fields.is_empty() {
                            slots.insert(at.clone(), x.fields.to_set());
                        }
                    }
                    let lo = format!("{k}.");
                    let hi = format!("{k}/");
                    for (kk, x) in self.env.range(&lo, &hi).map(|(k, s)| (k, &s.val)) {
                        if !x.fields.is_empty() {
                            slots
                                .entry([at.as_str(), &kk[k.len()..]].concat())
                                .or_default()
                                .extend(x.fields.iter().copied());
                        }
                    }
                }
                None => {
                    slots.insert(at, av.fields.to_set());
                }
            }
            if slots.is_empty() {
                continue;
            }
            for o in &objs {
                self.events.key_slots.push(KeySlots {
                    obj: o.clone(),
                    handed: handed.clone(),
                    slots: slots.clone(),
                    insertish: is_insertish(name),
                    file: self.file(),
                    line: Self::line(n),
                });
            }
        }
    }

    fn resolve_call(&self, name: &str, method: bool) -> Vec<usize> {
        let Some(c) = self.prog.fn_index.get(name) else {
            return vec![];
        };
        let with_body: Vec<usize> = c
            .iter()
            .copied()
            .filter(|i| self.prog.fns[*i].body.is_some())
            .collect();
        if method || with_body.len() <= 1 {
            return with_body;
        }
        // Prefer the method of the current class.
        let cls = &self.f().class;
        let same: Vec<usize> = with_body
            .iter()
            .copied()
            .filter(|i| &self.prog.fns[*i].class == cls)
            .collect();
        if same.is_empty() {
            with_body
        } else {
            same
        }
    }

    // ------------------------------------------------------------ guards

    /// Is `cond` (negated or not) a rare event: a lookup miss, an empty slot,
    /// or a TCP connection-setup/teardown flag?
    fn rare(&mut self, cond: Node<'t>, negated: bool) -> bool {
        let c = strip(cond);
        match c.kind_name() {
            "unary_expression"
                if c.field("operator")
                    .map(|o| self.t(o) == "!")
                    .unwrap_or(false) =>
            {
                let Some(a) = c.field("argument") else {
                    return false;
                };
                self.rare(a, !negated)
            }
            "binary_expression" => {
                let op = c
                    .field("operator")
                    .map(|o| self.t(o).to_string())
                    .unwrap_or_default();
                let (Some(l), Some(r)) = (c.field("left"), c.field("right")) else {
                    return false;
                };
                match op.as_str() {
                    "&&" if !negated => self.rare(l, false) || self.rare(r, false),
                    "||" if negated => self.rare(l, true) || self.rare(r, true),
                    "&&" | "||" => self.rare(l, negated) && self.rare(r, negated),
                    "==" | "!=" | "<" | ">=" | "<=" | ">" => {
                        let rt = self.t(r).trim().to_string();
                        let lt = self.t(l).trim().to_string();
                        let null_ptr =
                            |s: &str| matches!(s, "NULL" | "nullptr" | "(void *)0" | "((void *)0)");
                        let zero = |s: &str| matches!(s, "0" | "0UL" | "0u" | "0U");
                        let end_iter = |s: &str| {
                            s.ends_with(".end()") || s.ends_with("->end()") || s == "end()"
                        };
                        let neg_code = |s: &str| s.starts_with('-');
                        let (subject, other) =
                            if null_ptr(&lt) || zero(&lt) || end_iter(&lt) || neg_code(&lt) {
                                (r, lt)
                            } else {
                                (l, rt)
                            };
                        let pointer_sem = null_ptr(&other)
                            || end_iter(&other)
                            || (zero(&other) && self.is_pointer_expr(subject));
                        // miss when the comparison is true?
                        let miss_when_true = if pointer_sem {
                            match op.as_str() {
                                "==" => Some(true),
                                "!=" => Some(false),
                                _ => None,
                            }
                        } else if zero(&other) {
                            // status codes: 0 (or >= 0) means found
                            match op.as_str() {
                                "==" | ">=" => Some(false),
                                "!=" | "<" => Some(true),
                                _ => None,
                            }
                        } else if neg_code(&other) {
                            match op.as_str() {
                                "==" | "<=" => Some(true),
                                "!=" | ">" => Some(false),
                                _ => None,
                            }
                        } else {
                            None
                        };
                        if let Some(mwt) = miss_when_true {
                            if self.is_state_pointer(subject) {
                                return mwt != negated;
                            }
                        }
                        if !negated
                            && (self.is_change_test(&op, l, r) || self.is_ageing_test(&op, l, r))
                        {
                            return true;
                        }
                        !negated && self.is_flag_test(c)
                    }
                    "&" => !negated && self.is_flag_test(c),
                    _ => false,
                }
            }
            "identifier" | "field_expression" | "call_expression" | "subscript_expression" => {
                if !negated && self.is_flag_test(c) {
                    return true;
                }
                // `if (entry_is_recent(h, now)) return …;`: a helper whose
                // result is an ageing test of the entry reads as that test.
                if c.kind_name() == "call_expression" {
                    if let Some(aged) = self.calls_ageing_test(c) {
                        return aged != negated;
                    }
                }
                // `if (port_in_list(host, port)) return;`: a helper that
                // searches state it is handed and answers whether it found
                // the packet's value; false is the miss.
                if c.kind_name() == "call_expression" && self.calls_found_search(c) {
                    return negated;
                }
                // `if (!e)` → miss; `if (e)` → hit (for status codes the reverse).
                if self.is_state_pointer(c) {
                    return if self.is_pointer_expr(c) {
                        negated
                    } else {
                        !negated
                    };
                }
                false
            }
            _ => false,
        }
    }

    /// A block that ends its path unless a rare test let it through:
    /// `{ if (recent(e)) return …; e->key = 0; unlink(e); }` (a hit on a
    /// live entry returns; only an aged one falls through to be replaced).
    fn leaves_only_on_rare_paths(&mut self, block: Node<'t>) -> bool {
        if block.kind_name() != "compound_statement" {
            return false;
        }
        let mut c = block.walk();
        let kids: Vec<Node<'t>> = block.named_children(&mut c).collect();
        kids.into_iter().any(|k| {
            k.kind_name() == "if_statement"
                && k.field("alternative").is_none()
                && k.field("consequence").is_some_and(always_exits)
                && k.field("condition").is_some_and(|c| self.rare(c, true))
        })
    }

    /// Whether a returned expression is an ageing test of an entry
    /// (`now - h->stamp <= limit`, alone or as a term of an `&&` chain):
    /// `Some(true)` when a true result means the entry aged.
    fn ageing_polarity(&mut self, e: Node<'t>) -> Option<bool> {
        let e = strip(e);
        if e.kind_name() != "binary_expression" {
            return None;
        }
        let op = self.t(e.field("operator")?).to_string();
        let (l, r) = (e.field("left")?, e.field("right")?);
        match op.as_str() {
            // `recent && …` is true only when recent; `aged || …` is true
            // whenever aged. The other combinations decide nothing.
            "&&" => [l, r]
                .into_iter()
                .find_map(|x| self.ageing_polarity(x).filter(|aged| !aged)),
            "||" => [l, r]
                .into_iter()
                .find_map(|x| self.ageing_polarity(x).filter(|aged| *aged)),
            // `is_ageing_test` recognises the tests true when aged
            // (`now - t > limit`); their negations (`now - t <= limit`)
            // are true when recent.
            ">" | ">=" | "<" | "<=" if self.is_ageing_test(&op, l, r) => Some(true),
            ">" | ">=" | "<" | "<=" => {
                let negation = match op.as_str() {
                    ">" => "<=",
                    ">=" => "<",
                    "<" => ">=",
                    _ => ">",
                };
                self.is_ageing_test(negation, l, r).then_some(false)
            }
            _ => None,
        }
    }

    /// The one definition of the function a call names, if the code has
    /// exactly one.
    fn sole_definition(&self, call: Node<'t>) -> Option<usize> {
        let (name, _) = self.callee_name(call.field("function")?);
        match self.prog.fn_index.get(&name)?.as_slice() {
            [ix] => Some(*ix),
            _ => None,
        }
    }

    /// A call of a visible function whose result is an ageing test (see
    /// `ageing_results`): `Some(true)` when a true result means aged.
    fn calls_ageing_test(&self, call: Node<'t>) -> Option<bool> {
        let ix = self.sole_definition(call)?;
        self.log_read(|l| l.ageing = Some(self.ageing_changes));
        self.ageing_results.get(&ix).copied().flatten()
    }

    /// A call of a visible function that is a membership search of state
    /// it is handed (see [`reports_found`]).
    fn calls_found_search(&mut self, call: Node<'t>) -> bool {
        let (Some(ix), Some(args)) = (self.sole_definition(call), call.field("arguments")) else {
            return false;
        };
        // A syntactic property of the callee, asked at every visit of each
        // condition that calls it: decided once.
        let prog = self.prog;
        let searches = *self.found_searches.entry(ix).or_insert_with(|| {
            let def = &prog.fns[ix];
            def.body
                .is_some_and(|b| reports_found(b, prog.src(def.file)))
        });
        if !searches {
            return false;
        }
        let mut c = args.walk();
        let kids: Vec<Node<'t>> = args.named_children(&mut c).collect();
        let mut handed_state = false;
        let mut handed_packet = false;
        for a in kids {
            let v = self.expr_quiet(a);
            handed_state |= !v.objs.is_empty() && !v.root;
            handed_packet |= v.keyed();
        }
        handed_state && handed_packet
    }

    /// Does the expression have pointer (or iterator) type, as opposed to a status code?
    fn is_pointer_expr(&self, n: Node<'t>) -> bool {
        let n = strip(n);
        match n.kind_name() {
            "identifier" => self
                .var_type(self.t(n))
                .map(|t| t.is_pointerish() || t.name == "auto" || t.name.contains("iterator"))
                .unwrap_or(true),
            "call_expression" => {
                let Some(f) = n.field("function") else {
                    return true;
                };
                let (name, recv) = self.callee_name(f);
                if let Some(ix) = self.prog.fn_index.get(&name).and_then(|v| v.first()) {
                    let fd = &self.prog.fns[*ix];
                    let decl = fd.node.field("declarator");
                    return decl
                        .map(|d| {
                            d.kind_name() == "pointer_declarator"
                                || d.kind_name() == "reference_declarator"
                        })
                        .unwrap_or(false);
                }
                let l = name.to_ascii_lowercase();
                if recv.is_some() {
                    return true;
                }
                !(l.contains("search")
                    || (l.contains("lookup") && !l.contains("elem"))
                    || l.contains("add")
                    || l.contains("del"))
            }
            _ => true,
        }
    }

    fn is_state_pointer(&mut self, n: Node<'t>) -> bool {
        let v = self.expr_quiet(n);
        (!v.objs.is_empty() && !v.root) || v.lookup
    }

    /// `e->port != pkt->in_port`: a stored value compared with a fresh one
    /// (the entry is rewritten only when it changed).
    fn is_change_test(&mut self, op: &str, l: Node<'t>, r: Node<'t>) -> bool {
        if op != "!=" {
            return false;
        }
        let ls = self.is_state_slot(l);
        let rs = self.is_state_slot(r);
        (ls && !rs && !self.is_constant(r)) || (rs && !ls && !self.is_constant(l))
    }

    /// `now - e->last > timeout`: an entry aged past a threshold.
    fn is_ageing_test(&mut self, op: &str, l: Node<'t>, r: Node<'t>) -> bool {
        let (diff, _other) = match op {
            ">" | ">=" => (l, r),
            "<" | "<=" => (r, l),
            _ => return false,
        };
        let d = strip(diff);
        if d.kind_name() != "binary_expression"
            || d.field("operator")
                .map(|o| self.t(o) != "-")
                .unwrap_or(true)
        {
            return false;
        }
        let Some(sub) = d.field("right") else {
            return false;
        };
        self.is_state_slot(sub)
    }

    fn is_state_slot(&mut self, n: Node<'t>) -> bool {
        let n = strip(n);
        matches!(n.kind_name(), "field_expression" | "subscript_expression")
            && self
                .state_ref_quiet(n)
                .map(|(o, _, _, root)| !o.is_empty() && !root)
                .unwrap_or(false)
    }

    fn is_constant(&mut self, n: Node<'t>) -> bool {
        let v = self.expr_quiet(n);
        v.konst.is_some()
    }

    fn is_flag_test(&self, n: Node<'t>) -> bool {
        let t = self.t(n);
        let up = t.to_ascii_uppercase();
        ["SYN", "FIN", "RST"].iter().any(|w| has_word_part(&up, w)) && !up.contains("SYNC")
    }

    // ------------------------------------------------------------ accelerators

    fn note_accelerator_call(&mut self, name: &str, n: Node<'t>) {
        /// Callee-name fragments that mark a call as work an accelerator
        /// could take (Clara's accelerator mapping).
        const HINTS: [(Accelerator, &[&str]); 4] = [
            (Accelerator::Crc, &["crc"]),
            (Accelerator::Checksum, &["csum", "cksum", "checksum"]),
            (
                Accelerator::Hash,
                &["hash", "jhash", "murmur", "fnv", "xxhash"],
            ),
            (
                Accelerator::Lpm,
                &[
                    "lpm",
                    "fib",
                    "radix",
                    "trie",
                    "longest_prefix",
                    "lookup_route",
                ],
            ),
        ];
        let l = name.to_ascii_lowercase();
        let (file, line) = (self.file(), Self::line(n));
        for (accel, fragments) in HINTS {
            if fragments.iter().any(|f| l.contains(f)) {
                self.events
                    .accels
                    .entry(accel)
                    .or_insert((file, line, format!("calls `{name}`")));
            }
        }
    }

    fn scan_accelerator_constants(&mut self, fi: usize) {
        let f = &self.prog.fns[fi];
        let Some(body) = f.body else { return };
        let t = text(body, self.prog.src(f.file)).to_ascii_lowercase();
        let line = body.start_position().row as u32 + 1;
        let file = f.file;
        let name = f.name.clone();
        let mut add = |a: Accelerator, why: &str| {
            self.events
                .accels
                .entry(a)
                .or_insert((file, line, format!("`{name}` {why}")));
        };
        if [
            "0xedb88320",
            "0x04c11db7",
            "0x82f63b78",
            "0x1edc6f41",
            "_mm_crc32",
        ]
        .iter()
        .any(|c| t.contains(c))
        {
            add(Accelerator::Crc, "uses a CRC polynomial or instruction");
        }
        if [
            "16777619",
            "0x01000193",
            "2166136261",
            "0x811c9dc5",
            "0x85ebca6b",
            "0xcc9e2d51",
            "0x9e3779b9",
            "0xc2b2ae35",
        ]
        .iter()
        .any(|c| t.contains(c))
        {
            add(
                Accelerator::Hash,
                "uses hash-function constants (FNV/murmur/jhash)",
            );
        }
        if t.contains(">> 16") && t.contains("0xffff") && (t.contains('~') || t.contains("sum")) {
            add(Accelerator::Checksum, "folds a ones'-complement checksum");
        }
        if (t.contains("prefix")
            || t.contains("plen")
            || t.contains("depth")
            || t.contains("masklen"))
            && t.contains("& ")
            && (t.contains("best") || t.contains("longest"))
        {
            add(Accelerator::Lpm, "selects the longest matching prefix");
        }
    }
}

/// `key` with at most [`MAX_PATH_MEMBERS`] member segments after its root.
fn k_limit(key: &str) -> &str {
    // Bytes, not chars: `|` and `.` are ASCII, so a byte that is one is
    // never inside a multi-byte char, and the slice ends on a boundary.
    let b = key.as_bytes();
    let root_end = b.iter().position(|&c| c == b'|').map_or(0, |i| i + 1);
    let mut members = 0;
    for (i, &c) in b.iter().enumerate().skip(root_end) {
        if c == b'.' {
            members += 1;
            if members > MAX_PATH_MEMBERS {
                return &key[..i];
            }
        }
    }
    key
}

fn program_norm(t: &str) -> String {
    norm_type(t)
}

/// Containers whose lookups are keyed API calls (not plain structs).
fn is_container_type(t: &str) -> bool {
    let l = t.to_ascii_lowercase();
    l.contains("hash")
        || l.contains("map")
        || l.contains("table")
        || l.contains("bihash")
        || l.contains("pool")
        || l.contains("vector")
        || l.contains("list")
}

fn is_from_packet(v: &Val) -> bool {
    v.hdr.is_some()
}

/// `value` is a call the analysis cannot see that was handed the packet
/// (its result is packet data of no nameable field and points into no
/// state): held as a header pointer (`const struct ipv6hdr *ip6h =
/// ipv6_hdr(skb)`, `skb_header_pointer(…)`), it points at that header of
/// the packet, as a named accessor's result does.
fn returned_into_packet(v: &Val, value: Node) -> bool {
    v.hdr.is_none()
        && v.opaque
        && v.fields.is_empty()
        && v.objs.is_empty()
        && !v.root
        && !v.descriptor
        && strip(value).kind_name() == "call_expression"
}

/// Does `expr` read the location `target` names (the same identifier or
/// member path, by text)?
fn mentions_path(e: &Engine, expr: Node, target: Node) -> bool {
    let want = e.t(strip(target)).trim();
    let mut stack = vec![expr];
    while let Some(n) = stack.pop() {
        if matches!(n.kind_name(), "identifier" | "field_expression") && e.t(n).trim() == want {
            return true;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

/// A subscript that picks one of two halves by a selector: `(sel, 1)` for
/// `sel` itself or `sel ? 1 : 0`, `(sel, 2)` for its complement (`!sel`,
/// `sel ? 0 : 1`, `1 - sel`, `sel ^ 1`). `None` for anything else.
fn direction_selector<'t>(e: &Engine<'_, 't>, index: Node<'t>) -> Option<(Node<'t>, u8)> {
    let i = strip(index);
    let lit = |n: Node<'t>| e.t(strip(n)).trim().parse::<i64>().ok();
    match i.kind_name() {
        "identifier" | "field_expression" => Some((i, 1)),
        "conditional_expression" => {
            let c = strip(i.field("condition")?);
            match (lit(i.field("consequence")?)?, lit(i.field("alternative")?)?) {
                (1, 0) => Some((c, 1)),
                (0, 1) => Some((c, 2)),
                _ => None,
            }
        }
        "unary_expression" if i.child(0).is_some_and(|o| o.kind() == "!") => {
            let a = strip(i.field("argument")?);
            matches!(a.kind_name(), "identifier" | "field_expression").then_some((a, 2))
        }
        "binary_expression" => {
            let op = e.t(i.field("operator")?);
            let (l, r) = (strip(i.field("left")?), strip(i.field("right")?));
            let var = |n: Node<'t>| matches!(n.kind_name(), "identifier" | "field_expression");
            match op {
                "-" if lit(l) == Some(1) && var(r) => Some((r, 2)),
                "^" if lit(r) == Some(1) && var(l) => Some((l, 2)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn is_plain(n: Node) -> bool {
    matches!(
        strip(n).kind_name(),
        "identifier" | "field_expression" | "call_expression" | "subscript_expression"
    )
}

/// `x` of `&x` (parentheses and casts stripped on both levels), if `n` is
/// an address-of.
fn address_of(n: Node) -> Option<Node> {
    let n = strip(n);
    (n.kind_name() == "pointer_expression" && n.child(0).is_some_and(|op| op.kind() == "&"))
        .then(|| n.field("argument").map(strip))
        .flatten()
}

/// What `&x` addresses (`x`); any other expression, parentheses and casts
/// stripped.
fn addressed(n: Node) -> Node {
    address_of(n).unwrap_or_else(|| strip(n))
}

pub fn strip(n: Node) -> Node {
    let mut cur = n;
    loop {
        match cur.kind_name() {
            "parenthesized_expression" | "condition_clause" => {
                let mut c = cur.walk();
                let inner = cur
                    .named_children(&mut c)
                    .find(|k| k.kind_name() != "comment");
                match inner {
                    Some(i) => cur = i,
                    None => return cur,
                }
            }
            "cast_expression" => match cur.field("value") {
                Some(v) => cur = v,
                None => return cur,
            },
            _ => return cur,
        }
    }
}

/// A value that carries neither packet data nor state (a literal, a seed,
/// `NULL`): it locates one fixed place or nothing. Where definitions meet,
/// such a definition does not narrow the others (a hash seed is always
/// mixed with the data; a null pointer is no entry), as in the
/// flow-insensitive value.
fn is_constant_like(v: &Val) -> bool {
    v.fields.is_empty()
        && !v.opaque
        && v.objs.is_empty()
        && v.from.is_empty()
        && !v.root
        && v.hdr.is_none()
        && !v.descriptor
}

/// A function body that answers a membership question by searching: every
/// `return` hands back a literal truth value, a true one is returned only
/// inside a loop under a test for equality (`if (h->ports[i] == port)
/// return 1;`), and false otherwise. Its call tells a hit from a miss as a
/// lookup's result does.
fn reports_found(body: Node, src: &str) -> bool {
    fn walk(n: Node, src: &str, in_loop: bool, under_eq: bool, found: &mut bool) -> bool {
        match n.kind_name() {
            "return_statement" => {
                let mut c = n.walk();
                let v = n.named_children(&mut c).next();
                let Some(v) = v else { return false };
                let t = text(v, src).trim();
                let truth = match t {
                    "0" | "false" => Some(false),
                    "1" | "true" => Some(true),
                    _ => None,
                };
                match truth {
                    Some(true) if in_loop && under_eq => {
                        *found = true;
                        true
                    }
                    Some(false) => true,
                    _ => false,
                }
            }
            "for_statement" | "while_statement" | "do_statement" => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                kids.into_iter()
                    .all(|k| walk(k, src, true, under_eq, found))
            }
            "if_statement" => {
                let eq = n
                    .field("condition")
                    .is_some_and(|c| text(c, src).contains("=="));
                let cons = n
                    .field("consequence")
                    .is_none_or(|k| walk(k, src, in_loop, under_eq || eq, found));
                let alt = n
                    .field("alternative")
                    .is_none_or(|k| walk(k, src, in_loop, under_eq, found));
                cons && alt
            }
            "function_definition" | "lambda_expression" => true,
            _ => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                kids.into_iter()
                    .all(|k| walk(k, src, in_loop, under_eq, found))
            }
        }
    }
    let mut found = false;
    walk(body, src, false, false, &mut found) && found
}

/// The statement ends its path with a `return` (the code after it, and the
/// join after an enclosing branch, are not reached from here).
fn ends_in_return(n: Node) -> bool {
    match n.kind_name() {
        "return_statement" => true,
        "compound_statement" | "else_clause" => {
            let mut c = n.walk();
            let last = n
                .named_children(&mut c)
                .filter(|k| k.kind_name() != "comment")
                .last();
            last.is_some_and(ends_in_return)
        }
        "if_statement" => {
            n.field("consequence").is_some_and(ends_in_return)
                && n.field("alternative").is_some_and(ends_in_return)
        }
        _ => false,
    }
}

/// `n` (an expression) sits in a block that, as one of its own statements
/// (not under a further condition), leaves when the IPv4 header carries
/// options (`if (iph->ihl * 4 != sizeof(*iph)) return XDP_PASS;`, `if
/// (ip->ihl != 5) goto drop;`): every path that goes on through the block
/// has a 20-byte header, so what follows it is the L4 header. The guard may
/// come after the expression in the block (a pointer computed before the
/// check is read after it); a read placed between the two would see
/// option bytes of a packet about to be dropped.
fn ip4_options_rejected<'t>(e: &Engine<'_, 't>, n: Node<'t>) -> bool {
    let mut cur = n.parent();
    while let Some(p) = cur {
        if p.kind_name() == "function_definition" {
            return false;
        }
        if p.kind_name() == "compound_statement" {
            let mut c = p.walk();
            let guarded = p.named_children(&mut c).any(|st| {
                st.kind_name() == "if_statement"
                    && st.field("alternative").is_none()
                    && st.field("consequence").is_some_and(exits_loop)
                    && st
                        .field("condition")
                        .is_some_and(|c| rejects_ip4_options(e, c))
            });
            if guarded {
                return true;
            }
        }
        cur = p.parent();
    }
    false
}

/// The condition holds for every IPv4 header with options: `ihl * 4 !=
/// sizeof(*iph)`, `(ihl << 2) > 20`, `ihl != 5`, `ihl > 5`, either way
/// round, or a disjunction with one such term.
fn rejects_ip4_options<'t>(e: &Engine<'_, 't>, c: Node<'t>) -> bool {
    let c = strip(c);
    if c.kind_name() != "binary_expression" {
        return false;
    }
    let op = c.field("operator").map(|o| e.t(o)).unwrap_or("");
    let (Some(l), Some(r)) = (c.field("left").map(strip), c.field("right").map(strip)) else {
        return false;
    };
    if op == "||" {
        return rejects_ip4_options(e, l) || rejects_ip4_options(e, r);
    }
    // The header length in 32-bit words, and that length in bytes.
    let is_ihl = |x: Node<'t>| {
        x.kind_name() == "field_expression"
            && x.field("field")
                .is_some_and(|f| matches!(e.t(f), "ihl" | "ip_hl"))
    };
    let words_to_bytes = |x: Node<'t>| {
        x.kind_name() == "binary_expression"
            && x.field("left").map(strip).is_some_and(is_ihl)
            && matches!(
                (
                    x.field("operator").map(|o| e.t(o)),
                    x.field("right").map(|k| e.t(strip(k))),
                ),
                (Some("*"), Some("4")) | (Some("<<"), Some("2"))
            )
    };
    let minimal_bytes = |x: Node<'t>| e.t(x) == "20" || x.kind_name() == "sizeof_expression";
    let test = |a: Node<'t>, b: Node<'t>, a_left: bool| {
        let grows = if a_left {
            matches!(op, "!=" | ">")
        } else {
            matches!(op, "!=" | "<")
        };
        grows && ((is_ihl(a) && e.t(b) == "5") || (words_to_bytes(a) && minimal_bytes(b)))
    };
    test(l, r, true) || test(r, l, false)
}

/// The statement leaves the enclosing loop (`break`, `return`, `goto`;
/// not `continue`).
fn exits_loop(n: Node) -> bool {
    ends_with(
        n,
        &["return_statement", "goto_statement", "break_statement"],
    )
}

/// The statement is, or a block ending in, one of `kinds`.
fn ends_with(n: Node, kinds: &[&str]) -> bool {
    if kinds.contains(&n.kind_name()) {
        return true;
    }
    if n.kind_name() != "compound_statement" {
        return false;
    }
    let mut c = n.walk();
    let last = n
        .named_children(&mut c)
        .filter(|k| k.kind_name() != "comment")
        .last();
    last.is_some_and(|l| ends_with(l, kinds))
}

/// `n` calls a function somewhere inside.
fn contains_call(n: Node) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind_name() == "call_expression" {
            return true;
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    false
}

fn always_exits(n: Node) -> bool {
    ends_with(
        n,
        &[
            "return_statement",
            "goto_statement",
            "continue_statement",
            "break_statement",
        ],
    )
}

fn decl_name(d: Node, src: &str) -> Option<String> {
    let mut cur = d;
    for _ in 0..6 {
        if matches!(cur.kind_name(), "identifier" | "field_identifier") {
            return Some(text(cur, src).to_string());
        }
        let mut c = cur.walk();
        let next = cur
            .field("declarator")
            .or_else(|| cur.named_children(&mut c).next());
        cur = next?;
    }
    None
}

fn has_word(hay: &str, w: &str) -> bool {
    let b = hay.as_bytes();
    let mut from = 0;
    while let Some(i) = hay[from..].find(w) {
        let s = from + i;
        let e = s + w.len();
        let ok_l = s == 0 || !(b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_');
        let ok_r = e >= b.len() || !(b[e].is_ascii_alphanumeric() || b[e] == b'_');
        if ok_l && ok_r {
            return true;
        }
        from = e;
    }
    false
}

/// `w` appears as an underscore-delimited part of an identifier (TH_SYN, NF_TCP_SYN, syn).
fn has_word_part(hay: &str, w: &str) -> bool {
    let b = hay.as_bytes();
    let mut from = 0;
    while let Some(i) = hay[from..].find(w) {
        let s = from + i;
        let e = s + w.len();
        let ok_l = s == 0 || !b[s - 1].is_ascii_alphanumeric();
        let ok_r = e >= b.len() || !b[e].is_ascii_alphanumeric();
        if ok_l && ok_r {
            return true;
        }
        from = e;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{add_missing, is_packet_type, Env, FieldSet, NameSet, Slot, Val};

    #[test]
    fn a_key_keeps_at_most_three_members_below_its_variable() {
        assert_eq!(super::k_limit("f1#2|a.b.c.d"), "f1#2|a.b.c.d");
        assert_eq!(super::k_limit("f1#2|a.b.c.d.e.f"), "f1#2|a.b.c.d");
        // Dots before the scope's `|` are no members; other chars are kept whole.
        assert_eq!(super::k_limit("@o.p|é.b.c.dé.e"), "@o.p|é.b.c.dé");
        assert_eq!(super::k_limit("é.b.c.d.e"), "é.b.c.d");
    }

    #[test]
    fn the_environment_finds_a_key_and_the_members_of_a_path_in_order() {
        let mut env = Env::default();
        for (i, k) in ["f|k.b", "f|k", "f|kx", "f|k.a", "f|k.a.c", "f|k/"]
            .into_iter()
            .enumerate()
        {
            env.insert_new(
                k,
                Slot {
                    val: Val::konst(i as i64),
                    ..Slot::default()
                },
            );
        }
        assert_eq!(env.get("f|k.a").map(|(_, s)| s.val.konst), Some(Some(3)));
        assert!(env.get("f|k.z").is_none());
        env.get_mut("f|kx").unwrap().changed_at = 7;
        assert_eq!(env.get("f|kx").map(|(_, s)| s.changed_at), Some(7));
        // Members of `f|k`: keys from `f|k.` up to `f|k/`, in key order.
        let members: Vec<&str> = env.range("f|k.", "f|k/").map(|(k, _)| &**k).collect();
        assert_eq!(members, ["f|k.a", "f|k.a.c", "f|k.b"]);
    }
    use nfc_core::facts::Field;
    use std::collections::BTreeSet;

    #[test]
    fn a_field_set_iterates_in_the_order_of_a_btree_set() {
        // Keys and evidence are printed in iteration order: the bits must
        // give the fields in `Field`'s own order, whatever the insertion order.
        let order = [Field::DstMac, Field::Proto, Field::SrcIp, Field::DstPort];
        let bits: FieldSet = order.into_iter().collect();
        let tree: BTreeSet<Field> = order.into_iter().collect();
        assert!(bits.iter().eq(tree.iter()));
        assert_eq!(bits.to_set(), tree);
        assert_eq!(bits.len(), 4);
        let mut fewer = bits;
        assert!(fewer.remove(&Field::Proto));
        assert!(!fewer.contains(&Field::Proto) && bits.contains(&Field::Proto));
        assert!(!fewer.insert(Field::SrcIp));
    }

    #[test]
    fn a_shared_name_set_is_copied_on_write_and_an_empty_one_is_empty() {
        let a: NameSet = ["flows".to_string()].into_iter().collect();
        // A join into an empty slot shares the names...
        let mut b = NameSet::default();
        add_missing(&mut b, &a);
        assert!(b.shares(&a));
        // ...and a change to one copy leaves the other as it was.
        assert!(b.insert("stats".to_string()));
        assert_eq!(a.iter().collect::<Vec<_>>(), ["flows"]);
        assert_eq!(b.iter().collect::<Vec<_>>(), ["flows", "stats"]);
        assert!(!b.insert("flows".to_string()));
        // Emptied or built empty, a set equals the default one.
        b.clear();
        assert_eq!(b, NameSet::default());
        assert_eq!(NameSet::from_iter(None::<String>), NameSet::default());
    }

    #[test]
    fn a_join_that_makes_two_name_sets_equal_shares_them() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<NameSet>();
        let mut to = names(&["flows"]);
        let from = names(&["flows", "stats"]);
        add_missing(&mut to, &from);
        assert_eq!(to, from);
        assert!(to.shares(&from), "equal after the join: one set");
        // A join that leaves `to` larger than `from` keeps its own set.
        let mut to = names(&["flows", "hosts", "stats"]);
        add_missing(&mut to, &from);
        assert!(!to.shares(&from));
        assert_eq!(to, names(&["flows", "hosts", "stats"]));
    }

    #[test]
    fn a_join_of_name_sets_is_their_union_in_order() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<NameSet>();
        // Names on both sides, interleaved in order: each side has some
        // the other lacks (the merge must take the rest of either side).
        for (a, b, want) in [
            (
                &["b", "d"][..],
                &["a", "c", "e"][..],
                &["a", "b", "c", "d", "e"][..],
            ),
            (
                &["a", "c", "e"][..],
                &["b", "d"][..],
                &["a", "b", "c", "d", "e"][..],
            ),
            (&["a", "z"][..], &["m"][..], &["a", "m", "z"][..]),
            (&["m"][..], &["a", "z"][..], &["a", "m", "z"][..]),
        ] {
            let mut to = names(a);
            let keep = to.clone();
            add_missing(&mut to, &names(b));
            let got: Vec<&str> = to.iter().map(String::as_str).collect();
            assert_eq!(got, want, "{a:?} joined with {b:?}");
            // A set shared with another holder is copied, not changed.
            assert_eq!(keep, names(a));
        }
        // A taint shares the one non-empty set it is made of.
        let v = Val {
            objs: names(&["flows"]),
            ..Default::default()
        };
        assert!(v.taint().from.shares(&v.objs));
    }

    #[test]
    fn a_slot_that_lost_its_constant_does_not_take_one_back() {
        // Round 1: `x = 0;` then `x = unknown();` — not one constant.
        let mut slot = Val::default();
        assert!(slot.join(&Val::konst(0)));
        assert!(slot.join_existing(&Val::default()));
        assert_eq!(slot.konst, None);
        // Round 2 sees the same assignments: nothing may change, or the
        // fixpoint never settles.
        assert!(!slot.join_existing(&Val::konst(0)));
        assert!(!slot.join_existing(&Val::default()));
        assert_eq!(slot.konst, None);
    }

    #[test]
    fn packet_types_are_recognised_in_any_case() {
        for t in [
            "struct rte_mbuf",
            "Packet",
            "struct xdp_md",
            "struct __sk_buff",
            "vlib_buffer_t",
            "PKT_T",
        ] {
            assert!(is_packet_type(t), "{t}");
        }
        for t in [
            "struct flow",
            "uint32_t",
            "struct ndpi_flow_struct",
            "pk",
            "",
        ] {
            assert!(!is_packet_type(t), "{t}");
        }
    }

    use super::*;

    #[test]
    fn container_operation_names() {
        for (n, ins, wr) in [
            ("nf_ftable_insert", true, true),
            ("psd_find_or_add", true, true),
            ("rte_hash_add_key_data", true, true),
            ("clib_bihash_add_del_16_8", true, true),
            ("in_addr", false, false),
            ("find_insert", true, true),
            ("set", false, true),
            ("getPointer", false, false),
            ("new_flow", true, true),
            ("rte_hash_lookup", false, false),
        ] {
            assert_eq!(is_insertish(n), ins, "{n}");
            assert_eq!(is_writeish(n), wr, "{n}");
        }
    }
}
