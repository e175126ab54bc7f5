//! What each model the clients run costs: the list prices steward meters
//! a run with when the client names the model of each response (Claude
//! Code's stream) or of its thread (Codex's rollout), and a profile has no
//! prices of its own. A model the table does not know is priced at the
//! highest price it holds, and the run's result says so: a bound is never
//! crossed because a new model was guessed cheap.

use super::Prices;

/// Where the table's prices come from, and when they were read.
pub const SOURCE: &str = "list prices of docs.anthropic.com/en/docs/about-claude/pricing and platform.openai.com/docs/pricing, as of 2026-03; claude-opus-5-5 as Claude Code 2.1.332 reports its list price (2026-12)";

/// US dollars per million tokens: input, cached input (a cache read),
/// cache write, output.
type Row = (&'static str, f64, f64, f64, f64);

/// The models, by name as the clients give it (a date or a context
/// suffix after it is the same model). A version not listed is unknown.
const TABLE: &[Row] = &[
    ("claude-opus-5-5", 4.0, 0.40, 5.0, 20.0),
    ("claude-opus-4-6", 5.0, 0.50, 6.25, 25.0),
    ("claude-opus-4-5", 5.0, 0.50, 6.25, 25.0),
    ("claude-opus-4-1", 15.0, 1.50, 18.75, 75.0),
    ("claude-opus-4", 15.0, 1.50, 18.75, 75.0),
    ("claude-sonnet-4-6", 3.0, 0.30, 3.75, 15.0),
    ("claude-sonnet-4-5", 3.0, 0.30, 3.75, 15.0),
    ("claude-sonnet-4", 3.0, 0.30, 3.75, 15.0),
    ("claude-3-7-sonnet", 3.0, 0.30, 3.75, 15.0),
    ("claude-haiku-4-5", 1.0, 0.10, 1.25, 5.0),
    ("claude-3-5-haiku", 0.80, 0.08, 1.0, 4.0),
    ("claude-3-haiku", 0.25, 0.03, 0.30, 1.25),
    ("gpt-5", 1.25, 0.125, 0.0, 10.0),
    ("gpt-5-codex", 1.25, 0.125, 0.0, 10.0),
    ("gpt-5-mini", 0.25, 0.025, 0.0, 2.0),
    ("gpt-5-nano", 0.05, 0.005, 0.0, 0.40),
    ("gpt-5-pro", 15.0, 15.0, 0.0, 120.0),
    ("gpt-5.1", 1.25, 0.125, 0.0, 10.0),
    ("gpt-5.1-codex", 1.25, 0.125, 0.0, 10.0),
    ("gpt-5.1-codex-max", 1.25, 0.125, 0.0, 10.0),
    ("gpt-5.1-codex-mini", 0.25, 0.025, 0.0, 2.0),
];

fn prices(row: &Row) -> Prices {
    let (_, input, cached_input, cache_write, output) = *row;
    Prices {
        input,
        cached_input,
        cache_write,
        output,
        own: false,
        as_of: Some(SOURCE.to_string()),
    }
}

/// How a model was priced.
#[derive(Debug, Clone, PartialEq)]
pub enum Priced {
    /// The table knows it.
    Known(Prices),
    /// The table does not: its highest prices.
    Unknown(Prices),
}

impl Priced {
    pub fn prices(&self) -> &Prices {
        match self {
            Priced::Known(prices) | Priced::Unknown(prices) => prices,
        }
    }
}

/// The prices of `model` as the clients name it.
pub fn of_model(model: &str) -> Priced {
    let name = model.trim().to_ascii_lowercase();
    TABLE.iter().find(|row| names(row.0, &name)).map_or_else(
        || Priced::Unknown(highest()),
        |row| Priced::Known(prices(row)),
    )
}

/// Whether `name` is `model`: itself, or with a date (`-20250929`), a
/// context size (`[1m]`) or `-latest` after it.
fn names(model: &str, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(model) else {
        return false;
    };
    let dated = rest
        .strip_prefix('-')
        .is_some_and(|date| date.len() >= 8 && date[..8].bytes().all(|b| b.is_ascii_digit()));
    rest.is_empty() || rest.starts_with('[') || rest == "-latest" || dated
}

/// What a person is told of `models` priced at the table's highest.
pub fn unknown_note(models: &[String]) -> Option<String> {
    (!models.is_empty()).then(|| {
        format!(
            "priced {} at the highest known prices: steward's price table does not list it (set the profile's own prices)",
            models.join(", ")
        )
    })
}

/// The highest price of each kind the table holds.
pub fn highest() -> Prices {
    let most = |pick: fn(&Row) -> f64| TABLE.iter().map(pick).fold(0.0, f64::max);
    Prices {
        input: most(|r| r.1),
        cached_input: most(|r| r.2),
        cache_write: most(|r| r.3),
        output: most(|r| r.4),
        own: false,
        as_of: Some(format!("the highest of the {SOURCE}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_are_named_with_their_dates_and_unknown_ones_cost_the_most() {
        let output = |model: &str| of_model(model).prices().output;
        assert_eq!(output("claude-sonnet-4-5-20250929"), 15.0);
        assert_eq!(output("claude-opus-4-1-20250805"), 75.0);
        assert_eq!(output("claude-opus-4-20250514"), 75.0);
        assert_eq!(output("claude-opus-4-6[1m]"), 25.0);
        assert_eq!(output("claude-opus-5-5"), 20.0);
        assert_eq!(output("Claude-Haiku-4-5"), 5.0);
        assert_eq!(output("gpt-5-codex"), 10.0);
        assert_eq!(output("gpt-5.1-codex-mini"), 2.0);
        // A version the table does not list is not its neighbour's.
        for unknown in ["claude-opus-4-8", "gpt-5.2-codex", "mock-model", ""] {
            assert!(matches!(of_model(unknown), Priced::Unknown(_)), "{unknown}");
            assert_eq!(output(unknown), 120.0, "{unknown}");
        }
        assert_eq!(highest().input, 15.0);
    }
}
