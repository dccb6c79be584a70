"""Serves all-MiniLM-L6-v2 on loopback behind the OpenAI-compatible embeddings API: the local
embedding model of scripts/local_embed.sh. Runs until it is terminated.

Usage: python embed_server.py MODEL_DIR ALIAS PORT [--check]

MODEL_DIR holds the sentence-transformers files (model.safetensors, tokenizer.json,
config.json, sentence_bert_config.json, 1_Pooling/config.json). The forward pass is BERT's in
numpy (float32), and the sentence vector is what sentence-transformers computes for this model:
the tokenizer's WordPiece ids cut at max_seq_length (256) tokens, the transformer's last hidden
states averaged over the real tokens (mean pooling, attention mask), then L2-normalised.

  POST /v1/embeddings  {"model": ALIAS, "input": "text" | ["text", ...], "dimensions": 384?,
                        "encoding_format": "float" | "base64"}
  GET  /v1/models      the alias

Each connection is served by a thread of its own (a client sends several requests at once), and the
forward passes run one at a time. A request for other dimensions than the model's (384), an input that is not text, or more than
MAX_INPUTS texts is answered 400 with an OpenAI-style error. usage counts the tokens of every
text with [CLS] and [SEP], after the cut. --check prints the cosine similarities of the three
sentences of sentence-transformers' quick start and exits (the reference values are 0.6660,
0.1046 and 0.1411).
"""

import base64
import json
import math
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MAX_INPUTS = 2048  # texts per request
BATCH = 32  # texts per forward pass, sorted by length so that padding stays small
MAX_BODY = 32 << 20  # bytes of a request body
BACKLOG = 128  # connections waiting to be accepted


class Model:
    def __init__(self, directory):
        d = Path(directory)
        cfg = json.loads((d / "config.json").read_text())
        st = json.loads((d / "sentence_bert_config.json").read_text())
        pool = json.loads((d / "1_Pooling" / "config.json").read_text())
        if not pool.get("pooling_mode_mean_tokens") or cfg.get("hidden_act") != "gelu":
            raise SystemExit("embed_server: want a BERT model with gelu and mean pooling")
        self.heads, self.eps = cfg["num_attention_heads"], cfg["layer_norm_eps"]
        self.layers, self.dims = cfg["num_hidden_layers"], cfg["hidden_size"]
        self.w = load_file(str(d / "model.safetensors"))
        self.tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(max_length=st["max_seq_length"])

    def ln(self, x, name):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def dense(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def forward(self, ids, mask):
        """Mean-pooled, L2-normalised sentence vectors of a padded batch of token ids."""
        w, (b, n) = self.w, ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] + \
            w["embeddings.token_type_embeddings.weight"][0]
        x = self.ln(x, "embeddings.LayerNorm")
        hd = self.dims // self.heads
        bias = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min).astype(np.float32)
        for i in range(self.layers):
            p = "encoder.layer.%d." % i

            def split(t):
                return t.reshape(b, n, self.heads, hd).transpose(0, 2, 1, 3)

            q = split(self.dense(x, p + "attention.self.query"))
            k = split(self.dense(x, p + "attention.self.key"))
            v = split(self.dense(x, p + "attention.self.value"))
            s = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(hd)) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b, n, self.dims)
            x = self.ln(self.dense(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = gelu(self.dense(x, p + "intermediate.dense"))
            x = self.ln(self.dense(h, p + "output.dense") + x, p + "output.LayerNorm")
        m = mask[:, :, None].astype(np.float32)
        pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def embed(self, texts):
        """One vector per text, in order, and the number of tokens read."""
        encs = self.tok.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            idx = order[start:start + BATCH]
            n = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), n), dtype=np.int64)
            mask = np.zeros((len(idx), n), dtype=np.int64)
            for r, i in enumerate(idx):
                e = encs[i].ids
                ids[r, :len(e)], mask[r, :len(e)] = e, 1
            out[idx] = self.forward(ids, mask)
        return out, sum(len(e.ids) for e in encs)


def gelu(x):
    """BERT's exact gelu, x·Φ(x), with erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7)."""
    z = np.abs(x) / np.float32(math.sqrt(2))
    t = 1 / (1 + np.float32(0.3275911) * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(x) * (1 - poly * np.exp(-z * z))
    return (0.5 * x * (1 + erf)).astype(np.float32)


def serve(model, alias, port):
    busy = threading.Lock()  # one forward pass at a time: the threads only wait their turn

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, code, body):
            b = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(b)))
            self.end_headers()
            self.wfile.write(b)

        def error(self, code, msg):
            self.reply(code, {"error": {"message": msg, "type": "invalid_request_error"}})

        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models":
                self.reply(200, {"object": "list", "data": [{"id": alias, "object": "model", "owned_by": "local"}]})
            else:
                self.error(404, "no such path")

        def do_POST(self):
            if self.path.rstrip("/") != "/v1/embeddings":
                return self.error(404, "no such path")
            n = int(self.headers.get("Content-Length") or 0)
            if n <= 0 or n > MAX_BODY:
                return self.error(400, "want a JSON body of at most %d bytes" % MAX_BODY)
            try:
                req = json.loads(self.rfile.read(n))
            except ValueError as e:
                return self.error(400, "the body is not JSON: %s" % e)
            texts = req.get("input")
            if isinstance(texts, str):
                texts = [texts]
            if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
                return self.error(400, "input: want a text or a non-empty list of texts")
            if len(texts) > MAX_INPUTS:
                return self.error(400, "input: %d texts, at most %d" % (len(texts), MAX_INPUTS))
            dims = req.get("dimensions")
            if dims not in (None, 0, model.dims):
                return self.error(400, "dimensions: this model gives %d, not %s" % (model.dims, dims))
            fmt = req.get("encoding_format") or "float"
            if fmt not in ("float", "base64"):
                return self.error(400, "encoding_format: want float or base64")
            with busy:
                vecs, tokens = model.embed(texts)
            data = []
            for i, v in enumerate(vecs):
                emb = base64.b64encode(v.astype("<f4").tobytes()).decode() if fmt == "base64" else [float(x) for x in v]
                data.append({"object": "embedding", "index": i, "embedding": emb})
            self.reply(200, {"object": "list", "model": alias, "data": data,
                             "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = BACKLOG

    Server(("127.0.0.1", int(port)), Handler).serve_forever()


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    model = Model(sys.argv[1])
    if "--check" in sys.argv[4:]:
        v, _ = model.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
        print("%.4f %.4f %.4f" % (v[0] @ v[1], v[0] @ v[2], v[1] @ v[2]))
        return
    print("listening on 127.0.0.1:%s" % sys.argv[3], flush=True)
    serve(model, sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
