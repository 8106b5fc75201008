//! The LLM backend end to end against a real HTTP/1.1 server on loopback
//! that speaks the chat-completions protocol with recorded answers: voting
//! and token accounting, malformed answers (rejected and retried), the
//! FlowMage §5 guard against broader keys, timeouts and an unreachable
//! endpoint (clear diagnostic, static fallback, nothing lost), and CCE.

use nfc_analyzer::{
    analyze, compare_complexity, input_from_paths, AnalyzeOptions, BackendChoice, LlmOptions,
};
use nfc_core::facts::{Backend, Field};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What the fake endpoint does with the next request.
#[derive(Clone)]
enum Script {
    Reply(String),
    /// Read the request and never answer.
    Hang,
}

struct Server {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
    _thread: std::thread::JoinHandle<()>,
}

fn completion(content: &str) -> String {
    serde_json::json!({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "recorded",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop", "logprobs": null}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    })
    .to_string()
}

async fn serve_conn(
    mut sock: tokio::net::TcpStream,
    script: Arc<Mutex<VecDeque<Script>>>,
    requests: Arc<Mutex<Vec<String>>>,
) {
    let mut buf: Vec<u8> = vec![];
    loop {
        // Read one request: headers, then Content-Length bytes of body.
        let header_end = loop {
            if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break p + 4;
            }
            let mut chunk = [0u8; 4096];
            match sock.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..header_end]).to_ascii_lowercase();
        let len: usize = head
            .lines()
            .find_map(|l| {
                l.strip_prefix("content-length:")
                    .map(|v| v.trim().parse().unwrap_or(0))
            })
            .unwrap_or(0);
        while buf.len() < header_end + len {
            let mut chunk = [0u8; 8192];
            match sock.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let body = String::from_utf8_lossy(&buf[header_end..header_end + len]).into_owned();
        buf.drain(..header_end + len);
        requests.lock().unwrap().push(body);
        let next = script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Script::Reply("{}".into()));
        match next {
            Script::Hang => {
                // Keep the connection open until the client gives up.
                let mut sink = [0u8; 1];
                let _ = sock.read(&mut sink).await;
                return;
            }
            Script::Reply(content) => {
                let payload = completion(&content);
                let resp = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{}",
                    payload.len(),
                    payload
                );
                if sock.write_all(resp.as_bytes()).await.is_err() {
                    return;
                }
            }
        }
    }
}

fn start(script: Vec<Script>) -> Server {
    let script = Arc::new(Mutex::new(VecDeque::from(script)));
    let requests = Arc::new(Mutex::new(vec![]));
    let (tx, rx) = std::sync::mpsc::channel();
    let reqs = requests.clone();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            loop {
                let Ok((sock, _)) = listener.accept().await else {
                    return;
                };
                tokio::spawn(serve_conn(sock, script.clone(), reqs.clone()));
            }
        });
    });
    let addr = rx.recv().unwrap();
    Server {
        url: format!("http://{addr}/v1"),
        requests,
        _thread: thread,
    }
}

fn options(url: &str, runs: u32) -> LlmOptions {
    LlmOptions {
        base_url: url.to_string(),
        model: "recorded".into(),
        api_key: "test-key".into(),
        runs,
        temperature: 0.0,
        timeout: Duration::from_secs(5),
        max_prompt_tokens: 32_000,
        price_in_per_1k: 0.01,
        price_out_per_1k: 0.03,
    }
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name)
}

fn answer(key: &[&str]) -> String {
    serde_json::json!({"result": {"statefulness": "stateful", "intensity": "per-packet", "key": key, "irregular": "true", "symmetric": false}}).to_string()
}

#[test]
fn votes_over_runs_rejects_malformed_answers_and_accounts_tokens() {
    let srv = start(vec![
        Script::Reply(answer(&["src_ip"])),
        Script::Reply("I believe this NF is stateful.".into()),
        Script::Reply(answer(&["src_ip"])),
        Script::Reply(answer(&["src_ip", "src_port"])),
    ]);
    let input = input_from_paths(None, &[corpus("click_src_counter")]).unwrap();
    let opts = AnalyzeOptions {
        backend: BackendChoice::Both(options(&srv.url, 3)),
        cache_dir: None,
        ..AnalyzeOptions::default()
    };
    let (facts, diags) = analyze(&input, &opts).unwrap();
    assert_eq!(facts.backend, Backend::Both);
    assert_eq!(facts.flow_key, vec![Field::SrcIp]);
    assert!(facts.stateful && facts.pointer_chasing);
    let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
    assert!(
        codes.contains(&"A0305"),
        "malformed answer reported: {codes:?}"
    );
    let usage = diags
        .iter()
        .find(|d| d.code == "A0301")
        .expect("usage note");
    assert!(
        usage
            .message
            .contains("4 run(s), 400 prompt + 80 completion tokens"),
        "{}",
        usage.message
    );
    // FlowMage's prompt structure: goal + definitions in the system message, code + format in the user message.
    let reqs = srv.requests.lock().unwrap();
    assert_eq!(reqs.len(), 4);
    let body: serde_json::Value = serde_json::from_str(&reqs[0]).unwrap();
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("stateful"));
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("class SourceCounter") && user.contains("\"statefulness\""));
}

#[test]
fn broader_llm_key_is_never_accepted() {
    let srv = start(vec![Script::Reply(answer(&["src_ip", "src_port"])); 3]);
    let input = input_from_paths(None, &[corpus("click_src_counter")]).unwrap();
    let opts = AnalyzeOptions {
        backend: BackendChoice::Llm(options(&srv.url, 3)),
        cache_dir: None,
        ..AnalyzeOptions::default()
    };
    let (facts, diags) = analyze(&input, &opts).unwrap();
    assert_eq!(facts.flow_key, vec![Field::SrcIp]);
    let d = diags
        .iter()
        .find(|d| d.code == "A0201" && d.message.contains("flow key"))
        .expect("disagreement reported");
    assert!(d.message.contains("FlowMage"), "{}", d.message);
}

#[test]
fn timeout_falls_back_to_static_with_a_diagnostic() {
    let srv = start(vec![Script::Hang]);
    let input = input_from_paths(None, &[corpus("dpdk_syn_monitor")]).unwrap();
    let (static_facts, _) = analyze(&input, &AnalyzeOptions::default()).unwrap();
    let mut o = options(&srv.url, 2);
    o.timeout = Duration::from_millis(300);
    let (facts, diags) = analyze(
        &input,
        &AnalyzeOptions {
            backend: BackendChoice::Both(o),
            cache_dir: None,
            ..AnalyzeOptions::default()
        },
    )
    .unwrap();
    assert_eq!(facts, static_facts);
    let d = diags
        .iter()
        .find(|d| d.code == "A0302")
        .expect("LLM failure diagnostic");
    assert!(d.hint.as_deref().unwrap_or("").contains("static"), "{d:?}");
}

#[test]
fn unreachable_endpoint_falls_back_to_static() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let input = input_from_paths(None, &[corpus("dpdk_acl")]).unwrap();
    let (static_facts, _) = analyze(&input, &AnalyzeOptions::default()).unwrap();
    let o = options(&format!("http://127.0.0.1:{port}/v1"), 3);
    let (facts, diags) = analyze(
        &input,
        &AnalyzeOptions {
            backend: BackendChoice::Llm(o),
            cache_dir: None,
            ..AnalyzeOptions::default()
        },
    )
    .unwrap();
    assert_eq!(facts, static_facts);
    assert!(
        diags
            .iter()
            .any(|d| d.code == "A0302" && d.message.contains("dpdk_acl")),
        "{diags:?}"
    );
}

#[test]
fn cce_compares_two_nfs() {
    let srv = start(vec![
        Script::Reply(
            r#"{"result": {"complexity": "psd"}}"#.into()
        );
        3
    ]);
    let a = vec![(
        "a.c".to_string(),
        "int nf_process(void) { return 0; }".to_string(),
    )];
    let b = vec![(
        "b.c".to_string(),
        "int nf_process(void) { for (;;) {} }".to_string(),
    )];
    let (ord, usage) =
        compare_complexity(("policer", &a), ("psd", &b), &options(&srv.url, 3)).unwrap();
    assert_eq!(ord, std::cmp::Ordering::Less);
    assert_eq!(usage.runs, 3);
    assert!(usage.cost_usd > 0.0);
}
