//! Test helpers shared by the passes' unit tests: reduce inline C NF
//! sources (written to a temp dir) and return what the passes reported and
//! the reduced IR. `reduce` always runs the differential check, so every
//! successful call is also an equivalence proof on generated packets.

use crate::{reduce, ReduceInput, ReduceOptions};

pub struct Reduced {
    pub ir: String,
    pub removals: Vec<String>,
    pub diags: Vec<String>,
}

/// Reduce a chain of inline C sources with their configs.
pub fn reduce_c(
    nfs: &[(&str, &[(&str, &str)])],
    tweak: impl FnOnce(&mut ReduceOptions),
) -> Result<Reduced, crate::ReduceError> {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut inputs = vec![];
    for (k, (src, cfg)) in nfs.iter().enumerate() {
        let path = dir.path().join(format!("nf{k}.c"));
        std::fs::write(&path, src).expect("write source");
        inputs.push(ReduceInput {
            id: format!("t{k}"),
            sources: vec![path],
            config: cfg
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            ..Default::default()
        });
    }
    let mut opts = ReduceOptions {
        out_dir: dir.path().join("out"),
        verify_packets: 1500,
        ..Default::default()
    };
    tweak(&mut opts);
    let (art, chain, diags) = reduce(&inputs, &opts)?;
    Ok(Reduced {
        ir: art
            .ll_path
            .map(|p| std::fs::read_to_string(p).expect("read IR"))
            .unwrap_or_default(),
        removals: chain
            .removals
            .iter()
            .map(|r| format!("{}: {}", r.pass, r.what))
            .collect(),
        diags: diags.iter().map(|d| d.to_string()).collect(),
    })
}

/// The IR of the reduced `nf_process` without debug records and metadata.
pub fn process_body(ir: &str) -> String {
    let start = ir.find("define i32 @nf_process").unwrap_or(0);
    let rest = &ir[start..];
    let end = rest.find("\n}\n").map(|e| e + 2).unwrap_or(rest.len());
    rest[..end]
        .lines()
        .filter(|l| !l.trim_start().starts_with("#dbg"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A minimal NF skeleton around a process body (C text).
pub fn nf_source(globals: &str, init: &str, process: &str) -> String {
    format!(
        "#include \"nf.h\"\n#include <stdio.h>\n{globals}\nstatic const struct nf_info info = {{NF_ABI_VERSION, \"t\", 1}};\n\
         const struct nf_info *nf_describe(void) {{ return &info; }}\n\
         size_t nf_state_size(void) {{ return 64; }}\n\
         int nf_init(const struct nf_config *cfg, char *err, size_t err_len) {{ uint64_t v = 0; (void)v; (void)err; (void)err_len; {init} return 0; }}\n\
         int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt) {{ uint64_t *st = (uint64_t *)ctx->state; (void)st; {process} }}\n"
    )
}
