//! The program model the static backend works on: every source file parsed
//! with tree-sitter (C or C++), and the declarations collected from the trees:
//! functions (with their class for C++ methods), struct layouts, typedefs,
//! globals and class members, and integer constants from `#define`, enums and
//! `const` globals. Also computes C struct sizes (alignment and `packed`) so
//! state entries can be sized without a compiler.

use super::preprocess::{DefinedNames, Definitions};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};
use tree_sitter::{Language, Node, Parser, Tree};

/// Node accessors that look names up once per grammar and thread. The
/// engine asks every node its kind and its children by field name, often
/// several times: `Node::kind` converts (and UTF-8 checks) the grammar's C
/// string on each call, and `Node::child_by_field_name` compares the name
/// with each of the grammar's field names. Together they were a sixth of
/// the analysis of an nDPI unit.
pub trait NodeExt<'t> {
    /// The child in field `name`.
    fn field(&self, name: &'static str) -> Option<Node<'t>>;
    /// The node's kind (as `Node::kind`).
    fn kind_name(&self) -> &'static str;
}

/// Slots of the field-id cache (a power of two, well above the number of
/// distinct field-name literals in the analyzer).
const FIELD_SLOTS: usize = 512;

struct GrammarNames {
    /// Field ids by the address of the name literal, in an open-addressed
    /// table that never evicts: a lookup is (nearly always) one compare. A direct-mapped table made the cost depend on where the
    /// linker put the literals: two hot names sharing a slot evicted each
    /// other on every lookup (a slow lookup compares the name with each of
    /// the grammar's field names).
    /// Keyed by address and length (a literal could share its address
    /// with a longer one it is a prefix of).
    fields: [(usize, usize, Option<std::num::NonZeroU16>); FIELD_SLOTS],
    kinds: Vec<Option<&'static str>>,
}

impl Default for GrammarNames {
    fn default() -> Self {
        GrammarNames {
            fields: [(0, 0, None); FIELD_SLOTS],
            kinds: vec![],
        }
    }
}

impl GrammarNames {
    /// The field id of `name` by linear probing from its home slot,
    /// inserted when missing.
    #[cold]
    fn probe_field(&mut self, lang: &Language, name: &'static str) -> Option<std::num::NonZeroU16> {
        let addr = name.as_ptr() as usize;
        let mut at = addr % FIELD_SLOTS;
        for _ in 0..FIELD_SLOTS {
            let slot = &mut self.fields[at];
            if slot.0 == addr && slot.1 == name.len() {
                return slot.2;
            }
            if slot.0 == 0 {
                *slot = (addr, name.len(), lang.field_id_for_name(name));
                return slot.2;
            }
            at = (at + 1) % FIELD_SLOTS;
        }
        // Full (more distinct names than slots): look the name up.
        lang.field_id_for_name(name)
    }
}

thread_local! {
    static GRAMMAR_NAMES: std::cell::RefCell<Vec<(Language, GrammarNames)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn with_grammar_names<R>(lang: &Language, f: impl FnOnce(&mut GrammarNames) -> R) -> R {
    GRAMMAR_NAMES.with(|all| {
        let mut all = all.borrow_mut();
        let at = match all.iter().position(|(l, _)| l == lang) {
            Some(at) => at,
            None => {
                all.push((lang.clone(), GrammarNames::default()));
                all.len() - 1
            }
        };
        f(&mut all[at].1)
    })
}

impl<'t> NodeExt<'t> for Node<'t> {
    fn field(&self, name: &'static str) -> Option<Node<'t>> {
        let lang = self.language();
        let addr = name.as_ptr() as usize;
        let id = with_grammar_names(&lang, |g| {
            // The name's home slot holds it on nearly every lookup; the
            // probe for a taken slot stays out of this path.
            let slot = g.fields[addr % FIELD_SLOTS];
            if slot.0 == addr && slot.1 == name.len() {
                slot.2
            } else {
                g.probe_field(&lang, name)
            }
        })?;
        self.child_by_field_id(id.get())
    }

    fn kind_name(&self) -> &'static str {
        let id = self.kind_id();
        let lang = self.language();
        let name = with_grammar_names(&lang, |g| {
            let i = usize::from(id);
            if g.kinds.len() <= i {
                g.kinds.resize(i + 1, None);
            }
            *g.kinds[i].get_or_insert_with(|| lang.node_kind_for_id(id).unwrap_or(""))
        });
        name
    }
}

/// One parsed source file.
pub struct ParsedFile {
    /// Path as shown in evidence.
    pub display: String,
    /// Preprocessed text (same lines as the original).
    pub text: String,
    pub tree: Tree,
    pub cpp: bool,
    /// Number of ERROR nodes tree-sitter produced.
    pub errors: usize,
    /// Line (1-based) of the first of them, for the note that reports them.
    pub first_error_line: Option<u32>,
}

/// Parse one preprocessed text. Returns None only if tree-sitter gives up.
pub fn parse(display: String, text: String, cpp: bool) -> Option<ParsedFile> {
    let mut parser = Parser::new();
    let lang: tree_sitter::Language = if cpp {
        tree_sitter_cpp::LANGUAGE.into()
    } else {
        tree_sitter_c::LANGUAGE.into()
    };
    parser.set_language(&lang).ok()?;
    let tree = parser.parse(&text, None)?;
    let mut errors = 0;
    let mut first_error_line = None;
    count_errors(tree.root_node(), &mut errors, &mut first_error_line);
    Some(ParsedFile {
        display,
        text,
        tree,
        cpp,
        errors,
        first_error_line,
    })
}

fn count_errors(n: Node, out: &mut usize, first_line: &mut Option<u32>) {
    // Subtrees without errors are skipped whole (most of any file).
    if !n.has_error() {
        return;
    }
    if n.is_error() || n.is_missing() {
        *out += 1;
        let line = n.start_position().row as u32 + 1;
        *first_line = Some(first_line.map_or(line, |l| l.min(line)));
    }
    let mut c = n.walk();
    for ch in n.children(&mut c) {
        count_errors(ch, out, first_line);
    }
}

/// A declared type, normalised: base name without qualifiers, pointer depth,
/// array dimensions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TypeRef {
    pub name: String,
    pub ptr: u8,
    pub dims: Vec<Option<u64>>,
    pub reference: bool,
}

impl TypeRef {
    pub fn is_pointerish(&self) -> bool {
        self.ptr > 0 || self.reference
    }
}

/// A variable: parameter, local, global or class member.
#[derive(Debug, Clone)]
pub struct VarDecl {
    pub name: String,
    pub ty: TypeRef,
    pub file: usize,
    pub line: u32,
    pub is_const: bool,
    pub thread_local: bool,
}

/// A function or method definition.
pub struct FnDef<'t> {
    pub name: String,
    pub class: Option<String>,
    pub file: usize,
    pub node: Node<'t>,
    pub body: Option<Node<'t>>,
    pub params: Vec<VarDecl>,
    pub locals: HashMap<String, VarDecl>,
}

/// A struct/class layout.
#[derive(Debug, Clone, Default)]
pub struct StructDef {
    pub fields: Vec<(String, TypeRef)>,
    pub packed: bool,
    /// Declares bit-fields, whose packing this layout does not model:
    /// member offsets are unknown.
    pub bitfields: bool,
}

/// A C++ class (or struct) with bases and data members.
#[derive(Debug, Clone, Default)]
pub struct ClassDef {
    pub bases: Vec<String>,
    pub members: Vec<VarDecl>,
}

/// Everything collected from the parsed files.
pub struct Program<'t> {
    pub files: &'t [ParsedFile],
    pub fns: Vec<FnDef<'t>>,
    pub fn_index: HashMap<String, Vec<usize>>,
    /// Parameters of file-scope prototypes by function name (the first
    /// seen), for calls to functions whose body is not in the program.
    pub prototypes: HashMap<String, Vec<VarDecl>>,
    pub structs: HashMap<String, StructDef>,
    pub typedefs: HashMap<String, String>,
    pub globals: BTreeMap<String, VarDecl>,
    pub classes: BTreeMap<String, ClassDef>,
    pub consts: HashMap<String, i64>,
    /// `#define NAME <text>` bodies that are not plain numbers.
    pub define_text: HashMap<String, String>,
    /// Function-like macros (`#define NAME(args) ...`): code the analysis
    /// does not expand.
    pub fn_macros: BTreeSet<String>,
    /// Every macro name `#define`d in the analysed files and headers, and
    /// how (see [`super::preprocess::ifdef_keeps_body`]).
    pub defined: DefinedNames,
    /// Struct layouts computed so far (None: not computable), and the
    /// structs being laid out right now: a struct that contains itself by
    /// value (mutated or broken code) has no size, and a type graph with
    /// wide fan-out is laid out once per struct, not once per path.
    layouts: std::cell::RefCell<LayoutCache>,
}

/// Memoised struct sizes and the structs being laid out.
#[derive(Debug, Default)]
struct LayoutCache {
    sizes: HashMap<String, Option<(u64, u64)>>,
    in_progress: Vec<String>,
}

pub fn text<'a>(n: Node, src: &'a str) -> &'a str {
    // `src` is valid UTF-8 already: a slice of it between char boundaries
    // is too, and one that is not between boundaries is the invalid text
    // `utf8_text` would refuse. Slicing skips re-validating every node's
    // text (a million reads on the largest units).
    let range = n.start_byte()..n.end_byte();
    src.get(range.clone()).unwrap_or_else(|| {
        // Out of range still panics, as `utf8_text` did (a tree of another
        // text: an analyzer bug, reported as such).
        let _ = &src.as_bytes()[range];
        ""
    })
}

/// Drop namespace qualifiers outside template arguments (`click::IPFlowID` ->
/// `IPFlowID`, `std::map<a::B, C>` -> `map<a::B, C>`).
pub fn bare(name: &str) -> &str {
    let head = name.split('<').next().unwrap_or(name);
    // A byte scan: `rfind("::")` sets up a substring searcher on every
    // call, and this runs for every type the engine resolves.
    match head.as_bytes().windows(2).rposition(|w| w == b"::") {
        Some(i) => &name[i + 2..],
        None => name,
    }
}

/// Normalise a type text: drop qualifiers and tag keywords.
pub fn norm_type(t: &str) -> String {
    let mut out = vec![];
    for w in t.split_whitespace() {
        match w {
            "struct" | "union" | "enum" | "class" | "const" | "volatile" | "static"
            | "register" | "typename" | "inline" | "extern" | "__thread" | "_Thread_local"
            | "thread_local" | "mutable" | "unsigned" | "signed" => {
                if w == "unsigned" || w == "signed" {
                    out.push(w)
                }
            }
            _ => out.push(w),
        }
    }
    let s = out.join(" ");
    let s = s.trim_end_matches(['*', '&', ' ']).to_string();
    if s.is_empty() {
        "int".into()
    } else {
        s
    }
}

/// The function declarator under a declarator (`T *f(...)` and `T &f(...)`
/// nest it under pointer or reference declarators), if it is one.
fn function_declarator(decl: Node<'_>) -> Option<Node<'_>> {
    let mut fd = decl;
    for _ in 0..8 {
        if fd.kind_name() == "function_declarator" {
            return Some(fd);
        }
        fd = fd.field("declarator").or_else(|| {
            let mut c = fd.walk();
            let x = fd
                .named_children(&mut c)
                .find(|ch| ch.kind_name().ends_with("declarator"));
            x
        })?;
    }
    (fd.kind_name() == "function_declarator").then_some(fd)
}

impl<'t> Program<'t> {
    /// The program of `files`, deciding `#ifdef` by their own
    /// definitions.
    pub fn build(files: &'t [ParsedFile]) -> Program<'t> {
        let defined = super::preprocess::defined_names(files.iter().map(|f| f.text.as_str()));
        Program::build_with(files, defined)
    }

    /// The program of `files`, deciding `#ifdef` by the definitions of
    /// every analysed text (`defined`, headers that were not parsed
    /// included).
    pub fn build_with(files: &'t [ParsedFile], defined: DefinedNames) -> Program<'t> {
        let mut p = Program {
            files,
            fns: vec![],
            fn_index: HashMap::default(),
            prototypes: HashMap::default(),
            structs: HashMap::default(),
            typedefs: HashMap::default(),
            globals: BTreeMap::new(),
            classes: BTreeMap::new(),
            consts: HashMap::default(),
            define_text: HashMap::default(),
            fn_macros: BTreeSet::new(),
            defined,
            layouts: Default::default(),
        };
        for (fi, f) in files.iter().enumerate() {
            // One cursor walks the whole tree (pre-order, as a recursion
            // over the children would): a cursor per node cost an
            // allocation each.
            let mut cursor = f.tree.walk();
            loop {
                if p.collect_defines(fi, cursor.node()) && cursor.goto_first_child() {
                    continue;
                }
                let mut done = false;
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() {
                        done = true;
                        break;
                    }
                }
                if done {
                    break;
                }
            }
        }
        // Resolve defines that refer to other defines (a few rounds).
        for _ in 0..4 {
            let pending: Vec<(String, String)> = p
                .define_text
                .iter()
                .filter(|(k, _)| !p.consts.contains_key(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for (k, v) in pending {
                if let Some(x) = p.eval_const_text(&v) {
                    p.consts.insert(k, x);
                }
            }
        }
        for (fi, f) in files.iter().enumerate() {
            p.walk_top(fi, f.tree.root_node(), None);
        }
        for (i, f) in p.fns.iter().enumerate() {
            p.fn_index.entry(f.name.clone()).or_default().push(i);
        }
        // Layouts computed while the structs were still being collected
        // may lack members declared later.
        p.layouts = Default::default();
        p
    }

    /// The map type of a BPF map defined the BTF way (`struct {
    /// __uint(type, BPF_MAP_TYPE_HASH); ... } m SEC(".maps");`, with or
    /// without libbpf's `__uint` expanded), given the anonymous struct's
    /// type name. The kernel's hash maps and LPM tries chain their entries,
    /// its array maps do not.
    pub fn bpf_map_type(&self, anon_ty: &str) -> Option<String> {
        let (fi, byte) = anon_ty.strip_prefix("anon@")?.split_once(':')?;
        let (fi, byte): (usize, usize) = (fi.parse().ok()?, byte.parse().ok()?);
        let text = self.files.get(fi)?.text.get(byte..)?;
        let open = text.find('{')?;
        let mut depth = 0usize;
        let mut end = text.len();
        for (i, ch) in text[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let body = &text[open..end];
        let at = body.find("BPF_MAP_TYPE_")?;
        let value: String = body[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        Some(value)
    }

    pub fn src(&self, file: usize) -> &'t str {
        &self.files[file].text
    }

    /// The definitions node `n` makes; whether its children may hold more.
    fn collect_defines(&mut self, fi: usize, n: Node<'t>) -> bool {
        let src = &self.files[fi].text;
        let kind = n.kind_name();
        if kind == "preproc_function_def" {
            if let Some(name) = n.field("name") {
                let name = text(name, src);
                // A macro whose expansion names itself
                // (`#define f(a, b, c) f((a), (c))`, a compatibility shim
                // dropping an argument) is not expanded again by C: what
                // remains is a call of the function `f`, which the analysis
                // models as any call, not as a macro it cannot see into.
                let calls_itself = n
                    .field("value")
                    .is_some_and(|v| super::preprocess::find_word(text(v, src), name, 0).is_some());
                if !calls_itself {
                    self.fn_macros.insert(name.to_string());
                }
            }
            return false;
        }
        if kind == "preproc_def" {
            if let (Some(name), Some(val)) = (n.field("name"), n.field("value")) {
                let name = text(name, src).to_string();
                let v = text(val, src).trim().to_string();
                if let Some(x) = parse_int(&v) {
                    self.consts.insert(name, x);
                } else {
                    self.define_text.insert(name, v);
                }
            }
            return false;
        }
        if kind == "enumerator_list" {
            let mut next = 0i64;
            let mut c = n.walk();
            for e in n.named_children(&mut c) {
                if e.kind_name() != "enumerator" {
                    continue;
                }
                let Some(name) = e.field("name") else {
                    continue;
                };
                if let Some(v) = e.field("value") {
                    if let Some(x) = self.eval_const_text(text(v, src)) {
                        next = x;
                    }
                }
                self.consts.insert(text(name, src).to_string(), next);
                next += 1;
            }
        }
        // Tokens and expressions hold no definitions: do not descend. Nor
        // does an initializer list the parser accepted whole: the grammar
        // admits only expressions, designators and nested lists there (no
        // directive), and tables of thousands of entries are most of the
        // nodes of some files; one with an error in it may hold anything.
        !(n.child_count() == 0
            || kind.ends_with("expression")
            || kind == "argument_list"
            || (kind == "initializer_list" && !n.has_error()))
    }

    /// Evaluate a small constant expression text (numbers, known names,
    /// + - * / << >> | & and parentheses).
    pub fn eval_const_text(&self, t: &str) -> Option<i64> {
        let toks = tokenize(t);
        let mut pos = 0;
        let v = self.ce_or(&toks, &mut pos)?;
        if pos == toks.len() {
            Some(v)
        } else {
            None
        }
    }

    fn ce_or(&self, t: &[String], p: &mut usize) -> Option<i64> {
        let mut v = self.ce_shift(t, p)?;
        while *p < t.len() && (t[*p] == "|" || t[*p] == "&") {
            let op = t[*p].clone();
            *p += 1;
            let r = self.ce_shift(t, p)?;
            v = if op == "|" { v | r } else { v & r };
        }
        Some(v)
    }
    fn ce_shift(&self, t: &[String], p: &mut usize) -> Option<i64> {
        let mut v = self.ce_add(t, p)?;
        while *p < t.len() && (t[*p] == "<<" || t[*p] == ">>") {
            let op = t[*p].clone();
            *p += 1;
            let r = self.ce_add(t, p)?;
            v = if op == "<<" {
                v.checked_shl(r as u32)?
            } else {
                v.checked_shr(r as u32)?
            };
        }
        Some(v)
    }
    fn ce_add(&self, t: &[String], p: &mut usize) -> Option<i64> {
        let mut v = self.ce_mul(t, p)?;
        while *p < t.len() && (t[*p] == "+" || t[*p] == "-") {
            let op = t[*p].clone();
            *p += 1;
            let r = self.ce_mul(t, p)?;
            v = if op == "+" {
                v.checked_add(r)?
            } else {
                v.checked_sub(r)?
            };
        }
        Some(v)
    }
    fn ce_mul(&self, t: &[String], p: &mut usize) -> Option<i64> {
        let mut v = self.ce_atom(t, p)?;
        while *p < t.len() && (t[*p] == "*" || t[*p] == "/" || t[*p] == "%") {
            let op = t[*p].clone();
            *p += 1;
            let r = self.ce_atom(t, p)?;
            v = match op.as_str() {
                "*" => v.checked_mul(r)?,
                "/" => v.checked_div(r)?,
                _ => v.checked_rem(r)?,
            };
        }
        Some(v)
    }
    fn ce_atom(&self, t: &[String], p: &mut usize) -> Option<i64> {
        let tok = t.get(*p)?.clone();
        *p += 1;
        if tok == "(" {
            // A cast like (uint32_t)x: skip a type name in parentheses.
            if *p + 1 < t.len()
                && t[*p + 1] == ")"
                && !self.consts.contains_key(&t[*p])
                && parse_int(&t[*p]).is_none()
            {
                *p += 2;
                return self.ce_atom(t, p);
            }
            let v = self.ce_or(t, p)?;
            if t.get(*p).map(String::as_str) != Some(")") {
                return None;
            }
            *p += 1;
            return Some(v);
        }
        if tok == "-" {
            return Some(-self.ce_atom(t, p)?);
        }
        if tok == "~" {
            return Some(!self.ce_atom(t, p)?);
        }
        if tok == "sizeof" {
            // sizeof(type)
            if t.get(*p).map(String::as_str) == Some("(") {
                let mut depth = 0;
                let start = *p + 1;
                while *p < t.len() {
                    if t[*p] == "(" {
                        depth += 1
                    } else if t[*p] == ")" {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    *p += 1;
                }
                let ty = t[start..*p].join(" ");
                *p += 1;
                let tr = TypeRef {
                    name: norm_type(&ty.replace(" *", "*")),
                    ptr: ty.matches('*').count() as u8,
                    ..Default::default()
                };
                return self.sizeof(&tr).map(|(s, _)| s as i64);
            }
            return None;
        }
        if let Some(v) = parse_int(&tok) {
            return Some(v);
        }
        self.consts.get(&tok).copied()
    }

    fn walk_top(&mut self, fi: usize, n: Node<'t>, class: Option<&str>) {
        let mut cursor = n.walk();
        self.walk_top_at(fi, &mut cursor, class);
    }

    /// [`Self::walk_top`] of the named children of the cursor's node, with
    /// the one cursor (it ends where it started).
    fn walk_top_children(
        &mut self,
        fi: usize,
        cursor: &mut tree_sitter::TreeCursor<'t>,
        class: Option<&str>,
    ) {
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            if cursor.node().is_named() {
                self.walk_top_at(fi, cursor, class);
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
        cursor.goto_parent();
    }

    /// [`Self::walk_top`] of the cursor's node (the cursor ends there).
    fn walk_top_at(
        &mut self,
        fi: usize,
        cursor: &mut tree_sitter::TreeCursor<'t>,
        class: Option<&str>,
    ) {
        let n = cursor.node();
        match n.kind_name() {
            "function_definition" => {
                self.add_function(fi, n, class);
                return;
            }
            // What is collected here (definitions, declarations, types)
            // sits in a C initializer only inside an expression that names
            // a type or holds statements (a cast, a compound literal,
            // `sizeof`, `offsetof`, a statement expression), each written
            // with a parenthesis: a list parsed without error and without
            // one holds none (tables of thousands of entries are most of
            // the nodes of some files). C++ lambdas need no parenthesis.
            "initializer_list"
                if !self.files[fi].cpp
                    && !n.has_error()
                    && !text(n, &self.files[fi].text).as_bytes().contains(&b'(') =>
            {
                return;
            }
            "class_specifier" | "struct_specifier" | "union_specifier" => {
                self.add_struct(fi, n, None);
                let src = &self.files[fi].text;
                if let (Some(name), Some(body)) = (n.field("name"), n.field("body")) {
                    let cname = text(name, src).to_string();
                    let mut c = body.walk();
                    self.walk_top_children(fi, &mut c, Some(&cname));
                    // Nested definitions inside template declarations etc.
                }
                return;
            }
            "type_definition" => {
                self.add_typedef(fi, n);
                return;
            }
            "declaration" if class.is_none() => {
                self.add_global_decl(fi, n, None);
                self.add_prototype(fi, n);
            }
            "field_declaration" => {
                if let Some(cl) = class {
                    // A method prototype with an inline body is a function_definition; data members here.
                    let cl = cl.to_string();
                    self.add_global_decl(fi, n, Some(&cl));
                }
                // fall through for nested struct specifiers
            }
            _ => {}
        }
        self.walk_top_children(fi, cursor, class);
    }

    fn add_typedef(&mut self, fi: usize, n: Node<'t>) {
        let src = &self.files[fi].text;
        let Some(ty) = n.field("type") else {
            return;
        };
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let (name, tr) = self.declarator_type(fi, ty, d);
            let Some(name) = name else { continue };
            if matches!(ty.kind_name(), "struct_specifier" | "union_specifier")
                && ty.field("body").is_some()
            {
                let packed = text(n, src).contains("/*packed*/");
                if let Some(mut def) = self.struct_layout(fi, ty) {
                    def.packed |= packed;
                    self.structs.insert(name.clone(), def);
                }
                if let Some(tn) = ty.field("name") {
                    let tname = text(tn, src).to_string();
                    if tname != name {
                        self.typedefs.insert(name.clone(), tname.clone());
                        if let Some(def) = self.struct_layout(fi, ty) {
                            self.structs.insert(tname, def);
                        }
                    }
                }
            } else if tr.ptr == 0 && tr.dims.is_empty() {
                self.typedefs.insert(name, tr.name.clone());
            }
        }
    }

    fn add_struct(&mut self, fi: usize, n: Node<'t>, forced_name: Option<String>) {
        let src = &self.files[fi].text;
        let name = match (forced_name, n.field("name")) {
            (Some(f), _) => f,
            (None, Some(nm)) => text(nm, src).to_string(),
            _ => return,
        };
        if n.field("body").is_none() {
            return;
        }
        if let Some(def) = self.struct_layout(fi, n) {
            let packed = def.packed
                || n.parent()
                    .filter(|p| {
                        matches!(
                            p.kind_name(),
                            "declaration" | "type_definition" | "field_declaration"
                        )
                    })
                    .map(|p| text(p, src).contains("/*packed*/"))
                    .unwrap_or(false)
                || n.next_sibling()
                    .map(|x| text(x, src) == "/*packed*/")
                    .unwrap_or(false);
            self.structs
                .insert(name.clone(), StructDef { packed, ..def });
        }
        if n.kind_name() == "class_specifier" || n.kind_name() == "struct_specifier" {
            let mut bases = vec![];
            let mut c = n.walk();
            for ch in n.children(&mut c) {
                if ch.kind_name() == "base_class_clause" {
                    let t = text(ch, src).trim_start_matches(':').to_string();
                    for b in split_top_commas(&t) {
                        let b = b
                            .replace("public", "")
                            .replace("private", "")
                            .replace("protected", "")
                            .replace("virtual", "");
                        bases.push(b.trim().to_string());
                    }
                }
            }
            let entry = self.classes.entry(name).or_default();
            entry.bases = bases;
        }
    }

    /// The members of a struct body, through conditional compilation:
    /// `#ifdef X` / `#ifndef X` take the branch the analysed code's own
    /// definitions select (see [`Self::ifdef_keeps_body`]: a macro no file
    /// defines is undefined, as in a build without `-D` flags: OVS's
    /// `struct dp_packet` holds `base_`, not the DPDK `mbuf`; an undecided
    /// one takes its first branch); an `#if` expression, which the analysis does
    /// not evaluate, takes its first branch.
    fn conditional_members(&self, fi: usize, n: Node<'t>, out: &mut Vec<Node<'t>>) {
        let mut c = n.walk();
        for m in n.named_children(&mut c) {
            self.member_or_branch(fi, m, out);
        }
    }

    fn member_or_branch(&self, fi: usize, m: Node<'t>, out: &mut Vec<Node<'t>>) {
        match m.kind_name() {
            "preproc_ifdef" => {
                // Undecided: the first branch, as for `#if`.
                if self.ifdef_keeps_body(fi, m).unwrap_or(true) {
                    self.branch_members(fi, m, out);
                } else if let Some(alt) = m.field("alternative") {
                    self.member_or_branch(fi, alt, out);
                }
            }
            "preproc_if" | "preproc_elif" => self.branch_members(fi, m, out),
            "preproc_else" => self.conditional_members(fi, m, out),
            _ => out.push(m),
        }
    }

    /// Whether a build without `-D` flags compiles the body of the
    /// `#ifdef`/`#ifndef` node `m` (see
    /// [`super::preprocess::ifdef_keeps_body`]); its own definitions are
    /// the `#define`s of its name among its direct children (an include
    /// guard's).
    pub fn ifdef_keeps_body(&self, fi: usize, m: Node<'t>) -> Option<bool> {
        let src = &self.files[fi].text;
        let name = text(m.field("name")?, src);
        let ifdef = !text(m, src).trim_start().starts_with("#ifndef");
        let mut c = m.walk();
        let own = m
            .named_children(&mut c)
            .filter(|k| {
                k.kind_name() == "preproc_def"
                    && k.field("name").is_some_and(|d| text(d, src) == name)
            })
            .count();
        super::preprocess::ifdef_keeps_body(
            ifdef,
            name,
            Definitions {
                certain: own,
                conditional: 0,
            },
            &self.defined,
        )
    }

    /// The members of a conditional's own branch (not its condition, name
    /// or alternative).
    fn branch_members(&self, fi: usize, m: Node<'t>, out: &mut Vec<Node<'t>>) {
        let skip: Vec<usize> = ["alternative", "condition", "name"]
            .iter()
            .filter_map(|f| m.field(f).map(|x| x.id()))
            .collect();
        let mut c = m.walk();
        for k in m.named_children(&mut c) {
            if !skip.contains(&k.id()) {
                self.member_or_branch(fi, k, out);
            }
        }
    }

    /// Layout of a struct specifier with a body. Anonymous nested struct
    /// members are registered under a synthetic name.
    fn struct_layout(&mut self, fi: usize, n: Node<'t>) -> Option<StructDef> {
        let src = &self.files[fi].text;
        let body = n.field("body")?;
        let mut fields = vec![];
        let mut bitfields = false;
        let mut members = vec![];
        self.conditional_members(fi, body, &mut members);
        for m in members {
            if m.kind_name() != "field_declaration" {
                continue;
            }
            let mut cc = m.walk();
            bitfields |= m
                .named_children(&mut cc)
                .any(|x| x.kind_name() == "bitfield_clause");
            let Some(ty) = m.field("type") else {
                continue;
            };
            if matches!(ty.kind_name(), "struct_specifier" | "union_specifier")
                && ty.field("body").is_some()
            {
                let anon = ty
                    .field("name")
                    .map(|nm| text(nm, src).to_string())
                    .unwrap_or_else(|| format!("anon@{}:{}", fi, ty.start_byte()));
                if let Some(def) = self.struct_layout(fi, ty) {
                    let def = if ty.kind_name() == "union_specifier" {
                        union_as_struct(self, def)
                    } else {
                        def
                    };
                    self.structs.insert(anon.clone(), def);
                }
                let mut cc = m.walk();
                let decls: Vec<Node> = m.children_by_field_name("declarator", &mut cc).collect();
                if decls.is_empty() {
                    // anonymous member: flatten its fields
                    if let Some(def) = self.structs.get(&anon).cloned() {
                        fields.extend(def.fields);
                    }
                }
                for d in decls {
                    let (name, mut tr) = self.declarator_type(fi, ty, d);
                    tr.name = anon.clone();
                    if let Some(name) = name {
                        fields.push((name, tr));
                    }
                }
                continue;
            }
            let mut cc = m.walk();
            let decls: Vec<Node> = m.children_by_field_name("declarator", &mut cc).collect();
            for d in decls {
                if d.kind_name() == "function_declarator" {
                    continue;
                }
                let (name, tr) = self.declarator_type(fi, ty, d);
                if let Some(name) = name {
                    fields.push((name, tr));
                }
            }
        }
        let packed =
            text(n, src).contains("/*packed*/") && !body_text_has_nested_packed(text(n, src));
        Some(StructDef {
            fields,
            packed,
            bitfields,
        })
    }

    /// Name and type of a declarator (identifier inside pointer/array/init declarators).
    pub fn declarator_type(&self, fi: usize, ty: Node, d: Node) -> (Option<String>, TypeRef) {
        let src = &self.files[fi].text;
        let mut tr = TypeRef {
            name: norm_type(text(ty, src)),
            ..Default::default()
        };
        if let Some(resolved) = ty
            .field("name")
            .filter(|_| ty.kind_name().ends_with("_specifier"))
        {
            tr.name = text(resolved, src).to_string();
        }
        let mut cur = d;
        let mut dims_rev = vec![];
        loop {
            match cur.kind_name() {
                "identifier" | "field_identifier" | "type_identifier" => {
                    dims_rev.reverse();
                    tr.dims = dims_rev;
                    return (Some(text(cur, src).to_string()), tr);
                }
                "pointer_declarator" => {
                    tr.ptr += 1;
                }
                "reference_declarator" => {
                    tr.reference = true;
                    let mut c = cur.walk();
                    let inner = cur.named_children(&mut c).next();
                    match inner {
                        Some(i) => {
                            cur = i;
                            continue;
                        }
                        None => return (None, tr),
                    }
                }
                "array_declarator" => {
                    let size = cur
                        .field("size")
                        .and_then(|s| self.eval_const_text(text(s, src)))
                        .map(|v| v as u64);
                    dims_rev.push(size);
                }
                "init_declarator" | "parenthesized_declarator" | "attributed_declarator" => {}
                "function_declarator" => return (None, tr),
                _ => {
                    // qualified or destructor names etc.
                    return (None, tr);
                }
            }
            let next = cur.field("declarator").or_else(|| {
                let mut c = cur.walk();
                let x = cur.named_children(&mut c).next();
                x
            });
            match next {
                Some(nx) => cur = nx,
                None => return (None, tr),
            }
        }
    }

    fn add_global_decl(&mut self, fi: usize, n: Node<'t>, class: Option<&str>) {
        let src = &self.files[fi].text;
        let Some(ty) = n.field("type") else {
            return;
        };
        let full = text(n, src);
        let head = &full[..full.find(['=', '{', ';']).unwrap_or(full.len())];
        let is_const = head
            .split_whitespace()
            .any(|w| w == "const" || w == "constexpr")
            && !head.contains('*');
        let thread_local = head.contains("__thread")
            || head.contains("_Thread_local")
            || head.contains("thread_local")
            || head.contains("RTE_DEFINE_PER_LCORE");
        if matches!(
            ty.kind_name(),
            "struct_specifier" | "union_specifier" | "class_specifier"
        ) && ty.field("body").is_some()
        {
            let forced = if ty.field("name").is_none() {
                Some(format!("anon@{}:{}", fi, ty.start_byte()))
            } else {
                None
            };
            self.add_struct(fi, ty, forced);
        }
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            if d.kind_name() == "function_declarator" {
                continue;
            }
            let (name, mut tr) = self.declarator_type(fi, ty, d);
            if matches!(ty.kind_name(), "struct_specifier" | "union_specifier")
                && ty.field("name").is_none()
            {
                tr.name = format!("anon@{}:{}", fi, ty.start_byte());
            }
            let Some(name) = name else { continue };
            // Integer constants: `static const int N = 1024;`
            if is_const && tr.ptr == 0 && tr.dims.is_empty() {
                if let Some(v) = d
                    .field("value")
                    .and_then(|v| self.eval_const_text(text(v, src)))
                {
                    self.consts.insert(name.clone(), v);
                }
            }
            let vd = VarDecl {
                name: name.clone(),
                ty: tr,
                file: fi,
                line: n.start_position().row as u32 + 1,
                is_const,
                thread_local,
            };
            match class {
                Some(cl) => self
                    .classes
                    .entry(cl.to_string())
                    .or_default()
                    .members
                    .push(vd),
                None => {
                    self.globals.insert(name, vd);
                }
            }
        }
    }

    fn add_function(&mut self, fi: usize, n: Node<'t>, class: Option<&str>) {
        let src = &self.files[fi].text;
        let Some(decl) = n.field("declarator") else {
            return;
        };
        let Some(fd) = function_declarator(decl) else {
            return;
        };
        let Some(name_node) = fd.field("declarator") else {
            return;
        };
        let (name, cls) = match name_node.kind_name() {
            "qualified_identifier" => {
                let scope = name_node.field("scope").map(|s| text(s, src).to_string());
                let nm = name_node
                    .field("name")
                    .map(|s| text(s, src).to_string())
                    .unwrap_or_default();
                (nm, scope.or(class.map(str::to_string)))
            }
            _ => (text(name_node, src).to_string(), class.map(str::to_string)),
        };
        let name = name.rsplit("::").next().unwrap_or("").to_string();
        let params = self.params_of(fi, fd);
        let body = n.field("body");
        let mut locals = HashMap::default();
        if let Some(b) = body {
            self.collect_locals(fi, b, &mut locals);
        }
        self.fns.push(FnDef {
            name,
            class: cls,
            file: fi,
            node: n,
            body,
            params,
            locals,
        });
    }

    /// The parameters a function declarator declares, in argument order.
    fn params_of(&self, fi: usize, fd: Node<'t>) -> Vec<VarDecl> {
        let src = &self.files[fi].text;
        let mut params = vec![];
        if let Some(pl) = fd.field("parameters") {
            let mut c = pl.walk();
            for pd in pl.named_children(&mut c) {
                if !pd.kind_name().contains("parameter_declaration") {
                    continue;
                }
                let Some(ty) = pd.field("type") else {
                    continue;
                };
                let (pn, tr) = match pd.field("declarator") {
                    Some(d) => self.declarator_type(fi, ty, d),
                    // `f(void)` declares no parameter; `f(int)` declares an
                    // unnamed one that still takes an argument position.
                    None if text(ty, src) == "void" => continue,
                    None => (
                        None,
                        TypeRef {
                            name: norm_type(text(ty, src)),
                            ..Default::default()
                        },
                    ),
                };
                // `const T *p`: the callee only reads through the pointer.
                let pt = text(pd, &self.files[fi].text);
                let pointee_const = pt[..pt.find('*').unwrap_or(pt.len())]
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == "const");
                // An unnamed or unparsable parameter keeps its position, so
                // later arguments still bind to the right parameters.
                {
                    let pn = pn.unwrap_or_else(|| format!("<param {}>", params.len()));
                    params.push(VarDecl {
                        name: pn,
                        ty: tr,
                        file: fi,
                        line: pd.start_position().row as u32 + 1,
                        is_const: pointee_const,
                        thread_local: false,
                    });
                }
            }
        }
        params
    }

    /// A prototype at file scope (`int f(const struct t *a, void *b);`):
    /// its parameters, for calls to a function whose body is not visible.
    fn add_prototype(&mut self, fi: usize, n: Node<'t>) {
        let mut c = n.walk();
        let decls: Vec<Node<'t>> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let Some(fd) = function_declarator(d) else {
                continue;
            };
            let Some(name) = fd
                .field("declarator")
                .filter(|x| x.kind_name() == "identifier")
            else {
                continue;
            };
            let name = text(name, &self.files[fi].text).to_string();
            if !self.prototypes.contains_key(&name) {
                let params = self.params_of(fi, fd);
                self.prototypes.insert(name, params);
            }
        }
    }

    fn collect_locals(&self, fi: usize, n: Node<'t>, out: &mut HashMap<String, VarDecl>) {
        let src = &self.files[fi].text;
        let line = n.start_position().row as u32 + 1;
        let mut local = |name: String, ty: TypeRef| {
            out.insert(
                name.clone(),
                VarDecl {
                    name,
                    ty,
                    file: fi,
                    line,
                    is_const: false,
                    thread_local: false,
                },
            );
        };
        match n.kind_name() {
            "declaration" => {
                if let Some(ty) = n.field("type") {
                    let mut c = n.walk();
                    for d in n.children_by_field_name("declarator", &mut c) {
                        if d.kind_name() == "function_declarator" {
                            if let Some(nm) = d
                                .field("declarator")
                                .filter(|x| x.kind_name() == "identifier")
                            {
                                let tr = TypeRef {
                                    name: norm_type(text(ty, src)),
                                    ..Default::default()
                                };
                                local(text(nm, src).to_string(), tr);
                            }
                            continue;
                        }
                        if let (Some(name), tr) = self.declarator_type(fi, ty, d) {
                            local(name, tr);
                        }
                    }
                }
            }
            "for_range_loop" => {
                if let (Some(ty), Some(d)) = (n.field("type"), n.field("declarator")) {
                    if let (Some(name), tr) = self.declarator_type(fi, ty, d) {
                        local(name, tr);
                    }
                }
            }
            "lambda_expression" => return,
            // Expressions declare nothing, except a GNU statement
            // expression (`({ int t = ...; t; })`), which sits inside
            // parentheses.
            k if k.ends_with("expression") && k != "parenthesized_expression" => return,
            _ if n.child_count() == 0 => return,
            _ => {}
        }
        let _ = src;
        let mut c = n.walk();
        for ch in n.named_children(&mut c) {
            self.collect_locals(fi, ch, out);
        }
    }

    /// Resolve typedef chains.
    /// Whether a function named `name` has a body among the analysed
    /// files (a call to one without is a call to code the analysis cannot
    /// see).
    pub fn has_body(&self, name: &str) -> bool {
        self.fn_index
            .get(name)
            .is_some_and(|fs| fs.iter().any(|fi| self.fns[*fi].body.is_some()))
    }

    pub fn resolve_type<'a>(&'a self, name: &'a str) -> &'a str {
        let mut cur = bare(name);
        for _ in 0..8 {
            match self.typedefs.get(cur) {
                Some(n) if n != cur => cur = n,
                _ => break,
            }
        }
        cur
    }

    /// sizeof and alignment of a type, if computable.
    pub fn sizeof(&self, t: &TypeRef) -> Option<(u64, u64)> {
        self.sizeof_depth(t, 0)
    }

    fn sizeof_depth(&self, t: &TypeRef, depth: u32) -> Option<(u64, u64)> {
        if depth > 16 {
            return None;
        }
        let mut count = 1u64;
        for d in &t.dims {
            count = count.checked_mul((*d)?)?;
        }
        if t.ptr > 0 {
            return Some((8 * count, 8));
        }
        let (s, a) = self.base_size(&t.name, depth)?;
        Some((s * count, a))
    }

    fn base_size(&self, name: &str, depth: u32) -> Option<(u64, u64)> {
        let name = self.resolve_type(name);
        if let Some(def) = self.structs.get(name) {
            if let Some(x) = self.struct_size(name, def, depth) {
                return Some(x);
            }
        }
        let prim = match name {
            "char" | "unsigned char" | "signed char" | "uint8_t" | "int8_t" | "u8" | "i8"
            | "bool" | "_Bool" | "u_char" | "u_int8_t" | "__u8" | "uchar" => Some((1, 1)),
            "short" | "unsigned short" | "uint16_t" | "int16_t" | "u16" | "i16" | "__be16"
            | "__u16" | "rte_be16_t" | "u_short" | "u_int16_t" | "ushort" | "__le16" => {
                Some((2, 2))
            }
            "int" | "unsigned" | "unsigned int" | "uint32_t" | "int32_t" | "u32" | "i32"
            | "float" | "__be32" | "__u32" | "rte_be32_t" | "u_int" | "u_int32_t" | "in_addr_t"
            | "ip4_address_t" | "IPAddress" | "uint" | "__le32" | "in_addr" | "f32" => Some((4, 4)),
            "long" | "unsigned long" | "long long" | "unsigned long long" | "uint64_t"
            | "int64_t" | "u64" | "i64" | "size_t" | "ssize_t" | "double" | "uintptr_t"
            | "__u64" | "rte_be64_t" | "f64" | "uword" | "word" | "Timestamp"
            | "click_jiffies_t" | "time_t" => Some((8, 8)),
            "ip6_address_t" | "in6_addr" | "IP6Address" => Some((16, 4)),
            "EtherAddress" | "rte_ether_addr" | "ether_addr" | "mac_address_t" => Some((6, 1)),
            "IPFlowID" => Some((12, 4)),
            _ => None,
        };
        if prim.is_some() {
            return prim;
        }
        let def = self.structs.get(name)?;
        self.struct_size(name, def, depth)
    }

    /// [`Program::layout`] of a named struct, memoised, with cycles cut.
    fn struct_size(&self, name: &str, def: &StructDef, depth: u32) -> Option<(u64, u64)> {
        {
            let cache = self.layouts.borrow();
            if let Some(x) = cache.sizes.get(name) {
                return *x;
            }
            if cache.in_progress.iter().any(|n| n == name) {
                return None;
            }
        }
        self.layouts.borrow_mut().in_progress.push(name.to_string());
        let x = self.layout(def, depth);
        let mut cache = self.layouts.borrow_mut();
        cache.in_progress.pop();
        cache.sizes.insert(name.to_string(), x);
        x
    }

    /// Size and alignment of a struct layout (C rules, or packed).
    pub fn layout(&self, def: &StructDef, depth: u32) -> Option<(u64, u64)> {
        let mut off = 0u64;
        let mut align = 1u64;
        let mut any = false;
        for (_, ft) in &def.fields {
            let (s, a) = self.sizeof_depth(ft, depth + 1)?;
            let a = if def.packed { 1 } else { a.max(1) };
            off = off.div_ceil(a) * a + s;
            align = align.max(a);
            any = true;
        }
        if !any {
            return None;
        }
        Some((off.div_ceil(align) * align, align))
    }

    /// Byte offset of `field` in struct `struct_name` (C layout rules, or
    /// packed), if every member before it has a known size.
    pub fn member_offset(&self, struct_name: &str, field: &str) -> Option<u64> {
        let def = self
            .structs
            .get(self.resolve_type(struct_name))
            .filter(|d| !d.bitfields)?;
        let mut off = 0u64;
        for (name, ft) in &def.fields {
            let (s, a) = self.sizeof_depth(ft, 1)?;
            let a = if def.packed { 1 } else { a.max(1) };
            off = off.div_ceil(a) * a;
            if name == field {
                return Some(off);
            }
            off += s;
        }
        None
    }

    /// Type of a field of a struct type, if known.
    pub fn field_type(&self, struct_name: &str, field: &str) -> Option<&TypeRef> {
        let def = self.structs.get(self.resolve_type(struct_name))?;
        def.fields.iter().find(|(n, _)| n == field).map(|(_, t)| t)
    }

    /// Is `class` (transitively) derived from a base whose text contains `needle`?
    pub fn class_bases(&self, class: &str) -> Vec<String> {
        let mut out = vec![];
        let mut todo = vec![class.to_string()];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(c) = todo.pop() {
            if !seen.insert(c.clone()) {
                continue;
            }
            if let Some(def) = self.classes.get(&c) {
                for b in &def.bases {
                    out.push(b.clone());
                    let bare = b.split('<').next().unwrap_or("").trim().to_string();
                    todo.push(bare);
                }
            }
        }
        out
    }
}

fn union_as_struct(p: &Program, def: StructDef) -> StructDef {
    // A union is as big as its largest member: keep only that member.
    let mut best: Option<((String, TypeRef), u64)> = None;
    for f in def.fields {
        let s = p.sizeof(&f.1).map(|x| x.0).unwrap_or(0);
        if best.as_ref().map(|b| s > b.1).unwrap_or(true) {
            best = Some((f, s));
        }
    }
    StructDef {
        fields: best.map(|b| vec![b.0]).unwrap_or_default(),
        packed: def.packed,
        bitfields: def.bitfields,
    }
}

fn body_text_has_nested_packed(_t: &str) -> bool {
    false
}

fn split_top_commas(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '<' | '(' => {
                depth += 1;
                cur.push(c)
            }
            '>' | ')' => {
                depth -= 1;
                cur.push(c)
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

/// Parse a C integer literal (decimal, hex, octal, with u/l suffixes).
pub fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let s = s
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or(s)
        .trim();
    let t = s.trim_end_matches(['u', 'U', 'l', 'L']);
    if t.is_empty() {
        return None;
    }
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(h, 16).ok().map(|v| v as i64);
    }
    if t.len() > 1 && t.starts_with('0') && t.chars().all(|c| c.is_ascii_digit()) {
        return i64::from_str_radix(&t[1..], 8).ok();
    }
    t.parse::<i64>().ok()
}

fn tokenize(t: &str) -> Vec<String> {
    let mut out = vec![];
    let b: Vec<char> = t.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[s..i].iter().collect());
        } else if (c == '<' || c == '>') && i + 1 < b.len() && b[i + 1] == c {
            out.push(format!("{c}{c}"));
            i += 2;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_type_name_drops_the_namespaces_before_its_template_arguments() {
        assert_eq!(bare("flow_state"), "flow_state");
        assert_eq!(bare("ns::inner::Table"), "Table");
        assert_eq!(bare("ns::Map<std::string, int>"), "Map<std::string, int>");
        assert_eq!(bare("Map<std::string>"), "Map<std::string>");
        assert_eq!(bare("a:b"), "a:b");
        assert_eq!(bare("::Global"), "Global");
    }

    fn sizes(src: &str, ty: &str) -> Option<u64> {
        let f = vec![parse("t.c".into(), src.into(), false).unwrap()];
        let p = Program::build(&f);
        p.sizeof(&TypeRef {
            name: ty.into(),
            ..Default::default()
        })
        .map(|x| x.0)
    }

    #[test]
    fn definitions_in_initializers_are_found_and_plain_tables_skipped_whole() {
        // The walks skip initializer lists that cannot hold a definition;
        // one in a compound literal of a table entry (written with a
        // parenthesis) is still found, and so is what follows a table.
        let src = "struct e { int a; };\nstatic struct e t[] = { {1}, {2}, [2] = {3} };\n\
                   static void *p[] = { &(struct inner { int q; int r; }){1, 2} };\n\
                   #define AFTER 7\nenum { X = AFTER };\nstruct later { int z; };\n";
        let f = vec![parse("t.c".into(), src.into(), false).unwrap()];
        let p = Program::build(&f);
        assert!(p.structs.contains_key("inner"));
        assert!(p.structs.contains_key("later"));
        assert_eq!(p.consts.get("X"), Some(&7));
        assert!(p.globals.contains_key("t") && p.globals.contains_key("p"));
    }

    #[test]
    fn struct_sizes_follow_c_layout() {
        let src = "#define N 4\nstruct a { uint8_t x; uint32_t y; uint16_t z[N]; };\nstruct b { uint8_t x; uint32_t y; } /*packed*/;\ntypedef struct { uint64_t q; struct a in; } c_t;\n";
        assert_eq!(sizes(src, "a"), Some(16));
        assert_eq!(sizes(src, "b"), Some(5));
        assert_eq!(sizes(src, "c_t"), Some(24));
    }

    #[test]
    fn constants_fold() {
        let f = vec![parse(
            "t.c".into(),
            "#define A (1u << 12)\n#define B (A * 2)\nenum { X = 3, Y };\n".into(),
            false,
        )
        .unwrap()];
        let p = Program::build(&f);
        assert_eq!(p.consts.get("B"), Some(&8192));
        assert_eq!(p.consts.get("Y"), Some(&4));
    }
}
