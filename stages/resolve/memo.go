package resolve

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// MemoStage is the stage name under which each group's Memo is stored (unit = group id).
const MemoStage = "resolve_memo"

// Memo holds the LLM's answers about the pairs of a group, so that a re-run, or an incremental
// run that adds episodes, asks only about pairs it has not seen. Entity pairs are keyed by the
// canonical names of their two clusters, fact pairs by the two fact uuids. A memo made with
// another model or prompt version (Version) is not used.
type Memo struct {
	Version  string          `json:"version"`
	Entities map[string]bool `json:"entities"` // pair key → same entity
	Facts    map[string]bool `json:"facts"`    // pair key → duplicate facts
}

// newMemo returns an empty memo of a version.
func newMemo(version string) *Memo {
	return &Memo{Version: version, Entities: map[string]bool{}, Facts: map[string]bool{}}
}

// memoVersion is the version of the answers an env would give: the versions of the two tasks
// (stages.LLM.TaskVersion). It is not a unit fingerprint (the stage's key holds the same
// versions); it stays as stored memos have it, so a memo stays valid as long as its answers do.
func memoVersion(env stages.Env) string {
	var parts []string
	for _, t := range []string{wire.TaskResolveEntities, wire.TaskDedupeFacts} {
		parts = append(parts, t+"="+env.LLM.TaskVersion(t))
	}
	return stages.Fingerprint(parts...)
}

// memoKey is the key of an unordered pair of names or ids.
func memoKey(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return a + "\x1f" + b
}

// loadMemo reads the stored memo of a group; a missing or unreadable one is empty.
func loadMemo(ctx context.Context, store *checkpoints.Store, group string) (*Memo, error) {
	body, ok, err := store.Output(ctx, MemoStage, group)
	if err != nil || !ok {
		return nil, err
	}
	var m Memo
	if json.Unmarshal(body, &m) != nil {
		return nil, nil // a memo is only a shortcut: an unreadable one is asked again
	}
	return &m, nil
}

// putMemo stores a group's memo in the unit's transaction.
func putMemo(ctx context.Context, tx *checkpoints.Tx, group string, m *Memo) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding resolution memo: %w", err)
	}
	return tx.PutOutput(ctx, MemoStage, group, group, body)
}

// lookup returns a stored answer when prev is of version v.
func lookup(prev *Memo, v string, table func(*Memo) map[string]bool, key string) (same, ok bool) {
	if prev == nil || prev.Version != v {
		return false, false
	}
	same, ok = table(prev)[key]
	return same, ok
}
