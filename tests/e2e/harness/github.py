#!/usr/bin/env python3
"""A loopback GitHub REST API for the end-to-end tests of `ci_green`.

    github.py --store DIR --port-file FILE [--lifetime SECONDS]

Answers, for any owner, repository and commit, the two endpoints the
`ci_green` check asks, with bodies shaped as GitHub documents them:

    GET /repos/{owner}/{repo}/commits/{ref}/check-runs   {"total_count", "check_runs": [...]}
    GET /repos/{owner}/{repo}/commits/{ref}/status       {"state", "statuses": [...]}

What CI says follows the files the agent wrote in the store, as if each
were a push and CI had run on it:

    DIR/work/fixed     one check run, `unit-tests`, concluded success
    DIR/work/attempt   `unit-tests` concluded failure: "1 test failed: test_login"
    neither            no check runs at all (nothing pushed yet)

Every request line is appended to DIR/../github.log. Binds 127.0.0.1 only.
"""

import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SHA = "0123456789abcdef0123456789abcdef01234567"


def check_runs(store):
    work = os.path.join(store, "work")
    if os.path.exists(os.path.join(work, "fixed")):
        conclusion, title, text = "success", "All tests passed", "running 3 tests\ntest result: ok. 3 passed"
    elif os.path.exists(os.path.join(work, "attempt")):
        conclusion, title = "failure", "1 test failed: test_login"
        text = "running 3 tests\ntest test_login ... FAILED\nassertion failed: the session survives a reload\ntest result: FAILED. 2 passed; 1 failed"
    else:
        return {"total_count": 0, "check_runs": []}
    run = {
        "id": 4, "head_sha": SHA, "node_id": "CR_1", "name": "unit-tests",
        "status": "completed", "conclusion": conclusion,
        "started_at": "2026-11-21T04:00:00Z", "completed_at": "2026-11-21T04:02:00Z",
        "output": {"title": title, "summary": title, "text": text, "annotations_count": 0},
        "app": {"slug": "github-actions"},
    }
    return {"total_count": 1, "check_runs": [run]}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def send(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        store = self.server.store
        with open(os.path.join(store, "..", "github.log"), "a") as log:
            log.write(self.requestline + "\n")
        path = self.path.split("?")[0]
        if path.endswith("/check-runs"):
            self.send(200, check_runs(store))
        elif path.endswith("/status"):
            self.send(200, {"state": "pending", "sha": SHA, "total_count": 0, "statuses": []})
        else:
            self.send(404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--lifetime", type=float, default=600)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.store = os.path.abspath(args.store)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    time.sleep(args.lifetime)


if __name__ == "__main__":
    main()
