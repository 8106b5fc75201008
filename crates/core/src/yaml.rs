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
