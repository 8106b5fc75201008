//! A YAML tree that remembers where every node came from.
//!
//! serde-based YAML loading loses locations and stops at the first error; the
//! chain validator needs the line and column of every key and value to point
//! at mistakes, and wants to report all of them. So we build our own small
//! tree from yaml-rust2's marked event stream. Anchors and aliases are
//! resolved by copying, with a node budget so alias bombs cannot blow up
//! memory.

use crate::diag::{Diagnostic, Span};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Maximum nodes a document may expand to (after aliases).
const NODE_BUDGET: usize = 200_000;
/// Maximum nesting depth.
const MAX_DEPTH: usize = 64;

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// A scalar and whether it was quoted (quoted scalars are always strings).
    Scalar {
        value: String,
        quoted: bool,
    },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// A YAML node with its 1-based position.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub line: u32,
    pub col: u32,
}

impl Node {
    /// Human name of the node's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            NodeKind::Scalar { value, quoted } if !quoted && is_null(value) => "null",
            NodeKind::Scalar { .. } => "scalar",
            NodeKind::Seq(_) => "list",
            NodeKind::Map(_) => "mapping",
        }
    }

    pub fn as_scalar(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar { value, .. } => Some(value),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.kind {
            NodeKind::Map(items) => Some(items),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(&self.kind, NodeKind::Scalar { value, quoted: false } if is_null(value))
    }

    /// Look up a key of a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_scalar() == Some(key))
            .map(|(_, v)| v)
    }

    pub fn span(&self, file: &str) -> Span {
        Span::point(file, self.line, self.col)
    }
}

fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

enum Frame {
    Seq(Vec<Node>, Marker, usize),
    Map(Vec<(Node, Node)>, Option<Node>, Marker, usize),
}

struct Builder {
    stack: Vec<Frame>,
    anchors: Vec<(usize, Node)>,
    root: Option<Node>,
    nodes: usize,
    error: Option<(String, u32, u32)>,
    documents: usize,
}

fn count_nodes(n: &Node) -> usize {
    match &n.kind {
        NodeKind::Scalar { .. } => 1,
        NodeKind::Seq(items) => 1 + items.iter().map(count_nodes).sum::<usize>(),
        NodeKind::Map(items) => {
            1 + items
                .iter()
                .map(|(k, v)| count_nodes(k) + count_nodes(v))
                .sum::<usize>()
        }
    }
}

impl Builder {
    fn push_node(&mut self, node: Node, anchor: usize) {
        if self.error.is_some() {
            return;
        }
        self.nodes += count_nodes(&node);
        if self.nodes > NODE_BUDGET {
            self.error = Some((
                format!("document expands to more than {NODE_BUDGET} nodes (alias bomb?)"),
                node.line,
                node.col,
            ));
            return;
        }
        if anchor > 0 {
            self.anchors.push((anchor, node.clone()));
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq(items, _, _)) => items.push(node),
            Some(Frame::Map(items, pending, _, _)) => match pending.take() {
                None => *pending = Some(node),
                Some(key) => items.push((key, node)),
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        let line = mark.line() as u32;
        let col = mark.col() as u32 + 1;
        match ev {
            Event::DocumentStart => {
                self.documents += 1;
            }
            Event::Scalar(value, style, anchor, _tag) => {
                let quoted = !matches!(style, TScalarStyle::Plain);
                self.push_node(
                    Node {
                        kind: NodeKind::Scalar { value, quoted },
                        line,
                        col,
                    },
                    anchor,
                );
            }
            Event::SequenceStart(anchor, _) => {
                if self.stack.len() >= MAX_DEPTH {
                    self.error =
                        Some((format!("nesting deeper than {MAX_DEPTH} levels"), line, col));
                    return;
                }
                self.stack.push(Frame::Seq(vec![], mark, anchor));
            }
            Event::MappingStart(anchor, _) => {
                if self.stack.len() >= MAX_DEPTH {
                    self.error =
                        Some((format!("nesting deeper than {MAX_DEPTH} levels"), line, col));
                    return;
                }
                self.stack.push(Frame::Map(vec![], None, mark, anchor));
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq(items, m, anchor)) = self.stack.pop() {
                    let node = Node {
                        kind: NodeKind::Seq(items),
                        line: m.line() as u32,
                        col: m.col() as u32 + 1,
                    };
                    self.push_node(node, anchor);
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map(items, _, m, anchor)) = self.stack.pop() {
                    // yaml-rust2 marks a block mapping where its first value starts;
                    // its first key is where a reader sees the mapping begin.
                    let (ml, mc) = (m.line() as u32, m.col() as u32 + 1);
                    let (line, col) = match items.first() {
                        Some((k, _)) if (k.line, k.col) < (ml, mc) => (k.line, k.col),
                        _ => (ml, mc),
                    };
                    let node = Node {
                        kind: NodeKind::Map(items),
                        line,
                        col,
                    };
                    self.push_node(node, anchor);
                }
            }
            Event::Alias(id) => match self.anchors.iter().rev().find(|(a, _)| *a == id) {
                Some((_, node)) => {
                    let mut copy = node.clone();
                    copy.line = line;
                    copy.col = col;
                    self.push_node(copy, 0);
                }
                None => self.error = Some(("alias refers to an unknown anchor".into(), line, col)),
            },
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
    }
}

/// Parse one YAML document. Errors carry the file, line and column.
// One diagnostic per parse and a cold error path: boxing it would only add
// noise at every call site.
#[allow(clippy::result_large_err)]
pub fn parse(text: &str, file: &str) -> Result<Node, Diagnostic> {
    let mut builder = Builder {
        stack: vec![],
        anchors: vec![],
        root: None,
        nodes: 0,
        error: None,
        documents: 0,
    };
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, true) {
        let m = e.marker();
        return Err(
            Diagnostic::error("E0001", format!("invalid YAML: {}", e.info()))
                .with_span(Span::point(file, m.line() as u32, m.col() as u32 + 1))
                .with_hint("check indentation, colons after keys, and matching quotes/brackets"),
        );
    }
    if let Some((msg, line, col)) = builder.error {
        return Err(Diagnostic::error("E0001", format!("invalid YAML: {msg}"))
            .with_span(Span::point(file, line, col)));
    }
    if builder.documents > 1 {
        return Err(
            Diagnostic::error("E0001", "expected one YAML document, found several")
                .with_span(Span::file_only(file))
                .with_hint("remove the extra `---` separators"),
        );
    }
    match builder.root {
        Some(root) => Ok(root),
        None => Err(Diagnostic::error("E0002", "the file is empty")
            .with_span(Span::file_only(file))
            .with_hint("a chain needs at least `nfs:` and a topology; see docs/chain-format.md")),
    }
}

/// Why a YAML document did not fit the type it was read into, and where:
/// the 1-based line and column of the innermost node the problem was found
/// at (0 when it concerns the document as a whole).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DeError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl serde::de::Error for DeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        DeError {
            line: 0,
            col: 0,
            message: msg.to_string(),
        }
    }
}

impl DeError {
    /// Locate the error at `n` unless an inner node already did.
    fn at(mut self, n: &Node) -> Self {
        if self.line == 0 {
            self.line = n.line;
            self.col = n.col;
        }
        self
    }

    /// The error as a diagnostic with `code`, located in `file`.
    pub fn diagnostic(&self, code: &str, file: &str) -> Diagnostic {
        let span = if self.line == 0 {
            Span::file_only(file)
        } else {
            Span::point(file, self.line, self.col)
        };
        Diagnostic::error(code, self.message.clone()).with_span(span)
    }
}

/// Parse one YAML document into any `T: Deserialize`, keeping locations:
/// a syntax error is the parser's diagnostic (E0001/E0002); a document that
/// does not fit `T` is a [`DeError`] at the node where it stopped fitting.
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str, file: &str) -> Result<T, FromStrError> {
    let root = parse(text, file).map_err(|d| FromStrError::Syntax(Box::new(d)))?;
    from_node(&root).map_err(FromStrError::Shape)
}

/// Deserialise a located tree into `T`.
pub fn from_node<T: serde::de::DeserializeOwned>(n: &Node) -> Result<T, DeError> {
    T::deserialize(n)
}

/// Why [`from_str`] failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FromStrError {
    /// Not YAML (or empty, or several documents).
    #[error("{}", .0.message)]
    Syntax(Box<Diagnostic>),
    /// YAML, but not of the expected shape.
    #[error("{0}")]
    Shape(DeError),
}

impl FromStrError {
    /// Line and column (0, 0 when unknown).
    pub fn location(&self) -> (u32, u32) {
        match self {
            FromStrError::Syntax(d) => d.span.as_ref().map_or((0, 0), |s| (s.line, s.col)),
            FromStrError::Shape(e) => (e.line, e.col),
        }
    }
}

mod de {
    use super::{is_null, DeError, Node, NodeKind};
    use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
    use serde::forward_to_deserialize_any;

    fn scalar<'a>(n: &'a Node, what: &str) -> Result<&'a str, DeError> {
        n.as_scalar()
            .ok_or_else(|| de::Error::custom(format!("expected {what}, found a {}", n.type_name())))
    }

    fn plain_bool(s: &str) -> Option<bool> {
        match s {
            "true" | "True" | "TRUE" => Some(true),
            "false" | "False" | "FALSE" => Some(false),
            _ => None,
        }
    }

    fn int(s: &str) -> Option<i128> {
        let (neg, digits) = match s.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let v = if let Some(h) = digits.strip_prefix("0x") {
            i128::from_str_radix(h, 16).ok()?
        } else if let Some(o) = digits.strip_prefix("0o") {
            i128::from_str_radix(o, 8).ok()?
        } else if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            digits.parse().ok()?
        } else {
            return None;
        };
        Some(if neg { -v } else { v })
    }

    fn float(s: &str) -> Option<f64> {
        match s {
            ".inf" | ".Inf" | ".INF" | "+.inf" => Some(f64::INFINITY),
            "-.inf" | "-.Inf" | "-.INF" => Some(f64::NEG_INFINITY),
            ".nan" | ".NaN" | ".NAN" => Some(f64::NAN),
            _ if s.bytes().any(|b| b.is_ascii_digit())
                && s.bytes()
                    .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)) =>
            {
                s.parse().ok()
            }
            _ => None,
        }
    }

    macro_rules! number {
        ($name:ident, $visit:ident, $t:ty) => {
            fn $name<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
                let s = scalar(self, stringify!($t))?;
                let n = int(s)
                    .and_then(|i| <$t>::try_from(i).ok())
                    .ok_or_else(|| {
                        de::Error::custom(format!("`{s}` is not a valid {}", stringify!($t)))
                    })
                    .map_err(|e: DeError| e.at(self))?;
                v.$visit(n).map_err(|e: DeError| e.at(self))
            }
        };
    }

    impl<'de> de::Deserializer<'de> for &'de Node {
        type Error = DeError;

        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            let r = match &self.kind {
                NodeKind::Scalar {
                    value,
                    quoted: true,
                } => v.visit_str(value),
                NodeKind::Scalar { value, .. } if is_null(value) => v.visit_unit(),
                NodeKind::Scalar { value, .. } => {
                    if let Some(b) = plain_bool(value) {
                        v.visit_bool(b)
                    } else if let Some(i) = int(value) {
                        match (u64::try_from(i), i64::try_from(i)) {
                            (Ok(u), _) => v.visit_u64(u),
                            (_, Ok(i)) => v.visit_i64(i),
                            _ => v.visit_str(value),
                        }
                    } else if let Some(f) = float(value) {
                        v.visit_f64(f)
                    } else {
                        v.visit_str(value)
                    }
                }
                NodeKind::Seq(items) => v.visit_seq(Seq(items.iter())),
                NodeKind::Map(items) => v.visit_map(Map {
                    items: items.iter(),
                    value: None,
                }),
            };
            r.map_err(|e: DeError| e.at(self))
        }

        fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            let s = scalar(self, "a boolean").map_err(|e: DeError| e.at(self))?;
            match plain_bool(s) {
                Some(b) => v.visit_bool(b).map_err(|e: DeError| e.at(self)),
                None => Err(DeError::custom_at(
                    self,
                    format!("expected true or false, found `{s}`"),
                )),
            }
        }

        number!(deserialize_u8, visit_u8, u8);
        number!(deserialize_u16, visit_u16, u16);
        number!(deserialize_u32, visit_u32, u32);
        number!(deserialize_u64, visit_u64, u64);
        number!(deserialize_i8, visit_i8, i8);
        number!(deserialize_i16, visit_i16, i16);
        number!(deserialize_i32, visit_i32, i32);
        number!(deserialize_i64, visit_i64, i64);

        fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            let s = scalar(self, "a number").map_err(|e: DeError| e.at(self))?;
            match float(s).or_else(|| int(s).map(|i| i as f64)) {
                Some(f) => v.visit_f64(f).map_err(|e: DeError| e.at(self)),
                None => Err(DeError::custom_at(self, format!("`{s}` is not a number"))),
            }
        }

        fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            self.deserialize_f64(v)
        }

        fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            match &self.kind {
                NodeKind::Scalar { value, .. } => {
                    v.visit_str(value).map_err(|e: DeError| e.at(self))
                }
                _ => self.deserialize_any(v),
            }
        }

        fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            self.deserialize_str(v)
        }

        fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            self.deserialize_str(v)
        }

        fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            if self.is_null() {
                v.visit_none()
            } else {
                v.visit_some(self)
            }
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            v: V,
        ) -> Result<V::Value, DeError> {
            v.visit_newtype_struct(self)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _name: &'static str,
            _variants: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, DeError> {
            let r = match &self.kind {
                NodeKind::Scalar { value, .. } => v.visit_enum(value.as_str().into_deserializer()),
                NodeKind::Map(items) if items.len() == 1 => v.visit_enum(Enum(&items[0])),
                _ => Err(de::Error::custom(format!(
                    "expected a variant name or a one-entry mapping, found a {}",
                    self.type_name()
                ))),
            };
            r.map_err(|e: DeError| e.at(self))
        }

        fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            v.visit_unit()
        }

        forward_to_deserialize_any! {
            i128 u128 char bytes byte_buf unit unit_struct seq tuple
            tuple_struct map struct
        }
    }

    impl DeError {
        fn custom_at(n: &Node, message: String) -> DeError {
            DeError {
                line: n.line,
                col: n.col,
                message,
            }
        }
    }

    struct Seq<'de>(std::slice::Iter<'de, Node>);

    impl<'de> de::SeqAccess<'de> for Seq<'de> {
        type Error = DeError;
        fn next_element_seed<T: DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>, DeError> {
            self.0
                .next()
                .map(|n| seed.deserialize(n).map_err(|e| e.at(n)))
                .transpose()
        }
    }

    struct Map<'de> {
        items: std::slice::Iter<'de, (Node, Node)>,
        value: Option<&'de Node>,
    }

    impl<'de> de::MapAccess<'de> for Map<'de> {
        type Error = DeError;
        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, DeError> {
            match self.items.next() {
                Some((k, v)) => {
                    self.value = Some(v);
                    seed.deserialize(k).map(Some).map_err(|e| e.at(k))
                }
                None => Ok(None),
            }
        }
        fn next_value_seed<V: DeserializeSeed<'de>>(
            &mut self,
            seed: V,
        ) -> Result<V::Value, DeError> {
            let v = self
                .value
                .take()
                .ok_or_else(|| <DeError as de::Error>::custom("value without a key"))?;
            seed.deserialize(v).map_err(|e| e.at(v))
        }
    }

    struct Enum<'de>(&'de (Node, Node));

    impl<'de> de::EnumAccess<'de> for Enum<'de> {
        type Error = DeError;
        type Variant = &'de Node;
        fn variant_seed<V: DeserializeSeed<'de>>(
            self,
            seed: V,
        ) -> Result<(V::Value, &'de Node), DeError> {
            let (k, v) = self.0;
            Ok((seed.deserialize(k).map_err(|e| e.at(k))?, v))
        }
    }

    impl<'de> de::VariantAccess<'de> for &'de Node {
        type Error = DeError;
        fn unit_variant(self) -> Result<(), DeError> {
            if self.is_null() {
                Ok(())
            } else {
                Err(DeError::custom_at(
                    self,
                    "expected no value for a unit variant".into(),
                ))
            }
        }
        fn newtype_variant_seed<T: DeserializeSeed<'de>>(
            self,
            seed: T,
        ) -> Result<T::Value, DeError> {
            seed.deserialize(self)
        }
        fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, DeError> {
            de::Deserializer::deserialize_any(self, v)
        }
        fn struct_variant<V: Visitor<'de>>(
            self,
            _fields: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, DeError> {
            de::Deserializer::deserialize_any(self, v)
        }
    }
}

/// A YAML text of `value` (through its JSON form; mappings keep their key
/// order), written by yaml-rust2's emitter.
pub fn to_string<T: serde::Serialize>(value: &T) -> Result<String, String> {
    fn conv(v: &serde_json::Value) -> yaml_rust2::Yaml {
        use yaml_rust2::Yaml;
        match v {
            serde_json::Value::Null => Yaml::Null,
            serde_json::Value::Bool(b) => Yaml::Boolean(*b),
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Yaml::Integer(i),
                (None, Some(u)) => Yaml::Real(u.to_string()),
                _ => Yaml::Real(n.to_string()),
            },
            serde_json::Value::String(s) => Yaml::String(s.clone()),
            serde_json::Value::Array(a) => Yaml::Array(a.iter().map(conv).collect()),
            serde_json::Value::Object(o) => Yaml::Hash(
                o.iter()
                    .map(|(k, v)| (Yaml::String(k.clone()), conv(v)))
                    .collect(),
            ),
        }
    }
    let json = serde_json::to_value(value).map_err(|e| e.to_string())?;
    let mut out = String::new();
    yaml_rust2::YamlEmitter::new(&mut out)
        .dump(&conv(&json))
        .map_err(|e| e.to_string())?;
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based() {
        let n = parse("a: 1\nb:\n  - x\n", "f.yaml").unwrap();
        let b = n.get("b").unwrap();
        assert_eq!(b.as_seq().unwrap()[0].line, 3);
        assert_eq!(b.as_seq().unwrap()[0].col, 5);
        let (k, _) = &n.as_map().unwrap()[1];
        assert_eq!((k.line, k.col), (2, 1));
    }

    #[test]
    fn syntax_errors_have_a_location() {
        let d = parse("a: [1, 2\nb: 3\n", "f.yaml").unwrap_err();
        assert_eq!(d.code, "E0001");
        assert!(d.span.unwrap().line >= 1);
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let p = i - 1;
            text.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        let d = parse(&text, "bomb.yaml").unwrap_err();
        assert!(d.message.contains("alias bomb"), "{}", d.message);
    }

    #[test]
    fn typed_reading_keeps_locations() {
        #[derive(Debug, serde::Deserialize, PartialEq)]
        #[serde(deny_unknown_fields)]
        struct T {
            name: String,
            port: u16,
            ratio: f64,
            on: bool,
            tags: Vec<String>,
            maybe: Option<u32>,
            kind: K,
        }
        #[derive(Debug, serde::Deserialize, PartialEq)]
        #[serde(rename_all = "lowercase")]
        enum K {
            Plain,
            Sized(u32),
        }
        let t: T = from_str(
            "name: '80'\nport: 80\nratio: 1\non: true\ntags: [a, 1]\nmaybe: ~\nkind: {sized: 3}\n",
            "f",
        )
        .unwrap();
        assert_eq!(t.name, "80");
        assert_eq!(t.tags, vec!["a", "1"]);
        assert_eq!(t.kind, K::Sized(3));
        assert_eq!(t.maybe, None);
        let e = from_str::<T>("name: x\nport: 70000\n", "f").unwrap_err();
        assert_eq!(e.location(), (2, 7), "{e}");
        assert!(e.to_string().contains("u16"), "{e}");
        let e = from_str::<T>("name: x\nprot: 1\n", "f").unwrap_err();
        assert_eq!(e.location(), (2, 1), "{e}");
        assert!(e.to_string().contains("unknown field `prot`"), "{e}");
        let e = from_str::<T>(
            "name: x\nport: 1\nratio: 1\non: true\ntags: []\nkind: plain\n",
            "f",
        );
        assert!(e.is_ok(), "{e:?}");
        let e = from_str::<T>("name: x\nport: 1\n", "f").unwrap_err();
        assert!(e.to_string().contains("missing field"), "{e}");
        assert_eq!(e.location(), (1, 1));
    }

    #[test]
    fn written_yaml_reads_back() {
        let v = serde_json::json!({"b": [1, "x", {"c": null}], "a": true, "s": "80"});
        let text = to_string(&v).unwrap();
        let back: serde_json::Value = from_str(&text, "f").unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn quoted_scalars_are_marked() {
        let n = parse("a: '1'\nb: 1\n", "f").unwrap();
        assert!(matches!(
            n.get("a").unwrap().kind,
            NodeKind::Scalar { quoted: true, .. }
        ));
        assert!(matches!(
            n.get("b").unwrap().kind,
            NodeKind::Scalar { quoted: false, .. }
        ));
    }
}
