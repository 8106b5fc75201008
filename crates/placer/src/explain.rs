//! `nfc explain`: a plan as human text — every candidate hash with its cost
//! or the reason it was rejected, the chosen one marked, the rationale lines,
//! each NF's mode and reason, and the synthesised key and RETA.

use nfc_core::plan::{Plan, Sharing};
use std::fmt::Write;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn label(fields: &[nfc_core::facts::Field], symmetric: bool) -> String {
    let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
    format!(
        "{{{}}}{}",
        names.join(","),
        if symmetric { " sym" } else { "" }
    )
}

/// Render a plan for people.
pub fn explain(plan: &Plan) -> String {
    let mut out = String::new();
    let chosen = plan.candidates.iter().position(|c| {
        c.rejected.is_none() && c.fields == plan.rss.fields && c.symmetric == plan.rss.symmetric
    });
    let _ = writeln!(
        out,
        "RSS plan for {} core(s): hash on {}",
        plan.cores,
        label(&plan.rss.fields, plan.rss.symmetric)
    );
    let _ = writeln!(
        out,
        "total cost {:.1} (instruction-equivalents per packet on the busiest core, x cores)",
        plan.total_cost
    );
    let _ = writeln!(out, "\ncandidates:");
    for (i, c) in plan.candidates.iter().enumerate() {
        let mark = if Some(i) == chosen { "=>" } else { "  " };
        match &c.rejected {
            Some(why) => {
                let _ = writeln!(
                    out,
                    "{mark} #{:<2} {:<40} rejected: {why}",
                    i + 1,
                    label(&c.fields, c.symmetric)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{mark} #{:<2} {:<40} cost {:>10.1}  shared-nothing [{}]  shared [{}]",
                    i + 1,
                    label(&c.fields, c.symmetric),
                    c.cost,
                    c.shared_nothing.join(", "),
                    c.shared.join(", ")
                );
            }
        }
    }
    let _ = writeln!(out, "\nwhy:");
    for line in &plan.rationale {
        let _ = writeln!(out, "  - {line}");
    }
    let _ = writeln!(out, "\nNFs:");
    for nf in &plan.nfs {
        let mode = match nf.sharing {
            Sharing::SharedNothing => "shared-nothing",
            Sharing::Shared => "shared",
            Sharing::Stateless => "stateless",
        };
        let cost = if nf.cost > 0.0 {
            format!(" (+{:.1})", nf.cost)
        } else {
            String::new()
        };
        let _ = writeln!(out, "  {:<24} {mode:<15}{cost} {}", nf.nf, nf.reason);
    }
    let _ = writeln!(out, "\nToeplitz key (40 B): {}", hex(&plan.rss.key40));
    let _ = writeln!(out, "Toeplitz key (52 B): {}", hex(&plan.rss.key52));
    let queues: std::collections::BTreeSet<u16> = plan.rss.reta.iter().copied().collect();
    let _ = writeln!(
        out,
        "RETA: {} entries over queues {:?}",
        plan.rss.reta.len(),
        queues
    );
    out
}
