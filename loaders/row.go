package loaders

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tkgraph/backfill/graph"
)

// rowValues are the values of one input row per episode attribute, as the format decoded them:
// nil (absent or null), string, json.Number, int64, float64, bool, time.Time, jsonText,
// badUTF8 or badValue.
type rowValues struct {
	group, refTime, speaker, body, source, description, recordKey, name any
}

// jsonText is the canonical JSON of an object or array value.
type jsonText string

// badUTF8 stands for a JSON string value that held invalid UTF-8.
type badUTF8 struct{}

var errBadUTF8 = errors.New("invalid UTF-8")

// badValue stands for a stored value that cannot be read exactly (say an INT(8) column holding
// 300, or an INT96 time whose time of day is out of range); the row is quarantined with reason.
type badValue struct{ reason string }

// rowPos locates a row: Seq = fileIndex<<32 | row.
type rowPos struct {
	file      string
	fileIndex int
	row       int64
}

// builder turns rowValues into episodes under a normalized Spec.
type builder struct {
	spec Spec
}

// build makes the episode of one row, or a Bad (without Raw) naming the field at fault; names
// gives the input field name of each attribute.
func (b builder) build(pos rowPos, names *Mapping, v *rowValues) Result {
	bad := func(field, reason string) Result {
		return Result{Bad: &Bad{File: pos.file, Row: pos.row, Field: field, Reason: reason}}
	}
	res := Result{File: pos.file, Row: pos.row, GroupField: names.Group}
	group, orig, err := b.group(v.group)
	if err != nil {
		return bad(names.Group, err.Error())
	}
	res.OriginalGroup = orig
	if v.refTime == nil {
		return bad(names.ReferenceTime, "missing")
	}
	ref, err := b.parseTime(v.refTime)
	if err != nil {
		return bad(names.ReferenceTime, err.Error())
	}
	body, isJSON, err := asBody(v.body, b.spec.MaxBodyBytes)
	if err != nil {
		return bad(names.Body, err.Error())
	}
	fields := [...]string{names.Speaker, names.Source, names.Description, names.RecordKey, names.Name}
	var txt [5]string
	for i, x := range [...]any{v.speaker, v.source, v.description, v.recordKey, v.name} {
		if txt[i], err = asText(x); err != nil {
			return bad(fields[i], err.Error())
		}
	}
	speaker := strings.TrimSpace(txt[0])
	source, err := b.source(strings.ToLower(strings.TrimSpace(txt[1])), isJSON, speaker)
	if err != nil {
		return bad(names.Source, err.Error())
	}
	if source == graph.SourceJSON && !isJSON { // JSON as text (a Parquet column): the same bounds
		if err := checkShape([]byte(body), b.spec.JSONShape); err != nil {
			return bad(names.Body, err.Error())
		}
	}
	desc, key, name := txt[2], txt[3], txt[4]
	if desc == "" {
		desc = b.spec.Description
	}
	if strings.TrimSpace(key) == "" { // a blank key is no key: it would make distinct rows one
		key = graph.ContentKey(group, ref, speaker, body)
	}
	if name == "" {
		name = path.Base(strings.ReplaceAll(pos.file, `\`, "/")) + ":" + strconv.FormatInt(pos.row, 10)
	}
	res.Episode = graph.Episode{
		UUID: graph.EpisodeID(group, key), GroupID: group, Name: name, Source: source,
		SourceDescription: desc, Content: body, Speaker: speaker, ReferenceTime: ref,
		Seq: int64(pos.fileIndex)<<32 | pos.row, RecordKey: key,
	}
	return res
}

// group reads the group id of a row: the value, else (absent, empty or blank: no group, never a
// shared one) the spec's default group; an id outside [A-Za-z0-9_-] or longer than
// MaxGroupIDBytes is mapped (orig is then the value read) or rejected as the GroupPolicy says.
func (b builder) group(v any) (group, orig string, err error) {
	if group, err = asText(v); err != nil {
		return "", "", err
	}
	if strings.TrimSpace(group) == "" {
		if b.spec.DefaultGroup == "" {
			return "", "", errors.New("missing")
		}
		group = b.spec.DefaultGroup
	}
	if ValidGroupID(group) {
		return group, "", nil
	}
	if b.spec.GroupPolicy == GroupReject {
		if len(group) > MaxGroupIDBytes && ValidGroupID(group[:MaxGroupIDBytes]) {
			return "", "", fmt.Errorf("group id %q is %d bytes long, more than the %d every sink can index", clip(group), len(group), MaxGroupIDBytes)
		}
		return "", "", fmt.Errorf("group id %q has characters outside [A-Za-z0-9_-]", clip(group))
	}
	return MapGroupID(group), group, nil
}

func (b builder) parseTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case badValue:
		return time.Time{}, errors.New(x.reason)
	case badUTF8:
		return time.Time{}, errBadUTF8
	case jsonText:
		return time.Time{}, errors.New("an object or array is not a time")
	case bool:
		return time.Time{}, errors.New("a boolean is not a time")
	}
	return ParseTime(v, b.spec.TimeFormat, b.spec.Timezone)
}

// source picks the episode source: the row's value, else the spec's, else json for a JSON body,
// message when there is a speaker, text otherwise.
func (b builder) source(v string, isJSON bool, speaker string) (string, error) {
	switch {
	case v == graph.SourceMessage || v == graph.SourceText || v == graph.SourceJSON:
		return v, nil
	case v != "":
		return "", fmt.Errorf("source %q is not message, text or json", clip(v))
	case b.spec.Source != "":
		return b.spec.Source, nil
	case isJSON:
		return graph.SourceJSON, nil
	case speaker != "":
		return graph.SourceMessage, nil
	}
	return graph.SourceText, nil
}

// asText reads a text attribute; nil and "" both mean absent.
func asText(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		if !utf8.ValidString(x) {
			return "", errBadUTF8
		}
		return x, nil
	case json.Number:
		return string(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case badUTF8:
		return "", errBadUTF8
	case badValue:
		return "", errors.New(x.reason)
	case jsonText:
		return "", errors.New("an object or array is not text")
	}
	return "", fmt.Errorf("a %s is not text", typeName(v))
}

// asBody reads the body: a non-blank valid UTF-8 string, or canonical JSON, within max bytes.
func asBody(v any, max int) (body string, isJSON bool, err error) {
	switch x := v.(type) {
	case nil:
		return "", false, errors.New("missing")
	case badUTF8:
		return "", false, errBadUTF8
	case badValue:
		return "", false, errors.New(x.reason)
	case jsonText:
		body, isJSON = string(x), true
	case string:
		if !utf8.ValidString(x) {
			return "", false, errBadUTF8
		}
		if strings.TrimSpace(x) == "" {
			return "", false, errors.New("empty")
		}
		body = x
	default:
		return "", false, fmt.Errorf("must be a string, object or array, not a %s", typeName(v))
	}
	if len(body) > max {
		return "", false, fmt.Errorf("body is %d bytes, over the limit of %d", len(body), max)
	}
	return body, isJSON, nil
}

func typeName(v any) string {
	switch v.(type) {
	case json.Number, int64, float64:
		return "number"
	case bool:
		return "boolean"
	case time.Time:
		return "timestamp"
	}
	return fmt.Sprintf("%T", v)
}

// rawText makes Bad.Raw from a row's bytes: valid UTF-8, at most MaxRawBytes.
func rawText(b []byte) string {
	s := strings.ToValidUTF8(string(b[:min(len(b), MaxRawBytes)]), "\uFFFD")
	if len(s) <= MaxRawBytes {
		return s
	}
	n := MaxRawBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
