//! Layered configuration (steward-reference(5), "CONFIGURATION"): defaults <
//! `steward.yaml` < `STEWARD_*` environment < flags, with the source of
//! every value kept for `config`.
//!
//! One table, `SETTINGS` in `schema`, names every key, its type, its default and its
//! help text; parsing, environment names, the `config` listing and the file
//! `init` writes are all derived from it. The folder holds that table and
//! its values (`schema`), the layering that loads them (`layers`), the
//! reading of one value as its type (`parse`), the typed configuration
//! the rest of steward reads (`settings`), and what a person on this
//! machine accepted of the files, against which every change is weighed
//! (`accepted`).

mod accepted;
mod layers;
mod parse;
mod schema;
mod settings;

pub use accepted::Said;
pub use layers::{Sources, env_name};
pub use parse::{describe_yaml, yaml_message};
pub use schema::NOTIFY_EVENTS;
pub use settings::*;

pub const FILE_NAME: &str = "steward.yaml";

/// Settings of this machine only, never committed (`state/local/` is
/// ignored by git): over `steward.yaml`, under the environment, and
/// weighed with it against what a person here accepted.
pub const LOCAL_FILE: &str = "state/local/steward.yaml";

/// Files larger than this are refused rather than parsed
/// (steward-reference(5), "RELIABILITY").
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Whether the configuration files of the store at `root` load as they
/// are, weighed against nothing: the error that says where when not.
pub fn files_load(root: &std::path::Path) -> crate::error::Result<()> {
    let (layers, _) = layers::Layers::from_files(root)?;
    layers.check_agents()?;
    layers.check_paths(root)
}

/// What the configuration files of the store at `root` say, as a person
/// accepts it ([`Said::text`]); the files that do not load say nothing.
pub fn said_in_files(root: &std::path::Path) -> String {
    layers::Layers::from_files(root)
        .map(|(_, said)| said.text())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::schema::{SETTINGS, default_values};
    use super::*;
    use crate::error::Result;
    use crate::model::duration::HumanDuration;
    use crate::model::{Actor, Priority};

    fn load(text: &str, env: &[(&str, &str)]) -> Result<LoadedConfig> {
        load_for(Actor::User, text, env)
    }

    fn load_for(reader: Actor, text: &str, env: &[(&str, &str)]) -> Result<LoadedConfig> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), text).unwrap();
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::load(dir.path(), &env, &FlagOverrides::default(), reader, None)
    }

    #[test]
    fn an_agents_environment_tightens_limits_and_never_loosens_them() {
        let file = "global_limits:\n  max_dispatches_per_hour: 6\ndefaults:\n  cooldown: 10m\n  escalate_after_failures: 3\nconfirmation:\n  require_for: [critical, high]\ngit:\n  commit: true\n";
        let tighter = [
            ("STEWARD_GLOBAL_LIMITS_MAX_DISPATCHES_PER_HOUR", "2"),
            ("STEWARD_DEFAULTS_COOLDOWN", "1h"),
            ("STEWARD_DEFAULTS_ESCALATE_AFTER_FAILURES", "1"),
            (
                "STEWARD_CONFIRMATION_REQUIRE_FOR",
                "[critical, high, normal]",
            ),
            ("STEWARD_REQUIRES_BOUNDS", "true"),
        ];
        let loaded = load_for(Actor::Agent, file, &tighter).unwrap();
        assert!(loaded.ignored_env.is_empty(), "{:?}", loaded.ignored_env);
        assert_eq!(loaded.config.global_limits.max_dispatches_per_hour, 2);
        assert_eq!(loaded.config.defaults.cooldown, HumanDuration(3600));
        assert!(loaded.config.requires_bounds);
        let looser = [
            ("STEWARD_GLOBAL_LIMITS_MAX_DISPATCHES_PER_HOUR", "600"),
            ("STEWARD_GLOBAL_LIMITS_MAX_ACTIVE_GOALS", "100"),
            ("STEWARD_DEFAULTS_COOLDOWN", "1s"),
            ("STEWARD_DEFAULTS_ESCALATE_AFTER_FAILURES", "0"),
            ("STEWARD_CONFIRMATION_REQUIRE_FOR", "[]"),
            ("STEWARD_CIRCUIT_BREAKER_ENABLED", "false"),
            ("STEWARD_GIT_COMMIT", "false"),
            ("STEWARD_GOALS_DIR", "/tmp/elsewhere"),
            ("STEWARD_VERIFICATION_GITHUB_API", "http://127.0.0.1:9"),
        ];
        let loaded = load_for(Actor::Agent, file, &looser).unwrap();
        assert_eq!(
            loaded.config,
            load(file, &[]).unwrap().config,
            "nothing loosened"
        );
        let ignored: Vec<&str> = loaded.ignored_env.iter().map(|i| i.key).collect();
        assert_eq!(ignored.len(), looser.len(), "{ignored:?}");
        let said: Vec<String> = loaded.ignored_env.iter().map(ToString::to_string).collect();
        assert!(
            said.contains(&"STEWARD_GLOBAL_LIMITS_MAX_DISPATCHES_PER_HOUR is ignored: an agent's environment may tighten global_limits.max_dispatches_per_hour, never loosen it".to_string())
                && said.contains(&"STEWARD_GOALS_DIR is ignored: an agent's environment may not set goals_dir".to_string()),
            "{said:#?}"
        );
        // A person's environment still overrides the file.
        let person = load(file, &looser[..1]).unwrap();
        assert_eq!(person.config.global_limits.max_dispatches_per_hour, 600);
    }

    #[test]
    fn the_files_kill_switch_is_not_turned_on_from_the_environment() {
        for reader in [Actor::User, Actor::Agent] {
            let loaded =
                load_for(reader, "enabled: false\n", &[("STEWARD_ENABLED", "true")]).unwrap();
            assert!(!loaded.config.enabled, "{reader:?}");
            assert!(
                loaded.ignored_env[0]
                    .to_string()
                    .contains("only the file turns it on"),
                "{}",
                loaded.ignored_env[0]
            );
        }
        // Turning steward off from the environment is fine for anyone.
        let off = load_for(Actor::Agent, "", &[("STEWARD_ENABLED", "false")]).unwrap();
        assert!(!off.config.enabled);
    }

    #[test]
    fn defaults_read_without_a_parser_are_each_default() {
        let values = default_values();
        assert_eq!(values.len(), SETTINGS.len());
        for (setting, value) in SETTINGS.iter().zip(&values) {
            assert!(!setting.default.contains('\n'), "{}", setting.key);
            let alone: serde_yaml::Value = serde_yaml::from_str(setting.default).unwrap();
            assert_eq!(&alone, value, "{}", setting.key);
        }
    }

    #[test]
    fn defaults_match_the_spec() {
        let config = Config::default();
        assert!(config.enabled);
        assert_eq!(config.defaults.max_dispatches, 20);
        assert_eq!(config.defaults.cooldown, HumanDuration(600));
        assert_eq!(config.global_limits.max_active_goals, 5);
        assert_eq!(
            config.require_confirmation_for,
            vec![Priority::Critical, Priority::High]
        );
        assert_eq!(config.attention_weights.low, 0.5);
        assert_eq!(config.git.author, None);
    }

    #[test]
    fn the_template_parses_to_the_defaults_when_uncommented() {
        let uncommented: String = Config::template(false)
            .lines()
            .filter(|line| {
                !line.starts_with("# steward") && !line.starts_with("# defaults. Uncomment")
            })
            .map(|line| {
                let line = line.strip_prefix("# ").unwrap_or(line);
                let line = line.split(" # ").next().unwrap().trim_end();
                format!("{line}\n")
            })
            .collect();
        let loaded = load(&uncommented, &[]).unwrap();
        assert_eq!(loaded.config, Config::default());
    }

    #[test]
    fn file_env_and_flag_layers_keep_their_source() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE_NAME),
            "git:\n  commit: true\ndefaults: {cooldown: 5m}\n",
        )
        .unwrap();
        let env = BTreeMap::from([("STEWARD_DEFAULTS_PRIORITY".to_string(), "low".to_string())]);
        let flags = FlagOverrides {
            git_commit: Some(false),
        };
        let loaded = Config::load(dir.path(), &env, &flags, Actor::User, None).unwrap();
        assert!(!loaded.config.git.commit);
        assert_eq!(loaded.config.defaults.cooldown, HumanDuration(300));
        assert_eq!(loaded.config.defaults.priority, Priority::Low);
        let source = |key: &str| {
            let entry = loaded.sources.entries().into_iter().find(|e| e.key == key);
            let source = entry.unwrap().source;
            assert_eq!(loaded.sources.of(key), source, "{key}");
            source
        };
        assert_eq!(source("git.commit"), Source::Flag("--no-commit"));
        assert!(matches!(
            source("defaults.cooldown"),
            Source::File { line: 3, .. }
        ));
        assert_eq!(
            source("defaults.priority"),
            Source::Env("STEWARD_DEFAULTS_PRIORITY".into())
        );
        assert_eq!(source("enabled"), Source::Default);
    }

    #[test]
    fn unknown_keys_and_bad_values_name_key_and_line() {
        let err = load("enabled: true\ndefaults:\n  max_dispachtes: 3\n", &[]).unwrap_err();
        assert!(err.to_string().ends_with(
            "steward.yaml:3:3: unknown key `defaults.max_dispachtes` (did you mean `defaults.max_dispatches`?)"
        ), "{}", err.to_string());
        let err = load("defaults:\n  cooldown: soon\n", &[]).unwrap_err();
        assert!(
            err.to_string()
                .contains("steward.yaml:2:3: defaults.cooldown: invalid duration `soon`"),
            "{}",
            err.to_string()
        );
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn security_settings_ignore_the_environment() {
        let loaded = load("", &[("STEWARD_VERIFICATION_ALLOW_COMMANDS", "true")]).unwrap();
        assert!(!loaded.config.verification.allow_commands);
    }

    #[test]
    fn bad_environment_values_name_the_variable() {
        let err = load("", &[("STEWARD_ENABLED", "maybe")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "STEWARD_ENABLED: expected true or false, found `maybe`"
        );
    }
}
