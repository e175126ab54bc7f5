//! `steward man`: print a man page, or install them all.

use crate::exit::ExitCode;
use std::collections::BTreeSet;
use std::path::PathBuf;

use clap::Args;

use super::Output;
use crate::error::{Error, Result};

/// Print a man page as roff: steward's, a command's, or the guide,
/// reference, design or development page (`steward man add | man -l -`,
/// `steward man guide | man -l -`), or install every page with --install.
/// All pages are also checked in under man/.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The page to print: a command (`task-spawned` for `task spawned`), or
    /// guide, reference, design or development (`steward-guide` works too)
    #[arg(value_name = "PAGE", conflicts_with = "install")]
    command: Option<String>,

    /// Write every page where man finds them when DIR is on its path (the
    /// directories are created if missing): the commands' to DIR/man1/, the
    /// reference to DIR/man5/, the guide, design and development to
    /// DIR/man7/. DIR is ~/.cargo/share/man for a binary in ~/.cargo/bin,
    /// /usr/local/share/man system-wide
    #[arg(long, value_name = "DIR")]
    install: Option<PathBuf>,
}

impl ManArgs {
    /// Whether it writes files (a person's act: it writes anywhere).
    pub fn installs(&self) -> bool {
        self.install.is_some()
    }
}

pub fn run(args: ManArgs, out: &mut Output) -> Result<ExitCode> {
    if let Some(dir) = args.install {
        let pages = super::generate::man_pages();
        let mut sections = BTreeSet::new();
        for (name, page) in &pages {
            // `steward-guide.7` goes to man7.
            let section = name.rsplit_once('.').map_or("1", |(_, section)| section);
            let section_dir = dir.join(format!("man{section}"));
            if sections.insert(section_dir.clone()) {
                std::fs::create_dir_all(&section_dir)
                    .map_err(|err| Error::io(&section_dir, "cannot create directory", err))?;
            }
            let path = section_dir.join(name);
            std::fs::write(&path, page).map_err(|err| Error::io(&path, "cannot write", err))?;
        }
        if !out.quiet {
            let names: Vec<String> = sections
                .iter()
                .filter_map(|path| path.file_name())
                .map(|name| name.to_string_lossy().into_owned())
                .collect();
            out.line(format!(
                "installed {} man pages in {} ({})",
                pages.len(),
                dir.display(),
                names.join(", ")
            ));
        }
        return Ok(ExitCode::Success);
    }
    let page = super::generate::man_page(args.command.as_deref()).ok_or_else(|| {
        Error::bad_value(
            args.command.clone().unwrap_or_default(),
            "no man page of that name: give a command (add, task-spawned) or guide, reference, design or development",
        )
    })?;
    out.stdout.push_str(&String::from_utf8_lossy(&page));
    Ok(ExitCode::Success)
}
