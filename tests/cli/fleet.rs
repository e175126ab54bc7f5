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

/// a makes the store with the goals and the agent; b and c clone it and
/// publish their keys; each trusts the others'.
fn fleet() -> (tempfile::TempDir, Vec<Machine>) {
    let (dir, _remote, a) = published(&[]);
    a.write_config(&(a.read("steward.yaml") + DISPATCH));
    a.executable("agent.sh", AGENT);
    a.write(".gitignore", "work/\n");
    for n in 0..GOALS {
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
    for name in ["b", "c"] {
        let env = clone_of(&remote, name);
        env.steward().args(["init", "--git"]).assert().success();
        env.steward().args(["config", "accept"]).assert().success();
        git(env.root(), &["push", "-q", "origin", "main"]);
        machines.push(Machine { name, env });
    }
    for m in &machines {
        pull(&m.env);
        for other in ["a", "b", "c"] {
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
    let (dir, machines) = fleet();
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
        let review = (m.env.events().into_iter())
            .filter(|e| e["action"] == "edited_outside" || e["action"] == "put_in_place")
            .collect::<Vec<_>>();
        assert!(
            review.is_empty(),
            "{}: held for a person: {review:?}",
            m.name
        );
    }
    // The work was spread: every machine ran some of it.
    for m in &machines {
        assert!(
            log.lines().any(|l| l.starts_with(&format!("{} ", m.name))),
            "{log}"
        );
    }
}
