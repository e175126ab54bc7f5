//! The last forecast a person asked for (`state/cache/forecast`), kept so
//! that the morning's page can set it beside what happened. Machine state
//! under this machine's MAC, as steward's other caches: one an agent wrote
//! or edited is not read. Losing it loses only that comparison.

use super::Store;
use super::key::Domain;
use crate::os::safe_file;

const HEADER: &str = "steward forecast v1";

impl Store {
    /// Keeps `json` (one line) as the last forecast; nothing when it
    /// cannot be kept.
    pub fn remember_forecast(&self, json: &str) {
        let Ok(key) = self.keys.key() else {
            return;
        };
        if self.check_own_directories().is_err() || !super::cache_dir_ready(&self.cache_dir()) {
            return;
        }
        let text = key.with_mac(
            Domain::Cache,
            format!("{HEADER}\n{}\n", json.replace('\n', " ")),
        );
        let _ =
            super::atomic::write_over_unsynced(&self.cache_dir().join("forecast"), text.as_bytes());
    }

    /// The last forecast kept, as it was given to [`Store::remember_forecast`].
    pub fn remembered_forecast(&self) -> Option<String> {
        let key = self.keys.key().ok()?;
        let text = safe_file::read_state(&self.cache_dir().join("forecast"))?;
        let mut lines = key.lines_under_mac(Domain::Cache, &text, HEADER)?;
        lines.next().map(str::to_string)
    }
}
