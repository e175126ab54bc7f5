//! The front doors: where input comes into steward and answers go out.
//! `cli/` is the command line, `mcp.rs` the MCP server on stdio, `hooks.rs`
//! the agent harnesses' hooks. Each turns its own input into a typed
//! request for an engine verb, names errors in its own words (flags,
//! parameters, hook fields) and renders the outcome; none holds a rule of
//! its own, and nothing below imports them (`tests/cli/layers.rs`).

pub mod cli;
pub mod hooks;
pub mod mcp;
