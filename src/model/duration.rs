//! Human durations such as `90s`, `10m`, `2h`, `1d`, `1h30m`.

use std::fmt;

/// A span of whole seconds, written the way people write it in YAML and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct HumanDuration(pub u64);

const UNITS: [(char, u64); 5] = [
    ('w', 7 * 86_400),
    ('d', 86_400),
    ('h', 3_600),
    ('m', 60),
    ('s', 1),
];

/// The longest duration steward takes: about 100 years. Anything longer is
/// a typo, and times that far out do not fit the clock's arithmetic.
pub const MAX_SECS: u64 = 100 * 365 * 86_400;

impl HumanDuration {
    pub fn from_secs(secs: u64) -> Self {
        HumanDuration(secs)
    }

    pub fn as_secs(self) -> u64 {
        self.0
    }

    pub fn to_chrono(self) -> chrono::Duration {
        chrono::Duration::seconds(self.0.min(MAX_SECS) as i64)
    }

    pub fn to_std(self) -> std::time::Duration {
        std::time::Duration::from_secs(self.0)
    }

    /// Parses one or more `<number><unit>` parts, units `s m h d w`, or
    /// `0`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let invalid = || {
            format!(
                "invalid duration `{text}`: expected a number and a unit such as 90s, 10m, 2h, 1d"
            )
        };
        if text.is_empty() {
            return Err(invalid());
        }
        // Nothing needs no unit: `--cooldown 0`.
        if text == "0" {
            return Ok(HumanDuration(0));
        }
        let mut total: u64 = 0;
        let mut digits = String::new();
        for ch in text.chars() {
            if ch.is_ascii_digit() {
                digits.push(ch);
                continue;
            }
            let unit = UNITS
                .iter()
                .find(|(u, _)| *u == ch)
                .map(|(_, secs)| *secs)
                .ok_or_else(invalid)?;
            let count: u64 = digits.parse().map_err(|_| invalid())?;
            digits.clear();
            total = count
                .checked_mul(unit)
                .and_then(|part| total.checked_add(part))
                .ok_or_else(|| format!("duration `{text}` is too large"))?;
        }
        if !digits.is_empty() {
            return Err(invalid());
        }
        if total > MAX_SECS {
            return Err(format!(
                "duration `{text}` is too large: at most 100 years (5200w)"
            ));
        }
        Ok(HumanDuration(total))
    }
}

impl fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("0s");
        }
        let mut rest = self.0;
        for (unit, secs) in UNITS {
            if rest >= secs {
                write!(f, "{}{unit}", rest / secs)?;
                rest %= secs;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_single_and_compound_units() {
        assert_eq!(HumanDuration::parse("10m"), Ok(HumanDuration(600)));
        assert_eq!(HumanDuration::parse("1h30m"), Ok(HumanDuration(5_400)));
        assert_eq!(HumanDuration::parse("2d"), Ok(HumanDuration(172_800)));
        assert_eq!(HumanDuration::parse(" 45s "), Ok(HumanDuration(45)));
        assert_eq!(HumanDuration::parse("0"), Ok(HumanDuration(0)));
    }

    #[test]
    fn rejects_bare_numbers_and_unknown_units() {
        for bad in ["", "10", "m", "10x", "1.5h", "-1m", "10 m"] {
            assert!(HumanDuration::parse(bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn displays_in_largest_units() {
        assert_eq!(HumanDuration(600).to_string(), "10m");
        assert_eq!(HumanDuration(5_400).to_string(), "1h30m");
        assert_eq!(HumanDuration(0).to_string(), "0s");
        assert_eq!(HumanDuration(691_200).to_string(), "1w1d");
    }
}
