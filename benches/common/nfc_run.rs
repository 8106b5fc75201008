//! `nfc run` serving a deployment in a network namespace, for the benches
//! that drive flash-rt chains (`reduced_flash`, `profile_data`).

use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// `nfc run <dir> --duration <secs>` in namespace `ns`, returned once its
/// `nfs` NF hosts attached; otherwise what `nfc run` said on stderr. The
/// child's stderr keeps being drained afterwards (a full pipe would stall
/// it).
pub fn serve(ns: &str, dir: &Path, nfs: usize, secs: u32) -> Result<Child, String> {
    let mut child = Command::new("ip")
        .args(["netns", "exec", ns, env!("CARGO_BIN_EXE_nfc"), "run"])
        .arg(dir)
        .args(["--duration", &secs.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("nfc run: {e}"))?;
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let mut attached = 0;
    let mut said = vec![];
    while attached < nfs {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(l) => {
                if l.contains("attached NF") {
                    attached += 1;
                }
                said.push(l);
            }
            Err(e) => {
                stop(child);
                return Err(format!(
                    "{attached} of {nfs} NF(s) of {} attached ({e}); nfc run said:\n{}",
                    dir.display(),
                    said.join("\n")
                ));
            }
        }
    }
    Ok(child)
}

/// SIGTERM to a served chain, and wait for it to exit.
pub fn stop(mut child: Child) {
    // SAFETY: signalling our child (`ip netns exec` execs nfc in place).
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
}
