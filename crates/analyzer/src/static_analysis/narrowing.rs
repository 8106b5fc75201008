//! Flow-sensitive narrowing of access keys: the engine's second collecting
//! pass.
//!
//! The fixpoint is flow-insensitive: a local assigned the destination port
//! and later the source port holds both, so both lookups look keyed by
//! {src_port, dst_port}. That is broader than what either lookup is keyed
//! by, and a broader key is the unsafe direction for placement (packets
//! that meet the same entry would be spread over cores). The second pass
//! walks the packet path again in program order and keeps, per local access
//! path, the fields that *every* reaching definition carries: an assignment
//! replaces what the path held (strong update), branches meet
//! (intersection) where they join, a loop body is walked a second time from
//! the meet of its entry and its end (a definition at the end reaches the
//! top), and a `return` ends its branch. What the pass does not track
//! (writes through pointers, array elements, out-parameters of unknown
//! code) falls back to the flow-insensitive value. A key is only ever
//! narrowed by what the second pass saw at the same access (same context,
//! object and line), never widened.

use super::dataflow::FieldSet;
use nfc_core::facts::Field;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// A set of header fields as bits (there are few fields; the pass copies
/// these sets at every branch), plus [`PACKET_DATA`].
pub(super) type Mask = u16;

/// Set when every reaching definition carries some packet field, whether or
/// not they share one. `if (client) k = dst; else k = src;` meets to no
/// field, yet every path locates the entry by packet data: an access
/// through `k` is keyed, by alternatives with nothing in common, which is
/// not the same as a slot no packet field reaches (a freshly allocated
/// entry).
const PACKET_DATA: Mask = 1 << Field::ALL.len();
/// Set when every reaching definition carries packet data of fields the
/// analysis cannot name (see [`super::dataflow::Val::opaque`]). A path on
/// which the value was defined without any (the entry a miss just
/// allocated) is located by nothing of this packet there, even if another
/// path's definition was opaque.
const OPAQUE: Mask = 1 << (Field::ALL.len() + 1);
const _: () = assert!(Field::ALL.len() + 1 < Mask::BITS as usize);

pub(super) fn mask<'a>(fields: impl IntoIterator<Item = &'a Field>) -> Mask {
    let m = fields.into_iter().fold(0, |m, f| m | bit(*f));
    if m == 0 {
        0
    } else {
        m | PACKET_DATA
    }
}

/// The mask of a value: its fields, and [`PACKET_DATA`] when it is located
/// by alternatives that share no field (see [`super::dataflow::Val::alternatives`]).
pub(super) fn val_mask(v: &super::dataflow::Val) -> Mask {
    mask(v.fields.iter())
        | if v.alternatives { PACKET_DATA } else { 0 }
        | if v.opaque { OPAQUE } else { 0 }
}

fn bit(f: Field) -> Mask {
    let i = Field::ALL.iter().position(|g| *g == f).unwrap_or(0);
    1 << i
}

/// Keep only the fields in `m`.
pub(super) fn retain(fields: &mut BTreeSet<Field>, m: Mask) {
    fields.retain(|f| m & bit(*f) != 0);
}

/// [`retain`], and whether that emptied `fields` while `m` says every
/// reaching definition carried packet data.
fn narrowed_to_alternatives(fields: &mut FieldSet, m: Mask) -> bool {
    let had = !fields.is_empty();
    // The field bits and PACKET_DATA are the low byte (FieldSet's bits).
    fields.retain_bits((m & 0xff) as u8);
    had && fields.is_empty() && m & PACKET_DATA != 0
}

/// A value narrowed to what every reaching definition (`m`) carries: its
/// fields, and its unnamed packet data.
fn narrow_by(m: Mask, v: &mut super::dataflow::Val) {
    v.alternatives |= narrowed_to_alternatives(&mut v.fields, m);
    v.opaque &= m & OPAQUE != 0;
}

/// What the reaching definitions of a tracked path hold.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct Def {
    /// Fields every reaching definition carries.
    fields: Mask,
    /// Some reaching definition may point into state. When none does, the
    /// path's flow-insensitive objects came from definitions that do not
    /// reach here (`m->len = 0; … m = stored_mbuf;`): no state is accessed
    /// through it at this point.
    state: bool,
}

impl Def {
    fn meet(self, o: Def) -> Def {
        Def {
            fields: self.fields & o.fields,
            state: self.state | o.state,
        }
    }
}

/// Definitions of one function context: access path (below the scope) →
/// what its reaching definitions hold. A path absent here is not tracked
/// (its flow-insensitive value stands).
///
/// Grouped by variable (see [`root`]), each group shared between the
/// copies of the definitions until one of them changes it: the pass copies
/// the definitions at every branch and loop and meets the copies where the
/// paths join, and a struct handed to a callee brings all its members into
/// the callee's definitions (hundreds, for iptraf-ng's connection table).
/// A branch that assigns a counter then copies and meets that variable's
/// paths, not the struct's.
///
/// The variables are found by hash (every read of a local asks for its
/// group; no walk needs them in order), a variable's paths in order (its
/// members are a range of them).
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Defs(HashMap<String, Rc<Group>>);

/// The definitions of the paths of one variable, by path.
type Group = BTreeMap<String, Def>;

/// The variable a path belongs to (`k` for `k`, `k.src` and `k.a.b`): a
/// path and its members, and a member and its parent, share it.
fn root(path: &str) -> &str {
    path.split_once('.').map_or(path, |(r, _)| r)
}

/// The members of `path` in `g` (ordered keys: they lie between `path.`
/// and `path/`, so a struct copy of n members costs n log n, not n²).
fn members<'g>(g: &'g Group, path: &str) -> impl Iterator<Item = &'g String> + 'g {
    let (lo, hi) = ([path, "."].concat(), [path, "/"].concat());
    g.range::<str, _>((
        std::ops::Bound::Included(lo.as_str()),
        std::ops::Bound::Excluded(hi.as_str()),
    ))
    .map(|(k, _)| k)
}

/// Whether `g` holds a member of `path`: as `members(g, path).next()`,
/// without building the bounds. The first key after `path` that starts
/// with it and continues with `.` or a later byte decides: keys that
/// continue with a byte before `.` sort between `path` and its members.
/// A definition asks this for every path it defines (every member of a
/// struct handed to a callee).
fn has_member(g: &Group, path: &str) -> bool {
    for k in g
        .range::<str, _>((std::ops::Bound::Excluded(path), std::ops::Bound::Unbounded))
        .map(|(k, _)| k)
    {
        match k.strip_prefix(path).map(str::as_bytes) {
            Some([b'.', ..]) => return true,
            Some([c, ..]) if *c < b'.' => continue,
            _ => return false,
        }
    }
    false
}

impl Defs {
    fn get(&self, path: &str) -> Option<&Def> {
        self.0.get(root(path)).and_then(|g| g.get(path))
    }

    /// The group of `path`'s variable, to change it (a copy of it if
    /// another set of definitions shares it).
    fn group_mut(&mut self, path: &str) -> &mut Group {
        let r = root(path);
        if !self.0.contains_key(r) {
            self.0.insert(r.to_string(), Rc::default());
        }
        Rc::make_mut(self.0.get_mut(r).expect("the group was just added"))
    }

    /// Where two paths join: a tracked path keeps what both sides carry; a
    /// path tracked on one side only was not defined on the other (declared
    /// in the branch, or untracked there), so that side's value stands.
    /// A variable neither side changed since they were copied is shared,
    /// and stays as it is.
    pub(super) fn meet(mut self, other: &Defs) -> Defs {
        for (r, theirs) in &other.0 {
            match self.0.get_mut(r) {
                None => {
                    self.0.insert(r.clone(), Rc::clone(theirs));
                }
                Some(mine) if Rc::ptr_eq(mine, theirs) || mine == theirs => {}
                Some(mine) => {
                    let met = meet_group(std::mem::take(Rc::make_mut(mine)), theirs);
                    if met.is_empty() {
                        self.0.remove(r);
                    } else {
                        *mine = Rc::new(met);
                    }
                }
            }
        }
        self
    }

    /// A definition that replaces what `path` held (and its members).
    fn define(&mut self, path: &str, def: Def) {
        // Defining a path to what it already holds, with no members to
        // drop, changes nothing: the group stays shared (a struct handed
        // again to a callee redefines each member to the same).
        //
        // One search for the variable's group and one for the path: a
        // struct copy into a callee defines each of its members here.
        let r = root(path);
        let Some(g) = self.0.get_mut(r) else {
            self.0.insert(
                r.to_string(),
                Rc::new(Group::from([(path.to_string(), def)])),
            );
            return;
        };
        let has_members = has_member(g, path);
        if !has_members && g.get(path) == Some(&def) {
            return;
        }
        let g = Rc::make_mut(g);
        if has_members {
            let gone: Vec<String> = members(g, path).cloned().collect();
            for k in gone {
                g.remove(&k);
            }
        }
        match g.get_mut(path) {
            Some(d) => *d = def,
            None => {
                g.insert(path.to_string(), def);
            }
        }
    }

    /// A definition that may or may not happen: the path then carries what
    /// both the old and the new value carry.
    fn may_define(&mut self, path: &str, def: Def) {
        match self.get(path) {
            Some(x) if x.meet(def) == *x => {}
            _ => {
                self.group_mut(path)
                    .entry(path.to_string())
                    .and_modify(|x| *x = x.meet(def))
                    .or_insert(def);
            }
        }
    }

    fn has_members(&self, path: &str) -> bool {
        self.0.get(root(path)).is_some_and(|g| has_member(g, path))
    }

    /// Drop `path` and its members.
    fn forget(&mut self, path: &str) {
        if self.get(path).is_none() && !self.has_members(path) {
            return;
        }
        let g = self.group_mut(path);
        g.remove(path);
        let gone: Vec<String> = members(g, path).cloned().collect();
        for k in gone {
            g.remove(&k);
        }
        if g.is_empty() {
            self.0.remove(root(path));
        }
    }
}

/// [`Defs::meet`] of one variable's paths. Members of one struct whose
/// values trade places between the sides (`if (a < b) { k.lo = a; k.hi =
/// b; } else { k.lo = b; k.hi = a; }`, a key ordered to serve both
/// directions) keep the pair as a whole: a member whose parent carries the
/// same fields on both sides is not narrowed (its flow-insensitive value
/// stands). A member and its parent belong to one variable, so the rule
/// needs no other group.
fn meet_group(mut mine: Group, theirs: &Group) -> Group {
    fn parents(g: &Group) -> HashMap<&str, Mask> {
        let mut u: HashMap<&str, Mask> = HashMap::default();
        for (k, m) in g {
            if let Some((p, _)) = k.rsplit_once('.') {
                *u.entry(p).or_default() |= m.fields;
            }
        }
        u
    }
    let permuted: Vec<String> = {
        let (pm, pt) = (parents(&mine), parents(theirs));
        theirs
            .iter()
            .filter(|(k, m)| {
                mine.get(*k).is_some_and(|x| x.fields != m.fields)
                    && k.rsplit_once('.')
                        .is_some_and(|(p, _)| pm.get(p).is_some_and(|a| pt.get(p) == Some(a)))
            })
            .map(|(k, _)| k.clone())
            .collect()
    };
    for (k, m) in theirs {
        match mine.get_mut(k) {
            Some(x) => *x = x.meet(*m),
            None => {
                mine.insert(k.clone(), *m);
            }
        }
    }
    for k in permuted {
        mine.remove(&k);
    }
    mine
}

/// A context-sensitive access site: (scope, object, file, line, write, the
/// accessing expression's text).
pub(super) type Site = (String, String, usize, u32, bool, String);

/// State of the second pass.
#[derive(Debug, Default)]
pub(super) struct Narrowing {
    scopes: HashMap<String, Defs>,
    rets: HashMap<String, Def>,
    /// Contexts whose walk has completed (a recursive call sees only the
    /// `return`s walked so far).
    finished: HashSet<String>,
    /// Open `switch` statements: (definitions on entry, meet of the
    /// definitions every case ended with so far).
    switches: Vec<(Defs, Defs)>,
}

/// (scope, path) of an environment key of a local (`f3#1|key.src`); globals
/// (`g|`) and state slots (`@obj`) are not tracked.
fn split(key: &str) -> Option<(&str, &str)> {
    if !key.starts_with('f') {
        return None;
    }
    key.split_once('|')
}

impl Narrowing {
    /// A definition that replaces what the path held (and its members) by
    /// a value of mask `fields`; `state`: the new value may point into
    /// state.
    pub(super) fn define(&mut self, key: &str, fields: Mask, state: bool) {
        self.replace(key, Def { fields, state });
    }
    /// A definition by a pointer into the packet: no state is reached
    /// through it, and it bounds no key (all fields).
    pub(super) fn define_unbounded(&mut self, key: &str) {
        self.replace(
            key,
            Def {
                fields: Mask::MAX,
                state: false,
            },
        );
    }
    fn replace(&mut self, key: &str, def: Def) {
        if let Some((scope, path)) = split(key) {
            self.scope_mut(scope).define(path, def);
        }
    }
    fn scope_mut(&mut self, scope: &str) -> &mut Defs {
        if !self.scopes.contains_key(scope) {
            self.scopes.insert(scope.to_string(), Defs::default());
        }
        self.scopes
            .get_mut(scope)
            .expect("the scope was just added")
    }
    /// A definition that may or may not happen (a callee's store through a
    /// pointer): the path then carries what both the old and the new value
    /// carry.
    pub(super) fn may_define(&mut self, key: &str, fields: Mask) {
        if let Some((scope, path)) = split(key) {
            // What the path held before may stand: it may point into state.
            let m = Def {
                fields,
                state: true,
            };
            self.scope_mut(scope).may_define(path, m);
        }
    }
    /// A copy of the members of `from` to `to` (a struct assignment, an
    /// argument bound to a parameter): each member's value, `(key, value,
    /// _)` in key order with keys below `from`, is narrowed as read there
    /// ([`Self::narrow_val`]) and then defines the same member of `to`
    /// ([`Self::define`] when the copy surely happens, else
    /// [`Self::may_define`]), one member after the other. The same as those
    /// calls member by member; the variable of `from` and the scope of `to`
    /// are looked up once (a struct of hundreds of members is handed to
    /// every callee).
    pub(super) fn copy_members<T>(
        &mut self,
        from: &str,
        to: &str,
        members: &mut [(std::rc::Rc<str>, super::dataflow::Val, T)],
        certain: bool,
    ) {
        let define = |nw: &mut Narrowing, key: &str, v: &super::dataflow::Val| {
            if certain {
                nw.define(key, val_mask(v), !v.objs.is_empty() || v.root);
            } else {
                nw.may_define(key, val_mask(v));
            }
        };
        if members.is_empty() {
            return;
        }
        let (src, dst) = (split(from), split(to));
        // A copy within one variable reads definitions it has just made:
        // member by member.
        let same_group = matches!((src, dst), (Some((fs, fp)), Some((ts, tp)))
            if fs == ts && root(fp) == root(tp));
        if same_group || dst.is_none() {
            let mut tk = String::new();
            for (key, v, _) in members.iter_mut() {
                self.narrow_val(key, v);
                tk.clear();
                tk.push_str(to);
                tk.push_str(&key[from.len()..]);
                define(self, &tk, v);
            }
            return;
        }
        // Read-only while `to`'s definitions change: another variable's.
        let from_group: Option<std::rc::Rc<Group>> = src.and_then(|(fs, fp)| {
            self.scopes
                .get(fs)
                .and_then(|d| d.0.get(root(fp)))
                .map(std::rc::Rc::clone)
        });
        let Some((ts, tp)) = dst else { return };
        let defs = self.scope_mut(ts);
        let mut path = String::with_capacity(tp.len() + 16);
        for (key, v, _) in members.iter_mut() {
            let below = &key[from.len()..];
            if let (Some(g), Some((fs, _))) = (&from_group, src) {
                if let Some(m) = g.get(&key[fs.len() + 1..]) {
                    narrow_by(m.fields, v);
                }
            }
            path.clear();
            path.push_str(tp);
            path.push_str(below);
            if certain {
                let def = Def {
                    fields: val_mask(v),
                    state: !v.objs.is_empty() || v.root,
                };
                defs.define(&path, def);
            } else {
                defs.may_define(
                    &path,
                    Def {
                        fields: val_mask(v),
                        state: true,
                    },
                );
            }
        }
    }

    /// What a test proves on the branch it guards: the path's value is now
    /// also located by `fields` (a search loop's match: the entry the
    /// cursor is at holds the packet's key). Its definitions stay; an
    /// untracked path keeps its flow-insensitive value, which has them.
    pub(super) fn refine(&mut self, key: &str, fields: Mask) {
        let Some((scope, path)) = split(key) else {
            return;
        };
        let Some(def) = self.scopes.get(scope).and_then(|d| d.get(path)).copied() else {
            return;
        };
        let refined = Def {
            fields: def.fields | fields,
            ..def
        };
        if refined != def {
            if let Some(d) = self.scopes.get_mut(scope) {
                *d.group_mut(path)
                    .get_mut(path)
                    .expect("the path has a definition") = refined;
            }
        }
    }

    /// Stop tracking a path (and its members): its flow-insensitive value
    /// stands.
    pub(super) fn forget(&mut self, key: &str) {
        if let Some((scope, path)) = split(key) {
            if let Some(d) = self.scopes.get_mut(scope) {
                d.forget(path);
            }
        }
    }
    /// What the reaching definitions of `key` hold, if it is tracked.
    fn def_of(&self, key: &str) -> Option<&Def> {
        let (scope, path) = split(key)?;
        self.scopes.get(scope)?.get(path)
    }
    /// The fields part of [`Self::narrow_val`]: true when narrowing leaves
    /// no field although every reaching definition carries some (located
    /// by alternatives).
    #[cfg(test)]
    fn narrow(&self, key: &str, fields: &mut FieldSet) -> bool {
        self.def_of(key)
            .is_some_and(|m| narrowed_to_alternatives(fields, m.fields))
    }
    /// Narrow a value read from `key` to what its reaching definitions
    /// carry: its fields (see [`Val::alternatives`]) and its unnamed packet
    /// data, kept only where every definition carries it. An untracked path
    /// keeps what the flow-insensitive value says.
    ///
    /// [`Val::alternatives`]: super::dataflow::Val::alternatives
    pub(super) fn narrow_val(&self, key: &str, v: &mut super::dataflow::Val) {
        if let Some(m) = self.def_of(key) {
            narrow_by(m.fields, v);
        }
    }
    /// Every reaching definition of `key` is tracked and none points into
    /// state.
    pub(super) fn points_to_no_state(&self, key: &str) -> bool {
        split(key).is_some_and(|(scope, path)| {
            self.scopes
                .get(scope)
                .and_then(|d| d.get(path))
                .is_some_and(|m| !m.state)
        })
    }
    pub(super) fn snapshot(&self, scope: &str) -> Defs {
        self.scopes.get(scope).cloned().unwrap_or_default()
    }
    pub(super) fn restore(&mut self, scope: &str, d: Defs) {
        *self.scope_mut(scope) = d;
    }
    /// A `return` from `scope` of a value carrying `fields` that may point
    /// into state (`Some((fields, state))`), or of a pointer into the
    /// packet (`None`: no state, no bound on the key).
    pub(super) fn returned(&mut self, scope: &str, value: Option<(Mask, bool)>) {
        let m = match value {
            Some((fields, state)) => Def { fields, state },
            None => Def {
                fields: Mask::MAX,
                state: false,
            },
        };
        self.rets
            .entry(scope.to_string())
            .and_modify(|x| *x = x.meet(m))
            .or_insert(m);
    }
    pub(super) fn finished(&mut self, scope: &str) {
        self.finished.insert(scope.to_string());
    }
    /// Narrow a call's result to what every `return` of the callee carried;
    /// when none of them pointed into state, the result points to none.
    pub(super) fn narrow_return(&self, scope: &str, v: &mut super::dataflow::Val) {
        if let Some(m) = self.rets.get(scope) {
            narrow_by(m.fields, v);
            if !m.state && self.finished.contains(scope) {
                v.objs.clear();
            }
        }
    }
    pub(super) fn enter_switch(&mut self, scope: &str) {
        let d = self.snapshot(scope);
        self.switches.push((d.clone(), d));
    }
    /// A `case` label: reached from the switch (its entry definitions) or
    /// by falling through (the current ones).
    pub(super) fn case_label(&mut self, scope: &str) {
        let cur = self.snapshot(scope);
        if let Some((entry, acc)) = self.switches.last_mut() {
            *acc = std::mem::take(acc).meet(&cur);
            let start = cur.meet(entry);
            self.restore(scope, start);
        }
    }
    /// After the switch: any case's end (a `break`) or the entry (no case
    /// matched) reaches here.
    pub(super) fn leave_switch(&mut self, scope: &str) {
        if let Some((entry, acc)) = self.switches.pop() {
            let cur = self.snapshot(scope);
            self.restore(scope, cur.meet(&acc).meet(&entry));
        }
    }
}

/// Narrow each access of the first pass to the meet of what the second pass
/// saw at the same site; remember the flow-insensitive key as `may_key`.
///
/// A site of the first pass that the second pass did not see, in a context
/// the second pass walked, was reached only through a pointer whose state
/// definitions do not reach it (see [`Def::state`]): it is dropped.
pub(super) fn apply(
    first: &mut Vec<super::dataflow::Access>,
    second: &[super::dataflow::Access],
    walked: &HashSet<String>,
) {
    let site = |a: &super::dataflow::Access| -> Site {
        (
            a.scope.clone(),
            a.obj.clone(),
            a.file,
            a.line,
            a.write,
            a.what.clone(),
        )
    };
    // Per site: the fields every occurrence carries; whether every
    // occurrence is keyed; whether some occurrence is located by
    // alternatives (see `Val::alternatives`).
    let mut sites: HashMap<Site, (Mask, bool, bool)> = HashMap::default();
    for a in second {
        let m = mask(&a.key);
        let keyed = m != 0 || a.alternatives;
        sites
            .entry(site(a))
            .and_modify(|(x, all_keyed, any_alt)| {
                *x &= m;
                *all_keyed &= keyed;
                *any_alt |= a.alternatives;
            })
            .or_insert((m, keyed, a.alternatives));
    }
    first.retain(|a| !walked.contains(&a.scope) || sites.contains_key(&site(a)));
    for a in first.iter_mut() {
        a.may_key = a.key.clone();
        let site = site(a);
        if let Some((m, all_keyed, any_alt)) = sites.get(&site) {
            retain(&mut a.key, *m);
            // Keyed by alternatives only where the flow-sensitive pass saw
            // them; a first-pass key that merely disagrees with the second
            // pass's is no evidence of them.
            a.alternatives = a.key.is_empty() && *all_keyed && *any_alt;
        }
        // Direction-agnostic means built from a field and its mirror: a
        // key narrowed to one side of the pair is not.
        a.mixed &= a
            .key
            .iter()
            .any(|f| *f != f.mirror() && a.key.contains(&f.mirror()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fs(v: &[Field]) -> FieldSet {
        v.iter().copied().collect()
    }

    #[test]
    fn a_path_has_a_member_when_a_key_continues_it_with_a_dot() {
        let g: Group = ["k", "k!x", "k-y.z", "k.a", "ka", "kb.c"]
            .into_iter()
            .map(|k| (k.to_string(), Def::default()))
            .collect();
        for (path, want) in [
            ("k", true),
            ("k!x", false),
            ("k-y", true),
            ("k.a", false),
            ("ka", false),
            ("kb", true),
            ("j", false),
            ("l", false),
            ("k.", false),
        ] {
            assert_eq!(has_member(&g, path), want, "{path}");
            assert_eq!(members(&g, path).next().is_some(), want, "{path}");
        }
    }

    #[test]
    fn unnamed_packet_data_locates_only_where_every_definition_carries_it() {
        // `e = find(t, tag)` (tag from a parser the analysis cannot see)
        // or, on a miss, `e = alloc()`: after the branch, `e` is located by
        // packet data on one path only, like an allocated entry reached by
        // no field; both definitions opaque keep it.
        let opaque = |b: bool| super::super::dataflow::Val {
            opaque: b,
            ..Default::default()
        };
        let mut n = Narrowing::default();
        n.define("f1#0|e", val_mask(&opaque(true)), true);
        let found = n.snapshot("f1#0");
        n.define("f1#0|e", val_mask(&opaque(false)), true);
        let allocated = n.snapshot("f1#0");
        n.restore("f1#0", allocated.meet(&found));
        let mut v = opaque(true);
        n.narrow_val("f1#0|e", &mut v);
        assert!(!v.opaque);
        n.restore("f1#0", found.clone().meet(&found));
        let mut v = opaque(true);
        n.narrow_val("f1#0|e", &mut v);
        assert!(v.opaque);
        // An untracked path keeps its flow-insensitive value.
        let mut g = opaque(true);
        n.narrow_val("g|e", &mut g);
        assert!(g.opaque);
    }

    #[test]
    fn assignment_replaces_and_branches_meet() {
        let mut n = Narrowing::default();
        n.define("f1#0|key", mask(&fs(&[Field::DstPort])), false);
        let before = n.snapshot("f1#0");
        n.define(
            "f1#0|key",
            mask(&fs(&[Field::SrcPort, Field::DstPort])),
            false,
        );
        let then = n.snapshot("f1#0");
        n.restore("f1#0", then.meet(&before));
        let mut got = fs(&[Field::SrcPort, Field::DstPort, Field::Proto]);
        n.narrow("f1#0|key", &mut got);
        assert_eq!(got, fs(&[Field::DstPort]));
    }

    #[test]
    fn a_struct_definition_drops_its_members_and_untracked_paths_stand() {
        let mut n = Narrowing::default();
        n.define("f1#0|k.src", mask(&fs(&[Field::SrcIp])), false);
        n.define("f1#0|k", mask(&fs(&[])), false);
        let mut member = fs(&[Field::SrcIp, Field::DstIp]);
        n.narrow("f1#0|k.src", &mut member);
        assert_eq!(member, fs(&[Field::SrcIp, Field::DstIp]));
        let mut global = fs(&[Field::SrcIp]);
        n.narrow("g|k", &mut global);
        assert_eq!(global, fs(&[Field::SrcIp]));
    }

    #[test]
    fn a_definition_drops_the_members_of_its_path_only() {
        let mut n = Narrowing::default();
        for path in [
            "f1#0|k.a",
            "f1#0|k.a.b",
            "f1#0|k.b",
            "f1#0|k.ab",
            "f1#0|k.a-1",
        ] {
            n.define(path, mask(&fs(&[Field::SrcIp])), false);
        }
        n.define("f1#0|k.a", mask(&fs(&[Field::DstIp])), false);
        let d = &n.scopes["f1#0"].0["k"];
        let kept: Vec<&str> = d.keys().map(String::as_str).collect();
        // `k.a.b` was a member of `k.a` and goes; `k.ab` and `k.a-1` only
        // share its prefix and stay.
        assert_eq!(kept, ["k.a", "k.a-1", "k.ab", "k.b"]);
        assert_eq!(d["k.a"].fields, mask(&fs(&[Field::DstIp])));
    }

    #[test]
    fn a_branch_copies_and_meets_only_the_variables_it_defines() {
        let mut n = Narrowing::default();
        for m in ["t.a", "t.b", "t.c"] {
            n.define(&format!("f1#0|{m}"), mask(&fs(&[Field::SrcIp])), false);
        }
        n.define("f1#0|i", mask(&fs(&[Field::DstIp])), false);
        let before = n.snapshot("f1#0");
        // The branch assigns `i` and redefines a member of `t` to what it
        // held (a struct handed again to a callee).
        n.define("f1#0|i", mask(&fs(&[])), false);
        n.define("f1#0|t.b", mask(&fs(&[Field::SrcIp])), false);
        let after = n.snapshot("f1#0");
        assert!(Rc::ptr_eq(&before.0["t"], &after.0["t"]), "t is shared");
        assert!(!Rc::ptr_eq(&before.0["i"], &after.0["i"]));
        let met = after.meet(&before);
        assert!(Rc::ptr_eq(&met.0["t"], &before.0["t"]));
        assert_eq!(met.0["i"]["i"].fields, 0);
        // Redefining a member to something else copies the group: the
        // snapshot keeps what it saw.
        n.define("f1#0|t.b", mask(&fs(&[Field::DstIp])), false);
        assert_eq!(before.0["t"]["t.b"].fields, mask(&fs(&[Field::SrcIp])));
        assert_eq!(
            n.scopes["f1#0"].0["t"]["t.b"].fields,
            mask(&fs(&[Field::DstIp]))
        );
    }

    #[test]
    fn members_that_trade_places_keep_the_pair() {
        let mut n = Narrowing::default();
        let before = n.snapshot("f1#0");
        n.define("f1#0|k.lo", mask(&fs(&[Field::SrcIp])), false);
        n.define("f1#0|k.hi", mask(&fs(&[Field::DstIp])), false);
        let then = n.snapshot("f1#0");
        n.restore("f1#0", before);
        n.define("f1#0|k.lo", mask(&fs(&[Field::DstIp])), false);
        n.define("f1#0|k.hi", mask(&fs(&[Field::SrcIp])), false);
        let joined = n.snapshot("f1#0").meet(&then);
        n.restore("f1#0", joined);
        let mut lo = fs(&[Field::SrcIp, Field::DstIp]);
        n.narrow("f1#0|k.lo", &mut lo);
        assert_eq!(lo, fs(&[Field::SrcIp, Field::DstIp]));
    }

    #[test]
    fn branches_with_no_field_in_common_are_alternatives() {
        let mut n = Narrowing::default();
        let before = n.snapshot("f1#0");
        n.define(
            "f1#0|key",
            mask(&fs(&[Field::DstIp, Field::DstPort])),
            false,
        );
        let then = n.snapshot("f1#0");
        n.restore("f1#0", before.clone());
        n.define(
            "f1#0|key",
            mask(&fs(&[Field::SrcIp, Field::SrcPort])),
            false,
        );
        let joined = n.snapshot("f1#0").meet(&then);
        n.restore("f1#0", joined);
        let mut got = fs(&[Field::SrcIp, Field::SrcPort, Field::DstIp, Field::DstPort]);
        assert!(
            n.narrow("f1#0|key", &mut got),
            "every path carries packet data"
        );
        assert!(got.is_empty());
        // A branch that carries no field (a new slot) is no alternative.
        n.restore("f1#0", before);
        n.define("f1#0|key", mask(&fs(&[])), false);
        let joined = n.snapshot("f1#0").meet(&then);
        n.restore("f1#0", joined);
        let mut got = fs(&[Field::DstIp, Field::DstPort]);
        assert!(!n.narrow("f1#0|key", &mut got));
        assert!(got.is_empty());
    }

    #[test]
    fn switch_cases_meet_after_the_switch() {
        let mut n = Narrowing::default();
        n.define("f1#0|key", mask(&fs(&[Field::SrcIp, Field::DstIp])), false);
        n.enter_switch("f1#0");
        n.case_label("f1#0");
        n.define("f1#0|key", mask(&fs(&[Field::SrcIp])), false);
        n.case_label("f1#0");
        n.define("f1#0|key", mask(&fs(&[Field::DstIp])), false);
        n.leave_switch("f1#0");
        let mut got = fs(&[Field::SrcIp, Field::DstIp]);
        n.narrow("f1#0|key", &mut got);
        assert!(got.is_empty());
    }
}
