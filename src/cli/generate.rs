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
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
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
    let sections = if command.get_name() == "steward" {
        STEWARD_SECTIONS
    } else {
        &[]
    };
    let has_subcommands = command.get_subcommands().next().is_some();
    let has_arguments = command.get_arguments().any(|a| !a.is_hide_set());
    let has_version = command
        .get_version()
        .or(command.get_long_version())
        .is_some();
    let man = clap_mangen::Man::new(command);
    let mut buffer = Vec::new();
    let rendered = (|| -> std::io::Result<()> {
        man.render_title(&mut buffer)?;
        man.render_name_section(&mut buffer)?;
        man.render_synopsis_section(&mut buffer)?;
        man.render_description_section(&mut buffer)?;
        if has_arguments {
            man.render_options_section(&mut buffer)?;
        }
        if has_subcommands {
            man.render_subcommands_section(&mut buffer)?;
        }
        for (title, paragraphs) in sections {
            buffer.extend_from_slice(format!(".SH \"{title}\"\n").as_bytes());
            for paragraph in *paragraphs {
                buffer.extend_from_slice(format!(".PP\n{}\n", roff_text(paragraph)).as_bytes());
            }
        }
        if has_version {
            man.render_version_section(&mut buffer)?;
        }
        Ok(())
    })();
    rendered.expect("rendering to memory cannot fail");
    // Each section rendered on its own repeats roff's preamble: keep one.
    let text = String::from_utf8(buffer).expect("roff is text");
    let preamble = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    match text.split_once(preamble) {
        Some((head, rest)) => {
            format!("{head}{preamble}{}", rest.replace(preamble, "")).into_bytes()
        }
        None => text.into_bytes(),
    }
}

/// Text as a roff paragraph: backslashes escaped, and no line may start
/// with a control character.
fn roff_text(text: &str) -> String {
    text.replace('\\', "\\e")
        .lines()
        .map(|line| {
            if line.starts_with('.') || line.starts_with('\'') {
                format!("\\&{line}")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Sections of `steward(1)` beyond what the command line says.
const STEWARD_SECTIONS: &[(&str, &[&str])] = &[
    (
        "WHO MAY DO WHAT",
        &[
            "An agent is judged, never the judge. STEWARD_ACTOR=agent, or a marker an agent harness sets in its shells (CLAUDECODE=1, CLAUDE_CODE_CHILD_SESSION=1, CODEX_CI=1, CODEX_THREAD_ID, AI_AGENT, STEWARD_DISPATCH_ID), makes the caller an agent; no flag raises it, and --actor agent always lowers a person. A person in an agent's shell sets STEWARD_OVERRIDE_ACTOR=user; the history line and the event of every change made so say override.",
            "Only a person may: confirm, and add --confirmed where confirmation is required; unblock, reset-budget, resume, abandon, edit; complete a goal with a manual check; update the title, description or label, remove a criterion, clear the checks, raise a budget, loosen a bound, or give --confirmed. An agent asking gets exit 4 and the command the person runs.",
            "An agent may: add goals (unconfirmed where confirmation is required), assess (with --met and --stuck), tick a criterion, add criteria and checks, lower a budget or tighten a bound, pause, record tasks, and complete (the judge still decides).",
            "A goal always has at least one criterion. A --description line that would start a heading or open a code or HTML block is refused with exit 2; indent it by four spaces to keep it as text. complete writes a receipt of what it judged; a goal changed outside steward is reported by tick and doctor as edited_outside.",
        ],
    ),
    (
        "EXIT STATUS",
        &[
            "0 done (tick: nothing needs a person). 1 error: I/O, an unreadable goal file, not found, git. 2 usage: a bad option or value. 3 attention: tick found a goal that needs a person; show --exit-status for an open goal; prompt --exit-status when only a person can move things. 4 refused by a rule (a person's act, a budget, confirmation, checks failing on complete). 5 prompt --exit-status: nothing to do now. 75 the store is locked by another run past --lock-timeout.",
        ],
    ),
    (
        "ENVIRONMENT",
        &[
            "STEWARD_ROOT the root, as -C. STEWARD_ACTOR as --actor. STEWARD_OVERRIDE_ACTOR=user a person acting in an agent's shell. STEWARD_NOW an RFC 3339 time used as now. STEWARD_LOCK_TIMEOUT as --lock-timeout. STEWARD_<KEY> any setting of steward.yaml but the security ones (verification.allow_commands, verification.allow_private_hosts, judge.unchecked). GITHUB_TOKEN or GH_TOKEN for pr_merged checks. NO_COLOR turns colour off. VISUAL, EDITOR for edit.",
        ],
    ),
    (
        "FILES",
        &[
            "steward.yaml configuration. state/goals/LABEL.md one file per open goal; state/goals/closed/ the closed ones. state/events.jsonl the event log. state/lock, state/rotation.json, state/obligations.json, state/digests.json, state/edits/ machine state. ACTIVE-TASKS.md the mirror.",
        ],
    ),
];
