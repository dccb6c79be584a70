package graphdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// Foreign says what a load does with the nodes and relationships of its groups that it did not
// write (sink.foreign).
type Foreign string

const (
	// ForeignKeep (the default) keeps them, and keeps what another writer changed on the
	// loader's own elements unless the loader's data for that element changed (see the package
	// doc, Ownership).
	ForeignKeep Foreign = "keep"
	// ForeignDelete makes every loaded group equal to what the loader writes: other writers'
	// elements and edits go. For a database only backfill writes.
	ForeignDelete Foreign = "delete"
)

// ParseForeign checks a sink.foreign value; "" is ForeignKeep.
func ParseForeign(s string) (Foreign, error) {
	switch f := Foreign(s); f {
	case "":
		return ForeignKeep, nil
	case ForeignKeep, ForeignDelete:
		return f, nil
	}
	return "", fmt.Errorf("sink.foreign %q is not %s or %s", s, ForeignKeep, ForeignDelete)
}

// maxSample bounds the uuids a Result lists as examples.
const maxSample = 20

// ownExtra is what the record keeps about an element besides its hash: an entity's extra labels
// and custom attribute keys (so a later load removes only those it wrote), and the closure
// (invalid_at|expired_at) the loader's own data gave a fact (so a closure another writer made
// is told from the loader's own).
type ownExtra struct {
	Labels []string `json:"labels,omitempty"`
	Attrs  []string `json:"attrs,omitempty"`
	Closed string   `json:"closed,omitempty"`
}

func (x ownExtra) encode() string {
	if len(x.Labels) == 0 && len(x.Attrs) == 0 && x.Closed == "" {
		return ""
	}
	b, _ := json.Marshal(x) // strings and string lists only: cannot fail
	return string(b)
}

func decodeExtra(s string) ownExtra {
	var x ownExtra
	if s != "" {
		_ = json.Unmarshal([]byte(s), &x) // a damaged extra reads as empty: the element counts as changed
	}
	return x
}

// extraOf is the ownExtra of a row of kind as the loader produced it.
func (l *Loader) extraOf(kind string, labels []string, props cypher.Row) ownExtra {
	var x ownExtra
	switch kind {
	case cypher.LabelEntity:
		x.Labels = labels
		for k := range props {
			if !slices.Contains(cypher.RowKeys(kind), k) {
				x.Attrs = append(x.Attrs, k)
			}
		}
		slices.Sort(x.Attrs)
	case cypher.TypeRelatesTo:
		x.Closed = l.closure(props)
	}
	return x
}

// closure is a fact's canonical invalid_at|expired_at, "" when both are absent.
func (l *Loader) closure(props map[string]any) string {
	inv, exp := props["invalid_at"], props["expired_at"]
	if inv == nil && exp == nil {
		return ""
	}
	return canon(l.o.Dialect, inv) + "|" + canon(l.o.Dialect, exp)
}

// hashes returns the source hash of a row (its properties and embedding) and the hash of its
// properties.
func (l *Loader) hashes(row cypher.Row) (src, written string) {
	props, _ := row[cypher.KeyProps].(cypher.Row)
	written = hashProps(l.o.Dialect, props, nil)
	h := sha256.New()
	h.Write([]byte(written))
	if e, ok := row[cypher.KeyEmbedding]; ok {
		h.Write([]byte(canon(l.o.Dialect, e)))
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), written
}

// splitHash splits a record's Hash into its source and written parts ("" for a claim).
func splitHash(h string) (src, written string) {
	src, written, _ = strings.Cut(h, " ")
	return src, written
}

// hashProps hashes props (the keys keep accepts, all when nil; absent values skipped) in a
// canonical form that the database's answer for the same properties hashes to as well.
func hashProps(d cypher.Dialect, props map[string]any, keep func(string) bool) string {
	keys := make([]string, 0, len(props))
	for k, v := range props {
		if v != nil && (keep == nil || keep(k)) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, canon(d, props[k]))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// canon renders a property value the same way whether it is a row value or what the database
// returns for it: lists of any element type alike, integers as int64, times in UTC (FalkorDB
// stores times as the strings cypher.TimeText gives, so there a time and its text are equal).
func canon(d cypher.Dialect, v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return "s" + strconv.Quote(x)
	case bool:
		if x {
			return "b1"
		}
		return "b0"
	case float64:
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return "f" + strconv.FormatFloat(float64(x), 'g', -1, 32)
	case time.Time:
		if d == cypher.FalkorDB {
			return "s" + strconv.Quote(cypher.TimeText(x))
		}
		return "t" + x.UTC().Format(time.RFC3339Nano)
	case cypher.Literal:
		return "l" + string(x)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "i" + strconv.FormatInt(rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "i" + strconv.FormatUint(rv.Uint(), 10)
	case reflect.Slice, reflect.Array:
		var b strings.Builder
		b.WriteByte('[')
		for i := range rv.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(canon(d, rv.Index(i).Interface()))
		}
		b.WriteByte(']')
		return b.String()
	}
	return fmt.Sprintf("?%T:%v", v, v)
}

// timeOf reads a time property as the database returns it: a time, or on FalkorDB its text.
func timeOf(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		t, err := time.Parse(time.RFC3339Nano, x)
		return t, err == nil
	}
	return time.Time{}, false
}

// groupOwn is the ownership state of one group during a load: the record before it, the record
// after it (one element per row written), and the reference times of the group's episodes.
type groupOwn struct {
	group    string
	rec      map[ownKey]Owned
	out      []Owned
	episodes map[string]time.Time
}

// readOwn reads group's record.
func (l *Loader) readOwn(ctx context.Context, group string) (*groupOwn, error) {
	g := &groupOwn{group: group, rec: map[ownKey]Owned{}, episodes: map[string]time.Time{}}
	err := l.o.Owner.EachOwned(ctx, group, func(o Owned) error {
		g.rec[ownKey{o.Kind, o.UUID}] = o
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading what the loader wrote of group %s: %w", group, err)
	}
	return g, nil
}

// reconciled is what an update writes over an element the loader wrote before.
type reconciled struct {
	props       cypher.Row // set with SET +=: a nil value removes the property
	edited      bool       // another writer changed the element since the loader last wrote it
	overwritten bool       // and this write replaces some of that change
	closureKept bool       // a fact another writer closed stays closed
}

// reconcile decides the properties an element of kind gets when the loader's data for it
// changed (props) and the database holds it with dbProps (nil when absent), knowing what the
// loader wrote last (rec; ok false when nothing is recorded):
//   - the loader's properties win (its data changed), and properties it wrote before and no
//     longer has are removed; properties another writer added are kept;
//   - a fact another writer closed (its invalid_at/expired_at differ from the closure the
//     loader's own data gave it last time) stays closed with that writer's invalid_at and
//     expired_at, unless the loader knows something later: an episode of the fact whose
//     reference time is after that closure (the fact was stated again after it ended), in
//     which case the loader's interval is written;
//   - a fact's episodes are the loader's, followed by those of another writer's episodes the
//     database lists.
func (l *Loader) reconcile(kind string, props cypher.Row, dbProps map[string]any, rec Owned, ok bool, own *groupOwn) reconciled {
	out := reconciled{props: make(cypher.Row, len(props))}
	for k, v := range props {
		out.props[k] = v
	}
	if dbProps == nil {
		return out
	}
	x := decodeExtra(rec.Extra)
	mine := func(k string) bool { return slices.Contains(cypher.RowKeys(kind), k) || slices.Contains(x.Attrs, k) }
	for k := range dbProps {
		if _, have := props[k]; !have && mine(k) {
			out.props[k] = nil
		}
	}
	if kind == cypher.TypeRelatesTo {
		l.reconcileFact(&out, props, dbProps, x, ok, own)
	}
	if _, written := splitHash(rec.Hash); ok && written != "" {
		out.edited = hashProps(l.o.Dialect, dbProps, mine) != written
	}
	if out.edited {
		for k, v := range out.props {
			if mine(k) && canon(l.o.Dialect, v) != canon(l.o.Dialect, dbProps[k]) {
				out.overwritten = true
				break
			}
		}
	}
	return out
}

// reconcileFact applies the closure and episodes rules of reconcile to a fact.
func (l *Loader) reconcileFact(out *reconciled, props cypher.Row, dbProps map[string]any, x ownExtra, ok bool, own *groupOwn) {
	dbClosed := l.closure(dbProps)
	online := dbClosed != "" && (!ok || dbClosed != x.Closed)
	if online && dbClosed != l.closure(props) {
		end, have := timeOf(dbProps["invalid_at"])
		if !have {
			end, have = timeOf(dbProps["expired_at"])
		}
		newer := false
		eps, _ := props["episodes"].([]string)
		for _, e := range eps {
			if t, known := own.episodes[e]; known && have && t.After(end) {
				newer = true
			}
		}
		if !newer {
			out.props["invalid_at"], out.props["expired_at"] = dbProps["invalid_at"], dbProps["expired_at"]
			out.closureKept = true
		}
	}
	ours, _ := props["episodes"].([]string)
	merged := slices.Clone(ours)
	if have, isList := dbProps["episodes"].([]any); isList {
		for _, e := range have {
			s, _ := e.(string)
			if s == "" || slices.Contains(merged, s) {
				continue
			}
			if _, wrote := own.episodes[s]; wrote {
				continue
			}
			if _, wrote := own.rec[ownKey{cypher.LabelEpisodic, s}]; wrote {
				continue
			}
			merged = append(merged, s)
		}
	}
	if len(merged) > len(ours) {
		out.props["episodes"] = merged
	}
}

// propsOf reads the properties column of a ReadProps answer: a map (Memgraph) or a list of
// [key, value] pairs.
func propsOf(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case []any:
		m := make(map[string]any, len(x))
		for _, p := range x {
			kv, _ := p.([]any)
			if len(kv) != 2 {
				continue
			}
			if k, ok := kv[0].(string); ok {
				m[k] = kv[1]
			}
		}
		return m
	}
	return map[string]any{}
}
