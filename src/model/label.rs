//! Goal labels: 1–64 characters of `a-z 0-9 - _`, starting with a letter or digit.

/// Lowercases `input` and checks it is a valid label.
pub fn normalize(input: &str) -> Result<String, String> {
    let label = input.to_ascii_lowercase();
    validate(&label).map(|()| label)
}

/// Checks an already lowercased label.
pub fn validate(label: &str) -> Result<(), String> {
    let explain =
        "labels are 1-64 characters of a-z, 0-9, '-' and '_', starting with a letter or digit";
    if label.is_empty() {
        return Err(format!("empty label: {explain}"));
    }
    if label.len() > 64 {
        return Err(format!(
            "label `{label}` is {} characters long: {explain}",
            label.chars().count()
        ));
    }
    if let Some(bad) = label
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '_'))
    {
        return Err(format!("label `{label}` contains {bad:?}: {explain}"));
    }
    if !label.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(format!("label `{label}` must start with a letter or digit"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_valid_labels() {
        assert_eq!(normalize("Deploy-API_2").unwrap(), "deploy-api_2");
        assert_eq!(normalize(&"a".repeat(64)).unwrap().len(), 64);
    }

    #[test]
    fn rejects_paths_spaces_and_long_labels() {
        for bad in ["../x", "a b", "UPPER/x", "-x", "_x", "", "é", "a.b"] {
            assert!(normalize(bad).is_err(), "{bad:?} should be refused");
        }
        assert!(normalize(&"a".repeat(65)).is_err());
    }
}
