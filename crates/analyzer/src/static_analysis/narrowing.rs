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

use nfc_core::facts::Field;
use std::collections::{BTreeSet, HashMap};

/// A set of header fields as bits (there are few fields; the pass copies
/// these sets at every branch).
pub(super) type Mask = u8;

pub(super) fn mask(fields: &BTreeSet<Field>) -> Mask {
    fields.iter().fold(0, |m, f| m | bit(*f))
}

fn bit(f: Field) -> Mask {
    let i = Field::ALL.iter().position(|g| *g == f).unwrap_or(0);
    1 << i
}

/// Keep only the fields in `m`.
pub(super) fn retain(fields: &mut BTreeSet<Field>, m: Mask) {
    fields.retain(|f| m & bit(*f) != 0);
}

/// Definitions of one function context: access path (below the scope) →
/// fields every reaching definition carries. A path absent here is not
/// tracked (its flow-insensitive value stands).
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Defs(HashMap<String, Mask>);

impl Defs {
    /// Where two paths join: a tracked path keeps what both sides carry; a
    /// path tracked on one side only was not defined on the other (declared
    /// in the branch, or untracked there), so that side's value stands.
    ///
    /// Members of one struct whose values trade places between the sides
    /// (`if (a < b) { k.lo = a; k.hi = b; } else { k.lo = b; k.hi = a; }`,
    /// a key ordered to serve both directions) keep the pair as a whole: a
    /// member whose parent carries the same fields on both sides is not
    /// narrowed (its flow-insensitive value stands).
    pub(super) fn meet(mut self, other: &Defs) -> Defs {
        fn parents(d: &Defs) -> HashMap<&str, Mask> {
            let mut u: HashMap<&str, Mask> = HashMap::new();
            for (k, m) in &d.0 {
                if let Some((p, _)) = k.rsplit_once('.') {
                    *u.entry(p).or_default() |= *m;
                }
            }
            u
        }
        let (mine, theirs) = (parents(&self), parents(other));
        let permuted: Vec<String> = other
            .0
            .iter()
            .filter(|(k, m)| {
                self.0.get(*k).is_some_and(|x| x != *m)
                    && k.rsplit_once('.')
                        .is_some_and(|(p, _)| mine.get(p).is_some_and(|a| theirs.get(p) == Some(a)))
            })
            .map(|(k, _)| k.clone())
            .collect();
        for (k, m) in &other.0 {
            self.0
                .entry(k.clone())
                .and_modify(|x| *x &= *m)
                .or_insert(*m);
        }
        for k in permuted {
            self.0.remove(&k);
        }
        self
    }
    fn forget(&mut self, path: &str) {
        let members = format!("{path}.");
        self.0
            .retain(|k, _| k != path && !k.starts_with(members.as_str()));
    }
}

/// A context-sensitive access site: (scope, object, file, line, write, the
/// accessing expression's text).
pub(super) type Site = (String, String, usize, u32, bool, String);

/// State of the second pass.
#[derive(Debug, Default)]
pub(super) struct Narrowing {
    scopes: HashMap<String, Defs>,
    rets: HashMap<String, Mask>,
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
    /// A definition that replaces what the path held (and its members).
    pub(super) fn define(&mut self, key: &str, fields: &BTreeSet<Field>) {
        if let Some((scope, path)) = split(key) {
            let d = self.scopes.entry(scope.to_string()).or_default();
            d.forget(path);
            d.0.insert(path.to_string(), mask(fields));
        }
    }
    /// A definition that may or may not happen (a callee's store through a
    /// pointer): the path then carries what both the old and the new value
    /// carry.
    pub(super) fn may_define(&mut self, key: &str, fields: &BTreeSet<Field>) {
        if let Some((scope, path)) = split(key) {
            let m = mask(fields);
            let d = self.scopes.entry(scope.to_string()).or_default();
            d.0.entry(path.to_string())
                .and_modify(|x| *x &= m)
                .or_insert(m);
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
    /// Narrow a value read from `key` to what its reaching definitions carry.
    pub(super) fn narrow(&self, key: &str, fields: &mut BTreeSet<Field>) {
        if let Some((scope, path)) = split(key) {
            if let Some(m) = self.scopes.get(scope).and_then(|d| d.0.get(path)) {
                retain(fields, *m);
            }
        }
    }
    pub(super) fn snapshot(&self, scope: &str) -> Defs {
        self.scopes.get(scope).cloned().unwrap_or_default()
    }
    pub(super) fn restore(&mut self, scope: &str, d: Defs) {
        self.scopes.insert(scope.to_string(), d);
    }
    /// A `return` of a value carrying `fields` from `scope`.
    pub(super) fn returned(&mut self, scope: &str, fields: &BTreeSet<Field>) {
        let m = mask(fields);
        self.rets
            .entry(scope.to_string())
            .and_modify(|x| *x &= m)
            .or_insert(m);
    }
    /// Narrow a call's result to what every `return` of the callee carried.
    pub(super) fn narrow_return(&self, scope: &str, fields: &mut BTreeSet<Field>) {
        if let Some(m) = self.rets.get(scope) {
            retain(fields, *m);
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
pub(super) fn apply(first: &mut [super::dataflow::Access], second: &[super::dataflow::Access]) {
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
    let mut sites: HashMap<Site, Mask> = HashMap::new();
    for a in second {
        let m = mask(&a.key);
        sites.entry(site(a)).and_modify(|x| *x &= m).or_insert(m);
    }
    for a in first.iter_mut() {
        a.may_key = a.key.clone();
        let site = site(a);
        if let Some(m) = sites.get(&site) {
            retain(&mut a.key, *m);
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

    fn fs(v: &[Field]) -> BTreeSet<Field> {
        v.iter().copied().collect()
    }

    #[test]
    fn assignment_replaces_and_branches_meet() {
        let mut n = Narrowing::default();
        n.define("f1#0|key", &fs(&[Field::DstPort]));
        let before = n.snapshot("f1#0");
        n.define("f1#0|key", &fs(&[Field::SrcPort, Field::DstPort]));
        let then = n.snapshot("f1#0");
        n.restore("f1#0", then.meet(&before));
        let mut got = fs(&[Field::SrcPort, Field::DstPort, Field::Proto]);
        n.narrow("f1#0|key", &mut got);
        assert_eq!(got, fs(&[Field::DstPort]));
    }

    #[test]
    fn a_struct_definition_drops_its_members_and_untracked_paths_stand() {
        let mut n = Narrowing::default();
        n.define("f1#0|k.src", &fs(&[Field::SrcIp]));
        n.define("f1#0|k", &fs(&[]));
        let mut member = fs(&[Field::SrcIp, Field::DstIp]);
        n.narrow("f1#0|k.src", &mut member);
        assert_eq!(member, fs(&[Field::SrcIp, Field::DstIp]));
        let mut global = fs(&[Field::SrcIp]);
        n.narrow("g|k", &mut global);
        assert_eq!(global, fs(&[Field::SrcIp]));
    }

    #[test]
    fn members_that_trade_places_keep_the_pair() {
        let mut n = Narrowing::default();
        let before = n.snapshot("f1#0");
        n.define("f1#0|k.lo", &fs(&[Field::SrcIp]));
        n.define("f1#0|k.hi", &fs(&[Field::DstIp]));
        let then = n.snapshot("f1#0");
        n.restore("f1#0", before);
        n.define("f1#0|k.lo", &fs(&[Field::DstIp]));
        n.define("f1#0|k.hi", &fs(&[Field::SrcIp]));
        let joined = n.snapshot("f1#0").meet(&then);
        n.restore("f1#0", joined);
        let mut lo = fs(&[Field::SrcIp, Field::DstIp]);
        n.narrow("f1#0|k.lo", &mut lo);
        assert_eq!(lo, fs(&[Field::SrcIp, Field::DstIp]));
    }

    #[test]
    fn switch_cases_meet_after_the_switch() {
        let mut n = Narrowing::default();
        n.define("f1#0|key", &fs(&[Field::SrcIp, Field::DstIp]));
        n.enter_switch("f1#0");
        n.case_label("f1#0");
        n.define("f1#0|key", &fs(&[Field::SrcIp]));
        n.case_label("f1#0");
        n.define("f1#0|key", &fs(&[Field::DstIp]));
        n.leave_switch("f1#0");
        let mut got = fs(&[Field::SrcIp, Field::DstIp]);
        n.narrow("f1#0|key", &mut got);
        assert!(got.is_empty());
    }
}
