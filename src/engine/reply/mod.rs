//! Answers from the phone (steward-guide(7), "ANSWERING FROM THE PHONE";
//! steward-design(7), "Answers from the phone"): a notification that asks
//! for a person carries signed, single-use capabilities for the acts that
//! fit it ([`offer`]), and the answers come back through what already
//! exists — a file committed to the store's git remote, a message on an
//! ntfy topic — to be verified and applied by the next `sync` or `tick` on
//! any machine of the store ([`take`]).

pub mod capability;
mod ntfy;
mod offer;
mod take;

use std::path::PathBuf;

pub use offer::{Issued, offer};
pub use take::Taken;

use crate::context::Context;

/// Where answers by git arrive.
pub fn replies_dir(ctx: &Context) -> PathBuf {
    ctx.store.state_dir.join("replies")
}

/// The reply file of `nonce`, relative to the store's root.
pub fn reply_path(nonce: &str) -> String {
    format!("state/replies/{nonce}.json")
}

/// Takes every answer that came back: the reply files a pull brought,
/// then what the ntfy reply topic holds since the last look.
pub fn take_answers(ctx: &Context) -> Taken {
    let mut warnings = Vec::new();
    let mut incoming = take::from_git(ctx).unwrap_or_else(|why| {
        warnings.push(why);
        Vec::new()
    });
    let mut seen = None;
    if let Some(settings) = &ctx.config.reply.ntfy {
        match ntfy::poll(ctx, settings) {
            Ok((messages, cursor)) => {
                incoming.extend(messages);
                seen = Some(cursor);
            }
            Err(why) => warnings.push(format!("reply.ntfy: {why}")),
        }
    }
    let mut taken = take::take(ctx, incoming);
    if let Some(cursor) = seen {
        ntfy::remember(ctx, &cursor);
    }
    taken.warnings.extend(warnings);
    taken
}

/// What became of an answer steward offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// Still good: nobody answered yet.
    Open,
    Applied(String),
    Refused(String),
    Expired,
}

/// An answer offered, as `steward replies` lists it.
#[derive(Debug, Clone)]
pub struct Listed {
    pub nonce: String,
    pub act: String,
    pub label: String,
    pub issued: String,
    pub expires: String,
    pub fate: Fate,
}

/// What `steward replies` lists.
pub struct Listing {
    /// The answers offered, oldest first, with what became of each.
    pub offered: Vec<Listed>,
    /// Answers refused that no offer explains (a forged one, a second
    /// one, another machine's), as (when, what).
    pub strays: Vec<(String, String)>,
}

/// The answers offered and taken since `since`.
pub fn list(ctx: &Context, since: &str) -> crate::error::Result<Listing> {
    let now = crate::model::format_time(ctx.now);
    let mut listed: Vec<Listed> = Vec::new();
    let mut strays = Vec::new();
    for event in ctx.store.log().read_since_naming(since, Some("reply_"))? {
        let mut words = event.detail.splitn(4, ' ');
        let (nonce, act, label) = (words.next(), words.next(), words.next());
        let what = (event.detail.split_once(": ")).map_or("", |(_, what)| what);
        match event.action.as_str() {
            "reply_issued" => {
                let expires = words.next().and_then(|rest| rest.strip_prefix("until "));
                if let (Some(nonce), Some(act), Some(label), Some(expires)) =
                    (nonce, act, label, expires)
                {
                    listed.push(Listed {
                        nonce: nonce.to_string(),
                        act: act.to_string(),
                        label: label.to_string(),
                        issued: event.ts.clone(),
                        expires: expires.to_string(),
                        fate: if now.as_str() > expires {
                            Fate::Expired
                        } else {
                            Fate::Open
                        },
                    });
                }
            }
            "reply_applied" | "reply_refused" => {
                let fate = if event.action == "reply_applied" {
                    Fate::Applied(what.to_string())
                } else {
                    Fate::Refused(what.to_string())
                };
                let offered = listed.iter_mut().find(|l| Some(l.nonce.as_str()) == nonce);
                match offered {
                    Some(offered) if matches!(offered.fate, Fate::Open | Fate::Expired) => {
                        offered.fate = fate;
                    }
                    // A second answer with a used nonce, a forged one, or
                    // one another machine offered.
                    _ => strays.push((event.ts.clone(), event.detail.clone())),
                }
            }
            _ => {}
        }
    }
    Ok(Listing {
        offered: listed,
        strays,
    })
}
