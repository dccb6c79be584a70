package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/ingest"
)

// ForgetOptions are the settings of Forget.
type ForgetOptions struct {
	// Run is how the groups the deletion changed are computed again (Checkpoint, Clock,
	// Progress, Log, Env, Stop); Forget sets its Skip.
	Run       Options
	Selection checkpoints.Selection
	// Originals are the group ids as the input wrote them, of the groups Selection.Groups
	// names (for the quarantine, which holds input rows); it may be empty.
	Originals []string
	DryRun    bool // list what would go, change nothing
	Load      bool // load the changed groups into the sink now (otherwise: at the next run)
}

// Forgetting is what Forget did, or with DryRun would do.
type Forgetting struct {
	Episodes []checkpoints.EpisodeRef `json:"episodes"`
	Impact   checkpoints.Impact       `json:"impact"`
	// Quarantined counts the quarantined rows whose raw text holds a selected value (a speaker,
	// a text to match, a group id or record key in quotes): Forget removes them, and later runs
	// skip their rows while the source holds them (counted as forgotten).
	Quarantined int `json:"quarantined"`
	// Pending are the groups an earlier deletion left to compute again (completed by this run).
	Pending  []string              `json:"pending,omitempty"`
	Deletion *checkpoints.Deletion `json:"deletion,omitempty"` // nil on a dry run or when nothing matched
	Report   *report.Report        `json:"run,omitempty"`      // the run that computed the groups again (nil on a dry run or with nothing to do)
	// contents are the texts of the forgotten episodes and the values selected (Texts).
	contents []string
}

// Texts are what files written from the store may hold of what f forgets (or would forget):
// the selected values, the contents and record keys of the episodes, the names of the
// entities only they mentioned and the sentences of the facts only they supported. Forget
// rewrites the reports it recorded without them (cmd/backfill); Redact drops them from f.
func (f *Forgetting) Texts() []string {
	out := slices.Clone(f.contents)
	for _, e := range f.Episodes {
		out = append(out, e.RecordKey)
	}
	for _, e := range f.Impact.Entities {
		out = append(out, e.Name)
	}
	for _, x := range f.Impact.Facts {
		out = append(out, x.Fact)
	}
	return slices.DeleteFunc(out, func(s string) bool { return strings.TrimSpace(s) == "" })
}

// Redact leaves out of f what the forgotten episodes said or named (speakers, record keys,
// entity names, fact sentences, group ids), keeping uuids and counts: what Forget reports once
// the episodes are gone.
func (f *Forgetting) Redact() {
	for i := range f.Episodes {
		f.Episodes[i].Speaker, f.Episodes[i].RecordKey, f.Episodes[i].GroupID = "", "", ""
	}
	for i := range f.Impact.Entities {
		f.Impact.Entities[i].Name, f.Impact.Entities[i].GroupID = "", ""
	}
	for i := range f.Impact.Facts {
		f.Impact.Facts[i].Name, f.Impact.Facts[i].Fact, f.Impact.Facts[i].GroupID = "", "", ""
	}
	f.Pending = make([]string, len(f.Pending))
	f.Impact.Groups = make([]string, len(f.Impact.Groups))
	f.contents = nil
}

// Forget removes the episodes the selection chooses from the job's store (opened by OpenStore:
// for writing, or read-only with o.DryRun) and computes what depended on them again
// (checkpoints.Store.Forget, then Run on the same store without ingest, and without load
// unless o.Load; the run's end completes the forgetting: Purge, Compact): entities only they
// mentioned and facts only they supported disappear, the groups' summaries, communities and the
// extractions whose context held them are computed again (from the LLM cache where their inputs
// did not change), the cached answers the groups no longer ask are deleted, the answers of
// provider batches still pending that the groups asked are discarded when collected, the
// quarantined rows holding a selected value are removed from the table and the quarantine
// file, and the failed-units file is rewritten. A deletion an earlier Forget or mirror run left
// incomplete is completed too. With o.DryRun it only reports what would go.
func Forget(ctx context.Context, j *pipeline.Job, store *Store, o ForgetOptions) (*Forgetting, error) {
	o.Run.defaults(j)
	if err := o.Check(j); err != nil {
		return nil, err
	}
	f, err := markForgetting(ctx, store.Store, o)
	if err != nil || o.DryRun || ((f.Deletion == nil || f.Deletion.Episodes == 0) && len(f.Pending) == 0) {
		return f, err // nothing to compute again (a deletion of quarantined rows alone is complete)
	}
	ro := o.Run
	ro.Store = store
	ro.Skip = append(ro.Skip, stages.Ingest)
	if !o.Load {
		ro.Skip = append(ro.Skip, stages.Load)
	}
	f.Report, err = Run(ctx, j, ro)
	if err != nil {
		return f, fmt.Errorf("computing the groups again after forgetting (the episodes are gone from the store; run `backfill forget` or `backfill run` again to complete): %w", err)
	}
	return f, nil
}

// Check refuses what cannot apply to the job, before the store is opened (a writer of an
// s3:// store would take its lease and upload a snapshot): --load without a graph database
// sink.
func (o ForgetOptions) Check(j *pipeline.Job) error {
	if o.Load && !j.Sink.GraphSink() {
		return fmt.Errorf("forgetting: --load needs a graph database sink (sink.kind memgraph, neo4j or falkordb; the job's is %s)", j.Sink.Kind)
	}
	return nil
}

// markForgetting selects the episodes and, unless o.DryRun, removes them from the store and the
// quarantine (one store transaction, then the quarantine file). A selection that chooses no
// episode but quarantined rows removes those rows alone (a deletion of no episode).
func markForgetting(ctx context.Context, store *checkpoints.Store, o ForgetOptions) (*Forgetting, error) {
	f := &Forgetting{}
	var err error
	if f.Pending, err = store.PendingGroups(ctx); err != nil {
		return nil, err
	}
	if !o.Selection.Empty() { // empty: every value was forgotten before; only what is pending is left
		if f.Episodes, err = store.SelectEpisodes(ctx, o.Selection); err != nil {
			return nil, err
		}
	}
	if f.Impact, err = store.Impact(ctx, f.Episodes); err != nil {
		return nil, err
	}
	values := QuarantineValues(o.Selection, o.Originals)
	qpath := ingest.QuarantineFile(store.Path())
	if o.DryRun {
		f.Quarantined, err = store.QuarantineMatching(ctx, values, 0)
		return f, err
	}
	uuids := make([]string, len(f.Episodes))
	for i, e := range f.Episodes {
		uuids[i] = e.UUID
	}
	if f.contents, err = store.EpisodeTexts(ctx, uuids); err != nil { // read before they go
		return nil, err
	}
	f.contents = append(f.contents, o.Selection.Speakers...)
	f.contents = append(f.contents, o.Selection.Matches...)
	f.contents = append(f.contents, o.Selection.Keys...)
	quarantined := 0
	if len(f.Episodes) == 0 && len(values) > 0 {
		if quarantined, err = store.QuarantineMatching(ctx, values, 0); err != nil {
			return nil, err
		}
	}
	if len(f.Episodes) > 0 || quarantined > 0 {
		d, err := store.Forget(ctx, checkpoints.Deletion{At: o.Run.Clock.Now(), Command: forgetCommand(o),
			Selectors: selectors(o.Selection)}, f.Episodes)
		if err != nil {
			return nil, err
		}
		f.Deletion = &d
	}
	if f.Deletion != nil {
		if f.Quarantined, err = store.QuarantineMatching(ctx, values, f.Deletion.Seq); err != nil {
			return nil, err
		}
	}
	if err := scrubLines(qpath, values); err != nil {
		return nil, err
	}
	return f, nil
}

// forgetCommand is the command a deletion records: its flags, never their values.
func forgetCommand(o ForgetOptions) string {
	cmd := "backfill forget"
	if o.Load {
		cmd += " --load"
	}
	return cmd
}

// selectors are the recorded form of a selection: each value's kind and hash.
func selectors(sel checkpoints.Selection) []checkpoints.Selector {
	var out []checkpoints.Selector
	add := func(kind string, vals []string) {
		for _, v := range vals {
			out = append(out, checkpoints.Selector{Kind: kind, Hash: checkpoints.HashValue(kind, v)})
		}
	}
	add(checkpoints.SelectGroup, sel.Groups)
	add(checkpoints.SelectEpisode, sel.Keys)
	add(checkpoints.SelectSpeaker, sel.Speakers)
	add(checkpoints.SelectMatch, sel.Matches)
	return out
}

// QuarantineValues are the texts whose quarantined rows a forgetting of sel removes: speakers
// and texts to match as they are, group ids (as stored, and as the input wrote them:
// originals) and record keys in quotes (as a JSON row holds them; bare, a short key would
// match unrelated rows).
func QuarantineValues(sel checkpoints.Selection, originals []string) []string {
	out := append(append([]string{}, sel.Speakers...), sel.Matches...)
	for _, v := range append(append(append([]string{}, sel.Groups...), originals...), sel.Keys...) {
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

// scrubLines rewrites the JSON Lines file at path without the lines whose "raw" field holds one
// of values (atomically, internal/safefile). A missing file is left missing.
func scrubLines(path string, values []string) error {
	if len(values) == 0 {
		return nil
	}
	in, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("scrubbing %s: %w", path, err)
	}
	defer in.Close()
	var out bytes.Buffer
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && !lineHolds(line, values) {
			out.Write(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("scrubbing %s: %w", path, err)
		}
	}
	if err := safefile.WriteFile(path, out.Bytes()); err != nil {
		return fmt.Errorf("scrubbing %s: %w", path, err)
	}
	return nil
}

// lineHolds reports whether a quarantine line's raw text holds one of values (a line that is
// no JSON object is tested whole).
func lineHolds(line []byte, values []string) bool {
	text := string(line)
	var q struct {
		Raw *string `json:"raw"`
	}
	if json.Unmarshal(line, &q) == nil && q.Raw != nil {
		text = *q.Raw
	}
	for _, v := range values {
		if v != "" && strings.Contains(text, v) {
			return true
		}
	}
	return false
}

// purge completes the forgetting of the pending groups once every step of the run has ended
// (checkpoints.Store.Purge); Run then compacts the store after recording the run.
func purge(ctx context.Context, store *checkpoints.Store, rep *report.Report, opts Options) error {
	p, err := store.Purge(ctx, opts.Clock.Now())
	if err != nil || len(p.Groups) == 0 {
		return err
	}
	purged := report.Purged(p)
	rep.Purged = &purged
	opts.Log.Info("forgetting completed", "groups", len(p.Groups), "groups_emptied", len(p.Gone),
		"cache_rows_deleted", p.CacheRows, "batch_requests_deleted", p.BatchRequests)
	return nil
}
