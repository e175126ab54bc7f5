//! Issuing: when a notification about a goal that waits for a person is
//! handed to the notifier, each act of the goal's menu becomes a signed
//! capability, and the document gets the ways to answer with it — a link
//! to the git host's new-file page filled in with the reply file
//! (`reply.git_url`), and ntfy action buttons that post the reply to the
//! reply topic (`reply.ntfy`). The capabilities exist only in what the
//! notifier is given: never in the store's files, which the agents read.

use serde_json::{Value, json};

use super::capability::{Act, CONFIG, CONFIG_LABEL, Capability, Reply, menu, new_nonce};
use super::reply_path;
use crate::context::Context;
use crate::model::format_time;

/// ntfy shows three action buttons at most.
const NTFY_ACTIONS: usize = 3;

/// A capability issued, for the event that records it (never with its
/// signature).
pub struct Issued {
    pub capability: Capability,
}

/// Adds the answers to `document` (a notification about a goal); returns
/// what was issued. Nothing when answers are off, when the goal waits for
/// nobody, or without this machine's key.
pub fn offer(ctx: &Context, document: &mut Value) -> Vec<Issued> {
    // An agent's own pass offers none: the notifier it runs is the
    // agent's to read (its PATH, its shell).
    if ctx.actor == crate::model::Actor::Agent {
        return Vec::new();
    }
    let replies = &ctx.config.reply;
    if replies.expires.as_secs() == 0 || (replies.git_url.is_none() && replies.ntfy.is_none()) {
        return Vec::new();
    }
    let Ok(key) = ctx.store.keys.key() else {
        return Vec::new();
    };
    let Some(subject) = subject_of(ctx, document) else {
        return Vec::new();
    };
    let expires = ctx.now + chrono::Duration::seconds(replies.expires.as_secs() as i64);
    let mut answers = Vec::new();
    let mut actions = Vec::new();
    let mut issued = Vec::new();
    for act in subject.acts {
        let capability = Capability {
            v: 1,
            machine: ctx.store.keys.machine().to_string(),
            nonce: new_nonce(),
            act,
            subject: subject.id.clone(),
            label: subject.label.clone(),
            state: subject.state.clone(),
            issued: format_time(ctx.now),
            expires: format_time(expires),
        };
        let reply = Reply {
            note: String::new(),
            sig: capability.sign(key),
            reply: capability.clone(),
        };
        let mut answer = json!({
            "act": act.as_str(),
            "title": act.title(),
            "command": act.command(&subject.label),
            "expires": capability.expires,
        });
        if let Some(template) = &replies.git_url {
            let url = git_link(template, &reply);
            answer["url"] = Value::String(url.clone());
            if replies.ntfy.is_none() && actions.len() < NTFY_ACTIONS {
                actions.push(
                    json!({"action": "view", "label": act.title(), "url": url, "clear": true}),
                );
            }
        }
        if let Some(ntfy) = &replies.ntfy
            && actions.len() < NTFY_ACTIONS
            && let Ok(topic) = super::ntfy::secret(ctx, &ntfy.topic)
        {
            let token = ntfy.token.as_deref().map(|t| super::ntfy::secret(ctx, t));
            let mut action = json!({
                "action": "http",
                "label": act.title(),
                "url": format!("{}/{}", ntfy.server.trim_end_matches('/'), topic),
                "method": "POST",
                "body": serde_json::to_string(&Reply { note: ntfy_note(act), ..reply.clone() }).expect("a reply serializes"),
                "clear": true,
            });
            if let Some(Ok(token)) = token {
                action["headers"] = json!({"Authorization": format!("Bearer {token}")});
            }
            actions.push(action);
        }
        answers.push(answer);
        issued.push(Issued { capability });
    }
    document["replies"] = Value::Array(answers);
    document["ntfy_actions"] = Value::Array(actions);
    issued
}

/// What the answers of a notification act on.
struct Subject {
    id: String,
    label: String,
    /// The SHA-256 of the goal's file, or of what the configuration
    /// files say.
    state: String,
    acts: Vec<Act>,
}

/// The subject of `document` and its acts: the goal it is about, or the
/// configuration files it says are held. `None` when nothing waits for a
/// person.
fn subject_of(ctx: &Context, document: &Value) -> Option<Subject> {
    if document["event"] == "config" {
        let changes = ctx.config_changes.as_ref().filter(|c| !c.held.is_empty())?;
        return Some(Subject {
            id: CONFIG.to_string(),
            label: CONFIG_LABEL.to_string(),
            state: crate::store::key::sha256(changes.said.as_bytes()),
            acts: vec![Act::AcceptConfig],
        });
    }
    let loaded = ctx.store.resolve(document["goal"]["id"].as_str()?).ok()?;
    let mut acts = menu(&loaded.goal);
    if !super::super::undo::undoes_outside_edit(ctx, &loaded) {
        acts.retain(|act| *act != Act::UndoEdit);
    }
    (!acts.is_empty()).then(|| Subject {
        id: loaded.goal.id.clone(),
        label: loaded.goal.label.clone(),
        state: crate::store::key::sha256(loaded.file.text().as_bytes()),
        acts,
    })
}

/// What an ntfy button says for the person: a tap carries no words.
fn ntfy_note(act: Act) -> String {
    match act {
        Act::Unblock | Act::Abandon | Act::Complete => "answered from the phone".to_string(),
        Act::SendBack => {
            "sent back from the phone without a note: look again at what the person would check"
                .to_string()
        }
        Act::ResetBudget | Act::Accept | Act::UndoEdit | Act::AcceptConfig => String::new(),
    }
}

/// `template` with the reply file's path and content filled in, each
/// percent-encoded as a URL's query wants.
fn git_link(template: &str, reply: &Reply) -> String {
    let path = reply_path(&reply.reply.nonce);
    template
        .replace("{path}", &encode(&path))
        .replace("{content}", &encode(&reply.render()))
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_carries_the_path_and_the_file_encoded() {
        assert_eq!(
            encode("state/replies/a b.json"),
            "state%2Freplies%2Fa%20b.json"
        );
        assert_eq!(
            encode("{\"note\": \"\"}\n"),
            "%7B%22note%22%3A%20%22%22%7D%0A"
        );
    }
}
