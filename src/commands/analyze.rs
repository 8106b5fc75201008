//! `nfc analyze` (being wired).

use super::Format;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, _fmt: Format) -> anyhow::Result<ExitCode> {
    Err(nfc::Failure::not_available("analyze").into())
}
