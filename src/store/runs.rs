//! Agent run records: `state/runs/<id>.json`, one file per run, and the
//! run's output beside it (`<id>.out`, `<id>.err`: machine-local, the tail
//! kept).

use std::path::{Path, PathBuf};

use super::key::Domain;
use super::{Store, atomic};
use crate::error::{Error, FileProblem, Result};
use crate::model::Run;

impl Store {
    pub fn runs_dir(&self) -> PathBuf {
        self.state_dir.join("runs")
    }

    pub fn run_path(&self, id: &str) -> PathBuf {
        self.runs_dir().join(format!("{id}.json"))
    }

    /// Where a run's standard output and error go.
    pub fn run_output_paths(&self, id: &str) -> (PathBuf, PathBuf) {
        let dir = self.runs_dir();
        (dir.join(format!("{id}.out")), dir.join(format!("{id}.err")))
    }

    /// Where a planning run's invalid answer is kept for the repair
    /// prompt.
    pub fn run_answer_path(&self, id: &str) -> PathBuf {
        self.runs_dir().join(format!("{id}.answer"))
    }

    /// Every run record, oldest first; files that do not parse are
    /// problems, never rewritten.
    pub fn runs(&self) -> Result<(Vec<Run>, Vec<FileProblem>)> {
        let dir = self.runs_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok((Vec::new(), Vec::new()));
            }
            Err(err) => return Err(Error::io(&dir, "cannot list runs", err)),
        };
        let mut runs = Vec::new();
        let mut problems = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || !name.ends_with(".json") {
                continue;
            }
            match read_run(&path) {
                Ok(run) => runs.push(self.verified_run(run)),
                Err(problem) => problems.push(problem),
            }
        }
        // Timestamps have whole seconds: within one, runs started on the same
        // boot keep the order their supervisors were started in.
        runs.sort_by(|a, b| {
            (&a.created_at, &a.boot, a.supervisor_start, &a.id).cmp(&(
                &b.created_at,
                &b.boot,
                b.supervisor_start,
                &b.id,
            ))
        });
        Ok((runs, problems))
    }

    /// The run with dispatch id `reference`, or the one it is a unique
    /// prefix of.
    pub fn find_run(&self, reference: &str) -> Result<Run> {
        let exact = self.run_path(reference);
        if exact.is_file() {
            return read_run(&exact)
                .map(|run| self.verified_run(run))
                .map_err(Error::Unreadable);
        }
        let (runs, _) = self.runs()?;
        let matches: Vec<&Run> = runs
            .iter()
            .filter(|r| r.id.starts_with(reference))
            .collect();
        match matches.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(Error::RunNotFound {
                reference: reference.to_string(),
            }),
            many => Err(Error::AmbiguousGoal {
                reference: reference.to_string(),
                matches: many.iter().map(|r| r.id.clone()).collect(),
            }),
        }
    }

    /// Writes a run record atomically, signed by this machine.
    pub(super) fn write_run(&self, run: &Run) -> Result<PathBuf> {
        let path = self.run_path(&run.id);
        let mut run = run.clone();
        run.sig = None;
        if let Some(signer) = self.keys.signer() {
            run.sig = Some(signer.key.sign(Domain::Run, &[&run.signed_bytes()]));
        }
        let text = serde_json::to_string_pretty(&run).expect("runs serialize") + "\n";
        atomic::write(&path, text.as_bytes())?;
        Ok(path)
    }

    /// `run` with whether a machine this one trusts signed it as read.
    fn verified_run(&self, mut run: Run) -> Run {
        let signed = run.signed_bytes();
        run.verified = run.sig.as_deref().is_some_and(|sig| {
            self.trusted_keys()
                .iter()
                .any(|key| key.verifies(Domain::Run, &[&signed], sig))
        });
        run
    }
}

/// A run record is a page of JSON; anything larger is not one.
const RUN_BYTES: u64 = 1024 * 1024;

fn read_run(path: &Path) -> Result<Run, FileProblem> {
    let text = crate::os::safe_file::read_text(path, RUN_BYTES)
        .map_err(|err| FileProblem::whole_file(path, format!("cannot read: {err}")))?
        .ok_or_else(|| FileProblem::whole_file(path, "cannot read: it is gone"))?;
    serde_json::from_str(&text).map_err(|err| FileProblem {
        path: path.display().to_string(),
        line: err.line(),
        column: err.column(),
        message: format!("{err}; fix or remove the file (steward does not overwrite it)"),
    })
}
