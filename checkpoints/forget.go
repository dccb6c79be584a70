package checkpoints

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm/batchrec"
)

// forgottenTable holds a hash (HashValue "episode") of every episode uuid a deletion removed,
// so ingest skips the rows the source still holds.
const forgottenTable = `CREATE TABLE IF NOT EXISTS forgotten (hash TEXT PRIMARY KEY, deletion INTEGER NOT NULL)`

// deletionsTable is the deletion record: what was forgotten (selector kinds and hashes, never
// the values), when, by which command, how much, and when the forgetting completed.
// batch_requests counts the request rows of provider batches still pending whose answers the
// deletion discards (markGroups).
const deletionsTable = `CREATE TABLE IF NOT EXISTS deletions (` + deletionsColumnsV9 + `,
		batch_requests INTEGER NOT NULL DEFAULT 0)`

// deletionsColumnsV9 are the columns deletions had in schema versions 9 and 10.
const deletionsColumnsV9 = `
		seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, command TEXT NOT NULL, selectors TEXT NOT NULL,
		episodes INTEGER NOT NULL, groups INTEGER NOT NULL, entities INTEGER NOT NULL, facts INTEGER NOT NULL,
		cache_rows INTEGER NOT NULL DEFAULT 0, purged_at INTEGER`

// forgetPendingTable lists the groups a deletion changed whose forgetting is not complete: their
// stages have not all run again since, or the cache rows they no longer ask are not yet deleted.
const forgetPendingTable = `CREATE TABLE IF NOT EXISTS forget_pending (group_id TEXT PRIMARY KEY, deletion INTEGER NOT NULL)`

// Selector kinds of a deletion.
const (
	SelectGroup    = "group"
	SelectEpisode  = "episode"
	SelectSpeaker  = "speaker"
	SelectMatch    = "match"
	SelectVanished = "vanished" // sources[].sync: mirror: the rows gone from a source
)

// Selector is one criterion of a recorded deletion: its kind and the hash of its value
// (HashValue), or for SelectVanished the source's path.
type Selector struct {
	Kind   string `json:"kind"`
	Hash   string `json:"hash,omitempty"`
	Source string `json:"source,omitempty"`
}

// HashValue is the hash under which the store records a forgotten value of a kind: the hex
// sha256 of a version tag, the kind and the value. It keeps the value out of the store; a
// value that can be guessed (a name) can be confirmed by hashing the guess.
func HashValue(kind, value string) string {
	h := sha256.Sum256([]byte("backfill-forget-v1\x00" + kind + "\x00" + value))
	return hex.EncodeToString(h[:])
}

// Deletion is one row of the deletion record.
type Deletion struct {
	Seq       int64      `json:"seq"`
	At        time.Time  `json:"at"`
	Command   string     `json:"command"`
	Selectors []Selector `json:"selectors"`
	Episodes  int        `json:"episodes"`
	Groups    int        `json:"groups"`
	// Entities and Facts are those only the forgotten episodes mentioned or supported when the
	// deletion was recorded (Impact).
	Entities  int `json:"entities"`
	Facts     int `json:"facts"`
	CacheRows int `json:"cache_rows"` // cached answers deleted when the forgetting completed
	// BatchRequests counts the requests of provider batches still pending that the groups'
	// units asked: their answers are discarded when the batches are collected.
	BatchRequests int        `json:"batch_requests,omitempty"`
	PurgedAt      *time.Time `json:"purged_at,omitempty"`
}

// Selection chooses episodes: a value of a kind matches on its own, kinds narrow each other
// (Alice's episodes of group g: Speakers Alice, Groups g). An empty kind matches every episode;
// at least one kind must be given.
type Selection struct {
	Groups   []string // store group ids
	Keys     []string // record keys as the input wrote them, or episode uuids
	Speakers []string // speakers as the input wrote them
	Matches  []string // text found in an episode's content, name or JSON record (case-sensitive)
}

// Empty reports whether the selection gives no criterion.
func (s Selection) Empty() bool {
	return len(s.Groups)+len(s.Keys)+len(s.Speakers)+len(s.Matches) == 0
}

// EpisodeRef names a staged episode without its content.
type EpisodeRef struct {
	UUID          string    `json:"uuid"`
	GroupID       string    `json:"group_id"`
	RecordKey     string    `json:"record_key"`
	Speaker       string    `json:"speaker,omitempty"`
	ReferenceTime time.Time `json:"reference_time"`
}

// SelectEpisodes returns the episodes the selection chooses, in group order.
func (s *Store) SelectEpisodes(ctx context.Context, sel Selection) ([]EpisodeRef, error) {
	if sel.Empty() {
		return nil, fmt.Errorf("selecting episodes: no criterion")
	}
	var where []string
	var args []any
	in := func(col string, vals []string) string {
		for _, v := range vals {
			args = append(args, v)
		}
		return col + " IN (?" + strings.Repeat(",?", len(vals)-1) + ")"
	}
	if len(sel.Groups) > 0 {
		where = append(where, in("group_id", sel.Groups))
	}
	if len(sel.Keys) > 0 {
		where = append(where, "("+in("record_key", sel.Keys)+" OR "+in("uuid", sel.Keys)+")")
	}
	if len(sel.Speakers) > 0 {
		where = append(where, in("speaker", sel.Speakers))
	}
	if len(sel.Matches) > 0 {
		var or []string
		for _, m := range sel.Matches {
			or = append(or, "instr(content, ?) > 0 OR instr(name, ?) > 0 OR instr(record, ?) > 0")
			args = append(args, m, m, m)
		}
		where = append(where, "("+strings.Join(or, " OR ")+")")
	}
	return s.episodeRefs(ctx, strings.Join(where, " AND "), args...)
}

// episodeRefs returns the episodes a WHERE clause selects, in group order.
func (s *Store) episodeRefs(ctx context.Context, where string, args ...any) ([]EpisodeRef, error) {
	var out []EpisodeRef
	err := s.each(ctx, "episodes", `SELECT uuid, group_id, record_key, speaker, reference_time FROM episodes WHERE `+
		where+` ORDER BY group_id, reference_time, seq, uuid`, args, func(r *sql.Rows) error {
		var e EpisodeRef
		var ref int64
		if err := r.Scan(&e.UUID, &e.GroupID, &e.RecordKey, &e.Speaker, &ref); err != nil {
			return err
		}
		e.ReferenceTime = fromMicros(ref)
		out = append(out, e)
		return nil
	})
	return out, err
}

// EpisodeTexts returns the contents of the episodes of the uuids (each once, in no particular
// order): what files written from the store may quote of them.
func (s *Store) EpisodeTexts(ctx context.Context, uuids []string) ([]string, error) {
	var out []string
	for len(uuids) > 0 {
		chunk := uuids[:min(len(uuids), forgetChunk)]
		uuids = uuids[len(chunk):]
		args := make([]any, len(chunk))
		for i, u := range chunk {
			args[i] = u
		}
		got, err := s.texts(ctx, "episode contents", `SELECT DISTINCT content FROM episodes WHERE content <> '' AND uuid IN (?`+
			strings.Repeat(",?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// Speakers lists the distinct speakers of the staged episodes, sorted (for the error of a
// --speaker that matched nothing).
func (s *Store) Speakers(ctx context.Context) ([]string, error) {
	return s.texts(ctx, "speakers", `SELECT DISTINCT speaker FROM episodes WHERE speaker <> '' ORDER BY speaker`)
}

// texts returns the one text column of a query's rows.
func (s *Store) texts(ctx context.Context, what, q string, args ...any) ([]string, error) {
	var out []string
	err := s.each(ctx, what, q, args, func(r *sql.Rows) error {
		var v string
		if err := r.Scan(&v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// Forget removes the episodes from the store and records the deletion d (its Seq, counts and,
// when zero, At are set here: Entities and Facts from Impact), in one transaction, and returns d. For each group it changed the transaction also
// removes the group's graph (entities, mentions, facts and their version log, communities), its
// stage records and outputs except its load record, so the next run computes the group again
// from its remaining episodes as a fresh run would; when the cache holds answers the group's
// units asked, the records of its remaining episodes' extractions go too, so that run asks the
// cache for every request the group still makes. The group is marked pending (forget_pending)
// and the cached answers it asked are marked not live: Purge, once a run has recomputed the
// group, deletes those it did not ask again. The hash of each episode's uuid is recorded
// (forgotten), so ingest skips the rows while the source holds them, except for a deletion of
// rows that vanished from a mirror source (SelectVanished): a row that comes back is new input. A group left without
// episodes loses its group_ids row; its load record stays, so the next load empties the
// group in the sink.
func (s *Store) Forget(ctx context.Context, d Deletion, eps []EpisodeRef) (Deletion, error) {
	if d.At.IsZero() {
		d.At = time.Now()
	}
	im, err := s.Impact(ctx, eps)
	if err != nil {
		return d, err
	}
	d.Entities, d.Facts = len(im.Entities), len(im.Facts)
	uuids := make([]string, len(eps))
	for i, e := range eps {
		uuids[i] = e.UUID
	}
	err = s.Write(ctx, func(tx *Tx) error {
		groups, err := episodeGroups(ctx, tx, uuids)
		if err != nil {
			return err
		}
		d.Episodes, d.Groups = len(uuids), len(groups)
		res, err := tx.tx.ExecContext(ctx, `INSERT INTO deletions(at, command, selectors, episodes, groups, entities, facts) VALUES(?,?,?,?,?,?,?)`,
			micros(d.At), d.Command, encodeJSON(d.Selectors), d.Episodes, d.Groups, d.Entities, d.Facts)
		if err != nil {
			return fmt.Errorf("recording the deletion: %w", err)
		}
		if d.Seq, err = res.LastInsertId(); err != nil {
			return fmt.Errorf("recording the deletion: %w", err)
		}
		keepOut := d.keepsOut()
		for _, u := range uuids {
			if keepOut {
				if err := tx.exec(ctx, "recording forgotten episode "+u, `INSERT OR IGNORE INTO forgotten(hash, deletion) VALUES(?, ?)`,
					HashValue(SelectEpisode, u), d.Seq); err != nil {
					return err
				}
			}
			for _, q := range []string{
				`DELETE FROM units WHERE unit = ?`,
				`DELETE FROM stage_outputs WHERE unit = ?`,
				`DELETE FROM episodes WHERE uuid = ?`,
			} {
				if err := tx.exec(ctx, "forgetting episode "+u, q, u); err != nil {
					return err
				}
			}
		}
		if d.BatchRequests, err = markGroups(ctx, tx, groups, d.Seq); err != nil {
			return err
		}
		return tx.exec(ctx, "recording the deletion", `UPDATE deletions SET batch_requests = ? WHERE seq = ?`, d.BatchRequests, d.Seq)
	})
	return d, err
}

// keepsOut reports whether the deletion keeps its episodes out of later runs (forgotten): every
// deletion but one of rows that vanished from a mirror source, whose rows, if they come back,
// are new input.
func (d Deletion) keepsOut() bool {
	for _, s := range d.Selectors {
		if s.Kind != SelectVanished {
			return true
		}
	}
	return len(d.Selectors) == 0
}

// episodeGroups returns the distinct groups of the episodes, sorted.
func episodeGroups(ctx context.Context, tx *Tx, uuids []string) ([]string, error) {
	set := map[string]bool{}
	for _, u := range uuids {
		var g string
		err := tx.tx.QueryRowContext(ctx, `SELECT group_id FROM episodes WHERE uuid = ?`, u).Scan(&g)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading episode %s: %w", u, err)
		}
		set[g] = true
	}
	out := make([]string, 0, len(set))
	for g := range set {
		out = append(out, g)
	}
	sort.Strings(out)
	return out, nil
}

// markGroups resets the groups a deletion changed and marks them pending (see Forget). The
// requests of provider batches still pending that their units asked (or whose group is not
// known) are marked batchrec.ReqForgotten without their detail and raw answer: their answers are
// discarded when the batches are collected. It returns how many it marked.
func markGroups(ctx context.Context, tx *Tx, groups []string, deletion int64) (int, error) {
	if len(groups) == 0 {
		return 0, nil
	}
	discarded := 0
	for _, g := range append([]string{""}, groups...) {
		res, err := tx.tx.ExecContext(ctx, `UPDATE llm_batch_requests SET status = ?, detail = '', raw = NULL
			WHERE status = ? AND group_id = ?`, batchrec.ReqForgotten, batchrec.ReqPending, g)
		if err != nil {
			return 0, fmt.Errorf("discarding the pending batch requests of group %s: %w", g, err)
		}
		n, _ := res.RowsAffected()
		discarded += int(n)
	}
	// Answers cached before the store recorded groups carry no group: each forgotten group
	// takes them, so a run that does not ask them again lets Purge delete them.
	if err := tx.exec(ctx, "listing untagged cache rows", `CREATE TEMP TABLE IF NOT EXISTS forget_untagged (key TEXT PRIMARY KEY)`); err != nil {
		return 0, err
	}
	if err := tx.exec(ctx, "listing untagged cache rows", `INSERT OR IGNORE INTO temp.forget_untagged SELECT key FROM llm_cache c
		WHERE NOT EXISTS (SELECT 1 FROM llm_cache_groups g WHERE g.key = c.key)`); err != nil {
		return 0, err
	}
	for _, g := range groups {
		var cached bool
		if err := tx.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM llm_cache_groups WHERE group_id = ?)
			OR EXISTS (SELECT 1 FROM temp.forget_untagged)`, g).Scan(&cached); err != nil {
			return 0, fmt.Errorf("reading the cache rows of group %s: %w", g, err)
		}
		stmts := []string{
			`INSERT OR REPLACE INTO forget_pending(group_id, deletion) VALUES(?, ` + fmt.Sprint(deletion) + `)`,
			`DELETE FROM units WHERE unit = ? AND stage <> 'load'`,
			`DELETE FROM stage_outputs WHERE unit = ?`,
			`DELETE FROM entities WHERE group_id = ?`,
			`DELETE FROM mentions WHERE group_id = ?`,
			`DELETE FROM facts WHERE group_id = ?`,
			`DELETE FROM fact_versions WHERE group_id = ?`,
			`DELETE FROM communities WHERE group_id = ?`,
			`UPDATE llm_cache_groups SET live = 0 WHERE group_id = ?`,
			`INSERT OR IGNORE INTO llm_cache_groups(key, group_id, live) SELECT key, ?, 0 FROM temp.forget_untagged`,
			`DELETE FROM group_ids WHERE group_id = ?1 AND NOT EXISTS (SELECT 1 FROM episodes WHERE group_id = ?1)`,
		}
		if cached { // every extraction asks the cache again, so Purge sees which answers stay in use
			stmts = append(stmts,
				`DELETE FROM units WHERE unit IN (SELECT uuid FROM episodes WHERE group_id = ?)`,
				`DELETE FROM stage_outputs WHERE group_id = ?`)
		}
		for _, q := range stmts {
			if _, err := tx.tx.ExecContext(ctx, q, g); err != nil {
				return 0, fmt.Errorf("resetting group %s: %w", g, err)
			}
		}
	}
	return discarded, tx.exec(ctx, "dropping the list of untagged cache rows", `DROP TABLE temp.forget_untagged`)
}

// ForgottenAmong returns which of the episode uuids a deletion forgot.
func (s *Store) ForgottenAmong(ctx context.Context, uuids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for len(uuids) > 0 {
		chunk := uuids[:min(len(uuids), forgetChunk)]
		uuids = uuids[len(chunk):]
		byHash := make(map[string]string, len(chunk))
		args := make([]any, 0, len(chunk))
		for _, u := range chunk {
			h := HashValue(SelectEpisode, u)
			byHash[h] = u
			args = append(args, h)
		}
		err := s.each(ctx, "forgotten episodes", `SELECT hash FROM forgotten WHERE hash IN (?`+strings.Repeat(",?", len(chunk)-1)+`)`, args,
			func(r *sql.Rows) error {
				var h string
				if err := r.Scan(&h); err != nil {
					return err
				}
				out[byHash[h]] = true
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PendingGroups lists the groups whose forgetting is not complete (see Forget), sorted.
func (s *Store) PendingGroups(ctx context.Context) ([]string, error) {
	return s.texts(ctx, "pending deletions", `SELECT group_id FROM forget_pending ORDER BY group_id`)
}

// Deletions lists the deletion record, oldest first.
func (s *Store) Deletions(ctx context.Context) ([]Deletion, error) {
	var out []Deletion
	err := s.each(ctx, "deletions", `SELECT seq, at, command, selectors, episodes, groups, entities, facts, cache_rows, purged_at,
		batch_requests FROM deletions ORDER BY seq`, nil, func(r *sql.Rows) error {
		var d Deletion
		var at int64
		var sels string
		var purged sql.NullInt64
		if err := r.Scan(&d.Seq, &at, &d.Command, &sels, &d.Episodes, &d.Groups, &d.Entities, &d.Facts, &d.CacheRows, &purged,
			&d.BatchRequests); err != nil {
			return err
		}
		d.At, d.PurgedAt = fromMicros(at), fromNull(purged)
		if err := json.Unmarshal([]byte(sels), &d.Selectors); err != nil {
			return fmt.Errorf("decoding the selectors of deletion %d: %w", d.Seq, err)
		}
		out = append(out, d)
		return nil
	})
	return out, err
}

// LastPurged is the seq of the last deletion whose forgetting completed (0 for none): an
// export written before it may hold what it removed.
func (s *Store) LastPurged(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	if err := s.reader().QueryRowContext(ctx, `SELECT max(seq) FROM deletions WHERE purged_at IS NOT NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("reading the deletion record: %w", err)
	}
	return n.Int64, nil
}

// forgottenRow is the HashValue kind of the raw text of a quarantined row a deletion removed.
const forgottenRow = "quarantined-row"

// QuarantineMatching counts the quarantined rows whose raw text holds one of values and, with a
// deletion (its Seq; 0: count only), deletes them and records a hash of each one's raw text, so
// ingest skips the row while the source holds it (ForgottenRow) instead of quarantining its
// text again.
func (s *Store) QuarantineMatching(ctx context.Context, values []string, deletion int64) (int, error) {
	var or []string
	var args []any
	for _, v := range values {
		if v != "" {
			or = append(or, "instr(raw, ?) > 0")
			args = append(args, v)
		}
	}
	if len(or) == 0 {
		return 0, nil
	}
	where := strings.Join(or, " OR ")
	if deletion == 0 {
		return s.count(ctx, `SELECT count(*) FROM quarantine WHERE `+where, args...)
	}
	var n int
	err := s.Write(ctx, func(tx *Tx) error {
		var raws []string
		if err := tx.each(ctx, "quarantined rows", `SELECT DISTINCT raw FROM quarantine WHERE raw <> '' AND (`+where+`)`, args,
			func(r *sql.Rows) error {
				var raw string
				err := r.Scan(&raw)
				raws = append(raws, raw)
				return err
			}); err != nil {
			return err
		}
		for _, raw := range raws {
			if err := tx.exec(ctx, "recording a forgotten quarantined row", `INSERT OR IGNORE INTO forgotten(hash, deletion) VALUES(?, ?)`,
				HashValue(forgottenRow, raw), deletion); err != nil {
				return err
			}
		}
		var err error
		n, err = tx.deleted(ctx, "removing quarantined rows", `DELETE FROM quarantine WHERE `+where, args...)
		return err
	})
	return n, err
}

// ForgottenRow reports whether a deletion removed a quarantined row with this raw text.
func (s *Store) ForgottenRow(ctx context.Context, raw string) (bool, error) {
	if raw == "" {
		return false, nil
	}
	n, err := s.count(ctx, `SELECT count(*) FROM forgotten WHERE hash = ?`, HashValue(forgottenRow, raw))
	return n > 0, err
}
