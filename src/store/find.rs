//! Finding one goal: by label, id or an id's first characters
//! ([`Store::resolve`]), or again by the names its files have
//! ([`Store::refind`]), reading closed goals only when their file names may
//! match.

use std::path::Path;

use super::scan::goal_paths;
use super::{GoalFile, LoadedGoal, Scan, Scope, Store};
use crate::error::{Error, Result};

impl Store {
    /// Every goal whose label is `wanted` or whose id starts with it (at
    /// least 4 characters), and the files that could not be read; closed
    /// goals are read a batch at a time and only candidates kept.
    fn candidates(&self, wanted: &str) -> Result<Scan> {
        let is_candidate = |loaded: &LoadedGoal| {
            loaded.goal.label == wanted
                || (wanted.len() >= 4
                    && !loaded.goal.id.is_empty()
                    && loaded.goal.id.starts_with(wanted))
        };
        let open = self.scan(Scope::OpenDirectory)?;
        let mut scan = Scan {
            goals: open.goals.into_iter().filter(is_candidate).collect(),
            problems: open.problems,
            ..Scan::default()
        };
        // A closed goal's file is named LABEL-ID8.md: only those whose name
        // could match are read (and every file named otherwise).
        let mut closed = goal_paths(&self.closed_dir, &mut scan.problems)?;
        closed.retain(|path| closed_name_may_match(path, wanted));
        self.load_each(&closed, |result| match result {
            Ok(loaded) if is_candidate(&loaded) => scan.goals.push(loaded),
            Ok(_) => {}
            Err(problem) => scan.problems.push(problem),
        });
        Ok(scan)
    }

    /// Finds again the goal with `id`, last seen with `label`: by the names
    /// its files have (`goals/LABEL.md`, then `goals/closed/LABEL-ID8.md`),
    /// so a goal read before costs one file whatever the store's size, open
    /// or closed. Only when neither holds it (a label changed by hand, a
    /// file renamed) is the store searched as [`Store::resolve`] does.
    pub fn refind(&self, id: &str, label: &str) -> Result<LoadedGoal> {
        if !id.is_empty() && crate::model::label::validate(label).is_ok() {
            let closed = self.closed_path_of(label, id);
            for path in [self.open_path(label), closed] {
                if !path.symlink_metadata().is_ok_and(|m| m.is_file()) {
                    continue;
                }
                if let Ok(loaded) = self.load(&path)
                    && loaded.goal.id == id
                {
                    return Ok(loaded);
                }
            }
        }
        self.resolve(id)
    }

    /// [`Store::refind`] of a goal `before` loaded earlier (outside the lock):
    /// while its file holds the same bytes, it is the same goal, and is not
    /// parsed again; only the file's stamp is new.
    pub fn refind_after(&self, before: &LoadedGoal) -> Result<LoadedGoal> {
        let path = &before.file.path;
        if path.symlink_metadata().is_ok_and(|m| m.is_file())
            && let Ok(file) = GoalFile::read(path)
            && file.text() == before.file.text()
        {
            return Ok(LoadedGoal {
                file,
                goal: before.goal.clone(),
                digest: before.digest.clone(),
            });
        }
        self.refind(&before.goal.id, &before.goal.label)
    }

    /// Finds one goal by label, full id, or a unique id prefix of at least 4
    /// characters. Open goals win over terminal ones; among terminal goals
    /// with the same label the most recently closed wins.
    pub fn resolve(&self, reference: &str) -> Result<LoadedGoal> {
        let wanted = reference.trim().to_ascii_lowercase();
        // Fast path: the file named after the label.
        let direct = self.open_path(&wanted);
        let is_plain_file = direct.symlink_metadata().is_ok_and(|m| m.is_file());
        if crate::model::label::validate(&wanted).is_ok() && is_plain_file {
            let loaded = self.load(&direct)?;
            if loaded.goal.label == wanted && !loaded.goal.status.is_terminal() {
                return Ok(loaded);
            }
        }
        let scan = self.candidates(&wanted)?;
        let open_by_label = scan
            .goals
            .iter()
            .find(|g| g.goal.label == wanted && !g.goal.status.is_terminal());
        if let Some(found) = open_by_label {
            return Ok(found.clone());
        }
        if wanted.len() >= 4 {
            let by_id: Vec<&LoadedGoal> = scan
                .goals
                .iter()
                .filter(|g| !g.goal.id.is_empty() && g.goal.id.starts_with(&wanted))
                .collect();
            match by_id.as_slice() {
                [one] => return Ok((*one).clone()),
                [] => {}
                many => {
                    return Err(Error::AmbiguousGoal {
                        reference: reference.to_string(),
                        matches: many
                            .iter()
                            .map(|g| format!("{} ({})", g.goal.label, g.goal.id))
                            .collect(),
                    });
                }
            }
        }
        let closed = scan
            .goals
            .iter()
            .filter(|g| g.goal.label == wanted)
            .max_by_key(|g| (g.goal.closed_at, g.goal.updated_at));
        if let Some(found) = closed {
            return Ok(found.clone());
        }
        if let Some(problem) = scan.problems.iter().find(|p| {
            Path::new(&p.path)
                .file_stem()
                .is_some_and(|s| s.to_string_lossy() == wanted)
        }) {
            return Err(problem.clone().into());
        }
        Err(Error::GoalNotFound {
            reference: reference.to_string(),
            unreadable: scan.problems.len(),
            nearest: self.nearest_open_label(&wanted),
        })
    }

    /// The open goal whose label is nearest `wanted`, when near enough to
    /// be a typo of it (goal files are named after their labels).
    fn nearest_open_label(&self, wanted: &str) -> Option<String> {
        let labels: Vec<String> = std::fs::read_dir(&self.goals_dir)
            .ok()?
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                Some(name.strip_suffix(".md")?.to_string())
            })
            .collect();
        crate::text::nearest(wanted, labels.iter().map(String::as_str)).map(str::to_string)
    }
}

/// Whether the closed goal file at `path` may be the goal `wanted` (a
/// label, or an id or its prefix) names, by its file name alone: a name
/// of steward's form `LABEL-ID8.md` rules it out unless the label is
/// `wanted` or the id's first characters agree with it.
fn closed_name_may_match(path: &Path, wanted: &str) -> bool {
    let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
        return true;
    };
    let Some((label, short)) = stem.rsplit_once('-') else {
        return true;
    };
    if short.len() != 8 || !short.bytes().all(|b| b.is_ascii_hexdigit()) {
        return true;
    }
    let prefix = wanted.get(..wanted.len().min(8));
    label == wanted || (wanted.len() >= 4 && prefix.is_some_and(|p| short.starts_with(p)))
}

#[cfg(test)]
mod tests {
    use super::closed_name_may_match;
    use crate::store::testing;
    use std::path::Path;

    #[test]
    fn a_goal_found_again_is_read_again_and_parsed_again_only_when_changed() {
        let store = testing::TempStore::new();
        store.goal("ship", "title: ship", &["a"]);
        let opened = store.store();
        let before = opened.resolve("ship").unwrap();
        let same = opened.refind_after(&before).unwrap();
        assert_eq!(
            (&same.goal, same.file.text()),
            (&before.goal, before.file.text())
        );

        let path = "state/goals/ship.md";
        let retitled = store.read(path).replace("title: ship", "title: Ship it");
        store.write(path, &retitled);
        let changed = opened.refind_after(&before).unwrap();
        assert_eq!(changed.goal.title, "Ship it");
        assert_eq!(changed.file.text(), retitled);
        assert_ne!(changed.file.stamp, None);
    }

    #[test]
    fn a_closed_file_is_read_only_when_its_name_may_match() {
        let named = Path::new("closed/deploy-api-0f8e2c1a.md");
        assert!(closed_name_may_match(named, "deploy-api"));
        assert!(closed_name_may_match(named, "0f8e"));
        assert!(closed_name_may_match(named, "0f8e2c1a-5d7b"));
        assert!(!closed_name_may_match(named, "deploy"));
        assert!(!closed_name_may_match(named, "0f8f"));
        assert!(
            !closed_name_may_match(named, "0f8"),
            "ids need 4 characters"
        );
        // A label that ends like an id is still split at the last dash.
        let tricky = Path::new("closed/x-deadbeef-12345678.md");
        assert!(closed_name_may_match(tricky, "x-deadbeef"));
        assert!(!closed_name_may_match(tricky, "dead"));
        // Named otherwise (by hand): always read.
        for name in ["closed/notes.md", "closed/a-b.md", "closed/a-nothexid.md"] {
            assert!(closed_name_may_match(Path::new(name), "anything"));
        }
    }
}
