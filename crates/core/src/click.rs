//! FastClick/Click configuration files (`.click`) as plain data: an AST of
//! statements (connection chains of element declarations, anonymous
//! elements and references, with `[n]` ports), a parser that records byte
//! spans (so tools can rewrite parameters in place, as FlowMage's Fig. 7
//! does) and reports problems as [`Diagnostic`]s instead of failing, and a
//! printer whose output parses back to the same AST.
//!
//! Covered: `name :: Class(args)`, `a, b :: Class`, anonymous `Class(args)`,
//! `a [1] -> [0] b -> c;`, `//` and `/* */` comments, quoted strings and
//! nested parentheses in arguments, `KEYWORD value` arguments. `elementclass
//! Name { ... }` compound elements are kept verbatim (not interpreted) with a
//! note; `=>`/`~>` connection forms are reported as unsupported.

use crate::diag::{Diagnostic, Span};
use serde::{Deserialize, Serialize};

/// A byte range `start..end` in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ByteSpan {
    pub start: usize,
    pub end: usize,
}

impl ByteSpan {
    /// Line/column span (1-based) of this range in `text`.
    pub fn to_span(self, file: &str, text: &str) -> Span {
        let pos = |offset: usize| -> (u32, u32) {
            let before = &text[..offset.min(text.len())];
            let line = before.matches('\n').count() as u32 + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
            (line, col)
        };
        let (line, col) = pos(self.start);
        let (end_line, end_col) = pos(self.end);
        Span {
            file: file.to_string(),
            line,
            col,
            end_line,
            end_col,
        }
    }
}

/// One configuration argument: `KEYWORD value` or a positional value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arg {
    pub keyword: Option<String>,
    pub value: String,
    pub span: ByteSpan,
}

impl Arg {
    pub fn keyword(keyword: &str, value: impl Into<String>) -> Self {
        Arg {
            keyword: Some(keyword.to_string()),
            value: value.into(),
            span: ByteSpan::default(),
        }
    }
    pub fn positional(value: impl Into<String>) -> Self {
        Arg {
            keyword: None,
            value: value.into(),
            span: ByteSpan::default(),
        }
    }
}

/// The text between an element's parentheses, split into arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigArgs {
    pub args: Vec<Arg>,
    /// Span of the text inside the parentheses.
    pub span: ByteSpan,
}

impl ConfigArgs {
    pub fn new(args: Vec<Arg>) -> Self {
        ConfigArgs {
            args,
            span: ByteSpan::default(),
        }
    }
    /// The value of a keyword argument.
    pub fn get(&self, keyword: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|a| a.keyword.as_deref() == Some(keyword))
            .map(|a| a.value.as_str())
    }
}

/// An element in a connection chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Element {
    /// `name :: Class(config)` (or `a, b :: Class`).
    Declaration {
        names: Vec<String>,
        class: String,
        config: Option<ConfigArgs>,
        span: ByteSpan,
        class_end: usize,
    },
    /// `Class(config)` without a name.
    Anonymous {
        class: String,
        config: ConfigArgs,
        span: ByteSpan,
    },
    /// A bare identifier: a declared element's name, or a class used without
    /// arguments (`Discard`); Click resolves it by whether it was declared.
    Name { name: String, span: ByteSpan },
}

impl Element {
    pub fn span(&self) -> ByteSpan {
        match self {
            Element::Declaration { span, .. }
            | Element::Anonymous { span, .. }
            | Element::Name { span, .. } => *span,
        }
    }
}

/// One hop of a connection chain: `[in] element [out]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    pub input_port: Option<u32>,
    pub element: Element,
    pub output_port: Option<u32>,
}

/// A top-level statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Statement {
    /// `a -> b -> c;` (a single hop is a plain declaration).
    Chain { hops: Vec<Hop>, span: ByteSpan },
    /// `elementclass Name { body }`, kept verbatim.
    ElementClass {
        name: String,
        body: String,
        span: ByteSpan,
    },
}

/// A parsed configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ClickConfig {
    pub statements: Vec<Statement>,
}

/// A declared element, as found by [`ClickConfig::declarations`].
#[derive(Debug, Clone, Copy)]
pub struct DeclRef<'a> {
    pub name: &'a str,
    pub class: &'a str,
    pub config: Option<&'a ConfigArgs>,
    pub span: ByteSpan,
    /// Byte offset just after the class name (where `(...)` goes if absent).
    pub class_end: usize,
}

impl ClickConfig {
    /// Every named declaration, in source order.
    pub fn declarations(&self) -> Vec<DeclRef<'_>> {
        let mut out = vec![];
        for st in &self.statements {
            if let Statement::Chain { hops, .. } = st {
                for hop in hops {
                    if let Element::Declaration {
                        names,
                        class,
                        config,
                        span,
                        class_end,
                    } = &hop.element
                    {
                        for name in names {
                            out.push(DeclRef {
                                name,
                                class,
                                config: config.as_ref(),
                                span: *span,
                                class_end: *class_end,
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// Every element with a class (declared or anonymous): (name if any, class, config, span).
    pub fn instances(&self) -> Vec<(Option<&str>, &str, Option<&ConfigArgs>, ByteSpan)> {
        let mut out = vec![];
        for st in &self.statements {
            if let Statement::Chain { hops, .. } = st {
                for hop in hops {
                    match &hop.element {
                        Element::Declaration {
                            names,
                            class,
                            config,
                            span,
                            ..
                        } => out.push((
                            names.first().map(String::as_str),
                            class.as_str(),
                            config.as_ref(),
                            *span,
                        )),
                        Element::Anonymous {
                            class,
                            config,
                            span,
                        } => out.push((None, class.as_str(), Some(config), *span)),
                        Element::Name { .. } => {}
                    }
                }
            }
        }
        out
    }

    /// The same AST with every span zeroed (for comparing parses of different text).
    pub fn without_spans(&self) -> ClickConfig {
        let z = ByteSpan::default();
        let strip_cfg = |c: &ConfigArgs| ConfigArgs {
            args: c
                .args
                .iter()
                .map(|a| Arg {
                    span: z,
                    ..a.clone()
                })
                .collect(),
            span: z,
        };
        let statements = self
            .statements
            .iter()
            .map(|st| match st {
                Statement::Chain { hops, .. } => Statement::Chain {
                    hops: hops
                        .iter()
                        .map(|h| Hop {
                            element: match &h.element {
                                Element::Declaration {
                                    names,
                                    class,
                                    config,
                                    ..
                                } => Element::Declaration {
                                    names: names.clone(),
                                    class: class.clone(),
                                    config: config.as_ref().map(strip_cfg),
                                    span: z,
                                    class_end: 0,
                                },
                                Element::Anonymous { class, config, .. } => Element::Anonymous {
                                    class: class.clone(),
                                    config: strip_cfg(config),
                                    span: z,
                                },
                                Element::Name { name, .. } => Element::Name {
                                    name: name.clone(),
                                    span: z,
                                },
                            },
                            ..h.clone()
                        })
                        .collect(),
                    span: z,
                },
                Statement::ElementClass { name, body, .. } => Statement::ElementClass {
                    name: name.clone(),
                    body: body.clone(),
                    span: z,
                },
            })
            .collect();
        ClickConfig { statements }
    }
}

// ---------------------------------------------------------------- lexer

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    DoubleColon,
    Arrow,
    /// `=>` or `~>`: valid Click, not supported here.
    OtherArrow(&'static str),
    LBracket,
    RBracket,
    Comma,
    Semi,
    LBrace,
    RBrace,
    /// The raw text inside `( ... )`, with the span of that inside text.
    Paren(String, ByteSpan),
    /// An unexpected character.
    Stray(char),
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '@' | '$' | '.' | '-')
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    diags: Vec<(ByteSpan, String)>,
}

impl<'a> Lexer<'a> {
    fn peek_char(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_trivia(&mut self) {
        loop {
            let rest = &self.text[self.pos..];
            if let Some(c) = rest.chars().next().filter(|c| c.is_whitespace()) {
                self.pos += c.len_utf8();
            } else if rest.starts_with("//") {
                self.pos += rest.find('\n').unwrap_or(rest.len());
            } else if let Some(body) = rest.strip_prefix("/*") {
                match body.find("*/") {
                    Some(end) => self.pos += end + 4,
                    None => {
                        self.diags.push((
                            ByteSpan {
                                start: self.pos,
                                end: self.text.len(),
                            },
                            "unterminated /* comment".into(),
                        ));
                        self.pos = self.text.len();
                    }
                }
            } else {
                return;
            }
        }
    }

    /// Scan a parenthesised block starting at `(`; returns the inside text.
    fn paren(&mut self) -> Tok {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        let mut depth = 1;
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() {
            let rest = &self.text[self.pos..];
            match bytes[self.pos] {
                b'"' | b'\'' => self.pos = skip_quoted(self.text, self.pos),
                b'/' if rest.starts_with("//") => self.pos += rest.find('\n').unwrap_or(rest.len()),
                b'/' if rest.starts_with("/*") => {
                    self.pos += rest[2..].find("*/").map_or(rest.len(), |e| e + 4)
                }
                b'(' => {
                    depth += 1;
                    self.pos += 1;
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        let span = ByteSpan {
                            start,
                            end: self.pos,
                        };
                        self.pos += 1;
                        return Tok::Paren(self.text[start..span.end].to_string(), span);
                    }
                    self.pos += 1;
                }
                _ => self.pos += rest.chars().next().map_or(1, char::len_utf8),
            }
        }
        self.diags.push((
            ByteSpan {
                start: open,
                end: self.text.len(),
            },
            "unclosed `(`".into(),
        ));
        let span = ByteSpan {
            start,
            end: self.text.len(),
        };
        Tok::Paren(self.text[start..].to_string(), span)
    }

    fn next(&mut self) -> Option<(Tok, ByteSpan)> {
        self.skip_trivia();
        let start = self.pos;
        let c = self.peek_char()?;
        let rest = &self.text[self.pos..];
        let tok = if rest.starts_with("::") {
            self.pos += 2;
            Tok::DoubleColon
        } else if rest.starts_with("->") {
            self.pos += 2;
            Tok::Arrow
        } else if rest.starts_with("=>") {
            self.pos += 2;
            Tok::OtherArrow("=>")
        } else if rest.starts_with("~>") {
            self.pos += 2;
            Tok::OtherArrow("~>")
        } else if c == '(' {
            self.paren()
        } else if is_ident_char(c) {
            // A `-` only continues an identifier when it does not start `->`.
            let mut end = 0;
            for (i, ch) in rest.char_indices() {
                let tail = &rest[i..];
                if !is_ident_char(ch)
                    || tail.starts_with("->")
                    || tail.starts_with("//")
                    || tail.starts_with("/*")
                {
                    break;
                }
                end = i + ch.len_utf8();
            }
            self.pos += end;
            Tok::Ident(rest[..end].to_string())
        } else {
            self.pos += c.len_utf8();
            match c {
                '[' => Tok::LBracket,
                ']' => Tok::RBracket,
                ',' => Tok::Comma,
                ';' => Tok::Semi,
                '{' => Tok::LBrace,
                '}' => Tok::RBrace,
                other => Tok::Stray(other),
            }
        };
        Some((
            tok,
            ByteSpan {
                start,
                end: self.pos,
            },
        ))
    }
}

fn skip_quoted(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == b'\\' && quote == b'"' {
            i += 2;
            continue;
        }
        if bytes[i] == quote {
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

/// Split the inside of `( ... )` at top-level commas into arguments.
fn split_args(raw: &str, base: usize) -> Vec<Arg> {
    let bytes = raw.as_bytes();
    let mut pieces = vec![];
    let (mut depth, mut i, mut start) = (0i32, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => {
                i = skip_quoted(raw, i);
                continue;
            }
            b'/' if raw[i..].starts_with("//") => {
                i += raw[i..].find('\n').unwrap_or(raw.len() - i);
                continue;
            }
            b'/' if raw[i..].starts_with("/*") => {
                i += raw[i + 2..].find("*/").map_or(raw.len() - i, |e| e + 4);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                pieces.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    pieces.push((start, bytes.len()));
    let mut args = vec![];
    for (s, e) in pieces {
        let piece = &raw[s..e];
        let lead = piece.len() - piece.trim_start().len();
        let text = piece.trim();
        if text.is_empty() {
            continue;
        }
        let span = ByteSpan {
            start: base + s + lead,
            end: base + s + lead + text.len(),
        };
        let word_end = text.find(char::is_whitespace).unwrap_or(text.len());
        let word = &text[..word_end];
        let is_keyword = word_end < text.len()
            && word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && word
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if is_keyword {
            args.push(Arg {
                keyword: Some(word.to_string()),
                value: text[word_end..].trim().to_string(),
                span,
            });
        } else {
            args.push(Arg {
                keyword: None,
                value: text.to_string(),
                span,
            });
        }
    }
    args
}

// ---------------------------------------------------------------- parser

struct Parser<'a> {
    toks: Vec<(Tok, ByteSpan)>,
    pos: usize,
    file: &'a str,
    text: &'a str,
    diags: Vec<Diagnostic>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }
    fn span_at(&self, i: usize) -> ByteSpan {
        self.toks.get(i).map(|(_, s)| *s).unwrap_or(ByteSpan {
            start: self.text.len(),
            end: self.text.len(),
        })
    }
    fn error(&mut self, span: ByteSpan, msg: impl Into<String>) {
        self.diags
            .push(Diagnostic::error("E0520", msg).with_span(span.to_span(self.file, self.text)));
    }
    /// Skip to just after the next `;` (error recovery).
    fn recover(&mut self) {
        while let Some(t) = self.peek() {
            let was_semi = *t == Tok::Semi;
            self.pos += 1;
            if was_semi {
                return;
            }
        }
    }

    fn port(&mut self) -> Result<Option<u32>, ()> {
        if self.peek() != Some(&Tok::LBracket) {
            return Ok(None);
        }
        let open = self.span_at(self.pos);
        self.pos += 1;
        let n = match self.peek() {
            Some(Tok::Ident(s)) => s.parse::<u32>().ok(),
            _ => None,
        };
        let Some(n) = n else {
            self.error(
                self.span_at(self.pos),
                "expected a port number inside `[ ]`",
            );
            return Err(());
        };
        self.pos += 1;
        if self.peek() != Some(&Tok::RBracket) {
            self.error(open, "unclosed `[`");
            return Err(());
        }
        self.pos += 1;
        Ok(Some(n))
    }

    fn element(&mut self) -> Result<Element, ()> {
        let start = self.span_at(self.pos);
        let first = match self.peek() {
            Some(Tok::Ident(s)) => s.clone(),
            _ => {
                let msg = match self.peek() {
                    Some(Tok::OtherArrow(a)) => {
                        format!("`{a}` connections are not supported; use `->`")
                    }
                    Some(t) => format!("expected an element, found {t:?}"),
                    None => "expected an element, found end of file".into(),
                };
                self.error(start, msg);
                return Err(());
            }
        };
        self.pos += 1;
        let mut names = vec![first];
        while self.peek() == Some(&Tok::Comma) {
            self.pos += 1;
            match self.peek() {
                Some(Tok::Ident(s)) => {
                    names.push(s.clone());
                    self.pos += 1;
                }
                _ => {
                    self.error(self.span_at(self.pos), "expected an element name after `,`");
                    return Err(());
                }
            }
        }
        if self.peek() == Some(&Tok::DoubleColon) {
            self.pos += 1;
            let class = match self.peek() {
                Some(Tok::Ident(s)) => s.clone(),
                _ => {
                    self.error(self.span_at(self.pos), "expected a class name after `::`");
                    return Err(());
                }
            };
            let class_end = self.span_at(self.pos).end;
            self.pos += 1;
            let config = self.config();
            let end = self.span_at(self.pos - 1).end;
            return Ok(Element::Declaration {
                names,
                class,
                config,
                span: ByteSpan {
                    start: start.start,
                    end,
                },
                class_end,
            });
        }
        if names.len() > 1 {
            self.error(start, "a list of names must be followed by `:: Class`");
            return Err(());
        }
        let name = names.remove(0);
        match self.config() {
            Some(config) => {
                let end = self.span_at(self.pos - 1).end;
                Ok(Element::Anonymous {
                    class: name,
                    config,
                    span: ByteSpan {
                        start: start.start,
                        end,
                    },
                })
            }
            None => Ok(Element::Name { name, span: start }),
        }
    }

    fn config(&mut self) -> Option<ConfigArgs> {
        if let Some(Tok::Paren(raw, span)) = self.peek().cloned() {
            self.pos += 1;
            Some(ConfigArgs {
                args: split_args(&raw, span.start),
                span,
            })
        } else {
            None
        }
    }

    fn hop(&mut self) -> Result<Hop, ()> {
        let input_port = self.port()?;
        let element = self.element()?;
        let output_port = self.port()?;
        Ok(Hop {
            input_port,
            element,
            output_port,
        })
    }

    fn element_class(&mut self) -> Option<Statement> {
        let start = self.span_at(self.pos);
        self.pos += 1;
        let name = match self.peek() {
            Some(Tok::Ident(s)) => s.clone(),
            _ => {
                self.error(start, "expected a name after `elementclass`");
                self.recover();
                return None;
            }
        };
        self.pos += 1;
        if self.peek() != Some(&Tok::LBrace) {
            self.error(
                self.span_at(self.pos),
                "expected `{` after the elementclass name",
            );
            self.recover();
            return None;
        }
        let body_start = self.span_at(self.pos).end;
        let mut depth = 0;
        while let Some(t) = self.peek() {
            match t {
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        let close = self.span_at(self.pos);
                        self.pos += 1;
                        let span = ByteSpan {
                            start: start.start,
                            end: close.end,
                        };
                        self.diags.push(
                            Diagnostic::note_diag(
                                "N0601",
                                format!("elementclass `{name}` is kept verbatim and not analysed"),
                            )
                            .with_span(span.to_span(self.file, self.text)),
                        );
                        return Some(Statement::ElementClass {
                            name,
                            body: self.text[body_start..close.start].to_string(),
                            span,
                        });
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        self.error(
            start,
            format!("elementclass `{name}` is missing its closing `}}`"),
        );
        None
    }

    fn statement(&mut self) -> Option<Statement> {
        if self.peek() == Some(&Tok::Ident("elementclass".into())) {
            return self.element_class();
        }
        let start = self.span_at(self.pos);
        let mut hops = vec![];
        loop {
            match self.hop() {
                Ok(h) => hops.push(h),
                Err(()) => {
                    self.recover();
                    return None;
                }
            }
            match self.peek() {
                Some(Tok::Arrow) => self.pos += 1,
                Some(Tok::Semi) | None => break,
                Some(Tok::OtherArrow(a)) => {
                    let a = *a;
                    self.error(
                        self.span_at(self.pos),
                        format!("`{a}` connections are not supported; use `->`"),
                    );
                    self.recover();
                    return None;
                }
                Some(t) => {
                    let msg = format!("expected `->` or `;`, found {t:?}");
                    self.error(self.span_at(self.pos), msg);
                    self.recover();
                    return None;
                }
            }
        }
        let end = self.span_at(self.pos.saturating_sub(1)).end;
        if self.peek() == Some(&Tok::Semi) {
            self.pos += 1;
        }
        Some(Statement::Chain {
            hops,
            span: ByteSpan {
                start: start.start,
                end,
            },
        })
    }
}

/// Parse a Click configuration. Errors (E0520) come with spans; the AST holds
/// every statement that parsed.
pub fn parse(text: &str, file: &str) -> (ClickConfig, Vec<Diagnostic>) {
    let mut lexer = Lexer {
        text,
        pos: 0,
        diags: vec![],
    };
    let mut toks = vec![];
    while let Some(t) = lexer.next() {
        toks.push(t);
    }
    let mut parser = Parser {
        toks,
        pos: 0,
        file,
        text,
        diags: vec![],
    };
    for (span, msg) in std::mem::take(&mut lexer.diags) {
        parser.error(span, msg);
    }
    let mut config = ClickConfig::default();
    while let Some(t) = parser.peek() {
        match t {
            Tok::Semi => parser.pos += 1,
            Tok::Stray(c) => {
                let msg = format!("unexpected character `{c}`");
                parser.error(parser.span_at(parser.pos), msg);
                parser.recover();
            }
            _ => {
                if let Some(st) = parser.statement() {
                    config.statements.push(st);
                }
            }
        }
    }
    (config, parser.diags)
}

fn print_config(c: &ConfigArgs) -> String {
    let args: Vec<String> = c
        .args
        .iter()
        .map(|a| match &a.keyword {
            Some(k) => format!("{k} {}", a.value),
            None => a.value.clone(),
        })
        .collect();
    format!("({})", args.join(", "))
}

/// Print a configuration: one statement per line, `;`-terminated.
pub fn print(config: &ClickConfig) -> String {
    let mut out = String::new();
    for st in &config.statements {
        match st {
            Statement::Chain { hops, .. } => {
                let parts: Vec<String> = hops
                    .iter()
                    .map(|h| {
                        let mut s = String::new();
                        if let Some(p) = h.input_port {
                            s.push_str(&format!("[{p}] "));
                        }
                        match &h.element {
                            Element::Declaration {
                                names,
                                class,
                                config,
                                ..
                            } => {
                                s.push_str(&format!("{} :: {class}", names.join(", ")));
                                if let Some(c) = config {
                                    s.push_str(&print_config(c));
                                }
                            }
                            Element::Anonymous { class, config, .. } => {
                                s.push_str(class);
                                s.push_str(&print_config(config));
                            }
                            Element::Name { name, .. } => s.push_str(name),
                        }
                        if let Some(p) = h.output_port {
                            s.push_str(&format!(" [{p}]"));
                        }
                        s
                    })
                    .collect();
                out.push_str(&parts.join(" -> "));
                out.push_str(";\n");
            }
            Statement::ElementClass { name, body, .. } => {
                out.push_str(&format!("elementclass {name} {{{body}}}\n"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FlowMage Fig. 7's input configuration.
    const FIG7: &str = r#"
// FlowMage Fig. 7 input
fd0 :: FromDPDKDevice($port, MAXTHREADS 16, NDESC 256)
    -> Classifier(12/0800)
    -> MarkIPHeader(OFFSET 14)
    -> psd :: IPortScanDetector(SIZE 8000000)
    -> policer :: IPolicer(SIZE 8000000)
    -> flowCounter :: IFlowCounter(SIZE 64000000)
    -> td0 :: ToDPDKDevice($port, VERBOSE 99, TIMEOUT -1);
"#;

    fn check_roundtrip(text: &str) {
        let (a, diags) = parse(text, "t.click");
        assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
        let printed = print(&a);
        let (b, diags) = parse(&printed, "p.click");
        assert!(diags.iter().all(|d| !d.is_error()), "{printed}\n{diags:?}");
        assert_eq!(a.without_spans(), b.without_spans(), "{printed}");
        assert_eq!(print(&b), printed);
    }

    #[test]
    fn roundtrips() {
        for text in [
            FIG7,
            "a :: Queue(100); b :: Discard; a -> b;",
            "src :: InfiniteSource(LENGTH 64) [0] -> [0] c :: Counter -> Discard;",
            "x, y :: Counter; x[1] -> [2]y;",
            "FromDevice(eth0, SNIFFER false) -> Print(\"a, (b)\", MAXLENGTH 10) -> Discard;",
            "/* block */ a :: Classifier(12/0800, -); a[1] -> Discard; // tail",
            "elementclass Foo { input -> Counter -> output } f :: Foo;",
            "s :: Strip(14) -> CheckIPHeader(CHECKSUM false) -> ToDump(out.pcap);",
            "a//comment\n-> b/* c */-> Discard;",
        ] {
            check_roundtrip(text);
        }
    }

    #[test]
    fn fig7_structure_and_spans() {
        let (c, diags) = parse(FIG7, "fig7.click");
        assert!(diags.is_empty(), "{diags:?}");
        let decls = c.declarations();
        let names: Vec<&str> = decls.iter().map(|d| d.name).collect();
        assert_eq!(names, ["fd0", "psd", "policer", "flowCounter", "td0"]);
        let fd0 = &decls[0];
        assert_eq!(fd0.class, "FromDPDKDevice");
        let cfg = fd0.config.unwrap();
        assert_eq!(cfg.get("MAXTHREADS"), Some("16"));
        assert_eq!(
            cfg.args[0],
            Arg {
                keyword: None,
                value: "$port".into(),
                span: cfg.args[0].span
            }
        );
        assert_eq!(
            &FIG7[cfg.span.start..cfg.span.end],
            "$port, MAXTHREADS 16, NDESC 256"
        );
        let a = cfg.args[1].span;
        assert_eq!(&FIG7[a.start..a.end], "MAXTHREADS 16");
        assert_eq!(decls[4].config.unwrap().get("TIMEOUT"), Some("-1"));
        assert_eq!(c.instances().len(), 7);
    }

    #[test]
    fn errors_have_spans_and_recover() {
        let check = |text: &str, code: &str, line: u32, needle: &str| {
            let (c, diags) = parse(text, "bad.click");
            let d = diags
                .iter()
                .find(|d| d.code == code)
                .unwrap_or_else(|| panic!("{text}: {diags:?}"));
            assert!(d.message.contains(needle), "{}", d.message);
            assert_eq!(d.span.as_ref().unwrap().line, line, "{text}");
            c
        };
        let c = check(
            "a :: Counter;\nb :: (x);\nc :: Discard;",
            "E0520",
            2,
            "class name",
        );
        assert_eq!(
            c.declarations().len(),
            2,
            "recovered after the bad statement"
        );
        check("a :: Counter(\n", "E0520", 1, "unclosed");
        check("a -> b\n=> c;", "E0520", 2, "`=>`");
        check("a [x] -> b;", "E0520", 1, "port number");
        check("a :: Counter; %", "E0520", 1, "unexpected character");
        check("elementclass E { a -> b }", "N0601", 1, "verbatim");
    }
}
