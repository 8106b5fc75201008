//! Source preprocessing before tree-sitter parsing: third-party NF code arrives
//! with unexpanded framework macros (CLICK_DECLS, VLIB_NODE_FN, CLIB_PACKED,
//! `__attribute__`, struct-generating macros such as `NF_FTABLE`) that would turn
//! into ERROR nodes. This pass rewrites them into plain C/C++ while keeping
//! every newline where it was, so line numbers in evidence stay exact.

use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// A function-like macro defined in the NF's own sources (including
/// struct-generating ones such as `NF_FTABLE`), expanded textually at its use
/// sites so field-access macros and generated types become visible.
#[derive(Debug, Clone)]
pub struct TypeMacro {
    pub params: Vec<String>,
    pub body: String,
    /// `#define MAP_NAME_PORTS filter_ports`: an object-like macro naming
    /// another identifier, expanded wherever the word appears (a map
    /// declared under the macro's name is used under the identifier's).
    pub alias: bool,
}

impl TypeMacro {
    /// An alias of itself: the name stays as written (a call, or a word),
    /// for a macro whose expansion the text does not decide.
    fn staying(name: &str) -> TypeMacro {
        TypeMacro {
            params: vec![],
            body: name.to_string(),
            alias: true,
        }
    }
}

/// How the analysed texts define a macro name, for deciding
/// `#ifdef NAME` / `#ifndef NAME` (see [`collect_type_macros`]).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Definitions {
    /// `#define`s outside any conditional group (include guards aside).
    pub certain: usize,
    /// `#define`s inside some other conditional group: a build may or may
    /// not see them.
    pub conditional: usize,
}

/// Every macro name the texts `#define`, with how they define it.
pub type DefinedNames = FxHashMap<String, Definitions>;

pub fn defined_names<'a>(texts: impl IntoIterator<Item = &'a str>) -> DefinedNames {
    let mut out = DefinedNames::default();
    for text in texts {
        let lines: Vec<_> = directive_lines(text).collect();
        for site in define_sites(&lines) {
            let d = out.entry(site.name.to_string()).or_default();
            if site.certain {
                d.certain += 1;
            } else {
                d.conditional += 1;
            }
        }
    }
    out
}

/// The directive's word and what follows it.
fn directive_word(l: &str) -> (&str, &str) {
    let d = l.trim_start().trim_start_matches('#').trim_start();
    let end = d
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(d.len());
    (&d[..end], d[end..].trim())
}

/// The name a `#define` line defines.
fn defined_name(line: &str) -> Option<&str> {
    let (word, rest) = directive_word(line);
    if word != "define" {
        return None;
    }
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// A `#define` among a text's directive lines.
struct DefineSite<'l> {
    name: &'l str,
    /// Lines (indices) of the groups it is inside, outermost first.
    groups: Vec<usize>,
    /// Inside no group but include guards (`#ifndef G` groups that
    /// `#define G`) and its own default group (`#ifndef N` / `#define N`).
    certain: bool,
}

fn define_sites<'l>(lines: &'l [std::borrow::Cow<'_, str>]) -> Vec<DefineSite<'l>> {
    // The name each open group tests with `#ifndef` (None otherwise).
    let mut stack: Vec<(usize, Option<&str>)> = vec![];
    let mut sites = vec![];
    let mut guards: FxHashSet<usize> = FxHashSet::default();
    for (i, l) in lines.iter().enumerate() {
        match directive_word(l) {
            (w @ ("if" | "ifdef" | "ifndef"), rest) => stack.push((
                i,
                (w == "ifndef")
                    .then(|| rest.split_whitespace().next())
                    .flatten(),
            )),
            ("endif", _) => {
                stack.pop();
            }
            ("define", _) => {
                if let Some(name) = defined_name(l) {
                    for (open, tested) in &stack {
                        if *tested == Some(name) {
                            guards.insert(*open);
                        }
                    }
                    sites.push(DefineSite {
                        name,
                        groups: stack.iter().map(|(o, _)| *o).collect(),
                        certain: false,
                    });
                }
            }
            _ => {}
        }
    }
    for s in &mut sites {
        s.certain = s.groups.iter().all(|g| guards.contains(g));
    }
    sites
}

/// The directive lines of `text` that a build without `-D` flags keeps:
/// those outside the branch an `#ifdef NAME` / `#ifndef NAME` rejects
/// (see [`ifdef_keeps_body`]). p0f's `#ifndef DEBUG_BUILD` keeps `#define
/// ck_alloc DFL_ck_alloc`, not the allocation-tracking variant under its
/// `#else`; undecided groups keep both branches, as before.
fn active_directive_lines<'a>(
    text: &'a str,
    defined: &DefinedNames,
) -> Vec<std::borrow::Cow<'a, str>> {
    let lines: Vec<std::borrow::Cow<'a, str>> = directive_lines(text).collect();
    let mut decisions = group_decisions(&lines, defined).into_iter();
    let mut open = GroupStack::default();
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        open.directive(&l, &mut decisions);
        if !open.rejected() {
            out.push(l);
        }
    }
    out
}

/// Whether each conditional group of a text keeps its body (`Some(true)`),
/// its `#else` (`Some(false)`), or is undecided (`None`), in the order the
/// groups open. See [`active_directive_lines`].
fn group_decisions(
    lines: &[std::borrow::Cow<'_, str>],
    defined: &DefinedNames,
) -> Vec<Option<bool>> {
    // Each group's own definitions of the name it tests.
    let mut own: FxHashMap<usize, Definitions> = FxHashMap::default();
    for site in define_sites(lines) {
        for &g in &site.groups {
            let tested = directive_word(&lines[g]).1.split_whitespace().next();
            if tested == Some(site.name) {
                let d = own.entry(g).or_default();
                if site.certain {
                    d.certain += 1;
                } else {
                    d.conditional += 1;
                }
            }
        }
    }
    let mut out = vec![];
    for (i, l) in lines.iter().enumerate() {
        let (w @ ("if" | "ifdef" | "ifndef"), rest) = directive_word(l) else {
            continue;
        };
        out.push(match (w, rest.split_whitespace().next()) {
            ("ifdef" | "ifndef", Some(name)) => ifdef_keeps_body(
                w == "ifdef",
                name,
                own.get(&i).copied().unwrap_or_default(),
                defined,
            ),
            _ => None,
        });
    }
    out
}

/// Whether a build without `-D` flags compiles the body of `#ifdef name`
/// (`ifdef`) or `#ifndef name`, given every analysed text's definitions
/// (`defined`) and the group's own (`own`): `Some(true)` the body,
/// `Some(false)` the `#else`, `None` undecided. NAME is defined when some
/// text defines it outside any condition besides the group itself (an
/// include guard, or `#ifndef N` / `#define N 64` giving a default, keeps
/// its body), undefined when no text defines it at all; a name only
/// defined under other conditions, or one a compiler or build may
/// predefine (`__linux__`, `_WIN32`: any `_`-prefixed name), is not
/// decided. The one rule for macros (`active_directive_lines`), struct
/// members (`Program::member_or_branch`) and code (`in_inactive_ifdef`).
pub fn ifdef_keeps_body(
    ifdef: bool,
    name: &str,
    own: Definitions,
    defined: &DefinedNames,
) -> Option<bool> {
    if name.starts_with('_') || !name.bytes().all(is_ident_char) {
        return None;
    }
    let all = defined.get(name).copied().unwrap_or_default();
    let is_defined = if all.certain > own.certain {
        true
    } else if all.conditional > own.conditional {
        return None;
    } else {
        false
    };
    Some(is_defined == ifdef)
}

/// The conditional groups open at a point of a text, with their decisions
/// (see [`group_decisions`]).
#[derive(Default)]
struct GroupStack {
    /// Per open group: whether its body is kept (`None`: undecided), and
    /// whether the text is in its `#else`.
    open: Vec<(Option<bool>, bool)>,
}

impl GroupStack {
    /// Follow one directive line; `decisions` yields the next group's.
    fn directive(&mut self, line: &str, decisions: &mut impl Iterator<Item = Option<bool>>) {
        match directive_word(line).0 {
            "if" | "ifdef" | "ifndef" => self.open.push((decisions.next().flatten(), false)),
            // `#elif` makes the group a chain of expressions: undecided.
            "elif" => {
                if let Some(g) = self.open.last_mut() {
                    g.0 = None;
                }
            }
            "else" => {
                if let Some(g) = self.open.last_mut() {
                    g.1 = true;
                }
            }
            "endif" => {
                self.open.pop();
            }
            _ => {}
        }
    }

    /// Is the text here in a branch a build without `-D` flags drops?
    fn rejected(&self) -> bool {
        self.open
            .iter()
            .any(|(kept, in_else)| kept.is_some_and(|kept| kept == *in_else))
    }
}

/// Collect `#define NAME(a, b) body` macros from a source text; `defined`
/// (see [`defined_names`]) decides `#ifdef`/`#ifndef` groups.
pub fn collect_type_macros(
    text: &str,
    defined: &DefinedNames,
    out: &mut BTreeMap<String, TypeMacro>,
) {
    for line in active_directive_lines(text, defined) {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix("define") else {
            continue;
        };
        let rest = rest.trim_start();
        let name_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        let after = &rest[name_end..];
        if !after.starts_with('(') {
            let body = after
                .split("//")
                .next()
                .unwrap_or("")
                .split("/*")
                .next()
                .unwrap_or("")
                .trim();
            let first = body.bytes().next();
            // Reserved spellings (`__inline`, `_Bool`, `__typeof__`) are
            // often compiler keywords the grammar does not know.
            let reserved = body.starts_with("__")
                || (first == Some(b'_')
                    && body.as_bytes().get(1).is_some_and(u8::is_ascii_uppercase));
            // An empty definition (`#define OVS_BITWISE` on compilers
            // without the checker's attribute) expands to nothing.
            let identifier = body.is_empty()
                || (first.is_some_and(|c| !c.is_ascii_digit())
                    && body.bytes().all(is_ident_char)
                    && !reserved);
            if identifier && body != name && !name.is_empty() {
                match out.get(name) {
                    // Defined differently under different conditions: the
                    // text alone does not say which one holds, so the name
                    // stays (an alias of itself).
                    Some(m) if m.alias && m.body != body => {
                        out.insert(name.to_string(), TypeMacro::staying(name));
                    }
                    Some(_) => {}
                    None => {
                        out.insert(
                            name.to_string(),
                            TypeMacro {
                                params: vec![],
                                body: body.to_string(),
                                alias: true,
                            },
                        );
                    }
                }
            }
            continue;
        }
        let Some(close) = after.find(')') else {
            continue;
        };
        let params: Vec<String> = after[1..close]
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let body = after[close + 1..].trim();
        // Framework accessors the analysis models (`rte_pktmbuf_mtod`: the
        // frame start) stay calls: their expansion (`buf_addr + data_off`)
        // says less than the model.
        if super::headers::accessor_hdr(name).is_some() {
            continue;
        }
        // GNU statement expressions, `typeof` and inline assembly do not
        // parse (the whole enclosing function would become an ERROR node):
        // such a macro stays a call, which the analysis models as an
        // unknown callee of its arguments.
        let unparsable = ["_Pragma", "asm", "__asm__"]
            .iter()
            .any(|w| find_word(body, w, 0).is_some());
        // A macro naming itself (`#define stat(a, b) stat(a, b)`) would be
        // expanded again in every round: the C preprocessor never does that,
        // so it stays what it expands to anyway, a call.
        let self_referential = find_word(body, name, 0).is_some();
        // A variadic macro defined differently under different conditions
        // (per-thread data with and without `thread_local`): the text alone
        // does not say which one holds, so the name stays a call, as it
        // did before either definition was seen.
        let variadic = params.last().is_some_and(|p| variadic_name(p).is_some());
        if variadic {
            match out.get(name) {
                Some(m) if m.alias || m.body != body || m.params != params => {
                    out.insert(name.to_string(), TypeMacro::staying(name));
                    continue;
                }
                Some(_) => continue,
                None => {}
            }
        }
        if !body.is_empty()
            && !unparsable
            && !self_referential
            // Variadic macros that hand their variable arguments to a call
            // (logging, mostly: `vlog(mod, lvl, __VA_ARGS__)`) stay calls:
            // expanding them exposes logging internals (per-thread
            // buffers, module globals) as hidden state handed to library
            // code. One that uses them as code of its own (an iterator
            // declaration's extra expressions) expands.
            && !forwards_varargs_to_call(body, &params)
        {
            out.insert(
                name.to_string(),
                TypeMacro {
                    params,
                    body: body.to_string(),
                    alias: false,
                },
            );
        } else if variadic {
            // Stays a call; recorded so that a different definition under
            // another condition is seen as one.
            out.insert(name.to_string(), TypeMacro::staying(name));
        }
    }
}

/// The logical lines of `text` (each backslash-newline, `\r\n` line ends
/// included, joined into one space, as
/// `text.replace("\\\r\n", " ").replace("\\\n", " ").lines()` gives them)
/// that can be directives: those whose first non-blank character, once
/// joined, is `#`. A logical line whose first non-blank character is
/// neither `#` nor a backslash (which may start a splice) cannot become one
/// by joining, so it is skipped without being copied: most of a file is
/// code, and joining the whole text copied it twice.
fn directive_lines(text: &str) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
    let b = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < b.len() {
            let start = at;
            // The end of the logical line: the first newline that follows
            // neither a backslash nor a backslash and a carriage return.
            let mut end = start;
            let found = loop {
                match text[end..].find('\n') {
                    None => break None,
                    Some(k) => {
                        let nl = end + k;
                        let spliced = (nl >= 1 && b[nl - 1] == b'\\')
                            || (nl >= 2 && b[nl - 1] == b'\r' && b[nl - 2] == b'\\');
                        if !spliced {
                            break Some(nl);
                        }
                        end = nl + 1;
                    }
                }
            };
            let stop = found.unwrap_or(b.len());
            at = found.map_or(b.len(), |nl| nl + 1);
            let raw = &text[start..stop];
            if !matches!(raw.trim_start().as_bytes().first(), Some(b'#' | b'\\')) {
                continue;
            }
            let mut line = if raw.contains('\\') {
                std::borrow::Cow::Owned(raw.replace("\\\r\n", " ").replace("\\\n", " "))
            } else {
                std::borrow::Cow::Borrowed(raw)
            };
            // `lines` drops the carriage return of a `\r\n` line end.
            if found.is_some() && line.ends_with('\r') {
                match &mut line {
                    std::borrow::Cow::Owned(s) => {
                        s.pop();
                    }
                    std::borrow::Cow::Borrowed(s) => *s = &s[..s.len() - 1],
                }
            }
            return Some(line);
        }
        None
    })
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Find the index of the `)` matching the `(` at `open`.
fn matching_paren(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Split macro arguments at top-level commas. As in the C preprocessor,
/// only parentheses nest: `a->b` or `x < y` must not (a `>` counted as a
/// closing bracket split `WRITE_ONCE(p->x, v)` in the wrong place).
fn split_args(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c)
            }
            ')' => {
                depth -= 1;
                cur.push(c)
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// One left-to-right pass expanding every use of a collected macro outside
/// preprocessor directive lines. An expansion is put on one line; the
/// newlines of the replaced text follow it so later lines keep their numbers.
fn expand_round(text: &str, macros: &rustc_hash::FxHashMap<&str, &TypeMacro>) -> (String, bool) {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut changed = false;
    let mut i = 0;
    let mut at_line_start = true;
    let mut directive = false;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            out.push('\n');
            i += 1;
            at_line_start = true;
            directive = false;
            continue;
        }
        if at_line_start && !(c == b' ' || c == b'\t') {
            directive = c == b'#';
            at_line_start = false;
        }
        let word_start = |i: usize| {
            (b[i].is_ascii_alphabetic() || b[i] == b'_') && (i == 0 || !is_ident_char(b[i - 1]))
        };
        if !word_start(i) {
            // The run up to the next newline or word is copied whole (it
            // ends on an ASCII byte, so on a character boundary). At the
            // start of a line each byte is looked at alone: the first
            // non-blank one decides whether the line is a directive.
            let mut j = i + text[i..].chars().next().map_or(1, char::len_utf8);
            if !at_line_start {
                while j < b.len() && b[j] != b'\n' && !word_start(j) {
                    j += 1;
                }
            }
            out.push_str(&text[i..j]);
            i = j;
            continue;
        }
        let mut j = i;
        while j < b.len() && is_ident_char(b[j]) {
            j += 1;
        }
        let word = &text[i..j];
        let mac = if directive {
            None
        } else {
            macros.get(word).copied()
        };
        match mac {
            Some(m) if m.alias => {
                out.push_str(&m.body);
                changed |= m.body != word;
                i = j;
            }
            Some(m) => {
                // `get16bits (d)`: blanks may separate a function-like
                // macro's name from its arguments.
                let mut k = j;
                while k < b.len() && (b[k] == b' ' || b[k] == b'\t') {
                    k += 1;
                }
                match (b.get(k) == Some(&b'('))
                    .then(|| matching_paren(b, k))
                    .flatten()
                {
                    Some(close) => {
                        let (params, args) =
                            bind_variadic(&m.params, split_args(&text[k + 1..close]));
                        let params = &params;
                        let mut body = stringize(&m.body, params, &args);
                        for (p, a) in params.iter().zip(args.iter()) {
                            let mut sub = String::new();
                            let mut from = 0;
                            while let Some(pos) = find_word(&body, p, from) {
                                sub.push_str(&body[from..pos]);
                                sub.push_str(a);
                                from = pos + p.len();
                            }
                            sub.push_str(&body[from..]);
                            body = sub;
                        }
                        out.push_str(&paste_tokens(&body).replace('\n', " "));
                        for _ in 0..text[i..=close].matches('\n').count() {
                            out.push('\n');
                        }
                        changed = true;
                        i = close + 1;
                    }
                    None => {
                        out.push_str(word);
                        i = j;
                    }
                }
            }
            None => {
                out.push_str(word);
                i = j;
            }
        }
    }
    (out, changed)
}

/// The name a variadic parameter goes by in the body: `__VA_ARGS__` for
/// `...`, `args` for GNU's `args...`.
fn variadic_name(param: &str) -> Option<&str> {
    let name = param.strip_suffix("...")?.trim();
    Some(if name.is_empty() { "__VA_ARGS__" } else { name })
}

/// Parameters and arguments of one expansion, a variadic parameter bound
/// to the remaining arguments joined by commas (the C preprocessor's
/// `__VA_ARGS__`; empty when there are none).
fn bind_variadic(params: &[String], mut args: Vec<String>) -> (Vec<String>, Vec<String>) {
    let Some(va) = params.last().and_then(|p| variadic_name(p)) else {
        return (params.to_vec(), args);
    };
    let fixed = params.len() - 1;
    let rest = if args.len() > fixed {
        args.split_off(fixed).join(", ")
    } else {
        String::new()
    };
    let mut names: Vec<String> = params[..fixed].to_vec();
    names.push(va.to_string());
    args.resize(fixed, String::new());
    args.push(rest);
    (names, args)
}

/// A variadic macro whose variable arguments appear among a call's
/// arguments (`log_at(LVL, __VA_ARGS__)`, `printf(fmt, ## args)`).
fn forwards_varargs_to_call(body: &str, params: &[String]) -> bool {
    let Some(va) = params.last().and_then(|p| variadic_name(p)) else {
        return false;
    };
    let b = body.as_bytes();
    let mut from = 0;
    while let Some(pos) = find_word(body, va, from) {
        from = pos + va.len();
        // The innermost parenthesis open at the use.
        let mut depth = 0usize;
        let mut open = None;
        for i in (0..pos).rev() {
            match b[i] {
                b')' => depth += 1,
                b'(' if depth == 0 => {
                    open = Some(i);
                    break;
                }
                b'(' => depth -= 1,
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let before = body[..open].trim_end();
        let callee_start = before
            .bytes()
            .rposition(|c| !is_ident_char(c))
            .map_or(0, |i| i + 1);
        let callee = &before[callee_start..];
        let is_call = !callee.is_empty()
            && !callee.as_bytes()[0].is_ascii_digit()
            && !matches!(
                callee,
                "sizeof" | "return" | "if" | "while" | "for" | "switch" | "typeof" | "__typeof__"
            );
        if is_call {
            return true;
        }
    }
    false
}

/// The C preprocessor's `#param`: the argument as a string literal.
fn stringize(body: &str, params: &[String], args: &[String]) -> String {
    let b = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    while i < b.len() {
        let single_hash =
            b[i] == b'#' && b.get(i + 1) != Some(&b'#') && (i == 0 || b[i - 1] != b'#');
        if single_hash {
            let mut k = i + 1;
            while k < b.len() && (b[k] == b' ' || b[k] == b'\t') {
                k += 1;
            }
            let mut e = k;
            while e < b.len() && is_ident_char(b[e]) {
                e += 1;
            }
            if let Some(pi) = params.iter().position(|p| p.as_str() == &body[k..e]) {
                let arg = args.get(pi).map(String::as_str).unwrap_or("");
                out.push('"');
                out.push_str(&arg.replace('\\', "\\\\").replace('"', "\\\""));
                out.push('"');
                i = e;
                continue;
            }
        }
        let ch_end = i + body[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&body[i..ch_end]);
        i = ch_end;
    }
    out
}

/// The C preprocessor's `a ## b`: the two tokens joined.
fn paste_tokens(body: &str) -> String {
    if !body.contains("##") {
        return body.to_string();
    }
    let mut out = String::with_capacity(body.len());
    for (i, part) in body.split("##").enumerate() {
        if i == 0 {
            out.push_str(part.trim_end());
        } else {
            out.truncate(out.trim_end().len());
            out.push_str(part.trim_start());
        }
    }
    out
}

/// Replace `text[start..end]` by `with`, keeping the newlines of the removed
/// region (appended after the replacement) so later lines do not move.
fn splice(text: &mut String, start: usize, end: usize, with: &str) {
    let newlines = text[start..end].matches('\n').count();
    let mut rep = with.replace('\n', " ");
    for _ in 0..newlines {
        rep.push('\n');
    }
    text.replace_range(start..end, &rep);
}

/// Find `word` as a whole identifier at or after `from`.
/// Rewrite every call-like use `word (args)` of `word` outside preprocessor
/// directive lines: `rewrite(text, start, open, close)` gets the word's start
/// and its parentheses and returns where the replaced span ends and what
/// replaces it (newlines inside are kept, see [`splice`]).
fn rewrite_calls(
    text: &mut String,
    word: &str,
    mut rewrite: impl FnMut(&str, usize, usize, usize) -> (usize, String),
) {
    let mut from = 0;
    while let Some(s) = find_word(text, word, from) {
        from = s + word.len();
        if on_directive_line(text, s) {
            continue;
        }
        let b = text.as_bytes();
        let mut open = s + word.len();
        while open < b.len() && (b[open] == b' ' || b[open] == b'\t') {
            open += 1;
        }
        if open < b.len() && b[open] == b'(' {
            if let Some(close) = matching_paren(b, open) {
                let (end, with) = rewrite(text, s, open, close);
                splice(text, s, end, &with);
                from = s;
            }
        }
    }
}

pub(super) fn find_word(text: &str, word: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut pos = from;
    while let Some(i) = text[pos..].find(word) {
        let s = pos + i;
        let e = s + word.len();
        let before_ok = s == 0 || !is_ident_char(b[s - 1]);
        let after_ok = e >= b.len() || !is_ident_char(b[e]);
        if before_ok && after_ok {
            return Some(s);
        }
        pos = e;
    }
    None
}

/// Is position `i` on a preprocessor directive line?
fn on_directive_line(text: &str, i: usize) -> bool {
    let line_start = text[..i].rfind('\n').map(|p| p + 1).unwrap_or(0);
    text[line_start..i].trim_start().starts_with('#')
}

/// Rewrite framework macros; newlines are preserved.
/// An upper-case macro between a declarator and the `,` or `)` that ends a
/// parameter (`struct dp_packet *pkt OVS_UNUSED,`) is an attribute: C has no
/// other construct with an identifier right after a declarator there, and
/// tree-sitter cannot parse it. Blanked with spaces (columns stay).
fn blank_trailing_attribute_macros(text: &mut String) {
    let b = text.as_bytes();
    let mut blanks: Vec<(usize, usize)> = vec![];
    let mut i = 0;
    while i < b.len() {
        let starts_word =
            (b[i].is_ascii_uppercase() || b[i] == b'_') && (i == 0 || !is_ident_char(b[i - 1]));
        if !starts_word {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && is_ident_char(b[j]) {
            j += 1;
        }
        let word = &b[i..j];
        let macro_like = word.len() >= 3
            && word
                .iter()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
            && word.iter().any(|c| c.is_ascii_uppercase());
        let mut before = i;
        while before > 0 && b[before - 1] == b' ' {
            before -= 1;
        }
        let mut after = j;
        while after < b.len() && b[after] == b' ' {
            after += 1;
        }
        let after_declarator = before < i
            && before > 0
            && is_ident_char(b[before - 1])
            && !b[..before].ends_with(b"return");
        // `enum OVS_PACKED_ENUM name {`: an attribute between the keyword
        // and the tag.
        let after_tag_keyword = before < i
            && [&b"struct"[..], b"enum", b"union"].iter().any(|k| {
                b[..before].ends_with(k)
                    && (before == k.len() || !is_ident_char(b[before - k.len() - 1]))
            });
        let tag_follows = after > j && b.get(after).is_some_and(|c| is_ident_char(*c));
        if macro_like
            && !on_directive_line(text, i)
            && ((after_declarator && matches!(b.get(after), Some(b',') | Some(b')')))
                || (after_tag_keyword && tag_follows))
        {
            blanks.push((i, j));
        }
        i = j;
    }
    for (s, e) in blanks {
        splice(text, s, e, &" ".repeat(e - s));
    }
}

/// The identifiers of a text (one scan; the rewrites below skip the words
/// a file does not contain instead of searching for each).
fn identifiers(text: &str) -> rustc_hash::FxHashSet<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Conditional groups that cannot stand side by side, and `#if 0`, keep
/// one alternative.
///
/// Outside parentheses, an `#if`/`#ifdef` whose condition the analysed
/// files do not decide keeps every alternative: tree-sitter parses each
/// branch as statements or declarations of its own, and the analysis sees
/// all of them. Inside a parameter list or an expression
/// (`f(\n#if OLD\n struct sk_buff **pskb,\n#else\n struct sk_buff *skb,\n#endif\n ...)`,
/// kernel compatibility code) two alternatives side by side never parse:
/// the whole function becomes an ERROR node and its packet path is lost.
/// There the group keeps its last alternative, the `#else` body, or none
/// when it has no `#else`: the fall-through configuration (for a version
/// check, the newest interface). Every line stays a line (dropped lines
/// are blanked), so evidence keeps its line numbers. `#if 0` groups (with
/// at most an `#else`), wherever they are, keep only their `#else` body:
/// the text alone decides them. `None`: nothing to change (the text is
/// used as it is).
fn keep_parseable_alternatives(text: &str) -> Option<String> {
    if !text.contains('#') {
        return None;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    struct Group {
        open: usize,
        /// Lines of its `#elif`/`#else` directives.
        alternatives: Vec<usize>,
        /// Parenthesis depth where it opens (each alternative starts there).
        depth: usize,
        /// Depth at the end of each alternative finished so far.
        ends: Vec<usize>,
    }
    let mut open: Vec<Group> = vec![];
    let mut drop = vec![false; lines.len()];
    let mut any = false;
    let mut depth = 0usize;
    let mut in_comment = false;
    let mut continued_directive = false;
    for (i, line) in lines.iter().enumerate() {
        let starts_directive =
            !continued_directive && !in_comment && line.trim_start().starts_with('#');
        if continued_directive || starts_directive {
            continued_directive = line.trim_end().ends_with('\\');
            if !starts_directive {
                continue;
            }
            let d = line.trim_start().trim_start_matches('#').trim_start();
            let word = &d[..d
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(d.len())];
            match word {
                "if" | "ifdef" | "ifndef" => open.push(Group {
                    open: i,
                    alternatives: vec![],
                    depth,
                    ends: vec![],
                }),
                "elif" | "else" => {
                    if let Some(g) = open.last_mut() {
                        g.alternatives.push(i);
                        g.ends.push(depth);
                        depth = g.depth;
                    }
                }
                "endif" => {
                    if let Some(mut g) = open.pop() {
                        g.ends.push(depth);
                        if !g.alternatives.last().is_some_and(|&l| is_else(lines[l])) {
                            // No `#else`: skipping the group is an
                            // alternative too, ending where it opened.
                            g.ends.push(g.depth);
                        }
                        // Alternatives that leave different depths (a
                        // parenthesis in disabled prose, `#if 0 (old`)
                        // do not say how the text continues: it continues
                        // from where the group opened, so one stray
                        // parenthesis cannot put the rest of the file
                        // "inside parentheses".
                        if g.ends.iter().any(|&e| e != depth) {
                            depth = g.depth;
                        }
                        // `#if 0` (with at most an `#else`) is decided by
                        // its text alone: its body is never compiled.
                        let never = is_if_zero(lines[g.open])
                            && g.alternatives.iter().all(|&l| is_else(lines[l]));
                        if g.depth > 0 || never {
                            any = true;
                            let last = g.alternatives.last().copied();
                            let keep_from = match last {
                                Some(l) if is_else(lines[l]) => l + 1,
                                _ => {
                                    // Nothing kept: the text after the
                                    // group continues from where it opened.
                                    depth = g.depth;
                                    i
                                }
                            };
                            for (j, d) in drop.iter_mut().enumerate().take(i + 1).skip(g.open) {
                                if !(keep_from <= j && j < i) {
                                    *d = true;
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        continued_directive = false;
        depth = paren_depth_after(line, depth, &mut in_comment);
    }
    if !any {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if !drop[i] {
            out.push_str(line);
        }
    }
    Some(out)
}

/// `#if 0`, a comment after it allowed.
fn is_if_zero(directive: &str) -> bool {
    let d = directive.trim_start().trim_start_matches('#').trim_start();
    let Some(rest) = d.strip_prefix("if") else {
        return false;
    };
    let cond = rest.split("//").next().unwrap_or("");
    let cond = cond.split("/*").next().unwrap_or("");
    rest.starts_with([' ', '\t']) && cond.trim() == "0"
}

fn is_else(directive: &str) -> bool {
    let d = directive.trim_start().trim_start_matches('#').trim_start();
    d.strip_prefix("else")
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
}

/// The parenthesis depth after one line of code, skipping string and
/// character literals and comments (`in_comment` carries a block comment
/// across lines). Never below zero: a stray `)` is the text's problem.
fn paren_depth_after(line: &str, mut depth: usize, in_comment: &mut bool) -> usize {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if *in_comment {
            match line[i..].find("*/") {
                Some(k) => {
                    *in_comment = false;
                    i += k + 2;
                    continue;
                }
                None => return depth,
            }
        }
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => return depth,
            b'/' if b.get(i + 1) == Some(&b'*') => {
                *in_comment = true;
                i += 2;
                continue;
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    depth
}

pub fn preprocess(src: &str, type_macros: &BTreeMap<String, TypeMacro>) -> String {
    let chosen = keep_parseable_alternatives(src);
    let src = chosen.as_deref().unwrap_or(src);
    let present_in_src = identifiers(src);
    let present = |w: &str| present_in_src.contains(w);
    let mut text = src.to_string();
    // Words that vanish entirely.
    const DROP_WORDS: &[&str] = &[
        "CLICK_DECLS",
        "CLICK_ENDDECLS",
        "CLICK_CXX_PROTECT",
        "CLICK_CXX_UNPROTECT",
        "__rte_unused",
        "__rte_always_inline",
        "__rte_cache_aligned",
        "__rte_hot",
        "__rte_cold",
        "always_inline",
        "__always_inline",
        "__maybe_unused",
        "__packed",
        "__aligned_u64",
        "CLIB_NOSANITIZE_ADDR",
        // GNU spellings of C keywords the grammar does not know: left in,
        // `*__restrict p` parses as a declarator named `__restrict`.
        "__restrict",
        "__restrict__",
        "__extension__",
    ];
    for w in DROP_WORDS.iter().filter(|w| present(w)) {
        let mut from = 0;
        while let Some(s) = find_word(&text, w, from) {
            if on_directive_line(&text, s) {
                from = s + w.len();
                continue;
            }
            splice(&mut text, s, s + w.len(), &" ".repeat(w.len()));
            from = s + w.len();
        }
    }
    blank_trailing_attribute_macros(&mut text);
    // So far words were only blanked, never joined: a word not in the
    // source is not in the text (the searches below are skipped for it).
    let mut from = if present("__rte_packed") {
        0
    } else {
        text.len()
    };
    while let Some(s) = find_word(&text, "__rte_packed", from) {
        splice(&mut text, s, s + "__rte_packed".len(), "/*packed*/");
        from = s + 1;
    }
    let mut from = if present("static_always_inline") {
        0
    } else {
        text.len()
    };
    while let Some(s) = find_word(&text, "static_always_inline", from) {
        splice(
            &mut text,
            s,
            s + "static_always_inline".len(),
            "static inline       ",
        );
        from = s + 1;
    }
    // Calls whose whole invocation vanishes (with its parentheses).
    const DROP_CALLS: &[&str] = &[
        "__attribute__",
        "__attribute",
        "EXPORT_ELEMENT",
        "ELEMENT_REQUIRES",
        "ELEMENT_MT_SAFE",
        "ELEMENT_LIBS",
        "ELEMENT_PROVIDES",
        "CLIB_CACHE_LINE_ALIGN_MARK",
        "__declspec",
        "__rte_aligned",
        "__rte_cache_aligned",
        "alignas",
        // libbpf's section attribute: `SEC("xdp") int prog(...)`
        "SEC",
    ];
    for w in DROP_CALLS.iter().filter(|w| present(w)) {
        rewrite_calls(&mut text, w, |text, s, _open, close| {
            let mut end = close + 1;
            // `EXPORT_ELEMENT(X);` also drops the semicolon.
            if (w.starts_with("EXPORT") || w.starts_with("ELEMENT") || w.starts_with("CLIB_CACHE"))
                && text.as_bytes().get(end) == Some(&b';')
            {
                end += 1;
            }
            let rep = if text[s..end].contains("packed") {
                "/*packed*/"
            } else {
                " "
            };
            (end, rep.to_string())
        });
    }
    // Wrappers whose argument stays: CLIB_PACKED(x), CLIB_UNUSED(x), CLICK_NAME(x).
    const WRAPPERS: [&str; 4] = [
        "CLIB_PACKED",
        "CLIB_UNUSED",
        "__rte_deprecated_msg",
        "CLIB_ALIGN_MARK",
    ];
    // Unwrapping may join an argument with the text after the call into a
    // new word; until then no word appears that the source lacks.
    let mut may_have_new_words = WRAPPERS.iter().any(|w| present(w));
    for w in WRAPPERS.into_iter().filter(|w| present(w)) {
        rewrite_calls(&mut text, w, |text, _s, open, close| {
            let inner = text[open + 1..close].to_string();
            let keep = match w {
                "CLIB_ALIGN_MARK" => String::new(),
                "CLIB_PACKED" => format!("/*packed*/ {inner}"),
                _ => inner,
            };
            (close + 1, keep)
        });
    }
    // VLIB_NODE_FN (name) (args) { ... }  ->  uword vlib_node_fn_name (args) { ... }
    if may_have_new_words || present("VLIB_NODE_FN") {
        rewrite_calls(&mut text, "VLIB_NODE_FN", |text, _s, open, close| {
            let name = text[open + 1..close].trim();
            (close + 1, format!("uword vlib_node_fn_{name}"))
        });
    }
    // Macros defined in the source closure, expanded left to right in one
    // pass over the text per round (rounds re-scan expansions for nested
    // macros). One pass keeps this linear in the text: splicing each use
    // in place moved the whole file per use.
    let lookup: rustc_hash::FxHashMap<&str, &TypeMacro> =
        type_macros.iter().map(|(n, m)| (n.as_str(), m)).collect();
    // Nesting in real headers goes deep (OVS: miniflow_push_words ->
    // ... -> OVS_LIKELY); a pass is linear, so a dozen are cheap.
    for _round in 0..12 {
        let (next, changed) = expand_round(&text, &lookup);
        text = next;
        if !changed {
            break;
        }
        may_have_new_words = true;
    }
    // `typeof(x) tmp;` (kernel/BPF READ_ONCE-style macros) does not parse
    // and takes the enclosing function down with it: a placeholder type
    // keeps the declaration a declaration.
    for w in ["typeof", "__typeof__", "__typeof"]
        .into_iter()
        .filter(|w| may_have_new_words || present(w))
    {
        rewrite_calls(&mut text, w, |_, _, _, close| {
            (close + 1, "__auto_type".to_string())
        });
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expect: &str) {
        let mut macros = BTreeMap::new();
        let defined = defined_names([input]);
        collect_type_macros(input, &defined, &mut macros);
        let out = preprocess(input, &macros);
        assert_eq!(
            out.matches('\n').count(),
            input.matches('\n').count(),
            "newlines preserved"
        );
        let squeezed: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(squeezed, expect);
    }

    #[test]
    fn directive_lines_are_the_joined_lines_that_start_with_a_hash() {
        let texts = [
            "#define A 1\nint x;\n  #define B(x) \\\n  (x)\nint y; \\\n#define C 2\n",
            "#define D \\\r\n 3\r\n\\\n#define E 4\r\nx\r",
            "\\\\\n#define F 5\n\t# define G\\\\\nH\n#define I\r",
            "",
            "\n\n#",
        ];
        for t in texts {
            let joined = t.replace("\\\r\n", " ").replace("\\\n", " ");
            let expect: Vec<&str> = joined
                .lines()
                .filter(|l| l.trim_start().starts_with('#'))
                .collect();
            let got: Vec<String> = directive_lines(t)
                .map(|l| l.into_owned())
                .filter(|l| l.trim_start().starts_with('#'))
                .collect();
            assert_eq!(got, expect, "{t:?}");
        }
    }

    #[test]
    fn macro_arguments_split_only_at_parenthesis_depth_zero() {
        check(
            "#define W(x, v) ((x) = (v))\nvoid f(struct s *p) { W(p->n, p->n > 1); }\n",
            "#define W(x, v) ((x) = (v)) void f(struct s *p) { ((p->n) = (p->n > 1)); }",
        );
    }

    #[test]
    fn blanks_may_separate_macro_name_and_arguments() {
        check(
            "#define G(d) (*(const u16 *)(d))\nint h(char *d) { return G (d); }\n",
            "#define G(d) (*(const u16 *)(d)) int h(char *d) { return (*(const u16 *)(d)); }",
        );
    }

    #[test]
    fn stringize_and_token_pasting_expand() {
        check(
            "#define A(c) (c ? 0 : fail(#c))\n#define L(t, p) lookup_##t(p)\nint f(int x) { A(x > 1); return L(tcp, x); }\n",
            "#define A(c) (c ? 0 : fail(#c)) #define L(t, p) lookup_##t(p) int f(int x) { (x > 1 ? 0 : fail(\"x > 1\")); return lookup_tcp(x); }",
        );
    }

    #[test]
    fn variadic_macros_expand_unless_they_forward_their_arguments_to_a_call() {
        // An iterator declaration's extra expressions are code of the
        // macro's own; a logging macro's arguments go to its callee.
        check(
            "#define INIT(V, P, T, ...) T *V##_it = ( __VA_ARGS__ , (T *) P)\n#define LOG(l, ...) vlog(l, __VA_ARGS__)\n#define NAMED(a, rest...) (a + rest)\nvoid f(void) { INIT(x, g(), struct n, (void) 0, 1); LOG(3, \"%d\", x); NAMED(1, 2); }\n",
            "#define INIT(V, P, T, ...) T *V##_it = ( __VA_ARGS__ , (T *) P) #define LOG(l, ...) vlog(l, __VA_ARGS__) #define NAMED(a, rest...) (a + rest) void f(void) { struct n *x_it = ( (void) 0, 1 , (struct n *) g()); LOG(3, \"%d\", x); (1 + 2); }",
        );
    }

    #[test]
    fn a_variadic_macro_defined_twice_differently_stays_a_call() {
        // An `#if` expression (OVS's `#if HAVE_THREAD_LOCAL`) is not
        // evaluated: both definitions are seen.
        check(
            "#if HAVE_TLS\n#define PER_THREAD(T, N, ...) static T N = __VA_ARGS__\n#else\n#define PER_THREAD(T, N, ...) static T *N##_get(void) { return lookup(N##_key); }\n#endif\nPER_THREAD(int, hits, 0);\n",
            "#if HAVE_TLS #define PER_THREAD(T, N, ...) static T N = __VA_ARGS__ #else #define PER_THREAD(T, N, ...) static T *N##_get(void) { return lookup(N##_key); } #endif PER_THREAD(int, hits, 0);",
        );
    }

    #[test]
    fn typeof_declarations_keep_parsing() {
        check(
            "int f(int *p) { typeof(*p) v = *p; return v; }\n",
            "int f(int *p) { __auto_type v = *p; return v; }",
        );
    }

    #[test]
    fn click_macros_vanish() {
        check(
            "CLICK_DECLS\nclass A {};\nCLICK_ENDDECLS\nEXPORT_ELEMENT(A)\n",
            "class A {};",
        );
    }

    #[test]
    fn vlib_node_fn_becomes_function() {
        check(
            "VLIB_NODE_FN (nat_node) (vlib_main_t *vm)\n{ }\n",
            "uword vlib_node_fn_nat_node (vlib_main_t *vm) { }",
        );
    }

    #[test]
    fn ifdef_groups_pick_the_definition_a_build_without_flags_sees() {
        // An include guard and a default (`#ifndef N` / `#define N`) keep
        // their bodies; `#ifndef DEBUG_BUILD` keeps its own, not `#else`.
        check(
            "#ifndef H\n#define H\n#ifndef ALLOC\n#define ALLOC plain\n#endif\n#ifndef DEBUG_BUILD\n#define ck(x) ALLOC(x)\n#else\n#define ck(x) tracked(x)\n#endif\n#endif\nint a = ck(1);\n",
            "#ifndef H #define H #ifndef ALLOC #define ALLOC plain #endif #ifndef DEBUG_BUILD #define ck(x) ALLOC(x) #else #define ck(x) tracked(x) #endif #endif int a = plain(1);",
        );
        // A name defined only under another condition decides nothing: the
        // later definition holds, as before.
        check(
            "#if defined(WIN)\n#define NO_T\n#endif\n#ifdef NO_T\n#define f(x) one(x)\n#else\n#define f(x) two(x)\n#endif\nint a = f(1);\n",
            "#if defined(WIN) #define NO_T #endif #ifdef NO_T #define f(x) one(x) #else #define f(x) two(x) #endif int a = two(1);",
        );
    }

    #[test]
    fn struct_macro_expands_on_one_line() {
        check(
            "#define TBL(K, V, N) struct { K key; V val[N]; }\nstruct s {\n  TBL(uint32_t, struct e,\n 64) t;\n};\n",
            "#define TBL(K, V, N) struct { K key; V val[N]; } struct s { struct { uint32_t key; struct e val[64]; } t; };",
        );
    }

    #[test]
    fn trailing_attribute_macros_in_parameters_vanish() {
        let t = preprocess(
            "int f(struct conn *c, struct dp_packet *pkt OVS_UNUSED, bool r)\n{ return g(a, MAX_X) + h(B_C); }\n",
            &BTreeMap::new(),
        );
        assert!(
            t.contains("struct dp_packet *pkt           , bool r)"),
            "{t}"
        );
        assert!(t.contains("g(a, MAX_X)"), "call arguments stay: {t}");
        assert!(t.contains("h(B_C)"), "{t}");
        let t = preprocess(
            "enum OVS_PACKED_ENUM st {\n A,\n};\nstruct FOO;\n",
            &BTreeMap::new(),
        );
        assert!(t.starts_with("enum                 st {"), "{t}");
        assert!(t.contains("struct FOO;"), "a tag itself stays: {t}");
    }

    #[test]
    fn attributes_and_packed_wrappers() {
        check(
            "typedef CLIB_PACKED(struct { u32 a; }) foo_t;\nstruct x { int a; } __attribute__((packed));\n",
            "typedef /*packed*/ struct { u32 a; } foo_t; struct x { int a; } /*packed*/;",
        );
    }

    #[test]
    fn a_conditional_inside_a_parameter_list_keeps_its_else() {
        // Kernel compatibility code: both signatures side by side never
        // parse; the fall-through (newest) one stays, nested groups too.
        check(
            "static unsigned int target(\n#if VER < 24\n struct sk_buff **pskb,\n#else\n struct sk_buff *skb,\n#endif\n#if VER < 28\n const void *info\n# if VER < 19\n , void *user\n# endif\n#else\n# if VER < 35\n const struct xt_target_param *par\n# else\n const struct xt_action_param *par\n# endif\n#endif\n) { return 0; }\n",
            "static unsigned int target( struct sk_buff *skb, const struct xt_action_param *par ) { return 0; }",
        );
    }

    #[test]
    fn a_conditional_inside_an_expression_without_else_keeps_nothing() {
        check(
            "int f(int a, int b) {\n if (g(\n#ifdef EXTRA /* ( */\n h(a) ||\n#endif\n b)) return 1;\n return 0;\n}\n",
            "int f(int a, int b) { if (g( b)) return 1; return 0; }",
        );
    }

    #[test]
    fn conditionals_between_statements_keep_every_alternative() {
        // Outside parentheses each branch parses on its own; parentheses
        // in strings, comments and directives do not count.
        check(
            "int f(int a) {\n const char *s = \")(\"; /* ( */\n#define M(x) (x\n#if A\n a = 1;\n#else\n a = 2;\n#endif\n return a;\n}\n",
            "int f(int a) { const char *s = \")(\"; /* ( */ #define M(x) (x #if A a = 1; #else a = 2; #endif return a; }",
        );
    }

    #[test]
    fn a_stray_parenthesis_in_a_disabled_block_does_not_open_the_rest_of_the_file() {
        // Disabled prose with an open parenthesis: later groups are still
        // between declarations and keep every alternative.
        check(
            "#ifdef OLD_NOTES\n old code (kept for reference\n#endif\n#ifdef FOO\nint a;\n#else\nint b;\n#endif\n",
            "#ifdef OLD_NOTES old code (kept for reference #endif #ifdef FOO int a; #else int b; #endif",
        );
    }

    #[test]
    fn an_if_zero_block_is_never_compiled() {
        check(
            "int f(int a) {\n#if 0 /* old */\n a = g(a);\n#else\n a = h(a);\n#endif\n#if 0\n a++;\n#endif\n#if 0x0\n a--;\n#endif\n return a;\n}\n",
            "int f(int a) { a = h(a); #if 0x0 a--; #endif return a; }",
        );
    }
}
