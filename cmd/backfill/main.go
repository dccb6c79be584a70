// Command backfill builds temporal knowledge graphs from history. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/stages"
	_ "time/tzdata" // job timezones work on machines without zoneinfo
)

// Exit codes (DESIGN §8).
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitPartial     = 3 // finished with quarantined input, failed units or a budget stop
	exitInterrupted = 130
)

// drainCommands drain on the first SIGINT/SIGTERM (stop closes: units in flight commit, nothing
// new starts) and abort on the second (ctx is cancelled).
var drainCommands = map[string]func(ctx context.Context, stop <-chan struct{}, args []string) int{
	"run": cmdRun,
}

// commands stop at the first SIGINT/SIGTERM (ctx is cancelled).
var commands = map[string]func(ctx context.Context, args []string) int{
	"status":   cmdStatus,
	"export":   cmdExport,
	"import":   cmdImport,
	"query":    cmdQuery,
	"eval":     cmdEval,
	"diff":     cmdDiff,
	"plan":     cmdPlan,
	"llm-stub": cmdLLMStub,
}

const usage = `usage: backfill COMMAND [ARGS]

commands:
  run JOB.yaml [--checkpoint PATH] [--shard I/N] [--report FILE.json] [--cpuprofile FILE] [--wait|--no-wait] [--set KEY=VALUE]...
  status JOB.yaml [--group G] [--checkpoint PATH] [--set KEY=VALUE]...
  export JOB.yaml --format parquet|cypherl --out DIR [--dialect memgraph|neo4j] [--analytical] [--checkpoint PATH] [--set KEY=VALUE]...
  import locomo|longmemeval FILE --out episodes.parquet
  plan JOB.yaml [--json FILE] [--set KEY=VALUE]...
  llm-stub [--addr 127.0.0.1:8089] [--latency D] [--jitter D] [--fault-rate F] [--seed N] [--faults K,...] [--bad-rate F] [--bad-kinds K,...] [--bad-tasks T,...]
           [--batch-delay D] [--batch-fail-rate F] [--batch-expire-rate F] [--batch-invalid-rate F] [--batch-max-requests N] [--batch-max-bytes N]
  query JOB.yaml [--valid-at T] [--known-at T2] [--group G] [--entity NAME] [--json] [--checkpoint PATH]
  eval JOB.yaml|JOB@CHECKPOINT|EXPORT_DIR [--dataset locomo|longmemeval FILE] [--gold FILE] [--k 5,10,20] [--min-cosine F] [--qa] [--json FILE] [--markdown FILE] [--checkpoint PATH] [--set KEY=VALUE]...
  diff A B [--group G] [--json FILE] [--markdown FILE] [--limit N] [--set KEY=VALUE]...   (A, B: JOB.yaml, JOB.yaml@CHECKPOINT or EXPORT_DIR)
`

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()})))
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(exitUsage)
	}
	cmd, ok := commands[os.Args[1]]
	drain, drains := drainCommands[os.Args[1]]
	if !ok && !drains {
		if os.Args[1] == "help" || os.Args[1] == "-h" || os.Args[1] == "--help" {
			fmt.Print(usage)
			os.Exit(exitOK)
		}
		fmt.Fprintf(os.Stderr, "backfill: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(exitUsage)
	}
	soft, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var code int
	if drains {
		hard, cancel := context.WithCancel(context.Background())
		finished := make(chan struct{})
		go func() {
			select {
			case <-soft.Done():
			case <-finished:
				return
			}
			select {
			case <-finished: // soft ended with stop() after the command returned: no signal
				return
			default:
			}
			slog.Warn("interrupted: finishing the units in flight; interrupt again to abort them")
			again := make(chan os.Signal, 1)
			signal.Notify(again, os.Interrupt, syscall.SIGTERM)
			<-again
			cancel()
		}()
		code = drain(hard, soft.Done(), os.Args[2:])
		close(finished)
	} else {
		code = cmd(soft, os.Args[2:])
	}
	stop()
	os.Exit(code)
}

func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("BACKFILL_LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}

// fail prints an error and returns the exit code for it: a --set that cannot apply is a usage
// error.
func fail(ctx context.Context, err error) int {
	if errors.Is(err, stages.ErrInterrupted) || errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "backfill: interrupted; run the same command again to resume")
		return exitInterrupted
	}
	var set *jobs.SetError
	if errors.As(err, &set) {
		fmt.Fprintf(os.Stderr, "backfill: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(os.Stderr, "backfill: %v\n", err)
	return exitFailed
}
