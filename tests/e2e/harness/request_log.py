#!/usr/bin/env python3
"""Read the scripted model's request log (model.py --log): what reached the model.

    request_log.py summary LOG                  one line per request: its path,
                                                what was answered, the tools offered
    request_log.py text LOG [--seq N]           everything the model was shown in
                                                request N (default: the first
                                                scripted one), role by role
    request_log.py contains LOG TEXT [--seq N]  exit 0 when TEXT was shown to the
                                                model (in request N, or in any
                                                scripted request) and say where;
                                                exit 1 when not
    request_log.py tool-results LOG             every tool result the client sent
                                                back, once each

Both request shapes are read: Anthropic Messages (Claude Code) and OpenAI
Responses (Codex). Where steward's text shows up:

  Claude Code  a hook's output in a "system" message inside "messages"; a tool's
               result as a tool_result block in the next user message.
  Codex        a hook's output as a "developer" message in "input"; a tool's
               result as a function_call_output item.

The checks of the end-to-end scripts import this module for the same
answers: results_text(LOG) and seen(LOG, TEXT).
"""

import argparse
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def scripted(entries):
    """The requests answered from the script (not side requests, not count_tokens)."""
    return [e for e in entries if (e.get("answer") or {}).get("kind") in ("scripted", "exhausted")]


def content_text(content):
    """One message's content as plain text, tool calls and results tagged."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("text", "input_text", "output_text"):
            parts.append(block.get("text", ""))
        elif kind == "tool_use":
            parts.append("[tool_use %s %s] %s" % (block.get("name"), block.get("id"), json.dumps(block.get("input"))))
        elif kind == "tool_result":
            parts.append("[tool_result %s%s] %s" % (block.get("tool_use_id"), " ERROR" if block.get("is_error") else "",
                                                   content_text(block.get("content"))))
        else:
            parts.append("[%s]" % kind)
    return "\n".join(parts)


def output_text(output):
    """A Responses tool output (a string, a list of content parts, or an object) as text."""
    if isinstance(output, dict):
        return output.get("content") if isinstance(output.get("content"), str) else json.dumps(output)
    if isinstance(output, list):
        return content_text(output)
    return output if isinstance(output, str) else json.dumps(output)


def segments(body):
    """(where, role, text) for everything the model was shown in one request."""
    found = []
    if body.get("system") is not None:
        found.append(("system", "system", content_text(body["system"])))
    if body.get("instructions"):
        found.append(("instructions", "system", body["instructions"]))
    for i, message in enumerate(body.get("messages") or []):
        found.append(("messages[%d]" % i, message.get("role"), content_text(message.get("content"))))
    items = body.get("input")
    if isinstance(items, str):
        found.append(("input", "user", items))
        items = []
    for i, item in enumerate(items or []):
        kind, where = item.get("type", "message"), "input[%d]" % i
        if kind == "message":
            found.append((where, item.get("role"), content_text(item.get("content"))))
        elif kind == "function_call":
            found.append((where, "assistant", "[function_call %s%s %s] %s" % (
                item.get("namespace") + "." if item.get("namespace") else "", item.get("name"),
                item.get("call_id"), item.get("arguments"))))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            found.append((where, "tool", "[%s %s] %s" % (kind, item.get("call_id"), output_text(item.get("output")))))
        else:
            found.append((where, item.get("role", "?"), "[%s] %s" % (kind, json.dumps(item)[:500])))
    return found


def tool_results(entries):
    """[(seq, call id, is_error, text)] of every tool result, the first time it was sent."""
    seen, results = set(), []
    for entry in scripted(entries):
        body = entry.get("body") or {}
        found = []
        for message in body.get("messages") or []:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.append((block.get("tool_use_id"), bool(block.get("is_error")),
                                  content_text(block.get("content"))))
        items = body.get("input")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
                found.append((item.get("call_id"), False, output_text(item.get("output"))))
        for call_id, is_error, text in found:
            key = call_id or text
            if key not in seen:
                seen.add(key)
                results.append((entry["seq"], call_id, is_error, text))
    return results


def contains(entries, text, seq=None):
    """[(seq, where, role, excerpt)] of the places where TEXT was shown to the model."""
    places = []
    for entry in requests_at(entries, seq):
        for where, role, shown in segments(entry.get("body") or {}):
            at = shown.find(text)
            if at >= 0:
                excerpt = shown[max(0, at - 60):at + len(text) + 60].replace("\n", "\\n")
                places.append((entry["seq"], where, role, excerpt))
    return places


def requests_at(entries, seq):
    if seq is None:
        return scripted(entries)
    chosen = [e for e in entries if e.get("seq") == seq]
    if not chosen:
        sys.exit("no request with seq %d" % seq)
    return chosen


def results_text(path):
    """Every tool result in the log at PATH, as `tool-results` prints them."""
    return "\n".join(result_line(*result) for result in tool_results(load(path)))


def seen(path, text):
    """Whether TEXT was shown to the model in a scripted request of the log at PATH."""
    return bool(contains(load(path), text))


def result_line(seq, call_id, is_error, text):
    return "seq %d [tool_result %s%s] %s" % (seq, call_id, " ERROR" if is_error else "", text)


# ---------------------------------------------------------------- commands

def cmd_summary(entries, _args):
    for entry in entries:
        answer, body = entry.get("answer") or {}, entry.get("body") or {}
        tools = body.get("tools") or []
        what = answer.get("kind", "?")
        if answer.get("turn") is not None:
            what += " turn=%s" % answer["turn"]
        if answer.get("branch") is not None:
            what += " branch=%s" % answer["branch"]
        if answer.get("status") and answer.get("kind") == "error":
            what += " status=%s" % answer["status"]
        calls = [b.get("name") for b in answer.get("content") or answer.get("output") or []
                 if b.get("type") in ("tool_use", "function_call")]
        if calls:
            what += " calls=%s" % ",".join(calls)
        print("%3d %-6s %-28s %-36s model=%s stream=%s tools=%d" % (
            entry["seq"], entry["method"], entry["path"][:28], what, body.get("model"), body.get("stream"), len(tools)))


def cmd_text(entries, args):
    chosen = requests_at(entries, args.seq)
    if not chosen:
        sys.exit("no scripted request in the log")
    for where, role, text in segments(chosen[0].get("body") or {}):
        print("===== %s (%s) =====" % (where, role))
        print(text)


def cmd_contains(entries, args):
    places = contains(entries, args.text, args.seq)
    for seq, where, role, excerpt in places:
        print("seq %d %s (%s): ...%s..." % (seq, where, role, excerpt))
    return 0 if places else 1


def cmd_tool_results(entries, _args):
    for result in tool_results(entries):
        print(result_line(*result))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("summary", "text", "contains", "tool-results"):
        command = commands.add_parser(name)
        command.add_argument("log")
        if name == "contains":
            command.add_argument("text")
        if name in ("text", "contains"):
            command.add_argument("--seq", type=int)
    args = parser.parse_args()
    run = {"summary": cmd_summary, "text": cmd_text, "contains": cmd_contains,
           "tool-results": cmd_tool_results}[args.command]
    return run(load(args.log), args) or 0


if __name__ == "__main__":
    sys.exit(main())
