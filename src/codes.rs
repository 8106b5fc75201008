//! The registry of diagnostic codes: every code nfc can emit, with a title
//! and a long explanation (`nfc explain-code E0401`, rustc's `--explain`).
//! One table, one place: a test walks the sources for code literals and
//! fails on any code missing here, and docs/diagnostics.md is generated from
//! this table (a test keeps it in sync).
//!
//! Prefixes: `E` errors (and a few notes) of the driver and the chain
//! validator, `A` the analyzer, `P` the placer and the plan proof, `R` the
//! reducer, `W` warnings of the FastClick rewrite.

/// One diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CodeDoc {
    pub code: &'static str,
    pub title: &'static str,
    pub explanation: &'static str,
}

/// The documentation of `code`, if it is one nfc emits.
pub fn lookup(code: &str) -> Option<&'static CodeDoc> {
    let code = code.trim().to_ascii_uppercase();
    CODES.iter().find(|c| c.code == code)
}

/// docs/diagnostics.md: every code with its title and explanation.
pub fn markdown() -> String {
    let mut t = String::from(
        "# Diagnostic codes\n\n\
         Generated from `src/codes.rs` (the registry) by `cargo test --test codes`\n\
         with `UPDATE_CODES_DOC=1`; `nfc explain-code <CODE>` prints one entry.\n\n",
    );
    for c in CODES {
        t.push_str(&format!(
            "## {}: {}\n\n{}\n\n",
            c.code, c.title, c.explanation
        ));
    }
    t
}

macro_rules! codes {
    ($($code:literal, $title:literal, $explanation:literal;)*) => {
        /// Every code, sorted.
        pub const CODES: &[CodeDoc] = &[$(CodeDoc { code: $code, title: $title, explanation: $explanation }),*];
    };
}

codes! {
"A0101", "a source file could not be parsed at all",
"tree-sitter produced no syntax tree for one of the NF's files (not C/C++, binary, or empty). The file contributes nothing to the facts; if it held the per-packet code, every answer becomes unknown (A0103).";
"A0102", "syntax errors tolerated",
"The NF's source has syntax errors from the analyzer's point of view, usually unexpanded macros or missing headers. The analysis continues over the parts that parse; answers that depend on the broken parts are unknown, with the conservative value.";
"A0103", "no per-packet entry point",
"The analyzer found no function that processes packets (nf_process for nf.h NFs, a Click element's simple_action/push, a DPDK function taking rte_mbuf, a VPP node function) in the NF's own files. Every answer is unknown and the NF has no facts: the placer refuses to place it (E0403) unless it is pinned `sharing: shared`.";
"A0104", "per-flow objects share no key field",
"The NF keeps several per-flow objects whose keys have no field in common, so no single RSS hash keeps all of them on one core. Its flow key is empty and it is placed shared.";
"A0106", "a project header was not found",
"An `#include \"...\"` names a header that is neither next to the file, in nfc's include directories, nor in an ancestor `include/` directory. Macros and types from it are unknown; answers that need them take the conservative value. Point `source:` at a directory that contains the header.";
"A0110", "the analysis ran out of its budget",
"Each NF's analysis is bounded in time and memory (default 5 s and 512 MB). When the budget runs out every answer is unknown, with the conservative value (stateful, no key, per-packet writes, pointer chasing), so placement stays correct. Raise the budget with `--analysis-time`/`--analysis-memory`. The same code reports a data-flow fixpoint that kept growing past its round limit (\"did not settle\"): more budget does not help there; please report the NF source.";
"A0111", "the analysis failed internally",
"The analyzer hit a bug on this NF. Every answer is unknown and conservative, so the chain is still placed correctly; please report the NF source.";
"A0201", "the static and LLM backends disagree",
"With `--backend both`, the static analysis and the LLM gave different answers to a question. The combined answer is the one that permits the placer less, and the note says which was kept and why.";
"A0301", "LLM usage",
"A note with the number of LLM requests, prompt and completion tokens and the estimated cost of analysing one NF with the LLM backend.";
"A0302", "the LLM backend failed",
"The LLM endpoint could not be reached, answered with an error, or gave no valid answer in any run. The static answer is used alone.";
"A0303", "the LLM token budget is too small",
"The prompt frame alone exceeds the token budget, so no source fits. The static answer is used; raise `max_prompt_tokens`.";
"A0304", "the LLM prompt was shortened",
"The NF's source did not fit the token budget, so the prompt keeps the per-packet path and drops the rest (CCE). Answers about dropped code may be less precise.";
"A0305", "malformed LLM answers rejected",
"Some LLM answers did not follow the answer schema and were rejected (and retried). The vote uses the valid ones.";
"E0001", "YAML syntax error",
"The chain file is not valid YAML (or not UTF-8, or holds several documents). The location points at the first character the parser could not take.";
"E0002", "empty chain file",
"The chain file holds no document. A chain needs at least `nfs:`.";
"E0003", "a value has the wrong type",
"A key holds a value of the wrong kind, e.g. a mapping where a list is expected. The message names the key and what it expects.";
"E0004", "unknown key",
"A key the chain format does not define; the hint suggests the closest valid key. See docs/chain-format.md.";
"E0005", "a required key is missing",
"A required key is absent: `nfs` at the top, `id` on each NF, `from`/`to` on each edge.";
"E0006", "the input file cannot be read",
"The chain (or .click) file does not exist or cannot be read. Check the path and permissions.";
"E0007", "a key appears twice",
"One mapping gives the same key twice; YAML would silently keep one of them, so nfc refuses.";
"E0010", "duplicate NF id",
"Two NFs have the same `id`. Ids name NF instances in the topology, the plan and the deployment, so they must be unique.";
"E0011", "unknown built-in NF",
"`nf:` names no NF of nfc's library (nfs/); the hint suggests the closest name. Use `source:` for your own NF.";
"E0012", "both or neither of `nf:` and `source:`",
"Each NF is either a built-in (`nf: name`) or user code (`source: [files or directories]`), exactly one of them.";
"E0013", "unknown framework",
"`framework:` must be one of nfc-c (nf.h), click, dpdk or vpp.";
"E0014", "a source file does not exist",
"A path in `source:` does not exist (relative paths resolve against the chain file's directory).";
"E0015", "invalid NF id",
"NF ids use letters, digits, `_` and `-` only, so they can name files, Kubernetes objects and Click elements.";
"E0020", "a link names an NF that does not exist",
"An edge or a `chain:` entry names an NF id that is not in `nfs:`.";
"E0021", "the topology has a cycle",
"Packets must flow one way through the chain; a cycle would loop them. Remove one of the edges named.";
"E0022", "an NF is not connected",
"No packet can reach this NF: it is neither an entry nor the target of an edge from a reachable NF.";
"E0023", "both `chain:` and `edges:`",
"Give the topology either as a line (`chain: [a, b]`) or as a DAG (`edges:`), not both.";
"E0024", "several NFs but no topology",
"With more than one NF the chain needs `chain:` or `edges:` to say how packets flow.";
"E0025", "an output port connected twice",
"One output port of an NF links to two NFs. Use a different port per successor.";
"E0030", "invalid field name or empty field set",
"Fields are src_ip, dst_ip, src_port, dst_port, proto, src_mac, dst_mac; a field set must not be empty.";
"E0031", "impossible resources",
"The resources cannot be realised: 0 cores, more cores than NIC queues, an empty or repeated `cpus` entry, an RSS key that is not 40 or 52 bytes, a RETA size that is not a power of two, or no hash field set.";
"E0032", "unknown sharing pin or symmetry demand",
"`sharing:` must be shared or shared-nothing; `nic.symmetric` must be auto, required or forbidden.";
"E0033", "a NIC field set a Toeplitz hash cannot use",
"(warning) A field set in `nic.hash_fields` has no address or port, so a Toeplitz hash cannot depend on it; it is ignored.";
"E0040", "bad traffic section",
"`traffic:` is wrong: a missing pcap, shares that do not sum to 1, a bad prefix, both pcap and synthetic, or a synthetic spec the generator cannot produce.";
"E0041", "a number is malformed or out of range",
"A numeric value does not parse or is outside its range; the message says the range.";
"E0050", "bad target option",
"A `targets:` option is wrong, e.g. an unknown flash link mode.";
"E0101", "an NF cannot be built",
"The NF is Click, DPDK or VPP code: nfc analyses it but can only build, run and reduce NFs written in C against nfs/include/nf.h (framework nfc-c).";
"E0102", "an NF does not compile",
"clang-19 failed on the NF's C sources against nf.h; the message carries the compiler's output.";
"E0200", "a pcap cannot be read or written",
"A traffic or input pcap is missing, malformed, or not Ethernet; or the output pcap cannot be written. Pcaps must be classic libpcap captures with Ethernet link type.";
"E0201", "an NF rejects its configuration",
"The NF's nf_init returned an error for the `config:` given in the chain file. See the NF's configs/default.yaml for the keys it takes.";
"E0202", "no input pcap",
"`nfc run` on a chain whose traffic is synthetic needs `--pcap`; generate one with `nfc trace gen --chain <chain> -o trace.pcap`.";
"E0203", "bad plan file",
"`nfc run --plan`: the plan file is unreadable, not a plan, names an NF not in the chain, is for another core count than `--workers`, or its RSS key/RETA is unusable.";
"E0204", "--workers 0",
"A run needs at least one worker.";
"E0300", "the analyzer cannot read the NF",
"The NF's source files do not exist or cannot be read.";
"E0301", "the LLM backend is not configured",
"`--backend llm|both` needs an endpoint (`--llm-url` or NFC_LLM_URL) and a model.";
"E0302", "bad --facts file",
"`--facts` is unreadable, not a JSON list of facts, names an NF not in the chain (a warning), or was given for a .click input.";
"E0400", "the NIC offers no usable RSS field set",
"None of `resources.nic.hash_fields` can be hashed for this chain (no addresses or ports). List field sets the NIC can hash.";
"E0401", "conflicting symmetry demands",
"`resources.nic.symmetric` contradicts what the chain needs: symmetric hashing is required but no listed field set is closed under swapping source and destination, or an NF pinned shared-nothing keeps one state for both directions while symmetric hashes are forbidden. Relax `nic.symmetric`, list a mirror-closed field set such as [src_ip, dst_ip], or unpin the NF.";
"E0402", "no RSS hash keeps the pinned NFs shared-nothing",
"Every NF pinned `sharing: shared-nothing` must see each of its flows on one core, so the hash may use only fields of every such NF's flow key. No candidate field set satisfies all of them; the notes list why each candidate fails.";
"E0403", "an NF has no facts",
"The analyzer found no per-packet entry point in the NF, so nothing is known about its state. Point `source:` at its per-packet code, or pin it `sharing: shared` to place it anyway (it is then never split).";
"E0404", "another placement failure",
"The placer could not produce a plan for another reason (see the message and `nfc explain`); a semantic violation here is a placer bug.";
"E0500", "a .click input for another target",
"A FastClick configuration can only be rewritten for the fastclick target; write a chain.yaml for flash and agilio.";
"E0501", "rewriting a .click needs the element sources",
"`nfc build x.click` analyses the element classes the configuration uses; pass `--source-root <dir>` where their .hh/.cc live.";
"E0502", "the source root is not a directory",
"`--source-root` must name a directory holding FastClick element sources.";
"E0503", "nothing to build",
"`nfc build` was given neither `--target` nor `--emit`.";
"E0504", "an NF given only as a shared object reached the analyzer",
"The analyzer reads sources, not machine code (e.g. a reduced.so). Analyse and place the original chain; the build derives the reduced NF's facts from its members'.";
"E0505", "--no-reduce with --emit reduced",
"The two flags contradict each other: drop one.";
"E0506", "the .click has no FromDPDKDevice",
"The FastClick rewrite configures RSS on FromDPDKDevice; the configuration has none to carry it.";
"E0507", "not a diagnostic code",
"`nfc explain-code` was given a code nfc does not emit; `nfc explain-code --list` prints them all.";
"E0510", "the flash deployment cannot be written",
"The flash emitter refused the chain (e.g. several entry NFs, a missing object, unwritable output); see `targets.flash` in docs/chain-format.md.";
"E0511", "the FastClick output failed validation",
"The emitted configuration names an element class that is neither upstream FastClick's nor in the generated package, or a parameter an upstream element does not take. This is an emitter bug: please report the chain.";
"E0520", "the .click configuration does not parse",
"The FastClick configuration has a syntax error (an unclosed parenthesis, a bad port number, an unexpected character); the location points at it.";
"E0521", "an analysed element is not declared in the .click",
"The rewrite found facts for an element name that the configuration does not declare.";
"E0522", "the plan has no placement for an element",
"A stateful element of the configuration has no placement in the plan; this is a bug in nfc.";
"E0600", "not a deployment",
"`nfc run <dir>`: the directory holds no deployment.json. Build one with `nfc build chain.yaml --target flash -o <dir>`.";
"E0601", "not root",
"Running a flash deployment on line needs root (XDP, AF_XDP sockets, dropping privileges per NF).";
"E0602", "the deployment does not load",
"deployment.json is malformed, of another version, or describes an impossible topology.";
"E0603", "the monitor cannot set up",
"An interface of the deployment does not exist here, or the kernel refused XDP/AF_XDP on it.";
"E0604", "an NF's user cannot read its files",
"The unprivileged NF user cannot read the deployment or its NF object (e.g. under a 0700 home directory). Build into a world-readable directory.";
"E0605", "a bad duration",
"`--duration` or `--attach-timeout` is not a non-negative number of seconds.";
"E0606", "an NF never attached",
"An NF host exited before attaching (it cannot reach the monitor socket as its uid, or its NF fails to load) or missed the attach deadline.";
"E0607", "the NF host cannot start",
"`nfc nf-host` (started by `nfc run`) cannot attach to the monitor or load its NF.";
"E0610", "no running chain to monitor",
"`nfc monitor` asks the deployment's monitor (its Unix socket, `monitor.socket` in deployment.json) for the NF hosts' pids; nothing answered, or not every NF has an attached host. Start the chain with `nfc run <dir>` (as root) first.";
"E0611", "the NF hosts' counters cannot be read",
"perf_event_open on the NF host processes was refused (another user's processes need root or a lower kernel.perf_event_paranoid) or a host exited before its counters were opened.";
"E0612", "a bad monitor or profile option",
"`--period` must be 0.1 to 10 seconds, `--duration` positive (at most 600 s for `nfc profile`), `--phase` between the period and the duration, `--frame-len` 70 to 1500 bytes; `nfc profile` drives one ingress and one egress interface.";
"E0613", "a stimulus tool is missing",
"The resource stimulus of `nfc profile` runs stress-ng and a cgroup v1 `cpu` group (/sys/fs/cgroup/cpu); install stress-ng with `cargo xtask setup`.";
"E0614", "a model cannot predict from this chain's counters",
"`nfc monitor --model DIR`: the model needs counter columns (`<nf>_<counter>`) this chain's monitor does not produce, or the directory is not a model `nfc predict train` wrote. Train it on `nfc profile` data of the same chain.";
"E0700", "the reducer failed on an NF",
"The reducer does not support a construct of this NF (IR it cannot handle, a verifier error), or the NF's object does not follow nf.h. In auto mode (the default) the NF is deployed unreduced with a warning; with `--emit reduced --reduce=strict` the build fails.";
"E0701", "the topology cannot be reduced here",
"The reducer consolidates lines of NFs: a segment ends where an NF fans out or in, or where an NF with several output ports is not the segment's last. DAGs are reduced segment by segment.";
"E0702", "an NF is not C against nf.h",
"Click/DPDK/VPP sources, prebuilt .so NFs and .click inputs cannot be reduced: the reducer works on the LLVM IR of C NFs written against nfs/include/nf.h.";
"E0703", "an NF rejects its configuration while the reducer probes it",
"Each NF's nf_init runs with its configuration before any pass, so a bad configuration is reported before reduction.";
"E0704", "unknown reducer pass",
"`--dump-after` names a pass that is not in the reducer's pipeline; the note lists them in order.";
"E0705", "the reduction changed behaviour",
"A reduced module differed from the original NFs on the reducer's differential check, or the reduced chain differed from the original chain on the executor's (an output packet, a verdict, an exit port or a final state digest). The reduction is refused in every mode and its module removed; please report the chain. `--no-reduce` builds it unreduced.";
"E0706", "two NFs are reduced apart",
"(note) Two linked NFs stay in separate modules: they are pinned to different state layouts, or the plan of the original chain keeps one of them per core and the consolidated module would have to share its state under the plan's hash. Reduction never costs the placement a shared-nothing NF.";
"E0800", "bad Clara-format data",
"`nfc smartnic` could not read a file of Clara-format measurements (a scale-out `trainingset_feature_<i>`/`trainingset_tag_<i>` pair or a colocation run); the message names the file and line. Nothing is scored from a partly read directory. See docs/smartnic.md for the layout.";
"E0801", "a SmartNIC model could not be loaded or trained",
"The `--model` file is missing, unreadable or not a model `nfc smartnic train-*` wrote, or training failed on the data given. Retrain with `nfc smartnic train-scale-out` / `train-colocation`.";
"E0802", "no SmartNIC training data",
"`nfc smartnic` found no training data: `--train` (or `$NFC_CLARA_DATA`, or `../shared/data/clara` beside the repository) is missing, or every program in it also appears in `--data` and was held out. Pass `--train DIR` or `--model FILE`.";
"E0810", "an NF does not compile for the SmartNIC insight proxy target",
"`nfc insight` (and `nfc analyze --smartnic`) lowers each NF's C sources with clang-19 for riscv32 (the proxy NIC target). This NF did not compile: the message carries the compiler's first errors and the span their location. Its figures are unknown; the other NFs are still reported, and the exit code is 1. Missing headers: pass `-I DIR`. C++ sources are not lowered.";
"E0811", "a SmartNIC insight model could not be loaded or run",
"The models compiled into nfc (crates/smartnic/data/insight) did not parse, or the `--model` LSTM directory could not be run by `nfc-predict` (missing `lstm.json`/`lstm.ot`, or nfc-predict not installed beside nfc). Train one with `nfc predict insight train --out DIR`.";
"E0900", "a stage that is not available yet",
"This version of nfc does not implement the stage for this input (the predict stage of a .click input, or a pipeline embedded without the `nfc` executable the stage runs under callgrind); it says so instead of inventing output.";
"E0901", "the predict stage cannot measure or has no calibrated model",
"`--emit prediction` (and `nfc explain --predict`) runs the chain in the reference executor under valgrind's callgrind over its synthetic traffic profile and applies the flash cost model. It needs valgrind (`cargo xtask setup`), a synthetic `traffic:` profile, and a calibrated model: the shipped data/flash-cost-model.json or `--cost-model FILE` (`cargo xtask bench profile-data` fits one on this machine).";
"E0910", "the chain's state does not fit the SmartNIC's memory",
"`--target agilio`: a state object fits in no SmartNIC memory level (CLS, CTM, IMEM, EMEM), or all objects together exceed the capacities. The message names the object and its size; raise the capacities under `resources.smartnic.memory` in chain.yaml if the NIC has more, or shrink the tables' capacity.";
"E0911", "an NF's memory accesses could not be measured",
"(warning) `--target agilio` runs every NF of the chain, instrumented, over the head of the chain's traffic to count its accesses per state object. This NF could not be built (not nf.h C code), instrumented or run with its configuration; the message says which. Its state objects are placed with the flagged proxy of one access per packet, and no coalescing is suggested for it.";
"P101", "an NF marked symmetric has an asymmetric key",
"(warning) The facts say the NF keeps one state for both directions, but its flow key is not closed under swapping source and destination; the NF is kept shared to stay correct.";
"P102", "an NF keeps global state",
"(note) The NF is stateful with no flow key, so it always shares one state instance.";
"P103", "an NF cannot be split across cores",
"(note) The NF writes state no packet field keys (a split hazard), so it always shares.";
"P104", "no traffic profile",
"(note) The placer balances load by the chain's traffic; without one every hash is assumed to balance perfectly.";
"P105", "RSS plans tie",
"(note) Several plans have the same cost; the note says how the tie was broken.";
"P201", "the plan proof rejected a split NF",
"(warning) Running the plan with several workers changed a packet or a shared NF's final state compared with one worker. The message names the NF, the flow and the first differing packet; in strict mode the NF is pinned shared and the chain placed again (docs/plan-proof.md).";
"P202", "the plan proof rejected a pinned split",
"The operator pinned the NF `sharing: shared-nothing` but the proof shows splitting it changes behaviour, or every repair was rejected. Unpin the NF or fix its facts.";
"P203", "the plan is not proven",
"(warning) The reference executor cannot run the chain's NFs (they are not built against nf.h), so a split placement rests on the analyzer's facts alone.";
"R0001", "chain not reduced",
"The reducer, asked for best effort, could not reduce the chain; the original NFs are used.";
"R0100", "the slice's labels",
"(note) Which globals the slice labelled configuration and state for each NF.";
"R0101", "observability logic kept",
"(warning) Logging or statistics output (printf, syslog, ...) cannot influence verdicts, packets or state; it is reported and kept unless `--strip-observability` removes it.";
"R0102", "configuration not propagated",
"(warning) Some configuration globals hold pointers after nf_init, so the reducer cannot fold them into constants. Keep configuration in pointer-free globals (fixed arrays and counts).";
"R0103", "cross-NF CSE limited",
"(note) The packet-alias pass cannot prove the chain body's packet accesses are safe to merge, so common-subexpression elimination across NFs is limited.";
"R0105", "debug info dropped",
"(note) LLVM debug info was invalid after a pass and was stripped; the module itself verifies.";
"R0106", "the chain body keeps a loop",
"(note) The reduced body has a loop, so it stays out of line for the final optimisation.";
"R0107", "nf_init probed through a compiled object",
"(note) The in-process JIT could not take the NF, so its nf_init was probed in a clang-built object instead.";
"R0108", "per-path specialisation skipped",
"(note) Specialising a path would grow the module beyond the remaining budget.";
"R0200", "the reduced chain matches the original",
"(note) The reducer's differential check: packets, drops, forwards and final state equal.";
"R0201", "reduction timing",
"(note) Time spent per reduction phase.";
"W0503", "no element class found",
"(warning) None of the .click configuration's element classes was found under `--source-root`; nothing is analysed and nothing is rewritten.";
}
