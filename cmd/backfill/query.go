package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/termtext"
)

// queryOptions are the flags of query.
type queryOptions struct {
	jobFlags
	validAt, knownAt, group, entity string
	json, history                   bool
}

func newQueryCmd(c *cli) *cobra.Command {
	var o queryOptions
	cmd := &cobra.Command{
		Use:   "query JOB.yaml",
		Short: "Which facts were true at a time, as the system knew them at another",
		Long: `Query answers "which facts were true at --valid-at, as the system knew it at --known-at" from the
fact version log of the job's checkpoint store. Both default to now; a time is RFC 3339 (leap
seconds included) or YYYY-MM-DD[THH:MM:SS], read as UTC.

It prints the facts in the Zep paper's context format, one "  - FACT (Date range: from - to)"
line each inside <FACTS>…</FACTS> ("date unknown" and "present" for open ends), or JSON with
--json (which adds group_id_as_written for mapped groups). --history lists every fact known at
--known-at with its interval, whatever its validity.

--entity keeps the facts of the entities with that name: compared case-insensitively after
Unicode normalization and, when no name is equal, with a Korean particle removed ("지훈은" finds
지훈). A name that matches no entity is an error that names the closest ones. --group takes the
id as the input wrote it or as stored; a group not in the store is an error that lists its
groups. Query only reads the store.`,
		Example: `  # Where did Alice work on 2024-04-01, as known now, and as the system knew it on 2024-03-01?
  backfill query jobs/examples/demo.yaml --group alice --entity Alice --valid-at 2024-04-01
  backfill query jobs/examples/demo.yaml --group alice --entity Alice --valid-at 2024-04-01 --known-at 2024-03-01

  # A ticket's whole history
  backfill query jobs/examples/tickets.yaml --group storefront --entity "Checkout button unresponsive on Safari" --history`,
		Args:              jobArg,
		ValidArgsFunction: completeJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(o.run(cmd.Context(), c.out, c.now(), args[0]))
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.validAt, "valid-at", "", "facts true in the world at this `TIME` (RFC 3339, or YYYY-MM-DD[THH:MM:SS] in UTC; default now)")
	f.StringVar(&o.knownAt, "known-at", "", "as the system knew them at this record `TIME` (same forms; default now)")
	f.StringVar(&o.entity, "entity", "", "only facts about the entities with this `NAME` (case- and particle-insensitive)")
	f.BoolVar(&o.json, "json", false, "print JSON instead of the context format")
	f.BoolVar(&o.history, "history", false, "every fact known at --known-at with its interval, not only those true at --valid-at")
	o.registerGroup(cmd, &o.group)
	return cmd
}

// run prints the facts of the job at path; now is the default of both times.
func (o *queryOptions) run(ctx context.Context, out io.Writer, now time.Time, path string) int {
	va, err1 := parseWhen(o.validAt, now)
	ka, err2 := parseWhen(o.knownAt, now)
	if err := cmp.Or(err1, err2); err != nil {
		return usageError("query", err)
	}
	store, g, err := o.openGroup(ctx, path, o.group)
	if err != nil {
		return fail(ctx, err)
	}
	defer store.Close()
	facts, err := queryFacts(ctx, store, g, o.entity, va, ka, o.history)
	if err != nil {
		return fail(ctx, err)
	}
	if o.json {
		err = writeJSON(ctx, out, store, facts)
	} else {
		err = writeFacts(out, facts)
	}
	if err != nil {
		return fail(ctx, fmt.Errorf("writing facts: %w", err))
	}
	if len(facts) == 0 {
		fmt.Fprintf(os.Stderr, "backfill query: %s\n", o.noFacts(va, ka))
	}
	return exitOK
}

// noFacts says that the query matched no fact, and what it asked: an empty answer is an answer
// (exit 0), but one a user should not mistake for a broken query.
func (o *queryOptions) noFacts(validAt, knownAt time.Time) string {
	of := "the store"
	switch {
	case o.entity != "" && o.group != "":
		of = fmt.Sprintf("%s in group %s", termtext.Value(o.entity), termtext.Value(o.group))
	case o.entity != "":
		of = termtext.Value(o.entity)
	case o.group != "":
		of = "group " + termtext.Value(o.group)
	}
	known := knownAt.Format(time.RFC3339)
	if o.history {
		return fmt.Sprintf("no fact of %s was known at %s", of, known)
	}
	return fmt.Sprintf("no fact of %s was valid at %s as known at %s (--history lists every fact known then, whatever its validity)",
		of, validAt.Format(time.RFC3339), known)
}

// writeFacts prints facts in the Zep context format (evaluation.WriteContext), their text with
// its control characters escaped (internal/termtext).
func writeFacts(out io.Writer, facts []graph.Fact) error {
	shown := make([]graph.Fact, len(facts))
	for i, f := range facts {
		f.Fact = termtext.Value(f.Fact)
		shown[i] = f
	}
	return evaluation.WriteContext(out, shown)
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
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	_, err = out.Write(append(termtext.JSON(b), '\n'))
	return err
}

// queryFacts loads the facts and version log of one group (or all) and answers AsOf (with
// history, Known: every fact known at knownAt, whatever its validity).
func queryFacts(ctx context.Context, store *checkpoints.Store, group, entity string, validAt, knownAt time.Time, history bool) ([]graph.Fact, error) {
	var keep map[string]bool
	if entity != "" {
		var err error
		if keep, err = matchEntities(ctx, store, group, entity); err != nil {
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
		return graph.Known(facts, versions, knownAt), nil
	}
	return graph.AsOf(facts, versions, validAt, knownAt), nil
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
