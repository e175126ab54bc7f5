//! Shell completions and man pages generated from the clap definition; the
//! checked-in `completions/` and `man/` are these, byte for byte.

use clap_complete::Shell;

use super::full_command;
use super::mdman::{self, Page};

/// The shells whose completions are checked in.
pub const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// The completion script for `shell`: clap's, plus the labels of the open
/// goals wherever a command takes a GOAL (bash, zsh and fish ask the hidden
/// `steward list --labels`, which reads file names only, in the store `-C`
/// names).
pub fn completion(shell: Shell) -> Vec<u8> {
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut full_command(), "steward", &mut buffer);
    let script = String::from_utf8(buffer).expect("completion scripts are text");
    let commands = goal_commands().join(" ");
    let script = match shell {
        Shell::Bash => {
            let hook = "if [[ \"${BASH_VERSINFO[0]}\" -eq 4";
            let (head, tail) = script
                .split_once(hook)
                .expect("clap's bash script registers itself last");
            format!(
                "{head}{}{hook}{}",
                BASH_GOALS.replace("@COMMANDS@", &commands.replace(' ', "|")),
                tail.replace("complete -F _steward ", "complete -F _steward_with_goals ")
            )
        }
        Shell::Zsh => {
            let hook = "if [ \"$funcstack[1]\" = \"_steward\" ]; then";
            let (head, tail) = script
                .split_once(hook)
                .expect("clap's zsh script registers itself last");
            let goal = format!(":goal -- {GOAL_HELP}:_default'");
            format!(
                "{}{ZSH_GOALS}{hook}{tail}",
                head.replace(&goal, &format!(":goal -- {GOAL_HELP}:_steward_goals'"))
            )
        }
        Shell::Fish => format!("{script}{}", FISH_GOALS.replace("@COMMANDS@", &commands)),
        _ => script,
    };
    script.into_bytes()
}

/// What every GOAL argument says (`show`, `assess`, …).
const GOAL_HELP: &str = "A label, an id, or at least 4 characters of an id";

/// The commands (and aliases) whose first positional argument is a GOAL.
fn goal_commands() -> Vec<String> {
    let mut names = Vec::new();
    for sub in full_command().get_subcommands() {
        let takes_goal = sub
            .get_positionals()
            .next()
            .is_some_and(|arg| arg.get_id() == "goal");
        if takes_goal && !sub.is_hide_set() {
            names.push(sub.get_name().to_string());
            names.extend(sub.get_visible_aliases().map(str::to_string));
        }
    }
    names
}

/// bash: after clap's completion, a GOAL position gets the labels.
const BASH_GOALS: &str = r#"_steward_with_goals() {
    _steward "$@"
    local i word command="" root=() positional=0
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
            -C|--root) root=(-C "${COMP_WORDS[i+1]}"); ((i++)); continue ;;
            --color|--actor|--lock-timeout) ((i++)); continue ;;
            -*) continue ;;
        esac
        if [[ -z $command ]]; then command=$word; else positional=1; fi
    done
    [[ $positional == 1 || ${COMP_WORDS[COMP_CWORD]} == -* ]] && return 0
    case $command in
        @COMMANDS@)
            COMPREPLY=($(compgen -W "$(steward "${root[@]}" list --labels 2>/dev/null)" -- "${COMP_WORDS[COMP_CWORD]}")) ;;
    esac
}

"#;

/// zsh: the GOAL arguments complete with the labels.
const ZSH_GOALS: &str = r#"(( $+functions[_steward_goals] )) ||
_steward_goals() {
    local -a labels root
    local i
    for (( i = 1; i < $#words; i++ )); do
        [[ $words[i] == (-C|--root) ]] && root=(-C "$words[i+1]")
    done
    labels=(${(f)"$(_call_program goals steward $root list --labels 2>/dev/null)"})
    _describe -t goals 'goal' labels
}

"#;

/// fish: the GOAL arguments complete with the labels.
const FISH_GOALS: &str = r#"function __fish_steward_goals
    set -l tokens (commandline -opc)
    set -l root
    for i in (seq (count $tokens))
        if contains -- $tokens[$i] -C --root; and test $i -lt (count $tokens)
            set root -C $tokens[(math $i + 1)]
        end
    end
    steward $root list --labels 2>/dev/null
end
complete -c steward -n "__fish_seen_subcommand_from @COMMANDS@" -f -a "(__fish_steward_goals)" -d 'goal'
"#;

/// The file name a completion script is checked in as.
pub fn completion_file_name(shell: Shell) -> String {
    match shell {
        Shell::Bash => "steward.bash".to_string(),
        Shell::Zsh => "_steward".to_string(),
        Shell::Fish => "steward.fish".to_string(),
        other => format!("steward.{other}"),
    }
}

/// Every man page as (file name, roff): the commands' in section 1, from
/// the clap definition, and the pages written in Markdown under man/ in
/// the sections their titles name.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let mut pages = command_pages();
    pages.extend(markdown_pages().into_iter().map(|page| {
        let name = page.file_name();
        (name, page.roff.into_bytes())
    }));
    pages
}

/// The pages written in Markdown, built into the binary: (file, text).
const MARKDOWN: [(&str, &str); 4] = [
    (
        "steward-guide.7.md",
        include_str!("../../../man/steward-guide.7.md"),
    ),
    (
        "steward-reference.5.md",
        include_str!("../../../man/steward-reference.5.md"),
    ),
    (
        "steward-design.7.md",
        include_str!("../../../man/steward-design.7.md"),
    ),
    (
        "steward-development.7.md",
        include_str!("../../../man/steward-development.7.md"),
    ),
];

/// The Markdown pages as roff. Each is the file it was read from, its
/// title (`# steward-guide(7)`) naming it; the tests hold them to both.
fn markdown_pages() -> Vec<Page> {
    let source = format!("steward {}", env!("CARGO_PKG_VERSION"));
    MARKDOWN
        .iter()
        .map(|(file, markdown)| {
            let page =
                mdman::to_roff(markdown, &source).unwrap_or_else(|err| panic!("man/{file}: {err}"));
            assert_eq!(
                format!("{}.md", page.file_name()),
                *file,
                "man/{file} is titled {}({})",
                page.name,
                page.section
            );
            page
        })
        .collect()
}

/// `steward.1`, `steward-<cmd>.1` and `steward-<cmd>-<sub>.1` for the
/// commands that have their own (`task spawned`), so that every page a
/// SUBCOMMANDS section names exists.
fn command_pages() -> Vec<(String, Vec<u8>)> {
    let command = full_command().disable_help_subcommand(true);
    let mut pages = vec![("steward.1".to_string(), render(command.clone(), "steward"))];
    add_pages(&command, "steward", &mut pages);
    pages
}

/// The pages of `parent`'s commands, named `<prefix>-<name>`.
fn add_pages(parent: &clap::Command, prefix: &str, pages: &mut Vec<(String, Vec<u8>)>) {
    let words = prefix.replace('-', " ");
    for sub in parent.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("{prefix}-{}", sub.get_name());
        let page = sub
            .clone()
            .disable_help_subcommand(true)
            .name(name.clone())
            .bin_name(format!("{words} {}", sub.get_name()));
        pages.push((format!("{name}.1"), render(page.clone(), &name)));
        add_pages(&page, &name, pages);
    }
}

/// A man page by name: `steward` (none), a command (`add`,
/// `task-spawned`), a Markdown page (`guide`), each also with its
/// `steward-` (`steward-guide`).
pub fn man_page(name: Option<&str>) -> Option<Vec<u8>> {
    let wanted = match name {
        None => vec!["steward".to_string()],
        Some(name) => vec![format!("steward-{name}"), name.to_string()],
    };
    let pages = man_pages();
    wanted.iter().find_map(|wanted| {
        pages
            .iter()
            .find(|(file, _)| {
                file.rsplit_once('.')
                    .is_some_and(|(stem, _)| stem == wanted)
            })
            .map(|(_, page)| page.clone())
    })
}

fn render(command: clap::Command, page: &str) -> Vec<u8> {
    let sections = if page == "steward" {
        STEWARD_SECTIONS
    } else {
        &[]
    };
    let examples = EXAMPLES
        .iter()
        .find(|(name, _)| *name == page)
        .map_or(&[][..], |(_, examples)| *examples);
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
        if !examples.is_empty() {
            buffer.extend_from_slice(b".SH EXAMPLES\n");
            for (what, command) in examples {
                buffer.extend_from_slice(
                    format!(
                        ".PP\n{}\n.PP\n.RS 4\n.nf\n{}\n.fi\n.RE\n",
                        roff_text(what),
                        roff_text(command)
                    )
                    .as_bytes(),
                );
            }
        }
        if page == "steward" {
            let references: Vec<String> = MARKDOWN
                .iter()
                .filter_map(|(file, _)| file.strip_suffix(".md")?.rsplit_once('.'))
                // `\%`: a name is never hyphenated (and `.ad l`: the line
                // never stretched between them).
                .map(|(name, section)| {
                    format!("\\%\\fB{}\\fR({section})", name.replace('-', "\\-"))
                })
                .collect();
            buffer.extend_from_slice(
                format!(".SH \"SEE ALSO\"\n.ad l\n{}\n", references.join(", ")).as_bytes(),
            );
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
            "Only a person may: confirm, and add --confirmed where confirmation is required; unblock, reset-budget, resume, abandon, edit, undo, delete; complete a goal with a manual check; update the title, description or label, remove a criterion, clear the checks, raise a budget, loosen a bound, or give --confirmed. An agent asking gets exit 4 and the command the person runs.",
            "An agent may: add goals (unconfirmed where confirmation is required), assess (with --met and --stuck), tick a criterion, add criteria and checks, lower a budget or tighten a bound, pause, record tasks, and complete (the judge still decides).",
            "A goal always has at least one criterion. A --description line that would start a heading or open a code or HTML block is refused with exit 2; indent it by four spaces to keep it as text. complete writes a receipt of what it judged; a goal changed outside steward is reported by tick and doctor as edited_outside.",
        ],
    ),
    (
        "EXIT STATUS",
        &[
            "0 done (tick: nothing needs a person). 1 error: I/O, an unreadable goal file, a goal file edited while the command ran (nothing written to it; run it again), not found, git, no store here (every command but init, config, completions, man and hook). 2 usage: a bad option or value. 3 attention: tick found a goal that needs a person; assess crossed a hard bound and the goal failed; show --exit-status for an open goal; prompt --exit-status when only a person can move things. 4 refused by a rule (a person's act, a budget, confirmation, checks failing on complete). 5 prompt --exit-status: nothing to do now. 75 the store is locked by another run past --lock-timeout.",
        ],
    ),
    (
        "ENVIRONMENT",
        &[
            "STEWARD_ROOT the root, as -C. STEWARD_ACTOR as --actor. STEWARD_OVERRIDE_ACTOR=user a person acting in an agent's shell. STEWARD_LOCK_TIMEOUT as --lock-timeout. STEWARD_<KEY> a setting of steward.yaml, but not the ones read from the file only; an agent's environment may tighten a limit, never loosen it. STEWARD_NOW (an RFC 3339 time used as now) and STEWARD_FAULT are read only by a build with the cargo feature testing. GITHUB_TOKEN or GH_TOKEN for pr_merged and ci_green checks. NO_COLOR turns colour off. VISUAL, EDITOR for edit.",
        ],
    ),
    (
        "FILES",
        &[
            "steward.yaml configuration. state/goals/LABEL.md one file per open goal; state/goals/closed/ the closed ones. state/events/DAY.jsonl the event log, one file a day (DAY.sNNNN.jsonl: its further 256 KiB segments). state/obligations/ID.json what spawned subagents owe. state/runs/ID.json agent runs. state/claims/ claims of goals across machines. state/machines/NAME.pub each machine's public key. state/lock, state/rotation.json, state/tick.json, state/notify.json, state/issues.json, state/edits/ machine state. state/seals/ what steward last wrote to each goal here, the machines trusted and the commands accepted here. state/local/steward.yaml this machine's own settings. state/undo/ the last change to each goal, for undo. state/cache/terminal-goals goals closed by hand still in state/goals/, passed over with a stat until tick moves them; state/cache/leftovers the times of the directories tick last found free of temporary files left by killed writes (both rebuildable: delete them and nothing is lost); state/cache/forecast the last forecast a person asked for, which the page sets beside what happened. ACTIVE-TASKS.md the mirror. ~/.config/steward/machine-key this machine's key (in the home the password database names), never in a store.",
        ],
    ),
];

/// EXAMPLES of the pages that have them: (page, [(what, command)]).
type Examples = &'static [(&'static str, &'static str)];

const EXAMPLES: &[(&str, Examples)] = &[
    (
        "steward",
        &[
            (
                "Set up a store here, register a goal with a check tied to its second criterion, run one watchdog pass and print what the agent should work on:",
                "steward init\nsteward add ship-docs --title \"Publish the docs\" \\\n  --criterion \"Docs build without warnings\" --criterion \"Docs are online\" \\\n  --verify \"file_exists:site/index.html@2\"\nsteward tick\nsteward prompt --heartbeat",
            ),
            (
                "Run the watchdog from cron every five minutes; the mail is the alarm (absolute paths: cron's PATH is short):",
                "*/5 * * * * $HOME/.cargo/bin/steward -C /srv/agent tick -q",
            ),
            (
                "Install the man pages where man finds them for a cargo-installed binary:",
                "steward man --install ~/.cargo/share/man",
            ),
        ],
    ),
    (
        "steward-add",
        &[(
            "A goal an agent cannot close without the tests passing (with verification.allow_commands: true in steward.yaml):",
            "steward add fix-login --title \"Fix the login page\" \\\n  --criterion \"Tests pass\" --verify \"command_exit_zero:cargo test@1\" \\\n  --max-iterations 30 --deadline 2026-12-01",
        )],
    ),
    (
        "steward-assess",
        &[(
            "The agent records what it did, ticks criterion 1 and says what blocks it:",
            "steward --actor agent assess fix-login --summary \"tests pass locally\" \\\n  --met 1 --next \"open the PR\" --blocker \"CI is down\"",
        )],
    ),
    (
        "steward-complete",
        &[(
            "Ask the judge; it runs every check now and refuses (exit 4) while one fails:",
            "steward complete fix-login --reason \"PR #42 merged, tests green\"",
        )],
    ),
    (
        "steward-tick",
        &[
            (
                "See what a pass would do, running no command:",
                "steward tick --dry-run",
            ),
            (
                "In a script: 3 means a goal waits for a person:",
                "steward tick -q; [ $? -eq 3 ] && notify-me",
            ),
        ],
    ),
    (
        "steward-prompt",
        &[(
            "A heartbeat hook prepends the block to the agent's context:",
            "context=$(steward prompt --message \"$LAST_USER_MESSAGE\")",
        )],
    ),
    (
        "steward-list",
        &[(
            "Open goals, then everything as JSON:",
            "steward list\nsteward list --all --json",
        )],
    ),
    (
        "steward-show",
        &[(
            "Wait in a shell loop until the goal is judged done:",
            "until steward show fix-login --exit-status -q; do sleep 60; done",
        )],
    ),
    (
        "steward-undo",
        &[(
            "Take back an assessment made by mistake, then redo it:",
            "steward undo fix-login\nsteward undo fix-login",
        )],
    ),
    (
        "steward-delete",
        &[(
            "Remove a goal added by mistake, and bring it back:",
            "steward delete fix-logn\nsteward undo fix-logn",
        )],
    ),
    (
        "steward-task-spawned",
        &[(
            "A harness hook records a subagent linked to goal deploy-api by its label:",
            "steward --actor agent task spawned --label deploy-api-tests --pid \"$PID\" --timeout 30m",
        )],
    ),
    (
        "steward-task-ended",
        &[(
            "Its end, with its last line of output (empty is fine):",
            "steward --actor agent task ended --label deploy-api-tests --outcome ok \\\n  --detail \"$(tail -n 1 results/deploy-api-tests.txt)\"",
        )],
    ),
    (
        "steward-man",
        &[
            (
                "Read a page without installing it:",
                "steward man add | man -l -",
            ),
            (
                "Read the guide without installing it:",
                "steward man guide | man -l -",
            ),
            (
                "Install every page: the commands' under DIR/man1, the reference under DIR/man5, the guide, design and development under DIR/man7 (man finds ~/.cargo/share/man for ~/.cargo/bin/steward):",
                "steward man --install ~/.cargo/share/man",
            ),
        ],
    ),
    (
        "steward-completions",
        &[(
            "Complete commands, options and goal labels in bash:",
            "steward completions bash > ~/.local/share/bash-completion/completions/steward",
        )],
    ),
];
