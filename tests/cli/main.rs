//! Integration tests of the steward binary, one module per area.

mod add;
mod authority;
mod common;
mod control;
mod dispatch;
mod doctor_config;
mod edit;
mod generated;
mod git;
mod hardening;
mod hooks;
mod hostile;
mod init;
mod list_show;
mod lock;
mod mcp;
mod mirror_audit;
mod notify;
mod readme;
mod robustness;
mod roundtrip;
mod stewardship;
mod tasks;
mod tick;
mod update;
mod worked_example;
