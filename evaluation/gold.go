package evaluation

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tkgraph/backfill/internal/namekey"
	"github.com/tkgraph/backfill/loaders"
)

// Gold is a hand-written gold file: the facts each episode states, as (source entity,
// relation, target entity, valid_at, invalid_at), with the final interval each fact should have
// once every episode of its group is known. Each fact is listed once, under the episode that
// first states it.
type Gold struct {
	// Relations maps a canonical relation to its synonyms: a graph fact named by a synonym
	// matches a gold fact of the canonical relation (and a gold fact may use a synonym too).
	Relations map[string][]string `yaml:"relations"`
	// Symmetric relations match with their endpoints in either order.
	Symmetric []string `yaml:"symmetric"`
	// Aliases maps a canonical entity name to other names of the same entity.
	Aliases  map[string][]string `yaml:"aliases"`
	Episodes []GoldEpisode       `yaml:"episodes"`

	relation  map[string]string // synonym or canonical (upper snake) → canonical
	symmetric map[string]bool
	alias     map[string]string // normalised name → normalised canonical name
	facts     map[string][]goldFact
}

// GoldEpisode names one episode of the graph and lists its facts.
type GoldEpisode struct {
	Group string `yaml:"group"`
	Key   string `yaml:"key"`  // the episode's record key, or
	At    string `yaml:"at"`   // its reference time (RFC 3339), with
	Says  string `yaml:"says"` // words the episode's content contains (checked)
	// Facts are [source, relation, target, valid_at, invalid_at]. A time is "-" when unknown
	// (valid_at) or open (invalid_at); an instant (RFC 3339); a period YYYY, YYYY-MM or
	// YYYY-MM-DD (any time in it, the calendar taken in any zone from UTC−12 to UTC+14); a range
	// "A..B" of periods, either end left out; or "<=B" ("..B"): at or before B, and in valid_at
	// also unknown.
	Facts [][]string `yaml:"facts"`
}

// goldFact is one parsed gold fact.
type goldFact struct {
	episode             int
	source, rel, target string // as written
	key                 string // canonical source, relation and target
	validAt, invalidAt  *goldTime
}

// ReadGold reads and validates a gold file.
func ReadGold(path string) (*Gold, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading gold file: %w", err)
	}
	var g Gold
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&g); errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading gold file %s: the file is empty: want its episodes (and relations, aliases), see examples/gold/README.md", path)
	} else if err != nil {
		return nil, fmt.Errorf("reading gold file %s: %w", path, err)
	}
	if err := g.prepare(); err != nil {
		return nil, fmt.Errorf("reading gold file %s: %w", path, err)
	}
	return &g, nil
}

// prepare builds the lookup tables and parses every fact; every problem is reported at once.
func (g *Gold) prepare() error {
	var errs []error
	g.relation, g.symmetric, g.alias, g.facts = map[string]string{}, map[string]bool{}, map[string]string{}, map[string][]goldFact{}
	for canon, syns := range g.Relations {
		c := relName(canon)
		for _, s := range append([]string{canon}, syns...) {
			if prev, ok := g.relation[relName(s)]; ok && prev != c {
				errs = append(errs, fmt.Errorf("relations: %s is a synonym of both %s and %s", s, prev, c))
			}
			g.relation[relName(s)] = c
		}
	}
	for _, s := range g.Symmetric {
		g.symmetric[g.rel(s)] = true
	}
	for canon, names := range g.Aliases {
		c := namekey.Normalize(canon)
		for _, n := range append([]string{canon}, names...) {
			if prev, ok := g.alias[namekey.Normalize(n)]; ok && prev != c {
				errs = append(errs, fmt.Errorf("aliases: %s is an alias of both %s and %s", n, prev, c))
			}
			g.alias[namekey.Normalize(n)] = c
		}
	}
	if len(g.Episodes) == 0 {
		errs = append(errs, errors.New("no episodes"))
	}
	for i, ep := range g.Episodes {
		where := fmt.Sprintf("episodes[%d]", i)
		switch {
		case !loaders.ValidGroupID(ep.Group):
			errs = append(errs, fmt.Errorf("%s: group %q is not a valid group id", where, ep.Group))
		case (ep.Key == "") == (ep.At == ""):
			errs = append(errs, fmt.Errorf("%s: give exactly one of key and at", where))
		case ep.At != "":
			if _, err := time.Parse(time.RFC3339, ep.At); err != nil {
				errs = append(errs, fmt.Errorf("%s: at: %w", where, err))
			}
		}
		for j, f := range ep.Facts {
			gf, err := g.parseFact(i, f)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s.facts[%d] [%s]: %w", where, j, strings.Join(f, ", "), err))
				continue
			}
			g.facts[ep.Group] = append(g.facts[ep.Group], gf)
		}
	}
	// Every gold name is a canonical name of its own, so a graph name with a particle meets it.
	for _, fs := range g.facts {
		for _, f := range fs {
			for _, n := range []string{f.source, f.target} {
				if _, ok := g.alias[namekey.Normalize(n)]; !ok {
					g.alias[namekey.Normalize(n)] = namekey.Normalize(n)
				}
			}
		}
	}
	for _, fs := range g.facts {
		for i := range fs {
			fs[i].key = g.key(fs[i].source, fs[i].rel, fs[i].target)
		}
	}
	return errors.Join(errs...)
}

func (g *Gold) parseFact(episode int, f []string) (goldFact, error) {
	if len(f) != 5 {
		return goldFact{}, fmt.Errorf("want [source, relation, target, valid_at, invalid_at], got %d items", len(f))
	}
	if strings.TrimSpace(f[0]) == "" || strings.TrimSpace(f[1]) == "" || strings.TrimSpace(f[2]) == "" {
		return goldFact{}, errors.New("source, relation and target must not be empty")
	}
	va, err := parseGoldTime(f[3], true)
	if err != nil {
		return goldFact{}, fmt.Errorf("valid_at: %w", err)
	}
	inv, err := parseGoldTime(f[4], false)
	if err != nil {
		return goldFact{}, fmt.Errorf("invalid_at: %w", err)
	}
	if va != nil && inv != nil && !va.from.IsZero() && !inv.latest().IsZero() && inv.latest().Before(va.from) {
		return goldFact{}, fmt.Errorf("the interval ends (invalid_at %s) before it starts (valid_at %s)", inv, va)
	}
	return goldFact{episode: episode, source: f[0], rel: f[1], target: f[2], validAt: va, invalidAt: inv}, nil
}

// relName is a relation name in SCREAMING_SNAKE_CASE.
func relName(s string) string {
	return strings.ToUpper(strings.Join(strings.FieldsFunc(strings.TrimSpace(s), func(r rune) bool {
		return r == ' ' || r == '_' || r == '-'
	}), "_"))
}

// rel is the canonical form of a relation name.
func (g *Gold) rel(s string) string {
	n := relName(s)
	if c, ok := g.relation[n]; ok {
		return c
	}
	return n
}

// entity is the canonical form of an entity name: normalised, then through the aliases, also
// after removing Korean particles from its end ("지훈은" meets "지훈").
func (g *Gold) entity(name string) string {
	n := namekey.Normalize(name)
	if c, ok := g.alias[n]; ok {
		return c
	}
	for _, stem := range namekey.Stems(n) {
		if c, ok := g.alias[stem]; ok {
			return c
		}
	}
	return n
}

// key is the matching key of a fact: canonical source, relation and target, the endpoints in
// order for a symmetric relation.
func (g *Gold) key(source, rel, target string) string {
	s, r, t := g.entity(source), g.rel(rel), g.entity(target)
	if g.symmetric[r] && t < s {
		s, t = t, s
	}
	return s + "\x1f" + r + "\x1f" + t
}

// Groups lists the groups the gold file covers.
func (g *Gold) Groups() map[string]bool {
	out := map[string]bool{}
	for _, ep := range g.Episodes {
		out[ep.Group] = true
	}
	return out
}
