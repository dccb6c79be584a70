package loaders

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/tkgraph/backfill/graph"
)

// locomoSample is the part of a LoCoMo sample the importer reads.
type locomoSample struct {
	SampleID     json.RawMessage            `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
}

type locomoTurn struct {
	Speaker     string          `json:"speaker"`
	DiaID       string          `json:"dia_id"`
	Text        json.RawMessage `json:"text"`
	BlipCaption string          `json:"blip_caption"`
}

// readLoCoMo streams a LoCoMo file: a JSON array of samples, each a conversation of numbered
// sessions (session_N: a list of turns; session_N_date_time: "1:56 pm on 8 May, 2023", naive, in
// the spec's timezone). One message episode per turn, sessions in numeric order; the group is the
// sample_id, the record key sample_id/dia_id. A turn with a blip_caption gets
// " [shares an image: <caption>]" appended to its text. Date keys without a session are ignored.
func (fr *fileReader) readLoCoMo(ctx context.Context, r io.Reader) error {
	fr.b.spec.TimeFormat = LoCoMoLayout
	te := &turnEmitter{fr: fr}
	return eachElement(ctx, r, func(idx int64, raw json.RawMessage) error {
		var s locomoSample
		if err := json.Unmarshal(raw, &s); err != nil {
			field, reason := decodeReason(err)
			return te.element(idx, field, "not a LoCoMo sample: "+reason, raw)
		}
		sid := decodeValue(s.SampleID)
		group, orig, err := fr.b.group(sid)
		if err != nil {
			return te.element(idx, "sample_id", err.Error(), raw)
		}
		for _, n := range locomoSessions(s.Conversation) {
			if err := fr.locomoSession(te, idx, group, orig, s.Conversation, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// locomoSessions returns the numbers N of the session_N keys, ascending.
func locomoSessions(conv map[string]json.RawMessage) []int {
	var ns []int
	for k := range conv {
		if rest, ok := strings.CutPrefix(k, "session_"); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 && strconv.Itoa(n) == rest {
				ns = append(ns, n)
			}
		}
	}
	sort.Ints(ns)
	return ns
}

// locomoSession emits the turns of session n of one sample.
func (fr *fileReader) locomoSession(te *turnEmitter, idx int64, group, orig string, conv map[string]json.RawMessage, n int) error {
	key := "session_" + strconv.Itoa(n)
	dateKey := key + "_date_time"
	var turns []json.RawMessage
	if err := json.Unmarshal(conv[key], &turns); err != nil {
		return te.element(idx, "conversation."+key, "not a list of turns: "+err.Error(), conv[key])
	}
	date := decodeValue(conv[dateKey])
	desc := fr.b.spec.Description
	if desc == "" {
		desc = fmt.Sprintf("LoCoMo %s session %d", group, n)
	}
	for i, raw := range turns {
		field := fmt.Sprintf("conversation.%s[%d]", key, i)
		var t locomoTurn
		if err := json.Unmarshal(raw, &t); err != nil {
			_, reason := decodeReason(err)
			if err := te.element(idx, field, "not a LoCoMo turn: "+reason, raw); err != nil {
				return err
			}
			continue
		}
		body := decodeValue(t.Text)
		if s, ok := body.(string); ok && t.BlipCaption != "" {
			body = s + " [shares an image: " + t.BlipCaption + "]"
		}
		v := rowValues{group: group, refTime: date, speaker: t.Speaker, body: body,
			source: graph.SourceMessage, description: desc}
		if strings.TrimSpace(t.DiaID) != "" { // a blank dia_id is none: turns keep distinct keys
			v.recordKey = cmp.Or(orig, group) + "/" + t.DiaID
			v.name = v.recordKey
		} else {
			v.name = group + "/" + field
		}
		names := Mapping{Group: "sample_id", ReferenceTime: "conversation." + dateKey,
			Speaker: field + ".speaker", Body: field + ".text", RecordKey: field + ".dia_id"}
		if err := te.turn(idx, &names, &v, orig, raw); err != nil {
			return err
		}
	}
	return nil
}
