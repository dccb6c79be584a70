"""Serves a GGUF model on loopback with llama.cpp's own C++ HTTP server (OpenAI-compatible), run
in-process by xllamacpp: the prebuilt runtime of scripts/local_llm.sh
(BACKFILL_LOCAL_LLM_RUNTIME=xllamacpp). Runs until it is terminated.

Usage: python xllamacpp_server.py MODEL.gguf ALIAS PORT THREADS CTX

One slot, batches of 128 tokens, a 512 MiB RAM cache of evaluated prompts (so each task's long
system prompt is evaluated once), and the sampling defaults of llama-cpp-python's server where
llama.cpp's differ (a repeat penalty of 1.1), so that a request that sets only the temperature
samples alike on both runtimes.
"""

import sys
import threading

import xllamacpp as xlc


def main():
    gguf, alias, port, threads, ctx = sys.argv[1:6]
    p = xlc.CommonParams()
    p.model.path = gguf
    p.model_alias = {alias}
    p.hostnames = ["127.0.0.1"]
    p.port = int(port)
    p.n_ctx = int(ctx)
    p.n_batch = 128
    p.n_parallel = 1
    p.cpuparams.n_threads = int(threads)
    p.cpuparams_batch.n_threads = int(threads)
    p.cache_ram_mib = 512
    p.sampling.penalty_repeat = 1.1
    server = xlc.Server(p)
    print("listening on", server.listening_address, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
