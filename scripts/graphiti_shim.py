"""The loopback shim between graphiti-core's OpenAI-compatible client and a local model server.

scripts/eval_graphiti.py runs it in a thread of its own process (Shim.start) and points
Graphiti's LLM client at it. It forwards every request to the upstream server (the llama.cpp
server of scripts/local_llm.sh) and changes exactly this in a chat completion request:

  1. response_format {"type": "json_schema", "json_schema": {"name": N, "schema": S}}, which
     graphiti-core's OpenAIGenericClient sends and llama-cpp-python answers with an error, becomes
     {"type": "json_object", "schema": S}: the same schema, in the form llama-cpp-python turns
     into a grammar (what backfill sends with llm.response_format: json_object_schema; backfill's
     own runs on these servers send the compact grammar of llm.response_format: grammar, which
     graphiti-core cannot: its answers stay as the server's schema grammar lets the model write).
  2. frequency_penalty is set to Shim.frequency_penalty when the request has none and the value
     is not 0 (eval_graphiti.sh passes the backfill runs' --set llm.frequency_penalty, so both
     sides sample alike).

Nothing else: messages, max_tokens (graphiti-core's 16,384; the server cuts it to what the context
window leaves), temperature and model pass as they are, and the answer comes back byte for byte.
Embedding and other requests pass through unchanged.

It counts, per label (Shim.label, which the caller sets to the episode being added): calls,
prompt and completion tokens as the upstream server reports them in usage, answers cut at
max_tokens (finish_reason "length"), upstream errors (HTTP status >= 400 or no answer), and
the seconds spent; and per response model name (the json_schema name, such as
ExtractedEntities), calls and tokens. Every call is also a line of Shim.log_path (JSON Lines).
"""

import json
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def new_counts():
    return {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cut_at_max_tokens": 0, "errors": 0, "seconds": 0.0}


class Shim:
    def __init__(self, upstream, frequency_penalty=0.0, log_path=None, timeout=900, host="127.0.0.1", port=0):
        self.upstream = upstream.rstrip("/")
        self.frequency_penalty = frequency_penalty
        self.timeout = timeout
        self.log_path = log_path
        self.label = ""
        self.by_label = {}
        self.by_task = {}
        self.total = new_counts()
        self.lock = threading.Lock()
        shim = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                shim.forward(self, None)

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                shim.forward(self, self.rfile.read(n))

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.url = "http://%s:%d/v1" % self.server.server_address

    def start(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def rewrite(self, body):
        """The request as the upstream server gets it, and the response model's name."""
        req = json.loads(body)
        task = ""
        rf = req.get("response_format")
        if isinstance(rf, dict) and rf.get("type") == "json_schema":
            js = rf.get("json_schema") or {}
            task = js.get("name", "")
            req["response_format"] = {"type": "json_object", "schema": js.get("schema", {})}
        if self.frequency_penalty and req.get("frequency_penalty") is None:
            req["frequency_penalty"] = self.frequency_penalty
        return json.dumps(req).encode(), task

    def forward(self, h, body):
        chat = h.command == "POST" and h.path.rstrip("/").endswith("/chat/completions")
        task = ""
        if chat:
            body, task = self.rewrite(body)
        path = h.path[len("/v1"):] if h.path.startswith("/v1") else h.path
        req = urllib.request.Request(self.upstream + path, data=body, method=h.command)
        req.add_header("Content-Type", "application/json")
        start = time.time()
        status, payload = 502, b'{"error": {"message": "shim: no answer from the upstream server"}}'
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                status, payload = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, payload = e.code, e.read()
        except Exception as e:  # noqa: BLE001 - any failure is the caller's error answer
            payload = json.dumps({"error": {"message": "shim: %s" % e}}).encode()
        if chat:
            self.count(task, status, payload, time.time() - start)
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)

    def count(self, task, status, payload, seconds):
        usage, finish = {}, ""
        try:
            ans = json.loads(payload)
            usage = ans.get("usage") or {}
            finish = (ans.get("choices") or [{}])[0].get("finish_reason") or ""
        except Exception:  # noqa: BLE001 - an unreadable answer counts as an error below
            status = max(status, 500)
        line = {"label": self.label, "task": task, "status": status, "prompt_tokens": usage.get("prompt_tokens", 0),
                "completion_tokens": usage.get("completion_tokens", 0), "finish_reason": finish, "seconds": round(seconds, 3)}
        with self.lock:
            for c in (self.total, self.by_label.setdefault(self.label, new_counts()), self.by_task.setdefault(task, new_counts())):
                c["calls"] += 1
                c["prompt_tokens"] += line["prompt_tokens"]
                c["completion_tokens"] += line["completion_tokens"]
                c["cut_at_max_tokens"] += finish == "length"
                c["errors"] += status >= 400
                c["seconds"] += seconds
            if self.log_path:
                with open(self.log_path, "a") as f:
                    f.write(json.dumps(line) + "\n")

    def counts(self, label):
        with self.lock:
            return dict(self.by_label.get(label) or new_counts())
