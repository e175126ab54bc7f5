//! Integration tests of the steward binary, one module per area.

mod add;
mod common;
mod control;
mod init;
mod list_show;
mod update;
