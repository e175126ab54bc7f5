//! The layering: defaults < `steward.yaml` (what a person accepted of its
//! commands) < `state/local/steward.yaml` < `STEWARD_*` < flags, each value
//! with its source, and the typed [`Config`] made from them.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use crate::agents::{AgentProfile, OutputFormat, PromptVia};
use crate::error::{Error, FileProblem, Result};
use crate::model::duration::HumanDuration;
use crate::model::{Actor, Priority};
use crate::os::sandbox::SandboxMode;
use crate::yaml_locate::key_position;

use super::accepted::{Said, accepted_value, tightens};
use super::parse::{
    PATH_KEYS, describe_yaml, flatten, parse_value, path_problem, string_list, yaml_message,
};
use super::schema::{ForAgent, SETTINGS, Value, agents_template, default_values};
use super::settings::{
    AttentionWeights, CircuitBreaker, Config, ConfigChanges, Dispatch, Entry, FlagOverrides, Fleet,
    Git, GlobalLimits, GoalDefaults, Hooks, IgnoredBecause, IgnoredEnv, Intake, LoadedConfig,
    Machine, MergeMode, Mirror, Notify, NtfyReplies, Obligations, QuietHours, Replies, Retention,
    Source, Unchecked, Verification,
};
use super::{FILE_NAME, LOCAL_FILE, MAX_FILE_BYTES};

impl Default for Config {
    fn default() -> Self {
        let layers = Layers::defaults();
        layers.to_config()
    }
}

impl Config {
    /// Loads `<root>/steward.yaml` and `state/local/steward.yaml` (absent:
    /// defaults), then `env` (the `STEWARD_*` variables, as far as `reader`
    /// may set them) and `flags` on top.
    ///
    /// `accepted` is what a person on this machine accepted of the files
    /// (as [`Said::text`] gives it; `None`: nothing to compare with yet).
    /// A change the files make to it counts at once where it tightens,
    /// and is held at the accepted value otherwise; a file that does not
    /// load leaves the accepted configuration in force, said in
    /// [`LoadedConfig::broken`]. Without `accepted`, such a file is an
    /// error.
    pub fn load(
        root: &Path,
        env: &BTreeMap<String, String>,
        flags: &FlagOverrides,
        reader: Actor,
        accepted: Option<&str>,
    ) -> Result<LoadedConfig> {
        let (mut layers, broken, changes) = match (Layers::from_files(root), accepted) {
            (Ok((files, _)), None) => (files, None, None),
            (Ok((files, said)), Some(record)) => {
                let (layers, changes) = files.weighed(&said, &Said::parse(record));
                (layers, None, changes)
            }
            (Err(err), Some(record)) => (Layers::accepted(&Said::parse(record)), Some(err), None),
            (Err(err), None) => return Err(err),
        };
        let ignored_env = layers.apply_env(env, reader)?;
        if let Some(commit) = flags.git_commit {
            let flag = if commit { "--commit" } else { "--no-commit" };
            layers.set("git.commit", Value::Bool(commit), Source::Flag(flag));
        }
        layers.check_agents()?;
        layers.check_paths(root)?;
        Ok(LoadedConfig {
            config: layers.to_config(),
            sources: Sources(layers),
            ignored_env,
            changes,
            broken,
        })
    }

    /// The defaults alone, for commands that go on when the file is broken.
    pub fn load_defaults() -> LoadedConfig {
        let layers = Layers::defaults();
        LoadedConfig {
            config: layers.to_config(),
            sources: Sources(layers),
            ignored_env: Vec::new(),
            changes: None,
            broken: None,
        }
    }

    /// The text `init` writes: every key, commented out, with its default.
    /// With `git_commit`, the `git.commit` line is written set to true
    /// (`init --git`).
    pub fn template(git_commit: bool) -> String {
        let mut out = String::from(
            "# steward configuration. Every key is optional: the values below are the\n\
             # defaults. Uncomment a line (and its section line) to change it.\n",
        );
        let mut section: Vec<&str> = Vec::new();
        for setting in SETTINGS {
            let parts: Vec<&str> = setting.key.split('.').collect();
            let (name, parents) = parts.split_last().expect("keys are not empty");
            let shared = section
                .iter()
                .zip(parents)
                .take_while(|(a, b)| a == b)
                .count();
            for (depth, parent) in parents.iter().enumerate().skip(shared) {
                let comment = if git_commit && depth == 0 && *parent == "git" {
                    ""
                } else {
                    "# "
                };
                out.push_str(&format!("{comment}{}{parent}:\n", "  ".repeat(depth)));
            }
            section = parents.to_vec();
            if git_commit && setting.key == "git.commit" {
                out.push_str(&format!("{:<46} # {}\n", "  commit: true", setting.help));
                continue;
            }
            let line = format!("{}{name}: {}", "  ".repeat(parents.len()), setting.default);
            out.push_str(&format!("# {line:<44} # {}\n", setting.help));
        }
        out.push_str(&agents_template());
        out
    }

    /// The attention weight of a priority; unknown priorities weigh as normal.
    pub fn attention_weight(&self, priority: &Priority) -> f64 {
        let weights = &self.attention_weights;
        match priority {
            Priority::Critical => weights.critical,
            Priority::High => weights.high,
            Priority::Normal | Priority::Unknown(_) => weights.normal,
            Priority::Low => weights.low,
        }
    }
}

/// A configuration file's text as YAML; an error says where it is not,
/// or where flow collections nest too deep for the parser.
fn parse_file(path: &Path, text: &str) -> Result<serde_yaml::Value> {
    if let Some((line, column)) = crate::yaml_locate::excessive_nesting(text) {
        return Err(Error::Config(FileProblem {
            path: path.display().to_string(),
            line,
            column,
            message: format!(
                "flow collections nest deeper than {} levels",
                crate::yaml_locate::MAX_FLOW_DEPTH
            ),
        }));
    }
    // The plain YAML a configuration nearly always is, read directly (the
    // parser's buffers were 64 KB of a write's allocations); anything else,
    // and every error message, is yaml_serde's.
    if let Some(value) = crate::fast_yaml::parse(text) {
        return Ok(value);
    }
    let value: serde_yaml::Value = serde_yaml::from_str(text).map_err(|err| {
        let (line, column) = err.location().map_or((1, 1), |l| (l.line(), l.column()));
        Error::Config(FileProblem {
            path: path.display().to_string(),
            line,
            column,
            message: yaml_message(&err, 0),
        })
    })?;
    // A tag (`!x 1`) is read as its value by some readers and kept as a
    // mapping by others: what is weighed and what is recorded would differ.
    if let Some(tag) = first_tag(&value) {
        let (line, column) = text
            .lines()
            .enumerate()
            .find_map(|(n, line)| line.find(&tag).map(|c| (n + 1, c + 1)))
            .unwrap_or((1, 1));
        return Err(Error::Config(FileProblem {
            path: path.display().to_string(),
            line,
            column,
            message: format!(
                "the YAML tag `{tag}` is not read in a configuration file: write the value alone"
            ),
        }));
    }
    Ok(value)
}

/// The first YAML tag in `value`, as written.
fn first_tag(value: &serde_yaml::Value) -> Option<String> {
    match value {
        serde_yaml::Value::Tagged(tagged) => Some(tagged.tag.to_string()),
        serde_yaml::Value::Sequence(items) => items.iter().find_map(first_tag),
        serde_yaml::Value::Mapping(map) => map
            .iter()
            .find_map(|(k, v)| first_tag(k).or_else(|| first_tag(v))),
        _ => None,
    }
}

/// Reads the configuration file, `None` when there is none.
pub(super) fn read_config_file(path: &Path) -> Result<Option<String>> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(Error::io(path, "cannot read configuration", err)),
    };
    if metadata.len() > MAX_FILE_BYTES {
        return Err(Error::Config(FileProblem::whole_file(
            path,
            "configuration file is larger than 1 MiB",
        )));
    }
    if !metadata.is_file() {
        return Err(Error::Config(FileProblem::whole_file(
            path,
            "not a regular file: steward reads its configuration from a file",
        )));
    }
    let bytes = {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        let mut bytes = Vec::new();
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .and_then(|file| file.take(MAX_FILE_BYTES).read_to_end(&mut bytes))
            .map_err(|err| Error::io(path, "cannot read configuration", err))?;
        bytes
    };
    let text = String::from_utf8(bytes).map_err(|err| {
        Error::Config(FileProblem::whole_file(
            path,
            format!("not valid UTF-8 (byte {})", err.utf8_error().valid_up_to()),
        ))
    })?;
    Ok(Some(text))
}

/// Every setting's value and where it came from, for `config` and the
/// messages that name a setting's source: rendered only when asked for.
#[derive(Clone)]
pub struct Sources(Layers);

impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.entries()).finish()
    }
}

impl Sources {
    /// Every setting and agent profile, in table order.
    pub fn entries(&self) -> Vec<Entry> {
        self.0.entries()
    }

    /// Where setting `key` came from.
    pub fn of(&self, key: &str) -> Source {
        (SETTINGS.iter().zip(&self.0.values))
            .find(|(setting, _)| setting.key == key)
            .map_or(Source::Default, |(_, (_, source))| source.clone())
    }

    /// The value of setting `key` in force, as `config` shows it.
    pub fn value_of(&self, key: &str) -> String {
        (SETTINGS.iter().zip(&self.0.values))
            .find(|(setting, _)| setting.key == key)
            .map_or_else(String::new, |(_, (value, _))| value.to_string())
    }
}

/// The value of every setting with its source, in table order.
#[derive(Clone)]
pub(super) struct Layers {
    pub(super) values: Vec<(Value, Source)>,
    pub(super) agents: Vec<AgentProfile>,
    /// Where each profile a file set came from.
    pub(super) agent_sources: Vec<(String, Source)>,
    /// Profiles steward.yaml names that this machine has not accepted:
    /// `dispatch.agent` may name them (no run starts with one).
    pub(super) held_agents: Vec<String>,
}

impl Layers {
    pub(super) fn defaults() -> Self {
        let values = SETTINGS
            .iter()
            .zip(default_values())
            .map(|(setting, yaml)| {
                let value = parse_value(setting.kind, &yaml).expect("built-in defaults are valid");
                (value, Source::Default)
            })
            .collect();
        Layers {
            values,
            agents: AgentProfile::builtins(),
            agent_sources: Vec::new(),
            held_agents: Vec::new(),
        }
    }

    pub(super) fn set(&mut self, key: &str, value: Value, source: Source) {
        let index = SETTINGS
            .iter()
            .position(|s| s.key == key)
            .expect("known key");
        self.values[index] = (value, source);
    }

    /// What the configuration files of the store at `root` say: the
    /// layers they make over the defaults, and the same key by key for the
    /// record. A file that does not load is an error, whichever it is.
    pub(super) fn from_files(root: &Path) -> Result<(Layers, Said)> {
        let mut layers = Layers::defaults();
        let mut said = Said::default();
        for path in [root.join(FILE_NAME), root.join(LOCAL_FILE)] {
            if let Some(text) = read_config_file(&path)? {
                // Parsed once for both: a parse was 2% of an `update`.
                let document = parse_file(&path, &text)?;
                said.add(&document);
                layers.apply_document(&path, &text, document)?;
            }
        }
        Ok((layers, said))
    }

    /// What a person accepted, alone over the defaults: in force while a
    /// file does not load.
    pub(super) fn accepted(accepted: &Said) -> Layers {
        let mut layers = Layers::defaults();
        for (index, setting) in SETTINGS.iter().enumerate() {
            if accepted.yaml(setting.key).is_some() {
                let value = accepted_value(setting, accepted, &layers.values[index].0);
                layers.values[index] = (value, Source::Accepted);
            }
        }
        layers.apply_accepted_agents(accepted);
        layers
    }

    /// The agent profiles a person accepted, over the built-in ones.
    fn apply_accepted_agents(&mut self, accepted: &Said) {
        let Some(yaml) = accepted.yaml("agents") else {
            return;
        };
        let mut checked = self.clone();
        if checked
            .apply_agents(Path::new("(accepted on this machine)"), "", &yaml)
            .is_ok()
        {
            checked.agent_sources = (checked.agent_sources.into_iter())
                .map(|(name, _)| (name, Source::Accepted))
                .collect();
            *self = checked;
        }
    }

    /// These layers (what the files say) weighed against what a person
    /// `accepted`: each setting the files loosen is held at its accepted
    /// value; what they tighten counts at once. The changes, when there
    /// are any.
    pub(super) fn weighed(
        mut self,
        said: &Said,
        accepted: &Said,
    ) -> (Layers, Option<ConfigChanges>) {
        let defaults = Layers::defaults();
        let mut held = Vec::new();
        let mut tightened = Vec::new();
        for (index, setting) in SETTINGS.iter().enumerate() {
            let in_force = accepted_value(setting, accepted, &defaults.values[index].0);
            let wanted = &self.values[index].0;
            if *wanted == in_force {
                continue;
            }
            if tightens(setting, &in_force, wanted) {
                tightened.push(setting.key);
            } else {
                let source = if accepted.yaml(setting.key).is_some() {
                    Source::Accepted
                } else {
                    Source::Default
                };
                self.values[index] = (in_force, source);
                held.push(setting.key);
            }
        }
        if said.agents() != accepted.agents() {
            let in_files: Vec<String> = self.agent_sources.iter().map(|(n, _)| n.clone()).collect();
            self.agents = defaults.agents;
            self.agent_sources = Vec::new();
            self.apply_accepted_agents(accepted);
            self.held_agents = in_files;
            held.insert(0, "agents");
        }
        if held.is_empty() && tightened.is_empty() {
            return (self, None);
        }
        let record = tightened.iter().fold(accepted.clone(), |record, key| {
            record.with_key_of(key, said)
        });
        let changes = ConfigChanges {
            said: said.text(),
            accepted: accepted.text(),
            held,
            tightened,
            record_with_tightened: record.text(),
        };
        (self, Some(changes))
    }

    /// Applies a configuration file's `document` (as [`parse_file`] read
    /// `text`).
    pub(super) fn apply_document(
        &mut self,
        path: &Path,
        text: &str,
        document: serde_yaml::Value,
    ) -> Result<()> {
        let at = |key: &str, message: String| {
            let parts: Vec<&str> = key.split('.').collect();
            let (line, column) = key_position(text, &parts).unwrap_or((1, 1));
            Error::Config(FileProblem {
                path: path.display().to_string(),
                line,
                column,
                message,
            })
        };
        let mapping = match document {
            serde_yaml::Value::Null => return Ok(()),
            serde_yaml::Value::Mapping(mapping) => mapping,
            _ => {
                return Err(Error::Config(FileProblem::whole_file(
                    path,
                    "configuration must be a mapping of keys to values",
                )));
            }
        };
        let mut mapping = mapping;
        if let Some(agents) = mapping.remove("agents") {
            self.apply_agents(path, text, &agents)?;
        }
        let mut pending = Vec::new();
        flatten(&mapping, "", &mut pending)
            .map_err(|key| at(&key, format!("keys must be plain strings (near `{key}`)")))?;
        for (key, yaml) in pending {
            let Some(setting) = SETTINGS.iter().find(|s| s.key == key) else {
                return Err(at(&key, format!("unknown key `{key}`{}", suggest(&key))));
            };
            let value = parse_value(setting.kind, &yaml)
                .map_err(|why| at(&key, format!("{key}: {why}")))?;
            if let Some(why) = path_problem(setting.key, &value) {
                return Err(at(&key, format!("{key}: {why}")));
            }
            let line =
                key_position(text, &key.split('.').collect::<Vec<_>>()).map_or(1, |(l, _)| l);
            self.set(
                setting.key,
                value,
                Source::File {
                    path: path.to_path_buf(),
                    line,
                },
            );
        }
        Ok(())
    }

    /// The settings that say where steward keeps data must not lead out of
    /// the store by a link on the way (what [`path_problem`] cannot see in
    /// the text).
    pub(super) fn check_paths(&self, root: &Path) -> Result<()> {
        for key in PATH_KEYS {
            let path = match self.get(key) {
                Value::Text(path) | Value::OptionalText(Some(path)) => path,
                _ => continue,
            };
            // A file that is a link is refused where it is opened; a
            // folder that is one would take every file in it elsewhere.
            let parts: Vec<_> = Path::new(path).components().collect();
            let folders = if key == "goals_dir" {
                &parts[..]
            } else {
                &parts[..parts.len().saturating_sub(1)]
            };
            let mut at = root.to_path_buf();
            for part in folders {
                at.push(part);
                let is_link = std::fs::symlink_metadata(&at)
                    .is_ok_and(|metadata| metadata.file_type().is_symlink());
                if is_link {
                    let message = format!(
                        "{} is a symbolic link: steward keeps its data inside the store, with no link on the way",
                        at.display()
                    );
                    return Err(match self.source(key) {
                        Source::File { path, line } => Error::Config(FileProblem {
                            path: path.display().to_string(),
                            line: *line,
                            column: 1,
                            message: format!("{key}: {message}"),
                        }),
                        _ => Error::bad_value(key, message),
                    });
                }
            }
        }
        Ok(())
    }

    /// The `agents:` mapping: profiles by name, each overriding a built-in
    /// profile of that name field by field, or new.
    pub(super) fn apply_agents(
        &mut self,
        path: &Path,
        text: &str,
        yaml: &serde_yaml::Value,
    ) -> Result<()> {
        let at = |keys: &[&str], message: String| {
            let (line, column) = key_position(text, keys).unwrap_or((1, 1));
            Error::Config(FileProblem {
                path: path.display().to_string(),
                line,
                column,
                message,
            })
        };
        let profiles = match yaml {
            serde_yaml::Value::Null => return Ok(()),
            serde_yaml::Value::Mapping(profiles) => profiles,
            other => {
                return Err(at(
                    &["agents"],
                    format!(
                        "agents: expected a mapping of profile names to profiles, found {}",
                        describe_yaml(other)
                    ),
                ));
            }
        };
        for (name, fields) in profiles {
            let Some(name) = name.as_str() else {
                return Err(at(
                    &["agents"],
                    "agents: profile names are text".to_string(),
                ));
            };
            let key = |field: &str| format!("agents.{name}.{field}");
            let serde_yaml::Value::Mapping(fields) = fields else {
                return Err(at(
                    &["agents", name],
                    format!(
                        "agents.{name}: expected a mapping with command, prompt, resume, output"
                    ),
                ));
            };
            let mut profile = self
                .agents
                .iter()
                .find(|a| a.name == name)
                .cloned()
                .unwrap_or(AgentProfile {
                    name: name.to_string(),
                    command: Vec::new(),
                    prompt: PromptVia::Stdin,
                    resume: Vec::new(),
                    output: OutputFormat::Text,
                    prices: crate::agents::Prices::default(),
                });
            let (mut own_prices, mut as_of) = (false, None);
            for (field, value) in fields {
                let field = field.as_str().unwrap_or_default();
                let wrong =
                    |why: String| at(&["agents", name, field], format!("{}: {why}", key(field)));
                match field {
                    "command" => profile.command = string_list(value).map_err(wrong)?,
                    "resume" => {
                        profile.resume = match value {
                            serde_yaml::Value::Null => Vec::new(),
                            other => string_list(other).map_err(wrong)?,
                        }
                    }
                    "prompt" => {
                        profile.prompt = match value.as_str() {
                            Some("stdin") => PromptVia::Stdin,
                            Some("arg") => PromptVia::Arg,
                            _ => return Err(wrong("expected stdin or arg".to_string())),
                        }
                    }
                    "output" => {
                        profile.output =
                            value
                                .as_str()
                                .and_then(OutputFormat::parse)
                                .ok_or_else(|| {
                                    wrong(format!(
                                        "expected one of {}",
                                        OutputFormat::NAMES.join(", ")
                                    ))
                                })?
                    }
                    "input_usd_per_mtok"
                    | "cached_input_usd_per_mtok"
                    | "cache_write_usd_per_mtok"
                    | "output_usd_per_mtok" => {
                        let price = value
                            .as_f64()
                            .filter(|x| x.is_finite() && *x >= 0.0 && *x <= 1e6)
                            .ok_or_else(|| {
                                wrong("expected a price of at least 0 (US dollars per million tokens)".to_string())
                            })?;
                        let prices = &mut profile.prices;
                        *match field {
                            "input_usd_per_mtok" => &mut prices.input,
                            "cached_input_usd_per_mtok" => &mut prices.cached_input,
                            "cache_write_usd_per_mtok" => &mut prices.cache_write,
                            _ => &mut prices.output,
                        } = price;
                        own_prices = true;
                    }
                    "prices_as_of" => {
                        as_of = Some(
                            value
                                .as_str()
                                .ok_or_else(|| wrong("expected text".to_string()))?
                                .to_string(),
                        );
                    }
                    other => {
                        return Err(at(
                            &["agents", name, other],
                            format!(
                                "unknown key `{}`: a profile has command, prompt, resume, output, input_usd_per_mtok, cached_input_usd_per_mtok, cache_write_usd_per_mtok, output_usd_per_mtok, prices_as_of",
                                key(other)
                            ),
                        ));
                    }
                }
            }
            // Prices of one's own are no longer the list's.
            if own_prices || as_of.is_some() {
                profile.prices.as_of = as_of;
                profile.prices.own = true;
            }
            if profile.command.first().is_none_or(|p| p.trim().is_empty()) {
                return Err(at(
                    &["agents", name],
                    format!(
                        "{}: a profile needs a command (a list, program first)",
                        key("command")
                    ),
                ));
            }
            let line = key_position(text, &["agents", name]).map_or(1, |(l, _)| l);
            self.agent_sources.push((
                name.to_string(),
                Source::File {
                    path: path.to_path_buf(),
                    line,
                },
            ));
            self.agents.retain(|a| a.name != name);
            self.agents.push(profile);
        }
        Ok(())
    }

    /// Profiles named by `dispatch.agent` and `dispatch.fallback_agent` must
    /// exist.
    pub(super) fn check_agents(&self) -> Result<()> {
        for key in ["dispatch.agent", "dispatch.fallback_agent"] {
            let index = SETTINGS
                .iter()
                .position(|s| s.key == key)
                .expect("known key");
            let (value, source) = &self.values[index];
            let name = match value {
                Value::Text(name) | Value::OptionalText(Some(name)) => name,
                _ => continue,
            };
            if self.agents.iter().any(|a| a.name == *name) || self.held_agents.contains(name) {
                continue;
            }
            let known: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
            let message = format!(
                "{key}: no agent profile `{name}` (profiles: {}; define it under agents:)",
                known.join(", ")
            );
            return Err(match source {
                Source::File { path, line } => Error::Config(FileProblem {
                    path: path.display().to_string(),
                    line: *line,
                    column: 1,
                    message,
                }),
                _ => Error::bad_value(key, message),
            });
        }
        Ok(())
    }

    /// Applies the `STEWARD_*` variables `reader` may set, and returns the
    /// ones it may not: settings read from the file only, a value that
    /// would loosen a limit for an agent, and `enabled` against the file's
    /// `false` (the kill switch is the operator's, whoever runs steward).
    pub(super) fn apply_env(
        &mut self,
        env: &BTreeMap<String, String>,
        reader: Actor,
    ) -> Result<Vec<IgnoredEnv>> {
        let mut ignored = Vec::new();
        // The few variables that could name a setting, so that the names of
        // the others are never made.
        let candidates: Vec<(&String, &String)> = env
            .range::<str, _>((Bound::Included("STEWARD_"), Bound::Excluded("STEWARD`")))
            .collect();
        for setting in SETTINGS {
            // Empty is unset, as for every other STEWARD_ variable.
            let Some((name, raw)) = candidates
                .iter()
                .find(|(name, raw)| !raw.is_empty() && names_setting(name, setting.key))
            else {
                continue;
            };
            let name = name.to_string();
            if setting.file_only {
                ignored.push(IgnoredEnv::new(name, setting.key, IgnoredBecause::FileOnly));
                continue;
            }
            let yaml: serde_yaml::Value = serde_yaml::from_str(raw)
                .unwrap_or_else(|_| serde_yaml::Value::String(raw.to_string()));
            let value =
                parse_value(setting.kind, &yaml).map_err(|why| Error::bad_value(&name, why))?;
            let current = self.get(setting.key);
            let kill_switch_off = setting.key == "enabled"
                && *current == Value::Bool(false)
                && matches!(self.source(setting.key), Source::File { .. });
            if kill_switch_off && value != *current {
                ignored.push(IgnoredEnv::new(
                    name,
                    setting.key,
                    IgnoredBecause::KillSwitch,
                ));
                continue;
            }
            if reader == Actor::Agent && !setting.for_agent.allows(current, &value) {
                let because = if setting.for_agent == ForAgent::Never {
                    IgnoredBecause::NotForAgents
                } else {
                    IgnoredBecause::Loosens
                };
                ignored.push(IgnoredEnv::new(name, setting.key, because));
                continue;
            }
            self.set(setting.key, value, Source::Env(name));
        }
        Ok(ignored)
    }

    pub(super) fn source(&self, key: &str) -> &Source {
        let index = SETTINGS
            .iter()
            .position(|s| s.key == key)
            .expect("known key");
        &self.values[index].1
    }

    pub(super) fn entries(&self) -> Vec<Entry> {
        let settings = SETTINGS
            .iter()
            .zip(&self.values)
            .map(|(setting, (value, source))| Entry {
                key: setting.key.to_string(),
                value: value.to_string(),
                source: source.clone(),
            });
        let agents = self.agents.iter().map(|agent| Entry {
            key: format!("agents.{}", agent.name),
            value: format!(
                "{} (prompt {}, output {}{}, {})",
                agent.command.join(" "),
                match agent.prompt {
                    PromptVia::Stdin => "on stdin",
                    PromptVia::Arg => "as the last argument",
                },
                agent.output.as_str(),
                if agent.can_resume() { ", resumes" } else { "" },
                prices_text(&agent.prices)
            ),
            source: self
                .agent_sources
                .iter()
                .rev()
                .find(|(name, _)| *name == agent.name)
                .map_or(Source::Default, |(_, source)| source.clone()),
        });
        settings.chain(agents).collect()
    }

    pub(super) fn get(&self, key: &str) -> &Value {
        let index = SETTINGS
            .iter()
            .position(|s| s.key == key)
            .expect("known key");
        &self.values[index].0
    }

    pub(super) fn bool(&self, key: &str) -> bool {
        match self.get(key) {
            Value::Bool(b) => *b,
            other => unreachable!("{key} is {other:?}"),
        }
    }

    pub(super) fn count(&self, key: &str) -> u64 {
        match self.get(key) {
            Value::Count(n) => *n,
            other => unreachable!("{key} is {other:?}"),
        }
    }

    pub(super) fn number(&self, key: &str) -> f64 {
        match self.get(key) {
            Value::Number(x) => *x,
            other => unreachable!("{key} is {other:?}"),
        }
    }

    pub(super) fn duration(&self, key: &str) -> HumanDuration {
        match self.get(key) {
            Value::Duration(d) => *d,
            other => unreachable!("{key} is {other:?}"),
        }
    }

    pub(super) fn text(&self, key: &str) -> String {
        match self.get(key) {
            Value::Text(s) => s.clone(),
            Value::OptionalText(s) => s.clone().unwrap_or_default(),
            other => unreachable!("{key} is {other:?}"),
        }
    }

    pub(super) fn text_list(&self, key: &str) -> Vec<String> {
        match self.get(key) {
            Value::TextList(list) => list.clone(),
            other => unreachable!("{key} is {other:?}"),
        }
    }

    pub(super) fn optional_text(&self, key: &str) -> Option<String> {
        match self.get(key) {
            Value::OptionalText(s) => s.clone(),
            other => unreachable!("{key} is {other:?}"),
        }
    }

    pub(super) fn to_config(&self) -> Config {
        let priority = |key: &str| match self.get(key) {
            Value::Priority(p) => p.clone(),
            other => unreachable!("{key} is {other:?}"),
        };
        Config {
            enabled: self.bool("enabled"),
            goals_dir: PathBuf::from(self.text("goals_dir")),
            defaults: GoalDefaults {
                max_dispatches: self.count("defaults.max_dispatches"),
                max_assessments: self.count("defaults.max_assessments"),
                cooldown: self.duration("defaults.cooldown"),
                escalate_after_failures: self.count("defaults.escalate_after_failures"),
                priority: priority("defaults.priority"),
            },
            global_limits: GlobalLimits {
                max_dispatches_per_hour: self.count("global_limits.max_dispatches_per_hour"),
                max_active_goals: self.count("global_limits.max_active_goals"),
            },
            requires_bounds: self.bool("requires_bounds"),
            heartbeat_patterns: match self.get("heartbeat_patterns") {
                Value::TextList(list) => list.clone(),
                other => unreachable!("heartbeat_patterns is {other:?}"),
            },
            attention_weights: AttentionWeights {
                critical: self.number("attention_weights.critical"),
                high: self.number("attention_weights.high"),
                normal: self.number("attention_weights.normal"),
                low: self.number("attention_weights.low"),
            },
            multi_goal_max_chars: self.count("multi_goal_max_chars"),
            multi_goal_max_goals: self.count("multi_goal_max_goals"),
            require_confirmation_for: match self.get("confirmation.require_for") {
                Value::PriorityList(list) => list.clone(),
                other => unreachable!("confirmation.require_for is {other:?}"),
            },
            circuit_breaker: CircuitBreaker {
                enabled: self.bool("circuit_breaker.enabled"),
                same_blocker_repeat_limit: self.count("circuit_breaker.same_blocker_repeat_limit"),
                max_assessments_without_progress: self
                    .count("circuit_breaker.max_assessments_without_progress"),
            },
            judge_unchecked: match self.text("judge.unchecked").as_str() {
                "person" => Unchecked::Person,
                _ => Unchecked::Agent,
            },
            verification: Verification {
                allow_commands: self.bool("verification.allow_commands"),
                command_timeout: self.duration("verification.command_timeout"),
                allow_private_hosts: self.bool("verification.allow_private_hosts"),
                http_timeout: self.duration("verification.http_timeout"),
                github_api: self.text("verification.github_api"),
            },
            obligations: Obligations {
                default_timeout: self.duration("obligations.default_timeout"),
                grace: self.duration("obligations.grace"),
                delivered_ttl: self.duration("obligations.delivered_ttl"),
            },
            retention: Retention {
                undo: self.duration("retention.undo"),
                run_logs: self.duration("retention.run_logs"),
                runs: self.duration("retention.runs"),
                worktrees: self.duration("retention.worktrees"),
            },
            mirror: Mirror {
                enabled: self.bool("mirror.enabled"),
                path: PathBuf::from(self.text("mirror.path")),
                max_goals: self.count("mirror.max_goals"),
            },
            git: Git {
                commit: self.bool("git.commit"),
                author: self.optional_text("git.author"),
                remote: self.text("git.remote"),
                timeout: self.duration("git.timeout"),
            },
            dispatch: Dispatch {
                enabled: self.bool("dispatch.enabled"),
                agent: self.text("dispatch.agent"),
                fallback_agent: self.optional_text("dispatch.fallback_agent"),
                max_parallel: self.count("dispatch.max_parallel"),
                timeout: self.duration("dispatch.timeout"),
                stall_after: self.duration("dispatch.stall_after"),
                limit_wait: self.duration("dispatch.limit_wait"),
                pass_at_run_end: self.bool("dispatch.pass_at_run_end"),
                idle_after: self.duration("dispatch.idle_after"),
                max_retries: self.count("dispatch.max_retries"),
                min_resend_interval: self.duration("dispatch.min_resend_interval"),
                backoff_base: self.duration("dispatch.backoff.base"),
                backoff_max: self.duration("dispatch.backoff.max"),
                log_max_bytes: self.count("dispatch.log_max_bytes"),
                max_cost_usd_per_day: match self.get("dispatch.max_cost_usd_per_day") {
                    Value::OptionalNumber(x) => *x,
                    other => unreachable!("dispatch.max_cost_usd_per_day is {other:?}"),
                },
                claim_git: self.text("dispatch.claim") == "git",
                plan_auto: self.text("dispatch.plan") == "auto",
                plan_repairs: self.count("dispatch.plan_repairs"),
                sandbox: match self.text("dispatch.sandbox").as_str() {
                    "off" => SandboxMode::Off,
                    "required" => SandboxMode::Required,
                    _ => SandboxMode::Auto,
                },
                max_subagents: self.count("dispatch.max_subagents"),
                worktree: self.bool("dispatch.worktree"),
                base: self.optional_text("dispatch.base"),
                merge: match self.text("dispatch.merge").as_str() {
                    "ff" => MergeMode::Ff,
                    "merge" => MergeMode::Merge,
                    _ => MergeMode::None,
                },
                protect: match self.get("dispatch.protect") {
                    Value::TextList(list) => list.clone(),
                    other => unreachable!("dispatch.protect is {other:?}"),
                },
                pull_request: self.bool("dispatch.pull_request"),
                pull_request_repo: self.optional_text("dispatch.pull_request_repo"),
            },
            hooks: Hooks {
                max_continuations: self.count("hooks.max_continuations"),
            },
            notify: Notify {
                command: match self.get("notify.command") {
                    Value::OptionalTextList(words) => words.clone(),
                    other => unreachable!("notify.command is {other:?}"),
                },
                on: match self.get("notify.on") {
                    Value::TextList(list) => list.clone(),
                    other => unreachable!("notify.on is {other:?}"),
                },
                quiet_hours: self
                    .optional_text("notify.quiet_hours")
                    .and_then(|text| QuietHours::parse(&text)),
                routes: match self.get("notify.routes") {
                    Value::Routes(routes) => routes.clone(),
                    other => unreachable!("notify.routes is {other:?}"),
                },
                remind_after: self.duration("notify.remind_after"),
                max_reminders: self.count("notify.max_reminders"),
                ping: match self.get("notify.ping") {
                    Value::OptionalTextList(words) => words.clone(),
                    other => unreachable!("notify.ping is {other:?}"),
                },
            },
            reply: Replies {
                expires: self.duration("reply.expires"),
                git_url: self.optional_text("reply.git_url"),
                ntfy: match (
                    self.optional_text("reply.ntfy.server"),
                    self.optional_text("reply.ntfy.topic"),
                ) {
                    (Some(server), Some(topic)) => Some(NtfyReplies {
                        server,
                        topic,
                        token: self.optional_text("reply.ntfy.token"),
                    }),
                    _ => None,
                },
            },
            agents: self.agents.clone(),
            machine_id: self.optional_text("machine_id"),
            machine: Machine {
                tags: self.text_list("machine.tags"),
                available: (self.text_list("machine.available").iter())
                    .filter_map(|hours| QuietHours::parse(hours))
                    .collect(),
            },
            fleet: Fleet {
                stale_after: self.duration("fleet.stale_after"),
                defer: self.duration("fleet.defer"),
            },
            intake: Intake {
                critical_labels: self.text_list("intake.critical_labels"),
                high_labels: self.text_list("intake.high_labels"),
                low_labels: self.text_list("intake.low_labels"),
                comment: self.bool("intake.comment"),
                close: self.bool("intake.close"),
            },
            episodes: self.optional_text("episodes.path"),
        }
    }
}

/// A profile's prices as `config` shows them.
pub(super) fn prices_text(prices: &crate::agents::Prices) -> String {
    if *prices == crate::agents::Prices::default() {
        return "no prices: runs that report no cost count $0".to_string();
    }
    format!(
        "$ per million tokens: input {}, cached {}, cache write {}, output {}{}",
        prices.input,
        prices.cached_input,
        prices.cache_write,
        prices.output,
        prices
            .as_of
            .as_deref()
            .map(|as_of| format!("; {as_of}"))
            .unwrap_or_default()
    )
}

/// `defaults.max_dispatches` → `STEWARD_DEFAULTS_MAX_DISPATCHES`.
pub fn env_name(key: &str) -> String {
    format!("STEWARD_{}", key.replace('.', "_").to_ascii_uppercase())
}

/// Whether `name` is [`env_name`] of `key`, without making it.
fn names_setting(name: &str, key: &str) -> bool {
    name.strip_prefix("STEWARD_").is_some_and(|rest| {
        rest.len() == key.len()
            && (rest.bytes().zip(key.bytes())).all(|(n, k)| {
                n == if k == b'.' {
                    b'_'
                } else {
                    k.to_ascii_uppercase()
                }
            })
    })
}

/// " (did you mean `x`?)" for a key close to a known one.
pub(super) fn suggest(key: &str) -> String {
    let best = SETTINGS
        .iter()
        .map(|s| (crate::text::edit_distance(key, s.key), s.key))
        .min()
        .filter(|(distance, _)| *distance <= 3);
    // A section misspelt (`dispach:` over its keys) reads as one key.
    let section = || {
        let sections = (SETTINGS.iter()).filter_map(|s| Some(s.key.split_once('.')?.0));
        sections
            .map(|section| (crate::text::edit_distance(key, section), section))
            .min()
            .filter(|(distance, _)| *distance <= 2)
    };
    match (best, section()) {
        (Some((_, known)), _) => format!(" (did you mean `{known}`?)"),
        (None, Some((_, section))) => format!(" (did you mean the section `{section}:`?)"),
        (None, None) => " (see `steward config` for every key)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file `init` writes, and a file that sets a few keys, take the
    /// fast path and read as yaml_serde reads them.
    #[test]
    fn plain_configuration_files_are_read_without_yaml_serde_and_alike() {
        let set = "global_limits:\n  max_active_goals: 10000\n# a comment\nmirror: {max_goals: 20}\nheartbeat_patterns: [\"HEARTBEAT\"]\n";
        for text in [
            Config::template(false),
            Config::template(true),
            set.to_string(),
        ] {
            let fast = crate::fast_yaml::parse(&text);
            assert!(fast.is_some(), "{text}");
            assert_eq!(fast, serde_yaml::from_str(&text).ok(), "{text}");
        }
    }

    #[test]
    fn a_variable_names_the_settings_whose_name_it_is_and_no_other() {
        for setting in SETTINGS {
            for other in SETTINGS {
                let name = env_name(other.key);
                assert_eq!(
                    names_setting(&name, setting.key),
                    name == env_name(setting.key),
                    "{name} and {}",
                    setting.key
                );
            }
        }
        for name in [
            "STEWARD_ENABLEDX",
            "steward_enabled",
            "STEWARD_enabled",
            "ENABLED",
        ] {
            assert!(!names_setting(name, "enabled"), "{name}");
        }
    }
}
