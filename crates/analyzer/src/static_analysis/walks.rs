//! Reusing a function context's walk from the previous fixpoint round.
//!
//! The fixpoint walks every context of the packet path once per round, and
//! a round repeats until no value grows (iptraf-ng's IP monitor: 12 rounds,
//! the last five changing a few values each). A walk is a deterministic
//! function of what it reads of the state that changes between rounds (the
//! environment's slots, the members of a path, the callees' return values,
//! the constants bound to parameters, the ageing tests) and of how it is
//! entered (the enclosing assignment, guard, kind, ...). Every write a walk
//! makes is a join, and a join of a value already joined into a slot changes
//! nothing (the environment only grows; a constant only falls, to "not one
//! constant"; a mirror pair is noted only when the fields change). So when
//! a context is entered as before and every read of its last walk would see
//! what it saw then, walking it again would read the same, write only what
//! is already there, and visit the same callees: it is skipped, exactly.
//!
//! The order-dependent joins of the engine (the constant widening's count,
//! the "mixed" field pair, the enclosing assignment leaking into a callee,
//! the first visitor of a context) do not break this: they act only when a
//! join changes a slot, and the enclosing state is part of how a context is
//! entered. A context shared past `MAX_CONTEXTS` (one per function for
//! every call string) is visited first by whichever caller comes first: a
//! caller's walk is reused only with the very walk of the shared context it
//! saw (walks are numbered), and a walk made before calls began to share
//! contexts is not reused after.
//!
//! A read is logged with the stamp the slot (or the members of a path) had
//! when it was read; every change, and every new slot, takes a new stamp.
//! A stamp that differs now means the read may see another value.

use super::dataflow::{FnKind, Val};

/// What one walk of a context read of the state that changes between
/// rounds, in the context's own frame (its callees' walks log their own).
#[derive(Debug, Default)]
pub(super) struct WalkLog {
    /// Environment slots read: (slot index, its stamp at the read).
    pub slots: Vec<(usize, u64)>,
    /// Environment keys read that had no slot. Keys are numbered (see
    /// [`Stamps::key`]).
    pub absent: Vec<u32>,
    /// Paths whose members were read: (path, the members' stamp).
    pub members: Vec<(u32, u64)>,
    /// Return values of callee contexts read: (callee scope, the value).
    pub rets: Vec<(u32, Option<Val>)>,
    /// Constants bound to parameters read: (parameter key, the binding).
    pub consts: Vec<(u32, Option<Option<i64>>)>,
    /// The ageing tests' change count, if the walk asked for one.
    pub ageing: Option<u64>,
    /// The contexts this walk visited first, walked or reused, with the
    /// number of the walk of theirs it saw: a reuse of this walk stands
    /// for theirs too.
    pub callees: Vec<(String, u64)>,
}

/// How a context was entered: everything of the engine's walking state
/// that a walk of the context reads before it sets it itself.
#[derive(Debug, PartialEq)]
pub(super) struct WalkEntry {
    /// New calls share one context per function (past `MAX_CONTEXTS`).
    pub shared: bool,
    pub guard: bool,
    pub kind: FnKind,
    pub insert_depth: u32,
    pub match_depth: u32,
    pub nesting: u32,
    pub guarded_entries: Vec<(String, Val)>,
    /// The enclosing assignment by node ids (target, value, compound).
    pub assigning: Option<(usize, usize, bool)>,
    /// `storing_link`, `storing_packet`, `storing_descriptor`,
    /// `storing_self_derived`, `storing_received_descriptor`.
    pub storing: [bool; 5],
}

/// The last walk of a context.
#[derive(Debug)]
pub(super) struct Walked {
    pub entry: WalkEntry,
    pub log: WalkLog,
    /// Numbers the walks: a caller's log names the walk of this context it
    /// saw, and a context shared by several callers may be walked again
    /// for another one.
    pub gen: u64,
}

/// The stamps a log is checked against.
pub(super) trait Stamps {
    /// The key numbered `id` in the logs.
    fn key(&self, id: u32) -> std::rc::Rc<str>;
    /// The stamp of slot `i`.
    fn slot_stamp(&self, i: usize) -> u64;
    fn has_slot(&self, key: &str) -> bool;
    /// The stamp of the members of `path` (0: none ever).
    fn members_stamp(&self, path: &str) -> u64;
    fn ret(&self, scope: &str) -> Option<&Val>;
    fn param_const(&self, key: &str) -> Option<Option<i64>>;
    fn ageing_changes(&self) -> u64;
}

impl WalkLog {
    /// Every read of this walk (its own, not its callees') would see what
    /// it saw.
    pub(super) fn holds(&self, s: &impl Stamps) -> bool {
        self.slots.iter().all(|&(i, t)| s.slot_stamp(i) == t)
            && self.absent.iter().all(|&k| !s.has_slot(&s.key(k)))
            && self
                .members
                .iter()
                .all(|&(p, t)| s.members_stamp(&s.key(p)) == t)
            && self
                .rets
                .iter()
                .all(|(c, v)| s.ret(&s.key(*c)) == v.as_ref())
            && self
                .consts
                .iter()
                .all(|(k, c)| s.param_const(&s.key(*k)) == *c)
            && self.ageing.is_none_or(|a| s.ageing_changes() == a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap as HashMap;

    const KEYS: [&str; 4] = ["f1#0|b", "f1#0|k", "f2#1", "f2#1|rev"];

    #[derive(Default)]
    struct Fake {
        slots: Vec<u64>,
        keys: Vec<&'static str>,
        members: HashMap<&'static str, u64>,
        rets: HashMap<&'static str, Val>,
        consts: HashMap<&'static str, Option<i64>>,
        ageing: u64,
    }

    impl Stamps for Fake {
        fn key(&self, id: u32) -> std::rc::Rc<str> {
            std::rc::Rc::from(KEYS[id as usize])
        }
        fn slot_stamp(&self, i: usize) -> u64 {
            self.slots[i]
        }
        fn has_slot(&self, key: &str) -> bool {
            self.keys.contains(&key)
        }
        fn members_stamp(&self, path: &str) -> u64 {
            self.members.get(path).copied().unwrap_or(0)
        }
        fn ret(&self, scope: &str) -> Option<&Val> {
            self.rets.get(scope)
        }
        fn param_const(&self, key: &str) -> Option<Option<i64>> {
            self.consts.get(key).copied()
        }
        fn ageing_changes(&self) -> u64 {
            self.ageing
        }
    }

    #[test]
    fn a_walk_is_reusable_only_while_each_of_its_reads_sees_the_same() {
        let mut s = Fake {
            slots: vec![3, 7],
            keys: vec!["f1#0|a"],
            ..Default::default()
        };
        s.members.insert("f1#0|k", 5);
        s.rets.insert("f2#1", Val::default());
        s.consts.insert("f2#1|rev", Some(1));
        let log = WalkLog {
            slots: vec![(1, 7)],
            absent: vec![0],
            members: vec![(1, 5)],
            rets: vec![(2, Some(Val::default()))],
            consts: vec![(3, Some(Some(1)))],
            ageing: Some(0),
            callees: vec![],
        };
        assert!(log.holds(&s));
        // Each kind of read, changed alone, makes the walk stale.
        let stale: [&dyn Fn(&mut Fake); 6] = [
            &|s| s.slots[1] = 8,
            &|s| s.keys.push("f1#0|b"),
            &|s| {
                s.members.insert("f1#0|k", 6);
            },
            &|s| {
                s.rets.insert(
                    "f2#1",
                    Val {
                        mixed: true,
                        ..Val::default()
                    },
                );
            },
            &|s| {
                s.consts.insert("f2#1|rev", None);
            },
            &|s| s.ageing = 1,
        ];
        for change in stale {
            let mut t = Fake {
                slots: s.slots.clone(),
                keys: s.keys.clone(),
                members: s.members.clone(),
                rets: s.rets.clone(),
                consts: s.consts.clone(),
                ageing: s.ageing,
            };
            change(&mut t);
            assert!(!log.holds(&t));
        }
        // A slot the walk did not read may change.
        s.slots[0] = 9;
        assert!(log.holds(&s));
    }
}
