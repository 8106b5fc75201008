//! What of the included headers the analysis needs: the file-scope
//! declarations that declare a name the NF's own files use, transitively.
//!
//! A DPDK example pulls in sixty-odd headers (a megabyte of text) through
//! its includes; most of it declares nothing its code touches (flow rules,
//! tracing, device configuration), and one needed inline function can sit
//! in a header of six thousand lines. Preprocessing, parsing and indexing
//! all of it was most of the analysis time. The analysis only ever looks
//! names up, so a declaration whose names nothing uses cannot change what
//! it sees: such declarations are blanked (spaces; newlines stay, so every
//! line number is unchanged) and a header left with nothing is not read.
//!
//! Declarations are split and their names found by a scan of the tokens,
//! not a parse. The scan over-approximates what is declared and used (a
//! file-scope macro call declares every name in its arguments; every name
//! in a kept declaration, comments included, is used), and keeps whatever
//! it cannot split safely (a declaration with unbalanced conditional
//! directives, all directives but `#define`): keeping too much costs time
//! only.
//!
//! Comments of included headers are blanked first. A comment is white
//! space to C (removed before macros expand), so a name in it is not a use
//! and its text cannot change what the analysis sees; library headers are
//! about half documentation, which the parser would otherwise lex.

use rustc_hash::FxHashSet as HashSet;

/// The text to analyse for each source (`(text, included)`): own files
/// whole; included headers with the declarations nothing needs blanked, or
/// `None` when nothing in them is needed.
pub fn needed(sources: &[(&str, bool)]) -> Vec<Option<String>> {
    let code: Vec<String> = sources
        .iter()
        .map(|(text, included)| {
            if *included {
                blank_comments(text)
            } else {
                String::new()
            }
        })
        .collect();
    let sources: Vec<(&str, bool)> = sources
        .iter()
        .zip(&code)
        .map(|((text, included), code)| (if *included { code.as_str() } else { *text }, *included))
        .collect();
    let sources = &sources[..];
    let items: Vec<Vec<Item>> = sources
        .iter()
        .map(|(text, included)| if *included { items(text) } else { vec![] })
        .collect();
    let mut used: HashSet<&str> = HashSet::default();
    for (text, included) in sources {
        if !included {
            used.extend(identifiers(text));
        }
    }
    let mut kept: Vec<Vec<bool>> = items
        .iter()
        .map(|its| its.iter().map(|it| it.always).collect())
        .collect();
    for (f, its) in items.iter().enumerate() {
        for (i, it) in its.iter().enumerate() {
            if kept[f][i] {
                used.extend(identifiers(&sources[f].0[it.start..it.end]));
            }
        }
    }
    loop {
        let mut grew = false;
        for (f, its) in items.iter().enumerate() {
            for (i, it) in its.iter().enumerate() {
                if kept[f][i] || !it.declared.iter().any(|n| used.contains(n)) {
                    continue;
                }
                kept[f][i] = true;
                used.extend(identifiers(&sources[f].0[it.start..it.end]));
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    sources
        .iter()
        .enumerate()
        .map(|(f, (text, included))| {
            if !included {
                return Some(text.to_string());
            }
            let its = &items[f];
            let needed_any = its
                .iter()
                .zip(&kept[f])
                .any(|(it, k)| *k && !it.directive_only);
            if !needed_any {
                return None;
            }
            let dropped = its
                .iter()
                .zip(&kept[f])
                .filter(|(_, k)| !**k)
                .map(|(it, _)| (it.start, it.end));
            Some(drop_spans(text, dropped, "\n"))
        })
        .collect()
}

/// `text` with each span (ascending, disjoint, on character boundaries)
/// replaced by one `line_break` per newline it held, or by one space when
/// it held none: line numbers do not move and no two tokens are joined.
/// The spans are removed rather than overwritten with spaces because the
/// parser's lexer pays per byte of white space about what it pays per byte
/// of code.
fn drop_spans(text: &str, spans: impl Iterator<Item = (usize, usize)>, line_break: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in spans {
        let (Some(keep), Some(gone)) = (text.get(at..start), text.get(start..end)) else {
            continue;
        };
        out.push_str(keep);
        let lines = gone.bytes().filter(|b| *b == b'\n').count();
        if lines == 0 {
            out.push(' ');
        }
        out.extend(std::iter::repeat_n(line_break, lines));
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// `text` with every comment dropped (see [`drop_spans`]). String and
/// character literals are skipped whole, so a `//` or `/*` inside one is
/// not a comment.
fn blank_comments(text: &str) -> String {
    let b = text.as_bytes();
    let n = b.len();
    let mut spans = vec![];
    let mut i = 0;
    while i < n {
        match b[i] {
            b'/' if i + 1 < n && b[i + 1] == b'/' => {
                let s = i;
                // A line comment continues over a backslash-newline. (The
                // ends are found with `str::find`, which skips through the
                // text many bytes at a time.)
                i = loop {
                    match text[i..].find('\n') {
                        Some(k) if b[i + k - 1] == b'\\' => i += k + 1,
                        Some(k) => break i + k,
                        None => break n,
                    }
                };
                spans.push((s, i));
            }
            b'/' if i + 1 < n && b[i + 1] == b'*' => {
                let s = i;
                i += 2;
                // The first `*/` starting at `i` or later: a `/` after `i`
                // that follows a `*`.
                let mut from = i;
                i = loop {
                    match text[from..].find('/') {
                        Some(k) if from + k > i && b[from + k - 1] == b'*' => break from + k + 1,
                        Some(k) => from += k + 1,
                        None => break n,
                    }
                };
                spans.push((s, i));
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < n && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    // A comment is one space to C, so a comment over several lines inside
    // a directive does not end it: its newlines become line splices.
    drop_spans(text, spans.into_iter(), "\\\n")
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Every identifier of a text, comments and literals included.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.as_bytes().first().is_some_and(|c| is_ident_start(*c)))
}

/// Words that are followed by `(` at file scope without declaring
/// anything (keywords and GNU extensions).
const NOT_DECLARATORS: &[&str] = &[
    "__attribute__",
    "__attribute",
    "__declspec",
    "__extension__",
    "__asm__",
    "asm",
    "sizeof",
    "typeof",
    "__typeof__",
    "_Alignas",
    "alignof",
    "_Static_assert",
    "static_assert",
    "typedef",
];

/// A token of the declaration scan.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Tok<'a> {
    Ident(&'a str),
    Punct(u8),
    Str,
    /// A whole preprocessor line (with its continuations).
    Directive(&'a str),
}

/// Tokens with their byte spans.
fn tokens(text: &str) -> Vec<(Tok<'_>, usize, usize)> {
    let b = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        let s = i;
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' => {
                i += 1;
                continue;
            }
            b'\\' if b.get(i + 1) == Some(&b'\n') => {
                i += 2;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i = (i + 2).min(b.len());
                continue;
            }
            b'#' if line_start => {
                while i < b.len() && b[i] != b'\n' {
                    if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    i += 1;
                }
                out.push((Tok::Directive(&text[s..i]), s, i));
                continue;
            }
            b'"' | b'\'' => {
                i += 1;
                while i < b.len() && b[i] != c && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i = (i + 1).min(b.len());
                out.push((Tok::Str, s, i));
            }
            _ if is_ident_start(c) => {
                while i < b.len() && is_ident_char(b[i]) {
                    i += 1;
                }
                out.push((Tok::Ident(&text[s..i]), s, i));
            }
            _ if c.is_ascii_digit() => {
                while i < b.len() && (is_ident_char(b[i]) || b[i] == b'.') {
                    i += 1;
                }
            }
            _ if c.is_ascii() => {
                out.push((Tok::Punct(c), s, i + 1));
                i += 1;
            }
            _ => {
                // A byte of a non-ASCII character outside comments and
                // literals: not C; skipped whole.
                i += text[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
        line_start = false;
    }
    out
}

/// One file-scope declaration (or directive) of a header.
#[derive(Debug)]
struct Item<'a> {
    start: usize,
    end: usize,
    declared: Vec<&'a str>,
    /// Kept whatever is used: directives other than `#define`, and what the
    /// scan cannot split safely.
    always: bool,
    /// A directive (kept, but not by itself a reason to read the header).
    directive_only: bool,
}

/// Split a header into file-scope items.
fn items(text: &str) -> Vec<Item<'_>> {
    let toks = tokens(text);
    let mut out = vec![];
    let mut i = 0;
    while i < toks.len() {
        if let Tok::Directive(d) = toks[i].0 {
            let body = d.trim_start_matches('#').trim_start();
            let define = body
                .strip_prefix("define")
                .filter(|r| r.starts_with([' ', '\t']));
            out.push(Item {
                start: toks[i].1,
                end: toks[i].2,
                declared: define
                    .and_then(|r| identifiers(r).next())
                    .into_iter()
                    .collect(),
                always: define.is_none(),
                directive_only: define.is_none(),
            });
            i += 1;
            continue;
        }
        // `extern "C" {` … `}`: a linkage block, not a declaration; its
        // braces are skipped and its contents split as file scope.
        if toks[i].0 == Tok::Ident("extern")
            && toks.get(i + 1).map(|t| t.0) == Some(Tok::Str)
            && toks.get(i + 2).map(|t| t.0) == Some(Tok::Punct(b'{'))
        {
            out.push(Item {
                start: toks[i].1,
                end: toks[i + 2].2,
                declared: vec![],
                always: true,
                directive_only: true,
            });
            i += 3;
            continue;
        }
        if toks[i].0 == Tok::Punct(b'}') || toks[i].0 == Tok::Punct(b';') {
            // The end of a linkage block, or a stray `;`.
            out.push(Item {
                start: toks[i].1,
                end: toks[i].2,
                declared: vec![],
                always: true,
                directive_only: true,
            });
            i += 1;
            continue;
        }
        let first = i;
        let (closed, last) = item_end(&toks, i);
        let span = &toks[first..=last];
        let conditionals = span
            .iter()
            .filter_map(|t| match t.0 {
                Tok::Directive(d) => Some(d.trim_start_matches('#').trim_start()),
                _ => None,
            })
            .fold(0i32, |n, d| {
                if d.starts_with("if") {
                    n + 1
                } else if d.starts_with("endif") {
                    n - 1
                } else {
                    n
                }
            });
        out.push(Item {
            start: toks[first].1,
            end: toks[last].2,
            declared: declared(span),
            always: conditionals != 0 || !closed,
            directive_only: false,
        });
        i = last + 1;
    }
    out
}

/// Where the item starting at token `i` ends: `(true, last token)`, or
/// `(false, last token)` when the file ends first.
fn item_end(toks: &[(Tok<'_>, usize, usize)], i: usize) -> (bool, usize) {
    let mut braces = 0usize;
    let mut parens = 0usize;
    let mut j = i;
    while j < toks.len() {
        match toks[j].0 {
            Tok::Punct(b'(') => parens += 1,
            Tok::Punct(b')') => parens = parens.saturating_sub(1),
            Tok::Punct(b'{') => braces += 1,
            Tok::Punct(b'}') => {
                if braces == 0 {
                    // The `}` of an enclosing linkage block: end before it.
                    return (true, j.saturating_sub(1).max(i));
                }
                braces -= 1;
                if braces == 0 && parens == 0 && is_function_body(toks, i, j) {
                    return (true, j);
                }
            }
            Tok::Punct(b';') if braces == 0 && parens == 0 => return (true, j),
            _ => {}
        }
        j += 1;
    }
    (false, toks.len() - 1)
}

/// Does the `{` matching the `}` at `close` (within the item from `from`)
/// open a function body, i.e. follow a `)` (possibly with attributes)?
fn is_function_body(toks: &[(Tok<'_>, usize, usize)], from: usize, close: usize) -> bool {
    // Find the first `{` at depth 0 of the item.
    let mut parens = 0usize;
    for k in from..close {
        match toks[k].0 {
            Tok::Punct(b'(') => parens += 1,
            Tok::Punct(b')') => parens = parens.saturating_sub(1),
            Tok::Punct(b'=') if parens == 0 => return false,
            Tok::Punct(b'{') if parens == 0 => {
                return k > from && toks[k - 1].0 == Tok::Punct(b')')
                    || k > from && matches!(toks[k - 1].0, Tok::Ident(_)) && {
                        // `) __attribute__((x)) {` / `) RTE_ATTR {`: an
                        // identifier after the parameter list.
                        let mut m = k - 1;
                        while m > from && matches!(toks[m].0, Tok::Ident(_)) {
                            m -= 1;
                        }
                        toks[m].0 == Tok::Punct(b')')
                    };
            }
            _ => {}
        }
    }
    false
}

/// Names an item declares (over-approximated, see the module docs).
fn declared<'a>(span: &[(Tok<'a>, usize, usize)]) -> Vec<&'a str> {
    let mut out = vec![];
    // A file-scope macro call (`RTE_DECLARE_PER_LCORE(int, _rte_errno);`,
    // `LIST_HEAD(list, node);`) may declare any name it is given.
    if let (Some(Tok::Ident(m)), Some(Tok::Punct(b'('))) =
        (span.first().map(|t| t.0), span.get(1).map(|t| t.0))
    {
        if !NOT_DECLARATORS.contains(&m) {
            return span
                .iter()
                .filter_map(|t| match t.0 {
                    Tok::Ident(n) => Some(n),
                    _ => None,
                })
                .collect();
        }
    }
    let in_typedef = span.iter().any(|t| t.0 == Tok::Ident("typedef"));
    let mut braces = 0usize;
    let mut parens = 0usize;
    let mut enum_bodies: Vec<usize> = vec![];
    for (i, t) in span.iter().enumerate() {
        let next = span.get(i + 1).map(|t| t.0);
        match t.0 {
            Tok::Punct(b'{') => {
                let is_enum = (i >= 1 && span[i - 1].0 == Tok::Ident("enum"))
                    || (i >= 2 && span[i - 2].0 == Tok::Ident("enum"));
                braces += 1;
                if is_enum {
                    enum_bodies.push(braces);
                }
            }
            Tok::Punct(b'}') => {
                if enum_bodies.last() == Some(&braces) {
                    enum_bodies.pop();
                }
                braces = braces.saturating_sub(1);
            }
            Tok::Punct(b'(') => parens += 1,
            Tok::Punct(b')') => parens = parens.saturating_sub(1),
            Tok::Ident(name) if NOT_DECLARATORS.contains(&name) => {}
            Tok::Ident(name) => {
                // `struct tag {`, `union tag {`, `enum tag {`, `class tag {`.
                let tag_with_body = i >= 1
                    && matches!(
                        span[i - 1].0,
                        Tok::Ident("struct" | "union" | "enum" | "class")
                    )
                    && matches!(next, Some(Tok::Punct(b'{' | b':')));
                let enum_constant = enum_bodies.last() == Some(&braces)
                    && matches!(next, Some(Tok::Punct(b',' | b'=' | b'}')));
                // `void (*name)(...)`: a function pointer's name.
                let pointer_declarator = braces == 0
                    && parens == 1
                    && i >= 2
                    && span[i - 1].0 == Tok::Punct(b'*')
                    && span[i - 2].0 == Tok::Punct(b'(')
                    && next == Some(Tok::Punct(b')'));
                let declares = if in_typedef {
                    // `typedef T name;`, `typedef T name __attr(1);`,
                    // `typedef struct {…} a, *b;`: the name before `;`,
                    // `,`, `[` or an attribute macro.
                    let before_attribute = matches!(
                        next,
                        Some(Tok::Ident(a)) if a.starts_with("__")
                            || a.bytes().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
                    );
                    tag_with_body
                        || enum_constant
                        || pointer_declarator
                        || (braces == 0
                            && parens == 0
                            && (before_attribute
                                || matches!(next, Some(Tok::Punct(b';' | b',' | b'[')))))
                } else {
                    let file_scope_declarator = braces == 0
                        && parens == 0
                        && matches!(next, Some(Tok::Punct(b'(' | b';' | b'=' | b'[' | b',')));
                    tag_with_body || enum_constant || pointer_declarator || file_scope_declarator
                };
                if declares {
                    out.push(name);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(src: &str) -> Vec<&str> {
        let mut v: Vec<&str> = items(src).into_iter().flat_map(|i| i.declared).collect();
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn declared_names_of_a_header() {
        let h = r#"
#ifndef H
#define H
#define RTE_MAX 32
#define rte_errno per_lcore__rte_errno
#ifdef __cplusplus
extern "C" {
#endif
struct rte_mbuf { uint16_t port; uint64_t ol_flags; };
enum rte_color { RTE_COLOR_GREEN = 0, RTE_COLOR_RED };
typedef uint64_t unaligned_uint64_t __rte_aligned(1);
typedef void (*rte_rx_callback_fn)(uint16_t port, void *arg);
extern struct rte_eth_fp_ops rte_eth_fp_ops[RTE_MAX];
static inline uint16_t rte_eth_rx_burst(uint16_t port_id, struct rte_mbuf **rx_pkts) {
    int local = 1; return helper(local);
}
int rte_eth_dev_count(void); /* trailing(comment) */
const char *s = "not_a_name(";
RTE_DECLARE_PER_LCORE(int, _rte_errno);
#ifdef __cplusplus
}
#endif
#endif
"#;
        assert_eq!(
            decl(h),
            [
                "H",
                "RTE_COLOR_GREEN",
                "RTE_COLOR_RED",
                "RTE_DECLARE_PER_LCORE",
                "RTE_MAX",
                "_rte_errno",
                "int",
                "rte_color",
                "rte_errno",
                "rte_eth_dev_count",
                "rte_eth_fp_ops",
                "rte_eth_rx_burst",
                "rte_mbuf",
                "rte_rx_callback_fn",
                "s",
                "unaligned_uint64_t",
            ]
        );
    }

    #[test]
    fn unused_declarations_are_blanked_and_unused_headers_dropped() {
        let own = "#include \"a.h\"\nvoid nf(struct pkt *p) { a_lookup(p); }";
        let a = "#ifndef A_H\n#define A_H\nstatic inline int a_lookup(struct pkt *p) { return b_hash(p) & A_MASK; }\n#define A_MASK 7\nint a_unused(struct flow_rule *r);\n#endif\n";
        let b = "int b_hash(struct pkt *p);\nstruct flow_rule { int x; };";
        let unused = "int flow_rule_create(int port);\nstruct rte_flow_item { int type; };";
        let pkt = "struct pkt { int len; };";
        let out = needed(&[
            (own, false),
            (a, true),
            (b, true),
            (unused, true),
            (pkt, true),
        ]);
        assert_eq!(out[0].as_deref(), Some(own));
        let a_out = out[1].as_deref().unwrap();
        assert!(
            a_out.contains("a_lookup") && a_out.contains("A_MASK 7"),
            "{a_out}"
        );
        assert!(!a_out.contains("a_unused"), "{a_out}");
        assert_eq!(a_out.lines().count(), a.lines().count());
        let b_out = out[2].as_deref().unwrap();
        assert!(
            b_out.contains("b_hash") && !b_out.contains("flow_rule"),
            "{b_out}"
        );
        assert_eq!(out[3], None);
        assert_eq!(out[4].as_deref(), Some(pkt));
    }

    #[test]
    fn comments_are_blanked_in_place_but_literals_are_not() {
        let h = "int a; // uses b_fn\n/* c_fn(\n d_fn */ int e = '\"'; const char *u = \"http://x /* y */\";\n";
        let out = blank_comments(h);
        assert_eq!(out.lines().count(), h.lines().count());
        assert!(
            !out.contains("b_fn") && !out.contains("c_fn") && !out.contains("d_fn"),
            "{out}"
        );
        assert!(
            out.contains("\"http://x /* y */\"") && out.contains("int e = '\"'"),
            "{out}"
        );
    }

    #[test]
    fn a_comment_over_several_lines_does_not_end_a_directive() {
        let h = "#define LIMIT /* the most\n entries */ 64\nint x;\n";
        let out = blank_comments(h);
        assert_eq!(out.lines().count(), h.lines().count());
        // The directive's logical line (splices joined) still holds its value.
        let logical = out.replace("\\\n", "");
        let directive: Vec<&str> = logical.lines().next().unwrap().split_whitespace().collect();
        assert_eq!(directive, ["#define", "LIMIT", "64"], "{out:?}");
    }

    #[test]
    fn a_name_mentioned_only_in_a_comment_is_not_a_use() {
        let own = "#include \"a.h\"\nvoid nf(struct pkt *p) { a_lookup(p); }";
        let a = "int a_lookup(struct pkt *p /* faster than a_slow_path */);\nint a_slow_path(struct pkt *p);\n";
        let out = needed(&[(own, false), (a, true)]);
        let a_out = out[1].as_deref().unwrap();
        assert!(
            a_out.contains("int a_lookup") && !a_out.contains("a_slow_path"),
            "{a_out}"
        );
        assert_eq!(a_out.lines().count(), a.lines().count());
    }

    #[test]
    fn a_declaration_with_unbalanced_conditionals_is_kept() {
        let own = "void nf(void) {}";
        let h = "struct a {\n#ifdef X\n int x; };\n#else\n int y; };\n#endif\n";
        let out = needed(&[(own, false), (h, true)]);
        // Nothing declared is used, but the struct's span holds an `#ifdef`
        // without its `#endif`: kept, and with it the header.
        assert!(
            out[1].as_deref().is_some_and(|t| t.contains("int x")),
            "{out:?}"
        );
    }
}
