//! Integration tests of the steward binary, one module per area.

mod add;
mod common;
mod init;
