//! What a person on this machine accepted of the configuration, and how a
//! change to a configuration file is weighed against it: a change that
//! only tightens counts at once, anything else waits for `steward config
//! accept` (steward-design(7), "The configuration is a person's").
//!
//! Both files — `steward.yaml` and `state/local/steward.yaml` — are weighed
//! as one: what they say together, key by key ([`Said`]), is what a person
//! accepts, and what the record under `state/seals/` keeps.

use std::collections::BTreeMap;

use super::parse::{flatten, parse_value, path_problem};
use super::schema::{ForAgent, Kind, SETTINGS, Setting, Value};

/// What the configuration files say, key by key: each setting a file sets
/// (the local file's over `steward.yaml`'s) and the `agents:` profiles,
/// field by field, as canonical JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Said {
    values: BTreeMap<String, serde_json::Value>,
}

/// The key of the agent profiles in [`Said`].
const AGENTS: &str = "agents";

impl Said {
    /// Adds a configuration file's document (already checked: every key
    /// known, every value valid) over what earlier files said.
    pub(super) fn add(&mut self, document: &serde_yaml::Value) {
        let Some(mapping) = document.as_mapping() else {
            return;
        };
        let mut settings = Vec::new();
        let mut rest = mapping.clone();
        let agents = rest.remove(AGENTS);
        if flatten(&rest, "", &mut settings).is_err() {
            return;
        }
        for (key, yaml) in settings {
            self.values.insert(key, canonical(&yaml));
        }
        if let Some(serde_json::Value::Object(profiles)) = agents.as_ref().map(canonical) {
            let merged = self
                .values
                .entry(AGENTS.to_string())
                .or_insert_with(|| serde_json::Value::Object(Default::default()));
            let serde_json::Value::Object(merged) = merged else {
                return;
            };
            for (name, fields) in profiles {
                let into = merged
                    .entry(name)
                    .or_insert_with(|| serde_json::Value::Object(Default::default()));
                match (into, fields) {
                    (serde_json::Value::Object(into), serde_json::Value::Object(fields)) => {
                        into.extend(fields)
                    }
                    (into, fields) => *into = fields,
                }
            }
            let sorted = canonical_json(&serde_json::Value::Object(std::mem::take(merged)));
            *self.values.get_mut(AGENTS).expect("just inserted") = sorted;
        }
    }

    /// The text a person accepts and the record keeps: one `key: value`
    /// line per setting a file sets, `agents` first, then the table's
    /// order.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let keys = std::iter::once(AGENTS).chain(SETTINGS.iter().map(|s| s.key));
        for key in keys {
            if let Some(value) = self.values.get(key) {
                out.push_str(&format!("{key}: {value}\n"));
            }
        }
        out
    }

    /// Reads [`Said::text`] back; a line this version cannot read is left
    /// out (the record was checked when it was written).
    pub fn parse(text: &str) -> Said {
        let values = text
            .lines()
            .filter_map(|line| {
                let (key, json) = line.split_once(": ")?;
                let known = key == AGENTS || SETTINGS.iter().any(|s| s.key == key);
                let value = serde_json::from_str(json).ok()?;
                known.then(|| (key.to_string(), value))
            })
            .collect();
        Said { values }
    }

    /// The value said for `key`, as YAML.
    pub(super) fn yaml(&self, key: &str) -> Option<serde_yaml::Value> {
        serde_json::from_value(self.values.get(key)?.clone()).ok()
    }

    /// The canonical text of the agent profiles said, if any.
    pub(super) fn agents(&self) -> Option<&serde_json::Value> {
        self.values.get(AGENTS)
    }

    /// `self` with `key` as `other` says it (or not set, when `other`
    /// does not set it).
    pub(super) fn with_key_of(mut self, key: &str, other: &Said) -> Said {
        match other.values.get(key) {
            Some(value) => self.values.insert(key.to_string(), value.clone()),
            None => self.values.remove(key),
        };
        self
    }
}

/// A YAML value as JSON with every mapping's keys in order.
fn canonical(yaml: &serde_yaml::Value) -> serde_json::Value {
    serde_json::to_value(yaml)
        .map(|json| canonical_json(&json))
        .unwrap_or(serde_json::Value::Null)
}

fn canonical_json(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            serde_json::Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical_json(&map[k])))
                    .collect(),
            )
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(canonical_json).collect())
        }
        other => other.clone(),
    }
}

/// Which way a setting tightens, for a change that arrives in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tightening {
    /// As an agent's environment may change it ([`ForAgent::allows`]).
    As(ForAgent),
    /// A choice whose words go from the weakest to the strongest.
    StrongerWord,
    /// Every change loosens: where data lives, whom to trust, what runs,
    /// what an agent is told.
    Never,
}

/// How `setting` tightens. The directions an agent's environment may take
/// hold for the files too; settings no environment may set tighten as
/// this table says, or not at all.
fn tightening(setting: &Setting) -> Tightening {
    match setting.for_agent {
        ForAgent::Any | ForAgent::Never => {}
        directed => return Tightening::As(directed),
    }
    match setting.key {
        "judge.unchecked" | "dispatch.sandbox" | "dispatch.merge" => Tightening::StrongerWord,
        "verification.allow_commands"
        | "verification.allow_private_hosts"
        | "dispatch.enabled"
        | "dispatch.pass_at_run_end" => Tightening::As(ForAgent::False),
        "verification.command_timeout"
        | "verification.http_timeout"
        | "dispatch.timeout"
        | "git.timeout"
        | "dispatch.max_cost_usd_per_day"
        | "reply.expires" => Tightening::As(ForAgent::Lower),
        "dispatch.max_parallel"
        | "dispatch.max_retries"
        | "dispatch.plan_repairs"
        | "dispatch.max_subagents"
        | "dispatch.stall_after"
        | "hooks.max_continuations" => Tightening::As(ForAgent::LowerNotOff),
        "dispatch.min_resend_interval" => Tightening::As(ForAgent::Higher),
        _ => Tightening::Never,
    }
}

/// Whether `wanted` of `setting` is at least as tight as `accepted`: a
/// change a file may make without a person.
pub(super) fn tightens(setting: &Setting, accepted: &Value, wanted: &Value) -> bool {
    if accepted == wanted {
        return true;
    }
    match tightening(setting) {
        Tightening::As(direction) => direction.allows(accepted, wanted),
        Tightening::StrongerWord => {
            let Kind::Choice(words) = setting.kind else {
                return false;
            };
            let strength = |value: &Value| match value {
                Value::Text(word) => words.iter().position(|w| w == word),
                _ => None,
            };
            strength(wanted) > strength(accepted)
        }
        Tightening::Never => false,
    }
}

/// The accepted value of `setting` as `said` has it: its default when
/// `said` does not set it or sets what this version cannot read.
pub(super) fn accepted_value(setting: &Setting, said: &Said, default: &Value) -> Value {
    said.yaml(setting.key)
        .and_then(|yaml| parse_value(setting.kind, &yaml).ok())
        .filter(|value| path_problem(setting.key, value).is_none())
        .unwrap_or_else(|| default.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str) -> Said {
        let mut said = Said::default();
        said.add(&serde_yaml::from_str(text).unwrap());
        said
    }

    #[test]
    fn what_files_say_is_merged_key_by_key_and_reads_back() {
        let mut both = said(
            "dispatch: {enabled: true, agent: claude}\nagents:\n  mine: {command: [a], output: text}\n",
        );
        both.add(
            &serde_yaml::from_str(
                "dispatch:\n  agent: codex\nagents:\n  mine:\n    command: [b]\n",
            )
            .unwrap(),
        );
        let text = both.text();
        assert_eq!(
            text,
            "agents: {\"mine\":{\"command\":[\"b\"],\"output\":\"text\"}}\ndispatch.enabled: true\ndispatch.agent: \"codex\"\n"
        );
        assert_eq!(Said::parse(&text), both);
        assert_eq!(Said::parse("nonsense\nno.such.key: 1\n"), Said::default());
    }

    #[test]
    fn every_setting_tightens_one_way_or_not_at_all() {
        let setting = |key: &str| SETTINGS.iter().find(|s| s.key == key).unwrap();
        let text = |s: &str| Value::Text(s.to_string());
        let count = Value::Count;
        // Tighter: counts at once.
        for (key, from, to) in [
            ("global_limits.max_active_goals", count(5), count(3)),
            ("judge.unchecked", text("agent"), text("person")),
            ("dispatch.sandbox", text("auto"), text("required")),
            (
                "verification.allow_commands",
                Value::Bool(true),
                Value::Bool(false),
            ),
            (
                "circuit_breaker.enabled",
                Value::Bool(false),
                Value::Bool(true),
            ),
            (
                "dispatch.max_cost_usd_per_day",
                Value::OptionalNumber(None),
                Value::OptionalNumber(Some(5.0)),
            ),
            ("enabled", Value::Bool(true), Value::Bool(false)),
        ] {
            assert!(tightens(setting(key), &from, &to), "{key}: {from} -> {to}");
            assert!(!tightens(setting(key), &to, &from), "{key}: {to} -> {from}");
        }
        // Either way waits for a person.
        for (key, a, b) in [
            ("goals_dir", text("state/goals"), text("elsewhere")),
            (
                "verification.github_api",
                text("https://api.github.com"),
                text("http://x"),
            ),
            (
                "defaults.priority",
                Value::Priority(crate::model::Priority::Low),
                Value::Priority(crate::model::Priority::High),
            ),
            (
                "circuit_breaker.max_assessments_without_progress",
                count(5),
                count(0),
            ),
        ] {
            assert!(!tightens(setting(key), &a, &b), "{key}");
            if key != "circuit_breaker.max_assessments_without_progress" {
                assert!(!tightens(setting(key), &b, &a), "{key}");
            }
        }
    }

    /// Values a file may give a setting: its default, and strict and
    /// loose ones.
    fn candidates(setting: &Setting) -> Vec<String> {
        let mut values = vec![setting.default.to_string()];
        values.extend(
            match setting.kind {
                Kind::Bool => vec!["true", "false"],
                Kind::Count => vec!["0", "1", "3", "1000"],
                Kind::Number => vec!["0", "0.5", "9"],
                Kind::Duration => vec!["1s", "10m", "2h"],
                Kind::Text => vec!["elsewhere", "state/goals"],
                Kind::OptionalText => vec!["null", "elsewhere"],
                Kind::Priority => vec!["low", "critical"],
                Kind::PriorityList => vec!["[]", "[critical]", "[critical, high, normal, low]"],
                Kind::TextList => vec!["[]", "[a, b]"],
                Kind::Choice(words) => words.to_vec(),
                Kind::ChoiceList(words) => vec!["[]", words[0]],
                Kind::OptionalNumber => vec!["null", "1", "1000"],
                Kind::OptionalArgv => vec!["null", "[sh, -c, 'echo pwned']"],
                Kind::OptionalHours => vec!["null", "\"22:00-06:00\""],
                Kind::Routes => vec!["[]"],
                Kind::HoursList => vec!["[]", "[\"08:00-23:00\"]"],
            }
            .into_iter()
            .map(str::to_string),
        );
        values
    }

    /// One file an agent (or a pull) writes: settings set to candidates,
    /// maybe an agent profile, maybe a line that breaks it.
    fn file_text(picks: &[(usize, usize)], profile: bool, broken: bool) -> String {
        let mut set = BTreeMap::new();
        for &(setting, value) in picks {
            let setting = &SETTINGS[setting % SETTINGS.len()];
            let values = candidates(setting);
            set.insert(setting.key, values[value % values.len()].clone());
        }
        // Nested block mappings, a section line where the path changes.
        let mut text = String::new();
        let mut open: Vec<&str> = Vec::new();
        for (key, value) in set {
            let parts: Vec<&str> = key.split('.').collect();
            let (name, sections) = parts.split_last().unwrap();
            let shared = open
                .iter()
                .zip(sections)
                .take_while(|(a, b)| a == b)
                .count();
            for (depth, section) in sections.iter().enumerate().skip(shared) {
                text.push_str(&format!("{}{section}:\n", "  ".repeat(depth)));
            }
            open = sections.to_vec();
            text.push_str(&format!("{}{name}: {value}\n", "  ".repeat(sections.len())));
        }
        if profile {
            text.push_str("agents:\n  mine:\n    command: [sh, -c, 'echo pwned']\n");
        }
        if broken {
            text.push_str("global_limits: [\n");
        }
        text
    }

    #[derive(Debug, Clone)]
    enum Step {
        /// An agent, or a pull, writes `steward.yaml` (or the local file).
        Write {
            local: bool,
            picks: Vec<(usize, usize)>,
            profile: bool,
            broken: bool,
        },
        /// `tick` records what the files tightened.
        Tick,
        /// A person runs `config accept`.
        Accept,
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        let write = (
            proptest::bool::weighted(0.3),
            proptest::collection::vec((0..1000usize, 0..8usize), 0..40),
            proptest::bool::weighted(0.2),
            proptest::bool::weighted(0.1),
        )
            .prop_map(|(local, picks, profile, broken)| Step::Write {
                local,
                picks,
                profile,
                broken,
            });
        prop_oneof![5 => write, 3 => Just(Step::Tick), 2 => Just(Step::Accept)]
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(
            std::env::var("STEWARD_PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256)
        ))]

        /// Whatever the files go through after a person last accepted them
        /// — loosenings, tightenings `tick` records, files that do not
        /// load, agent profiles — every setting in force is at least as
        /// tight as what that person accepted, no profile they did not
        /// accept is in force, and a file that loads counts wherever it
        /// tightens.
        #[test]
        fn no_sequence_of_writes_loosens_what_a_person_accepted(
            steps in proptest::collection::vec(step(), 1..12),
        ) {
            use super::super::layers::Layers;
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            std::fs::create_dir_all(root.join("state/local")).unwrap();
            let mut record = Said::default();
            let mut by_person = Said::default();
            for step in steps {
                match step {
                    Step::Write { local, picks, profile, broken } => {
                        let path = if local {
                            super::super::LOCAL_FILE
                        } else {
                            super::super::FILE_NAME
                        };
                        std::fs::write(root.join(path), file_text(&picks, profile, broken))
                            .unwrap();
                    }
                    Step::Tick => {
                        if let Ok((files, said)) = Layers::from_files(root)
                            && let (_, Some(changes)) = files.weighed(&said, &record)
                        {
                            record = Said::parse(&changes.record_with_tightened);
                        }
                    }
                    Step::Accept => {
                        if let Ok((_, said)) = Layers::from_files(root) {
                            record = Said::parse(&said.text());
                            by_person = record.clone();
                        }
                    }
                }
                let defaults = Layers::defaults();
                let (in_force, loaded) = match Layers::from_files(root) {
                    Ok((files, said)) => (files.clone().weighed(&said, &record).0, Some(files)),
                    Err(_) => (Layers::accepted(&record), None),
                };
                for (index, setting) in SETTINGS.iter().enumerate() {
                    let default = &defaults.values[index].0;
                    let accepted = accepted_value(setting, &by_person, default);
                    let value = &in_force.values[index].0;
                    proptest::prop_assert!(
                        tightens(setting, &accepted, value),
                        "{}: a person accepted {}, {} is in force",
                        setting.key,
                        accepted,
                        value
                    );
                    if let Some(files) = &loaded {
                        let wanted = &files.values[index].0;
                        let now = accepted_value(setting, &record, default);
                        if tightens(setting, &now, wanted) {
                            proptest::prop_assert_eq!(value, wanted, "{}", setting.key);
                        }
                    }
                }
                let mine_accepted = by_person
                    .agents()
                    .is_some_and(|agents| agents.get("mine").is_some());
                proptest::prop_assert!(
                    mine_accepted || in_force.agents.iter().all(|a| a.name != "mine"),
                    "a profile no person accepted is in force"
                );
            }
        }
    }
}
