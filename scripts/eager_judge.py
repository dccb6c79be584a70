#!/usr/bin/env python3
"""An over-eager judge in front of `backfill llm-stub`: every judge_fact answer claims every
invalidation candidate contradicted, quoting the whole new fact (what a weak model copying its
input does). Everything else is the stub's answer, unchanged. Answers in the schema the request
asks for: "contradicted_ids" (main) or "contradictions" [{id, quote}] (issue-20).

usage: eager_proxy.py LISTEN_PORT STUB_URL   (STUB_URL like http://127.0.0.1:8095)
"""
import json, sys, threading, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FENCE = "```json input\n"
STUB = sys.argv[2].rstrip("/")
stats = {"judge": 0, "claims": 0}
lock = threading.Lock()


def judge_input(req):
    last = req["messages"][-1]["content"]
    i, j = last.rfind(FENCE), last.rfind("\n```")
    if i < 0 or j < i:
        return None
    try:
        v = json.loads(last[i + len(FENCE):j])
    except ValueError:
        return None
    return v if isinstance(v, dict) and "invalidation_candidates" in v else None


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        body = json.dumps(stats).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        fwd = urllib.request.Request(STUB + self.path, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(fwd, timeout=120) as r:
                code, out = r.status, r.read()
        except urllib.error.HTTPError as e:
            code, out = e.code, e.read()
        try:
            req = json.loads(body)
            inp = judge_input(req) if code == 200 and "messages" in req else None
        except ValueError:
            inp = None
        if inp is not None:
            resp = json.loads(out)
            ans = json.loads(resp["choices"][0]["message"]["content"])
            ids = [c["id"] for c in inp.get("invalidation_candidates") or []]
            quote = inp["new_fact"]["fact"] if "new_fact" in inp else ""
            if "contradicted_ids" in ans:
                ans["contradicted_ids"] = ids
            else:
                ans["contradictions"] = [{"id": i, "quote": quote} for i in ids]
            resp["choices"][0]["message"]["content"] = json.dumps(ans, ensure_ascii=False)
            out = json.dumps(resp).encode()
            with lock:
                stats["judge"] += 1
                stats["claims"] += len(ids)
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
