package graphdiff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Notable is one of the most important changes, with the episode text behind each side so a
// reviewer can judge it without opening the database.
type Notable struct {
	Group    string `json:"group"`
	Kind     string `json:"kind"`
	Title    string `json:"title"`
	Score    int    `json:"score"`
	A        string `json:"a,omitempty"` // the A side (a fact with its interval, an entity)
	B        string `json:"b,omitempty"`
	AEpisode string `json:"a_episode,omitempty"` // the episode that produced the A side
	BEpisode string `json:"b_episode,omitempty"`
}

// Importance of a change, highest first: closures, then interval changes, merges and splits,
// facts appearing or going, sentences, entities, communities, labels and summaries.
func factScore(f FactChange) int {
	switch {
	case f.Kind != "changed":
		return 30
	case slices.Contains(f.What, "closed"), slices.Contains(f.What, "reopened"):
		return 50
	case slices.Contains(f.What, "valid_at"), slices.Contains(f.What, "invalid_at"):
		return 40
	}
	return 20
}

var entityScore = map[string]int{"merged": 35, "split": 35, "renamed": 15, "added": 15, "removed": 15, "labels": 5, "summary": 5}

// notables keeps the limit most important changes seen so far.
type notables struct {
	limit int
	list  []Notable
}

// maxExcerpt bounds an episode excerpt, in runes.
const maxExcerpt = 300

func (n *notables) addGroup(d *GroupDiff, a, b *side) {
	for _, f := range d.Facts {
		x := Notable{Group: d.Group, Kind: "fact " + f.Kind, Title: f.Triple, Score: factScore(f)}
		if len(f.What) > 0 {
			x.Kind += ": " + strings.Join(f.What, ", ")
		}
		if f.A != nil {
			x.A, x.AEpisode = sideText(f.A), excerpt(a, f.A.Episode)
		}
		if f.B != nil {
			x.B, x.BEpisode = sideText(f.B), excerpt(b, f.B.Episode)
		}
		if f.ClosedBy != "" {
			x.Title += " (closed by: " + f.ClosedBy + ")"
		}
		n.add(x)
	}
	for _, e := range d.Entities {
		x := Notable{Group: d.Group, Kind: "entity " + e.Kind, Score: entityScore[e.Kind],
			A: strings.Join(e.A, ", "), B: strings.Join(e.B, ", ")}
		x.Title = strings.TrimPrefix(x.A+" → "+x.B, " → ")
		if e.Before != "" || e.After != "" {
			x.A, x.B = e.Before, e.After
		}
		if len(e.Episodes) > 0 {
			x.AEpisode, x.BEpisode = excerpt(a, e.Episodes[0]), excerpt(b, e.Episodes[0])
		}
		n.add(x)
	}
	for _, c := range d.Communities {
		n.add(Notable{Group: d.Group, Kind: "community " + c.Kind, Score: 10, Title: strings.TrimPrefix(c.A+" → "+c.B, " → "),
			A: "left: " + strings.Join(c.Left, ", "), B: fmt.Sprintf("joined: %s (Jaccard %.2f)", strings.Join(c.Joined, ", "), c.Jaccard)})
	}
}

// add keeps x when it is among the limit most important (score, then group and title).
func (n *notables) add(x Notable) {
	i, _ := slices.BinarySearchFunc(n.list, x, func(p, q Notable) int {
		return cmp.Or(cmp.Compare(q.Score, p.Score), cmp.Compare(p.Group, q.Group), cmp.Compare(p.Title, q.Title), cmp.Compare(p.Kind, q.Kind))
	})
	if i >= n.limit {
		return
	}
	n.list = slices.Insert(n.list, i, x)
	if len(n.list) > n.limit {
		n.list = n.list[:n.limit]
	}
}

func sideText(f *FactSide) string {
	return fmt.Sprintf("%s [%s – %s]", f.Fact, when(f.ValidAt), when(f.InvalidAt))
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// excerpt is an episode's time, speaker and text, cut to maxExcerpt runes; "" when the side
// does not have it.
func excerpt(s *side, id string) string {
	e, ok := s.episode[id]
	if !ok {
		return ""
	}
	text := strings.Join(strings.Fields(e.Content), " ")
	if r := []rune(text); len(r) > maxExcerpt {
		text = string(r[:maxExcerpt]) + "…"
	}
	head := e.ReferenceTime.UTC().Format(time.RFC3339)
	if e.Speaker != "" {
		head += " " + e.Speaker
	}
	return head + ": " + text
}
