#!/usr/bin/env python3
"""A real MCP client for steward's tests: the official Python SDK (`mcp`).

    client.py CALLS-JSON -- COMMAND [ARGS...]

Starts COMMAND as a stdio MCP server, initializes, lists the tools, makes
each call in CALLS-JSON (a list of [name, arguments]) and prints one JSON
object: {"server": ..., "tools": [...], "calls": [{"name", "result"} or
{"name", "error": {"code", "message"}}]}. Exit 0 when the session ran to
the end, 1 otherwise, 77 when the `mcp` package is missing.
"""

import json
import os
import sys

try:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared import exceptions
except ImportError:
    print("the Python `mcp` package is not installed (pip install mcp)", file=sys.stderr)
    sys.exit(77)


# `MCPError` in the SDK's 2.x, `McpError` in 1.x.
ERROR = getattr(exceptions, "MCPError", None) or getattr(exceptions, "McpError")


def plain(obj):
    return obj.model_dump(mode="json", by_alias=True, exclude_none=True)


async def session(calls, command):
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    out = {"calls": []}
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                out["server"] = plain(await client.initialize())
                out["tools"] = plain(await client.list_tools())["tools"]
                for name, arguments in calls:
                    try:
                        result = plain(await client.call_tool(name, arguments))
                        out["calls"].append({"name": name, "result": result})
                    except ERROR as err:
                        error = {"code": err.error.code, "message": err.error.message}
                        out["calls"].append({"name": name, "error": error})
    return out


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    calls = json.loads(sys.argv[1])
    print(json.dumps(anyio.run(session, calls, sys.argv[3:]), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
