//! Who may do what (steward-design(7), "An agent is judged, never the judge").
//! Acts that would let an agent complete, unblock or redefine its own goal
//! are a person's; an agent asking for one is refused (exit 4) with the
//! command the person should run.

use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::Actor;

/// Refuses unless a person is acting.
pub fn person_only(ctx: &Context, what: &str, person_runs: impl FnOnce() -> String) -> Result<()> {
    if ctx.actor == Actor::User {
        return Ok(());
    }
    Err(Error::PersonOnly {
        what: what.to_string(),
        person_runs: person_runs(),
    })
}
