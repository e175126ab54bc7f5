//! `steward man`: print a man page.

use clap::Args;

use super::Output;
use crate::error::{Error, Result};

/// Print the man page of steward, or of one command, as roff
/// (`steward man add | man -l -`). All pages are also checked in under man/.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print
    command: Option<String>,
}

pub fn run(args: ManArgs, out: &mut Output) -> Result<u8> {
    let page = super::generate::man_page(args.command.as_deref()).ok_or_else(|| {
        Error::bad_value(
            args.command.clone().unwrap_or_default(),
            "no man page for it: not a steward command",
        )
    })?;
    out.stdout.push_str(&String::from_utf8_lossy(&page));
    Ok(0)
}
