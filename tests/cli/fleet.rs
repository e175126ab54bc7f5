//! A fleet night (steward-guide(7), "MANY MACHINES, ONE STORE"): three
//! machines with their own keys share one store through a bare remote,
//! each ticking and syncing in turn through a night, their fake agents
//! really doing the work. Every goal is done by its checks, none started
//! twice, and none held for a person: each machine's honest writes —
//! check results included — verify on the others.

use std::path::Path;

use crate::common::{TestEnv, git};
use crate::machines::{clone_of, published};

/// Does the goal's work (a file its check looks for), says so in the log
/// every machine's starts go to, and has the judge close it.
const AGENT: &str = "#!/bin/sh\ncat > /dev/null\nmkdir -p work\ntouch \"work/$STEWARD_GOAL.done\"\necho \"$STEWARD_MACHINE_ID $STEWARD_GOAL\" >> \"$STARTS\"\nsteward complete \"$STEWARD_GOAL\" --reason \"made work/$STEWARD_GOAL.done\" >/dev/null\n";

const DISPATCH: &str = "dispatch:\n  enabled: true\n  agent: fake\n  claim: git\n  max_parallel: 4\n  timeout: 1m\n  pass_at_run_end: false\nglobal_limits:\n  max_dispatches_per_hour: 100\n  max_active_goals: 100\nagents:\n  fake:\n    command: [./agent.sh]\n    output: text\n";

const GOALS: usize = 30;

struct Machine {
    name: &'static str,
    env: TestEnv,
}

impl Machine {
    fn run(&self, starts: &Path, now: &str, args: &[&str]) -> std::process::Output {
        let dir = Path::new(env!("CARGO_BIN_EXE_steward")).parent().unwrap();
        self.env
            .process()
            .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
            .env("STEWARD_NOW", now)
            .env("STARTS", starts)
            .env("TZ", "UTC")
            .args(args)
            .output()
            .unwrap()
    }

    fn wait_for_runs(&self) {
        let started = std::time::Instant::now();
        while self.env.runs().iter().any(|r| {
            r["machine"] == self.name && matches!(r["state"].as_str(), Some("pending" | "running"))
        }) {
            assert!(
                started.elapsed().as_secs() < 60,
                "{}: runs never ended",
                self.name
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

fn pull(env: &TestEnv) {
    git(
        env.root(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
}

/// a makes the store with `goals` goals and the agent; the other
/// machines clone it and publish their keys; each trusts the others'.
fn fleet(goals: usize, names: &[&'static str]) -> (tempfile::TempDir, Vec<Machine>) {
    let (dir, _remote, a) = published(&[]);
    a.write_config(&(a.read("steward.yaml") + DISPATCH));
    a.executable("agent.sh", AGENT);
    a.write(".gitignore", "work/\n");
    for n in 0..goals {
        a.steward()
            .args(["add", &format!("g{n:02}"), "--title", "make its file"])
            .args(["--criterion", "its file is there"])
            .args(["--verify", &format!("file_exists:work/g{n:02}.done@1")])
            .assert()
            .success();
    }
    git(a.root(), &["add", "-A"]);
    git(a.root(), &["commit", "-q", "-m", "the night's goals"]);
    git(a.root(), &["push", "-q", "origin", "main"]);
    let remote = dir.path().join("remote.git");
    let mut machines = vec![Machine { name: "a", env: a }];
    for &name in &names[1..] {
        let env = clone_of(&remote, name);
        env.steward().args(["init", "--git"]).assert().success();
        env.steward().args(["config", "accept"]).assert().success();
        git(env.root(), &["push", "-q", "origin", "main"]);
        machines.push(Machine { name, env });
    }
    for m in &machines {
        pull(&m.env);
        for &other in names {
            if other != m.name {
                m.env
                    .steward()
                    .args(["accept", "--machine", other])
                    .assert()
                    .success();
            }
        }
    }
    (dir, machines)
}

#[test]
fn three_machines_with_their_own_keys_do_every_goal_once_and_hold_none_for_a_person() {
    let (dir, machines) = fleet(GOALS, &["a", "b", "c"]);
    let starts = dir.path().join("starts.log");
    let mut minute = 0;
    for _round in 0..12 {
        for m in &machines {
            let now = format!("2026-11-21T{:02}:{:02}:00Z", 4 + minute / 60, minute % 60);
            minute += 5;
            let synced = m.run(&starts, &now, &["sync"]);
            assert!(synced.status.success(), "{}: sync: {synced:?}", m.name);
            let ticked = m.run(&starts, &now, &["tick", "-q"]);
            assert!(
                matches!(ticked.status.code(), Some(0 | 3)),
                "{}: tick: {ticked:?}",
                m.name
            );
            m.wait_for_runs();
            let synced = m.run(&starts, &now, &["sync"]);
            assert!(synced.status.success(), "{}: sync: {synced:?}", m.name);
        }
    }
    let now = "2026-11-21T08:00:00Z";
    for m in machines.iter().chain(&machines) {
        m.run(&starts, now, &["sync"]);
    }
    let log = std::fs::read_to_string(&starts).unwrap_or_default();
    for n in 0..GOALS {
        let goal = format!("g{n:02}");
        let runs = log
            .lines()
            .filter(|l| l.ends_with(&format!(" {goal}")))
            .count();
        assert_eq!(runs, 1, "{goal} started {runs} times:\n{log}");
    }
    for m in &machines {
        let open = m.run(&starts, now, &["list", "--json"]);
        let open: serde_json::Value = serde_json::from_slice(&open.stdout).unwrap();
        assert_eq!(
            open["goals"].as_array().map(Vec::len),
            Some(0),
            "{}: {open}",
            m.name
        );
        // Nor found changed, closed or removed outside steward, which
        // tells a person too.
        let review = (m.env.events().into_iter())
            .filter(|e| {
                let action = e["action"].as_str().unwrap_or_default();
                [
                    "edited_outside",
                    "put_in_place",
                    "closed_by_hand",
                    "deleted_outside",
                ]
                .contains(&action)
            })
            .collect::<Vec<_>>();
        assert!(
            review.is_empty(),
            "{}: held for a person: {review:?}",
            m.name
        );
    }
    // Every machine's record reached the others, signed, fresh.
    let listed = machines[0].run(&starts, now, &["fleet", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let listed = listed["machines"].as_array().unwrap();
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert!(listed.iter().all(|m| m["verified"] == true), "{listed:?}");
    // The work was spread: every machine ran some of it.
    for m in &machines {
        assert!(
            log.lines().any(|l| l.starts_with(&format!("{} ", m.name))),
            "{log}"
        );
    }
}

/// Machine `m`'s own settings (`state/local/steward.yaml`), accepted.
fn local(m: &Machine, yaml: &str) {
    m.env.write("state/local/steward.yaml", yaml);
    m.env
        .steward()
        .args(["config", "accept", "-q"])
        .assert()
        .success();
}

fn add(m: &Machine, label: &str, extra: &[&str]) {
    m.env
        .steward()
        .args(["add", label, "--title", "make its file"])
        .args(["--criterion", "its file is there"])
        .args(["--verify", &format!("file_exists:work/{label}.done@1")])
        .args(extra)
        .assert()
        .success();
}

fn ok(output: &std::process::Output) -> String {
    assert!(matches!(output.status.code(), Some(0 | 3)), "{output:?}");
    String::from_utf8_lossy(&output.stdout).to_string()
}

fn commits_of(m: &Machine, path: &str) -> usize {
    git(m.env.root(), &["log", "--oneline", "--", path])
        .lines()
        .count()
}

#[test]
fn a_machines_record_is_published_signed_and_written_only_when_it_changes() {
    let (dir, machines) = fleet(0, &["a", "b"]);
    let starts = dir.path().join("starts.log");
    let (a, b) = (&machines[0], &machines[1]);
    local(a, "machine:\n  tags: [gpu, big]\n");
    ok(&a.run(&starts, "2026-11-21T04:00:00Z", &["tick", "-q"]));
    let record = a.env.read("state/machines/a.json");
    let record: serde_json::Value = serde_json::from_str(&record).unwrap();
    assert_eq!(
        record["capacity"]["tags"],
        serde_json::json!(["gpu", "big"])
    );
    assert_eq!(record["capacity"]["slots"], 4);
    assert_eq!(record["pass"], "2026-11-21T04:00:00Z");
    let fake = (record["capacity"]["agents"].as_array().unwrap().iter())
        .find(|agent| agent["name"] == "fake")
        .unwrap();
    assert_eq!(fake["usable"], true, "{record}");
    let commits = commits_of(a, "state/machines/a.json");
    assert_eq!(commits, 1);
    // Nothing changed: nothing written, nothing committed.
    ok(&a.run(&starts, "2026-11-21T04:05:00Z", &["tick", "-q"]));
    assert_eq!(commits_of(a, "state/machines/a.json"), 1);
    // A third of fleet.stale_after on, it says it is alive.
    ok(&a.run(&starts, "2026-11-21T04:11:00Z", &["tick", "-q"]));
    assert_eq!(commits_of(a, "state/machines/a.json"), 2);
    // b reads it, verified; changed by anyone but a, it counts for nothing.
    ok(&a.run(&starts, "2026-11-21T04:11:00Z", &["sync"]));
    ok(&b.run(&starts, "2026-11-21T04:12:00Z", &["sync"]));
    let listed = ok(&b.run(&starts, "2026-11-21T04:12:00Z", &["fleet"]));
    assert!(
        listed.contains("a: last pass 2026-11-21T04:11:00Z, 4/4 slots free, agents:"),
        "{listed}"
    );
    assert!(listed.contains("tags: gpu, big"), "{listed}");
    let forged = b
        .env
        .read("state/machines/a.json")
        .replace("\"slots\": 4", "\"slots\": 40");
    b.env.write("state/machines/a.json", &forged);
    let listed = ok(&b.run(&starts, "2026-11-21T04:12:00Z", &["fleet"]));
    assert!(
        listed.contains("a (UNVERIFIED: counts for nothing)"),
        "{listed}"
    );
}

#[test]
fn a_goal_runs_only_on_the_machines_its_runs_on_names() {
    let (dir, machines) = fleet(0, &["a", "b"]);
    let starts = dir.path().join("starts.log");
    let (a, b) = (&machines[0], &machines[1]);
    local(b, "machine:\n  tags: [gpu]\n");
    add(a, "train", &["--runs-on", "gpu"]);
    let now = "2026-11-21T04:00:00Z";
    ok(&a.run(&starts, now, &["tick", "-q"]));
    a.wait_for_runs();
    let why = ok(&a.run(&starts, now, &["why", "train"]));
    assert!(why.contains("it runs on gpu (runs_on), not on a"), "{why}");
    assert!(a.env.goal_json("train")["runs_on"] == serde_json::json!(["gpu"]));
    ok(&a.run(&starts, now, &["sync"]));
    ok(&b.run(&starts, now, &["sync"]));
    ok(&b.run(&starts, now, &["tick", "-q"]));
    b.wait_for_runs();
    let log = std::fs::read_to_string(&starts).unwrap_or_default();
    assert_eq!(log.trim(), "b train", "{log}");
}

#[test]
fn a_machine_about_to_sleep_leaves_a_ready_goal_to_one_awake_for_a_while_only() {
    let (dir, machines) = fleet(0, &["a", "b"]);
    let starts = dir.path().join("starts.log");
    let (a, b) = (&machines[0], &machines[1]);
    // a is awake 08:00-23:00 (UTC); at 04:00 it is asleep by its windows.
    local(a, "machine:\n  available: [\"08:00-23:00\"]\n");
    ok(&b.run(&starts, "2026-11-21T04:00:00Z", &["tick", "-q"]));
    ok(&b.run(&starts, "2026-11-21T04:00:00Z", &["sync"]));
    ok(&a.run(&starts, "2026-11-21T04:00:00Z", &["sync"]));
    add(a, "g", &[]);
    ok(&a.run(&starts, "2026-11-21T04:05:00Z", &["tick", "-q"]));
    let why = ok(&a.run(&starts, "2026-11-21T04:05:00Z", &["why", "g"]));
    assert!(
        why.contains("left to b, which can run it now, until 2026-11-21T04:10:00Z"),
        "{why}"
    );
    let listed = ok(&a.run(&starts, "2026-11-21T04:05:00Z", &["fleet"]));
    assert!(
        listed.contains("asleep until 2026-11-21T08:00:00Z"),
        "{listed}"
    );
    // Nobody waits on anybody: past fleet.defer, a starts it itself.
    ok(&a.run(&starts, "2026-11-21T04:10:00Z", &["tick", "-q"]));
    a.wait_for_runs();
    let log = std::fs::read_to_string(&starts).unwrap_or_default();
    assert_eq!(log.trim(), "a g", "{log}");
}

#[test]
fn a_machine_that_stopped_passing_counts_for_nothing_and_is_told_once() {
    let (dir, machines) = fleet(0, &["a", "b"]);
    let starts = dir.path().join("starts.log");
    let (a, b) = (&machines[0], &machines[1]);
    local(
        a,
        "machine:\n  available: [\"08:00-23:00\"]\nnotify:\n  command: [sh, -c, 'cat >> told.json; echo >> told.json']\n",
    );
    ok(&b.run(&starts, "2026-11-21T04:00:00Z", &["tick", "-q"]));
    ok(&b.run(&starts, "2026-11-21T04:00:00Z", &["sync"]));
    ok(&a.run(&starts, "2026-11-21T04:00:00Z", &["sync"]));
    add(a, "g", &[]);
    // b has not passed for an hour: a leaves it nothing, and says so once.
    ok(&a.run(&starts, "2026-11-21T05:00:00Z", &["tick", "-q"]));
    a.wait_for_runs();
    let log = std::fs::read_to_string(&starts).unwrap_or_default();
    assert_eq!(log.trim(), "a g", "{log}");
    ok(&a.run(&starts, "2026-11-21T05:10:00Z", &["tick", "-q"]));
    let told = a.env.read("told.json");
    let stale: Vec<&str> = told
        .lines()
        .filter(|l| l.contains("\"event\":\"machine\""))
        .collect();
    assert_eq!(stale.len(), 1, "{told}");
    assert!(
        stale[0].contains("machine b has made no pass since 2026-11-21T04:00:00Z"),
        "{told}"
    );
    assert!(stale[0].contains("steward fleet"), "{told}");
    let listed = ok(&a.run(&starts, "2026-11-21T05:10:00Z", &["fleet"]));
    assert!(listed.starts_with("b (STALE)"), "{listed}");
    let status = ok(&a.run(&starts, "2026-11-21T05:10:00Z", &["status"]));
    assert!(
        status.contains("Machines (steward fleet):\n  b (STALE): last pass 2026-11-21T04:00:00Z"),
        "{status}"
    );
    // The page a person opens on a phone lists them too, stale first.
    let page = a.env.path("page");
    ok(&a.run(
        &starts,
        "2026-11-21T05:10:00Z",
        &["report", "--html", page.to_str().unwrap()],
    ));
    let html = std::fs::read_to_string(page.join("index.html")).unwrap();
    let section = &html[html
        .find("<section id=\"machines\">")
        .expect("a machines section")..];
    let b_at = section
        .find("<li><strong>b</strong> <strong>(STALE)</strong>: last pass 2026-11-21T04:00:00Z");
    let a_at = section.find(
        "<li><strong>a</strong> <strong>(this machine)</strong>: last pass 2026-11-21T05:10:00Z",
    );
    assert!(b_at.is_some() && a_at.is_some() && b_at < a_at, "{section}");
    assert!(
        html.contains("<a href=\"#machines\">Machines (2)</a>"),
        "{html}"
    );
}

/// Every machine reads every event; the machine whose steward wrote it
/// tells it, so a person hears of each once, whichever machines notify.
#[test]
fn an_event_is_told_once_by_the_machine_that_wrote_it() {
    let (dir, machines) = fleet(0, &["a", "b"]);
    let starts = dir.path().join("starts.log");
    let (a, b) = (&machines[0], &machines[1]);
    let notifier = "notify:\n  command: [sh, -c, 'cat >> told.json; echo >> told.json']\n";
    local(a, notifier);
    local(b, notifier);
    add(a, "g", &[]);
    let now = "2026-11-21T04:00:00Z";
    let stuck = a
        .env
        .steward()
        .env("CLAUDECODE", "1")
        .args(["assess", "g", "--summary", "need the prod token", "--stuck"])
        .output()
        .unwrap();
    assert!(stuck.status.success(), "{stuck:?}");
    ok(&a.run(&starts, now, &["tick", "-q"]));
    ok(&a.run(&starts, now, &["sync"]));
    ok(&b.run(&starts, now, &["sync"]));
    ok(&b.run(&starts, now, &["tick", "-q"]));
    let told_a = a.env.read("told.json");
    assert_eq!(
        told_a.matches("\"event\":\"blocked\"").count(),
        1,
        "{told_a}"
    );
    let told_b = std::fs::read_to_string(b.env.path("told.json")).unwrap_or_default();
    assert!(
        !told_b.contains("\"label\":\"g\""),
        "b told it again: {told_b}"
    );
}

/// A goal the judge closed on one machine while another machine's
/// watchdog marked it stalled: the merge takes the closed goal, and no
/// person is asked to choose — whether git sees the move to the closed
/// goals as a rename (one file both sides changed) or, when the closed
/// file differs too much from the open one (or, in a big merge, past
/// git's rename limit), as a removal beside a change.
#[test]
fn a_goal_closed_on_one_machine_and_stalled_on_another_merges_as_closed() {
    closed_here_stalled_there(false);
    closed_here_stalled_there(true);
}

fn closed_here_stalled_there(much_changed: bool) {
    let (dir, machines) = fleet(0, &["a", "b"]);
    let starts = dir.path().join("starts.log");
    let (a, b) = (&machines[0], &machines[1]);
    add(a, "g", &[]);
    let now = "2026-11-21T04:00:00Z";
    ok(&a.run(&starts, now, &["sync"]));
    ok(&b.run(&starts, now, &["sync"]));
    // b does the work and the judge closes the goal there.
    b.env.write("work/g.done", "");
    if much_changed {
        let long = "what the work found, at length. ".repeat(80);
        ok(&b.run(&starts, now, &["update", "g", "--description", &long]));
    }
    ok(&b.run(&starts, now, &["complete", "g", "--reason", "made it"]));
    ok(&b.run(&starts, now, &["sync"]));
    // a, not yet pulled, marks it stalled an hour on (running nothing,
    // so pulling nothing first).
    local(a, "dispatch:\n  enabled: false\n");
    ok(&a.run(&starts, "2026-11-21T05:00:00Z", &["tick", "-q"]));
    assert_eq!(a.env.goal_json("g")["status"], "stalled");
    let synced = a.run(&starts, "2026-11-21T05:00:00Z", &["sync"]);
    assert!(synced.status.success(), "{synced:?}");
    let listed = ok(&a.run(&starts, "2026-11-21T05:00:00Z", &["list", "--all"]));
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("g ") && l.contains("completed")),
        "{listed}"
    );
    assert!(!a.env.path("state/conflicts").exists());
    ok(&b.run(&starts, "2026-11-21T05:00:00Z", &["sync"]));
    let listed = ok(&b.run(&starts, "2026-11-21T05:00:00Z", &["list", "--all"]));
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("g ") && l.contains("completed")),
        "{listed}"
    );
    // Neither machine's next pass finds the goal removed, or anything else
    // for a person.
    for m in [a, b] {
        let passed = m.run(&starts, "2026-11-21T05:05:00Z", &["tick"]);
        assert_eq!(passed.status.code(), Some(0), "{}: {passed:?}", m.name);
        assert_eq!(m.env.goal_json("g")["closed_by_hand"], false, "{}", m.name);
    }
}

/// The same race, but the goal was closed on the other machine by hand,
/// not by the judge — an agent there set its status, copied another
/// goal's receipt, moved the file among the closed goals and pushed with
/// git. The merge takes the closed side as before, and the goal then reads
/// as what it is: removed from the open goals outside steward, told to a
/// person, never completed.
#[test]
fn a_goal_closed_by_hand_on_one_machine_and_stalled_on_another_reads_as_closed_by_hand() {
    let (dir, machines) = fleet(0, &["a", "b"]);
    let starts = dir.path().join("starts.log");
    let (a, b) = (&machines[0], &machines[1]);
    add(a, "g", &[]);
    add(a, "real", &[]);
    let now = "2026-11-21T04:00:00Z";
    ok(&a.run(&starts, now, &["sync"]));
    ok(&b.run(&starts, now, &["sync"]));
    b.env.write("work/real.done", "");
    ok(&b.run(&starts, now, &["complete", "real", "--reason", "made it"]));
    let closed = |m: &Machine, label: &str| {
        std::fs::read_dir(m.env.path("state/goals/closed"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{label}-"))
            })
    };
    let real = std::fs::read_to_string(closed(b, "real").unwrap()).unwrap();
    let receipt_at = real.find("receipt:").unwrap();
    let receipt_end = real[receipt_at..].find("\n---").unwrap() + receipt_at;
    let receipt = &real[receipt_at..receipt_end];
    let open = b.env.read("state/goals/g.md");
    let id = b.env.goal_json("g")["id"].as_str().unwrap().to_string();
    let forged = open.replace(
        "status: active",
        &format!("status: completed\nclosed_reason: made it\n{receipt}"),
    );
    b.env
        .write(&format!("state/goals/closed/g-{}.md", &id[..8]), &forged);
    std::fs::remove_file(b.env.path("state/goals/g.md")).unwrap();
    git(b.env.root(), &["add", "-A"]);
    git(b.env.root(), &["commit", "-q", "-m", "g: done"]);
    git(b.env.root(), &["push", "-q", "origin", "main"]);
    // a, not yet pulled, marks it stalled an hour on.
    local(a, "dispatch:\n  enabled: false\n");
    let later = "2026-11-21T05:00:00Z";
    ok(&a.run(&starts, later, &["tick", "-q"]));
    assert_eq!(a.env.goal_json("g")["status"], "stalled");
    let synced = a.run(&starts, later, &["sync"]);
    assert!(synced.status.success(), "{synced:?}");
    assert!(!a.env.path("state/conflicts").exists());
    // The goal the judge closed there is closed here too; the one moved
    // by hand is found removed, for a person, and never as completed.
    let passed = a.run(&starts, later, &["tick"]);
    assert_eq!(passed.status.code(), Some(3), "{passed:?}");
    let told = String::from_utf8_lossy(&passed.stdout);
    assert!(told.contains("g: deleted_outside"), "{passed:?}");
    assert!(!told.contains("real:"), "{passed:?}");
    assert_eq!(a.env.goal_json("real")["closed_by_hand"], false);
    let events = a.env.events();
    assert!(
        !(events.iter()).any(|e| e["label"] == "g" && e["to"] == "completed"),
        "{events:?}"
    );
}

/// An open goal two machines changed at different times, one of them (or
/// both) only by its watchdog's mark: the merge takes the other change (or
/// the later mark) and no person is asked to choose; every machine goes on
/// with the goal and holds none of it.
#[test]
fn an_open_goal_marked_by_two_watchdogs_at_different_times_merges_by_itself() {
    marked_here_changed_there(false);
    marked_here_changed_there(true);
}

fn marked_here_changed_there(assessed: bool) {
    let (dir, machines) = fleet(0, &["a", "b"]);
    let starts = dir.path().join("starts.log");
    let (a, b) = (&machines[0], &machines[1]);
    for m in [a, b] {
        local(m, "dispatch:\n  enabled: false\n");
    }
    add(a, "g", &[]);
    let now = "2026-11-21T04:00:00Z";
    ok(&a.run(&starts, now, &["sync"]));
    ok(&b.run(&starts, now, &["sync"]));
    // a's watchdog marks the goal stalled an hour on and shares it.
    ok(&a.run(&starts, "2026-11-21T05:00:00Z", &["tick", "-q"]));
    assert_eq!(a.env.goal_json("g")["status"], "stalled");
    ok(&a.run(&starts, "2026-11-21T05:00:00Z", &["sync", "--no-push"]));
    git(a.env.root(), &["push", "-q", "origin", "main"]);
    // b, not yet pulled, marks it too half an hour later, or an agent
    // there reports on it.
    let later = "2026-11-21T05:30:00Z";
    if assessed {
        ok(&b.run(
            &starts,
            later,
            &["assess", "g", "--summary", "half of it done"],
        ));
    } else {
        ok(&b.run(&starts, later, &["tick", "-q"]));
        assert_eq!(b.env.goal_json("g")["status"], "stalled");
    }
    let synced = b.run(&starts, later, &["sync"]);
    assert!(synced.status.success(), "{synced:?}");
    assert!(!b.env.path("state/conflicts").exists());
    ok(&a.run(&starts, later, &["sync"]));
    for m in [a, b] {
        let shown = m.env.goal_json("g");
        if assessed {
            assert_eq!(
                shown["progress"]["last_outcome"], "half of it done",
                "{shown}"
            );
        } else {
            assert_eq!(shown["status"], "stalled", "{shown}");
        }
        let passed = ok(&m.run(&starts, "2026-11-21T05:35:00Z", &["tick"]));
        assert!(
            !passed.contains("held for a person"),
            "{}: {passed}",
            m.name
        );
        let why = ok(&m.run(&starts, "2026-11-21T05:35:00Z", &["why", "g"]));
        assert!(
            !why.contains("changed outside steward"),
            "{}: {why}",
            m.name
        );
    }
}
