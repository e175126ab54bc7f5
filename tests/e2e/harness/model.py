#!/usr/bin/env python3
"""The scripted model of steward's end-to-end tests.

A small HTTP server (Python's standard library only) that stands in for the
model behind the real agent clients: it speaks the Anthropic Messages API
(Claude Code) and the OpenAI Responses API (Codex), streaming (SSE) or not,
and answers from a script instead of thinking. It binds 127.0.0.1 only and
appends every request it gets, with its answer, to a JSONL log (see
request_log.py for reading it).

    model.py --script SCRIPT.json --log REQUESTS.jsonl
             [--port 0] [--port-file FILE] [--lifetime SECONDS]

The script
----------
A JSON list of turns, or an object

    {"turns": [TURN, ...],
     "side_text": "OK",
     "branches": [{"if_contains": "MARKER", "turns": [TURN, ...]}, ...]}

A request whose user text (the user's messages, tool results left out)
contains a branch's MARKER is answered from that branch's turns instead: a
dispatched run or a subagent whose prompt names its goal gets its own
script. A TURN has any of:

    "text": "..."             what the assistant says
    "bash": "COMMAND"         one call of the client's own shell tool:
                              Claude Code's Bash, Codex's exec_command,
                              shell_command or shell (whichever the request
                              offers)
    "tool_calls": [{"name": "...", "input": {...}, "namespace": "..."}]
                              tool calls as they are; "namespace" for a
                              Responses tool inside a namespace (Codex offers
                              MCP server steward as namespace mcp__steward;
                              Claude Code names the tool mcp__steward__NAME)
    "delay": SECONDS          answer this much later
    "http_status": CODE       answer with this HTTP error instead

A turn with a tool call ends with stop_reason "tool_use" (Responses: a
function_call item), and the client sends the tool's result back in its next
request; a turn with only text ends the agent's turn. Codex runs one tool
call per turn best: give it one.

Which turn answers a request: as many turns in as there are assistant turns
in the request's own history (Anthropic: messages of role assistant;
Responses: runs of assistant items in "input"). A retried request therefore
gets the same answer. A request that offers no tools (the clients' titles
and summaries) takes no turn and gets "side_text"; past the last turn the
answer is "(script exhausted)".

Anything else the clients call at start is answered too: count_tokens, the
models list, and every other path with 200 {}.
"""

import argparse
import gzip
import itertools
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST = "127.0.0.1"

# Request headers worth keeping in the log (never the key).
LOGGED_HEADERS = {
    "user-agent", "content-type", "anthropic-version", "anthropic-beta", "x-app",
    "openai-beta", "originator", "session_id", "version",
}

TURN_KEYS = {"text", "bash", "tool_calls", "delay", "http_status"}
SCRIPT_KEYS = {"turns", "side_text", "branches"}

_ids = itertools.count(1)


def new_id(prefix):
    return "%s_e2e%06d" % (prefix, next(_ids))


# ------------------------------------------------------------------ script

class Script:
    """The turns to answer with, checked once when the server starts."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if isinstance(data, list):
            data = {"turns": data}
        if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
            raise SystemExit('%s: expected a list of turns or {"turns": [...]}' % path)
        unknown = set(data) - SCRIPT_KEYS
        if unknown:
            raise SystemExit("%s: unknown keys %s" % (path, sorted(unknown)))
        self.turns = self._checked(path, data["turns"])
        self.side_text = data.get("side_text", "OK")
        self.branches = []
        for i, branch in enumerate(data.get("branches", [])):
            if not branch.get("if_contains"):
                raise SystemExit("%s: branch %d has no if_contains" % (path, i))
            self.branches.append((branch["if_contains"],
                                  self._checked(path, branch.get("turns", []))))

    @staticmethod
    def _checked(path, turns):
        for i, turn in enumerate(turns):
            if not isinstance(turn, dict) or set(turn) - TURN_KEYS:
                raise SystemExit("%s: turn %d: expected an object of %s" % (path, i, sorted(TURN_KEYS)))
        return turns

    def answer(self, user_text, index, offers_tools):
        """(turn, what the log says about it) for a request."""
        if not offers_tools:
            return {"text": self.side_text}, {"kind": "side"}
        turns, branch = self.turns, None
        for i, (marker, branch_turns) in enumerate(self.branches):
            if marker in user_text:
                turns, branch = branch_turns, i
                break
        if index < len(turns):
            return turns[index], {"kind": "scripted", "turn": index, "branch": branch}
        return {"text": "(script exhausted)"}, {"kind": "exhausted", "turn": index, "branch": branch}


def user_text(body):
    """The text of a request's user messages (either API), tool results left out."""
    parts = []
    items = body.get("input")
    if isinstance(items, str):
        parts.append(items)
        items = []
    for message in (body.get("messages") or []) + (items or []):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
            continue
        for block in content or []:
            if isinstance(block, dict) and block.get("type") in ("text", "input_text"):
                parts.append(block.get("text", ""))
    return "\n".join(parts)


def rough_tokens(body):
    return max(1, len(json.dumps(body)) // 4)


def sse(event, data):
    return "event: %s\ndata: %s\n\n" % (event, json.dumps(data))


# ------------------------------------------------------- Anthropic Messages

class Messages:
    """POST /v1/messages, as Claude Code calls it."""

    @staticmethod
    def turn_index(body):
        return sum(1 for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "assistant")

    @staticmethod
    def tools(body):
        return [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]

    @staticmethod
    def reply(body, turn, tools):
        content = []
        if turn.get("text"):
            content.append({"type": "text", "text": turn["text"]})
        calls = list(turn.get("tool_calls") or [])
        if turn.get("bash") is not None:
            shell = "Bash" if "Bash" in tools else next(
                (t for t in tools if t and t.lower() in ("bash", "shell")), "Bash")
            calls.append({"name": shell, "input": {"command": turn["bash"], "description": "scripted command"}})
        for call in calls:
            content.append({"type": "tool_use", "id": new_id("toolu"), "name": call["name"],
                            "input": call.get("input", {})})
        if not content:
            content.append({"type": "text", "text": ""})
        return {
            "id": new_id("msg"), "type": "message", "role": "assistant",
            "model": body.get("model", "e2e-model"), "content": content,
            "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": rough_tokens(body), "output_tokens": 10,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        }

    @staticmethod
    def stream(message):
        """The same message as the event stream the Messages API sends."""
        start = dict(message, content=[], stop_reason=None, usage=dict(message["usage"], output_tokens=1))
        events = [sse("message_start", {"type": "message_start", "message": start}),
                  sse("ping", {"type": "ping"})]
        for i, block in enumerate(message["content"]):
            if block["type"] == "text":
                first = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                first = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events.append(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                      "content_block": first}))
            events.append(sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}))
            events.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(sse("message_delta", {"type": "message_delta",
                                            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                            "usage": {"output_tokens": message["usage"]["output_tokens"]}}))
        events.append(sse("message_stop", {"type": "message_stop"}))
        return "".join(events)

    @staticmethod
    def error(status):
        return {"type": "error", "error": {"type": "api_error", "message": "scripted error %d" % status}}


# -------------------------------------------------------- OpenAI Responses

# Output items that the model made: a run of them in "input" is one turn.
MODEL_ITEMS = {"function_call", "reasoning", "local_shell_call", "custom_tool_call",
               "web_search_call", "tool_search_call"}


class Responses:
    """POST /v1/responses, as Codex calls it."""

    @staticmethod
    def turn_index(body):
        items = body.get("input")
        if not isinstance(items, list):
            return 0
        turns, in_turn = 0, False
        for item in items:
            by_model = isinstance(item, dict) and (
                item.get("type") in MODEL_ITEMS
                or (item.get("type", "message") == "message" and item.get("role") == "assistant"))
            if by_model and not in_turn:
                turns += 1
            in_turn = by_model
        return turns

    @staticmethod
    def tools(body):
        return [t.get("name") or (t.get("function") or {}).get("name") or t.get("type")
                for t in body.get("tools") or [] if isinstance(t, dict)]

    @staticmethod
    def shell_call(command, tools):
        """A call of the shell tool the request offers, in that tool's own arguments."""
        if "shell_command" in tools:
            return "shell_command", {"command": command}
        if "exec_command" in tools:
            return "exec_command", {"cmd": command}
        if "local_shell" in tools and "shell" not in tools:
            return "local_shell", {"command": ["bash", "-lc", command]}
        return "shell", {"command": ["bash", "-lc", command]}

    @classmethod
    def reply(cls, body, turn, tools):
        output = []
        if turn.get("text"):
            output.append({"type": "message", "id": new_id("msg"), "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "text": turn["text"], "annotations": []}]})
        calls = [(c["name"], c.get("input", {}), c.get("namespace")) for c in turn.get("tool_calls") or []]
        if turn.get("bash") is not None:
            calls.append(cls.shell_call(turn["bash"], tools) + (None,))
        for name, arguments, namespace in calls:
            if name == "local_shell":
                output.append({"type": "local_shell_call", "id": new_id("lsh"), "call_id": new_id("call"),
                               "status": "completed", "action": {"type": "exec", "command": arguments["command"]}})
                continue
            item = {"type": "function_call", "id": new_id("fc"), "call_id": new_id("call"), "name": name,
                    "arguments": json.dumps(arguments), "status": "completed"}
            if namespace:
                item["namespace"] = namespace
            output.append(item)
        tokens = rough_tokens(body)
        return {"id": new_id("resp"), "object": "response", "created_at": int(time.time()),
                "status": "completed", "model": body.get("model", "e2e-model"), "output": output,
                "usage": {"input_tokens": tokens, "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": tokens + 10}}

    @staticmethod
    def stream(response):
        """The same response as the event stream the Responses API sends."""
        seq = itertools.count()
        events = [sse("response.created", {"type": "response.created", "sequence_number": next(seq),
                                           "response": dict(response, status="in_progress", output=[])})]
        for i, item in enumerate(response["output"]):
            events.append(sse("response.output_item.added", {"type": "response.output_item.added",
                                                             "sequence_number": next(seq),
                                                             "output_index": i, "item": item}))
            if item["type"] == "message":
                events.append(sse("response.output_text.delta", {
                    "type": "response.output_text.delta", "sequence_number": next(seq), "item_id": item["id"],
                    "output_index": i, "content_index": 0, "delta": item["content"][0]["text"]}))
            events.append(sse("response.output_item.done", {"type": "response.output_item.done",
                                                            "sequence_number": next(seq),
                                                            "output_index": i, "item": item}))
        events.append(sse("response.completed", {"type": "response.completed", "sequence_number": next(seq),
                                                  "response": response}))
        return "".join(events)

    @staticmethod
    def error(status):
        return {"error": {"type": "server_error", "code": "server_error",
                          "message": "scripted error %d" % status}}


# ------------------------------------------------------------------ server

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "steward-e2e-model/1"

    def log_message(self, *_):  # the JSONL log is the record
        pass

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            raw = self.rfile.read(length)
        elif "chunked" in (self.headers.get("Transfer-Encoding") or ""):
            raw = self.read_chunked()
        else:
            raw = b""
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding:
            return {"_undecoded": encoding, "_bytes": len(raw)}
        if not raw:
            return {}
        try:
            body = json.loads(raw)
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}
        return body if isinstance(body, dict) else {"_body": body}

    def read_chunked(self):
        data = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self.rfile.readline()
                return data
            data += self.rfile.read(size)
            self.rfile.readline()

    def send(self, status, payload, content_type="application/json"):
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", new_id("req"))
        if content_type == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def record(self, body, answer):
        self.server.record({
            "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "method": self.command, "path": self.path,
            "headers": {k: v for k, v in self.headers.items() if k.lower() in LOGGED_HEADERS},
            "body": body, "answer": answer,
        })

    def path_only(self):
        return self.path.split("?")[0].rstrip("/")

    def do_GET(self):
        if self.path_only().endswith("/models"):
            payload = {"object": "list", "data": [], "models": [], "has_more": False,
                       "first_id": None, "last_id": None}
        else:
            payload = {}
        self.record(None, {"kind": "other", "status": 200})
        self.send(200, payload)

    do_HEAD = do_DELETE = do_GET

    def do_POST(self):
        body = self.read_body()
        path = self.path_only()
        if path.endswith("/messages/count_tokens"):
            self.record(body, {"kind": "count_tokens"})
            return self.send(200, {"input_tokens": rough_tokens(body)})
        api = Messages if path.endswith("/messages") else Responses if path.endswith("/responses") else None
        if api is None:
            self.record(body, {"kind": "other", "status": 200})
            return self.send(200, {})
        tools = api.tools(body)
        turn, answer = self.server.script.answer(user_text(body), api.turn_index(body), bool(tools))
        if turn.get("delay"):
            time.sleep(float(turn["delay"]))
        if turn.get("http_status"):
            status = int(turn["http_status"])
            self.record(body, dict(answer, kind="error", status=status))
            return self.send(status, api.error(status))
        reply = api.reply(body, turn, tools)
        if api is Messages:
            answer.update(content=reply["content"], stop_reason=reply["stop_reason"])
        else:
            answer.update(output=reply["output"])
        self.record(body, answer)
        if body.get("stream"):
            return self.send(200, api.stream(reply), "text/event-stream")
        return self.send(200, reply)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port, script, log_path):
        super().__init__((HOST, port), Handler)
        self.script = script
        self.log_path = log_path
        self.seq = 0
        self.lock = threading.Lock()
        open(log_path, "a").close()  # an empty log then says: no request came

    def record(self, entry):
        with self.lock:
            self.seq += 1
            entry["seq"] = self.seq
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def handle_error(self, request, client_address):
        # The clients open connections and drop them: no traceback for that.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--script", required=True, help="the JSON script of turns")
    parser.add_argument("--log", required=True, help="JSONL file every request is appended to")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--port-file", help="write the port here once listening")
    parser.add_argument("--lifetime", type=float, default=0, help="stop after this many seconds (0: never)")
    args = parser.parse_args()
    server = Server(args.port, Script(args.script), os.path.abspath(args.log))
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.replace(args.port_file + ".tmp", args.port_file)
    print("model listening on http://%s:%d" % (HOST, port), flush=True)
    if args.lifetime > 0:
        timer = threading.Timer(args.lifetime, server.shutdown)
        timer.daemon = True
        timer.start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
