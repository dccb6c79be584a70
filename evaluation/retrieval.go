package evaluation

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/snapshots"
)

// Embedder embeds the questions; the job's embedder (the one that embedded the facts).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Retrieval modes: what a question retrieves, each computed by the same code on the same
// questions, each at k items (but ModeCombined). ModeFacts is the graph's facts by hybrid search
// (k facts). ModeFactsEpisodes is k episodes found by hybrid search over the episodes and the facts
// extracted from them: BM25 over each episode's text and its facts' sentences
// (episodeIndex.withFacts) fused with the dense ranking of the episodes. ModeEpisodesBM25,
// ModeEpisodesDense and ModeEpisodesHybrid are no graph at all:
// the k best episodes by BM25 over their text, by cosine similarity of their embeddings to the
// question's, and by reciprocal rank fusion of both. ModeCombined is Graphiti's combined search,
// a labelled extra at twice the budget: the k facts of ModeFacts and the k episodes of
// ModeEpisodesBM25 beside them (2k items).
const (
	ModeFacts          = "facts"
	ModeFactsEpisodes  = "facts+episodes"
	ModeEpisodesBM25   = "episodes-bm25"
	ModeEpisodesDense  = "episodes-dense"
	ModeEpisodesHybrid = "episodes-hybrid"
	ModeCombined       = "facts+episodes-2k"
)

// modes lists the retrieval modes in report order.
var modes = [...]string{ModeFacts, ModeFactsEpisodes, ModeEpisodesBM25, ModeEpisodesDense, ModeEpisodesHybrid, ModeCombined}

// rawModes are the modes without the graph, what ModeFactsEpisodes is paired against.
var rawModes = []string{ModeEpisodesBM25, ModeEpisodesDense, ModeEpisodesHybrid}

// hits are one question's hits in one mode, per k: an evidence turn retrieved (a retrieved fact
// comes from it, or it is a retrieved episode), an evidence session retrieved (the same, by the
// session of the episodes), the gold answer found in a retrieved text.
type hits struct {
	ev, sess, ans []bool
}

func newHits(nk int) hits { return hits{make([]bool, nk), make([]bool, nk), make([]bool, nk)} }

// questionResult is one question's retrieval: hits per mode and k, and the facts of the largest
// k.
type questionResult struct {
	q           *Question
	evidence    bool // some evidence episode is in the graph
	modes       [len(modes)]hits
	cosineEmpty bool
	top         []graph.Fact // the largest k's facts, with their intervals
	at          time.Time
}

// retrieveGroup runs every question of one group in every mode: the facts valid at the
// question's time are searched by hybrid search and the episodes up to that time by BM25, for
// each k, and each k's results are checked for an evidence episode or session and for the gold
// answer's terms.
func retrieveGroup(ctx context.Context, g *snapshots.Group, d *Dataset, qs []Question, emb Embedder, ks []int, minCosine float64) ([]questionResult, int, error) {
	names := make(map[string]string, len(g.Entities))
	for _, e := range g.Entities {
		names[e.UUID] = e.Name
	}
	ix := newIndex(g.Facts, names)
	ex := newEpisodeIndex(g.Episodes)
	if err := ex.embed(ctx, emb); err != nil {
		return nil, 0, fmt.Errorf("embedding the episodes of group %s: %w", g.ID, err)
	}
	fx := ex.withFacts(g.Facts)
	episodeOf := make(map[string]string, len(g.Episodes)) // record key → episode uuid
	sessionOf := make(map[string]string, len(g.Episodes)) // episode uuid → session
	var last time.Time
	for _, e := range g.Episodes {
		episodeOf[e.RecordKey] = e.UUID
		sessionOf[e.UUID] = d.SessionOf(e.RecordKey)
		if e.ReferenceTime.After(last) {
			last = e.ReferenceTime
		}
	}
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Text
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, 0, fmt.Errorf("embedding the questions of group %s: %w", g.ID, err)
	}
	if len(vecs) != len(qs) {
		return nil, 0, fmt.Errorf("embedding the questions of group %s: %d vectors for %d questions", g.ID, len(vecs), len(qs))
	}
	maxK := slices.Max(ks)
	missing := 0
	out := make([]questionResult, len(qs))
	for qi := range qs {
		q := &qs[qi]
		r := questionResult{q: q, at: last}
		for m := range r.modes {
			r.modes[m] = newHits(len(ks))
		}
		if q.At != nil {
			r.at = *q.At
		}
		evidence, sessions := map[string]bool{}, map[string]bool{}
		for _, key := range q.Evidence {
			if id, ok := episodeOf[key]; ok {
				evidence[id] = true
			} else {
				missing++
			}
			if s := d.SessionOf(key); s != "" {
				sessions[s] = true
			}
		}
		r.evidence = len(evidence) > 0
		isEvidence := func(ep string) bool { return evidence[ep] }
		inSession := func(ep string) bool { return sessions[sessionOf[ep]] }
		allowed := make([]bool, len(g.Facts))
		for i, f := range g.Facts {
			allowed[i] = validAt(f, r.at)
		}
		allowedEps := make([]bool, len(g.Episodes))
		for i, e := range g.Episodes {
			allowedEps[i] = !e.ReferenceTime.After(r.at)
		}
		query := terms(q.Text)
		answer := answerTerms(q.Answer)
		r.cosineEmpty = len(ix.cosine(vecs[qi], allowed, minCosine, 1)) == 0
		for ki, k := range ks {
			facts := ix.hybrid(query, vecs[qi], allowed, minCosine, k)
			bm25 := ex.search(query, allowedEps, 2*k)
			dense := ex.dense(vecs[qi], allowedEps, 2*k)
			hybrid := rrf(bm25, dense)
			lists := [len(modes)][]item{
				factItems(facts),
				episodeItems(firstN(rrf(fx.search(query, allowedEps, 2*k), dense), k)),
				episodeItems(firstN(bm25, k)),
				episodeItems(firstN(dense, k)),
				episodeItems(firstN(hybrid, k)),
				append(factItems(facts), episodeItems(firstN(bm25, k))...),
			}
			for m, l := range lists {
				eps, hay := retrieved(g, l)
				h := r.modes[m]
				h.ev[ki] = slices.ContainsFunc(eps, isEvidence)
				h.sess[ki] = slices.ContainsFunc(eps, inSession)
				h.ans[ki] = containsRun(hay, answer)
			}
			if k == maxK {
				for _, i := range facts {
					r.top = append(r.top, g.Facts[i])
				}
			}
		}
		out[qi] = r
	}
	return out, missing, nil
}

// validAt reports whether a fact's interval contains t (an unknown valid_at counts as "since
// ever"), or the fact is an event (an instant, valid_at = invalid_at) that happened by t: the
// facts a question asked at t may retrieve. The interval is the fact's as stored, which is its
// last version: the graph as it is now, asked about time t.
func validAt(f graph.Fact, t time.Time) bool {
	if f.ValidAt != nil && f.ValidAt.After(t) {
		return false
	}
	return f.InvalidAt == nil || f.InvalidAt.After(t) || graph.SameTime(f.ValidAt, f.InvalidAt)
}
