package otel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// What the collector's file exporter writes: a line of OTLP JSON per batch it received.
type (
	value struct {
		String *string  `json:"stringValue"`
		Int    *string  `json:"intValue"` // int64 as a JSON string
		Double *float64 `json:"doubleValue"`
		Bool   *bool    `json:"boolValue"`
		Array  *struct {
			Values []value `json:"values"`
		} `json:"arrayValue"`
	}
	keyValue struct {
		Key   string `json:"key"`
		Value value  `json:"value"`
	}
	resource struct {
		Attributes []keyValue `json:"attributes"`
	}
	link struct {
		TraceID string `json:"traceId"`
		SpanID  string `json:"spanId"`
	}
	span struct {
		TraceID    string     `json:"traceId"`
		SpanID     string     `json:"spanId"`
		Parent     string     `json:"parentSpanId"`
		Name       string     `json:"name"`
		Kind       int        `json:"kind"`
		Attributes []keyValue `json:"attributes"`
		Links      []link     `json:"links"`
		Events     []struct {
			Name       string     `json:"name"`
			Attributes []keyValue `json:"attributes"`
		} `json:"events"`
		Status struct {
			Code    int    `json:"code"` // 2: error
			Message string `json:"message"`
		} `json:"status"`
	}
	traceLine struct {
		ResourceSpans []struct {
			Resource   resource `json:"resource"`
			ScopeSpans []struct {
				Spans []span `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	dataPoint struct {
		Attributes []keyValue `json:"attributes"`
		AsInt      *string    `json:"asInt"`
		AsDouble   *float64   `json:"asDouble"`
		Count      *string    `json:"count"`
		Sum        *float64   `json:"sum"`
		Time       string     `json:"timeUnixNano"`
	}
	points struct {
		DataPoints []dataPoint `json:"dataPoints"`
	}
	metric struct {
		Name      string  `json:"name"`
		Sum       *points `json:"sum"`
		Histogram *points `json:"histogram"`
	}
	metricLine struct {
		ResourceMetrics []struct {
			Resource     resource `json:"resource"`
			ScopeMetrics []struct {
				Metrics []metric `json:"metrics"`
			} `json:"scopeMetrics"`
		} `json:"resourceMetrics"`
	}
)

// text is the value as the test compares it.
func (v value) text() string {
	switch {
	case v.String != nil:
		return *v.String
	case v.Int != nil:
		return *v.Int
	case v.Double != nil:
		return strconv.FormatFloat(*v.Double, 'g', -1, 64)
	case v.Bool != nil:
		return strconv.FormatBool(*v.Bool)
	case v.Array != nil:
		b, _ := json.Marshal(v.Array.Values)
		return string(b)
	}
	return ""
}

func attrs(kvs []keyValue) map[string]string {
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		out[kv.Key] = kv.Value.text()
	}
	return out
}

// num is an attribute read as a number (0 when absent).
func num(a map[string]string, key string) float64 {
	f, _ := strconv.ParseFloat(a[key], 64)
	return f
}

// lines calls fn with every complete line of the file at path.
func lines(t *testing.T, path string, fn func([]byte)) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		if line := bytes.Trim(sc.Bytes(), "\x00"); len(line) > 0 && line[len(line)-1] == '}' {
			fn(line)
		}
	}
}

// spansOf reads the spans of the resource whose attribute run equals id.
func spansOf(t *testing.T, path, id string) []span {
	t.Helper()
	var out []span
	lines(t, path, func(line []byte) {
		var l traceLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		for _, rs := range l.ResourceSpans {
			if attrs(rs.Resource.Attributes)[runAttr] != id {
				continue
			}
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	})
	return out
}

// series is one metric's data points by their attributes: the last value of a cumulative sum,
// the last sum and count of a histogram.
type series struct {
	attrs map[string]string
	value float64 // a sum's value, a histogram's sum
	count float64 // a histogram's count
}

// metricsOf reads the last data point of every series of the resource whose attribute run
// equals id, by metric name.
func metricsOf(t *testing.T, path, id string) map[string][]series {
	t.Helper()
	last := map[string]map[string]series{}
	lines(t, path, func(line []byte) {
		var l metricLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		for _, rm := range l.ResourceMetrics {
			if attrs(rm.Resource.Attributes)[runAttr] != id {
				continue
			}
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					pts := m.Sum
					if pts == nil {
						pts = m.Histogram
					}
					if pts == nil {
						continue
					}
					if last[m.Name] == nil {
						last[m.Name] = map[string]series{}
					}
					for _, p := range pts.DataPoints {
						s := series{attrs: attrs(p.Attributes)}
						switch {
						case p.AsInt != nil:
							s.value, _ = strconv.ParseFloat(*p.AsInt, 64)
						case p.AsDouble != nil:
							s.value = *p.AsDouble
						case p.Sum != nil:
							s.value = *p.Sum
						}
						if p.Count != nil {
							s.count, _ = strconv.ParseFloat(*p.Count, 64)
						}
						key, _ := json.Marshal(p.Attributes)
						last[m.Name][string(key)] = s // the file is in export order: later is newer
					}
				}
			}
		}
	})
	out := map[string][]series{}
	for name, byKey := range last {
		for _, s := range byKey {
			out[name] = append(out[name], s)
		}
	}
	return out
}

// total sums a metric's series whose attributes include want (value, or count with counts).
func total(m map[string][]series, name string, counts bool, want map[string]string) float64 {
	sum := 0.0
	for _, s := range m[name] {
		match := true
		for k, v := range want {
			if s.attrs[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		if counts {
			sum += s.count
		} else {
			sum += s.value
		}
	}
	return sum
}
