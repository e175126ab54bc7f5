//! The rules steward applies to goals, as pure functions: data in,
//! decisions out, no files written (steward-design(7) says why each rule
//! is what it is). `watchdog.rs` decides what one pass does to a goal,
//! `assessment.rs` what one assessment does, `ladder.rs` how a run that
//! made no progress is followed up, and `stewardship/` composes the block
//! an agent reads. The engine reads the store, calls them, and writes what
//! they decided through the one write path.

pub mod assessment;
pub mod forecast;
pub mod ladder;
pub mod stewardship;
pub mod watchdog;
