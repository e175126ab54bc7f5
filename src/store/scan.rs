//! Reading many goals: the scopes a command asks for, read on every core
//! a directory at a time, goals closed by hand passed over with a `stat`
//! when only open goals are wanted, and counts that read no goal.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::dir::{Dir, Stat};
use super::open_count::{self, Counted, Stamps};
use super::plan_memo::PlanMemo;
use super::{Field, GoalFile, LoadedGoal, Store, atomic, terminal_cache};
use crate::error::{Error, FileProblem, Result};
use crate::model::Digest;

/// The goals a scan could read, and the files it could not.
#[derive(Debug, Default)]
pub struct Scan {
    pub goals: Vec<LoadedGoal>,
    pub problems: Vec<FileProblem>,
    /// [`Scope::OpenDirectoryWithDigests`]: the first
    /// [`CLOSED_IN_PLACE_KEPT`] terminal goals in the open goals' directory,
    /// in file-name order, not held; `tick` reads them again to move them.
    pub closed_in_place: Vec<ClosedInPlace>,
    /// How many more terminal goals the open goals' directory holds (a
    /// person may have closed 90,000 by hand): left for later passes.
    pub more_closed_in_place: usize,
}

/// How many terminal goals in the open goals' directory a scan keeps track
/// of ([`Scan::closed_in_place`]), and so how many one `tick` moves: a pass
/// holds each goal it moves, with its undo record and event, until it ends.
pub const CLOSED_IN_PLACE_KEPT: usize = 512;

impl Scan {
    /// Keeps what reading `path`, a file of the open goals' directory
    /// (after those already kept), gave.
    fn add(&mut self, path: &Path, read: Result<InOpenDirectory, FileProblem>) {
        match read {
            Ok(InOpenDirectory::Open(loaded)) => self.goals.push(*loaded),
            Ok(InOpenDirectory::Closed(stamp)) => {
                self.keep_closed(self.closed_in_place.len(), path, stamp);
            }
            Err(problem) => self.problems.push(problem),
        }
    }

    /// Keeps the terminal goal at `path` at `at` in
    /// [`Scan::closed_in_place`], or counts it when that holds enough.
    fn keep_closed(&mut self, at: usize, path: &Path, stamp: Option<(u64, SystemTime)>) {
        if at >= CLOSED_IN_PLACE_KEPT {
            self.more_closed_in_place += 1;
            return;
        }
        let path = path.to_path_buf();
        self.closed_in_place
            .insert(at, ClosedInPlace { path, stamp });
        if self.closed_in_place.len() > CLOSED_IN_PLACE_KEPT {
            self.closed_in_place.pop();
            self.more_closed_in_place += 1;
        }
    }
}

/// A goal file in the open goals' directory whose status is terminal:
/// closed by hand, or a move to the closed goals that was cut short.
#[derive(Debug, Clone)]
pub struct ClosedInPlace {
    pub path: PathBuf,
    /// Size and modification time when read.
    pub stamp: Option<(u64, SystemTime)>,
}

/// A goal file of the open goals' directory as commands about open goals
/// read it: a terminal goal is only its size and modification time, and an
/// open one is boxed, so the threads that read 100,000 files hand over
/// little.
enum InOpenDirectory {
    Open(Box<LoadedGoal>),
    Closed(Option<(u64, SystemTime)>),
}

/// Which goals a scan reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Goals that are not terminal.
    Open,
    /// Every goal in the open goals' directory, including ones closed by
    /// hand that still sit there.
    OpenDirectory,
    /// The open goals of the open goals' directory with each one's digest,
    /// and the terminal goals there as [`Scan::closed_in_place`] (`tick`).
    OpenDirectoryWithDigests,
    /// Every goal, terminal ones included.
    All,
    /// Every goal, also open ones whose label is not their file name (which
    /// every other scope reports and leaves alone), for `doctor`.
    Diagnose,
}

impl Store {
    /// The files of closed goals, for [`Store::load_each`].
    pub fn closed_paths(&self, problems: &mut Vec<FileProblem>) -> Result<Vec<PathBuf>> {
        goal_paths(&self.closed_dir, problems)
    }

    /// Reads `paths` and hands each goal to `sink` in order, a batch at a
    /// time shared among the cores: many closed goals are read fast and
    /// never held in memory together.
    pub fn load_each(
        &self,
        paths: &[PathBuf],
        mut sink: impl FnMut(Result<LoadedGoal, FileProblem>),
    ) {
        const BATCH: usize = 512;
        for batch in paths.chunks(BATCH) {
            self.load_all(batch, Store::goal_named_by_file, &mut sink);
        }
    }

    /// The labels of the open goals as their file names say (an open goal
    /// lives in `<label>.md`), sorted, without reading a goal.
    pub fn open_labels(&self) -> Result<Vec<String>> {
        let entries = match std::fs::read_dir(&self.goals_dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(err) => return Err(Error::io(&self.goals_dir, "cannot list", err)),
        };
        let mut labels: Vec<String> = entries
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let label = name.strip_suffix(".md")?;
                crate::model::label::validate(label).ok()?;
                Some(label.to_string())
            })
            .collect();
        labels.sort();
        Ok(labels)
    }

    /// Reads one goal. An open goal is found by its file name, so one whose
    /// label says otherwise is a problem, never acted on: two files that
    /// claim one label can never both be it.
    pub fn load(&self, path: &Path) -> Result<LoadedGoal, FileProblem> {
        self.goal_named_by_file(GoalFile::read(path)?)
    }

    /// The goal `file` holds, if its label is its file name (open goals).
    fn goal_named_by_file(&self, file: GoalFile) -> Result<LoadedGoal, FileProblem> {
        let loaded = self.goal_as_written(file)?;
        let path = &loaded.file.path;
        let stem = path.file_stem().map(|s| s.to_string_lossy());
        if path.parent() == Some(self.goals_dir.as_path())
            && stem.as_deref() != Some(loaded.goal.label.as_str())
        {
            return Err(loaded.file.problem_at(
                Field::Label,
                format!(
                    "label `{}` does not match the file name `{}.md`: steward finds an open goal by its file name and leaves this one alone; rename the file or fix the label",
                    loaded.goal.label,
                    stem.unwrap_or_default()
                ),
            ));
        }
        Ok(loaded)
    }

    /// The goal `file` holds, whatever its file name.
    fn goal_as_written(&self, file: GoalFile) -> Result<LoadedGoal, FileProblem> {
        let plans = self.plans.read().expect("not poisoned");
        let goal = file.goal_with_plan_memo(&self.defaults, plans.as_ref())?;
        Ok(LoadedGoal {
            file,
            goal: Box::new(goal),
            digest: None,
        })
    }

    /// [`Store::goal_named_by_file`] with the goal's digest.
    fn goal_with_digest(&self, file: GoalFile) -> Result<LoadedGoal, FileProblem> {
        let mut loaded = self.goal_named_by_file(file)?;
        loaded.digest = Some(Box::new(Digest::of(&loaded.goal)));
        Ok(loaded)
    }

    /// [`Store::goal_named_by_file`] of an open goal; of a terminal one
    /// only its stamp, so a scan never holds thousands closed by hand.
    fn open_goal(&self, file: GoalFile) -> Result<InOpenDirectory, FileProblem> {
        let loaded = self.goal_named_by_file(file)?;
        if loaded.goal.status.is_terminal() {
            return Ok(InOpenDirectory::Closed(loaded.file.stamp));
        }
        Ok(InOpenDirectory::Open(Box::new(loaded)))
    }

    /// [`Store::open_goal`] with the open goal's digest.
    fn open_goal_with_digest(&self, file: GoalFile) -> Result<InOpenDirectory, FileProblem> {
        let mut read = self.open_goal(file)?;
        if let InOpenDirectory::Open(loaded) = &mut read {
            loaded.digest = Some(Box::new(Digest::of(&loaded.goal)));
        }
        Ok(read)
    }

    /// The goals of `closed` read again, with their digests, to be moved to
    /// the closed goals: those still terminal, and the files that no
    /// longer read.
    pub fn load_closed_in_place(&self, closed: &[ClosedInPlace]) -> Scan {
        let paths: Vec<PathBuf> = closed.iter().map(|c| c.path.clone()).collect();
        let mut scan = Scan::default();
        self.load_all(&paths, Store::goal_with_digest, |result| match result {
            Ok(loaded) if loaded.goal.status.is_terminal() => scan.goals.push(loaded),
            // Opened again by hand meanwhile: an open goal for the next pass.
            Ok(_) => {}
            Err(problem) => scan.problems.push(problem),
        });
        scan
    }

    /// The goal files of the open goals' directory, not read, in file-name
    /// order: for `tick`'s batches, which go through them a part at a time.
    pub fn open_directory_paths(&self, problems: &mut Vec<FileProblem>) -> Result<Vec<PathBuf>> {
        goal_paths(&self.goals_dir, problems)
    }

    /// Reads `paths` in order until `want` terminal goals are found, with
    /// their digests, to be moved to the closed goals; returns them and how
    /// many of `paths` that went through. Open goals are let go, and files
    /// that do not read are passed over: the pass that read the whole
    /// directory first told them.
    pub fn closed_among(&self, paths: &[PathBuf], want: usize) -> (Vec<LoadedGoal>, usize) {
        let mut found = Vec::new();
        let mut through = 0;
        for chunk in paths.chunks(want.max(1)) {
            let mut at = through;
            self.load_all(chunk, Store::goal_with_digest, |result| {
                at += 1;
                if found.len() < want
                    && let Ok(loaded) = result
                    && loaded.goal.status.is_terminal()
                {
                    found.push(loaded);
                    if found.len() == want {
                        through = at;
                    }
                }
            });
            if found.len() == want {
                return (found, through);
            }
            through = at;
        }
        (found, through)
    }

    /// Reads the goals in `scope`, in file-name order.
    pub fn scan(&self, scope: Scope) -> Result<Scan> {
        // Every open goal is read: plans checked before are taken from the
        // memo, and the memo kept for the next command.
        let key = self.keys.key().ok();
        *self.plans.write().expect("not poisoned") =
            Some(PlanMemo::load(&self.plan_memo_path(), key));
        let scan = self.scan_with_plan_memo(scope);
        let memo = self.plans.write().expect("not poisoned").take();
        if let (Ok(_), Some(memo)) = (&scan, memo) {
            let store_is_safe = || self.check_own_directories().is_ok();
            memo.save(&self.plan_memo_path(), key, store_is_safe);
        }
        scan
    }

    fn scan_with_plan_memo(&self, scope: Scope) -> Result<Scan> {
        let mut scan = Scan::default();
        // Goals closed by hand that wait in the open directory for `tick`:
        // passed over with a stat when commands want open goals only.
        let cache = (scope == Scope::Open)
            .then(|| terminal_cache::TerminalCache::load(&self.terminal_cache_path()));
        let mut paths = match &cache {
            Some(cache) => goal_paths_except(
                &self.goals_dir,
                &mut scan.problems,
                |name| cache.lists(name),
                |entry| cache.holds_unchanged(entry),
            )?,
            None => goal_paths(&self.goals_dir, &mut scan.problems)?,
        };
        if matches!(scope, Scope::All | Scope::Diagnose) {
            paths.extend(goal_paths(&self.closed_dir, &mut scan.problems)?);
        }
        // Results come in the order of `paths`.
        let mut paths_read = paths.iter();
        let mut next_path = || paths_read.next().expect("one result a path");
        let mut cache_to_save = None;
        match (scope, cache) {
            (Scope::OpenDirectoryWithDigests, _) => {
                self.load_all(&paths, Store::open_goal_with_digest, |result| {
                    scan.add(next_path(), result);
                });
            }
            // The cache is there for [`Scope::Open`] alone.
            (Scope::Open, Some(mut cache)) => {
                cache.reserve(paths.len());
                self.load_all(&paths, Store::open_goal, |result| {
                    let path = next_path();
                    match result {
                        Ok(InOpenDirectory::Open(loaded)) => scan.goals.push(*loaded),
                        Ok(InOpenDirectory::Closed(stamp)) => cache.remember(path, stamp),
                        Err(problem) => scan.problems.push(problem),
                    }
                });
                cache_to_save = Some(cache);
            }
            (scope, _) => {
                scan.goals.reserve(paths.len());
                let sink = |result: Result<LoadedGoal, FileProblem>| match result {
                    Ok(loaded) => scan.goals.push(loaded),
                    Err(problem) => scan.problems.push(problem),
                };
                match scope {
                    Scope::Diagnose => self.load_all(&paths, Store::goal_as_written, sink),
                    _ => self.load_all(&paths, Store::goal_named_by_file, sink),
                }
            }
        }
        // The cache is saved without the paths: at 100,000 goals, 9 MB less
        // at the command's peak.
        drop(paths);
        if let Some(cache) = cache_to_save {
            cache.save(|| self.check_own_directories().is_ok());
        }
        Ok(scan)
    }

    /// Loads `paths` and hands each result to `sink` in order, sharing the
    /// work among the machine's cores when there are enough files to be
    /// worth a thread.
    fn load_all<Loaded: Send>(
        &self,
        paths: &[PathBuf],
        load: impl Fn(&Store, GoalFile) -> Result<Loaded, FileProblem> + Sync,
        sink: impl FnMut(Result<Loaded, FileProblem>),
    ) {
        let dirs = Dirs::open(paths);
        on_cores(paths, 32, |path| load(self, dirs.read(path)?), sink);
    }

    /// Whether a goal file already uses `label`'s name (goals live under
    /// their label; `doctor` reports a file whose label differs).
    pub fn label_taken(&self, label: &str) -> bool {
        self.open_path(label).symlink_metadata().is_ok()
    }

    /// The open goals' directory again, as [`Scope::OpenDirectoryWithDigests`]
    /// reads it, reading only files whose size or modification time changed
    /// since `previous` (a scan made before the lock was let go).
    pub fn rescan_directory(&self, previous: Scan) -> Result<Scan> {
        let mut problems = Vec::new();
        let paths = goal_paths(&self.goals_dir, &mut problems)?;
        let dirs = Dirs::open(&paths);
        let mut scan = Scan {
            goals: Vec::with_capacity(previous.goals.len()),
            problems,
            ..Scan::default()
        };
        let mut stamps = Vec::with_capacity(paths.len());
        on_cores(
            &paths,
            256,
            |path| dirs.stat(path).ok().map(|s| (s.len, s.modified)),
            |stamp| stamps.push(stamp),
        );
        // The three lists are in file-name order: walk them side by side.
        let mut open = previous.goals.into_iter().peekable();
        let mut closed = previous.closed_in_place.into_iter().peekable();
        for (path, now) in paths.iter().zip(stamps) {
            let name = path.as_os_str();
            let unchanged = |stamp: &Option<_>| stamp.is_some() && *stamp == now;
            while open.next_if(|g| g.file.path.as_os_str() < name).is_some() {}
            while closed.next_if(|c| c.path.as_os_str() < name).is_some() {}
            let was_open = open.next_if(|g| g.file.path.as_os_str() == name);
            let was_closed = closed.next_if(|c| c.path.as_os_str() == name);
            if let Some(loaded) = was_open.filter(|g| unchanged(&g.file.stamp)) {
                scan.goals.push(loaded);
            } else if let Some(closed) = was_closed.filter(|c| unchanged(&c.stamp)) {
                let at = scan.closed_in_place.len();
                scan.keep_closed(at, &closed.path, closed.stamp);
            } else {
                let read = dirs.read(path);
                scan.add(path, read.and_then(|file| self.open_goal_with_digest(file)));
            }
        }
        Ok(scan)
    }

    /// `previous`, a scan of the open goals' directory made under the lock
    /// this transaction holds, with the goal files in `written` (what the
    /// transaction wrote since) read again, with their digests: nothing else
    /// changed them.
    pub fn reread(&self, mut previous: Scan, written: &[PathBuf]) -> Result<Scan> {
        let goal_files = written.iter().filter(|path| {
            path.parent() == Some(self.goals_dir.as_path())
                && path.file_name().is_some_and(|name| {
                    let name = name.as_encoded_bytes();
                    !name.starts_with(b".") && name.ends_with(b".md")
                })
        });
        for path in goal_files {
            let name = path.as_os_str();
            let at = (previous.goals).partition_point(|g| g.file.path.as_os_str() < name);
            if previous.goals.get(at).is_some_and(|g| g.file.path == *path) {
                previous.goals.remove(at);
            }
            let at_closed =
                (previous.closed_in_place).partition_point(|c| c.path.as_os_str() < name);
            if (previous.closed_in_place.get(at_closed)).is_some_and(|c| c.path == *path) {
                previous.closed_in_place.remove(at_closed);
            }
            if path.symlink_metadata().is_err() {
                continue; // moved to the closed goals, or removed
            }
            match GoalFile::read(path).and_then(|file| self.open_goal_with_digest(file)) {
                Ok(InOpenDirectory::Open(loaded)) => previous.goals.insert(at, *loaded),
                Ok(InOpenDirectory::Closed(stamp)) => previous.keep_closed(at_closed, path, stamp),
                Err(problem) => previous.problems.push(problem),
            }
        }
        Ok(previous)
    }

    /// How many goal files the closed goals' directory holds (not read).
    pub fn closed_count(&self) -> Result<u64> {
        count_goal_files(&self.closed_dir)
    }

    /// How many goals are open, exactly when the answer matters: goal files
    /// in the open directory are counted without reading them; then, at
    /// `limit` or more, without those the terminal-goal cache knows closed
    /// by hand (waiting for `tick` to move them; a file changed since is one
    /// `tick` reads again); and only if that is still `limit` or more, the
    /// goals are read. The count by name is kept while the directory and
    /// the cache stay as they were (`open_count.rs`).
    pub fn count_open(&self, limit: u64) -> Result<OpenGoals> {
        let key = self.keys.key().ok();
        let path = self.open_count_path();
        let stamps = Stamps::of(&self.goals_dir, &self.terminal_cache_path());
        let kept = (key.zip(stamps.as_ref()))
            .and_then(|(key, stamps)| open_count::read(&path, key, stamps));
        let mut names = None;
        let mut counted = match kept {
            Some(counted) => counted,
            None => {
                let listed = goal_file_names(&self.goals_dir)?;
                let files = listed.len() as u64;
                names = Some(listed);
                Counted {
                    files,
                    listed: None,
                }
            }
        };
        if counted.files >= limit && counted.listed.is_none() {
            let names = match names {
                Some(names) => names,
                None => goal_file_names(&self.goals_dir)?,
            };
            let listed = terminal_cache::count_listed(&self.terminal_cache_path(), &names);
            counted.listed = Some(listed as u64);
        }
        if let (Some(key), Some(stamps)) = (key, &stamps)
            && kept != Some(counted)
        {
            open_count::write(&path, key, stamps, counted);
        }
        let open = match counted.listed {
            Some(listed) if counted.files >= limit => counted.files - listed,
            _ => counted.files,
        };
        let open = if open < limit {
            open
        } else {
            self.scan(Scope::Open)?.goals.len() as u64
        };
        Ok(OpenGoals { open, counted })
    }

    /// Keeps the count of [`Store::count_open`] once `add` made one more
    /// goal file, under the store lock, so the next `add` need not list
    /// the directory again.
    pub fn count_added(&self, before: &OpenGoals) {
        let (Ok(key), Some(stamps)) = (
            self.keys.key(),
            Stamps::of(&self.goals_dir, &self.terminal_cache_path()),
        ) else {
            return;
        };
        let counted = Counted {
            files: before.counted.files + 1,
            ..before.counted
        };
        open_count::write(&self.open_count_path(), key, &stamps, counted);
    }
}

/// The open goals [`Store::count_open`] counted, and the count by name it
/// came from.
#[derive(Debug)]
pub struct OpenGoals {
    pub open: u64,
    counted: Counted,
}

/// `f` of each of `items`, handed to `sink` in order; the items are shared
/// among the machine's cores when each thread gets at least `per_thread`.
/// The threads take [`ROUND`] items each at a time, and their results go
/// to `sink` as each round is joined: at 100,000 goals, a thread's half of
/// the results held until the other's ended was 6 MB at the peak.
fn on_cores<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    f: impl Fn(&T) -> R + Sync,
    mut sink: impl FnMut(R),
) {
    /// Items a thread takes at a time: a round's results are held, and a
    /// thread is started for each.
    const ROUND: usize = 2048;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len() / per_thread)
        .max(1);
    if threads == 1 {
        items.iter().map(f).for_each(sink);
        return;
    }
    let f = &f;
    for round in items.chunks(threads * ROUND) {
        let share = round.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = round
                .chunks(share)
                .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<_>>()))
                .collect();
            for worker in workers {
                worker
                    .join()
                    .expect("the work shared among the cores does not panic")
                    .into_iter()
                    .for_each(&mut sink);
            }
        });
    }
}

/// The directories of goal files to read, each opened once (`None`: it
/// could not be, and its files are read by their whole path).
struct Dirs(Vec<(PathBuf, Option<Dir>)>);

impl Dirs {
    fn open(paths: &[PathBuf]) -> Dirs {
        let mut dirs: Vec<(PathBuf, Option<Dir>)> = Vec::new();
        for path in paths {
            let parent = atomic::parent(path);
            if !dirs.iter().any(|(dir, _)| dir == parent) {
                dirs.push((parent.to_path_buf(), Dir::open(parent).ok()));
            }
        }
        Dirs(dirs)
    }

    /// The opened directory `path` is in, and its name there.
    fn find<'a>(&self, path: &'a Path) -> Option<(&Dir, &'a std::ffi::OsStr)> {
        let parent = atomic::parent(path);
        let (_, dir) = self.0.iter().find(|(dir, _)| dir == parent)?;
        Some((dir.as_ref()?, path.file_name()?))
    }

    fn read(&self, path: &Path) -> Result<GoalFile, FileProblem> {
        match self.find(path) {
            Some((dir, name)) => GoalFile::read_in(dir, name, path),
            None => GoalFile::read(path),
        }
    }

    fn stat(&self, path: &Path) -> std::io::Result<Stat> {
        match self.find(path) {
            Some((dir, name)) => dir.stat(name),
            None => std::fs::metadata(path).and_then(|m| Stat::of(&m)),
        }
    }
}

/// `*.md` files directly in `dir`, sorted; hidden and temporary files are
/// skipped. A symbolic link that leads out of `dir` is reported in
/// `problems`, not followed. A missing directory holds no goals.
pub(super) fn goal_paths(dir: &Path, problems: &mut Vec<FileProblem>) -> Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    each_goal_entry(dir, problems, |entry| paths.push(entry.path()))?;
    sort_paths(&mut paths);
    Ok(paths)
}

/// [`goal_paths`] without the entries `skip` says to pass over. `skip` is
/// asked only about the entries `may_skip` names, on every core: at 100,000
/// files it is a `stat` of each of 90,000 goals closed by hand.
fn goal_paths_except(
    dir: &Path,
    problems: &mut Vec<FileProblem>,
    may_skip: impl Fn(&std::ffi::OsStr) -> bool,
    skip: impl Fn(&std::fs::DirEntry) -> bool + Sync,
) -> Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    let mut asked = Vec::new();
    each_goal_entry(dir, problems, |entry| {
        if may_skip(&entry.file_name()) {
            asked.push(entry);
        } else {
            paths.push(entry.path());
        }
    })?;
    let mut answered = asked.iter();
    on_cores(&asked, 2048, skip, |skipped| {
        let entry = answered.next().expect("one answer an entry");
        if !skipped {
            paths.push(entry.path());
        }
    });
    sort_paths(&mut paths);
    Ok(paths)
}

/// By raw name: the same order as by path here (one directory), cheaper.
fn sort_paths(paths: &mut [PathBuf]) {
    paths.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
}

/// Hands `found` each entry of `dir` that is a goal file, in directory
/// order, less the symbolic links that lead out of it (reported in
/// `problems`).
fn each_goal_entry(
    dir: &Path,
    problems: &mut Vec<FileProblem>,
    mut found: impl FnMut(std::fs::DirEntry),
) -> Result<()> {
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(Error::io(dir, "cannot list goals", err)),
    };
    for entry in listing {
        let entry = entry.map_err(|err| Error::io(dir, "cannot list goals", err))?;
        let Some(is_link) = goal_entry(&entry) else {
            continue;
        };
        if is_link && !links_inside(dir, &entry.path()) {
            problems.push(FileProblem {
                path: entry.path().display().to_string(),
                line: 1,
                column: 1,
                message: "symbolic link to a file outside the goals directory: not read"
                    .to_string(),
            });
            continue;
        }
        found(entry);
    }
    Ok(())
}

/// How many entries of `dir` look like goal files, without reading them.
/// Calls `found` with each goal file's entry in `dir` (not read).
fn each_goal_file(dir: &Path, mut found: impl FnMut(std::fs::DirEntry)) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(Error::io(dir, "cannot list goals", err)),
    };
    for entry in entries {
        let entry = entry.map_err(|err| Error::io(dir, "cannot list goals", err))?;
        if goal_entry(&entry).is_some() {
            found(entry);
        }
    }
    Ok(())
}

fn count_goal_files(dir: &Path) -> Result<u64> {
    let mut count = 0;
    each_goal_file(dir, |_| count += 1)?;
    Ok(count)
}

fn goal_file_names(dir: &Path) -> Result<Vec<std::ffi::OsString>> {
    let mut names = Vec::new();
    each_goal_file(dir, |entry| names.push(entry.file_name()))?;
    Ok(names)
}

/// Whether a directory entry is a goal file (`*.md`, not hidden, not a
/// directory), and if so whether it is a symbolic link.
fn goal_entry(entry: &std::fs::DirEntry) -> Option<bool> {
    let name = entry.file_name();
    let name = name.as_encoded_bytes();
    if name.starts_with(b".") || !name.ends_with(b".md") {
        return None;
    }
    let file_type = entry.file_type().ok()?;
    (!file_type.is_dir()).then(|| file_type.is_symlink())
}

/// Whether a symbolic link resolves to a file inside `dir`.
fn links_inside(dir: &Path, link: &Path) -> bool {
    match (dir.canonicalize(), link.canonicalize()) {
        (Ok(dir), Ok(target)) => target.starts_with(dir),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn work_shared_among_the_cores_comes_back_in_order() {
        for n in [0, 1, 2, 3, 64, 4097, 9000] {
            let items: Vec<usize> = (0..n).collect();
            let mut seen = Vec::new();
            super::on_cores(&items, 1, |i| i * 2, |doubled| seen.push(doubled));
            let expected: Vec<usize> = items.iter().map(|i| i * 2).collect();
            assert_eq!(seen, expected, "{n} items");
        }
    }
}
