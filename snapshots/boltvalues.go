package snapshots

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// rowReader converts the values of one record to the domain types, keeping the first value of
// an unexpected type as its error. An absent property (null) is the zero value: Graphiti leaves
// out what backfill always writes (summary, record_key, reference_time, …) and the reverse.
type rowReader struct {
	rec *neo4j.Record
	err error
}

func (r *rowReader) fail(i int, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s is a %T, want %s", r.rec.Keys[i], r.rec.Values[i], want)
	}
}

func (r *rowReader) str(i int) string { return r.optStr(i, "") }

// optStr is the string at i, or def when it is absent.
func (r *rowReader) optStr(i int, def string) string {
	switch v := r.rec.Values[i].(type) {
	case nil:
		return def
	case string:
		return v
	}
	r.fail(i, "a string")
	return def
}

// strs is a list of strings; absent is nil.
func (r *rowReader) strs(i int) []string {
	switch v := r.rec.Values[i].(type) {
	case nil:
		return nil
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				r.fail(i, "a list of strings")
				return nil
			}
			out = append(out, s)
		}
		return out
	}
	r.fail(i, "a list of strings")
	return nil
}

// vector is a list of numbers as float32; absent is nil.
func (r *rowReader) vector(i int) []float32 {
	switch v := r.rec.Values[i].(type) {
	case nil:
		return nil
	case []any:
		out := make([]float32, len(v))
		for j, x := range v {
			switch n := x.(type) {
			case float64:
				out[j] = float32(n)
			case int64:
				out[j] = float32(n)
			default:
				r.fail(i, "a list of numbers")
				return nil
			}
		}
		return out
	case []float64: // a vector property of Neo4j 2025's VECTOR type, as some drivers hand it over
		out := make([]float32, len(v))
		for j, x := range v {
			out[j] = float32(x)
		}
		return out
	case []float32:
		return slices.Clone(v)
	}
	r.fail(i, "a list of numbers")
	return nil
}

// optInt is the integer at i, or def when it is absent.
func (r *rowReader) optInt(i int, def int64) int64 {
	switch v := r.rec.Values[i].(type) {
	case nil:
		return def
	case int64:
		return v
	}
	r.fail(i, "an integer")
	return def
}

func (r *rowReader) time(i int) time.Time {
	if t := r.optTime(i); t != nil {
		return *t
	}
	return time.Time{}
}

// optTime is a time in UTC, or nil when absent. Neo4j's zoned DATETIME is what Graphiti and
// backfill write; a LOCAL DATETIME (a naive Python datetime) is taken as UTC, a DATE as its
// midnight UTC, and a string as RFC 3339 (as Graphiti's FalkorDB driver and some others store
// times), or without a zone, taken as UTC (Python's isoformat() of a naive datetime).
func (r *rowReader) optTime(i int) *time.Time {
	var t time.Time
	switch v := r.rec.Values[i].(type) {
	case nil:
		return nil
	case time.Time:
		t = v
	case dbtype.LocalDateTime:
		lt := time.Time(v)
		t = time.Date(lt.Year(), lt.Month(), lt.Day(), lt.Hour(), lt.Minute(), lt.Second(), lt.Nanosecond(), time.UTC)
	case dbtype.Date:
		d := time.Time(v)
		t = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	case string:
		p, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			if p, err = time.Parse("2006-01-02T15:04:05.999999999", v); err != nil {
				r.fail(i, "a datetime")
				return nil
			}
		}
		t = p
	default:
		r.fail(i, "a datetime")
		return nil
	}
	t = t.UTC()
	return &t
}

// entityProps are the Entity properties that are not custom attributes.
var entityProps = []string{"uuid", "name", "group_id", "summary", "created_at", "name_embedding", "labels"}

// attributes are a node's properties besides entityProps (null ones left out), times as RFC
// 3339 text; nil when there are none.
func (r *rowReader) attributes(i int) map[string]any {
	props, ok := r.rec.Values[i].(map[string]any)
	if !ok {
		if r.rec.Values[i] != nil {
			r.fail(i, "a map")
		}
		return nil
	}
	var out map[string]any
	for _, k := range slices.Sorted(maps.Keys(props)) {
		v := props[k]
		if v == nil || slices.Contains(entityProps, k) {
			continue
		}
		switch x := v.(type) {
		case time.Time:
			v = x.UTC().Format(time.RFC3339Nano)
		case dbtype.LocalDateTime, dbtype.Date, dbtype.LocalTime, dbtype.Time, dbtype.Duration, dbtype.Point2D, dbtype.Point3D:
			v = fmt.Sprint(x)
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = v
	}
	return out
}
