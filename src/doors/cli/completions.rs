//! `steward completions`: print a shell completion script.

use crate::exit::ExitCode;
use clap::Args;
use clap_complete::Shell;

use super::Output;
use crate::error::Result;

/// Print the completion script for a shell. The scripts for bash, zsh and
/// fish are also checked in under completions/.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell
    shell: Shell,
}

pub fn run(args: CompletionsArgs, out: &mut Output) -> Result<ExitCode> {
    out.stdout
        .push_str(&String::from_utf8_lossy(&super::generate::completion(
            args.shell,
        )));
    Ok(ExitCode::Success)
}
