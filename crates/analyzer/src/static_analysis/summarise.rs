//! Fact summarisation: the data-flow engine's events (accesses, chases,
//! symmetric evidence, influences) become per-object summaries and then
//! [`Facts`] with evidence: keys as intersections over accesses, split
//! hazards, and `unknown` with a reason where the code does not decide.

use super::contracts;
use super::dataflow::{self, Entry, Events, FnKind};
use super::program::{self, ParsedFile, Program, TypeRef};
use nfc_core::diag::Diagnostic;
use nfc_core::facts::{
    Backend, Evidence, Facts, Field, Intensity, Question, SplitHazard, StateObject,
};
use std::collections::{BTreeMap, BTreeSet};

/// What summarisation starts from: the parsed program and what the engine
/// observed on its packet path.
pub(super) struct Input<'a, 't> {
    pub name: &'a str,
    pub parsed: &'a [ParsedFile],
    pub prog: &'a Program<'t>,
    pub ev: Events,
    pub entries: &'a [Entry],
    pub diags: Vec<Diagnostic>,
    pub total_errors: usize,
    pub unresolved_headers: &'a [String],
}

/// Where something was seen: (file index, line, source excerpt).
type Site = (usize, u32, String);

/// One keyed use of an object: (key, is a write, file, line).
type KeyUse<'a> = (&'a BTreeSet<Field>, bool, usize, u32);

/// Where a state object is declared and how big its entries are.
struct ObjDecl {
    file: usize,
    line: u32,
    ty: TypeRef,
}

/// The object a part belongs to: `lcore_conf` for `lcore_conf.tx_mbufs`
/// (see `dataflow::Val::direct`); an object that is no part is itself.
pub(super) fn whole_object(obj: &str) -> &str {
    obj.split_once('.').map_or(obj, |(w, _)| w)
}

fn find_obj_decl(prog: &Program, obj: &str, state_structs: &BTreeSet<String>) -> Option<ObjDecl> {
    // A part of an object (`lcore_conf.tx_mbufs`, see `dataflow::Val::direct`):
    // the member's declaration in the element type of the whole.
    if let Some((whole, member)) = obj.rsplit_once('.') {
        let w = find_obj_decl(prog, whole, state_structs)?;
        let ty = prog.field_type(&w.ty.name, member)?.clone();
        return Some(ObjDecl { ty, ..w });
    }
    if let Some(g) = prog.globals.get(obj) {
        return Some(ObjDecl {
            file: g.file,
            line: g.line,
            ty: g.ty.clone(),
        });
    }
    for c in prog.classes.values() {
        if let Some(m) = c.members.iter().find(|m| m.name == obj) {
            return Some(ObjDecl {
                file: m.file,
                line: m.line,
                ty: m.ty.clone(),
            });
        }
    }
    // A member of a state container struct: prefer structs known to be containers.
    let mut best: Option<TypeRef> = None;
    for (sn, def) in &prog.structs {
        if let Some((_, t)) = def.fields.iter().find(|(n, _)| n == obj) {
            if state_structs.contains(sn) || best.is_none() {
                best = Some(t.clone());
            }
        }
    }
    best.map(|ty| ObjDecl {
        file: usize::MAX,
        line: 0,
        ty,
    })
}

/// (entry bytes, capacity, chained container) of an object's declared type.
fn entry_shape(prog: &Program, ty: &TypeRef) -> (Option<u64>, Option<u64>, bool) {
    let name = prog.resolve_type(&ty.name).to_string();
    let lname = name.to_ascii_lowercase();
    let chained = [
        "hashtable",
        "hashmap",
        "unordered_map",
        "std::map",
        "map<",
        "list<",
        "bihash",
        "hashcontainer",
        "rbtree",
        "avl",
    ]
    .iter()
    .any(|k| lname.contains(k))
        && !lname.contains("rte_hash")
        || prog
            .bpf_map_type(&name)
            .is_some_and(|t| t.contains("HASH") || t.contains("TRIE"));
    if !ty.dims.is_empty() {
        let elem = TypeRef {
            dims: vec![],
            ..ty.clone()
        };
        let cap = ty.dims.iter().try_fold(1u64, |a, d| d.map(|d| a * d));
        // Two-dimensional arrays (count-min rows): one entry is one cell.
        return (prog.sizeof(&elem).map(|x| x.0), cap, chained);
    }
    if ty.ptr > 0 {
        let elem = TypeRef {
            ptr: ty.ptr - 1,
            ..ty.clone()
        };
        return (
            prog.sizeof(&elem).map(|x| x.0).filter(|_| ty.ptr == 1),
            None,
            chained,
        );
    }
    // Template containers: HashTable<K, V>; a chained node also holds a next pointer.
    if let Some((_, args)) = name.split_once('<') {
        let args = args.trim_end_matches('>');
        let parts: Vec<&str> = args.split(',').map(str::trim).collect();
        let mut fields = vec![];
        for (i, p) in parts.iter().enumerate() {
            fields.push((
                format!("a{i}"),
                TypeRef {
                    name: program::norm_type(p),
                    ptr: p.matches('*').count() as u8,
                    ..Default::default()
                },
            ));
        }
        if chained {
            fields.push((
                "next".into(),
                TypeRef {
                    name: "void".into(),
                    ptr: 1,
                    ..Default::default()
                },
            ));
        }
        let def = program::StructDef {
            fields,
            ..Default::default()
        };
        return (prog.layout(&def, 0).map(|x| x.0), None, chained);
    }
    // A struct wrapping one array of slots (e.g. an inline hash table).
    if let Some(def) = prog.structs.get(&name) {
        let arrays: Vec<&TypeRef> = def
            .fields
            .iter()
            .map(|(_, t)| t)
            .filter(|t| !t.dims.is_empty())
            .collect();
        if let Some(big) = arrays
            .into_iter()
            .max_by_key(|t| t.dims.iter().map(|d| d.unwrap_or(0)).product::<u64>())
        {
            let elem = TypeRef {
                dims: vec![],
                ..big.clone()
            };
            let cap = big.dims.iter().try_fold(1u64, |a, d| d.map(|d| a * d));
            return (prog.sizeof(&elem).map(|x| x.0), cap, chained);
        }
        return (prog.sizeof(ty).map(|x| x.0), None, chained);
    }
    (prog.sizeof(ty).map(|x| x.0), None, chained)
}

pub(super) fn summarise(input: Input) -> (Facts, Vec<Diagnostic>) {
    let Input {
        name,
        parsed,
        prog,
        ev,
        entries,
        mut diags,
        total_errors,
        unresolved_headers,
    } = input;
    let mut facts = Facts::stateless(name);
    facts.backend = Backend::Static;

    let disp = |file: usize| {
        parsed
            .get(file)
            .map(|p| p.display.clone())
            .unwrap_or_default()
    };

    // Per object summaries.
    #[derive(Default)]
    struct Obj {
        key: BTreeSet<Field>,
        key_union: BTreeSet<Field>,
        keyed_accesses: usize,
        /// Accesses whose reaching definitions all carry packet data.
        key_accesses: usize,
        /// Some access locates entries by packet data of unknown fields.
        opaque_keyed: bool,
        /// Intersection of the keys of accesses located by named fields
        /// only, and how many there were: when these already share no
        /// field, accesses of unknown fields cannot give the object a key.
        named_key: BTreeSet<Field>,
        named_key_accesses: usize,
        /// A packet-path write at an index the NF computed from other state
        /// (a cursor, a free-list head): where, and from what.
        alloc_write: Option<(usize, u32, String, BTreeSet<String>)>,
        /// A packet-path write whose slot, on some path, comes from a
        /// shared ring cursor (`&list[index++]`, wrapped to 0 at the end)
        /// and no packet field (elsewhere the entry is found by its key):
        /// where, and which cursor.
        cursor_write: Option<(usize, u32, String, BTreeSet<String>)>,
        mixed: bool,
        packet_write: bool,
        unguarded_write: Option<(usize, u32, String)>,
        guarded_write: Option<(usize, u32, String)>,
        other_write: bool,
        packet_read: bool,
        key_site: Option<(usize, u32, String)>,
    }
    let packet_written: BTreeSet<&str> = ev
        .accesses
        .iter()
        .filter(|a| a.write && a.kind == FnKind::Packet && !a.per_core)
        .map(|a| a.obj.as_str())
        .collect();
    // Shared ring cursors: unkeyed state, one for all flows, that the
    // packet path both advances from its own value (`index++`) and sets
    // back (`index = 0` once past the end), so the slots it hands out are
    // recycled. A bump allocator that only grows until the pool is full
    // hands each slot out once: per-core copies change the capacity, not
    // which flow's entry is replaced.
    let cursor_writes = |self_derived: bool| -> BTreeSet<&str> {
        ev.accesses
            .iter()
            .filter(|a| {
                a.write
                    && a.kind == FnKind::Packet
                    && !a.per_core
                    && a.self_derived == self_derived
                    && a.may_key.is_empty()
                    && !a.opaque
            })
            .map(|a| a.obj.as_str())
            .collect()
    };
    let cursors: BTreeSet<&str> = cursor_writes(true)
        .intersection(&cursor_writes(false))
        .copied()
        .collect();
    // A caller-handed object is state when the packet path records packet
    // data in it and reads it back (a flow struct, a reassembly table);
    // otherwise it is a context or an out-parameter.
    // Judged on the whole: the parts of a handed object (what its pointer
    // members reach, `*ct.ipf`) are state when the packet path records
    // packet data in the object and reads it back, in whichever parts.
    let handed = |o: &str| ev.caller_objs.contains(whole_object(o));
    // Storage handed back by unseen code for a handle is not known to
    // persist: it is state only as a table whose entries the packet path
    // finds by walking links from it and locates by packet data past the
    // pointer (a scratch area or a message is neither walked so nor
    // searched).
    let located_past_handle = |o: &str| {
        ev.chases
            .iter()
            .any(|c| c.objs.iter().any(|x| whole_object(x) == o))
            && ev.accesses.iter().any(|a| {
                whole_object(&a.obj) == o
                    && a.kind == FnKind::Packet
                    && !a.handed
                    && (!a.may_key.is_empty() || a.opaque)
            })
    };
    let caller_state: BTreeSet<&str> = ev
        .caller_objs
        .iter()
        .map(String::as_str)
        .filter(|o| {
            ev.accesses.iter().any(|a| {
                whole_object(&a.obj) == *o && a.kind == FnKind::Packet && a.write && !a.per_core
            }) && ev.influences.iter().any(|i| whole_object(&i.obj) == *o)
                && (!ev.handed_back.contains(*o) || located_past_handle(o))
        })
        .collect();
    // State whose value leaves in the packet (an allocated port): entries
    // placed by it are found again by that value, which plays another role.
    let escaping: BTreeSet<&str> = ev
        .influences
        .iter()
        .filter(|i| i.how == "a value written into the packet")
        .map(|i| i.obj.as_str())
        .collect();
    // Packet queues: objects the packet path fills with packet descriptors
    // (transmit buffers, reorder rings) and never with packet data. They
    // hold packets in transit, not facts about flows: one per core changes
    // batching, not what the NF does.
    let packet_queues: BTreeSet<&str> = packet_written
        .iter()
        .copied()
        .filter(|o| {
            let writes = || {
                ev.accesses
                    .iter()
                    .filter(move |a| a.obj == *o && a.write && a.kind == FnKind::Packet)
            };
            writes().any(|a| a.stores_descriptor)
                && !writes().any(|a| a.stores_packet && !a.self_derived)
                && !ev
                    .influences
                    .iter()
                    .any(|i| i.obj == *o && i.how == "a comparison with packet data")
        })
        .collect();
    let mut queue_evidence = vec![];
    for q in &packet_queues {
        if let Some(a) = ev
            .accesses
            .iter()
            .find(|a| a.obj == *q && a.stores_descriptor)
        {
            queue_evidence.push(Evidence {
                question: Question::StateObject,
                file: disp(a.file),
                line_start: a.line,
                line_end: a.line,
                reason: format!(
                    "`{q}` is a packet queue: the packet path stores packet descriptors in it (`{}`), never packet data",
                    a.what
                ),
            });
        }
    }
    // Objects some access locates by packet data. For an object the caller
    // hands in, accesses that only go through the handed pointer are then
    // the container's own metadata (a table's size); with no such access
    // the object itself is an entry the caller located, by fields this code
    // does not show (a flow struct): its key is unknown.
    let located_by_packet: BTreeSet<&str> = ev
        .accesses
        .iter()
        .filter(|a| a.kind == FnKind::Packet && (!a.may_key.is_empty() || a.opaque))
        .map(|a| whole_object(&a.obj))
        .collect();
    // Objects with entries located by packet data past the handed pointer
    // (`tbl->flows[i]` with `i` keyed), not only through it.
    let located_inside: BTreeSet<&str> = ev
        .accesses
        .iter()
        .filter(|a| a.kind == FnKind::Packet && !a.handed && (!a.may_key.is_empty() || a.opaque))
        .map(|a| whole_object(&a.obj))
        .collect();
    let mut objs: BTreeMap<String, Obj> = BTreeMap::new();
    for a in &ev.accesses {
        // The running core's own storage (per-core statistics, transmit
        // buffers, drain timestamps): N cores, each with its own, behave
        // as the code does on one; no flow's packets meet there.
        if a.per_core && a.kind == FnKind::Packet {
            continue;
        }
        let handed_only = a.handed && a.may_key.is_empty() && !a.opaque;
        // Parts of one handed object share its container role: a table
        // located by packet data makes the rest its metadata.
        let container = located_by_packet.contains(whole_object(&a.obj));
        if handed_only && container && !a.write {
            continue;
        }
        let a = &dataflow::Access {
            opaque: a.opaque || (handed_only && !container),
            ..a.clone()
        };
        if handed(&a.obj) && !caller_state.contains(whole_object(&a.obj)) {
            continue;
        }
        if packet_queues.contains(a.obj.as_str()) {
            continue;
        }
        let o = objs.entry(a.obj.clone()).or_default();
        match a.kind {
            FnKind::Packet => {
                if a.opaque {
                    o.opaque_keyed = true;
                }
                // Located by packet data on some path (`may_key`); keyed by
                // what every reaching definition carries (`key`). An access
                // whose reaching definitions carry no field on this path
                // (the slot just allocated for a new entry, reached later
                // by the key) does not narrow the key; with no access that
                // carries one, the object has the empty key. An access
                // whose every definition carries fields, none of them
                // common (one endpoint or the other), does narrow it.
                if (!a.may_key.is_empty() || a.opaque) && !a.link {
                    // The object's key is what every keyed access agrees on:
                    // a field only some accesses use does not locate entries.
                    if !a.key.is_empty() || a.opaque || a.alternatives {
                        if o.key_accesses == 0 {
                            o.key = a.key.clone();
                        } else {
                            o.key = o.key.intersection(&a.key).copied().collect();
                        }
                        o.key_accesses += 1;
                    }
                    if (!a.key.is_empty() || a.alternatives) && !a.opaque {
                        if o.named_key_accesses == 0 {
                            o.named_key = a.key.clone();
                        } else {
                            o.named_key = o.named_key.intersection(&a.key).copied().collect();
                        }
                        o.named_key_accesses += 1;
                    }
                    o.key_union.extend(a.key.iter().copied());
                    o.keyed_accesses += 1;
                    o.mixed |= a.mixed;
                    if o.key_site.is_none() {
                        o.key_site = Some((a.file, a.line, a.what.clone()));
                    }
                }
                if a.write
                    && a.may_key.is_empty()
                    && !a.opaque
                    && !a.alternatives
                    && !a.alloc_from.is_empty()
                {
                    // An allocation only if some source is itself state the
                    // packet path writes (a cursor), not configuration.
                    let from: BTreeSet<String> = a
                        .alloc_from
                        .iter()
                        .filter(|f| {
                            (packet_written.contains(f.as_str()) || ev.handed_out.contains(*f))
                                && escaping.contains(f.as_str())
                        })
                        .cloned()
                        .collect();
                    if !from.is_empty() {
                        o.alloc_write
                            .get_or_insert((a.file, a.line, a.what.clone(), from));
                    }
                }
                if a.write && a.key.is_empty() && !a.may_key.is_empty() && !a.opaque {
                    let from: BTreeSet<String> = a
                        .alloc_from
                        .iter()
                        .filter(|f| cursors.contains(f.as_str()))
                        .cloned()
                        .collect();
                    if !from.is_empty() {
                        o.cursor_write
                            .get_or_insert((a.file, a.line, a.what.clone(), from));
                    }
                }
                if a.write {
                    o.packet_write = true;
                    if a.guarded || a.insertish {
                        o.guarded_write
                            .get_or_insert((a.file, a.line, a.what.clone()));
                    } else {
                        o.unguarded_write
                            .get_or_insert((a.file, a.line, a.what.clone()));
                    }
                } else {
                    o.packet_read = true;
                }
            }
            FnKind::Other => o.other_write |= a.write,
            FnKind::Init => {}
        }
    }
    // Mirrored keys: the same object located by a field in one place and by
    // its mirror in another (replies must reach the entry of the request).
    let mut mirrored: BTreeMap<String, (usize, u32, String)> = BTreeMap::new();
    let mut direction_key: BTreeMap<String, BTreeSet<Field>> = BTreeMap::new();
    let mut endpoint_keyed: BTreeSet<String> = BTreeSet::new();
    {
        let mut by_obj: BTreeMap<&str, Vec<&dataflow::KeySlots>> = BTreeMap::new();
        for k in &ev.key_slots {
            by_obj.entry(k.obj.as_str()).or_default().push(k);
        }
        for (o, ks) in &by_obj {
            // A key that holds only one endpoint (an address and a port of
            // one side), found by the source endpoint here and by the
            // destination endpoint there, is state both directions reach
            // (symmetric), but one entry is reached from every connection
            // of that endpoint: no symmetric RSS co-locates them, so it
            // gives the object no direction key.
            let holds_pair = |k: &dataflow::KeySlots| {
                let all: BTreeSet<Field> = k.slots.values().flatten().copied().collect();
                all.iter()
                    .any(|f| *f != f.mirror() && all.contains(&f.mirror()))
            };
            'pairs: for (i, a) in ks.iter().enumerate() {
                for b in ks[i + 1..].iter().filter(|b| b.handed == a.handed) {
                    for (slot, fa) in &a.slots {
                        let Some(fb) = b.slots.get(slot) else {
                            continue;
                        };
                        if fa.iter().any(|f| {
                            *f != f.mirror()
                                && fb.contains(&f.mirror())
                                && !fb.contains(f)
                                && !fa.contains(&f.mirror())
                        }) {
                            if !(holds_pair(a) && holds_pair(b)) {
                                endpoint_keyed.insert(o.to_string());
                            }
                            mirrored.insert(o.to_string(), (b.file, b.line, format!("`{o}` is looked up with {} holding {} here and {} elsewhere", key_slot_name(slot), fields_str(fb), fields_str(fa))));
                            break 'pairs;
                        }
                    }
                }
            }
            let dir = ks.iter().find(|k| k.insertish).or(ks.first()).map(|k| {
                k.slots
                    .values()
                    .flatten()
                    .copied()
                    .collect::<BTreeSet<Field>>()
            });
            if let Some(d) = dir {
                direction_key.insert(o.to_string(), d);
            }
        }
        // Index keys: tbl[hash(src)] here, tbl[hash(dst)] there. Keys of
        // one endpoint (no field with its mirror) make the object symmetric
        // (both directions reach its entries) but, as above, give it no
        // direction key: a per-host or per-endpoint entry is reached by
        // packets of many connections.
        let mut keys_by_obj: BTreeMap<&str, Vec<KeyUse>> = BTreeMap::new();
        for a in &ev.accesses {
            if a.kind == FnKind::Packet && !a.key.is_empty() {
                keys_by_obj
                    .entry(a.obj.as_str())
                    .or_default()
                    .push((&a.key, a.write, a.file, a.line));
            }
        }
        for (o, ks) in &keys_by_obj {
            for (ka, _, _, _) in ks {
                let m: BTreeSet<Field> = ka.iter().map(|f| f.mirror()).collect();
                if &m != *ka
                    && ka.len() > 1
                    && !ka.iter().any(|f| m.contains(f) && f.mirror() != *f)
                {
                    if let Some((_, _, fl, ln)) = ks.iter().find(|(kb, _, _, _)| **kb == m) {
                        if !mirrored.contains_key(*o) {
                            endpoint_keyed.insert(o.to_string());
                        }
                        mirrored.entry(o.to_string()).or_insert((
                            *fl,
                            *ln,
                            format!(
                                "`{o}` is indexed by {} and by its mirror {}",
                                fields_str(ka),
                                fields_str(&m)
                            ),
                        ));
                    }
                }
            }
        }
    }
    // Objects whose search loops match entries member by member in order
    // (every matched member against the packet value of the same member,
    // none against another: no mirror match).
    let mut ordered_match: BTreeMap<&str, &dataflow::MatchMember> = BTreeMap::new();
    for m in &ev.match_members {
        let all_same = ev
            .match_members
            .iter()
            .filter(|x| x.obj == m.obj)
            .all(|x| x.same_member);
        if all_same {
            ordered_match.entry(m.obj.as_str()).or_insert(m);
        }
    }
    let state_structs: BTreeSet<String> = BTreeSet::new();
    let mut inconsistent_keys: Vec<(String, Option<Site>, String)> = vec![];
    let mut unknown_keys: Vec<(String, Option<Site>)> = vec![];
    let mut alloc_flow: Vec<(String, BTreeSet<Field>)> = vec![];
    let mut state_objects = vec![];
    let mut per_flow: Vec<(String, BTreeSet<Field>)> = vec![];
    let mut evidence = queue_evidence;
    let mut max_entry: Option<u64> = None;
    let mut pointer_chasing = false;
    let mut symmetric = false;
    let mut any_unguarded = None;
    let mut any_guarded = None;
    let mut any_readonly = false;
    for (name_o, o) in &objs {
        // State is what the packet path writes; tables only written by
        // configuration or control-plane code are configuration. A table
        // an API's contract describes is written on the packet path by the
        // kernel (see `contracts`), whether or not the NF writes it too.
        let kernel_kept = contracts::kept_by_kernel(name_o);
        let is_state = o.packet_write || kernel_kept.is_some();
        if !is_state {
            continue;
        }
        let decl = if name_o == "flow_state" {
            None
        } else {
            find_obj_decl(prog, name_o, &state_structs)
        };
        let (entry_bytes, capacity, chained) = match &decl {
            Some(d) => entry_shape(prog, &d.ty),
            None => (flow_state_size(prog, entries), None, false),
        };
        let sym_here = mirrored.contains_key(name_o);
        // A symmetric object is located by a field in one direction and by
        // its mirror in the other: its key is the direction key of the
        // insertion, not the (empty) intersection of the two.
        let obj_key: BTreeSet<Field> = match (sym_here, direction_key.get(name_o)) {
            (true, Some(d))
                if !d.is_empty()
                    && d.is_subset(&o.key_union)
                    && !endpoint_keyed.contains(name_o) =>
            {
                d.clone()
            }
            _ => o.key.clone(),
        };
        // The caller decides how it locates what it hands in, unless the
        // code locates entries inside it by packet data (a table handed in
        // is a container: its key is what locates them). A call handed the
        // object itself with packet data (`lookup(flow, saddr)`) locates
        // nothing inside it that the code shows.
        // An object whose named keys already share no field has no key,
        // whatever the accesses of unknown fields use: the intersection
        // can only shrink.
        let named_disagree = o.named_key_accesses > 1 && o.named_key.is_empty();
        let unknown_key = (obj_key.is_empty() && o.opaque_keyed && !named_disagree)
            || (caller_state.contains(whole_object(name_o))
                && !located_inside.contains(whole_object(name_o)));
        // Located by packet fields, even if no field is common to all its
        // accesses (then the object, and the NF, has the empty key).
        let is_flow = !obj_key.is_empty() || o.keyed_accesses > 0 || unknown_key;
        if unknown_key {
            unknown_keys.push((name_o.clone(), o.key_site.clone()));
        }
        if obj_key.is_empty() && !unknown_key && o.keyed_accesses > 0 {
            // Keyed by packet fields, but by different ones at different
            // accesses: no field locates every entry.
            inconsistent_keys.push((name_o.clone(), o.key_site.clone(), fields_str(&o.key_union)));
        }
        let chased = ev.chases.iter().any(|c| c.objs.contains(name_o)) || (chained && is_flow);
        state_objects.push(StateObject {
            name: name_o.clone(),
            // Entries at NF-allocated positions have no packet-field key.
            key: if o.alloc_write.is_some() {
                vec![]
            } else {
                obj_key.iter().copied().collect()
            },
            entry_bytes,
            capacity,
            per_flow: is_flow,
            pointer_chasing: chased,
        });
        if let Some(d) = decl.as_ref().filter(|d| d.file != usize::MAX) {
            evidence.push(Evidence {
                question: Question::StateObject,
                file: disp(d.file),
                line_start: d.line,
                line_end: d.line,
                reason: format!(
                    "state object `{name_o}` declared here{}",
                    if is_flow {
                        ""
                    } else {
                        " (not keyed by packet fields)"
                    }
                ),
            });
        }
        if !is_flow {
            continue;
        }
        if let (Some(c), Some((f, l, w))) = (kernel_kept, &o.key_site) {
            evidence.push(Evidence {
                question: Question::Stateful,
                file: disp(*f),
                line_start: *l,
                line_end: *l,
                reason: format!(
                    "per-flow state `{name_o}` kept by the kernel, reached by `{w}`: {}",
                    c.source
                ),
            });
        }
        if o.alloc_write.is_some() {
            // Entries sit where the NF allocated them; the packet fields that
            // find them later play other roles (a reply's port is the
            // allocated value): they bound no flow key.
            alloc_flow.push((name_o.clone(), BTreeSet::new()));
        } else {
            per_flow.push((name_o.clone(), obj_key.clone()));
        }
        if let Some((f, l, why)) = mirrored.get(name_o) {
            symmetric = true;
            evidence.push(Evidence {
                question: Question::Symmetric,
                file: disp(*f),
                line_start: *l,
                line_end: *l,
                reason: why.clone(),
            });
        }
        if let Some(b) = entry_bytes {
            max_entry = Some(max_entry.map_or(b, |m: u64| m.max(b)));
        }
        if let Some((f, l, w)) = &o.key_site {
            evidence.push(Evidence {
                question: Question::FlowKey,
                file: disp(*f),
                line_start: *l,
                line_end: *l,
                reason: format!(
                    "`{name_o}` is located by {} via `{w}`",
                    fields_str(&obj_key)
                ),
            });
        }
        if let (true, Some(m)) = (o.mixed, ordered_match.get(name_o.as_str())) {
            // The direction-agnostic hash only picks a bucket; the entry is
            // the one the match selects, and it compares the key in order.
            evidence.push(Evidence {
                question: Question::Symmetric,
                file: disp(m.file),
                line_start: m.line,
                line_end: m.line,
                reason: format!(
                    "the hash locating `{name_o}` combines a field with its mirror, but {}: one entry per direction",
                    m.reason
                ),
            });
        } else if o.mixed {
            symmetric = true;
            if let Some((f, l, w)) = &o.key_site {
                evidence.push(Evidence {
                    question: Question::Symmetric,
                    file: disp(*f),
                    line_start: *l,
                    line_end: *l,
                    reason: format!("key of `{name_o}` combines a field with its mirror (direction-agnostic) at `{w}`"),
                });
            }
        }
        if o.packet_write {
            // Evidence comes from the biggest per-flow object (the entries, not the bucket heads).
            let size = entry_bytes.unwrap_or(0);
            if let Some(u) = &o.unguarded_write {
                if any_unguarded
                    .as_ref()
                    .map(|(_, _, s)| size > *s)
                    .unwrap_or(true)
                {
                    any_unguarded = Some((name_o.clone(), u.clone(), size));
                }
            }
            if let Some(g) = &o.guarded_write {
                if any_guarded
                    .as_ref()
                    .map(|(_, _, s)| size > *s)
                    .unwrap_or(true)
                {
                    any_guarded = Some((name_o.clone(), g.clone(), size));
                }
            }
        } else {
            any_readonly = true;
        }
        if chased {
            pointer_chasing = true;
            if let Some(c) = ev.chases.iter().find(|c| c.objs.contains(name_o)) {
                evidence.push(Evidence {
                    question: Question::PointerChasing,
                    file: disp(c.file),
                    line_start: c.line,
                    line_end: c.line,
                    reason: format!("lookup loop follows links through `{name_o}`"),
                });
            } else if let Some(d) = decl.as_ref().filter(|d| d.file != usize::MAX) {
                evidence.push(Evidence {
                    question: Question::PointerChasing,
                    file: disp(d.file),
                    line_start: d.line,
                    line_end: d.line,
                    reason: format!("`{name_o}` is a chained container ({})", d.ty.name),
                });
            }
        }
    }
    for s in &ev.sym {
        if per_flow
            .iter()
            .chain(alloc_flow.iter())
            .any(|(n, _)| n == &s.obj)
        {
            symmetric = true;
            evidence.push(Evidence {
                question: Question::Symmetric,
                file: disp(s.file),
                line_start: s.line,
                line_end: s.line,
                reason: s.reason.clone(),
            });
        }
    }
    facts.state_objects = state_objects;
    facts.source_cost = Some(ev.cost.max(1));
    facts.accelerators = ev.accels.keys().copied().collect();
    for (a, (f, l, why)) in &ev.accels {
        evidence.push(Evidence {
            question: Question::Accelerator,
            file: disp(*f),
            line_start: *l,
            line_end: *l,
            reason: format!("{a:?}: {why}"),
        });
    }
    for e in entries {
        let f = &prog.fns[e.fn_idx];
        evidence.push(Evidence {
            question: Question::Cost,
            file: disp(f.file),
            line_start: f.node.start_position().row as u32 + 1,
            line_end: f.node.end_position().row as u32 + 1,
            reason: format!(
                "per-packet entry `{}`{}",
                qualified(f.class.as_deref(), &f.name),
                if e.guarded {
                    " (new-flow callback)"
                } else {
                    ""
                }
            ),
        });
    }
    // Split hazards: state the packet path writes and whose value steers it,
    // but that no packet field locates (a cursor, a free list, a global
    // bucket), and objects keyed by different fields at different accesses.
    let mut hazards: Vec<SplitHazard> = vec![];
    for (name_o, o) in &objs {
        if let Some((f, l, w, from)) = &o.alloc_write {
            if o.packet_write {
                hazards.push(SplitHazard {
                    object: name_o.clone(),
                    reason: format!(
                        "entries are placed at an index the NF computes from {} (`{w}`), not from packet fields",
                        quoted(from)
                    ),
                    file: Some(disp(*f)),
                    line: Some(*l),
                });
                continue;
            }
        }
        if let Some((f, l, w, from)) = &o.cursor_write {
            // Which slot a new flow's entry takes, and whose entry it
            // replaces, depends on every flow's arrivals: per-core copies
            // would hand out and recycle slots differently.
            hazards.push(SplitHazard {
                object: name_o.clone(),
                reason: format!(
                    "new entries take the slot the shared cursor {} hands out (`{w}`), whatever flow held it, not a slot found by packet fields",
                    quoted(from)
                ),
                file: Some(disp(*f)),
                line: Some(*l),
            });
            continue;
        }
        let per_flow_obj = per_flow.iter().any(|(n, k)| n == name_o && !k.is_empty());
        if !o.packet_write || per_flow_obj {
            continue;
        }
        // A per-CPU BPF map already holds one copy per CPU in the program
        // as written: N per-core instances, each with its own copy, behave
        // as it does, whatever locates the entries.
        let per_cpu = find_obj_decl(prog, name_o, &state_structs).is_some_and(|d| {
            prog.bpf_map_type(prog.resolve_type(&d.ty.name))
                .is_some_and(|t| t.contains("PERCPU"))
        });
        if per_cpu {
            continue;
        }
        if let Some((site, union)) = inconsistent_keys
            .iter()
            .find(|(n, _, _)| n == name_o)
            .map(|(_, site, union)| (site, union))
        {
            let (file, line) = site
                .as_ref()
                .map(|(f, l, _)| (Some(disp(*f)), Some(*l)))
                .unwrap_or((None, None));
            hazards.push(SplitHazard {
                object: name_o.clone(),
                reason: format!(
                    "located by different packet fields at different accesses ({union}); no field locates every entry"
                ),
                file,
                line,
            });
            continue;
        }
        if unknown_keys.iter().any(|(n, _)| n == name_o) {
            continue; // per-flow with an unknown key: FlowKey is unknown
        }
        if let Some(inf) = ev.influences.iter().find(|i| &i.obj == name_o) {
            let (f, l, w) = o
                .unguarded_write
                .as_ref()
                .or(o.guarded_write.as_ref())
                .cloned()
                .unwrap_or((inf.file, inf.line, String::new()));
            hazards.push(SplitHazard {
                object: name_o.clone(),
                reason: format!(
                    "written on the packet path (`{w}`) without a packet-field key, and its value steers the packet path ({} at line {})",
                    inf.how, inf.line
                ),
                file: Some(disp(f)),
                line: Some(l),
            });
        }
    }
    for h in &hazards {
        evidence.push(Evidence {
            question: Question::Splittable,
            file: h.file.clone().unwrap_or_default(),
            line_start: h.line.unwrap_or(0),
            line_end: h.line.unwrap_or(0),
            reason: format!("`{}`: {}", h.object, h.reason),
        });
    }
    facts.split_hazards = hazards;
    if per_flow.is_empty() {
        per_flow = alloc_flow;
    }
    if per_flow.is_empty() {
        // Blind spots: a macro the packet path applies to packet data or
        // state, whose expansion is not analysed.
        if let Some((mac, f, l)) = ev.blind_calls.first() {
            facts.mark_unknown(
                Question::Stateful,
                format!(
                    "the packet path applies macro `{mac}` ({}:{l}) to packet data or state; its expansion is not analysed",
                    disp(*f)
                ),
            );
            facts.confidence = facts.confidence.min(0.3);
        }
        // A lookup of packet fields in a table kept outside the analysed
        // code (a kernel flowtable, a library's flow cache): whether that
        // table is per-flow state, and who writes it, is not in this code.
        if let Some((callee, f, l)) = ev.external_lookups.first() {
            facts.mark_unknown(
                Question::Stateful,
                format!(
                    "the packet path looks packet fields up with `{callee}` ({}:{l}), whose table is outside the analysed code",
                    disp(*f)
                ),
            );
            facts.confidence = facts.confidence.min(0.3);
        }
        // Blind spots: project headers that were not found, and state handed
        // to code whose body they would hold. "Stateless" is then a guess.
        if let (Some((callee, f, l)), false) =
            (ev.hidden_state_calls.first(), unresolved_headers.is_empty())
        {
            facts.mark_unknown(
                Question::Stateful,
                format!(
                    "header(s) {} not found, and the packet path hands state to `{callee}` ({}:{l}) whose body is not visible",
                    unresolved_headers.join(", "),
                    disp(*f)
                ),
            );
            facts.confidence = facts.confidence.min(0.3);
        }
        evidence.push(Evidence {
            question: Question::Stateful,
            file: entries
                .first()
                .map(|e| disp(prog.fns[e.fn_idx].file))
                .unwrap_or_default(),
            line_start: 0,
            line_end: 0,
            reason: "no state keyed by packet fields is written on the packet path".into(),
        });
        facts.evidence = evidence;
        facts.confidence = confidence(total_errors, true);
        return (facts, diags);
    }
    facts.stateful = true;
    // Flow key: fields every per-flow object is keyed by.
    let mut key: BTreeSet<Field> = per_flow[0].1.clone();
    for (_, k) in &per_flow[1..] {
        key = key.intersection(k).copied().collect();
    }
    if key.is_empty() && unknown_keys.is_empty() {
        // Any one object's key would be broader than what locates the
        // others' entries: no key, so the NF is kept shared.
        diags.push(
            Diagnostic::warning(
                "A0104",
                format!("per-flow objects of `{name}` share no key field"),
            )
            .with_note(
                per_flow
                    .iter()
                    .map(|(n, k)| format!("{n}: {}", fields_str(k)))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
            .with_hint("no RSS field set keeps every object shared-nothing; the NF is kept shared"),
        );
        key.clear();
    }
    facts.flow_key = key.into_iter().collect();
    // Objects whose key the code decides already share no field: whatever
    // locates the others, the intersection stays empty (the NF has no flow
    // key), so their unknown keys cannot change the answer.
    let decided: Vec<&(String, BTreeSet<Field>)> = per_flow
        .iter()
        .filter(|(n, _)| !unknown_keys.iter().any(|(u, _)| u == n))
        .collect();
    let decided_empty = !decided.is_empty()
        && decided
            .iter()
            .skip(1)
            .fold(decided[0].1.clone(), |k, (_, o)| {
                k.intersection(o).copied().collect()
            })
            .is_empty();
    if decided_empty && !unknown_keys.is_empty() {
        diags.push(
            Diagnostic::warning(
                "A0104",
                format!("per-flow objects of `{name}` share no key field"),
            )
            .with_note(
                decided
                    .iter()
                    .map(|(n, k)| format!("{n}: {}", fields_str(k)))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
            .with_hint("no RSS field set keeps every object shared-nothing; the NF is kept shared"),
        );
    }
    if let Some((o, site)) = unknown_keys.first().filter(|_| !decided_empty) {
        // An object located by packet data of fields the code does not
        // name: every narrower key is a guess, so the key is unknown.
        let at = site
            .as_ref()
            .map(|(f, l, w)| format!(" at {}:{l} (`{w}`)", disp(*f)))
            .unwrap_or_default();
        facts.mark_unknown(
            Question::FlowKey,
            format!(
                "`{o}` is located by packet data whose header fields the code does not name{at}"
            ),
        );
        facts.stateful = true;
        if !symmetric {
            // Symmetry is a property of how entries are located: with the
            // key unknown, whether both directions reach one entry is too.
            facts.mark_unknown(
                Question::Symmetric,
                format!(
                    "`{o}` is located by packet data whose header fields the code does not name{at}, so whether both directions of a connection reach one entry is not decided"
                ),
            );
        }
    }
    facts.symmetric = symmetric;
    facts.pointer_chasing = pointer_chasing;
    facts.state_entry_bytes = max_entry;
    facts.intensity = if let Some((o, (f, l, w), _)) = any_unguarded {
        evidence.push(Evidence {
            question: Question::Intensity,
            file: disp(f),
            line_start: l,
            line_end: l,
            reason: format!("`{o}` is written on every packet: `{w}`"),
        });
        Intensity::PerPacket
    } else if let Some((o, (f, l, w), _)) = any_guarded {
        evidence.push(Evidence {
            question: Question::Intensity,
            file: disp(f),
            line_start: l,
            line_end: l,
            reason: format!("`{o}` is written only on a miss/new-flow path: `{w}`"),
        });
        Intensity::PerFlow
    } else {
        let _ = any_readonly;
        Intensity::ReadOnly
    };
    for (n, _) in &per_flow {
        if let Some(o) = objs.get(n) {
            if let Some((f, l, w)) = o.unguarded_write.as_ref().or(o.guarded_write.as_ref()) {
                evidence.push(Evidence {
                    question: Question::Stateful,
                    file: disp(*f),
                    line_start: *l,
                    line_end: *l,
                    reason: format!("per-flow state `{n}` written on the packet path: `{w}`"),
                });
            }
        }
    }
    facts.evidence = evidence;
    facts.confidence = confidence(total_errors, false);
    (facts, diags)
}

fn flow_state_size(prog: &Program, entries: &[Entry]) -> Option<u64> {
    for e in entries {
        for (pname, _, _) in &e.flow_params {
            if let Some(p) = prog.fns[e.fn_idx].params.iter().find(|p| &p.name == pname) {
                let t = TypeRef {
                    ptr: p.ty.ptr.saturating_sub(1),
                    reference: false,
                    ..p.ty.clone()
                };
                if let Some((s, _)) = prog.sizeof(&t) {
                    return Some(s);
                }
            }
        }
    }
    None
}

fn confidence(errors: usize, stateless: bool) -> f32 {
    let base: f32 = if stateless { 0.85 } else { 0.8 };
    (base - 0.05 * errors.min(8) as f32).max(0.3)
}

fn qualified(class: Option<&str>, name: &str) -> String {
    match class {
        Some(c) => format!("{c}::{name}"),
        None => name.to_string(),
    }
}

fn fields_str(k: &BTreeSet<Field>) -> String {
    format!(
        "[{}]",
        k.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
    )
}

/// Names as a list in backquotes: `` `a`, `b` ``.
fn quoted(names: &BTreeSet<String>) -> String {
    names
        .iter()
        .map(|x| format!("`{x}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A key slot as the evidence names it: `#1` is the call's second
/// argument, `#1.src.addr` a member of it.
fn key_slot_name(slot: &str) -> String {
    let (arg, member) = slot.split_once('.').unwrap_or((slot, ""));
    let arg = arg
        .trim_start_matches('#')
        .parse::<usize>()
        .map_or_else(|_| arg.to_string(), |i| format!("argument {}", i + 1));
    if member.is_empty() {
        arg
    } else {
        format!("key member `{member}` of {arg}")
    }
}
