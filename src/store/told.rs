//! What this machine last told a person and where in the event log it
//! stopped (`state/notify.json`, the notifier's outbox; `state/tick.json`,
//! what the last pass reported), kept under this machine's MAC bound to the
//! store: a file an agent edited (its cursor moved past an event, a
//! notification taken out), copied from another store or left over from an
//! older format does not verify, and is read as no file at all — the next
//! pass tells of the last day again, under the same notification ids,
//! rather than stay silent. Whoever can write the store can still put back
//! an older copy this machine wrote: that too only tells again.
//!
//! The file is a header line, the JSON document, and the MAC on a last
//! line ([`MachineKey::with_mac`]). Without this machine's key (it could
//! not be read) the file is written and read without a MAC, as it was
//! before: nothing else here could be verified either.

use std::path::Path;

use super::Store;
use super::key::Domain;
use crate::os::safe_file;

impl Store {
    /// The JSON document kept at `path` under `header`, when this machine
    /// wrote it for this store.
    pub fn read_told(&self, path: &Path, header: &str) -> Option<String> {
        let text = safe_file::read_state(path)?;
        let mut lines = match self.keys.key() {
            Ok(key) => key.lines_under_mac(Domain::Told, &text, header)?,
            Err(_) => {
                let mut lines = text.lines();
                (lines.next()? == header).then_some(lines)?
            }
        };
        let document = lines.next()?;
        lines.next().is_none().then(|| document.to_string())
    }

    /// `document` (one line of JSON) as [`Store::read_told`] reads it.
    pub fn render_told(&self, header: &str, document: &str) -> String {
        debug_assert!(!document.contains('\n'), "one line of JSON");
        let body = format!("{header}\n{document}\n");
        match self.keys.key() {
            Ok(key) => key.with_mac(Domain::Told, body),
            Err(_) => body,
        }
    }
}
