//! The documents' shell blocks run as written.
//!
//! Every `sh` code block in `README.md` and in the pages under `man/`
//! (`man/*.md`) either runs in a test here, found by the heading it is
//! under (`RUN_HERE` lists those headings and how many blocks each holds),
//! or says what it needs that a test cannot have (a real agent, cron, a
//! network, root) in an HTML comment on the line right before its opening
//! fence, which Markdown viewers and the man page converter do not show:
//!
//! ```text
//! <!-- needs: a git remote both machines can push to -->
//! ```
//!
//! `every_shell_block_runs_here_or_says_what_it_needs` holds the documents
//! to that. A block runs in a temporary store with the built `steward` on
//! `PATH`, and stand-ins for the outside programs it calls (an agent CLI,
//! `curl`) put before it.

use std::path::{Path, PathBuf};

use crate::common::TestEnv;

/// The sections whose `sh` blocks the tests below run: document, heading,
/// and how many unmarked `sh` blocks the section holds. A block added to
/// one of them, or anywhere else without a `needs:` line, fails
/// `every_shell_block_runs_here_or_says_what_it_needs` until a test runs it.
const RUN_HERE: &[(&str, &str, usize)] = &[
    ("README.md", "## Quick start", 1),
    ("README.md", "## Install", 1),
    ("README.md", "## Your first night", 5),
    ("man/steward-guide.7.md", "### A plain shell loop", 1),
    (
        "man/steward-guide.7.md",
        "## CLAUDE CODE AND CODEX: HOOKS AND AN MCP SERVER",
        1,
    ),
    (
        "man/steward-guide.7.md",
        "## NOTHING LOST BETWEEN SESSIONS",
        1,
    ),
    ("man/steward-guide.7.md", "### A page to look at", 1),
    ("man/steward-design.7.md", "### Threat model", 2),
];

/// A fenced code block of a document.
struct Block {
    /// The headings it is under, outermost first, as written
    /// (`## THE AGENT'S LOOP`, `### A plain shell loop`).
    headings: Vec<String>,
    /// What follows the opening fence (`sh`, `yaml`, empty).
    lang: String,
    text: String,
    /// What it needs that a test cannot have: the `<!-- needs: … -->`
    /// line before it.
    needs: Option<String>,
    /// Where it opens, from 1.
    line: usize,
}

fn read(doc: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(doc);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The fenced blocks of `doc` (a path from the repository's root), with
/// the headings above them. Fences may be indented (in a list item); the
/// indent is taken off their lines.
fn blocks(doc: &str) -> Vec<Block> {
    let text = read(doc);
    let mut blocks = Vec::new();
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut open: Option<(usize, Block)> = None;
    let mut last_line = "";
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some((indent, block)) = open.as_mut() {
            if trimmed.trim_end() == "```" {
                blocks.push(open.take().unwrap().1);
                last_line = line;
            } else {
                let strip = line.len() - trimmed.len();
                block.text.push_str(&line[strip.min(*indent)..]);
                block.text.push('\n');
            }
            continue;
        }
        if let Some(lang) = trimmed.strip_prefix("```") {
            let needs = last_line
                .trim()
                .strip_prefix("<!-- needs:")
                .and_then(|rest| rest.strip_suffix("-->"))
                .map(|what| what.trim().to_string());
            open = Some((
                line.len() - trimmed.len(),
                Block {
                    headings: headings.iter().map(|(_, h)| h.clone()).collect(),
                    lang: lang.trim().to_string(),
                    text: String::new(),
                    needs,
                    line: n + 1,
                },
            ));
            continue;
        }
        let level = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&level) && line[level..].starts_with(' ') {
            headings.retain(|(l, _)| *l < level);
            headings.push((level, line.trim_end().to_string()));
        }
        if !line.trim().is_empty() {
            last_line = line;
        }
    }
    assert!(open.is_none(), "{doc}: a code block is never closed");
    blocks
}

/// The `sh` blocks under `heading` in `doc` that a test can run.
fn runnable(doc: &str, heading: &str) -> Vec<String> {
    let all = blocks(doc);
    assert!(
        read(doc).lines().any(|l| l.trim_end() == heading),
        "no {heading:?} in {doc}"
    );
    all.into_iter()
        .filter(|b| b.lang == "sh" && b.needs.is_none())
        .filter(|b| b.headings.iter().any(|h| h == heading))
        .map(|b| b.text)
        .collect()
}

/// The first runnable ```sh block under `heading` in `doc`.
fn snippet(doc: &str, heading: &str) -> String {
    runnable(doc, heading)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no runnable sh block under {heading:?} in {doc}"))
}

/// The documents whose shell blocks are held to the rule.
fn documents() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec!["README.md".to_string()];
    let mut pages: Vec<String> = std::fs::read_dir(root.join("man"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("man/{name}"))
        .collect();
    pages.sort();
    assert!(!pages.is_empty(), "no man/*.md pages");
    docs.extend(pages);
    docs
}

#[test]
fn every_shell_block_runs_here_or_says_what_it_needs() {
    let mut unaccounted = Vec::new();
    for doc in documents() {
        for block in blocks(&doc) {
            if block.lang != "sh" {
                continue;
            }
            if let Some(needs) = &block.needs {
                assert!(
                    !needs.is_empty(),
                    "{doc}:{}: `needs:` names nothing",
                    block.line
                );
                continue;
            }
            let tested = RUN_HERE
                .iter()
                .any(|(d, heading, _)| *d == doc && block.headings.iter().any(|h| h == heading));
            if !tested {
                unaccounted.push(format!("{doc}:{}", block.line));
            }
        }
    }
    assert!(
        unaccounted.is_empty(),
        "sh blocks no test runs and no `<!-- needs: … -->` line excuses: {unaccounted:?}"
    );
    for (doc, heading, count) in RUN_HERE {
        assert_eq!(
            runnable(doc, heading).len(),
            *count,
            "{doc}, {heading}: the runnable sh blocks changed; run the new ones in a test"
        );
    }
}

/// The folder of the built `steward`.
fn steward_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_steward"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Writes executable stand-ins into `bin/` of the root.
fn stand_ins(env: &TestEnv, scripts: &[(&str, &str)]) {
    for (name, text) in scripts {
        env.executable(&format!("bin/{name}"), text);
    }
}

/// Runs `script` with `sh -e` in the root, the stand-ins in `bin/` and the
/// built `steward` on `PATH`, at time `now`; fails unless it succeeds.
fn run_block(env: &TestEnv, script: &str, now: &str, vars: &[(&str, &Path)]) -> String {
    let output = env
        .program("sh")
        .args(["-e", "-c", script])
        .env(
            "PATH",
            format!(
                "{}:{}:/usr/bin:/bin",
                env.path("bin").display(),
                steward_dir().display()
            ),
        )
        .env("STEWARD_NOW", now)
        .envs(vars.iter().map(|(k, v)| (*k, *v)))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{script}\nexited with {}\nstdout:\n{stdout}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A stand-in for an agent CLI: it does the work and asks the judge.
const FAKE_AGENT: &str = "#!/bin/sh\necho called >> agent-calls\ncase \"$2\" in *'steward --actor agent complete deploy-api'*) steward --actor agent complete deploy-api --reason 'done by the fake agent' --met 1 --met 2 ;; esac\n";

/// An agent that cannot go on without a person.
const STUCK_AGENT: &str = "#!/bin/sh\necho called >> agent-calls\nsteward --actor agent assess deploy-api --summary 'need the prod token' --stuck\n";

/// Runs the guide's loop with `agent` as `my-agent-cli`; its exit status
/// and stderr.
fn run_loop(env: &TestEnv, agent: &str) -> std::process::Output {
    env.steward()
        .args([
            "add",
            "deploy-api",
            "--title",
            "T",
            "--criterion",
            "a",
            "--criterion",
            "b",
        ])
        .assert()
        .success();
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = bin.join("my-agent-cli");
    std::fs::write(&path, agent).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let script = snippet("man/steward-guide.7.md", "### A plain shell loop");
    std::process::Command::new("timeout")
        .args(["20", "sh", "-c", &script])
        .current_dir(env.root())
        .env_clear()
        .env(
            "PATH",
            format!(
                "{}:{}:/usr/bin:/bin",
                bin.display(),
                steward_dir().display()
            ),
        )
        .env("STEWARD_NOW", "2026-11-21T04:00:00Z")
        // The machine key the store was sealed with: another home's key
        // would find every goal sealed by a key not its own.
        .env("HOME", env.home())
        .output()
        .unwrap()
}

fn agent_calls(env: &TestEnv) -> usize {
    std::fs::read_to_string(env.path("agent-calls"))
        .unwrap_or_default()
        .lines()
        .count()
}

#[test]
fn the_shell_loop_runs_until_the_goal_is_done() {
    let env = TestEnv::initialised();
    let output = run_loop(&env, FAKE_AGENT);
    assert!(
        output.status.success(),
        "the loop exited with {}",
        output.status
    );
    assert_eq!(env.goal_json("deploy-api")["status"], "completed");
    assert_eq!(agent_calls(&env), 1);
}

#[test]
fn the_shell_loop_stops_and_tells_the_person_when_a_goal_blocks() {
    let env = TestEnv::initialised();
    let output = run_loop(&env, STUCK_AGENT);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert_eq!(env.goal_json("deploy-api")["status"], "blocked");
    assert_eq!(agent_calls(&env), 1, "the agent is not called again");
    let told = String::from_utf8_lossy(&output.stderr);
    assert!(
        told.contains("deploy-api is blocked (agent)")
            && told.contains("steward unblock deploy-api"),
        "{told}"
    );
}

/// The quick start, once `cargo install` has put steward on `PATH`.
#[test]
fn the_quick_start_registers_a_goal_and_prints_its_block() {
    let env = TestEnv::new();
    let block = snippet("README.md", "## Quick start");
    let goal = block
        .trim_end()
        .strip_prefix("cargo install --locked --path . && ")
        .unwrap_or_else(|| panic!("the quick start no longer starts by installing: {block}"));
    std::fs::create_dir_all(env.path("tmp")).unwrap();
    let tmp = env.path("tmp");
    let out = run_block(&env, goal, crate::common::NOW, &[("TMPDIR", &tmp)]);
    assert!(
        out.contains("<goal-stewardship goal=\"ship-docs\">"),
        "{out}"
    );
}

/// Claude Code stand-in for the first night: it publishes the docs, asks
/// the judge, and reports what it cost as `claude -p` does.
const NIGHT_AGENT: &str = r#"#!/bin/sh
cat > /dev/null
echo "claude $*" >> agent.log
mkdir -p site && echo '<h1>docs</h1>' > site/index.html
steward --actor agent complete ship-docs --reason "site/index.html is built, no warnings" --met 1 >> agent.log 2>&1
echo '{"type":"result","subtype":"success","is_error":false,"result":"published","session_id":"s-1","total_cost_usd":0.42}'
"#;

/// `curl` as ntfy would see it: each argument on a line.
const CURL: &str = "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> curl.log\n";

/// The README's first night, step by step: a store and a goal, the hooks,
/// dispatch and a notifier, a pass by hand, a pass from cron, the morning.
/// The agent (`claude`) and `curl` are stand-ins; cron is not run.
#[test]
fn the_first_night_ends_with_the_goal_judged_and_the_person_told() {
    let env = TestEnv::new();
    stand_ins(&env, &[("claude", NIGHT_AGENT), ("curl", CURL)]);
    let steps = runnable("README.md", "## Your first night");
    let [store, hooks, dispatch, tick, morning] = steps.as_slice() else {
        panic!("the first night has {} steps: {steps:?}", steps.len());
    };
    let evening = "2026-11-21T22:00:00Z";

    run_block(&env, store, evening, &[]);
    assert_eq!(env.goal_json("ship-docs")["status"], "active");

    run_block(&env, hooks, evening, &[]);
    let settings = env.read(".claude/settings.json");
    assert!(settings.contains("steward hook claude-code"), "{settings}");

    let accepted = run_block(&env, dispatch, evening, &[]);
    assert!(accepted.contains("notify.command"), "{accepted}");

    let first = run_block(&env, tick, evening, &[]);
    assert!(first.contains("ship-docs: dispatched"), "{first}");
    env.settle();
    let agent = env.read("agent.log");
    assert!(agent.starts_with("claude "), "{agent}");
    assert_eq!(env.goal_json("ship-docs")["status"], "completed", "{agent}");

    // Cron's next pass tells the person, and prints nothing to mail.
    let cron = run_block(&env, "steward tick -q", "2026-11-21T22:05:00Z", &[]);
    assert_eq!(cron, "");
    let told = env.read("curl.log");
    assert!(told.contains("Title: steward completed"), "{told}");
    assert!(
        told.contains("ship-docs (Publish the docs) completed"),
        "{told}"
    );
    assert!(
        told.ends_with("https://ntfy.sh/my-steward-topic\n"),
        "{told}"
    );

    let read = run_block(&env, morning, "2026-11-22T07:00:00Z", &[]);
    assert!(read.contains("completed  ship-docs"), "{read}");
    assert!(read.contains("on the agent's word"), "{read}");
    assert!(read.contains("$0.42"), "{read}");
}

/// The guide's three `hook install` lines, into a project and a
/// `$CODEX_HOME` of the test's own.
#[test]
fn the_hook_install_lines_wire_both_clients_and_the_mcp_server() {
    let env = TestEnv::initialised();
    let codex_home = env.path("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    let block = snippet(
        "man/steward-guide.7.md",
        "## CLAUDE CODE AND CODEX: HOOKS AND AN MCP SERVER",
    );
    run_block(
        &env,
        &block,
        crate::common::NOW,
        &[("CODEX_HOME", &codex_home)],
    );
    assert!(
        env.read(".claude/settings.json")
            .contains("steward hook claude-code")
    );
    assert!(
        env.read("codex-home/hooks.json")
            .contains("steward hook codex")
    );
    assert!(env.read(".mcp.json").contains("\"steward\""));
}

/// The threat model's two `--sandbox` installs.
#[test]
fn the_sandbox_installs_write_the_clients_rules() {
    let env = TestEnv::initialised();
    let codex_home = env.path("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    let blocks = runnable("man/steward-design.7.md", "### Threat model");
    for block in &blocks {
        run_block(
            &env,
            block,
            crate::common::NOW,
            &[("CODEX_HOME", &codex_home)],
        );
    }
    let settings = env.read(".claude/settings.json");
    assert!(settings.contains("failIfUnavailable"), "{settings}");
    assert!(env.path("codex-home/rules/steward.rules").is_file());
}

/// The guide's handoff, as options and then as JSON.
#[test]
fn the_handoff_lines_record_what_a_session_leaves() {
    let env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "api",
            "--title",
            "The API",
            "--criterion",
            "It answers",
        ])
        .assert()
        .success();
    env.write(
        "handoff.json",
        r#"{"summary": "health route merged", "next_actions": ["deploy"]}"#,
    );
    let block = snippet("man/steward-guide.7.md", "## NOTHING LOST BETWEEN SESSIONS");
    run_block(&env, &block, crate::common::NOW, &[]);
    let handoff = &env.goal_json("api")["handoff"];
    assert_eq!(handoff["summary"], "health route merged", "{handoff}");
    assert_eq!(handoff["by"], "agent", "{handoff}");
    let handoffs = env
        .events()
        .iter()
        .filter(|e| e["action"] == "handoff")
        .count();
    assert_eq!(handoffs, 2);
}

/// The guide's page for a phone.
#[test]
fn the_report_line_writes_a_page() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    let block = snippet("man/steward-guide.7.md", "### A page to look at");
    run_block(&env, &block, crate::common::NOW, &[]);
    assert!(env.read("site/index.html").contains("<html"));
}

#[test]
fn the_install_lines_work_in_a_fresh_home() {
    let env = TestEnv::initialised();
    let home = tempfile::tempdir().unwrap();
    let block = snippet("README.md", "## Install");
    run_block(&env, &block, crate::common::NOW, &[("HOME", home.path())]);
    for written in [
        ".cargo/share/man/man1/steward-add.1",
        ".local/share/bash-completion/completions/steward",
        ".zfunc/_steward",
        ".config/fish/completions/steward.fish",
    ] {
        assert!(home.path().join(written).is_file(), "{written}");
    }
}

/// Every setting `steward config` knows is in the reference's table.
#[test]
fn the_configuration_table_lists_every_setting() {
    let reference = read("man/steward-reference.5.md");
    let table = &reference[reference.find("| key | default | meaning |").unwrap()..];
    let table = &table[..table.find("\n\n").unwrap()];
    let env = TestEnv::initialised();
    let output = env.steward().arg("config").output().unwrap();
    let mut missing = Vec::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let Some((key, _)) = line.split_once(" = ") else {
            continue;
        };
        let key = key.trim();
        if key.starts_with("agents.") {
            continue;
        }
        if !table.contains(&format!("`{key}`")) {
            missing.push(key.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "not in steward-reference(5)'s table: {missing:?}"
    );
}
