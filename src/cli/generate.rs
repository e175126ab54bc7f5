//! Shell completions and man pages generated from the clap definition; the
//! checked-in `completions/` and `man/` are these, byte for byte.

use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;

/// The shells whose completions are checked in.
pub const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// The completion script for `shell`.
pub fn completion(shell: Shell) -> Vec<u8> {
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "steward", &mut buffer);
    buffer
}

/// The file name a completion script is checked in as.
pub fn completion_file_name(shell: Shell) -> String {
    match shell {
        Shell::Bash => "steward.bash".to_string(),
        Shell::Zsh => "_steward".to_string(),
        Shell::Fish => "steward.fish".to_string(),
        other => format!("steward.{other}"),
    }
}

/// Every man page as (file name, roff): `steward.1` and `steward-<cmd>.1`.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let command = Cli::command();
    let mut pages = vec![("steward.1".to_string(), render(command.clone()))];
    for sub in command.get_subcommands() {
        let name = format!("steward-{}", sub.get_name());
        let page = sub
            .clone()
            .name(name.clone())
            .bin_name(format!("steward {}", sub.get_name()));
        pages.push((format!("{name}.1"), render(page)));
    }
    pages
}

/// The man page of `steward` or of one of its commands.
pub fn man_page(command: Option<&str>) -> Option<Vec<u8>> {
    let wanted = match command {
        None => "steward.1".to_string(),
        Some(name) => format!("steward-{name}.1"),
    };
    man_pages()
        .into_iter()
        .find(|(name, _)| *name == wanted)
        .map(|(_, page)| page)
}

fn render(command: clap::Command) -> Vec<u8> {
    let mut buffer = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut buffer)
        .expect("rendering to memory cannot fail");
    buffer
}
