//! Integration tests of the steward binary, one module per area.

// The tests fix the clock (`STEWARD_NOW`) and inject faults: hooks only a
// build with the `testing` feature honours.
#[cfg(not(feature = "testing"))]
compile_error!("the tests need the test hooks: run `cargo test --locked --features testing`");

mod add;
mod authority;
mod common;
mod config_trust;
mod control;
mod dispatch;
mod doctor_config;
mod edit;
mod fleet;
mod forecast;
mod generated;
mod git;
mod handoffs;
mod hardening;
mod hooks;
mod hostile;
mod init;
mod install;
mod judge;
mod layers;
mod list_show;
mod lock;
mod machines;
mod mcp;
mod mirror_audit;
mod mutation;
mod notify;
mod plans;
mod readme;
mod replies;
mod report;
mod review;
mod robustness;
mod roundtrip;
mod schedule;
mod stalls;
mod stewardship;
mod subagents;
mod tasks;
mod tick;
mod typos;
mod update;
mod wake;
mod worked_example;
mod worktrees;
