package badinput

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"strings"
)

// row is one JSON object line with the default field names; nil values are left out.
func row(fields map[string]any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil { // map keys are sorted: the line is deterministic
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// good is a valid message row of group g at time ts.
func good(g, ts, text string) string {
	return row(map[string]any{"group_id": g, "reference_time": ts, "speaker": "Alice", "content": text})
}

// lines joins rows into a JSON Lines file.
func lines(rows ...string) []byte { return []byte(strings.Join(rows, "\n") + "\n") }

// withTime is a row whose reference_time is the raw JSON text ts.
func withTime(ts string) string {
	return `{"content":"Alice met Bob at the station.","group_id":"times","reference_time":` + ts + `,"speaker":"Alice"}`
}

// jsonlCorpus returns the JSON Lines files of the corpus.
func jsonlCorpus() map[string][]byte {
	files := map[string][]byte{}
	files["timestamps.jsonl"] = lines(
		withTime(`"2023-05-20T02:21:00Z"`),              // 1 ok
		withTime(`"yesterday"`),                         // 2 unparseable
		withTime(`"2023-13-45T00:00:00Z"`),              // 3 month 13
		withTime(`"3000-01-01T00:00:00Z"`),              // 4 after 2261
		withTime(`"1600-01-01T00:00:00Z"`),              // 5 before 1678
		withTime(`1e300`),                               // 6 epoch out of range
		withTime(`-99999999999999999999`),               // 7 epoch out of range
		withTime(`""`),                                  // 8 empty
		withTime(`null`),                                // 9 missing
		withTime(`true`),                                // 10 boolean
		withTime(`{"t":1}`),                             // 11 object
		withTime(`"0001-01-01T00:00:00Z"`),              // 12 zero sentinel
		withTime(`1684549320`),                          // 13 ok: epoch seconds
		withTime(`"1:56 pm on 8 May, 2023"`),            // 14 ok: LoCoMo style
		withTime(`"2023-05-20 11:21:00"`),               // 15 ok: naive
		withTime(`NaN`),                                 // 16 not JSON
		withTime(`"2023-02-29T10:00:00Z"`),              // 17 no such day
		withTime(`"9223372036854775807"`),               // 18 epoch out of range
		withTime(`"2023-05-20T25:00:00Z"`),              // 19 hour 25
		withTime(`[2023, 5, 20]`),                       // 20 array
		withTime(`"2261-12-31T23:59:59Z"`),              // 21 ok: last supported year
		withTime(`"\u0032\u0030\u0032\u0033-05-21"`),    // 22 ok: escaped digits
		withTime(`"2023-05-20T02:21:00+25:00"`),         // 23 offset out of range
		withTime(`"  2023-05-22T08:00:00Z  "`),          // 24 ok or bad: surrounding blanks
		withTime(`0`),                                   // 25 epoch 0: 1970 is in range
		withTime(`"2023-05-20T02:21:00.123456789123Z"`), // 26 too many fraction digits
	)
	files["utf8.jsonl"] = lines(
		good("utf8", "2023-05-20T02:21:00Z", "Alice joined Acme in March."),                                       // 1 ok
		`{"content":"bad `+"\xff\xfe"+` body","group_id":"utf8","reference_time":"2023-05-20T02:22:00Z"}`,         // 2 body
		`{"content":"fine","group_id":"utf8","reference_time":"2023-05-20T02:23:00Z","speaker":"Al`+"\xc3"+`"}`,   // 3 speaker
		`{"content":"fine","group_id":"ut`+"\xe2\x82"+`f8","reference_time":"2023-05-20T02:24:00Z"}`,              // 4 group
		`{"content":"overlong `+"\xc0\xaf"+`","group_id":"utf8","reference_time":"2023-05-20T02:25:00Z"}`,         // 5 overlong encoding
		`{"content":"surrogate \ud800 escaped","group_id":"utf8","reference_time":"2023-05-20T02:26:00Z"}`,        // 6 ok: JSON escape becomes U+FFFD
		`{"content":"CESU `+"\xed\xa0\x80"+`","group_id":"utf8","reference_time":"2023-05-20T02:27:00Z"}`,         // 7 raw surrogate bytes
		good("utf8", "2023-05-20T02:28:00Z", "앨리스는 3월에 에이크미에 입사했어요."),                                             // 8 ok: Korean
		`{"content":"fine","group_id":"utf8","record_key":"k`+"\xff"+`","reference_time":"2023-05-20T02:29:00Z"}`, // 9 record key
		`{"content":"tail byte `+"\x80"+`","group_id":"utf8","reference_time":"2023-05-20T02:30:00Z"}`+"\xff",     // 10 bytes after the object
	)
	files["bodies.jsonl"] = lines(
		good("bodies", "2023-05-20T02:21:00Z", "Alice moved to Busan."),                                           // 1 ok
		good("bodies", "2023-05-20T02:22:00Z", ""),                                                                // 2 empty
		good("bodies", "2023-05-20T02:23:00Z", "   \t  "),                                                         // 3 blank
		`{"content":null,"group_id":"bodies","reference_time":"2023-05-20T02:24:00Z"}`,                            // 4 null
		`{"group_id":"bodies","reference_time":"2023-05-20T02:25:00Z"}`,                                           // 5 missing
		`{"content":123,"group_id":"bodies","reference_time":"2023-05-20T02:26:00Z"}`,                             // 6 number
		`{"content":true,"group_id":"bodies","reference_time":"2023-05-20T02:27:00Z"}`,                            // 7 boolean
		`{"content":{"order":17,"status":"shipped"},"group_id":"bodies","reference_time":"2023-05-20T02:28:00Z"}`, // 8 ok: JSON body
		`{"content":[],"group_id":"bodies","reference_time":"2023-05-20T02:29:00Z"}`,                              // 9 ok: an empty array is JSON
		good("bodies", "2023-05-20T02:30:00Z", "nul \u0000 inside"),                                               // 10 ok: NUL is valid UTF-8
		good("bodies", "2023-05-20T02:31:00Z", "\u200b"),                                                          // 11 ok: zero-width space is not blank
		`{"content":"","content":"second wins","group_id":"bodies","reference_time":"2023-05-20T02:32:00Z"}`,      // 12 ok: duplicate key, last wins
		good("bodies", "2023-05-20T02:33:00Z", "\r\n"),                                                            // 13 blank
	)
	files["not_objects.jsonl"] = lines(
		good("shapes", "2023-05-20T02:21:00Z", "Bob works at Naver."), // 1 ok
		`[1,2,3]`,                   // 2 array
		`"a string"`,                // 3 string
		`42`,                        // 4 number
		`null`,                      // 5 null
		`true`,                      // 6 boolean
		`{"content": "unterminated`, // 7 truncated object
		`}{`,                        // 8 garbage
		`{"a":1}{"b":2}`,            // 9 two objects
		`{}`,                        // 10 empty object: missing group
		"\x00\x01\x02",              // 11 control bytes
		strings.Repeat("[", 10001),  // 12 deep nesting
		`{"content":"x","group_id":"shapes","reference_time":"2023-05-20T02:22:00Z",}`, // 13 trailing comma
		``,    // 14 blank line: skipped
		`   `, // 15 blank line: skipped
		good("shapes", "2023-05-20T02:23:00Z", "Bob left Naver in May."),             // 16 ok
		`{"content":"x","group_id":"shapes","reference_time":"2023-05-20T02:24:00Z"`, // 17 missing brace
		strings.Repeat(`{"a":`, 10001)+"1"+strings.Repeat("}", 10001),                // 18 deep object nesting
	)
	files["duplicates.jsonl"] = lines(
		row(map[string]any{"group_id": "dups", "reference_time": "2023-05-20T02:21:00Z", "record_key": "r1", "content": "Order 17 was placed."}),        // 1
		row(map[string]any{"group_id": "dups", "reference_time": "2023-05-20T02:22:00Z", "record_key": "r1", "content": "Order 17 was shipped."}),       // 2 same key: replaces row 1
		good("dups", "2023-05-20T02:23:00Z", "Alice likes tea."),                                                                                        // 3
		good("dups", "2023-05-20T02:23:00Z", "Alice likes tea."),                                                                                        // 4 identical to 3: same content key
		row(map[string]any{"group_id": "dups2", "reference_time": "2023-05-20T02:22:00Z", "record_key": "r1", "content": "Order 17 in another group."}), // 5 same key, other group
		good("dups", "2023-05-20T02:24:00Z", "Alice likes tea."),                                                                                        // 6 same text, other time: a new episode
	)
	files["groups.jsonl"] = lines(
		good("ok_group-1", "2023-05-20T02:21:00Z", "Carol visited Jeju."),                                  // 1 ok
		good("a/b", "2023-05-20T02:22:00Z", "Carol visited Seoul."),                                        // 2 mapped (or rejected)
		good("그룹", "2023-05-20T02:23:00Z", "Carol visited Daegu."),                                         // 3 mapped (or rejected)
		good("   ", "2023-05-20T02:24:00Z", "Carol visited Ulsan."),                                        // 4 blank group: mapped (or rejected)
		good(strings.Repeat("g", 300), "2023-05-20T02:25:00Z", "Carol visited Incheon."),                   // 5 long but valid
		`{"content":"Carol visited Suwon.","reference_time":"2023-05-20T02:26:00Z"}`,                       // 6 no group: default group, or bad
		`{"content":"Carol visited Gwangju.","group_id":17,"reference_time":"2023-05-20T02:27:00Z"}`,       // 7 number: the text "17"
		`{"content":"Carol visited Daejeon.","group_id":{"id":1},"reference_time":"2023-05-20T02:28:00Z"}`, // 8 object
	)
	files["crlf_bom.jsonl"] = []byte("\xef\xbb\xbf" + strings.Join([]string{
		good("crlf", "2023-05-20T02:21:00Z", "Dan joined Kakao."),
		"",
		good("crlf", "2023-05-20T02:22:00Z", "Dan left Kakao."),
		good("crlf", "2023-05-20T02:23:00Z", "Dan joined Line."),
	}, "\r\n")) // and no newline at the end
	files["mostly_bad.jsonl"] = lines(
		good("mostly", "2023-05-20T02:21:00Z", "Eve joined Coupang."),
		`not json`, `not json`, `not json`, `not json`,
	)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for i := 0; i < 200; i++ {
		zw.Write([]byte(good("gzip", "2023-05-20T02:21:00Z", strings.Repeat("Frank plays tennis. ", 1+i%7)+string(rune('a'+i%26))) + "\n"))
	}
	zw.Close()
	files["truncated.jsonl.gz"] = gz.Bytes()[:gz.Len()/2]
	files["not_gzip.jsonl.gz"] = lines(good("gzip", "2023-05-20T02:21:00Z", "plain text, not gzip"))
	return files
}
