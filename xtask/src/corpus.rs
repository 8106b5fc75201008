//! The analyzer's real-world corpus: third-party NF code fetched from Debian
//! source packages at test/bench time, never committed.
//!
//! The packages and their exact versions come from the `packages:` section of
//! `crates/analyzer/tests/realworld/labels.yaml`. [`ensure_corpus`] makes sure
//! a `deb-src` entry exists, fetches each package with
//! `apt-get source --only-source pkg=version` into a cache outside the clone
//! (`$NFC_CORPUS_DIR`, else `/var/tmp/nfc-corpus`), unpacks it to
//! `<cache>/<package>/` (so the paths in the labels are stable whatever the
//! upstream directory name) and writes `<cache>/manifest.json`. A package
//! already unpacked at the requested version is skipped, so a second run is a
//! fast no-op. Every package is unpacked into a temporary directory and
//! renamed into place only when complete.

use anyhow::{anyhow, bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One source package named in the labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub name: String,
    pub version: String,
    pub codebase: String,
    /// A Debian suite beyond the machine's own that carries this version
    /// (e.g. `sid`), added as a deb-src entry; None: the machine's suites.
    pub suite: Option<String>,
}

/// Written inside each unpacked tree: what was asked for and what was fetched.
const MARKER: &str = ".nfc-corpus-version";

/// The deb-src entry this module adds when the machine has none.
const DEB_SRC_FILE: &str = "/etc/apt/sources.list.d/nfc-deb-src.sources";

/// The labels file that names the packages.
pub fn labels_path() -> PathBuf {
    super::root()
        .join("crates")
        .join("analyzer")
        .join("tests")
        .join("realworld")
        .join("labels.yaml")
}

/// Where the corpus lives: `$NFC_CORPUS_DIR`, else `/var/tmp/nfc-corpus`.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("NFC_CORPUS_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp/nfc-corpus"))
}

/// Fetch every package the labels name (idempotent; a fast no-op when the
/// cache is complete). Returns the cache directory.
pub fn ensure_corpus() -> Result<PathBuf> {
    let labels = labels_path();
    let text = std::fs::read_to_string(&labels)
        .with_context(|| format!("cannot read the corpus labels {}", labels.display()))?;
    let packages = parse_packages(&text)
        .with_context(|| format!("bad `packages:` section in {}", labels.display()))?;
    let cache = cache_dir();
    std::fs::create_dir_all(&cache)
        .with_context(|| format!("cannot create the corpus cache {}", cache.display()))?;

    let todo: Vec<&Package> = packages
        .iter()
        .filter(|p| cached_version(&cache, p).is_none())
        .collect();
    remove_stale_temps(&cache);
    if !todo.is_empty() {
        let mut extra: Vec<&str> = packages.iter().filter_map(|p| p.suite.as_deref()).collect();
        extra.sort_unstable();
        extra.dedup();
        ensure_deb_src(&extra, &todo[0].name)?;
        if !super::installed("dpkg-dev") {
            eprintln!("corpus: installing dpkg-dev (apt-get source needs dpkg-source to unpack)");
            super::run_cmd(&mut super::apt(&[
                "install",
                "-y",
                "-qq",
                "--no-install-recommends",
                "dpkg-dev",
            ]))
            .context("cannot install dpkg-dev")?;
        }
    }
    let n = packages.len();
    let mut fetched = Vec::new();
    for (i, p) in packages.iter().enumerate() {
        let got = match cached_version(&cache, p) {
            Some(v) => v,
            None => {
                eprintln!("corpus: fetching {} {} ({}/{n})…", p.name, p.version, i + 1);
                let started = std::time::Instant::now();
                let v = fetch(&cache, p).with_context(|| {
                    format!("cannot fetch source package {} {}", p.name, p.version)
                })?;
                eprintln!(
                    "corpus: {} {v} unpacked in {:.0} s",
                    p.name,
                    started.elapsed().as_secs_f64()
                );
                v
            }
        };
        if got != p.version {
            warn_fallback(p, &got);
        }
        fetched.push((p, got));
    }
    write_manifest(&cache, &fetched)?;
    eprintln!(
        "corpus: {} packages ready in {} (manifest.json)",
        fetched.len(),
        cache.display()
    );
    Ok(cache)
}

fn warn_fallback(p: &Package, got: &str) {
    eprintln!(
        "corpus: WARNING: {} {} is no longer in the archive; using {got} instead. \
         The labels were written against {}: line numbers and code may differ, \
         re-check the affected units before trusting the score.",
        p.name, p.version, p.version
    );
}

/// The version unpacked at `<cache>/<name>/` when it was fetched for the
/// version the labels ask for now.
fn cached_version(cache: &Path, p: &Package) -> Option<String> {
    let marker = std::fs::read_to_string(cache.join(&p.name).join(MARKER)).ok()?;
    let mut requested = None;
    let mut fetched = None;
    for line in marker.lines() {
        if let Some(v) = line.strip_prefix("requested=") {
            requested = Some(v.trim().to_string());
        } else if let Some(v) = line.strip_prefix("fetched=") {
            fetched = Some(v.trim().to_string());
        }
    }
    (requested.as_deref() == Some(p.version.as_str())).then_some(fetched?)
}

/// Download and unpack one package into `<cache>/<name>/`; returns the
/// version actually fetched.
fn fetch(cache: &Path, p: &Package) -> Result<String> {
    let tmp = cache.join(format!(".tmp-{}-{}", p.name, std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp)?;
    }
    std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let result = fetch_into(cache, &tmp, p);
    // Tarballs and partial trees go whatever happened.
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

/// What one `apt-get source` attempt came to.
enum Got {
    /// The tree is unpacked in the temp dir; `patched` is false when only
    /// the upstream tarball could be had (Debian's patches not applied).
    Tree { patched: bool },
    /// The archive does not have this version (any more).
    Gone(String),
}

fn fetch_into(cache: &Path, tmp: &Path, p: &Package) -> Result<String> {
    let exact = format!("{}={}", p.name, p.version);
    let patched = match attempt(tmp, &exact)? {
        Got::Tree { patched } => patched,
        Got::Gone(why) => {
            eprintln!(
                "corpus: WARNING: {exact} cannot be fetched ({why}); falling back to the version the archive has now"
            );
            match attempt(tmp, &p.name)? {
                Got::Tree { patched } => patched,
                Got::Gone(why) => bail!("no source package {} at all: {why}", p.name),
            }
        }
    };
    // The .dsc (or the orig tarball) names the version fetched; the only
    // directory is the tree.
    let mut version = None;
    let mut upstream = None;
    let mut tree = None;
    for e in std::fs::read_dir(tmp)? {
        let path = e?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if path.is_dir() {
            if tree.replace(path).is_some() {
                bail!(
                    "apt-get source left more than one directory in {}",
                    tmp.display()
                );
            }
        } else if let Some(v) = name
            .strip_suffix(".dsc")
            .and_then(|s| s.strip_prefix(&format!("{}_", p.name)))
        {
            version = Some(v.to_string());
        } else if let Some((v, _)) = name
            .strip_prefix(&format!("{}_", p.name))
            .and_then(|s| s.split_once(".orig.tar."))
        {
            upstream = Some(v.to_string());
        }
    }
    let tree = tree.ok_or_else(|| {
        anyhow!(
            "apt-get source unpacked nothing in {} (is dpkg-dev installed?)",
            tmp.display()
        )
    })?;
    // Versions in the labels may carry an epoch, file names never do.
    let requested_sans_epoch = p
        .version
        .split_once(':')
        .map_or(p.version.as_str(), |(_, v)| v);
    let version = match (version, upstream) {
        (Some(v), _) if v == requested_sans_epoch => p.version.clone(),
        (Some(v), _) => v,
        // Upstream tarball only: the requested Debian revision when the
        // upstream part matches.
        (None, Some(u)) if requested_sans_epoch.starts_with(&format!("{u}-")) => p.version.clone(),
        (None, Some(u)) => format!("{u} (upstream tarball)"),
        (None, None) => bail!("no {}_*.dsc or orig tarball in {}", p.name, tmp.display()),
    };
    std::fs::write(
        tree.join(MARKER),
        format!(
            "requested={}\nfetched={version}\nupstream_dir={}\ndebian_patches={}\n",
            p.version,
            tree.file_name().unwrap_or_default().to_string_lossy(),
            if patched {
                "applied"
            } else {
                "not applied (upstream tarball only)"
            }
        ),
    )?;
    let dest = cache.join(&p.name);
    if dest.exists() {
        // A tree of another version (the labels moved on): out of the way
        // first, removed after the new one is in place.
        let old = cache.join(format!(".old-{}-{}", p.name, std::process::id()));
        std::fs::rename(&dest, &old)
            .with_context(|| format!("cannot move {} aside", dest.display()))?;
        std::fs::rename(&tree, &dest)
            .with_context(|| format!("cannot move {} to {}", tree.display(), dest.display()))?;
        std::fs::remove_dir_all(&old)?;
    } else {
        std::fs::rename(&tree, &dest)
            .with_context(|| format!("cannot move {} to {}", tree.display(), dest.display()))?;
    }
    Ok(version)
}

/// Fetch `what` (`pkg` or `pkg=version`) into the empty directory `tmp`:
/// the whole Debian source package, or, when the mirror serves the upstream
/// tarball but not Debian's part, the upstream tarball alone unpacked with
/// tar (the labels are about upstream code).
fn attempt(tmp: &Path, what: &str) -> Result<Got> {
    clear_dir(tmp)?;
    let full = apt_source(tmp, what, false)?;
    if full.status.success() && has_dir(tmp)? {
        return Ok(Got::Tree { patched: true });
    }
    let err = String::from_utf8_lossy(&full.stderr).into_owned();
    if let Some(why) = version_gone(&err) {
        return Ok(Got::Gone(why));
    }
    if !err.contains("Failed to fetch") {
        bail!(
            "apt-get source --only-source {what} failed ({}):\n{}",
            full.status,
            err.trim()
        );
    }
    eprintln!(
        "corpus: WARNING: the mirror did not serve every file of {what}; trying the upstream tarball alone (Debian patches will not be applied)"
    );
    clear_dir(tmp)?;
    let tar_only = apt_source(tmp, what, true)?;
    if !tar_only.status.success() {
        bail!(
            "apt-get source --tar-only --only-source {what} failed ({}):\n{}\n(and the full source before it:\n{})",
            tar_only.status,
            String::from_utf8_lossy(&tar_only.stderr).trim(),
            err.trim()
        );
    }
    // The main upstream tarball (not the orig-<component>.tar.* ones).
    let main = std::fs::read_dir(tmp)?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.contains(".orig.tar."))
        })
        .ok_or_else(|| anyhow!("apt-get source --tar-only {what} left no orig tarball"))?;
    super::run_cmd(Command::new("tar").arg("xf").arg(&main).current_dir(tmp))
        .with_context(|| format!("cannot unpack {}", main.display()))?;
    if !has_dir(tmp)? {
        bail!("{} unpacked no directory", main.display());
    }
    Ok(Got::Tree { patched: false })
}

/// apt's way of saying the archive has no such source version.
fn version_gone(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .find(|l| {
            l.contains("Can not find version") || l.contains("Unable to find a source package")
        })
        .map(|l| l.trim_start_matches("E: ").trim().to_string())
}

fn has_dir(dir: &Path) -> Result<bool> {
    Ok(std::fs::read_dir(dir)?.flatten().any(|e| e.path().is_dir()))
}

fn clear_dir(dir: &Path) -> Result<()> {
    for e in std::fs::read_dir(dir)? {
        let path = e?.path();
        if path.is_dir() {
            std::fs::remove_dir_all(&path)?;
        } else {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

fn apt_source(dir: &Path, what: &str, tar_only: bool) -> Result<std::process::Output> {
    let mut c = Command::new("apt-get");
    if super::is_root() {
        // Root downloads into a directory the _apt sandbox user cannot write.
        c.args(["-o", "APT::Sandbox::User=root"]);
    }
    c.args(["source", "-qq", "--only-source"]);
    if tar_only {
        c.arg("--tar-only");
    }
    c.arg(what)
        .current_dir(dir)
        .env("DEBIAN_FRONTEND", "noninteractive");
    c.output()
        .with_context(|| format!("cannot start apt-get source {what} (is apt installed?)"))
}

/// Make sure apt knows source packages: a deb-src twin of the machine's
/// Debian sources (plus `extra` suites some labelled versions live in) in
/// [`DEB_SRC_FILE`], written when missing or different; the lists are
/// refreshed only when the file was written, or when `probe` still cannot be
/// found.
fn ensure_deb_src(extra: &[&str], probe: &str) -> Result<()> {
    let mut added = false;
    if !extra.is_empty() || !has_deb_src() {
        let deb822 = Path::new("/etc/apt/sources.list.d/debian.sources");
        let legacy = Path::new("/etc/apt/sources.list");
        let mut entry = if let Ok(text) = std::fs::read_to_string(deb822) {
            deb_src_from_deb822(&text)
        } else if let Ok(text) = std::fs::read_to_string(legacy) {
            deb_src_from_legacy(&text)
        } else {
            None
        }
        .ok_or_else(|| {
            anyhow!(
                "no Debian apt sources found ({} or {}) to derive a deb-src entry from",
                deb822.display(),
                legacy.display()
            )
        })?;
        let missing: Vec<&str> = extra
            .iter()
            .copied()
            .filter(|s| {
                !entry
                    .lines()
                    .any(|l| l.starts_with("Suites:") && l.split_whitespace().any(|w| w == *s))
            })
            .collect();
        if !missing.is_empty() {
            // The main archive's URI and key (the first stanza's).
            let first = entry.split("\n\n").next().unwrap_or_default();
            entry.push_str(&format!(
                "\n# suites some corpus versions live in\nTypes: deb-src\n{}Suites: {}\nComponents: main\n{}",
                first.lines().find(|l| l.starts_with("URIs:")).map(|l| format!("{l}\n")).unwrap_or_default(),
                missing.join(" "),
                first.lines().find(|l| l.starts_with("Signed-By:")).map(|l| format!("{l}\n")).unwrap_or_default(),
            ));
        }
        let header = "# Added by `cargo xtask setup --corpus` (nfc): source packages for the analyzer's real-world corpus.\n";
        let entry = format!("{header}{entry}");
        if std::fs::read_to_string(DEB_SRC_FILE).ok().as_deref() != Some(entry.as_str()) {
            eprintln!("corpus: writing {DEB_SRC_FILE} (deb-src for apt-get source)");
            write_root_file(Path::new(DEB_SRC_FILE), &entry)?;
            added = true;
        }
    }
    if added || !showsrc_knows(probe) {
        eprintln!("corpus: apt-get update (source package lists)");
        super::run_cmd(&mut super::apt(&["update", "-qq"]))
            .context("apt-get update failed after adding deb-src")?;
        if !showsrc_knows(probe) {
            bail!("apt-cache showsrc {probe} finds nothing even with deb-src configured");
        }
    }
    Ok(())
}

/// Temp and aside directories left by a run that died (its pid is gone).
fn remove_stale_temps(cache: &Path) {
    let Ok(dir) = std::fs::read_dir(cache) else {
        return;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with(".tmp-") || name.starts_with(".old-")) {
            continue;
        }
        let alive = name
            .rsplit('-')
            .next()
            .and_then(|pid| pid.parse::<u32>().ok())
            .is_some_and(|pid| Path::new("/proc").join(pid.to_string()).exists());
        if !alive {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

fn showsrc_knows(pkg: &str) -> bool {
    Command::new("apt-cache")
        .args(["showsrc", pkg])
        .output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("Package:"))
        .unwrap_or(false)
}

/// Whether any enabled apt source already has deb-src.
fn has_deb_src() -> bool {
    if Path::new(DEB_SRC_FILE).exists() {
        return true;
    }
    let mut files = vec![PathBuf::from("/etc/apt/sources.list")];
    if let Ok(dir) = std::fs::read_dir("/etc/apt/sources.list.d") {
        files.extend(dir.flatten().map(|e| e.path()).filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("list" | "sources")
            )
        }));
    }
    files.iter().any(|f| {
        std::fs::read_to_string(f).is_ok_and(|t| {
            t.lines().map(str::trim).any(|l| {
                l.starts_with("deb-src ")
                    || (l.starts_with("Types:") && l.split_whitespace().any(|w| w == "deb-src"))
            })
        })
    })
}

/// A deb822 `deb-src` stanza for each `deb` stanza (same URIs, Suites,
/// Components, Signed-By).
fn deb_src_from_deb822(text: &str) -> Option<String> {
    let mut out = String::new();
    for stanza in text.split("\n\n") {
        let lines: Vec<&str> = stanza
            .lines()
            .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
            .collect();
        let field = |k: &str| {
            lines
                .iter()
                .find_map(|l| l.strip_prefix(k).and_then(|r| r.strip_prefix(':')))
                .map(str::trim)
        };
        let is_deb = field("Types").is_some_and(|t| t.split_whitespace().any(|w| w == "deb"));
        let enabled = field("Enabled").is_none_or(|e| e != "no");
        let (Some(uris), Some(suites)) = (field("URIs"), field("Suites")) else {
            continue;
        };
        if !is_deb || !enabled {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("Types: deb-src\nURIs: {uris}\nSuites: {suites}\n"));
        if let Some(c) = field("Components") {
            out.push_str(&format!("Components: {c}\n"));
        }
        if let Some(s) = field("Signed-By") {
            out.push_str(&format!("Signed-By: {s}\n"));
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The same, from one-line `deb URI suite components` entries.
fn deb_src_from_legacy(text: &str) -> Option<String> {
    let mut out = String::new();
    for l in text.lines().map(str::trim) {
        let Some(rest) = l.strip_prefix("deb ") else {
            continue;
        };
        let mut opts = "";
        let mut rest = rest.trim();
        if rest.starts_with('[') {
            let end = rest.find(']')?;
            opts = &rest[1..end];
            rest = rest[end + 1..].trim();
        }
        let words: Vec<&str> = rest.split_whitespace().collect();
        if words.len() < 2 {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "Types: deb-src\nURIs: {}\nSuites: {}\n",
            words[0], words[1]
        ));
        if words.len() > 2 {
            out.push_str(&format!("Components: {}\n", words[2..].join(" ")));
        }
        if let Some(k) = opts
            .split_whitespace()
            .find_map(|o| o.strip_prefix("signed-by="))
        {
            out.push_str(&format!("Signed-By: {k}\n"));
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Write a root-owned file, through sudo tee when not root.
fn write_root_file(path: &Path, text: &str) -> Result<()> {
    if super::is_root() {
        let tmp = path.with_extension("tmp-nfc");
        std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
        return Ok(());
    }
    use std::io::Write;
    let mut child = Command::new("sudo")
        .args(["tee", &path.display().to_string()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .context("cannot start sudo tee")?;
    child
        .stdin
        .take()
        .ok_or_else(|| anyhow!("no stdin for sudo tee"))?
        .write_all(text.as_bytes())?;
    let status = child.wait()?;
    if !status.success() {
        bail!("sudo tee {} failed with {status}", path.display());
    }
    Ok(())
}

fn write_manifest(cache: &Path, fetched: &[(&Package, String)]) -> Result<()> {
    let mut packages = serde_json::Map::new();
    for (p, v) in fetched {
        packages.insert(
            p.name.clone(),
            serde_json::json!({
                "version": v,
                "requested": p.version,
                "codebase": p.codebase,
                "root": cache.join(&p.name),
            }),
        );
    }
    let doc = serde_json::json!({
        "labels": labels_path(),
        "packages": packages,
    });
    let path = cache.join("manifest.json");
    let tmp = cache.join("manifest.json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(&doc)? + "\n")
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The `packages:` section of labels.yaml: flow mappings, one a line,
/// `- {name: dpdk, version: "22.11.11-0+deb12u1", codebase: dpdk}` (xtask
/// carries no YAML parser; the analyzer's tests read the whole file).
pub fn parse_packages(text: &str) -> Result<Vec<Package>> {
    let mut out = Vec::new();
    let mut inside = false;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.starts_with("packages:") {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if !line.starts_with(' ') && !line.starts_with('-') {
            break; // the next top-level key
        }
        let body = t
            .strip_prefix('-')
            .map(str::trim)
            .and_then(|b| b.strip_prefix('{'))
            .and_then(|b| b.split('#').next().map(str::trim))
            .and_then(|b| b.strip_suffix('}'))
            .ok_or_else(|| {
                anyhow!("line {n}: expected `- {{name: …, version: …, codebase: …}}`")
            })?;
        let mut name = None;
        let mut version = None;
        let mut codebase = None;
        let mut suite = None;
        for kv in body.split(',') {
            let (k, v) = kv
                .split_once(':')
                .ok_or_else(|| anyhow!("line {n}: `{kv}` is not `key: value`"))?;
            let v = v.trim().trim_matches('"').trim_matches('\'').to_string();
            match k.trim() {
                "name" => name = Some(v),
                "version" => version = Some(v),
                "codebase" => codebase = Some(v),
                "suite" => suite = Some(v),
                _ => {}
            }
        }
        let name = name.ok_or_else(|| anyhow!("line {n}: no name"))?;
        let version = version.ok_or_else(|| anyhow!("line {n}: no version for {name}"))?;
        let plain = |w: &str| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.~:".contains(c))
        };
        if !plain(&name) || !plain(&version) || suite.as_deref().is_some_and(|s| !plain(s)) {
            bail!(
                "line {n}: `{name}` / `{version}` is not a Debian source package name and version"
            );
        }
        let codebase = codebase.unwrap_or_else(|| name.clone());
        out.push(Package {
            name,
            version,
            codebase,
            suite,
        });
    }
    if out.is_empty() {
        bail!("no packages listed");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_section_parses_and_stops_at_the_next_key() {
        let text = "# c\npackages:\n  - {name: dpdk, version: \"22.11.11-0+deb12u1\", codebase: dpdk}\n  # note\n  - {name: bpfcc, version: '0.26.0+ds-1', codebase: bcc}\nunits:\n  - {name: nope}\n";
        let p = parse_packages(text).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].version, "22.11.11-0+deb12u1");
        assert_eq!(p[1].codebase, "bcc");
        assert!(parse_packages("units: []\n").is_err());
        assert!(parse_packages("packages:\n  - {name: a;b, version: 1}\n").is_err());
    }

    #[test]
    fn the_labels_file_names_its_packages() {
        let text = std::fs::read_to_string(labels_path()).unwrap();
        let p = parse_packages(&text).unwrap();
        assert!(p.len() >= 4, "{p:?}");
    }

    #[test]
    fn deb_src_twins_each_deb_stanza() {
        let text = "Types: deb\n# comment\nURIs: http://a/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /k.gpg\n\nTypes: deb\nURIs: http://a/debian-security\nSuites: bookworm-security\nComponents: main\n";
        let out = deb_src_from_deb822(text).unwrap();
        assert_eq!(out.matches("Types: deb-src").count(), 2);
        assert!(out
            .contains("Suites: bookworm bookworm-updates\nComponents: main\nSigned-By: /k.gpg\n"));
        let legacy =
            deb_src_from_legacy("deb [signed-by=/k.gpg] http://a/debian bookworm main contrib\n")
                .unwrap();
        assert_eq!(
            legacy,
            "Types: deb-src\nURIs: http://a/debian\nSuites: bookworm\nComponents: main contrib\nSigned-By: /k.gpg\n"
        );
    }
}
