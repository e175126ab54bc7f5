//! steward keeps durable goals for autonomous agents in plain text.
//!
//! The binary is a thin wrapper around [`run`]; everything here can be
//! called from tests.

pub mod agents;
pub mod checks;
pub mod config;
pub mod context;
pub mod doors;
pub mod engine;
pub mod error;
pub mod exit;
pub(crate) mod fast_yaml;
pub mod model;
pub mod os;
pub mod rules;
pub mod store;
pub mod text;
pub(crate) mod yaml_locate;

use std::ffi::OsString;
use std::io::Write;

use crate::context::Environment;
use crate::exit::ExitCode;

/// Runs steward with `args` (the program name first) in the real process
/// environment, printing to stdout and stderr. Returns the exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    exit_code(args).code()
}

fn exit_code(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match doors::cli::parse(args.into_iter().collect()) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() {
                ExitCode::Usage
            } else {
                ExitCode::Success
            };
        }
    };
    let env = match Environment::capture() {
        Ok(env) => env,
        Err(err) => {
            eprintln!("steward: {err}");
            return err.exit_code();
        }
    };
    let mut out = doors::cli::Output::default();
    let result = doors::cli::run(cli, env, &mut out);
    for line in &out.stderr {
        eprintln!("steward: {line}");
    }
    match result {
        Ok(code) => {
            let code = if out.failed { ExitCode::Failure } else { code };
            let stream_error = out.finish_stream();
            let mut stdout = std::io::stdout().lock();
            let written = match stream_error {
                Some(err) => Err(err),
                None => stdout
                    .write_all(out.stdout.as_bytes())
                    .and_then(|()| stdout.flush()),
            };
            match written {
                Ok(()) => code,
                // The reader went away (`steward list | head`): not an error.
                Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => code,
                Err(err) => {
                    eprintln!("steward: cannot write output: {err}");
                    ExitCode::Failure
                }
            }
        }
        Err(err) => {
            eprintln!(
                "steward: {}",
                doors::cli::clean(&doors::cli::message(&err), false)
            );
            if let Some(hint) = doors::cli::hint(&err) {
                eprintln!("steward: {hint}");
            }
            err.exit_code()
        }
    }
}
