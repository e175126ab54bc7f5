//! `steward merge-driver mirror BASE OURS THEIRS`: the merge driver git
//! runs for the mirror file (`init --git` registers it): steward's block
//! never conflicts, the rest merges line by line, and the merged file is
//! written over OURS. Exit 0 when it merged cleanly, 1 with conflict
//! markers left for a person.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::error::{Error, Result};

/// Git's merge driver for steward's files (registered by `init --git`; not
/// for people)
#[derive(Debug, Args)]
pub struct MergeDriverArgs {
    /// Which file
    kind: Kind,
    /// The common ancestor's version (%O)
    base: PathBuf,
    /// Our version, where the result is written (%A)
    ours: PathBuf,
    /// Their version (%B)
    theirs: PathBuf,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Kind {
    Mirror,
}

pub fn run(args: MergeDriverArgs) -> Result<u8> {
    let read = |path: &PathBuf| {
        std::fs::read_to_string(path).map_err(|err| Error::io(path, "cannot read", err))
    };
    let (base, ours, theirs) = (read(&args.base)?, read(&args.ours)?, read(&args.theirs)?);
    let (merged, clean) = match args.kind {
        Kind::Mirror => crate::mirror::merge(&base, &ours, &theirs),
    };
    std::fs::write(&args.ours, merged).map_err(|err| Error::io(&args.ours, "cannot write", err))?;
    Ok(if clean { 0 } else { 1 })
}
