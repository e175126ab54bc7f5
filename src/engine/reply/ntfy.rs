//! Answers by ntfy: a notification's `http` action buttons post the reply
//! to the reply topic; `tick` reads the topic with ntfy's poll API
//! (`GET <server>/<topic>/json?poll=1&since=<id>`, one JSON message a
//! line) from the last message it read, kept under this machine's MAC in
//! `state/cache/ntfy-replies`. A cursor lost or forged only reads messages
//! again: an answer already applied is refused as used, never applied
//! twice.

use std::time::Duration;

use serde::Deserialize;

use super::take::{Channel, Incoming};
use crate::checks::client::{Get, get};
use crate::checks::url::Url;
use crate::config::NtfyReplies;
use crate::context::Context;
use crate::store::key::Domain;

const CURSOR_HEADER: &str = "steward ntfy replies v1";
const TIMEOUT: Duration = Duration::from_secs(10);

/// One line of ntfy's poll answer.
#[derive(Deserialize)]
struct Message {
    id: String,
    event: String,
    #[serde(default)]
    message: String,
}

/// A secret setting's value: as written, or, written `file:PATH`, the
/// first line of that file (`~/` is the person's home): a file under
/// `~/.config/steward/`, which the sandbox recipes keep the agents from
/// reading, where the store's settings are theirs to read.
pub fn secret(ctx: &Context, value: &str) -> Result<String, String> {
    let Some(path) = value.strip_prefix("file:") else {
        return Ok(value.to_string());
    };
    let path = match (path.strip_prefix("~/"), ctx.env.user_home()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => std::path::PathBuf::from(path),
    };
    let text = crate::os::safe_file::read_text(&path, 4096)
        .ok()
        .flatten()
        .ok_or_else(|| {
            format!(
                "{}: cannot read it (a plain file of one line)",
                path.display()
            )
        })?;
    let line = text.lines().next().unwrap_or_default().trim().to_string();
    if line.is_empty() {
        return Err(format!("{}: empty", path.display()));
    }
    Ok(line)
}

/// The answers posted to the reply topic since the last look, and the id
/// of the last message read.
pub fn poll(ctx: &Context, settings: &NtfyReplies) -> Result<(Vec<Incoming>, String), String> {
    let since = last_read(ctx).unwrap_or_else(|| {
        // Nothing read yet: as far back as an answer can still be good.
        let back = ctx.config.reply.expires.as_secs() as i64;
        (ctx.now - chrono::Duration::seconds(back))
            .timestamp()
            .to_string()
    });
    let topic = secret(ctx, &settings.topic)?;
    let text = format!(
        "{}/{}/json?poll=1&since={}",
        settings.server.trim_end_matches('/'),
        topic,
        since
    );
    // The topic is a secret: never in a message that may be mailed.
    let url = Url::parse(&text).map_err(|_| {
        format!(
            "reply.ntfy.server `{}`: not an http(s) URL, with the topic after it",
            settings.server
        )
    })?;
    let token = settings
        .token
        .as_deref()
        .map(|t| secret(ctx, t))
        .transpose()?;
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth
        .as_deref()
        .map(|value| ("Authorization", value))
        .into_iter()
        .collect();
    let response = get(&Get {
        url: &url,
        headers: &headers,
        timeout: TIMEOUT,
        // The server is the person's setting, which may be their own.
        allow_private: true,
        read_body: true,
        send: None,
    })?;
    if response.status != 200 {
        // The topic is a secret: not in a message that may be mailed.
        return Err(format!(
            "{}: the reply topic answered HTTP {}",
            settings.server, response.status
        ));
    }
    let body = String::from_utf8_lossy(&response.body);
    let mut last = since;
    let mut incoming = Vec::new();
    for line in body.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(message) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        last = message.id;
        if message.event == "message" {
            incoming.push(Incoming {
                channel: Channel::Ntfy,
                file: None,
                text: message.message,
            });
        }
    }
    Ok((incoming, last))
}

/// The id of the last message read, as this machine wrote it.
fn last_read(ctx: &Context) -> Option<String> {
    let key = ctx.store.keys.key().ok()?;
    let text = crate::os::safe_file::read_state(&path(ctx))?;
    let mut lines = key.lines_under_mac(Domain::Cache, &text, CURSOR_HEADER)?;
    let id = lines.next()?.to_string();
    (lines.next().is_none() && id.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(id)
}

/// Keeps `id` as the last message read (a failure only reads again).
pub fn remember(ctx: &Context, id: &str) {
    let Ok(key) = ctx.store.keys.key() else {
        return;
    };
    if last_read(ctx).as_deref() == Some(id) {
        return;
    }
    let dir = ctx.store.state_dir.join("cache");
    if ctx.store.check_own_directories().is_ok() && crate::store::cache_dir_ready(&dir) {
        let text = key.with_mac(Domain::Cache, format!("{CURSOR_HEADER}\n{id}\n"));
        let _ = crate::store::atomic::write(&path(ctx), text.as_bytes());
    }
}

fn path(ctx: &Context) -> std::path::PathBuf {
    ctx.store.state_dir.join("cache/ntfy-replies")
}
