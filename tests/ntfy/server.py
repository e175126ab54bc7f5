"""A loopback stand-in for an ntfy server, speaking the parts of ntfy's
documented HTTP API steward and its notify recipe use
(https://docs.ntfy.sh/publish/, https://docs.ntfy.sh/subscribe/api/):

- publish: POST or PUT /<topic> with the message as the body (Title and
  Actions headers), or POST / with a JSON body {"topic", "message",
  "title", "actions"}; the answer is the message as JSON;
- poll: GET /<topic>/json?poll=1&since=<message id|unix time|all>, one
  JSON message a line, oldest first;
- access: with --token, the topics named by --protect need
  "Authorization: Bearer <token>" (403 otherwise).

Prints the port it listens on, then serves until killed.
"""

import argparse
import json
import secrets
import string
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

MESSAGES = []
LOCK = threading.Lock()
ID_CHARS = string.ascii_letters + string.digits


def new_message(topic, message, title=None, actions=None):
    msg = {
        "id": "".join(secrets.choice(ID_CHARS) for _ in range(12)),
        "time": int(time.time()),
        "expires": int(time.time()) + 43200,
        "event": "message",
        "topic": topic,
        "message": message,
    }
    if title:
        msg["title"] = title
    if actions:
        msg["actions"] = actions
    with LOCK:
        MESSAGES.append(msg)
    return msg


class Handler(BaseHTTPRequestHandler):
    token = None
    protected = set()

    def log_message(self, *args):
        pass

    def allowed(self, topic):
        if self.token is None or topic not in self.protected:
            return True
        if self.headers.get("Authorization") == f"Bearer {self.token}":
            return True
        self.answer(403, {"code": 40301, "http": 403, "error": "forbidden"})
        return False

    def answer(self, status, body, ndjson=None):
        data = ndjson if ndjson is not None else (json.dumps(body) + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-ndjson" if ndjson is not None else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode()

    def do_POST(self):
        path = urlparse(self.path).path.strip("/")
        text = self.body()
        if path == "":
            doc = json.loads(text)
            topic = doc["topic"]
            if not self.allowed(topic):
                return
            msg = new_message(topic, doc.get("message", ""), doc.get("title"), doc.get("actions"))
        else:
            if not self.allowed(path):
                return
            actions = self.headers.get("Actions")
            msg = new_message(path, text, self.headers.get("Title"), json.loads(actions) if actions else None)
        self.answer(200, msg)

    do_PUT = do_POST

    def do_GET(self):
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if len(parts) != 2 or parts[1] != "json":
            self.answer(404, {"code": 40401, "http": 404, "error": "page not found"})
            return
        topic = parts[0]
        if not self.allowed(topic):
            return
        query = parse_qs(url.query)
        since = query.get("since", ["all"])[0]
        with LOCK:
            ours = [m for m in MESSAGES if m["topic"] == topic]
        if since == "all":
            start = 0
        elif since.isdigit():
            start = next((i for i, m in enumerate(ours) if m["time"] >= int(since)), len(ours))
        else:
            ids = [m["id"] for m in ours]
            start = ids.index(since) + 1 if since in ids else 0
        lines = "".join(json.dumps(m) + "\n" for m in ours[start:])
        self.answer(200, None, ndjson=lines.encode())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token")
    parser.add_argument("--protect", action="append", default=[])
    args = parser.parse_args()
    Handler.token = args.token
    Handler.protected = set(args.protect)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
