//! Whole-process timings of the release binary on generated stores
//! (steward-design(7), "Targets").
//!
//! `cargo bench` builds stores of 100, 1,000, 10,000 and 100,000 goal files
//! with 10% open (the rest completed, where steward keeps them:
//! state/goals/closed/) and a history of 20 events per goal, and prints the
//! median of repeated runs of each command beside the time `cat` takes to
//! read the same goal files, the peak memory of the largest runs, and the
//! same commands with the completed goals closed by hand (left in the open
//! directory, as a person who edits `status:` leaves them until `tick`).
//! A `tick` on a machine new to the store is timed too: its first write
//! seals every open goal as it is. When
//! 10,000 and 100,000 are both measured, the last rows time `list`, `tick`,
//! `prompt` and `cat` on both sizes in the same rounds, for the 10× rule of
//! steward-design(7), "Targets", without the drift of runs minutes apart.
//! Then what a commit adds with 1,000 open goals and 100,000 closed ones,
//! with git's default index and a split one (`BENCH_SIZES=closed` measures
//! only that).
//!
//! It fixes the clock with `STEWARD_NOW`: run it as `cargo bench --features
//! testing`.

#[cfg(not(feature = "testing"))]
compile_error!("the benches fix the clock: run `cargo bench --features testing`");

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];
const NOW: &str = "2026-11-21T04:00:00Z";

fn main() {
    // $STEWARD times another build (the static musl one, say).
    let steward = std::env::var_os("STEWARD").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_steward")),
        PathBuf::from,
    );
    println!("| goals | open | command | median | cat of the same files | ratio |");
    println!("|---:|---:|---|---:|---:|---:|");
    // BENCH_SIZES=1000 (comma-separated) measures only those sizes;
    // `closed` in the list, the commits among 100,000 closed goals.
    let chosen = std::env::var("BENCH_SIZES").ok();
    let sizes: Vec<usize> = chosen.as_ref().map_or_else(
        || SIZES.to_vec(),
        |list| {
            list.split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect()
        },
    );
    let among_closed = chosen
        .as_ref()
        .is_none_or(|list| list.split(',').any(|item| item.trim() == "closed"));
    for &size in &sizes {
        let store = Store::generate(size);
        store.settle(&steward);
        let runs = match size {
            ..10_000 => 30,
            10_000 => 15,
            _ => 7,
        };
        let cat_open = median(runs, || cat(&store.open));
        let all: Vec<PathBuf> = store.open.iter().chain(&store.closed).cloned().collect();
        let cat_all = median(runs, || cat(&all));
        let cases: [(&str, &[&str], Duration); 5] = [
            ("list --json", &["list", "--json"], cat_open),
            ("list --all --json", &["list", "--all", "--json"], cat_all),
            ("tick", &["tick", "-q"], cat_open),
            ("prompt --heartbeat", &["prompt", "--heartbeat"], cat_open),
            ("show", &["show", "goal-00010"], cat_open),
        ];
        for (name, args, baseline) in cases {
            let time = median(runs, || run(&steward, store.root(), args));
            row(size, store.open.len(), name, time, Some(baseline));
        }
        if size == 1_000 {
            plans(&steward, runs, cat_open);
        }
        // A busy hour (steward-design(7), "A heartbeat reads what was
        // logged since the last one"): 20 events for each open goal logged
        // in the hour before, and 20 more logged before each heartbeat,
        // outside its time, as assessments go on between two of them.
        let heartbeat = |store: &Store, arriving: usize| {
            median_after(
                runs,
                || store.log_today(arriving),
                || run(&steward, store.root(), &["prompt", "--heartbeat"]),
            )
        };
        let quiet = heartbeat(&store, 0);
        let before = store.log_size_today();
        store.log_today(20 * store.open.len());
        let busy = heartbeat(&store, 20);
        row(
            size,
            store.open.len(),
            "prompt --heartbeat, 20 events per open goal logged in the hour before",
            busy,
            Some(quiet),
        );
        store.truncate_log_today(before);
        // Dispatch on, nothing to start (the hourly window is spent): the
        // pass still decides for every open goal.
        let config = store.root().join("steward.yaml");
        let plain = std::fs::read_to_string(&config).unwrap();
        std::fs::write(
            &config,
            format!("{plain}dispatch:\n  enabled: true\n  agent: idle\nagents:\n  idle:\n    command: [\"true\"]\n")
                .replace("global_limits:\n", "global_limits:\n  max_dispatches_per_hour: 0\n"),
        )
        .unwrap();
        store.settle(&steward);
        let dispatching = median(runs, || run(&steward, store.root(), &["tick", "-q"]));
        row(
            size,
            store.open.len(),
            "tick (dispatch on, nothing to start)",
            dispatching,
            Some(cat_open),
        );
        std::fs::write(&config, plain).unwrap();
        store.settle(&steward);
        // A machine new to the store (a fresh clone, or the first run of
        // this steward): its first write seals every open goal as it is.
        let first = median(runs, || {
            store.unseal();
            run(&steward, store.root(), &["tick", "-q"]);
        });
        row(
            size,
            store.open.len(),
            "tick on a machine new to the store (seals every open goal)",
            first,
            Some(cat_open),
        );
        if size >= 10_000 {
            store.unseal();
            let memory = peak_memory(&steward, store.root(), &["tick", "-q"]);
            println!(
                "| {size} | {} | peak memory of `tick -q` on a new clone | {memory} | | |",
                store.open.len()
            );
        }
        settle_disk(store.root());
        // Writes: each run assesses the next open goal, so no budget runs out.
        let labels: Vec<String> = (0..size)
            .step_by(10)
            .map(|n| format!("goal-{n:05}"))
            .collect();
        let mut next = labels.iter().cycle();
        let assess = median(runs, || {
            run(
                &steward,
                store.root(),
                &["assess", next.next().unwrap(), "--summary", "bench"],
            )
        });
        row(size, store.open.len(), "assess", assess, None);
        // One that ticks a criterion of a goal the mirror shows: its entry
        // changes, so ACTIVE-TASKS.md is written too (a fourth fsync).
        let shown: Vec<&String> = labels.iter().take(50).collect();
        let mut next_shown = shown.iter().cycle();
        let assess_met = median(runs, || {
            run(
                &steward,
                store.root(),
                &[
                    "assess",
                    next_shown.next().unwrap(),
                    "--summary",
                    "bench",
                    "--met",
                    "2",
                ],
            )
        });
        row(
            size,
            store.open.len(),
            "assess --met (the mirror shows the change)",
            assess_met,
            None,
        );
        let update = median(runs, || {
            run(
                &steward,
                store.root(),
                &["update", next.next().unwrap(), "--note", "bench"],
            )
        });
        row(size, store.open.len(), "update", update, None);
        let mut added = 0;
        let add = median(runs, || {
            added += 1;
            let label = format!("bench-{added}");
            run(
                &steward,
                store.root(),
                &["add", &label, "--title", "Bench", "--criterion", "done"],
            );
        });
        row(size, store.open.len(), "add", add, None);
        if size >= 10_000 {
            for args in [
                &["list", "--all", "--json"][..],
                &["tick", "-q"],
                &["list", "--json"],
                &["prompt", "--heartbeat"],
                &["assess", "goal-00000", "--summary", "bench"],
            ] {
                let memory = peak_memory(&steward, store.root(), args);
                println!(
                    "| {size} | {} | peak memory of `{}` | {memory} | | |",
                    store.open.len(),
                    args.join(" ")
                );
            }
        }
        // A busy day: 10,000 events written today before the commits.
        store.log_today(10_000);
        store.commit_all();
        let committed = median(runs, || {
            run(
                &steward,
                store.root(),
                &[
                    "--commit",
                    "assess",
                    next.next().unwrap(),
                    "--summary",
                    "bench",
                ],
            )
        });
        row(
            size,
            store.open.len(),
            "assess --commit (git)",
            committed,
            None,
        );
        // What the commit adds: the two timed in the same rounds.
        let commit_cost = commit_cost(&steward, &store, runs, &mut next);
        println!(
            "| {size} | {} | `assess --commit` − `assess`, 10,000 events written today, {} goal files in git | {} | | |",
            store.open.len(),
            size,
            millis(commit_cost)
        );
        if size >= 10_000 {
            hand_closed(&steward, &store, runs, cat_open);
        }
    }
    if sizes.contains(&10_000) && sizes.contains(&100_000) {
        scaling(&steward);
    }
    if among_closed {
        commits_among_closed(&steward);
    }
}

/// What `git.commit` adds with 1,000 open goals and 100,000 closed ones in
/// git (a 10 MB index), 10,000 events written today: with git's default
/// index, then split (`core.splitIndex`), the two timed in the same rounds
/// as the command without a commit.
fn commits_among_closed(steward: &Path) {
    const ROUNDS: usize = 15;
    let store = Store::generate_open_every(101_000, 101);
    store.settle(steward);
    store.log_today(10_000);
    store.commit_all();
    let labels: Vec<String> = (0..101_000)
        .step_by(101)
        .map(|n| format!("goal-{n:05}"))
        .collect();
    let mut next = labels.iter().cycle();
    for split in [false, true] {
        if split {
            store.git(&["config", "core.splitIndex", "true"]);
            store.git(&["update-index", "--split-index"]);
        }
        let cost = commit_cost(steward, &store, ROUNDS, &mut next);
        println!(
            "| 101000 | 1000 | `assess --commit` − `assess`, 10,000 events written today, 100,000 closed goals in git, {} | {} | | |",
            if split {
                "split index"
            } else {
                "git's default index"
            },
            millis(cost)
        );
    }
}

/// What `--commit` adds to `assess`: the two timed in the same rounds,
/// each on the next goal of `next`.
fn commit_cost<'g>(
    steward: &Path,
    store: &Store,
    runs: usize,
    next: &mut impl Iterator<Item = &'g String>,
) -> Duration {
    let (plain, with_commit) = paired(runs, || {
        let goal = next.next().unwrap();
        let plain = timed(|| {
            run(
                steward,
                store.root(),
                &["assess", goal, "--summary", "bench"],
            )
        });
        let goal = next.next().unwrap();
        let committed = timed(|| {
            run(
                steward,
                store.root(),
                &["--commit", "assess", goal, "--summary", "bench"],
            )
        });
        (plain, committed)
    });
    with_commit.saturating_sub(plain)
}

/// The rule of steward-design(7), "Targets", 100,000 goals within 10× of
/// 10,000, timed with both stores in the same rounds: each round runs a
/// command on the one, then on the other. Timed minutes apart, as the sizes
/// above are, the ratios carry the virtual machine's drift (`cat` of the
/// same files scaled 9.7–10.8× from run to run).
fn scaling(steward: &Path) {
    const ROUNDS: usize = 15;
    let stores = [Store::generate(10_000), Store::generate(100_000)];
    for store in &stores {
        store.settle(steward);
    }
    let cases: [(&str, Option<&[&str]>); 4] = [
        ("list --json", Some(&["list", "--json"])),
        ("tick", Some(&["tick", "-q"])),
        ("prompt --heartbeat", Some(&["prompt", "--heartbeat"])),
        ("cat of the open goals", None),
    ];
    for (name, args) in cases {
        let mut times = [Vec::new(), Vec::new()];
        // Round 0 warms the page cache (and gives `tick` its digests).
        for round in 0..=ROUNDS {
            for (store, times) in stores.iter().zip(&mut times) {
                let start = Instant::now();
                match args {
                    Some(args) => run(steward, store.root(), args),
                    None => cat(&store.open),
                }
                if round > 0 {
                    times.push(start.elapsed());
                }
            }
        }
        let [small, large] = times.map(|mut times| {
            times.sort();
            times[ROUNDS / 2]
        });
        println!(
            "| 100000 | 10000 | `{name}`, in the same rounds as at 10,000 goals ({}) | {} | | {:.1}× the 10,000 figure |",
            millis(small),
            millis(large),
            large.as_secs_f64() / small.as_secs_f64()
        );
    }
}

/// The completed goals closed by hand: their files stay in the open
/// directory until `tick` moves them. The first reading command records
/// them in the cache (state/cache/); later ones pass each with a `stat`.
/// Plans within 1.5× of the block without them (steward-design(7),
/// "Targets"): two fresh stores of 1,000 goals that differ only in a
/// 100-node plan on every open goal, their heartbeats timed in the same
/// rounds. Timed one after the other on one store, the ratio carried the
/// machine's drift (1.4–1.9× for one build).
fn plans(steward: &Path, runs: usize, cat_open: Duration) {
    let plain = Store::generate(1_000);
    let planned = Store::generate(1_000);
    planned.add_plans();
    for store in [&plain, &planned] {
        store.settle(steward);
    }
    // Plans are written minutes before most heartbeats read them; a file
    // changed in the last 2 seconds has its plan checked afresh
    // (steward-design(7), "A checked plan is checked once").
    std::thread::sleep(Duration::from_millis(2100));
    let heartbeat =
        |store: &Store| timed(|| run(steward, store.root(), &["prompt", "--heartbeat"]));
    // Each store goes first in every other round.
    let mut round = 0;
    let (without, with) = paired(runs, || {
        round += 1;
        if round % 2 == 0 {
            let without = heartbeat(&plain);
            (without, heartbeat(&planned))
        } else {
            let with = heartbeat(&planned);
            (heartbeat(&plain), with)
        }
    });
    let open = planned.open.len();
    row(
        1_000,
        open,
        "prompt --heartbeat, every open goal with a 100-node plan",
        with,
        Some(without),
    );
    let listed = median(runs, || run(steward, planned.root(), &["list", "--json"]));
    row(
        1_000,
        open,
        "list --json, every open goal with a 100-node plan",
        listed,
        Some(cat_open),
    );
}

fn hand_closed(steward: &Path, store: &Store, runs: usize, cat_open: Duration) {
    let goals = store.root().join("state/goals");
    let settled = std::time::SystemTime::now() - Duration::from_secs(3600);
    for path in &store.closed {
        let name = path.file_name().unwrap().to_string_lossy();
        let label = &name[..name.len() - ".md".len() - 9];
        let moved = goals.join(format!("{label}.md"));
        std::fs::rename(path, &moved).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&moved)
            .unwrap()
            .set_modified(settled)
            .unwrap();
    }
    // Files changed in the last 2 seconds are never cached (their change
    // time is now): let them settle, as a person's edits would have.
    std::thread::sleep(Duration::from_millis(2100));
    let (size, open) = (store.open.len() + store.closed.len(), store.open.len());
    let cache = store.root().join("state/cache");
    let _ = std::fs::remove_dir_all(&cache);
    let first = median(1, || {
        let _ = std::fs::remove_dir_all(&cache);
        run(steward, store.root(), &["list", "--json"])
    });
    row(
        size,
        open,
        "list --json, 90% closed by hand, no cache",
        first,
        Some(cat_open),
    );
    let _ = std::fs::remove_dir_all(&cache);
    let memory = peak_memory(steward, store.root(), &["list", "--json"]);
    println!("| {size} | {open} | peak memory of `list --json` with no cache yet | {memory} | | |");
    for (name, args) in [
        ("list --json, 90% closed by hand", &["list", "--json"][..]),
        (
            "prompt --heartbeat, 90% closed by hand",
            &["prompt", "--heartbeat"],
        ),
    ] {
        let time = median(runs, || run(steward, store.root(), args));
        row(size, open, name, time, Some(cat_open));
    }
    let mut added = 0;
    let add = median(runs, || {
        added += 1;
        let label = format!("hand-{added}");
        run(
            steward,
            store.root(),
            &["add", &label, "--title", "Bench", "--criterion", "done"],
        );
    });
    row(size, open, "add, 90% closed by hand", add, None);
    let goal_files = || {
        std::fs::read_dir(&goals)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "md")
            })
            .count()
    };
    // A pass moves at most 512 (`MOVED_PER_PASS`); the next ones the rest.
    let mut waiting = goal_files();
    let left = waiting - store.closed.len();
    let (mut passes, mut total, mut largest) = (0, Duration::ZERO, 0.0_f64);
    while waiting > left {
        let start = Instant::now();
        let kib = peak_kib(steward, store.root(), &["tick", "-q"]);
        total += start.elapsed();
        largest = largest.max(kib.unwrap_or(0.0));
        passes += 1;
        let now = goal_files();
        assert!(now < waiting, "every pass moves goals");
        waiting = now;
    }
    row(
        size,
        open,
        &format!("ticks that move every goal closed by hand to closed/ ({passes} passes, in all)"),
        total,
        None,
    );
    println!(
        "| {size} | {open} | peak memory of the largest of those passes | {:.1} MiB | | |",
        largest / 1024.0
    );
}

/// Writes back every dirty page (`sync`), then wakes the disk with 20
/// small synced writes to a scratch file, so the writes timed next wait for
/// their own data only, at the disk's steady pace. On the development VM
/// the first flushes after the disk has been idle take 10–20 ms and the
/// next dozen 1–2 ms more than usual: whichever write case ran first came
/// out 1–3 ms slower (see bench/README.md, "How to run").
fn settle_disk(root: &Path) {
    let status = Command::new("sync").status().expect("sync runs");
    assert!(status.success(), "sync failed");
    let scratch = root.join("bench-scratch");
    for n in 0..20 {
        let mut file = std::fs::File::create(&scratch).expect("scratch file");
        std::io::Write::write_all(&mut file, format!("{n}\n").as_bytes()).unwrap();
        file.sync_all().unwrap();
    }
    std::fs::remove_file(&scratch).unwrap();
}

fn row(size: usize, open: usize, name: &str, time: Duration, baseline: Option<Duration>) {
    match baseline {
        Some(baseline) => println!(
            "| {size} | {open} | `{name}` | {} | {} | {:.1}× |",
            millis(time),
            millis(baseline),
            time.as_secs_f64() / baseline.as_secs_f64()
        ),
        None => println!("| {size} | {open} | `{name}` | {} | | |", millis(time)),
    }
}

struct Store {
    dir: tempfile::TempDir,
    open: Vec<PathBuf>,
    closed: Vec<PathBuf>,
}

impl Store {
    /// `size` goals, one in ten open, with realistic front matter and body.
    fn generate(size: usize) -> Store {
        Store::generate_open_every(size, 10)
    }

    /// `size` goals, one in `every` open.
    fn generate_open_every(size: usize, every: usize) -> Store {
        let dir = tempfile::tempdir().expect("temp dir");
        let goals = dir.path().join("state/goals");
        std::fs::create_dir_all(goals.join("closed")).unwrap();
        std::fs::write(
            dir.path().join("steward.yaml"),
            format!("global_limits:\n  max_active_goals: {size}\nmirror:\n  enabled: true\n# Repeated assessments that meet nothing are what the benchmark does.\ncircuit_breaker:\n  max_assessments_without_progress: 0\n"),
        )
        .unwrap();
        let (mut open, mut closed) = (Vec::new(), Vec::new());
        for n in 0..size {
            let label = format!("goal-{n:05}");
            let id = format!("{n:08x}-0000-4000-8000-000000000000");
            let is_open = n % every == 0;
            let path = if is_open {
                goals.join(format!("{label}.md"))
            } else {
                goals.join(format!("closed/{label}-{}.md", &id[..8]))
            };
            std::fs::write(
                &path,
                goal_text(&label, &id, if is_open { "active" } else { "completed" }),
            )
            .unwrap();
            if is_open {
                open.push(path)
            } else {
                closed.push(path)
            }
        }
        write_history(dir.path(), size);
        Store { dir, open, closed }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Forgets that steward sealed this store on this machine: the next
    /// write takes its goals as they are.
    fn unseal(&self) {
        // The marker, what a person accepted, and the seals: with any of
        // them left, a write finds the store sealed before, and holds
        // what was written here directly.
        let _ = std::fs::remove_dir_all(home(self.root()).join(".config/steward/stores"));
        let _ = std::fs::remove_dir_all(self.root().join("state/seals"));
    }

    /// After files were written here directly: the next steward write
    /// takes them as they are, outside the timings.
    fn settle(&self, steward: &Path) {
        self.unseal();
        run(steward, self.root(), &["tick", "-q"]);
    }

    /// Gives every open goal a plan of 100 nodes (4 phases of 4 tasks of 5
    /// subtasks), some of it done, before its history.
    fn add_plans(&self) {
        for path in &self.open {
            let text = std::fs::read_to_string(path).unwrap();
            let planned = text.replace("## History", &format!("{}## History", plan_text()));
            std::fs::write(path, planned).unwrap();
        }
    }

    /// Appends `events` events to today's log, as a busy day of
    /// assessments leaves it.
    fn log_today(&self, events: usize) {
        let today = &NOW[..10];
        let mut text = String::new();
        for n in 0..events {
            text.push_str(&format!(
                "{{\"ts\":\"{today}T03:{:02}:{:02}Z\",\"goal_id\":\"{:08x}-0000-4000-8000-000000000000\",\"label\":\"goal-{:05}\",\"actor\":\"agent\",\"action\":\"assessed\",\"from\":null,\"to\":null,\"detail\":\"tests pass | next: open the PR\"}}\n",
                n / 60 % 60,
                n % 60,
                n % 1000,
                n % 1000
            ));
        }
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(self.log_path_today())
            .unwrap();
        std::io::Write::write_all(&mut file, text.as_bytes()).unwrap();
    }

    /// Today's event log.
    fn log_path_today(&self) -> PathBuf {
        self.root()
            .join(format!("state/events/{}.jsonl", &NOW[..10]))
    }

    /// The size of today's log.
    fn log_size_today(&self) -> u64 {
        std::fs::metadata(self.log_path_today()).map_or(0, |m| m.len())
    }

    /// Cuts today's log back to `size` bytes, and drops the caches read
    /// from it.
    fn truncate_log_today(&self, size: u64) {
        std::fs::OpenOptions::new()
            .write(true)
            .open(self.log_path_today())
            .unwrap()
            .set_len(size)
            .unwrap();
        let _ = std::fs::remove_file(self.root().join("state/cache/dispatch-window"));
    }

    /// Puts every file in a git repository, as a versioned store would be.
    fn commit_all(&self) {
        for args in [
            &["init", "-q"][..],
            &["add", "-A"],
            &["commit", "-q", "-m", "store"],
        ] {
            self.git(args);
        }
    }

    fn git(&self, args: &[&str]) {
        let status = Command::new("git")
            .args(args)
            .current_dir(self.root())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@localhost")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@localhost")
            .stdout(Stdio::null())
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    }
}

fn goal_text(label: &str, id: &str, status: &str) -> String {
    let lines = [
        "---".to_string(),
        format!("id: {id}"),
        format!("label: {label}"),
        format!("title: Keep {label} healthy and deployed"),
        format!("status: {status}"),
        "priority: normal".into(),
        "confirmed: true".into(),
        "created_at: 2026-11-20T04:00:00Z".into(),
        "updated_at: 2026-11-21T03:55:00Z".into(),
        "verification: []".into(),
        "budget:".into(),
        "  max_dispatches: 20".into(),
        "  max_assessments: 50".into(),
        "  cooldown: 10m".into(),
        "  escalate_after_failures: 3".into(),
        "bounds:".into(),
        "  max_iterations: 40".into(),
        "progress:".into(),
        "  assessments: 3".into(),
        "  dispatches: 2".into(),
        "  consecutive_failures: 0".into(),
        "  cost_usd: 1.25".into(),
        "  last_assessed_at: 2026-11-21T03:55:00Z".into(),
        "  last_dispatched_at: 2026-11-21T03:50:00Z".into(),
        "  last_outcome: \"tests pass | next: open the PR\"".into(),
        "blockers: []".into(),
        "---".into(),
        "Run the tests, fix what fails, open a pull request, get it merged, deploy.".into(),
        String::new(),
        "## Acceptance criteria".into(),
        String::new(),
        "- [x] All tests pass".into(),
        "- [ ] Pull request merged".into(),
        "- [ ] Deployed to production".into(),
        String::new(),
        "## History".into(),
        String::new(),
        "- 2026-11-20T04:00:00Z user created: priority normal, 3 criteria".into(),
        "- 2026-11-21T03:55:00Z agent assessed: tests pass | next: open the PR".into(),
    ];
    lines.join("\n") + "\n"
}

/// A realistic event history: 20 events per goal over the 60 days before
/// the benchmark's clock, one file a day as steward keeps them.
fn write_history(root: &Path, size: usize) {
    let dir = root.join("state/events");
    std::fs::create_dir_all(&dir).unwrap();
    let days = 60;
    let dates: Vec<String> = (0..days).map(|day| history_date(day, days)).collect();
    let mut files: Vec<String> = vec![String::new(); days];
    for n in 0..size {
        for k in 0..20 {
            let day = (n * 20 + k) % days;
            files[day].push_str(&format!(
                "{{\"ts\":\"{}T{:02}:00:00Z\",\"goal_id\":\"{n:08x}-0000-4000-8000-000000000000\",\"label\":\"goal-{n:05}\",\"actor\":\"agent\",\"action\":\"assessed\",\"from\":null,\"to\":null,\"detail\":\"tests pass | next: open the PR\"}}\n",
                dates[day],
                k % 24
            ));
        }
    }
    for (date, text) in dates.iter().zip(&files) {
        std::fs::write(dir.join(format!("{date}.jsonl")), text).unwrap();
    }
}

/// The date `days - day` days before 2026-11-21, as `YYYY-MM-DD`.
fn history_date(day: usize, days: usize) -> String {
    let back = (days - day) as i64;
    let date =
        chrono::NaiveDate::from_ymd_opt(2026, 11, 21).unwrap() - chrono::Duration::days(back);
    date.format("%Y-%m-%d").to_string()
}

/// A `## Plan` of 100 nodes, the first phase done.
fn plan_text() -> String {
    let mut out = String::from("## Plan\n\n");
    for p in 1..=4 {
        let done = if p == 1 { "x" } else { " " };
        let after = if p > 1 {
            format!(" · after P{}", p - 1)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "- [{done}] P{p} Phase {p} of the rollout{after}\n  - accept: phase {p} is live\n"
        ));
        for t in 1..=4 {
            out.push_str(&format!(
                "  - [{done}] T{p}.{t} Task {t} of phase {p}\n    - accept: task {t} is merged\n"
            ));
            for st in 1..=5 {
                out.push_str(&format!("    - [{done}] S{p}.{t}.{st} Subtask {st}\n      - accept: subtask {st} passes its tests\n"));
            }
        }
    }
    out.push('\n');
    out
}

/// The home the benchmark runs steward with (its machine key), inside the
/// store's directory.
fn home(root: &Path) -> PathBuf {
    root.join(".bench-home")
}

fn run(steward: &Path, root: &Path, args: &[&str]) {
    let status = Command::new(steward)
        .args(args)
        .current_dir(root)
        .env_clear()
        .env("STEWARD_NOW", NOW)
        .env("HOME", home(root))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("steward runs");
    assert!(
        status.code().is_some_and(|c| c == 0 || c == 3),
        "steward {args:?} failed: {status}"
    );
}

/// Peak resident memory of one run, from GNU time.
fn peak_memory(steward: &Path, root: &Path, args: &[&str]) -> String {
    match peak_kib(steward, root, args) {
        Some(kib) => format!("{:.1} MiB", kib / 1024.0),
        None => "(needs /usr/bin/time)".to_string(),
    }
}

/// Peak resident memory of one run in KiB, from GNU time.
fn peak_kib(steward: &Path, root: &Path, args: &[&str]) -> Option<f64> {
    let output = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg(steward)
        .args(args)
        .current_dir(root)
        .env_clear()
        .env("STEWARD_NOW", NOW)
        .env("HOME", home(root))
        .stdout(Stdio::null())
        .output();
    let output = output.ok()?;
    String::from_utf8_lossy(&output.stderr)
        .trim()
        .lines()
        .last()?
        .parse()
        .ok()
}

/// `cat` of `files`, as few processes as the argument limit allows.
fn cat(files: &[PathBuf]) {
    for part in files.chunks(20_000) {
        let status = Command::new("cat")
            .args(part)
            .stdout(Stdio::null())
            .status()
            .expect("cat runs");
        assert!(status.success());
    }
}

/// How long `f` took.
fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// The medians of two timings taken in the same rounds.
fn paired(runs: usize, mut f: impl FnMut() -> (Duration, Duration)) -> (Duration, Duration) {
    f(); // warm the page cache
    let (mut a, mut b): (Vec<Duration>, Vec<Duration>) = (0..runs).map(|_| f()).unzip();
    a.sort();
    b.sort();
    (a[runs / 2], b[runs / 2])
}

/// The median time of `f`, each run after `before` (not timed).
fn median_after(runs: usize, mut before: impl FnMut(), mut f: impl FnMut()) -> Duration {
    f(); // warm the page cache
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            before();
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn median(runs: usize, f: impl FnMut()) -> Duration {
    median_after(runs, || {}, f)
}

fn millis(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1e3)
}
