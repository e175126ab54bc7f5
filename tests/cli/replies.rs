//! Answers from the phone by git (steward-guide(7), "ANSWERING FROM THE
//! PHONE"): machine a notifies with links that fill in a reply file; a
//! "phone" clone commits only that file; machine b pulls first and
//! applies it as the person's act, once; and every answer that does not
//! hold is refused, said, and changes nothing.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::common::{TestEnv, git};
use crate::machines::{Machines, identify, machines, on};

/// a's own settings: a notifier that keeps each document, and answers by
/// a git host's new-file page.
const ANSWERING: &str = "notify:\n  command: [sh, -c, 'cat >> told.json; echo >> told.json']\nreply:\n  git_url: \"https://git.example/me/store/new/main?filename={path}&value={content}\"\n";

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// The reply file a git link fills in: its path and content.
fn reply_file(url: &str) -> (String, String) {
    let query = url.split_once('?').unwrap().1;
    let field = |name: &str| {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .map(decode)
            .unwrap()
    };
    (field("filename"), field("value"))
}

/// The answers the last document a's notifier got about `label` offers:
/// (act, the reply file's path, its content).
fn offered(env: &TestEnv, label: &str) -> Vec<(String, String, String)> {
    let told = env.read("told.json");
    let document: serde_json::Value = told
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .rfind(|d| d["goal"]["label"] == label && d["replies"].is_array())
        .unwrap_or_else(|| panic!("no answers offered for {label}: {told}"));
    document["replies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|answer| {
            let (path, content) = reply_file(answer["url"].as_str().unwrap());
            (answer["act"].as_str().unwrap().to_string(), path, content)
        })
        .collect()
}

/// Machine a answering, with goal `g` blocked by its agent.
fn blocked(m: &Machines) {
    m.a.write("state/local/steward.yaml", ANSWERING);
    m.a.steward()
        .args(["config", "accept", "-q"])
        .assert()
        .success();
    m.a.add_goal("g");
    on(&m.a, "a")
        .env("CLAUDECODE", "1")
        .args(["assess", "g", "--summary", "need the prod token", "--stuck"])
        .assert()
        .success();
}

/// [`blocked`], and a told of it with its answers by its own pass.
fn asked(m: &Machines) {
    blocked(m);
    on(&m.a, "a").args(["tick", "-q"]).assert().code(3);
    on(&m.a, "a").arg("sync").assert().success();
}

/// A phone: a clone that commits one file and pushes it.
struct Phone {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Phone {
    fn of(remote: &Path) -> Phone {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("phone");
        git(
            dir.path(),
            &["clone", "-q", remote.to_str().unwrap(), "phone"],
        );
        identify(&root, "phone");
        Phone { _dir: dir, root }
    }

    fn commit(&self, path: &str, content: &str) {
        git(&self.root, &["pull", "-q", "--no-rebase", "origin", "main"]);
        let file = self.root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
        git(&self.root, &["add", path]);
        git(&self.root, &["commit", "-q", "-m", "Create reply"]);
        git(&self.root, &["push", "-q", "origin", "main"]);
    }
}

fn status_of(env: &TestEnv, label: &str) -> String {
    env.goal_json(label)["status"].as_str().unwrap().to_string()
}

#[test]
fn an_answer_from_the_phone_is_applied_once_as_the_person_by_the_machine_that_pulls_it() {
    let m = machines();
    asked(&m);
    let answers = offered(&m.a, "g");
    let acts: Vec<&str> = answers.iter().map(|(act, _, _)| act.as_str()).collect();
    assert_eq!(acts, ["unblock", "abandon"]);
    let (_, path, content) = &answers[0];
    assert!(
        path.starts_with("state/replies/") && path.ends_with(".json"),
        "{path}"
    );
    // The capability is in what the notifier got, never in the store.
    let nonce = path
        .trim_start_matches("state/replies/")
        .trim_end_matches(".json");
    let sig = serde_json::from_str::<serde_json::Value>(content).unwrap()["sig"]
        .as_str()
        .unwrap()
        .to_string();
    let grep = std::process::Command::new("grep")
        .args(["-r", "-l", &sig])
        .arg(m.a.root())
        .output()
        .unwrap();
    let found = String::from_utf8_lossy(&grep.stdout);
    assert!(
        found.lines().all(|f| f.ends_with("told.json")),
        "the signature is in the store: {found}"
    );
    // The person types a note on the phone and commits the file.
    let phone = Phone::of(&m.remote);
    let answer = content.replacen(
        "\"note\": \"\"",
        "\"note\": \"the token is in the vault\"",
        1,
    );
    phone.commit(path, &answer);
    on(&m.b, "b")
        .arg("sync")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "answer from the phone applied: state/replies/",
        ))
        .stdout(predicate::str::contains("unblocked (g by git)"));
    assert_eq!(status_of(&m.b, "g"), "active");
    assert!(!m.b.path(path).exists(), "the reply file is taken away");
    let events = m.b.events();
    let unblocked = events
        .iter()
        .find(|e| e["action"] == "unblocked")
        .expect("an unblocked event");
    assert_eq!(unblocked["actor"], "user");
    assert_eq!(
        unblocked["actor_rule"],
        format!("reply {nonce} by git"),
        "{unblocked}"
    );
    assert_eq!(unblocked["detail"], "the token is in the vault");
    // The remote no longer holds it; a sees the same goal and is told.
    let tree = git(phone.root.as_path(), &["ls-remote", "origin", "main"]);
    assert!(!tree.is_empty());
    on(&m.a, "a").arg("sync").assert().success();
    assert_eq!(status_of(&m.a, "g"), "active");
    assert!(!m.a.path(path).exists());
    on(&m.a, "a").args(["tick", "-q"]).assert().success();
    let told = m.a.read("told.json");
    assert!(
        told.contains("your answer `unblock` was applied: unblocked (g by git)"),
        "{told}"
    );
    // The same answer again: used once.
    phone.commit(path, &answer);
    on(&m.b, "b")
        .arg("sync")
        .assert()
        .success()
        .stderr(predicate::str::contains("it was applied before"));
    assert_eq!(status_of(&m.b, "g"), "active");
    assert_eq!(
        m.b.events()
            .iter()
            .filter(|e| e["action"] == "unblocked")
            .count(),
        1
    );
    on(&m.b, "b")
        .arg("replies")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "unblock g  applied: unblocked (g by git)",
        ))
        .stdout(predicate::str::contains("refused:"));
}

/// The person unblocks `g` at the terminal, its agent asks again, and a
/// tells of it anew: a fresh answer (its file's path and content).
fn fresh(m: &Machines) -> (String, String) {
    on(&m.a, "a").arg("sync").assert().success();
    on(&m.a, "a")
        .args(["unblock", "g", "--note", "try again"])
        .assert()
        .success();
    on(&m.a, "a")
        .env("CLAUDECODE", "1")
        .args([
            "assess",
            "g",
            "--summary",
            "still need the token",
            "--stuck",
        ])
        .assert()
        .success();
    on(&m.a, "a").args(["tick", "-q"]).assert().code(3);
    on(&m.a, "a").arg("sync").assert().success();
    let (_, path, content) = offered(&m.a, "g").remove(0);
    (path, content)
}

#[test]
fn an_answer_that_does_not_hold_is_refused_said_used_up_and_changes_nothing() {
    let m = machines();
    asked(&m);
    let phone = Phone::of(&m.remote);
    let refused = |path: &str, answer: &str, at: Option<&str>, why: &str| {
        phone.commit(path, answer);
        let mut sync = on(&m.b, "b");
        if let Some(at) = at {
            sync.env("STEWARD_NOW", at);
        }
        sync.arg("sync")
            .assert()
            .success()
            .stderr(predicate::str::contains(why));
        assert_eq!(status_of(&m.b, "g"), "blocked", "{why}");
        assert!(!m.b.path(path).exists());
        let name = Path::new(path).file_name().unwrap().to_string_lossy();
        assert!(
            m.b.path(&format!("state/replies/refused/{name}")).exists(),
            "a refused reply is kept for a person"
        );
    };
    // Edited: another act, a later expiry.
    let (_, path, first) = offered(&m.a, "g").remove(0);
    refused(
        &path,
        &first.replacen("\"unblock\"", "\"abandon\"", 1),
        None,
        "its signature does not verify",
    );
    // Refused is used up: the true answer, put back, is refused too.
    refused(&path, &first, None, "it was refused before");
    let (path, content) = fresh(&m);
    refused(
        &path,
        &content.replacen("\"expires\": \"2026-11-2", "\"expires\": \"2027-11-2", 1),
        None,
        "its signature does not verify",
    );
    // From a machine nobody here trusts.
    let (path, content) = fresh(&m);
    refused(
        &path,
        &content.replacen("\"machine\": \"a\"", "\"machine\": \"x\"", 1),
        None,
        "machine x is not one this machine trusts",
    );
    // Not a reply at all.
    refused(
        "state/replies/0123456789abcdef0123456789abcdef.json",
        "{\"note\": \"let me in\"}",
        None,
        "not a reply steward can read",
    );
    // The goal moved on since it was offered.
    let (path, content) = fresh(&m);
    on(&m.b, "b").arg("sync").assert().success();
    on(&m.b, "b")
        .env("CLAUDECODE", "1")
        .args(["update", "g", "--note", "tried again"])
        .assert()
        .success();
    refused(
        &path,
        &content,
        None,
        "changed since the answer was offered",
    );
    // Expired: a day and more later.
    let (path, content) = fresh(&m);
    refused(
        &path,
        &content,
        Some("2026-11-23T05:00:00Z"),
        "it expired at",
    );
    // Each refusal is listed, and said in status.
    on(&m.b, "b")
        .arg("replies")
        .assert()
        .success()
        .stdout(predicate::str::contains("refused:").count(7));
    on(&m.b, "b")
        .args(["status"])
        .env("STEWARD_NOW", "2026-11-23T05:00:00Z")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Answers from the phone refused in the last day (steward replies):",
        ))
        .stdout(predicate::str::contains("unblock g by git: it expired at"));
}

/// What a collaborator pushes as the replies folder (a link leading
/// anywhere) is not read, and nothing outside the store is written.
#[test]
fn a_replies_folder_that_is_a_link_is_not_read() {
    let m = machines();
    asked(&m);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("settings.json"), "the person's\n").unwrap();
    let phone = Phone::of(&m.remote);
    git(
        &phone.root,
        &["pull", "-q", "--no-rebase", "origin", "main"],
    );
    std::os::unix::fs::symlink(outside.path(), phone.root.join("state/replies")).unwrap();
    git(&phone.root, &["add", "state/replies"]);
    git(&phone.root, &["commit", "-q", "-m", "a link"]);
    git(&phone.root, &["push", "-q", "origin", "main"]);
    on(&m.b, "b")
        .arg("sync")
        .assert()
        .stderr(predicate::str::contains(
            "state/replies: a symbolic link: answers by git are not read",
        ));
    assert_eq!(
        std::fs::read_to_string(outside.path().join("settings.json")).unwrap(),
        "the person's\n"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
}

/// A pass an agent runs offers no answers: the notifier it starts is the
/// agent's to read.
#[test]
fn an_agents_own_pass_offers_no_answers() {
    let m = machines();
    blocked(&m);
    on(&m.a, "a")
        .env("CLAUDECODE", "1")
        .args(["tick", "-q"])
        .assert()
        .code(3);
    let told = m.a.read("told.json");
    assert!(told.contains("\"label\":\"g\""), "{told}");
    assert!(!told.contains("\"replies\""), "{told}");
}

/// The loopback ntfy server (`tests/ntfy/server.py`), killed when dropped.
struct Ntfy {
    child: std::process::Child,
    url: String,
}

impl Ntfy {
    fn start(args: &[&str]) -> Ntfy {
        use std::io::BufRead;
        let mut child = std::process::Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ntfy/server.py"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs the loopback ntfy server");
        let mut port = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        Ntfy {
            child,
            url: format!("http://127.0.0.1:{}", port.trim()),
        }
    }

    /// The messages of `topic`, as ntfy's poll API gives them.
    fn poll(&self, topic: &str, token: Option<&str>) -> Vec<serde_json::Value> {
        let mut curl = std::process::Command::new("curl");
        curl.args([
            "-fsS",
            &format!("{}/{topic}/json?poll=1&since=all", self.url),
        ]);
        if let Some(token) = token {
            curl.args(["-H", &format!("Authorization: Bearer {token}")]);
        }
        let out = curl.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// What the ntfy app does when the person taps an `http` button.
    fn tap(action: &serde_json::Value) {
        assert_eq!(action["action"], "http");
        let mut curl = std::process::Command::new("curl");
        curl.args(["-fsS", "-X", action["method"].as_str().unwrap_or("POST")])
            .args(["--data-raw", action["body"].as_str().unwrap()]);
        if let Some(headers) = action["headers"].as_object() {
            for (name, value) in headers {
                curl.args(["-H", &format!("{name}: {}", value.as_str().unwrap())]);
            }
        }
        let out = curl.arg(action["url"].as_str().unwrap()).output().unwrap();
        assert!(out.status.success(), "{out:?}");
    }

    fn post(&self, topic: &str, token: &str, body: &str) {
        let out = std::process::Command::new("curl")
            .args(["-fsS", "--data-raw", body])
            .args(["-H", &format!("Authorization: Bearer {token}")])
            .arg(format!("{}/{topic}", self.url))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
}

impl Drop for Ntfy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn an_ntfy_button_answers_once_and_a_forged_or_replayed_post_is_refused() {
    let ntfy = Ntfy::start(&["--token", "tk_secret", "--protect", "replies-7f3a"]);
    let env = TestEnv::initialised();
    // The secret topic kept where the sandboxes keep agents out.
    let secrets = env.home().join(".config/steward");
    std::fs::create_dir_all(&secrets).unwrap();
    std::fs::write(secrets.join("ntfy-reply-topic"), "replies-7f3a\n").unwrap();
    env.write_config(&format!(
        "notify:\n  command: [sh, -c, 'curl -fsS -d \"{{\\\"topic\\\": \\\"alerts\\\", $STEWARD_NOTIFY_NTFY_FIELDS}}\" {url}/']\nreply:\n  ntfy:\n    server: {url}\n    topic: \"file:~/.config/steward/ntfy-reply-topic\"\n    token: tk_secret\n",
        url = ntfy.url
    ));
    env.add_goal("g");
    env.steward()
        .env("CLAUDECODE", "1")
        .args(["assess", "g", "--summary", "need the prod token", "--stuck"])
        .assert()
        .success();
    env.steward().args(["tick", "-q"]).assert().code(3);
    // What the phone shows: the title, the message, two buttons.
    let alerts = ntfy.poll("alerts", None);
    let alert = alerts.last().expect("the notification was published");
    assert_eq!(alert["title"], "steward blocked");
    assert_eq!(
        alert["message"],
        "steward: g (Goal g) blocked: the agent is stuck: need the prod token"
    );
    let actions = alert["actions"].as_array().unwrap();
    let labels: Vec<&str> = actions
        .iter()
        .map(|a| a["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Unblock with a note", "Abandon"]);
    assert_eq!(actions[0]["url"], format!("{}/replies-7f3a", ntfy.url));
    assert_eq!(actions[0]["headers"]["Authorization"], "Bearer tk_secret");
    // The person taps Unblock; the next pass takes it, as the person.
    Ntfy::tap(&actions[0]);
    env.steward()
        .args(["tick", "-q"])
        .assert()
        .stdout(predicate::str::contains(
            "answer from the phone applied: an answer by ntfy: unblocked (g by ntfy)",
        ));
    assert_eq!(status_of(&env, "g"), "active");
    let unblocked = env
        .events()
        .into_iter()
        .find(|e| e["action"] == "unblocked")
        .unwrap();
    assert_eq!(unblocked["actor"], "user");
    assert!(
        unblocked["actor_rule"]
            .as_str()
            .unwrap()
            .ends_with(" by ntfy"),
        "{unblocked}"
    );
    // Tapped again, and an edited copy posted: neither changes anything.
    Ntfy::tap(&actions[0]);
    let body = actions[1]["body"]
        .as_str()
        .unwrap()
        .replace("\"abandon\"", "\"unblock\"");
    ntfy.post("replies-7f3a", "tk_secret", &body);
    env.steward()
        .args(["tick", "-q"])
        .assert()
        .stderr(predicate::str::contains("it was applied before"))
        .stderr(predicate::str::contains("its signature does not verify"));
    assert_eq!(status_of(&env, "g"), "active");
    assert_eq!(
        env.events()
            .iter()
            .filter(|e| e["action"] == "unblocked")
            .count(),
        1
    );
    // Read again from the start (the cursor gone): nothing applied twice.
    std::fs::remove_file(env.path("state/cache/ntfy-replies")).unwrap();
    let _ = env.steward().args(["tick", "-q"]).assert();
    assert_eq!(
        env.events()
            .iter()
            .filter(|e| e["action"] == "unblocked")
            .count(),
        1
    );
    // Without its token the topic is not read, and the warning does not
    // name the secret topic.
    let config = env
        .read("steward.yaml")
        .replace("    token: tk_secret\n", "");
    env.write_config(&config);
    env.steward()
        .args(["tick", "-q"])
        .assert()
        .stderr(predicate::str::contains(
            "the reply topic answered HTTP 403",
        ))
        .stderr(predicate::str::contains("replies-7f3a").not());
}

/// A goal the judge left to a person (`judge.unchecked: person`) is
/// offered its judgment, sending it back, and abandoning; sent back from
/// the phone, it works again, the next run told the person's note.
#[test]
fn a_judgment_sent_back_from_the_phone_goes_back_to_work_with_the_note() {
    let m = machines();
    m.a.write(
        "state/local/steward.yaml",
        &format!("{ANSWERING}judge:\n  unchecked: person\n"),
    );
    m.a.steward()
        .args(["config", "accept", "-q"])
        .assert()
        .success();
    m.a.add_goal("g");
    on(&m.a, "a")
        .env("CLAUDECODE", "1")
        .args(["complete", "g", "--reason", "done, trust me"])
        .args(["--met", "1", "--met", "2", "--met", "3"])
        .assert()
        .code(4);
    on(&m.a, "a").args(["tick", "-q"]).assert().code(3);
    on(&m.a, "a").arg("sync").assert().success();
    let answers = offered(&m.a, "g");
    let acts: Vec<&str> = answers.iter().map(|(act, _, _)| act.as_str()).collect();
    assert_eq!(acts, ["complete", "send-back", "abandon"]);
    let (_, path, content) = &answers[1];
    let answer = content.replacen(
        "\"note\": \"\"",
        "\"note\": \"the second criterion is not met: the page still 404s\"",
        1,
    );
    Phone::of(&m.remote).commit(path, &answer);
    on(&m.b, "b")
        .arg("sync")
        .assert()
        .success()
        .stdout(predicate::str::contains("sent back to work (g by git)"));
    let goal = m.b.goal_json("g");
    assert_eq!(goal["status"], "active");
    assert!(goal["waiting"].is_null(), "{goal}");
    let sent = m.b.events();
    let sent = sent.iter().find(|e| e["action"] == "sent back").unwrap();
    assert_eq!(sent["actor"], "user");
    // The next run starts from what the person said.
    on(&m.a, "a").arg("sync").assert().success();
    m.a.write(
        "state/local/steward.yaml",
        &format!("{ANSWERING}judge:\n  unchecked: person\ndispatch:\n  enabled: true\n  sandbox: off\n  agent: plain\n  pass_at_run_end: false\nagents:\n  plain:\n    command: [sh, -c, 'exit 0']\n    output: text\n"),
    );
    m.a.steward()
        .args(["config", "accept", "-q"])
        .assert()
        .success();
    on(&m.a, "a").args(["dispatch", "g"]).assert().success();
    m.a.settle();
    let run =
        m.a.runs()
            .pop()
            .expect("a run after the goal was sent back");
    let prompt = m.a.read(&format!(
        "state/runs/{}.prompt",
        run["id"].as_str().unwrap()
    ));
    assert!(
        prompt.contains("and said: \"the second criterion is not met: the page still 404s\""),
        "{prompt}"
    );
}

/// A goal edited outside steward is offered accepting the edit and
/// undoing it. Undone from the phone, only the machine that keeps what
/// steward last wrote (its undo record) takes the answer: another leaves
/// it where it is.
#[test]
fn an_edit_made_outside_steward_is_undone_from_the_phone_by_the_machine_that_offered_it() {
    let m = machines();
    m.a.write("state/local/steward.yaml", ANSWERING);
    m.a.steward()
        .args(["config", "accept", "-q"])
        .assert()
        .success();
    m.a.add_goal("g");
    let written = m.a.read("state/goals/g.md");
    m.a.write(
        "state/goals/g.md",
        &written.replacen("title: Goal g", "title: Goal g, but done already", 1),
    );
    on(&m.a, "a").args(["tick", "-q"]).assert().code(3);
    on(&m.a, "a").arg("sync").assert().success();
    let answers = offered(&m.a, "g");
    let acts: Vec<&str> = answers.iter().map(|(act, _, _)| act.as_str()).collect();
    assert_eq!(acts, ["accept", "undo-edit"]);
    let (_, path, content) = &answers[1];
    Phone::of(&m.remote).commit(path, content);
    // b does not keep what a wrote: it leaves the answer for a.
    on(&m.b, "b").arg("sync").assert().success();
    assert!(m.b.path(path).exists(), "b left the answer");
    // The hold a recorded came with the file: b holds it no second time.
    on(&m.b, "b").args(["tick", "-q"]).assert().code(3);
    assert_eq!(m.b.goal_json("g")["waiting"]["for_person"], "review");
    let recorded = m.b.events();
    let recorded = recorded.iter().filter(|e| e["action"] == "edited_outside");
    assert_eq!(recorded.count(), 1);
    on(&m.a, "a")
        .arg("sync")
        .assert()
        .success()
        .stdout(predicate::str::contains("the edit undone (g by git)"));
    assert!(!m.a.path(path).exists());
    let goal = m.a.goal_json("g");
    assert_eq!(goal["title"], "Goal g");
    assert!(goal["waiting"].is_null(), "{goal}");
    let undone = m.a.events();
    let undone = undone.iter().find(|e| e["action"] == "undone").unwrap();
    assert_eq!(undone["actor"], "user");
    // b gets the goal as a put it back, and the answer is gone.
    on(&m.b, "b").arg("sync").assert().success();
    assert_eq!(m.b.goal_json("g")["title"], "Goal g");
    assert!(!m.b.path(path).exists());
}

/// A configuration file that loosens what a person accepted is told once
/// with the lines that differ, and accepted from the phone on the machine
/// that told of it; an answer offered for files that changed since is
/// refused.
#[test]
fn a_held_configuration_is_accepted_from_the_phone_on_the_machine_that_told_of_it() {
    let m = machines();
    m.a.write("state/local/steward.yaml", ANSWERING);
    m.a.steward()
        .args(["config", "accept", "-q"])
        .assert()
        .success();
    let shared = m.a.read("steward.yaml");
    let loosened = format!("{shared}global_limits:\n  max_active_goals: 50\n");
    m.a.write("steward.yaml", &loosened);
    on(&m.a, "a").args(["tick", "-q"]).assert().success();
    on(&m.a, "a").arg("sync").assert().success();
    let told = m.a.read("told.json");
    let document: serde_json::Value = told
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|d| d["event"] == "config")
        .unwrap_or_else(|| panic!("not told: {told}"));
    assert!(
        document["message"]
            .as_str()
            .unwrap()
            .contains("the configuration files loosen global_limits.max_active_goals"),
        "{document}"
    );
    assert!(
        (document["changes"].as_array().unwrap().iter())
            .any(|l| l.as_str().unwrap().contains("max_active_goals")),
        "{document}"
    );
    assert_eq!(document["replies"][0]["act"], "accept-config");
    // Told once.
    on(&m.a, "a").args(["tick", "-q"]).assert().success();
    let again = m.a.read("told.json");
    assert_eq!(again.matches("\"event\":\"config\"").count(), 1, "{again}");
    let (path, content) = reply_file(document["replies"][0]["url"].as_str().unwrap());
    let phone = Phone::of(&m.remote);
    phone.commit(&path, &content);
    // b did not tell of it, and leaves it for a.
    on(&m.b, "b").arg("sync").assert().success();
    assert!(m.b.path(&path).exists());
    on(&m.a, "a")
        .arg("sync")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "the configuration accepted (configuration by git)",
        ));
    // In force now, and no longer said to be held.
    m.a.steward()
        .arg("config")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "global_limits.max_active_goals = 50 ",
        ))
        .stderr(predicate::str::contains("loosen").not());
    let accepted = m.a.events();
    let accepted = accepted
        .iter()
        .find(|e| e["action"] == "config_accepted")
        .unwrap();
    assert_eq!(accepted["actor"], "user");
    // Loosened again, told again; the files change before the answer
    // comes back: refused.
    m.a.write(
        "steward.yaml",
        &format!("{shared}global_limits:\n  max_active_goals: 60\n"),
    );
    on(&m.a, "a").args(["tick", "-q"]).assert().success();
    on(&m.a, "a").arg("sync").assert().success();
    let told = m.a.read("told.json");
    let document: serde_json::Value = told
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .rfind(|d| d["event"] == "config")
        .unwrap();
    let url = document["replies"][0]["url"].as_str().unwrap().to_string();
    m.a.write(
        "steward.yaml",
        &format!("{shared}global_limits:\n  max_active_goals: 900\n"),
    );
    let (path, content) = reply_file(&url);
    phone.commit(&path, &content);
    on(&m.a, "a")
        .arg("sync")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "the configuration files changed since the answer was offered",
        ));
}
