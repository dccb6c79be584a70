package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages/resolve"
	"github.com/tkgraph/backfill/stages/temporal"
)

// cmdQuery answers "which facts were true at --valid-at, as the system knew at --known-at" from
// the checkpoint store, in the context format of the Zep paper or as JSON.
func cmdQuery(ctx context.Context, args []string) int {
	return runQuery(ctx, os.Stdout, time.Now().UTC(), args)
}

// runQuery is cmdQuery writing to out, with now as the default of both times.
func runQuery(ctx context.Context, out io.Writer, now time.Time, args []string) int {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	var jf jobFlags
	jf.register(fs)
	validAt := fs.String("valid-at", "", "facts true at this time (RFC 3339, or YYYY-MM-DD[THH:MM:SS] in UTC; default now)")
	knownAt := fs.String("known-at", "", "as the system knew it at this record time (same forms; default now)")
	group := fs.String("group", "", "only this group (its id as the input wrote it, or as stored)")
	entity := fs.String("entity", "", "only facts about the entity with this name")
	asJSON := fs.Bool("json", false, "print JSON instead of the context format")
	history := fs.Bool("history", false, "every fact known at --known-at with its interval, not only those true at --valid-at")
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 1 {
		return usageError("query", orErr(err, "want exactly one JOB.yaml"))
	}
	va, err1 := parseWhen(*validAt, now)
	ka, err2 := parseWhen(*knownAt, now)
	if err1 != nil || err2 != nil {
		return usageError("query", orErr(err1, fmt.Sprint(err2)))
	}
	_, store, err := jf.openRun(ctx, pos[0])
	if err != nil {
		return fail(ctx, err)
	}
	defer store.Close()
	g := *group
	if g != "" {
		if g, _, err = storeGroup(ctx, store, g); err != nil {
			return fail(ctx, err)
		}
	}
	facts, err := queryFacts(ctx, store, g, *entity, va, ka, *history)
	if err != nil {
		return fail(ctx, err)
	}
	if *asJSON {
		err = writeJSON(ctx, out, store, facts)
	} else {
		err = writeFacts(out, facts)
	}
	if err != nil {
		return fail(ctx, fmt.Errorf("writing facts: %w", err))
	}
	return exitOK
}

// writeFacts prints facts in the Zep context format (evaluation.WriteContext).
func writeFacts(out io.Writer, facts []graph.Fact) error {
	return evaluation.WriteContext(out, facts)
}

// writeJSON prints facts as JSON with, for a group whose id was mapped, the id as the input
// wrote it.
func writeJSON(ctx context.Context, out io.Writer, store *checkpoints.Store, facts []graph.Fact) error {
	rows := factsJSON(facts)
	written := map[string]string{}
	for i, f := range rows {
		w, seen := written[f.GroupID]
		if !seen {
			orig, _, err := store.GroupOriginal(ctx, f.GroupID)
			if err != nil {
				return err
			}
			if orig != f.GroupID {
				w = orig
			}
			written[f.GroupID] = w
		}
		rows[i].Written = w
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// queryFacts loads the facts and version log of one group (or all) and answers AsOf (with
// history, Known: every fact known at knownAt, whatever its validity).
func queryFacts(ctx context.Context, store *checkpoints.Store, group, entity string, validAt, knownAt time.Time, history bool) ([]graph.Fact, error) {
	keep := map[string]bool{}
	if entity != "" {
		want := resolve.Normalize(entity)
		if err := store.EachEntity(ctx, group, func(e graph.Entity) error {
			if resolve.Normalize(e.Name) == want {
				keep[e.UUID] = true
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	var facts []graph.Fact
	if err := store.EachFact(ctx, group, func(f graph.Fact) error {
		if entity == "" || keep[f.SourceUUID] || keep[f.TargetUUID] {
			facts = append(facts, f)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var versions []graph.FactVersion
	if err := store.EachFactVersion(ctx, group, func(v graph.FactVersion) error {
		versions = append(versions, v)
		return nil
	}); err != nil {
		return nil, err
	}
	if history {
		return temporal.Known(facts, versions, knownAt), nil
	}
	return temporal.AsOf(facts, versions, validAt, knownAt), nil
}

func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" || s == "now" {
		return now, nil
	}
	t, err := graph.WithLeapSecond(s, func(s string) (time.Time, error) {
		for _, l := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
			if t, err := time.Parse(l, s); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("cannot read time %q (want RFC 3339 or YYYY-MM-DD)", s)
	})
	return t.UTC(), err
}

type factOut struct {
	UUID      string     `json:"uuid"`
	GroupID   string     `json:"group_id"`
	Written   string     `json:"group_id_as_written,omitempty"` // when the input's id was mapped
	Name      string     `json:"name"`
	Fact      string     `json:"fact"`
	Source    string     `json:"source_node_uuid"`
	Target    string     `json:"target_node_uuid"`
	ValidAt   *time.Time `json:"valid_at"`
	InvalidAt *time.Time `json:"invalid_at"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiredAt *time.Time `json:"expired_at"`
	Episodes  []string   `json:"episodes"`
}

func factsJSON(fs []graph.Fact) []factOut {
	out := make([]factOut, 0, len(fs))
	for _, f := range fs {
		out = append(out, factOut{UUID: f.UUID, GroupID: f.GroupID, Name: f.Name, Fact: f.Fact, Source: f.SourceUUID,
			Target: f.TargetUUID, ValidAt: f.ValidAt, InvalidAt: f.InvalidAt, CreatedAt: f.CreatedAt, ExpiredAt: f.ExpiredAt,
			Episodes: f.Episodes})
	}
	return out
}
