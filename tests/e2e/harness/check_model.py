#!/usr/bin/env python3
"""Checks the scripted model (model.py) and the log reader (request_log.py)
without any client: starts model.py on a free port, sends it the requests
Claude Code and Codex send, streamed and not, and checks what it answers and
what it logs. Prints one line per check and "N passed, N failed"; exits 1
when a check failed.

    check_model.py
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the tree
import request_log  # noqa: E402

SCRIPT = {
    "turns": [
        {"text": "Looking.", "bash": "steward list"},
        {"tool_calls": [{"name": "goal_list", "namespace": "mcp__steward", "input": {}}]},
        {"text": "Done."},
    ],
    "side_text": "A title",
    "branches": [
        {"if_contains": 'goal="limited-1"', "turns": [{"http_status": 429}]},
        {"if_contains": 'goal="slow-1"', "turns": [{"delay": 0.2, "text": "Late."}]},
    ],
}

BASH = [{"name": "Bash", "input_schema": {}}]
EXEC = [{"type": "function", "name": "exec_command"}, {"type": "namespace", "name": "mcp__steward"}]

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok: " + name)
    else:
        failed += 1
        print("FAILED: %s%s" % (name, ("\n  " + str(detail)[:1500]) if detail else ""))


def post(port, path, body):
    """(status, parsed JSON, or the list of SSE events as (event, data))."""
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, kind, raw = response.status, response.headers.get("Content-Type"), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    if kind == "text/event-stream":
        events = []
        for chunk in raw.strip().split("\n\n"):
            lines = dict(line.split(": ", 1) for line in chunk.split("\n"))
            events.append((lines["event"], json.loads(lines["data"])))
        return status, events
    return status, json.loads(raw)


def get(port, path):
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=10) as response:
        return response.status, json.loads(response.read())


def user(text):
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def main():
    work = tempfile.mkdtemp(prefix="steward-e2e-model.")
    script, log, port_file = (os.path.join(work, name) for name in ("script.json", "requests.jsonl", "port"))
    with open(script, "w") as f:
        json.dump(SCRIPT, f)
    model = subprocess.Popen([sys.executable, os.path.join(HERE, "model.py"), "--script", script, "--log", log,
                              "--port-file", port_file, "--lifetime", "60"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            if os.path.exists(port_file) or model.poll() is not None:
                break
            time.sleep(0.05)
        if not os.path.exists(port_file):
            check("model.py starts", False, model.stderr.read().decode())
            return 1
        run(int(open(port_file).read()), log)
    finally:
        model.terminate()
        model.wait()
    print("%d passed, %d failed" % (passed, failed))
    if not failed:
        subprocess.run(["rm", "-rf", work])
    return 1 if failed else 0


def run(port, log):
    # Anthropic Messages, as Claude Code sends it
    first = {"model": "m", "tools": BASH, "messages": [user("Work on the goal")]}
    status, message = post(port, "/v1/messages?beta=true", first)
    check("messages: the first turn calls Bash with the command",
          status == 200 and message["stop_reason"] == "tool_use"
          and [b["type"] for b in message["content"]] == ["text", "tool_use"]
          and message["content"][1]["name"] == "Bash"
          and message["content"][1]["input"]["command"] == "steward list", message)

    history = first["messages"] + [
        {"role": "assistant", "content": message["content"]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": message["content"][1]["id"],
                                      "content": "deploy-api (normal, active)"}]}]
    status, events = post(port, "/v1/messages", dict(first, messages=history, stream=True))
    names = [event for event, _ in events]
    calls = [data["content_block"] for event, data in events if event == "content_block_start"]
    check("messages, streamed: the second turn's tool call as events",
          status == 200 and names[0] == "message_start" and names[-1] == "message_stop"
          and calls and calls[0]["name"] == "goal_list", events)

    history += [{"role": "assistant", "content": [{"type": "text", "text": "x"}]}, user("go on")]
    _, message = post(port, "/v1/messages", dict(first, messages=history))
    check("messages: the turn is counted from the assistant messages",
          message["stop_reason"] == "end_turn" and message["content"][0]["text"] == "Done.", message)

    history += [{"role": "assistant", "content": [{"type": "text", "text": "y"}]}, user("more")]
    _, message = post(port, "/v1/messages", dict(first, messages=history))
    check("messages: past the script: (script exhausted)",
          message["content"][0]["text"] == "(script exhausted)", message)

    _, message = post(port, "/v1/messages", {"model": "m", "messages": [user("Title this")]})
    check("messages: a request without tools gets side_text and takes no turn",
          message["content"][0]["text"] == "A title", message)

    status, answer = post(port, "/v1/messages/count_tokens", first)
    check("messages: count_tokens", status == 200 and answer["input_tokens"] > 0, answer)

    status, answer = post(port, "/v1/messages", dict(first, messages=[user('<goal-stewardship goal="limited-1">')]))
    check("messages: a branch's http_status answers that error",
          status == 429 and answer["type"] == "error", (status, answer))

    started = time.time()
    _, message = post(port, "/v1/messages", dict(first, messages=[user('goal="slow-1"')]))
    check("messages: a branch's delay answers late",
          time.time() - started >= 0.2 and message["content"][0]["text"] == "Late.", message)

    # OpenAI Responses, as Codex sends it
    first = {"model": "m", "tools": EXEC, "stream": True,
             "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go"}]}]}
    status, events = post(port, "/v1/responses", first)
    done = [data["item"] for event, data in events if event == "response.output_item.done"]
    check("responses, streamed: bash becomes exec_command {cmd}",
          status == 200 and events[-1][0] == "response.completed"
          and [item["type"] for item in done] == ["message", "function_call"]
          and done[1]["name"] == "exec_command" and json.loads(done[1]["arguments"]) == {"cmd": "steward list"},
          events)

    history = first["input"] + done + [{"type": "function_call_output", "call_id": done[1]["call_id"],
                                        "output": "deploy-api (normal, active)"}]
    status, response = post(port, "/v1/responses", dict(first, input=history, stream=False))
    call = response["output"][0] if response.get("output") else {}
    check("responses: the second turn calls a namespaced tool",
          status == 200 and call.get("namespace") == "mcp__steward" and call.get("name") == "goal_list", response)

    _, response = post(port, "/v1/responses", dict(first, tools=[{"type": "function", "name": "shell_command"}],
                                                   stream=False))
    check("responses: bash becomes shell_command {command} where that is offered",
          json.loads(response["output"][1]["arguments"]) == {"command": "steward list"}, response)

    status, answer = get(port, "/v1/models")
    check("models: an empty list", status == 200 and answer["data"] == [], answer)
    status, answer = post(port, "/v1/anything/else", {})
    check("anything else: 200 {}", status == 200 and answer == {}, answer)

    # the log, and reading it
    entries = request_log.load(log)
    check("every request is logged, in order",
          [e["seq"] for e in entries] == list(range(1, len(entries) + 1)) and len(entries) == 13, len(entries))
    check("request_log: contains finds what the model was shown",
          request_log.seen(log, "goal=\"slow-1\"") and not request_log.seen(log, "never sent"))
    results = request_log.results_text(log)
    check("request_log: tool results of both APIs, once each",
          results.count("deploy-api (normal, active)") == 2, results)
    summary = subprocess.run([sys.executable, os.path.join(HERE, "request_log.py"), "summary", log],
                             capture_output=True, text=True)
    check("request_log.py summary", summary.returncode == 0 and "calls=Bash" in summary.stdout
          and "status=429" in summary.stdout, summary.stdout + summary.stderr)


if __name__ == "__main__":
    sys.exit(main())
