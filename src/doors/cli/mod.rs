//! The command line: what the user typed (clap structs), dispatch to one
//! `run` per command, and printing.

mod abandon;
mod accept;
mod add;
mod args;
mod assess;
mod audit;
mod budget;
mod complete;
mod completions;
mod config;
mod confirm;
mod delete;
mod digest;
mod dispatch;
mod doctor;
mod edit;
mod fleet;
pub(crate) mod forecast;
pub mod generate;
mod handoff;
mod hook;
mod init;
mod intake;
mod list;
mod log;
mod man;
mod mcp;
mod mdman;
mod merge_driver;
mod mirror;
mod page;
mod pause;
mod plan;
mod prompt;
mod render;
mod replies;
mod report;
mod reset_budget;
mod resolve;
mod resume;
mod run_agent;
mod runs;
mod schedule;
mod show;
mod status;
mod sync;
mod task;
mod tasks;
mod tick;
mod unblock;
mod undo;
mod update;
mod why;
mod work;

use crate::exit::ExitCode;
use std::borrow::Cow;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config::FlagOverrides;
use crate::context::{Context, Environment, GlobalOptions};
use crate::engine::{Notices, Saved};
use crate::error::{Error, Input, Result};

/// Durable goals for autonomous agents, kept in plain text.
///
/// steward remembers each goal as a Markdown file with YAML front matter under
/// state/goals/, runs one deterministic watchdog pass per invocation and
/// prints what an agent should work on next. No daemon, no server.
#[derive(Debug, Parser)]
#[command(
    name = "steward",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes, shown apart from a command's own.
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Use DIR as the store root instead of searching upwards from the
    /// working directory
    #[arg(short = 'C', long = "root", value_name = "DIR", global = true)]
    pub root: Option<PathBuf>,

    /// Print one JSON document (schema_version 1) instead of text
    #[arg(long, global = true)]
    pub json: bool,

    /// When to colour output; NO_COLOR turns off `auto`
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        default_value = "auto",
        global = true
    )]
    pub color: ColorChoice,

    /// Print nothing on success except what was asked for
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Who is acting: user, agent or steward [env: STEWARD_ACTOR]
    #[arg(long, value_name = "ACTOR", global = true)]
    pub actor: Option<String>,

    /// Commit every change to git (overrides git.commit)
    #[arg(long, global = true, overrides_with = "no_commit")]
    pub commit: bool,

    /// Do not commit (overrides git.commit)
    #[arg(long, global = true, overrides_with = "commit")]
    pub no_commit: bool,

    /// How long to wait for another steward run's lock before exiting with 75
    /// [default: 10s] [env: STEWARD_LOCK_TIMEOUT]
    #[arg(long, value_name = "DURATION", global = true)]
    pub lock_timeout: Option<String>,
}

/// Declares the commands once: the `Command` enum clap parses, whose
/// arguments are added only to the command being run (`defer`: adding all
/// of them cost every run ~0.3 ms), and [`with_all_arguments`], which adds
/// them everywhere for what reads the whole tree (help that lists the
/// commands, completions, man pages).
macro_rules! commands {
    ($( $(#[$attr:meta])* $variant:ident($args:ty), )*) => {
        #[derive(Debug, Subcommand)]
        #[command(defer = true)]
        pub enum Command {
            $( $(#[$attr])* $variant($args), )*
        }

        /// `cli` (built from [`Cli`]) with every command's arguments added
        /// now rather than when the command is parsed.
        fn with_all_arguments(cli: clap::Command) -> clap::Command {
            let augment: &[fn(clap::Command) -> clap::Command] =
                &[$( <$args as clap::Args>::augment_args, )*];
            let mut augment = augment.iter();
            cli.mut_subcommands(|command| {
                let add_arguments = augment.next().expect("one entry per command");
                add_arguments(command.defer(std::convert::identity))
            })
        }
    };
}

commands! {
    Init(init::InitArgs),
    Add(add::AddArgs),
    List(list::ListArgs),
    Show(show::ShowArgs),
    Why(why::WhyArgs),
    Edit(edit::EditArgs),
    Update(update::UpdateArgs),
    Pause(pause::PauseArgs),
    Resume(resume::ResumeArgs),
    Confirm(confirm::ConfirmArgs),
    #[command(visible_alias = "cancel")]
    Abandon(abandon::AbandonArgs),
    Unblock(unblock::UnblockArgs),
    Accept(accept::AcceptArgs),
    ResetBudget(reset_budget::ResetBudgetArgs),
    Undo(undo::UndoArgs),
    Delete(delete::DeleteArgs),
    Assess(assess::AssessArgs),
    Prompt(prompt::PromptArgs),
    Complete(complete::CompleteArgs),
    Handoff(handoff::HandoffArgs),
    Plan(plan::PlanArgs),
    Work(work::WorkArgs),
    Tick(tick::TickArgs),
    Status(status::StatusArgs),
    Forecast(forecast::ForecastArgs),
    Sync(sync::SyncArgs),
    Resolve(resolve::ResolveArgs),
    Digest(digest::DigestArgs),
    Report(report::ReportArgs),
    Dispatch(dispatch::DispatchArgs),
    Runs(runs::RunsArgs),
    Schedule(schedule::ScheduleArgs),
    Hook(hook::HookArgs),
    Mcp(mcp::McpArgs),
    #[command(hide = true)]
    MergeDriver(merge_driver::MergeDriverArgs),
    #[command(hide = true)]
    RunAgent(run_agent::RunAgentArgs),
    Task(task::TaskArgs),
    Tasks(tasks::TasksArgs),
    Budget(budget::BudgetArgs),
    Replies(replies::RepliesArgs),
    Fleet(fleet::FleetArgs),
    Intake(intake::IntakeArgs),
    Mirror(mirror::MirrorArgs),
    Audit(audit::AuditArgs),
    Log(log::LogArgs),
    Doctor(doctor::DoctorArgs),
    Config(config::ConfigArgs),
    Completions(completions::CompletionsArgs),
    Man(man::ManArgs),
}

/// The whole command tree, every command's arguments included.
pub fn full_command() -> clap::Command {
    with_all_arguments(Cli::command())
}

/// Parses the command line. A run parses with a tree that holds only the
/// command asked for, with only its own arguments; help and errors are said
/// from the whole tree (the list of commands shows each one's purpose),
/// which costs only then.
pub fn parse(args: Vec<std::ffi::OsString>) -> std::result::Result<Cli, clap::Error> {
    if let Some(parsed) = parse_with_only_the_asked_command(&args) {
        return parsed;
    }
    let mut matches = full_command().try_get_matches_from(args)?;
    Cli::from_arg_matches_mut(&mut matches)
}

/// The command line parsed by a tree with the global options and only the
/// command it asks for (none, for `steward --version`), or `None` for
/// clap's whole tree to parse it and say what is wrong. clap copies each
/// global option into every command of the tree it parses with, and
/// settles each command's settings: with all of them that was a tenth of
/// a write's time (`perf record` of `update`) and a quarter of
/// `--version`'s. The version is the one answer this tree gives itself.
fn parse_with_only_the_asked_command(
    args: &[std::ffi::OsString],
) -> Option<std::result::Result<Cli, clap::Error>> {
    let mut tree =
        GlobalArgs::augment_args(clap::Command::new("steward")).version(env!("CARGO_PKG_VERSION"));
    if let Some(name) = asked_command(&tree, args) {
        let commands = <Command as Subcommand>::augment_subcommands(clap::Command::new("steward"));
        let asked = commands.find_subcommand(name)?.clone();
        tree = tree.subcommand(asked).subcommand_required(true);
    }
    match tree.try_get_matches_from(args) {
        Ok(mut matches) => Cli::from_arg_matches_mut(&mut matches).ok().map(Ok),
        Err(err) if err.kind() == clap::error::ErrorKind::DisplayVersion => Some(Err(err)),
        Err(_) => None,
    }
}

/// The first word of `args` after the program that is not a global option
/// or its value: the command asked for, as clap reads it. `None` at `--`,
/// an unknown option or a word that is not UTF-8.
fn asked_command<'a>(globals: &clap::Command, args: &'a [std::ffi::OsString]) -> Option<&'a str> {
    let takes_value = |arg: Option<&clap::Arg>| arg.map(|arg| arg.get_action().takes_values());
    let mut words = args.iter().skip(1);
    while let Some(word) = words.next() {
        let word = word.to_str()?;
        let value_follows = if let Some(long) = word.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            let arg = globals.get_arguments().find(|a| a.get_long() == Some(name));
            takes_value(arg)? && !attached
        } else if let Some(shorts) = word.strip_prefix('-').filter(|s| !s.is_empty()) {
            // `-qC dir`: flags, then at most one option whose value is the
            // rest of the word or else the next one.
            let mut value_follows = false;
            for (at, short) in shorts.char_indices() {
                let arg = globals
                    .get_arguments()
                    .find(|a| a.get_short() == Some(short));
                if takes_value(arg)? {
                    value_follows = at + short.len_utf8() == shorts.len();
                    break;
                }
            }
            value_follows
        } else {
            return Some(word);
        };
        if value_follows {
            words.next()?;
        }
    }
    None
}

impl Command {
    /// The command's name, for commit messages.
    fn name(&self) -> &'static str {
        match self {
            Command::Init(_) => "init",
            Command::Add(_) => "add",
            Command::List(_) => "list",
            Command::Show(_) => "show",
            Command::Why(_) => "why",
            Command::Edit(_) => "edit",
            Command::Update(_) => "update",
            Command::Pause(_) => "pause",
            Command::Resume(_) => "resume",
            Command::Confirm(_) => "confirm",
            Command::Abandon(_) => "abandon",
            Command::Unblock(_) => "unblock",
            Command::Accept(_) => "accept",
            Command::ResetBudget(_) => "reset-budget",
            Command::Undo(_) => "undo",
            Command::Delete(_) => "delete",
            Command::Assess(_) => "assess",
            Command::Complete(_) => "complete",
            Command::Prompt(_) => "prompt",
            Command::Handoff(_) => "handoff",
            Command::Plan(_) => "plan",
            Command::Work(_) => "work",
            Command::Tick(_) => "tick",
            Command::Status(_) => "status",
            Command::Sync(_) => "sync",
            Command::Resolve(_) => "resolve",
            Command::Digest(_) => "digest",
            Command::Report(_) => "report",
            Command::Dispatch(_) => "dispatch",
            Command::Runs(_) => "runs",
            Command::Forecast(_) => "forecast",
            Command::Schedule(_) => "schedule",
            Command::Hook(_) => "hook",
            Command::Mcp(_) => "mcp",
            Command::MergeDriver(_) => "merge-driver",
            Command::RunAgent(_) => "run-agent",
            Command::Task(_) => "task",
            Command::Tasks(_) => "tasks",
            Command::Budget(_) => "budget",
            Command::Replies(_) => "replies",
            Command::Fleet(_) => "fleet",
            Command::Intake(_) => "intake",
            Command::Mirror(_) => "mirror",
            Command::Audit(_) => "audit",
            Command::Log(_) => "log",
            Command::Doctor(_) => "doctor",
            Command::Config(_) => "config",
            Command::Completions(_) => "completions",
            Command::Man(_) => "man",
        }
    }
}

impl Command {
    /// Whether the command works on a store and must refuse to run outside
    /// one. `init` makes one; `completions` and `man` only print; `config`
    /// shows what a store here would use (defaults and environment).
    fn needs_store(&self) -> bool {
        !matches!(
            self,
            Command::Init(_) | Command::Config(_) | Command::Completions(_) | Command::Man(_)
        )
    }
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// What a command printed and the exit code it chose. On an error nothing of
/// `stdout` is printed (steward-reference(5), "JSON OUTPUT": stdout stays
/// empty), unless the command chose to stream a long listing as it goes.
#[derive(Default)]
pub struct Output {
    /// `--json`: one JSON document instead of text.
    pub json: bool,
    /// `-q`: nothing on success but what was asked for.
    pub quiet: bool,
    /// Whether to colour text (`--color`, `NO_COLOR`, a terminal).
    pub color: bool,
    pub stdout: String,
    /// Diagnostics printed even when the command succeeds.
    pub stderr: Vec<String>,
    /// The command did its job but something after it failed (the git
    /// commit): print the output, then exit 1.
    pub failed: bool,
    /// Set by [`Output::stream`]: lines go to stdout at once.
    streaming: Option<std::io::BufWriter<std::io::Stdout>>,
    /// The first error writing to stdout while streaming.
    pub stream_error: Option<std::io::Error>,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("stdout", &self.stdout)
            .field("stderr", &self.stderr)
            .finish_non_exhaustive()
    }
}

impl Output {
    pub fn line(&mut self, text: impl AsRef<str>) {
        self.text(text.as_ref());
        self.text("\n");
    }

    /// Text without a line ending. Goal files are written by agents and by
    /// hand: control characters in them never reach the terminal (see
    /// [`clean`]).
    pub fn text(&mut self, text: &str) {
        use std::io::Write;
        let text = &clean(text, self.color);
        match &mut self.streaming {
            Some(writer) if self.stream_error.is_none() => {
                if let Err(err) = writer.write_all(text.as_bytes()) {
                    self.stream_error = Some(err);
                }
            }
            Some(_) => {}
            None => self.stdout.push_str(text),
        }
    }

    pub fn warn(&mut self, text: impl Into<String>) {
        self.stderr.push(clean(&text.into(), false).into_owned());
    }

    pub fn json(&mut self, value: &impl serde::Serialize) {
        self.line(serde_json::to_string(value).expect("JSON values serialize"));
    }

    /// From now on, write lines to stdout as they come rather than holding
    /// them: for listings too long to keep in memory.
    pub fn stream(&mut self) {
        let mut writer = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout());
        let held = std::mem::take(&mut self.stdout);
        if let Err(err) = std::io::Write::write_all(&mut writer, held.as_bytes()) {
            self.stream_error = Some(err);
        }
        self.streaming = Some(writer);
    }

    /// Flushes a stream; the error, if writing failed.
    pub fn finish_stream(&mut self) -> Option<std::io::Error> {
        if let Some(mut writer) = self.streaming.take()
            && self.stream_error.is_none()
            && let Err(err) = std::io::Write::flush(&mut writer)
        {
            self.stream_error = Some(err);
        }
        self.stream_error.take()
    }
}

/// Runs the parsed command line; returns the exit code.
pub fn run(cli: Cli, env: Environment, out: &mut Output) -> Result<ExitCode> {
    // `init` works where it is started; everything else searches upwards.
    out.json = cli.global.json;
    out.quiet = cli.global.quiet;
    out.color = match cli.global.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            env.stdout_is_terminal
                && env.var("NO_COLOR").is_none()
                && env.var("TERM") != Some("dumb")
        }
    };
    let command = cli.command;
    if let Command::MergeDriver(args) = command {
        // Git runs it mid-merge: no store, no lock, no configuration.
        return merge_driver::run(args, &env);
    }
    if let Command::Hook(args) = command {
        // A hook finds its store from its input, and never fails loudly.
        return hook::run(&cli.global, env, args, out);
    }
    let cli = Cli {
        global: cli.global,
        command,
    };
    let options = GlobalOptions {
        root: cli.global.root.clone().or_else(|| match &cli.command {
            Command::Init(_) if env.var("STEWARD_ROOT").is_none() => Some(env.cwd.clone()),
            _ => None,
        }),
        actor: cli.global.actor.clone(),
        lock_timeout: cli.global.lock_timeout.clone(),
        flags: FlagOverrides {
            git_commit: match (cli.global.commit, cli.global.no_commit) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
        },
        command: cli.command.name(),
        tolerate_config_errors: matches!(
            cli.command,
            Command::Doctor(_) | Command::Completions(_) | Command::Man(_)
        ),
    };
    if let Command::Mcp(args) = cli.command {
        return mcp::run(as_agent(options)?, env, args);
    }
    let mut ctx = Context::resolve(&options, env)?;
    if ctx.env.stderr_is_terminal && !out.quiet {
        ctx.progress = terminal_progress();
    }
    if cli.command.needs_store() && !ctx.store.exists() {
        // Nothing is created outside a store: not the root, not `state/`.
        return Err(crate::error::Error::NotAStore {
            searched: ctx.root.clone(),
        });
    }
    if cli.command.needs_store() {
        // A clone whose .gitattributes names steward's merge driver, which
        // git does not carry: registered here, before a pull can conflict.
        if let Some(done) = crate::engine::git_setup::adopt_clone(&ctx) {
            out.warn(done);
        }
    }
    // A configuration file that does not load: the command goes on with
    // what a person here last accepted, and says so (these tell it their
    // own way, or read no configuration).
    let tells_itself = matches!(
        cli.command,
        Command::Tick(_)
            | Command::Config(_)
            | Command::Doctor(_)
            | Command::Completions(_)
            | Command::Man(_)
    );
    if !tells_itself && let Some(warning) = crate::engine::trust::broken_config_warning(&ctx) {
        out.warn(warning);
    }
    match cli.command {
        Command::Init(args) => init::run(&ctx, args, out),
        Command::Add(args) => add::run(&ctx, args, out),
        Command::List(args) => list::run(&ctx, args, out),
        Command::Show(args) => show::run(&ctx, args, out),
        Command::Why(args) => why::run(&ctx, args, out),
        Command::Edit(args) => edit::run(&ctx, args, out),
        Command::Update(args) => update::run(&ctx, args, out),
        Command::Pause(args) => pause::run(&ctx, args, out),
        Command::Resume(args) => resume::run(&ctx, args, out),
        Command::Confirm(args) => confirm::run(&ctx, args, out),
        Command::Abandon(args) => abandon::run(&ctx, args, out),
        Command::Unblock(args) => unblock::run(&ctx, args, out),
        Command::Accept(args) => accept::run(&ctx, args, out),
        Command::ResetBudget(args) => reset_budget::run(&ctx, args, out),
        Command::Undo(args) => undo::run(&ctx, args, out),
        Command::Delete(args) => delete::run(&ctx, args, out),
        Command::Assess(args) => assess::run(&ctx, args, out),
        Command::Prompt(args) => prompt::run(&ctx, args, out),
        Command::Complete(args) => complete::run(&ctx, args, out),
        Command::Handoff(args) => handoff::run(&ctx, args, out),
        Command::Plan(args) => plan::run(&ctx, args, out),
        Command::Work(args) => work::run(&ctx, args, out),
        Command::Tick(args) => tick::run(&ctx, args, out),
        Command::Status(args) => status::run(&ctx, args, out),
        Command::Sync(args) => sync::run(&ctx, args, out),
        Command::Resolve(args) => resolve::run(&ctx, args, out),
        Command::Digest(args) => digest::run(&ctx, args, out),
        Command::Report(args) => report::run(&ctx, args, out),
        Command::Dispatch(args) => dispatch::run(&ctx, args, out),
        Command::Runs(args) => runs::run(&ctx, args, out),
        Command::Forecast(args) => forecast::run(&ctx, args, out),
        Command::Schedule(args) => schedule::run(&ctx, args, out),
        Command::Hook(_) => unreachable!("answered before the store is resolved"),
        Command::Mcp(_) => unreachable!("serves with a context per call"),
        Command::MergeDriver(_) => unreachable!("answered before the store is resolved"),
        Command::RunAgent(args) => run_agent::run(&ctx, args, out),
        Command::Task(args) => task::run(&ctx, args, out),
        Command::Tasks(args) => tasks::run(&ctx, args, out),
        Command::Budget(args) => budget::run(&ctx, args, out),
        Command::Replies(args) => replies::run(&ctx, args, out),
        Command::Fleet(args) => fleet::run(&ctx, args, out),
        Command::Intake(args) => intake::run(&ctx, args, out),
        Command::Mirror(args) => mirror::run(&ctx, args, out),
        Command::Audit(args) => audit::run(&ctx, args, out),
        Command::Log(args) => log::run(&ctx, args, out),
        Command::Doctor(args) => doctor::run(&ctx, args, out),
        Command::Config(args) => config::run(&ctx, args, out),
        Command::Completions(args) => completions::run(args, out),
        Command::Man(args) => {
            if args.installs() {
                crate::engine::authority::person_only(&ctx, "install man pages", || {
                    "steward man --install DIR".to_string()
                })?;
            }
            man::run(args, out)
        }
    }
}

/// A progress line on a terminal's stderr, rewritten in place and cleared
/// at the end (goal text in it is cleaned like every other output).
fn terminal_progress() -> crate::context::Progress {
    crate::context::Progress::to(|line| {
        use std::io::Write;
        let mut stderr = std::io::stderr().lock();
        let _ = match line {
            Some(line) => write!(stderr, "\r\x1b[2Ksteward: {}", clean(line, false)),
            None => write!(stderr, "\r\x1b[2K"),
        };
        let _ = stderr.flush();
    })
}

/// `options` for a command that always acts as the agent (`mcp`): a
/// person's `--actor` is refused rather than ignored.
fn as_agent(mut options: GlobalOptions) -> Result<GlobalOptions> {
    match options.actor.as_deref() {
        None | Some("agent") => {
            options.actor = Some("agent".to_string());
            Ok(options)
        }
        Some(other) => Err(crate::error::Error::bad_value(
            "--actor",
            format!(
                "`{other}`: steward {} always acts as the agent",
                options.command
            ),
        )),
    }
}

/// What to do about `err`, where the front door knows better than the
/// error: a store that cannot be written because the agent's sandbox
/// keeps it read-only is reached by running steward as a command of its
/// own, or through its MCP tools.
pub fn hint(err: &crate::error::Error) -> Option<&'static str> {
    match err {
        crate::error::Error::Io { source, .. } if source.raw_os_error() == Some(libc::EROFS) => {
            Some(SANDBOXED_SHELL_HINT)
        }
        _ => None,
    }
}

/// What an agent whose shell is sandboxed is told when steward, run
/// inside the sandbox, cannot write the store.
pub const SANDBOXED_SHELL_HINT: &str = "this shell is inside the agent's sandbox, which keeps steward's store read-only and lets `steward` out only as a command of its own: run the steward command alone (not after `&&`, `;` or `|`, without `cd`, `$(...)` or a redirect), or call steward's MCP tools (goal_assess, goal_complete)";

/// `text` without the control characters a terminal acts on (escape
/// sequences, BEL, carriage returns, C1 controls), each replaced by U+FFFD;
/// line feeds and tabs stay. With `color`, the colour codes steward paints
/// with (`ESC [ digits m`) stay too.
/// An error as the command line says it: inputs named by their flags.
pub fn message(err: &Error) -> String {
    err.named_by(|input| match input {
        Input::Criterion => "--criterion",
        Input::Description => "--description",
        Input::Deadline => "--deadline",
        Input::WaitUntil => "--wait-until",
        Input::Agent => "--agent",
        Input::Met => "--met",
        Input::Check => "--check",
        Input::Uncheck => "--uncheck",
        Input::RemoveCriterion => "--remove-criterion",
        Input::Verify => "--verify",
        Input::Node => "--node",
        Input::Handoff => "handoff",
        Input::OverseerUpdate => "--from-json",
        Input::Reason => "--reason",
        Input::Confirmed => "--confirmed",
    })
}

pub fn clean(text: &str, color: bool) -> Cow<'_, str> {
    if !has_unsafe_char(text.as_bytes()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' && color {
            let sgr = rest[1..].strip_prefix('[').and_then(|after| {
                let digits = after.chars().take_while(char::is_ascii_digit).count();
                (digits > 0 && after[digits..].starts_with('m')).then_some(digits + 3)
            });
            if let Some(len) = sgr {
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        out.push(if is_unsafe(c) { '\u{FFFD}' } else { c });
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// A control character a terminal acts on: all but the line feed and tab.
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c)
}

/// Whether UTF-8 `bytes` hold a control character other than a line feed
/// or a tab: C0 and DEL are single bytes, C1 (U+0080–U+009F) is `C2 80`
/// to `C2 9F`. A byte scan, since a listing can be megabytes: each block of
/// 64 bytes is tested without branches (the compiler makes that vector
/// code), and only a block holding a suspect byte is looked at closely.
fn has_unsafe_char(bytes: &[u8]) -> bool {
    const BLOCK: usize = 64;
    let suspect = |byte: u8| {
        (byte < 0x20 && byte != b'\n' && byte != b'\t') | (byte == 0x7f) | (byte == 0xc2)
    };
    bytes.chunks(BLOCK).enumerate().any(|(n, block)| {
        block.iter().fold(false, |any, &byte| any | suspect(byte)) && {
            let start = n * BLOCK;
            (start..start + block.len()).any(|at| match bytes[at] {
                b'\n' | b'\t' => false,
                0x00..=0x1f | 0x7f => true,
                0xc2 => matches!(bytes.get(at + 1), Some(0x80..=0x9f)),
                _ => false,
            })
        }
    })
}

/// Passes on what a finished write could not do: warnings on stderr, and
/// exit 1 when the commit failed.
pub(crate) fn notices(out: &mut Output, notices: Notices) {
    for warning in notices.warnings {
        out.warn(warning);
    }
    if let Some(error) = notices.commit_error {
        out.warn(error);
        out.failed = true;
    }
}

/// Prints the goal after a change: the JSON document, or `label: what`
/// (or "nothing changed" when the verb wrote nothing).
fn report(ctx: &Context, out: &mut Output, saved: Saved, what: &str) -> Result<()> {
    notices(out, saved.notices);
    if out.json {
        let document = render::goal_document(ctx, &saved.goal)?;
        out.json(&document);
    } else if !out.quiet {
        let what = if saved.changed {
            what
        } else {
            "nothing changed"
        };
        let line = render::confirmation(out, &saved.goal.goal, what);
        out.line(line);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(line: &str) -> Vec<std::ffi::OsString> {
        line.split(' ').map(Into::into).collect()
    }

    #[test]
    fn a_tree_with_only_the_asked_command_parses_as_the_whole_tree() {
        let lines = [
            "steward update g1 --note hi",
            "steward -C /tmp/s update g1 --note hi --json",
            "steward -qC /tmp/s assess g1 --met 2 --summary ok",
            "steward -Cdir -q list --all",
            "steward --root=/tmp/s --color never show g1",
            "steward --actor agent --lock-timeout 3s complete g1 --met 2 --reason r",
            "steward --no-commit --commit cancel g1 --reason gone",
            "steward list -C /tmp/s --json",
            "steward add g2 --title T --criterion C --verify file_exists:x",
            "steward hook claude-code",
            "steward prompt --heartbeat",
            "steward tick -q",
            "steward plan show g1",
        ];
        for line in lines {
            let args = os(line);
            let asked = parse_with_only_the_asked_command(&args)
                .unwrap_or_else(|| panic!("{line}: not parsed with only its command"))
                .unwrap();
            let mut matches = full_command().try_get_matches_from(&args).unwrap();
            let whole = Cli::from_arg_matches_mut(&mut matches).unwrap();
            assert_eq!(format!("{asked:?}"), format!("{whole:?}"), "{line}");
        }
    }

    #[test]
    fn the_version_is_said_as_the_whole_tree_says_it() {
        let whole = full_command()
            .try_get_matches_from(["steward", "--version"])
            .unwrap_err();
        for line in ["steward --version", "steward -V", "steward -q --version"] {
            let said = parse_with_only_the_asked_command(&os(line))
                .unwrap_or_else(|| panic!("{line}: left to the whole tree"))
                .unwrap_err();
            assert_eq!(said.kind(), clap::error::ErrorKind::DisplayVersion);
            assert_eq!(said.render().to_string(), whole.render().to_string());
        }
    }

    #[test]
    fn what_only_the_whole_tree_can_say_is_left_to_it() {
        for line in [
            "steward",
            "steward --help",
            "steward update --help",
            "steward help update",
            "steward lsit",
            "steward update",
            "steward -- update g1",
            "steward --unknown update g1",
            "steward -C",
        ] {
            assert!(
                parse_with_only_the_asked_command(&os(line)).is_none(),
                "{line}"
            );
        }
    }

    #[test]
    fn the_byte_scan_finds_exactly_the_unsafe_characters() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            assert_eq!(has_unsafe_char(text.as_bytes()), is_unsafe(c), "{:?}", c);
        }
    }

    #[test]
    fn the_byte_scan_looks_across_its_blocks() {
        for at in 0..130 {
            let mut text = "x".repeat(at);
            text.push('\u{85}');
            text.push_str(&"y".repeat(130 - at));
            assert!(has_unsafe_char(text.as_bytes()), "C1 at byte {at}");
            let safe = format!("{}\u{a9}{}", "x".repeat(at), "y".repeat(130 - at));
            assert!(!has_unsafe_char(safe.as_bytes()), "© at byte {at}");
        }
    }

    #[test]
    fn clean_text_is_borrowed_and_controls_are_replaced() {
        assert!(matches!(clean("plain\ttext\n", false), Cow::Borrowed(_)));
        assert_eq!(clean("a\x1b[2Jb\u{85}c", false), "a\u{FFFD}[2Jb\u{FFFD}c");
        assert_eq!(clean("\x1b[1mbold\x1b[0m", true), "\x1b[1mbold\x1b[0m");
    }
}
