//! `steward mcp`: the MCP server on stdio (steward-guide(7), "The MCP server").

use crate::exit::ExitCode;
use clap::Args;

use crate::context::{Environment, GlobalOptions};
use crate::error::Result;

/// Serve the Model Context Protocol on stdio: the agent commands as tools,
/// called as actor agent (register it with `steward hook install mcp`)
#[derive(Debug, Args)]
pub struct McpArgs {}

pub fn run(options: GlobalOptions, env: Environment, _args: McpArgs) -> Result<ExitCode> {
    crate::doors::mcp::serve(options, env)?;
    Ok(ExitCode::Success)
}
