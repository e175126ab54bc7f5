//! `steward man`: print a man page, or install them all.

use std::path::PathBuf;

use clap::Args;

use super::Output;
use crate::error::{Error, Result};

/// Print the man page of steward, or of one command, as roff
/// (`steward man add | man -l -`), or install every page with --install.
/// All pages are also checked in under man/.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`task-spawned` for `task spawned`)
    #[arg(conflicts_with = "install")]
    command: Option<String>,

    /// Write every page to DIR/man1/ (created if missing), where man finds
    /// them when DIR is on its path: ~/.cargo/share/man for a binary in
    /// ~/.cargo/bin, /usr/local/share/man system-wide
    #[arg(long, value_name = "DIR")]
    install: Option<PathBuf>,
}

impl ManArgs {
    /// Whether it writes files (a person's act: it writes anywhere).
    pub fn installs(&self) -> bool {
        self.install.is_some()
    }
}

pub fn run(args: ManArgs, out: &mut Output) -> Result<u8> {
    if let Some(dir) = args.install {
        let section = dir.join("man1");
        std::fs::create_dir_all(&section)
            .map_err(|err| Error::io(&section, "cannot create directory", err))?;
        let pages = super::generate::man_pages();
        for (name, page) in &pages {
            let path = section.join(name);
            std::fs::write(&path, page).map_err(|err| Error::io(&path, "cannot write", err))?;
        }
        if !out.quiet {
            out.line(format!(
                "installed {} man pages in {}",
                pages.len(),
                section.display()
            ));
        }
        return Ok(0);
    }
    let page = super::generate::man_page(args.command.as_deref()).ok_or_else(|| {
        Error::bad_value(
            args.command.clone().unwrap_or_default(),
            "no man page for it: not a steward command",
        )
    })?;
    out.stdout.push_str(&String::from_utf8_lossy(&page));
    Ok(0)
}
