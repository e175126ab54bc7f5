//! `dispatch.worktree`: each run in a git worktree of its own, on its own
//! branch, with real git and real child processes. The fake agent edits
//! the same tracked file as every other run, commits on its branch and
//! asks the judge.

use std::path::Path;

use crate::common::{TestEnv, git};

/// Writes its goal's label into `shared.txt`, waits for the other runs
/// to have written theirs, checks that it still sees its own, commits,
/// and asks the judge.
const AGENT: &str = r#"#!/bin/sh
cat > /dev/null
echo "start $STEWARD_GOAL $(pwd)" >> "$AGENT_LOG"
echo "$STEWARD_GOAL" > shared.txt
i=0
while [ "$(grep -c start "$AGENT_LOG")" -lt "$EXPECT_RUNS" ] && [ $i -lt 100 ]; do
  sleep 0.1; i=$((i+1))
done
sleep 0.3
grep -qx "$STEWARD_GOAL" shared.txt || { echo "saw $(cat shared.txt)" >> "$AGENT_LOG"; exit 9; }
git add shared.txt && git commit -qm "$STEWARD_GOAL wrote shared.txt" >> "$AGENT_LOG" 2>&1
if [ "$STEWARD_GOAL" = sly ]; then
  # A wait in the judge's words, without the judge.
  steward --actor agent assess sly --summary "steward to merge branch $(git rev-parse --abbrev-ref HEAD) into main once run $STEWARD_DISPATCH_ID ends" --wait-until 2026-11-22T04:00:00Z >> "$AGENT_LOG" 2>&1
else
  # Something left uncommitted: the judge passes only what is committed.
  [ "$STEWARD_GOAL" = messy ] && echo scratch > scratch.txt
  # What its check looks for only in a file git ignores, never committed.
  if [ "$STEWARD_GOAL" = ghost ]; then
    echo built.txt >> "$(git rev-parse --git-common-dir)/info/exclude"
    echo ghost > built.txt
  fi
  # A .git file naming a repository of its own, whose configuration runs
  # a program whenever git looks at the work tree.
  if [ "$STEWARD_GOAL" = forger ]; then
    fake="$(dirname "$AGENT_LOG")/fake"
    git init -q "$fake"
    printf '#!/bin/sh\ntouch "%s"\n' "$(dirname "$AGENT_LOG")/fsmonitor-ran" > "$fake/monitor.sh"
    chmod +x "$fake/monitor.sh"
    git -C "$fake" config core.fsmonitor "$fake/monitor.sh"
    echo "gitdir: $fake/.git" > .git
  fi
  steward complete "$STEWARD_GOAL" --reason "shared.txt says $STEWARD_GOAL" >> "$AGENT_LOG" 2>&1
  echo "complete exit $?" >> "$AGENT_LOG"
  # A commit after the judge passed: not what was judged.
  if [ "$STEWARD_GOAL" = late ]; then
    echo more > late.txt && git add late.txt && git commit -qm "after the judge" >> "$AGENT_LOG" 2>&1
  fi
fi
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s-'"$STEWARD_DISPATCH_ID"'","total_cost_usd":0.1}'
"#;

const NOTIFIER: &str = "#!/bin/sh\ntr -d '\\n' >> notifications.log\necho >> notifications.log\n";

/// A store at the top of a git repository whose one tracked file,
/// `shared.txt`, every run edits; the agent and its log live outside it.
fn store(merge: &str, expect_runs: usize) -> (TestEnv, tempfile::TempDir) {
    let env = TestEnv::initialised();
    let outside = tempfile::tempdir().unwrap();
    let agent = outside.path().join("agent.sh");
    std::fs::write(
        &agent,
        AGENT
            .replace(
                "$AGENT_LOG",
                &outside.path().join("agent.log").display().to_string(),
            )
            .replace("$EXPECT_RUNS", &expect_runs.to_string()),
    )
    .unwrap();
    std::fs::set_permissions(&agent, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    env.write_config(&format!(
        "dispatch:
  enabled: true
  agent: fake
  max_parallel: 2
  timeout: 30s
  worktree: true
  merge: {merge}
  # Each step by a tick: the pass a run's end makes is tried on its own.
  pass_at_run_end: false
verification:
  allow_commands: true
notify:
  command: [./notify.sh]
agents:
  fake:
    command: [{}]
    output: claude-json
",
        agent.display()
    ));
    env.executable("notify.sh", NOTIFIER);
    let root = env.root();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Test"]);
    git(root, &["config", "user.email", "test@example.com"]);
    std::fs::write(root.join(".gitignore"), "notifications.log\nnotify.sh\n").unwrap();
    env.write("shared.txt", "base\n");
    git(root, &["add", "shared.txt", ".gitignore", "steward.yaml"]);
    git(root, &["commit", "-qm", "base"]);
    (env, outside)
}

fn add(env: &TestEnv, label: &str) {
    env.steward_on_path()
        .args(["add", label, "--title", label])
        .args(["--criterion", &format!("shared.txt says {label}")])
        .args([
            "--verify",
            &format!("command_exit_zero:grep -qx {label} shared.txt@1"),
        ])
        .assert()
        .success();
}

fn tick(env: &TestEnv) -> String {
    let output = env.steward_on_path().args(["tick"]).output().unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 3)),
        "tick: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `label` waits for a person to merge its branch, because of `why`
/// (said in the wait), and nothing reached the root.
fn left_to_a_person(env: &TestEnv, label: &str, why: &str) {
    let goal = env.goal_json(label);
    assert_eq!(goal["waiting"]["for_person"], "merge", "{goal}");
    assert!(
        goal["waiting"]["reason"].as_str().unwrap().contains(why),
        "{goal}"
    );
    assert_eq!(env.read("shared.txt"), "base\n");
}

/// Turns `git.commit` on, as a person would, and commits the change.
fn commit_every_change(env: &TestEnv) {
    let config = env.read("steward.yaml") + "git:\n  commit: true\n";
    env.write("steward.yaml", &config);
    git(env.root(), &["commit", "-qam", "commit steward's changes"]);
}

fn agent_log(outside: &tempfile::TempDir) -> String {
    std::fs::read_to_string(outside.path().join("agent.log")).unwrap_or_default()
}

/// The run of `label`'s worktree, as `runs --json` names it.
fn worktree_of(env: &TestEnv, label: &str) -> serde_json::Value {
    env.runs()
        .into_iter()
        .find(|r| r["goal_label"] == label)
        .map(|r| r["worktree"].clone())
        .unwrap_or_default()
}

/// One pass starts the runs; once they end, `label` waits in `verifying`
/// for its branch to be merged (the judge passed it in its worktree).
fn judged_in_its_worktree(
    env: &TestEnv,
    outside: &tempfile::TempDir,
    label: &str,
) -> serde_json::Value {
    tick(env);
    env.settle();
    let goal = env.goal_json(label);
    assert_eq!(
        goal["status"],
        "verifying",
        "{goal}\n{}",
        agent_log(outside)
    );
    goal
}

fn shared_on(root: &Path, branch: &str) -> String {
    git(root, &["show", &format!("{branch}:shared.txt")])
}

#[test]
fn two_runs_on_one_repository_each_finish_in_a_worktree_of_its_own() {
    let (env, outside) = store("none", 2);
    add(&env, "alpha");
    add(&env, "beta");
    tick(&env);
    env.settle();
    let log = agent_log(&outside);
    assert!(!log.contains("saw "), "a run saw another's edit: {log}");
    for label in ["alpha", "beta"] {
        let goal = env.goal_json(label);
        assert_eq!(goal["status"], "completed", "{label}: {goal}\n{log}");
        assert_eq!(goal["receipt"]["criteria"][0]["basis"], "check", "{goal}");
        let worktree = worktree_of(&env, label);
        let path = worktree["path"].as_str().unwrap();
        let branch = worktree["branch"].as_str().unwrap();
        assert!(path.starts_with("state/worktrees/run-"), "{worktree}");
        assert!(
            branch.starts_with(&format!("steward/{label}/")),
            "{worktree}"
        );
        // The agent worked there, and its commit is on its branch.
        assert!(
            log.contains(&format!("start {label} {}", env.path(path).display())),
            "{log}"
        );
        assert_eq!(shared_on(env.root(), branch), format!("{label}\n"));
        assert_eq!(
            git(&env.path(path), &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
            branch
        );
    }
    // The root's checkout is untouched: no merge was asked for.
    assert_eq!(env.read("shared.txt"), "base\n");
    assert_eq!(
        git(env.root(), &["status", "--porcelain", "--", "shared.txt"]),
        ""
    );
    assert_eq!(
        git(env.root(), &["log", "--format=%s", "main"]).trim(),
        "base"
    );
    // Worktrees are machine-local: nothing of them is in git's view.
    let status = git(env.root(), &["status", "--porcelain", "--ignored=no"]);
    assert!(!status.contains("worktrees"), "{status}");
    // `runs`, `show` and `status` name them.
    let runs = env.steward().args(["runs", "--all"]).output().unwrap();
    let runs = String::from_utf8_lossy(&runs.stdout);
    assert!(runs.contains("steward/alpha/"), "{runs}");
    let show = env.steward().args(["show", "alpha"]).output().unwrap();
    let show = String::from_utf8_lossy(&show.stdout);
    assert!(show.contains("steward/alpha/"), "{show}");
    env.steward()
        .args(["report", "--html", "page"])
        .assert()
        .success();
    let page = env.read("page/index.html");
    assert!(
        page.contains("on branch <code>steward/beta/"),
        "the report names it"
    );
}

#[test]
fn a_clean_branch_is_fast_forwarded_and_judged_in_the_root() {
    let (env, outside) = store("ff", 1);
    add(&env, "alpha");
    let goal = judged_in_its_worktree(&env, &outside, "alpha");
    assert!(
        goal["waiting"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("steward to merge branch steward/alpha/"),
        "{goal}"
    );
    // Nothing reaches the root before the next pass.
    assert_eq!(env.read("shared.txt"), "base\n");
    let said = tick(&env);
    assert!(said.contains("merged steward/alpha/"), "{said}");
    let goal = env.goal_json("alpha");
    assert_eq!(goal["status"], "completed", "{goal}");
    assert_eq!(goal["receipt"]["judged_by"], "steward", "{goal}");
    assert_eq!(env.read("shared.txt"), "alpha\n");
    assert_eq!(
        git(env.root(), &["log", "--format=%s", "-1", "main"]).trim(),
        "alpha wrote shared.txt"
    );
    assert_eq!(worktree_of(&env, "alpha")["state"], "merged");
}

/// With `git.commit`, steward's own commits of its store move `main`
/// under the run: `ff` looks past them (a merge commit brings nothing else
/// of the root's), but not past a person's commit.
#[test]
fn ff_looks_past_stewards_own_commits_but_not_a_persons() {
    for persons_commit in [false, true] {
        let (env, outside) = store("ff", 1);
        commit_every_change(&env);
        add(&env, "alpha");
        judged_in_its_worktree(&env, &outside, "alpha");
        if persons_commit {
            env.write("notes.txt", "a person's work\n");
            git(env.root(), &["add", "notes.txt"]);
            git(env.root(), &["commit", "-qm", "a person's commit"]);
        }
        let said = tick(&env);
        let goal = env.goal_json("alpha");
        if persons_commit {
            left_to_a_person(&env, "alpha", "notes.txt changed there");
        } else {
            assert_eq!(goal["status"], "completed", "{goal}\n{said}");
            assert_eq!(env.read("shared.txt"), "alpha\n");
            let parents = git(
                env.root(),
                &["log", "--format=%P", "-1", "--merges", "main"],
            );
            assert_eq!(parents.split_whitespace().count(), 2, "a merge commit");
        }
    }
}

/// The agent points its worktree's `.git` file at a repository of its own
/// whose configuration runs a program: the goal's command checks still
/// see the repository steward made, and run nothing of the agent's.
#[test]
fn a_check_in_a_worktree_uses_the_repository_steward_made() {
    let (env, outside) = store("none", 1);
    env.steward_on_path()
        .args(["add", "forger", "--title", "forger"])
        .args(["--criterion", "shared.txt says forger"])
        .args([
            "--verify",
            "command_exit_zero:git rev-parse --verify HEAD@1",
        ])
        .args(["--verify", "command_exit_zero:git status --porcelain@1"])
        .assert()
        .success();
    tick(&env);
    env.settle();
    let log = agent_log(&outside);
    assert!(log.contains("complete exit 0"), "{log}");
    assert_eq!(env.goal_json("forger")["status"], "completed");
    assert!(
        !outside.path().join("fsmonitor-ran").exists(),
        "the agent's fsmonitor ran"
    );
}

/// What the sandbox of a Claude Code run in a worktree lets it write of
/// the git directory: objects and its goal's branches; never the root's
/// branch (packed or not), `packed-refs`, `config` or `hooks`.
#[test]
fn a_sandboxed_run_writes_only_its_goals_branches() {
    let (env, outside) = store("none", 1);
    git(env.root(), &["pack-refs", "--all"]);
    assert!(!env.path(".git/refs/heads/main").exists(), "main is packed");
    add(&env, "alpha");
    tick(&env);
    env.settle();
    assert_eq!(
        env.goal_json("alpha")["status"],
        "completed",
        "{}",
        agent_log(&outside)
    );
    let settings = std::fs::read_dir(env.path("state/cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_str().unwrap().contains("claude-sandbox-run-"))
        .expect("the run's sandbox settings");
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(settings).unwrap()).unwrap();
    let paths = |key: &str| -> Vec<String> {
        settings["sandbox"]["filesystem"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    };
    let git_dir = env.root().canonicalize().unwrap().join(".git");
    let at = |rest: &str| git_dir.join(rest).display().to_string();
    let (allowed, denied) = (paths("allowWrite"), paths("denyWrite"));
    assert!(
        allowed.contains(&at("refs/heads/steward/alpha")),
        "{allowed:?}"
    );
    assert!(allowed.contains(&at("objects")), "{allowed:?}");
    for path in [
        "refs/heads/main",
        "refs/remotes",
        "packed-refs",
        "config",
        "hooks",
        "objects/info",
    ] {
        assert!(denied.contains(&at(path)), "{path}: {denied:?}");
    }
    assert!(env.path(".git/refs/heads/main").exists(), "main made loose");
}

/// `dispatch.protect`: a person's own paths, which a branch must leave
/// alone for steward to merge it.
#[test]
fn a_branch_that_changes_a_protected_path_is_a_persons_to_merge() {
    let (env, outside) = store("ff", 1);
    let config = env
        .read("steward.yaml")
        .replace("  merge: ff\n", "  merge: ff\n  protect: [shared.txt]\n");
    env.write_config(&config);
    git(env.root(), &["commit", "-qam", "protect shared.txt"]);
    add(&env, "alpha");
    judged_in_its_worktree(&env, &outside, "alpha");
    tick(&env);
    left_to_a_person(&env, "alpha", "(shared.txt): a person merges it");
}

/// Objects the repository borrows from elsewhere (`objects/info/
/// alternates`, which an agent could write to lend it objects that go
/// with its worktree): nothing is merged.
#[test]
fn a_repository_that_borrows_objects_is_a_persons_to_merge() {
    let (env, outside) = store("ff", 1);
    add(&env, "alpha");
    judged_in_its_worktree(&env, &outside, "alpha");
    env.write(
        ".git/objects/info/alternates",
        &format!("{}\n", outside.path().display()),
    );
    tick(&env);
    left_to_a_person(&env, "alpha", "objects/info/alternates");
}

/// While the goal's checks run on the merge result, another steward
/// process commits its store on `main` (here the check itself, noting on
/// another goal): the merge is made again past that commit, not left to
/// a person.
#[test]
fn a_merge_is_made_again_past_stewards_own_commits_made_meanwhile() {
    let (env, outside) = store("ff", 1);
    commit_every_change(&env);
    env.steward_on_path()
        .args(["add", "other", "--title", "other", "--criterion", "c"])
        .assert()
        .success();
    let root = env.root().display().to_string();
    env.steward_on_path()
        .args(["add", "alpha", "--title", "alpha"])
        .args(["--criterion", "shared.txt says alpha"])
        .args([
            "--verify",
            &format!(
                "command_exit_zero:sh -c 'grep -qx alpha shared.txt && steward -C {root} update other --note checked'@1"
            ),
        ])
        .assert()
        .success();
    judged_in_its_worktree(&env, &outside, "alpha");
    let said = tick(&env);
    let goal = env.goal_json("alpha");
    assert_eq!(goal["status"], "completed", "{goal}\n{said}");
    assert_eq!(env.read("shared.txt"), "alpha\n");
}

#[test]
fn a_conflicting_merge_waits_for_a_person_and_is_not_forced() {
    let (env, outside) = store("merge", 2);
    add(&env, "alpha");
    add(&env, "beta");
    tick(&env);
    env.settle();
    for label in ["alpha", "beta"] {
        let goal = env.goal_json(label);
        assert_eq!(
            goal["status"],
            "verifying",
            "{goal}\n{}\nruns: {:?}",
            agent_log(&outside),
            env.runs()
        );
    }
    let said = tick(&env);
    // One merges cleanly and is judged done in the root; the other then
    // conflicts with it, and waits for a person.
    let merged = ["alpha", "beta"]
        .into_iter()
        .find(|l| env.goal_json(l)["status"] == "completed")
        .unwrap_or_else(|| panic!("{said}"));
    let other = if merged == "alpha" { "beta" } else { "alpha" };
    assert_eq!(env.read("shared.txt"), format!("{merged}\n"));
    let goal = env.goal_json(other);
    assert_eq!(goal["status"], "verifying", "{goal}");
    assert_eq!(goal["waiting"]["for_person"], "merge", "{goal}");
    assert_eq!(worktree_of(&env, other)["state"], "conflict");
    // Nothing half-merged is left in the root.
    assert_eq!(
        git(env.root(), &["status", "--porcelain", "--", "shared.txt"]),
        ""
    );
    assert!(!env.path(".git/MERGE_HEAD").exists());
    // The person is told once, with the commands.
    let told: Vec<serde_json::Value> = std::fs::read_to_string(env.path("notifications.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|n: &serde_json::Value| n["event"] == "merge")
        .collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["goal"]["label"], other);
    let commands: Vec<&str> = told[0]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        commands
            .iter()
            .any(|c| c.contains(&format!("merge steward/{other}/"))),
        "{commands:?}"
    );
    assert!(
        commands
            .iter()
            .any(|c| c.contains(&format!("complete {other}"))),
        "{commands:?}"
    );
    // A later pass tries nothing again, and tells nobody again.
    tick(&env);
    assert_eq!(env.goal_json(other)["waiting"]["for_person"], "merge");
    let again = std::fs::read_to_string(env.path("notifications.log")).unwrap();
    assert_eq!(again.matches(r#""event":"merge""#).count(), 1);
    // The person merges by hand and completes it: judged in the root.
    let branch = worktree_of(&env, other)["branch"]
        .as_str()
        .unwrap()
        .to_string();
    let _ = std::process::Command::new("git")
        .args(["merge", "-q", &branch])
        .current_dir(env.root())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output();
    env.write("shared.txt", &format!("{other}\n"));
    git(env.root(), &["commit", "-qam", "merged by hand"]);
    env.steward()
        .args(["complete", other, "--reason", "merged by hand"])
        .assert()
        .success();
    assert_eq!(env.goal_json(other)["status"], "completed");
}

#[test]
fn retention_removes_finished_worktrees_and_keeps_dirty_ones() {
    let (mut env, _outside) = store("none", 2);
    add(&env, "alpha");
    add(&env, "beta");
    tick(&env);
    env.settle();
    let alpha = worktree_of(&env, "alpha");
    let beta = worktree_of(&env, "beta");
    let (alpha_dir, beta_dir) = (
        env.path(alpha["path"].as_str().unwrap()),
        env.path(beta["path"].as_str().unwrap()),
    );
    assert!(
        alpha_dir.is_dir() && beta_dir.is_dir(),
        "runs: {:?}",
        env.runs()
    );
    // Work left uncommitted in beta's worktree.
    std::fs::write(beta_dir.join("notes.txt"), "not committed\n").unwrap();
    tick(&env);
    env.set_now("2026-11-29T04:00:00Z");
    tick(&env);
    assert!(!alpha_dir.exists(), "a finished, clean worktree is removed");
    assert!(beta_dir.join("notes.txt").exists(), "a dirty one is kept");
    assert_eq!(worktree_of(&env, "alpha")["state"], "removed");
    assert_eq!(worktree_of(&env, "beta")["state"], "kept");
    // The branches stay for a person.
    let alpha_branch = alpha["branch"].as_str().unwrap();
    assert_eq!(shared_on(env.root(), alpha_branch), "alpha\n");
    let worktrees = git(env.root(), &["worktree", "list"]);
    assert!(
        !worktrees.contains(alpha["path"].as_str().unwrap()),
        "{worktrees}"
    );
    // doctor and status report the one kept.
    let doctor = env.steward().args(["doctor"]).output().unwrap();
    let doctor = String::from_utf8_lossy(&doctor.stdout).into_owned()
        + &String::from_utf8_lossy(&doctor.stderr);
    assert!(doctor.contains(beta["path"].as_str().unwrap()), "{doctor}");
    let status = env.steward().args(["status"]).output().unwrap();
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(status.contains(beta["path"].as_str().unwrap()), "{status}");
}

#[test]
fn without_git_or_with_worktree_off_runs_work_in_the_root() {
    let env = TestEnv::initialised();
    env.write_config(
        "dispatch:
  enabled: true
  agent: fake
  worktree: true
agents:
  fake:
    command: [./agent.sh]
    output: text
",
    );
    env.executable("agent.sh", "#!/bin/sh\ncat > /dev/null\npwd > where.txt\n");
    env.add_goal("plain");
    env.tick_and_settle();
    let run = &env.runs()[0];
    assert!(run["worktree"].is_null(), "{run}");
    let doctor = env.steward().arg("doctor").output().unwrap();
    let doctor = String::from_utf8_lossy(&doctor.stdout).into_owned()
        + &String::from_utf8_lossy(&doctor.stderr);
    assert!(
        doctor.contains("in no git work tree: runs work in the root"),
        "{doctor}"
    );
    assert!(env.path("where.txt").exists(), "the agent ran in the root");
    assert!(!env.path("state/worktrees").exists());
}

#[test]
fn a_person_s_dispatch_works_in_a_worktree_as_tick_s_runs_do() {
    let env = TestEnv::initialised();
    env.write_config(
        "dispatch:
  enabled: true
  agent: fake
  worktree: true
  pass_at_run_end: false
agents:
  fake:
    command: [./agent.sh]
    output: text
",
    );
    env.executable("agent.sh", "#!/bin/sh\ncat > /dev/null\npwd > where.txt\n");
    git(env.root(), &["init", "-q", "-b", "main"]);
    git(env.root(), &["config", "user.name", "Test"]);
    git(env.root(), &["config", "user.email", "test@example.com"]);
    git(env.root(), &["add", "-A"]);
    git(env.root(), &["commit", "-q", "-m", "base"]);
    env.add_goal("by-hand");
    env.steward_on_path()
        .args(["dispatch", "by-hand"])
        .assert()
        .success();
    env.settle();
    let run = &env.runs()[0];
    let worktree = run["worktree"]["path"]
        .as_str()
        .unwrap_or_else(|| panic!("{run}"));
    assert!(worktree.starts_with("state/worktrees/run-"), "{run}");
    assert!(!env.path("where.txt").exists(), "the agent ran in the root");
    assert!(env.path(&format!("{worktree}/where.txt")).exists(), "{run}");
}

#[test]
fn an_agents_wait_in_the_judges_words_merges_nothing() {
    let (env, outside) = store("ff", 1);
    add(&env, "sly");
    tick(&env);
    env.settle();
    let goal = env.goal_json("sly");
    assert!(
        goal["waiting"]["reason"]
            .as_str()
            .unwrap_or_default()
            .starts_with("steward to merge branch steward/sly/"),
        "{goal}\n{}",
        agent_log(&outside)
    );
    tick(&env);
    assert_eq!(env.read("shared.txt"), "base\n", "nothing was merged");
    assert_ne!(env.goal_json("sly")["status"], "completed");
    assert!(worktree_of(&env, "sly")["state"].is_null());
}

#[test]
fn a_branch_whose_commits_git_would_read_replaced_is_left_to_a_person() {
    // libgit2 checks the branch; git, which moves the root, would read
    // refs/replace/ instead: an agent that made its innocent commit stand
    // for one that rewrites steward.yaml gets nothing merged.
    let (env, outside) = store("ff", 1);
    add(&env, "alpha");
    judged_in_its_worktree(&env, &outside, "alpha");
    let branch = worktree_of(&env, "alpha")["branch"]
        .as_str()
        .unwrap()
        .to_string();
    let innocent = git(env.root(), &["rev-parse", &branch]).trim().to_string();
    let tree = git(env.root(), &["rev-parse", "main^{tree}"])
        .trim()
        .to_string();
    let parent = git(env.root(), &["rev-parse", &format!("{innocent}^")])
        .trim()
        .to_string();
    let forged = git(
        env.root(),
        &["commit-tree", &tree, "-p", &parent, "-m", "forged"],
    )
    .trim()
    .to_string();
    git(env.root(), &["replace", &innocent, &forged]);
    let before = git(env.root(), &["rev-parse", "main"]);
    let said = tick(&env);
    assert!(said.contains("replacement refs"), "{said}");
    left_to_a_person(&env, "alpha", "replacement refs");
    assert_eq!(
        git(env.root(), &["rev-parse", "main"]),
        before,
        "main did not move"
    );
}

#[test]
fn the_judge_passes_only_committed_work_and_steward_merges_only_what_it_passed() {
    let (env, outside) = store("ff", 2);
    add(&env, "messy");
    add(&env, "late");
    tick(&env);
    env.settle();
    // Uncommitted work in the worktree: refused, nothing marked judged.
    let log = agent_log(&outside);
    assert!(log.contains("changes not committed to branch"), "{log}");
    assert!(log.contains("complete exit 4"), "{log}");
    assert_ne!(env.goal_json("messy")["status"], "verifying");
    assert!(worktree_of(&env, "messy")["judged_commit"].is_null());
    // Judged, then a commit more: the branch moved, a person merges.
    let goal = env.goal_json("late");
    assert_eq!(
        goal["status"],
        "verifying",
        "{goal}\n{log}\nruns: {:?}",
        env.runs()
    );
    let judged = worktree_of(&env, "late")["judged_commit"]
        .as_str()
        .unwrap()
        .to_string();
    let branch = worktree_of(&env, "late")["branch"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(git(env.root(), &["rev-parse", &branch]).trim(), judged);
    let said = tick(&env);
    assert!(said.contains("moved after the judge passed it"), "{said}");
    assert_eq!(env.goal_json("late")["waiting"]["for_person"], "merge");
    assert_eq!(env.read("shared.txt"), "base\n", "nothing merged");
}

#[test]
fn a_merge_that_fails_the_goals_checks_never_reaches_the_root() {
    // The check passes in the run's worktree on a file git ignores; on
    // the commit that would be merged it fails: nothing is merged, and
    // the goal goes back to work.
    let (env, outside) = store("ff", 1);
    env.steward_on_path()
        .args(["add", "ghost", "--title", "ghost"])
        .args(["--criterion", "built.txt exists"])
        .args(["--verify", "file_exists:built.txt@1"])
        .assert()
        .success();
    judged_in_its_worktree(&env, &outside, "ghost");
    let before = git(env.root(), &["rev-parse", "main"]);
    let said = tick(&env);
    assert!(
        said.contains("not merged: the goal's checks fail on the merge"),
        "{said}"
    );
    assert_eq!(
        git(env.root(), &["rev-parse", "main"]),
        before,
        "main did not move"
    );
    assert_eq!(env.read("shared.txt"), "base\n");
    let goal = env.goal_json("ghost");
    assert_ne!(goal["status"], "completed", "{goal}");
    assert!(goal["waiting"].is_null(), "{goal}");
    assert!(worktree_of(&env, "ghost")["judged_commit"].is_null());
    // The worktree made to check the merge is gone.
    let left: Vec<String> = std::fs::read_dir(env.path("state/worktrees"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("verify-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(!git(env.root(), &["branch", "--list", "steward/verify/*"]).contains("verify"));
    // Back to work: the pass may have started its next run.
    env.settle();
}

#[test]
fn a_run_record_the_agent_edited_merges_nothing() {
    // Judged at one commit; the agent commits more and points the run
    // record's judged commit at it: the record's signature no longer
    // holds, and nothing is merged.
    let (env, outside) = store("ff", 1);
    add(&env, "alpha");
    judged_in_its_worktree(&env, &outside, "alpha");
    let run = env
        .runs()
        .into_iter()
        .find(|r| r["goal_label"] == "alpha")
        .unwrap();
    let worktree = env.path(run["worktree"]["path"].as_str().unwrap());
    std::fs::write(worktree.join("more.txt"), "unjudged\n").unwrap();
    git(&worktree, &["add", "more.txt"]);
    git(&worktree, &["commit", "-qm", "after the judge"]);
    let head = git(&worktree, &["rev-parse", "HEAD"]).trim().to_string();
    let record = format!("state/runs/{}.json", run["id"].as_str().unwrap());
    let judged = run["worktree"]["judged_commit"].as_str().unwrap();
    env.write(&record, &env.read(&record).replace(judged, &head));
    let before = git(env.root(), &["rev-parse", "main"]);
    tick(&env);
    assert_eq!(
        git(env.root(), &["rev-parse", "main"]),
        before,
        "main did not move"
    );
    assert!(!env.path("more.txt").exists());
    assert_ne!(env.goal_json("alpha")["status"], "completed");
}
