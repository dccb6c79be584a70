package loaders

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// lmeQuestion is the part of a LongMemEval question the importer reads.
type lmeQuestion struct {
	QuestionID json.RawMessage     `json:"question_id"`
	SessionIDs []string            `json:"haystack_session_ids"`
	Dates      []json.RawMessage   `json:"haystack_dates"`
	Sessions   [][]json.RawMessage `json:"haystack_sessions"`
}

type lmeTurn struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// readLongMemEval streams a LongMemEval file: a JSON array of questions, each with a haystack of
// sessions (haystack_session_ids, haystack_dates like "2023/05/20 (Sat) 02:21", naive, in the
// spec's timezone, and haystack_sessions, lists of {role, content} turns). One group per
// question_id and one message episode per turn: speaker = role, reference time = the session's
// date, record key = question_id/session_id/turn number (1-based).
func (fr *fileReader) readLongMemEval(ctx context.Context, r io.Reader) error {
	fr.b.spec.TimeFormat = LongMemEvalLayout
	te := &turnEmitter{fr: fr}
	return eachElement(ctx, r, func(idx int64, raw json.RawMessage) error {
		var q lmeQuestion
		if err := json.Unmarshal(raw, &q); err != nil {
			field, reason := decodeReason(err)
			return te.element(idx, field, "not a LongMemEval question: "+reason, raw)
		}
		group, orig, err := fr.b.group(decodeValue(q.QuestionID))
		if err != nil {
			return te.element(idx, "question_id", err.Error(), raw)
		}
		if len(q.SessionIDs) != len(q.Sessions) || len(q.Dates) != len(q.Sessions) {
			reason := fmt.Sprintf("%d session ids and %d dates for %d sessions",
				len(q.SessionIDs), len(q.Dates), len(q.Sessions))
			return te.element(idx, "haystack_sessions", reason, raw)
		}
		qid := cmp.Or(orig, group)
		for i, turns := range q.Sessions {
			if err := fr.lmeSession(te, idx, qid, group, orig, q.SessionIDs[i], q.Dates[i], i, turns); err != nil {
				return err
			}
		}
		return nil
	})
}

// lmeSession emits the turns of haystack session i of one question.
func (fr *fileReader) lmeSession(te *turnEmitter, idx int64, qid, group, orig, sid string, date json.RawMessage, i int, turns []json.RawMessage) error {
	desc := fr.b.spec.Description
	if desc == "" {
		desc = "LongMemEval session " + sid
	}
	when := decodeValue(date)
	if strings.TrimSpace(sid) == "" {
		sid = "[" + strconv.Itoa(i) + "]" // no session id: the session's place keeps its turns apart from other sessions'
	}
	for j, raw := range turns {
		field := fmt.Sprintf("haystack_sessions[%d][%d]", i, j)
		var t lmeTurn
		if err := json.Unmarshal(raw, &t); err != nil {
			_, reason := decodeReason(err)
			if err := te.element(idx, field, "not a LongMemEval turn: "+reason, raw); err != nil {
				return err
			}
			continue
		}
		key := qid + "/" + sid + "/" + strconv.Itoa(j+1)
		v := rowValues{group: group, refTime: when, speaker: t.Role,
			body: decodeValue(t.Content), source: "message", description: desc,
			recordKey: key, name: key}
		names := Mapping{Group: "question_id", ReferenceTime: fmt.Sprintf("haystack_dates[%d]", i),
			Speaker: field + ".role", Body: field + ".content"}
		if err := te.turn(idx, &names, &v, orig, raw); err != nil {
			return err
		}
	}
	return nil
}
