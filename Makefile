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

.PHONY: all build demo test unit bench lint clean graphiti-check

all: build

build:
	$(GO) mod download
	$(GO) build $(GOFLAGS) -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/backfill

## demo: run the main job on the bundled sample with the offline LLM responder and the SQLite store
demo: build
	rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	BACKFILL_CHECKPOINT=$(DEMO_DIR)/demo.db ./$(BIN) run jobs/examples/demo.yaml --report $(DEMO_DIR)/report.json
	./$(BIN) export jobs/examples/demo.yaml --checkpoint $(DEMO_DIR)/demo.db --format parquet --out $(DEMO_DIR)/export
	@echo "Alice's employers: the Kakao fact is closed when Naver starts, the Naver fact is open"
	@./$(BIN) query jobs/examples/demo.yaml --checkpoint $(DEMO_DIR)/demo.db --group alice --entity Kakao --valid-at 2024-02-01
	@./$(BIN) query jobs/examples/demo.yaml --checkpoint $(DEMO_DIR)/demo.db --group alice --entity Naver --valid-at 2024-04-01
	@echo "The demo graph scored against its hand-written gold facts (offline responder: a baseline for mechanics)"
	@./$(BIN) eval jobs/examples/demo.yaml --checkpoint $(DEMO_DIR)/demo.db --gold examples/gold/demo.yaml --markdown $(DEMO_DIR)/eval.md
	@echo "report: $(DEMO_DIR)/report.json  export: $(DEMO_DIR)/export  eval: $(DEMO_DIR)/eval.md"

## test: everything CI runs. scripts/with_servers.sh starts Neo4j and versitygw (unless they run
## already), runs the tests with their variables set, and stops what it started on any exit (trap).
test: build
	$(GO) vet ./...
	scripts/with_servers.sh $(GO) test $(TESTFLAGS) ./...

## bench: the benchmark harness (bench/; measurements, not pass/fail), with the Neo4j the Bolt load
## benchmark needs: writes bench/results.json and bench/results.md. BENCH_SIZES, BENCH_INGEST_SIZES
## and BENCH_ONLY narrow it (see bench/doc.go); it takes about 35 minutes on 2 cores, most of it
## the 1M-episode run through every stage.
bench: build
	BACKFILL_SERVERS=neo4j scripts/with_servers.sh $(GO) run ./bench -out bench -neo4j off

## graphiti-check: load the demo graph into Neo4j and print the facts Graphiti's own search returns
graphiti-check: build
	BACKFILL_SERVERS=neo4j scripts/with_servers.sh scripts/graphiti_check.sh

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin .backfill
