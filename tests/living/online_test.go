package living

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// onlineScript is what Graphiti's scripted LLM answers (scripts/graphiti_online.py): Alice moved
// from Naver to Toss, which closes backfill's "Alice works at Naver" fact.
var onlineScript = map[string]any{
	"group":          "alice",
	"name":           "online-1",
	"source":         "message",
	"body":           "Alice: Big news: I left Naver and joined Toss last week.",
	"reference_time": "2024-06-03T01:00:00Z",
	"entities":       []string{"Alice", "Toss"},
	"facts": []map[string]string{
		{"source": "Alice", "target": "Toss", "relation": "WORKS_AT", "fact": "Alice works at Toss."},
	},
	"contradicts":      "Naver",
	"summaries":        map[string]string{"Alice": "Alice left Naver and works at Toss since June 2024."},
	"context_speakers": []string{"Ben"},
}

// online is what graphiti_online.py reports it wrote.
type online struct {
	Episode  string `json:"episode"`
	Content  string `json:"content"`
	Entities []struct {
		UUID, Name string
	} `json:"entities"`
	Facts []struct {
		UUID, Fact string
	} `json:"facts"`
	Mentions []string `json:"mentions"`
	Closed   []struct {
		UUID      string `json:"uuid"`
		Fact      string `json:"fact"`
		InvalidAt string `json:"invalid_at"`
		ExpiredAt string `json:"expired_at"`
	} `json:"closed"`
	Asked    map[string]int `json:"asked"`
	Speakers []string       `json:"speakers_in_context"`
}

// graphitiAddEpisode runs scripts/graphiti_online.sh with onlineScript.
func (e env) graphitiAddEpisode(t *testing.T) online {
	t.Helper()
	b, _ := json.Marshal(onlineScript)
	path := filepath.Join(e.dir, "online.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := harness.Run(t.Context(), filepath.Join(e.root, "scripts", "graphiti_online.sh"), []string{path}, harness.Options{
		Env: []string{"BACKFILL_NEO4J_URI=" + e.neo, "BACKFILL_BIN=" + e.bin, fmt.Sprintf("BACKFILL_STUB_PORT=%d", harness.FreePort(t))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("graphiti_online.sh: exit %d\n%s\n%s", res.Code, res.Stdout, harness.Tail(res.Stderr, 40))
	}
	var o online
	if err := json.Unmarshal([]byte(res.Stdout), &o); err != nil {
		t.Fatalf("reading graphiti_online.sh's output: %v\n%s", err, res.Stdout)
	}
	return o
}

// TestOnlineWritesSurviveBackfill: what graphiti-core's add_episode wrote into a backfilled
// group survives backfill's next load of the group, for a changed group and for sink.reload.
func TestOnlineWritesSurviveBackfill(t *testing.T) {
	neo := testenv.Neo4jExclusive(t)
	e := newEnv(t, neo)
	src := e.conversations(t, "conversations.jsonl")
	job := e.job(t, "living", src)
	if code, _, res := e.run(t, job); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, harness.Tail(res.Stderr, 30))
	}
	loaded := e.groupCounts(t, "alice")
	t.Logf("backfill loaded group alice: %v", loaded)
	// Message episodes hold "speaker: text", as Graphiti's own do.
	if n := e.count(t, "MATCH (n:Episodic {group_id: 'alice'}) WHERE NOT n.content =~ '(Alice|Ben): .+' RETURN count(n) AS n"); n != 0 {
		t.Errorf("%d message episodes of group alice do not start with their speaker", n)
	}

	o := e.graphitiAddEpisode(t)
	t.Logf("graphiti wrote episode %s, entities %v, facts %v, %d mentions; closed %v; asked %v", o.Episode, o.Entities, o.Facts, len(o.Mentions), o.Closed, o.Asked)
	if len(o.Closed) != 1 || len(o.Facts) == 0 || len(o.Mentions) == 0 {
		t.Fatalf("Graphiti did not write as scripted: closed %v, facts %v, mentions %v", o.Closed, o.Facts, o.Mentions)
	}
	// Ben speaks only in backfill's episodes: Graphiti's context shows his name.
	if !slices.Contains(o.Speakers, "Ben") {
		t.Errorf("Graphiti's extraction context did not show Ben as a speaker of backfill's episodes")
	}
	var toss string
	for _, n := range o.Entities {
		if n.Name == "Toss" {
			toss = n.UUID
		}
	}
	if toss == "" {
		t.Fatalf("Graphiti wrote no Toss entity: %v", o.Entities)
	}
	summary := func() (string, string) {
		rows, err := harness.Neo4jQuery(t.Context(), neo, "MATCH (n:Entity {group_id: 'alice', name: 'Alice'}) RETURN n.summary AS s, n.uuid AS u")
		if err != nil || len(rows) != 1 {
			t.Fatalf("reading Alice: %v (%d nodes)", err, len(rows))
		}
		return fmt.Sprint(rows[0]["s"]), fmt.Sprint(rows[0]["u"])
	}
	aliceSummary, _ := summary()
	withOnline := e.groupCounts(t, "alice")
	t.Logf("after graphiti: %v; Alice's summary %q", withOnline, aliceSummary)

	// survived checks that everything Graphiti wrote is still there as it wrote it.
	survived := func(when string, rep report.Report) {
		t.Helper()
		if n := e.count(t, fmt.Sprintf("MATCH (n:Episodic {uuid: '%s'}) RETURN count(n) AS n", o.Episode)); n != 1 {
			t.Errorf("%s: Graphiti's episode: %d nodes", when, n)
		}
		if n := e.count(t, fmt.Sprintf("MATCH (n:Entity {uuid: '%s'}) RETURN count(n) AS n", toss)); n != 1 {
			t.Errorf("%s: Graphiti's Toss entity: %d nodes", when, n)
		}
		for _, f := range o.Facts {
			if n := e.count(t, fmt.Sprintf("MATCH ()-[r:RELATES_TO {uuid: '%s'}]->() RETURN count(r) AS n", f.UUID)); n != 1 {
				t.Errorf("%s: Graphiti's fact %q: %d relationships", when, f.Fact, n)
			}
		}
		for _, m := range o.Mentions {
			if n := e.count(t, fmt.Sprintf("MATCH ()-[r:MENTIONS {uuid: '%s'}]->() RETURN count(r) AS n", m)); n != 1 {
				t.Errorf("%s: Graphiti's mention %s: %d relationships", when, m, n)
			}
		}
		for _, c := range o.Closed {
			rows, err := harness.Neo4jQuery(t.Context(), neo, fmt.Sprintf(
				"MATCH ()-[r:RELATES_TO {uuid: '%s'}]->() RETURN toString(r.invalid_at) AS i, toString(r.expired_at) AS x", c.UUID))
			if err != nil || len(rows) != 1 {
				t.Fatalf("%s: reading the fact Graphiti closed: %v (%d)", when, err, len(rows))
			}
			if rows[0]["i"] != c.InvalidAt || rows[0]["x"] != c.ExpiredAt {
				t.Errorf("%s: the fact %q Graphiti closed (invalid_at %s, expired_at %s) now has invalid_at %v, expired_at %v",
					when, c.Fact, c.InvalidAt, c.ExpiredAt, rows[0]["i"], rows[0]["x"])
			}
		}
		if rep.Load == nil {
			t.Fatalf("%s: no load in the report", when)
		}
		// Graphiti's own elements: its episode, the Toss entity, its new facts (not the one it
		// closed, which is backfill's), its mentions.
		if want := 2 + len(o.Facts) - len(o.Closed) + len(o.Mentions); rep.Load.ForeignKept != want {
			t.Errorf("%s: load.foreign_kept %d (%v), want %d: Graphiti's episode, entity, new facts and mentions",
				when, rep.Load.ForeignKept, rep.Load.ForeignKinds, want)
		}
		if s, id := summary(); s != aliceSummary && !slices.Contains(rep.Load.OverwrittenSample, id) {
			t.Errorf("%s: Alice's summary %q became %q and the report does not name it among the overwritten online edits (%v)",
				when, aliceSummary, s, rep.Load.OverwrittenSample)
		}
	}

	// A new line for the group: backfill writes its new episode, Graphiti's stay.
	appendLine(t, src, map[string]string{"group_id": "alice", "reference_time": "2024-06-10T09:00:00-05:00",
		"speaker": "Ben", "content": "Congratulations on the new job! Lunch in Pangyo next week?"})
	code, rep, res := e.run(t, job)
	if code != 0 {
		t.Fatalf("run with a new line: exit %d\n%s", code, harness.Tail(res.Stderr, 30))
	}
	changed := e.groupCounts(t, "alice")
	t.Logf("after the changed group's load: %v; report %+v", changed, *rep.Load)
	survived("changed group", rep)
	if n := e.count(t, "MATCH (n:Episodic {group_id: 'alice'}) WHERE n.content CONTAINS 'Lunch in Pangyo' RETURN count(n) AS n"); n != 1 {
		t.Errorf("backfill's new episode: %d nodes", n)
	}
	if changed["Episodic"] != withOnline["Episodic"]+1 {
		t.Errorf("episodes: %d after Graphiti, %d after the load of one new line", withOnline["Episodic"], changed["Episodic"])
	}

	// sink.reload writes every group again: nothing of Graphiti's goes, nothing changes.
	code, rep, res = e.run(t, job, "--set", "sink.reload=true")
	if code != 0 {
		t.Fatalf("reload: exit %d\n%s", code, harness.Tail(res.Stderr, 30))
	}
	reloaded := e.groupCounts(t, "alice")
	t.Logf("after sink.reload: %v; report %+v", reloaded, *rep.Load)
	survived("sink.reload", rep)
	for k, v := range changed {
		if reloaded[k] != v {
			t.Errorf("sink.reload changed the count of %s: %d, then %d", k, v, reloaded[k])
		}
	}
}
