//! The LLM backend (FlowMage §3.1): one prompt per NF made of a system goal,
//! the feature definitions, the answer format and the NF source; temperature
//! near zero; every answer validated against a JSON schema (malformed answers
//! are rejected and retried); a majority vote over `runs` answers; token and
//! cost accounting; a token-budget guard for very large NFs; and CCE, the
//! pairwise code-complexity comparison (FlowMage Appendix A).
//!
//! Speaks the OpenAI chat-completions protocol through async-openai, to any
//! compatible endpoint. Options come from the caller (no environment reads).

// Failures are returned as the Diagnostic the caller reports (with its
// fallback), so the Err variant is a full diagnostic by design.
#![allow(clippy::result_large_err)]

use async_openai::config::OpenAIConfig;
use async_openai::types::{
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessageArgs,
    ChatCompletionRequestUserMessageArgs, CreateChatCompletionRequestArgs,
};
use async_openai::Client;
use nfc_core::diag::Diagnostic;
use nfc_core::facts::{Facts, Field, Intensity};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::time::Duration;

/// How to reach the model and what it costs.
#[derive(Debug, Clone)]
pub struct LlmOptions {
    /// e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    pub model: String,
    pub api_key: String,
    /// Answers to vote over (FlowMage repeats each prompt 10 times).
    pub runs: u32,
    pub temperature: f32,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Refuse / shrink prompts above this estimate.
    pub max_prompt_tokens: u32,
    pub price_in_per_1k: f64,
    pub price_out_per_1k: f64,
}

impl Default for LlmOptions {
    fn default() -> Self {
        LlmOptions {
            base_url: "http://127.0.0.1:8080/v1".into(),
            model: "gpt-4-turbo".into(),
            api_key: String::new(),
            runs: 3,
            temperature: 0.001,
            timeout: Duration::from_secs(60),
            max_prompt_tokens: 32_000,
            price_in_per_1k: 0.01,
            price_out_per_1k: 0.03,
        }
    }
}

/// Tokens and money spent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LlmUsage {
    /// Requests that returned an answer (valid or not).
    pub runs: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: f64,
    /// Answers rejected by schema validation.
    pub rejected: u32,
}

impl LlmUsage {
    fn add(&mut self, p: u64, c: u64, o: &LlmOptions) {
        self.runs += 1;
        self.prompt_tokens += p;
        self.completion_tokens += c;
        self.cost_usd +=
            p as f64 / 1000.0 * o.price_in_per_1k + c as f64 / 1000.0 * o.price_out_per_1k;
    }
}

/// One validated answer.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmAnswer {
    pub stateful: bool,
    pub intensity: Intensity,
    pub flow_key: Vec<Field>,
    pub pointer_chasing: bool,
    pub symmetric: Option<bool>,
    /// Share of valid runs that agreed with the voted answer (0..1).
    pub agreement: f32,
}

pub const SYSTEM_PROMPT: &str = "Your task is to analyze C or C++ code of a network function (NF) provided by the user. \
For each network function, the user will ask: 1- if the NF is stateful, i.e. it keeps state per flow (entries keyed by \
packet header fields) across packets; global counters or statistics alone do not make an NF stateful; 2- how often the \
per-flow states are being updated: on every packet (per-packet), only when a flow is created or on rare events such as \
TCP SYN/FIN (per-flow), never on the packet path (read-only), or not at all because there is no per-flow state (none); \
3- the flow key of the NF: the packet header fields that key the per-flow state, a subset of src_ip, dst_ip, src_port, \
dst_port, proto, src_mac, dst_mac (for symmetric NFs list the fields of one direction; answer the narrowest key that \
locates every per-flow entry); 4- if the state is stored in irregular memory, i.e. per-flow lookups follow pointers or \
links (chained buckets, trees); 5- if the NF is symmetric: both directions of a connection must reach the same state.";

const FORMAT_PROMPT: &str = "Provide a JSON object containing a single key \"result\" whose value is an object with: \
1. a key \"statefulness\" with value \"stateful\" or \"stateless\"; 2. a key \"intensity\" with value \"per-packet\", \
\"per-flow\", \"read-only\" or \"none\"; 3. a key \"key\" with a list of field names from [\"src_ip\", \"dst_ip\", \
\"src_port\", \"dst_port\", \"proto\", \"src_mac\", \"dst_mac\"] (empty when stateless); 4. a key \"irregular\" with \
value true or false; 5. a key \"symmetric\" with value true or false. Answer with the JSON only.";

const CCE_SYSTEM: &str = "Your task is to analyze C or C++ code of two network functions provided by the user. The user \
will ask you to estimate which one of the two NFs requires more processing per packet.";

fn estimate_tokens(s: &str) -> u64 {
    (s.len() as u64).div_ceil(4)
}

/// Remove comments and blank lines (the cheapest way to save tokens).
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c as char);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1] as char);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
        } else if c == b'"' {
            in_str = true;
            out.push('"');
            i += 1;
        } else if c == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && i + 1 < b.len() && b[i + 1] == b'*' {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Build the user message for an NF within the token budget. Returns the
/// message and a note when the source had to be shrunk, or Err when even the
/// prompt frame does not fit.
pub fn build_user_prompt(
    sources: &[(String, String)],
    budget: u32,
) -> Result<(String, Option<String>), Diagnostic> {
    let frame = estimate_tokens(SYSTEM_PROMPT) + estimate_tokens(FORMAT_PROMPT) + 64;
    if frame >= budget as u64 {
        return Err(Diagnostic::warning(
            "A0303",
            format!("LLM token budget {budget} is smaller than the prompt frame (~{frame} tokens)"),
        )
        .with_hint("raise max_prompt_tokens; falling back to the static answer"));
    }
    let render = |files: &[(String, String)]| {
        let mut s =
            String::from("Here is the C or C++ code of the network function to analyze:\n\n");
        for (name, text) in files {
            s.push_str(&format!("// file: {name}\n{text}\n\n"));
        }
        s.push_str(FORMAT_PROMPT);
        s
    };
    let full = render(sources);
    if estimate_tokens(&full) + frame <= budget as u64 {
        return Ok((full, None));
    }
    let stripped: Vec<(String, String)> = sources
        .iter()
        .map(|(n, t)| (n.clone(), strip_comments(t)))
        .collect();
    let s2 = render(&stripped);
    if estimate_tokens(&s2) + frame <= budget as u64 {
        return Ok((s2, Some("comments removed to fit the token budget".into())));
    }
    // Truncate each file proportionally (keeps the head of every file: types and entry points).
    let avail_chars =
        ((budget as u64 - frame) * 4).saturating_sub(FORMAT_PROMPT.len() as u64 + 200) as usize;
    let total: usize = stripped.iter().map(|(_, t)| t.len()).sum::<usize>().max(1);
    let truncated: Vec<(String, String)> = stripped
        .iter()
        .map(|(n, t)| {
            let keep = (t.len() * avail_chars / total).min(t.len());
            let mut cut = keep;
            while cut > 0 && !t.is_char_boundary(cut) {
                cut -= 1;
            }
            (
                n.clone(),
                format!(
                    "{}\n/* ... truncated to fit the token budget ... */",
                    &t[..cut]
                ),
            )
        })
        .collect();
    Ok((
        render(&truncated),
        Some(format!(
            "source truncated to ~{avail_chars} characters to fit {budget} tokens"
        )),
    ))
}

/// The answer schema FORMAT_PROMPT asks for, as serde types: the JSON is
/// deserialised into these (a field that is missing or of the wrong type is
/// a serde error naming it), then checked for consistency.
mod schema {
    use nfc_core::facts::{Field, Intensity};
    use serde::Deserialize;

    /// `{"result": {...}}`, or the answer object itself.
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    pub enum Envelope {
        Wrapped { result: serde_json::Value },
        Bare(serde_json::Value),
    }

    #[derive(Debug, Deserialize)]
    pub struct Answer {
        pub statefulness: Statefulness,
        #[serde(deserialize_with = "intensity")]
        pub intensity: Intensity,
        #[serde(alias = "flow-key")]
        pub key: Vec<KeyItem>,
        pub irregular: YesNo,
        /// Optional; an unreadable value counts as not given.
        #[serde(default, deserialize_with = "lenient")]
        pub symmetric: Option<YesNo>,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
    #[serde(try_from = "String")]
    pub enum Statefulness {
        Stateful,
        Stateless,
    }

    impl TryFrom<String> for Statefulness {
        type Error = String;
        fn try_from(s: String) -> Result<Self, String> {
            match s.as_str() {
                "stateful" => Ok(Statefulness::Stateful),
                "stateless" => Ok(Statefulness::Stateless),
                other => Err(format!("statefulness `{other}` is not stateful|stateless")),
            }
        }
    }

    /// A boolean, also written as "true"/"yes"/"false"/"no" (any case).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
    #[serde(try_from = "serde_json::Value")]
    pub struct YesNo(pub bool);

    impl TryFrom<serde_json::Value> for YesNo {
        type Error = String;
        fn try_from(v: serde_json::Value) -> Result<Self, String> {
            match &v {
                serde_json::Value::Bool(b) => Ok(YesNo(*b)),
                serde_json::Value::String(s) => match s.to_ascii_lowercase().as_str() {
                    "true" | "yes" => Ok(YesNo(true)),
                    "false" | "no" => Ok(YesNo(false)),
                    _ => Err(format!("`{s}` is not a boolean")),
                },
                other => Err(format!("`{other}` is not a boolean")),
            }
        }
    }

    /// One flow-key item: a field name, `protocol` for proto, or `5-tuple`.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(try_from = "String")]
    pub struct KeyItem(pub Vec<Field>);

    impl TryFrom<String> for KeyItem {
        type Error = String;
        fn try_from(s: String) -> Result<Self, String> {
            Ok(KeyItem(match s.as_str() {
                "protocol" => vec![Field::Proto],
                "5-tuple" => Field::FIVE_TUPLE.to_vec(),
                other => vec![other.parse()?],
            }))
        }
    }

    fn intensity<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Intensity, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }

    fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<YesNo>, D::Error> {
        Ok(YesNo::try_from(serde_json::Value::deserialize(d)?).ok())
    }
}

/// Validate one answer against the schema; Err says why it was rejected.
pub fn validate_answer(content: &str) -> Result<LlmAnswer, String> {
    let trimmed = content
        .trim()
        .trim_start_matches("```json")
        .trim_start_matches("```")
        .trim_end_matches("```")
        .trim();
    let envelope: schema::Envelope =
        serde_json::from_str(trimmed).map_err(|e| format!("not JSON: {e}"))?;
    let (schema::Envelope::Wrapped { result: v } | schema::Envelope::Bare(v)) = envelope;
    let a: schema::Answer =
        serde_json::from_value(v).map_err(|e| format!("answer does not fit the schema: {e}"))?;
    let stateful = a.statefulness == schema::Statefulness::Stateful;
    let mut flow_key: Vec<Field> = a.key.into_iter().flat_map(|k| k.0).collect();
    flow_key.sort();
    flow_key.dedup();
    if !stateful && (!flow_key.is_empty() || a.intensity != Intensity::None) {
        return Err("a stateless answer must have an empty key and intensity none".into());
    }
    if stateful && flow_key.is_empty() {
        return Err("a stateful answer needs a non-empty key".into());
    }
    Ok(LlmAnswer {
        stateful,
        intensity: a.intensity,
        flow_key,
        pointer_chasing: a.irregular.0,
        symmetric: a.symmetric.map(|y| y.0),
        agreement: 1.0,
    })
}

fn majority<T: Ord + Clone>(xs: impl Iterator<Item = T>) -> Option<(T, usize)> {
    let mut m: BTreeMap<T, usize> = BTreeMap::new();
    for x in xs {
        *m.entry(x).or_default() += 1;
    }
    // Ties go to the smallest value (deterministic; for keys: the narrower-sorted one).
    let best = m.values().copied().max()?;
    m.into_iter().find(|(_, c)| *c == best)
}

/// Vote over valid answers.
pub fn vote(answers: &[LlmAnswer]) -> Option<LlmAnswer> {
    if answers.is_empty() {
        return None;
    }
    let n = answers.len();
    let (stateful, c1) = majority(answers.iter().map(|a| a.stateful))?;
    let agreeing: Vec<&LlmAnswer> = answers.iter().filter(|a| a.stateful == stateful).collect();
    let (intensity, c2) = majority(agreeing.iter().map(|a| a.intensity))?;
    let (flow_key, c3) = majority(agreeing.iter().map(|a| a.flow_key.clone()))?;
    let (pointer_chasing, c4) = majority(agreeing.iter().map(|a| a.pointer_chasing))?;
    let symmetric = majority(agreeing.iter().filter_map(|a| a.symmetric)).map(|x| x.0);
    let agreement = [c1, c2, c3, c4]
        .iter()
        .map(|c| *c as f32 / n as f32)
        .fold(1.0, f32::min);
    Some(LlmAnswer {
        stateful,
        intensity,
        flow_key,
        pointer_chasing,
        symmetric,
        agreement,
    })
}

fn client(o: &LlmOptions) -> Client<OpenAIConfig> {
    let cfg = OpenAIConfig::new()
        .with_api_base(o.base_url.trim_end_matches('/'))
        .with_api_key(o.api_key.clone());
    let http = reqwest::Client::builder()
        .timeout(o.timeout)
        .connect_timeout(o.timeout)
        .build()
        .unwrap_or_default();
    let backoff = backoff::ExponentialBackoff {
        max_elapsed_time: Some(o.timeout),
        initial_interval: Duration::from_millis(200),
        ..Default::default()
    };
    Client::with_config(cfg)
        .with_http_client(http)
        .with_backoff(backoff)
}

/// One chat request; returns (content, prompt tokens, completion tokens).
async fn ask(
    c: &Client<OpenAIConfig>,
    o: &LlmOptions,
    system: &str,
    user: &str,
) -> Result<(String, u64, u64), String> {
    let messages: Vec<ChatCompletionRequestMessage> = vec![
        ChatCompletionRequestSystemMessageArgs::default()
            .content(system)
            .build()
            .map_err(|e| e.to_string())?
            .into(),
        ChatCompletionRequestUserMessageArgs::default()
            .content(user)
            .build()
            .map_err(|e| e.to_string())?
            .into(),
    ];
    let req = CreateChatCompletionRequestArgs::default()
        .model(o.model.clone())
        .temperature(o.temperature)
        .messages(messages)
        .build()
        .map_err(|e| e.to_string())?;
    let chat = c.chat();
    let fut = chat.create(req);
    let resp = match tokio::time::timeout(o.timeout, fut).await {
        Ok(r) => r.map_err(|e| e.to_string())?,
        Err(_) => return Err(format!("no answer within {:?}", o.timeout)),
    };
    let content = resp
        .choices
        .first()
        .and_then(|ch| ch.message.content.clone())
        .unwrap_or_default();
    let (p, cpl) = resp
        .usage
        .map(|u| (u.prompt_tokens as u64, u.completion_tokens as u64))
        .unwrap_or((
            estimate_tokens(system) + estimate_tokens(user),
            estimate_tokens(&content),
        ));
    Ok((content, p, cpl))
}

/// Run an async block to completion from sync code, also when called from
/// inside a tokio runtime (then on a scoped helper thread).
fn block_on<F: std::future::Future + Send>(f: F) -> Result<F::Output, String>
where
    F::Output: Send,
{
    let run = |f: F| -> Result<F::Output, String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        Ok(rt.block_on(f))
    };
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| {
            s.spawn(|| run(f))
                .join()
                .map_err(|_| "LLM worker thread failed".to_string())?
        })
    } else {
        run(f)
    }
}

/// Ask the model `runs` times (retrying malformed answers twice per run),
/// validate and vote. Err is a diagnostic explaining why no answer exists;
/// the caller falls back to the static answer.
pub fn analyze_llm(
    name: &str,
    sources: &[(String, String)],
    _static_facts: &Facts,
    o: &LlmOptions,
) -> Result<(LlmAnswer, LlmUsage, Vec<Diagnostic>), Diagnostic> {
    let (user, note) = build_user_prompt(sources, o.max_prompt_tokens)?;
    let mut diags = vec![];
    if let Some(n) = note {
        diags.push(Diagnostic::note_diag(
            "A0304",
            format!("LLM prompt for `{name}`: {n}"),
        ));
    }
    let runs = o.runs.max(1);
    let out = block_on(async {
        let c = client(o);
        let mut usage = LlmUsage::default();
        let mut answers = vec![];
        let mut errors: Vec<String> = vec![];
        'runs: for _ in 0..runs {
            for _attempt in 0..3 {
                match ask(&c, o, SYSTEM_PROMPT, &user).await {
                    Ok((content, p, cpl)) => {
                        usage.add(p, cpl, o);
                        match validate_answer(&content) {
                            Ok(a) => {
                                answers.push(a);
                                continue 'runs;
                            }
                            Err(why) => {
                                usage.rejected += 1;
                                errors.push(format!("rejected answer: {why}"));
                            }
                        }
                    }
                    Err(e) => {
                        errors.push(e);
                        // Transport failures are not retried per run: the endpoint is down or slow.
                        break 'runs;
                    }
                }
            }
        }
        (answers, usage, errors)
    })
    .map_err(|e| Diagnostic::warning("A0302", format!("LLM backend failed for `{name}`: {e}")))?;
    let (answers, usage, errors) = out;
    if usage.rejected > 0 {
        diags.push(
            Diagnostic::note_diag(
                "A0305",
                format!(
                    "{} malformed LLM answer(s) rejected for `{name}`",
                    usage.rejected
                ),
            )
            .with_note(errors.first().cloned().unwrap_or_default()),
        );
    }
    match vote(&answers) {
        Some(a) => Ok((a, usage, diags)),
        None => Err(Diagnostic::warning(
            "A0302",
            format!("LLM backend gave no valid answer for `{name}` ({})", errors.last().cloned().unwrap_or_else(|| "no runs".into())),
        )
        .with_note(format!("endpoint {} model {}; {} request(s), {} rejected", o.base_url, o.model, usage.runs, usage.rejected))
        .with_hint("check the endpoint URL and that it speaks the OpenAI chat-completions protocol; the static answer is used")),
    }
}

/// CCE (FlowMage Appendix A): which of two NFs needs more processing per
/// packet? `Ordering::Greater` means `a` is the more complex one.
pub fn compare_complexity(
    a: (&str, &[(String, String)]),
    b: (&str, &[(String, String)]),
    o: &LlmOptions,
) -> Result<(Ordering, LlmUsage), Diagnostic> {
    let mut user =
        String::from("Here is the C or C++ code of the network functions to analyze:\n\n");
    for (name, files) in [a, b] {
        user.push_str(&format!("// network function: {name}\n"));
        for (f, t) in files {
            user.push_str(&format!("// file: {f}\n{}\n\n", strip_comments(t)));
        }
    }
    user.push_str(&format!(
        "Provide a JSON containing a single key 'result' whose value is an object with a key 'complexity' that contains the \
name of the NF that requires more processing per packet: \"{}\" or \"{}\".",
        a.0, b.0
    ));
    if estimate_tokens(&user) + estimate_tokens(CCE_SYSTEM) > o.max_prompt_tokens as u64 {
        return Err(Diagnostic::warning(
            "A0303",
            format!(
                "CCE prompt for `{}` vs `{}` exceeds the token budget",
                a.0, b.0
            ),
        )
        .with_hint("FlowMage disables CCE in this case and treats both NFs as equally complex"));
    }
    let (an, bn) = (a.0.to_string(), b.0.to_string());
    let res = block_on(async {
        let c = client(o);
        let mut usage = LlmUsage::default();
        let mut votes: BTreeMap<Ordering, u32> = BTreeMap::new();
        let mut last_err = String::new();
        for _ in 0..o.runs.max(1) {
            match ask(&c, o, CCE_SYSTEM, &user).await {
                Ok((content, p, cpl)) => {
                    usage.add(p, cpl, o);
                    let v: Option<serde_json::Value> = serde_json::from_str(
                        content
                            .trim()
                            .trim_start_matches("```json")
                            .trim_end_matches("```")
                            .trim(),
                    )
                    .ok();
                    let name = v.as_ref().and_then(|v| {
                        v.get("result")
                            .unwrap_or(v)
                            .get("complexity")
                            .and_then(|c| c.as_str().map(str::to_string))
                    });
                    match name {
                        Some(n) if n == an => *votes.entry(Ordering::Greater).or_default() += 1,
                        Some(n) if n == bn => *votes.entry(Ordering::Less).or_default() += 1,
                        _ => {
                            usage.rejected += 1;
                            last_err = format!("answer does not name `{an}` or `{bn}`");
                        }
                    }
                }
                Err(e) => {
                    last_err = e;
                    break;
                }
            }
        }
        (votes, usage, last_err)
    })
    .map_err(|e| Diagnostic::warning("A0302", format!("CCE failed: {e}")))?;
    let (votes, usage, last_err) = res;
    let g = votes.get(&Ordering::Greater).copied().unwrap_or(0);
    let l = votes.get(&Ordering::Less).copied().unwrap_or(0);
    if g == 0 && l == 0 {
        return Err(Diagnostic::warning(
            "A0302",
            format!("CCE gave no valid answer: {last_err}"),
        ));
    }
    Ok((g.cmp(&l), usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(content: &str, expect: Result<(&[Field], Intensity, bool), &str>) {
        match (validate_answer(content), expect) {
            (Ok(a), Ok((k, i, p))) => {
                assert_eq!(a.flow_key, k);
                assert_eq!(a.intensity, i);
                assert_eq!(a.pointer_chasing, p);
            }
            (Err(e), Err(want)) => assert!(e.contains(want), "{e} does not mention {want}"),
            (got, want) => panic!("got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn schema_accepts_flowmage_answers() {
        check(
            r#"{"result": {"statefulness": "stateful", "intensity": "per-packet", "key": ["src_ip","dst_ip","src_port","dst_port","protocol"], "irregular": "false"}}"#,
            Ok((&Field::FIVE_TUPLE, Intensity::PerPacket, false)),
        );
        check("```json\n{\"statefulness\":\"stateless\",\"intensity\":\"none\",\"key\":[],\"irregular\":false}\n```", Ok((&[], Intensity::None, false)));
    }

    #[test]
    fn schema_rejects_malformed_answers() {
        check("I think it is stateful", Err("not JSON"));
        check(
            r#"{"statefulness":"maybe","intensity":"none","key":[],"irregular":false}"#,
            Err("statefulness"),
        );
        check(
            r#"{"statefulness":"stateful","intensity":"often","key":["src_ip"],"irregular":false}"#,
            Err("intensity"),
        );
        check(
            r#"{"statefulness":"stateful","intensity":"per-packet","key":["vlan"],"irregular":false}"#,
            Err("unknown field"),
        );
        check(
            r#"{"statefulness":"stateful","intensity":"per-packet","key":[],"irregular":false}"#,
            Err("non-empty key"),
        );
        check(
            r#"{"statefulness":"stateful","intensity":"per-packet","key":["src_ip"]}"#,
            Err("irregular"),
        );
    }

    #[test]
    fn vote_takes_the_majority() {
        let a = |k: &[Field]| LlmAnswer {
            stateful: true,
            intensity: Intensity::PerPacket,
            flow_key: k.to_vec(),
            pointer_chasing: false,
            symmetric: None,
            agreement: 1.0,
        };
        let v = vote(&[
            a(&[Field::SrcIp]),
            a(&[Field::SrcIp, Field::SrcPort]),
            a(&[Field::SrcIp]),
        ])
        .unwrap();
        assert_eq!(v.flow_key, vec![Field::SrcIp]);
        assert!((v.agreement - 2.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn budget_guard_shrinks_or_refuses() {
        let big = (
            "big.c".to_string(),
            format!("/* comment */\n{}", "int x = 1;\n".repeat(20_000)),
        );
        let (p, note) = build_user_prompt(std::slice::from_ref(&big), 4_000).unwrap();
        assert!(estimate_tokens(&p) <= 4_000, "{}", estimate_tokens(&p));
        assert!(note.unwrap().contains("truncated"));
        assert_eq!(build_user_prompt(&[big], 100).unwrap_err().code, "A0303");
    }
}
