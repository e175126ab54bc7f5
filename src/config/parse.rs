//! Validation: a YAML value read as a setting's type, with a message
//! that says what was expected.

use crate::model::Priority;
use crate::model::duration::HumanDuration;

use std::path::Path;

use super::schema::{Kind, NOTIFY_EVENTS, SETTINGS, Value};
use super::settings::{QuietHours, Route};

pub(super) fn parse_value(kind: Kind, yaml: &serde_yaml::Value) -> Result<Value, String> {
    use serde_yaml::Value as Y;
    let found = || describe_yaml(yaml);
    match kind {
        Kind::Bool => yaml
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| format!("expected true or false, found {}", found())),
        Kind::Count => yaml
            .as_u64()
            .map(Value::Count)
            .ok_or_else(|| format!("expected a whole number, found {}", found())),
        Kind::Number => match yaml.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(Value::Number(x)),
            _ => Err(format!(
                "expected a number of at least 0, found {}",
                found()
            )),
        },
        Kind::Duration => match yaml {
            Y::String(s) => HumanDuration::parse(s).map(Value::Duration),
            _ => Err(format!(
                "expected a duration such as 10m, found {}",
                found()
            )),
        },
        Kind::Text => match yaml {
            Y::String(s) if !s.trim().is_empty() => Ok(Value::Text(s.clone())),
            _ => Err(format!("expected text, found {}", found())),
        },
        Kind::OptionalText => match yaml {
            Y::Null => Ok(Value::OptionalText(None)),
            Y::String(s) => Ok(Value::OptionalText(Some(s.clone()))),
            _ => Err(format!("expected text or null, found {}", found())),
        },
        Kind::Priority => match yaml {
            Y::String(s) => Priority::parse_known(s).map(Value::Priority),
            _ => Err(format!("expected a priority, found {}", found())),
        },
        Kind::PriorityList => string_list(yaml)?
            .iter()
            .map(|s| Priority::parse_known(s))
            .collect::<Result<_, _>>()
            .map(Value::PriorityList),
        Kind::TextList => string_list(yaml).map(Value::TextList),
        Kind::ChoiceList(words) => {
            let list = string_list(yaml)?;
            match list.iter().find(|w| !words.contains(&w.as_str())) {
                Some(word) => Err(format!(
                    "unknown `{word}`: expected some of {}",
                    words.join(", ")
                )),
                None => Ok(Value::TextList(list)),
            }
        }
        Kind::OptionalNumber => match yaml {
            Y::Null => Ok(Value::OptionalNumber(None)),
            _ => match yaml.as_f64() {
                Some(x) if x.is_finite() && x >= 0.0 => Ok(Value::OptionalNumber(Some(x))),
                _ => Err(format!(
                    "expected a number of at least 0 or null, found {}",
                    found()
                )),
            },
        },
        Kind::OptionalArgv => match yaml {
            Y::Null => Ok(Value::OptionalTextList(None)),
            _ => {
                let words = string_list(yaml)?;
                if words.first().is_none_or(|w| w.trim().is_empty()) {
                    Err("expected a command: a list whose first word is the program".to_string())
                } else {
                    Ok(Value::OptionalTextList(Some(words)))
                }
            }
        },
        Kind::Routes => routes(yaml).map(Value::Routes),
        Kind::HoursList => {
            let list = string_list(yaml)?;
            match list.iter().find(|w| QuietHours::parse(w).is_none()) {
                Some(bad) => Err(format!("`{bad}` is not hours such as \"08:00-23:00\"")),
                None => Ok(Value::TextList(list)),
            }
        }
        Kind::OptionalHours => match yaml {
            Y::Null => Ok(Value::OptionalText(None)),
            Y::String(s) if QuietHours::parse(s).is_some() => {
                Ok(Value::OptionalText(Some(s.clone())))
            }
            _ => Err(format!(
                "expected hours such as \"22:00-07:00\" or null, found {}",
                found()
            )),
        },
        Kind::Choice(words) => match yaml {
            Y::String(s) if words.contains(&s.as_str()) => Ok(Value::Text(s.clone())),
            _ => Err(format!(
                "expected one of {}, found {}",
                words.join(", "),
                found()
            )),
        },
    }
}

/// `notify.routes`: a list of mappings with `command` and, to narrow
/// what they get, `events`, `priorities` and `owners`.
pub(super) fn routes(yaml: &serde_yaml::Value) -> Result<Vec<Route>, String> {
    let serde_yaml::Value::Sequence(items) = yaml else {
        return Err(format!(
            "expected a list of routes, found {}",
            describe_yaml(yaml)
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(n, item)| {
            let at = |why: String| format!("route {}: {why}", n + 1);
            let serde_yaml::Value::Mapping(fields) = item else {
                return Err(at(format!(
                    "expected a mapping with command (and events, priorities, owners), found {}",
                    describe_yaml(item)
                )));
            };
            let mut route = Route::default();
            for (key, value) in fields {
                let list = |value| {
                    string_list(value)
                        .map_err(|why| at(format!("{}: {why}", key.as_str().unwrap_or("?"))))
                };
                match key.as_str() {
                    Some("command") => {
                        route.command = list(value)?;
                        if route.command.first().is_none_or(|w| w.trim().is_empty()) {
                            return Err(at(
                                "command: expected a list whose first word is the program"
                                    .to_string(),
                            ));
                        }
                    }
                    Some("events") => {
                        route.events = list(value)?;
                        if let Some(unknown) = route
                            .events
                            .iter()
                            .find(|e| !NOTIFY_EVENTS.contains(&e.as_str()))
                        {
                            return Err(at(format!(
                                "events: unknown event `{unknown}` (known: {})",
                                NOTIFY_EVENTS.join(", ")
                            )));
                        }
                    }
                    Some("priorities") => {
                        route.priorities = list(value)?
                            .iter()
                            .map(|p| {
                                Priority::parse_known(p)
                                    .map_err(|why| at(format!("priorities: {why}")))
                            })
                            .collect::<Result<_, _>>()?;
                    }
                    Some("owners") => route.owners = list(value)?,
                    _ => {
                        return Err(at(format!(
                            "unknown key {} (a route has command, events, priorities, owners)",
                            describe_yaml(key)
                        )));
                    }
                }
            }
            if route.command.is_empty() {
                return Err(at("a route needs a command".to_string()));
            }
            Ok(route)
        })
        .collect()
}

pub(super) fn string_list(yaml: &serde_yaml::Value) -> Result<Vec<String>, String> {
    let serde_yaml::Value::Sequence(items) = yaml else {
        return Err(format!("expected a list, found {}", describe_yaml(yaml)));
    };
    items
        .iter()
        .map(|item| {
            item.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("expected a list of text, found {}", describe_yaml(item)))
        })
        .collect()
}

/// A value as an error message names it: "`5`", "a list".
pub fn describe_yaml(yaml: &serde_yaml::Value) -> String {
    match yaml {
        serde_yaml::Value::Null => "nothing".to_string(),
        serde_yaml::Value::Bool(b) => format!("`{b}`"),
        serde_yaml::Value::Number(n) => format!("`{n}`"),
        serde_yaml::Value::String(s) => format!("`{s}`"),
        serde_yaml::Value::Sequence(_) => "a list".to_string(),
        serde_yaml::Value::Mapping(_) => "a mapping".to_string(),
        serde_yaml::Value::Tagged(_) => "a tagged value".to_string(),
    }
}

/// A YAML error's message without its own location (the caller prints it
/// first), with any other line it names shifted by `line_offset` so that it
/// counts lines of the whole file.
pub fn yaml_message(err: &serde_yaml::Error, line_offset: usize) -> String {
    let text = err.to_string();
    let mut out = String::new();
    let mut rest = text.as_str();
    let mut first = true;
    while let Some(index) = rest.find(" at line ") {
        out.push_str(&rest[..index]);
        let after = &rest[index + " at line ".len()..];
        let digits = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        let line: usize = after[..digits].parse().unwrap_or(0);
        let tail = &after[digits..];
        let column_end = tail.strip_prefix(" column ").map_or(0, |c| {
            " column ".len() + c.find(|ch: char| !ch.is_ascii_digit()).unwrap_or(c.len())
        });
        if !first {
            out.push_str(&format!(" on line {}", line + line_offset));
        }
        first = false;
        rest = &tail[column_end..];
    }
    out.push_str(rest);
    out
}

/// The settings that say where steward keeps data in the store.
pub(super) const PATH_KEYS: [&str; 3] = ["goals_dir", "mirror.path", "episodes.path"];

/// Why `value` of setting `key` cannot be where steward keeps data: a path
/// must be relative to the store and stay inside it.
pub(super) fn path_problem(key: &str, value: &Value) -> Option<&'static str> {
    if !PATH_KEYS.contains(&key) {
        return None;
    }
    let path = match value {
        Value::Text(path) | Value::OptionalText(Some(path)) => Path::new(path),
        _ => return None,
    };
    use std::path::Component;
    path.components()
        .any(|part| !matches!(part, Component::Normal(_) | Component::CurDir))
        .then_some("a path inside the store, relative to it, without `..`")
}

/// Flattens nested mappings into dotted leaf keys; sections are the keys that
/// prefix a known setting. Returns the offending key when one is not a string.
pub(super) fn flatten(
    mapping: &serde_yaml::Mapping,
    prefix: &str,
    out: &mut Vec<(String, serde_yaml::Value)>,
) -> Result<(), String> {
    for (key, value) in mapping {
        let Some(key) = key.as_str() else {
            return Err(format!("{prefix}{key:?}"));
        };
        let full = format!("{prefix}{key}");
        let is_section = SETTINGS.iter().any(|s| {
            s.key
                .strip_prefix(full.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
        });
        match value {
            serde_yaml::Value::Mapping(children) if is_section => {
                flatten(children, &format!("{full}."), out)?;
            }
            serde_yaml::Value::Null if is_section => {}
            _ => out.push((full, value.clone())),
        }
    }
    Ok(())
}
