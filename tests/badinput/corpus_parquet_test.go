package badinput

import (
	"bytes"
	"math"
	"time"

	"github.com/parquet-go/parquet-go"
)

// pqRow is a valid episode row with the default column names.
type pqRow struct {
	GroupID       string `parquet:"group_id"`
	ReferenceTime string `parquet:"reference_time"`
	Speaker       string `parquet:"speaker"`
	Content       string `parquet:"content"`
}

// Rows whose columns are wrongly typed, missing, repeated or nullable.
type (
	pqBoolTime struct {
		GroupID       string `parquet:"group_id"`
		ReferenceTime bool   `parquet:"reference_time"`
		Content       string `parquet:"content"`
	}
	pqIntBody struct {
		GroupID       string `parquet:"group_id"`
		ReferenceTime string `parquet:"reference_time"`
		Content       int64  `parquet:"content"`
	}
	pqNoTime struct {
		GroupID string `parquet:"group_id"`
		Content string `parquet:"content"`
	}
	pqListBody struct {
		GroupID       string   `parquet:"group_id"`
		ReferenceTime string   `parquet:"reference_time"`
		Content       []string `parquet:"content,list"`
	}
	pqNulls struct {
		GroupID       *string `parquet:"group_id,optional"`
		ReferenceTime *string `parquet:"reference_time,optional"`
		Content       *string `parquet:"content,optional"`
	}
	pqTimestamp struct {
		GroupID       string    `parquet:"group_id"`
		ReferenceTime time.Time `parquet:"reference_time,timestamp(millisecond)"`
		Content       string    `parquet:"content"`
	}
	pqFloatTime struct {
		GroupID       string  `parquet:"group_id"`
		ReferenceTime float64 `parquet:"reference_time"`
		Content       string  `parquet:"content"`
	}
)

// writeParquet encodes rows as one Parquet file.
func writeParquet[T any](rows []T) []byte {
	var b bytes.Buffer
	w := parquet.NewGenericWriter[T](&b)
	if _, err := w.Write(rows); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func ptr(s string) *string { return &s }

// validRows are the rows of valid.parquet and the damaged copies made from it.
func validRows() []pqRow {
	var rows []pqRow
	for i, text := range []string{"Gina joined Samsung.", "Gina moved to Suwon.", "Gina left Samsung.", "Gina joined LG.", "Gina bought a car."} {
		rows = append(rows, pqRow{GroupID: "pq", ReferenceTime: time.Date(2023, 5, 20+i, 9, 0, 0, 0, time.UTC).Format(time.RFC3339),
			Speaker: "Gina", Content: text})
	}
	return rows
}

// flip returns a copy of b with the bytes in [from, to) inverted.
func flip(b []byte, from, to int) []byte {
	out := append([]byte(nil), b...)
	for i := from; i < to && i < len(out); i++ {
		out[i] ^= 0xff
	}
	return out
}

// set returns a copy of b with b[i] = v.
func set(b []byte, i int, v byte) []byte {
	out := append([]byte(nil), b...)
	out[i] = v
	return out
}

// parquetCorpus returns the Parquet files of the corpus.
func parquetCorpus() map[string][]byte {
	files := map[string][]byte{}
	valid := writeParquet(validRows())
	n := len(valid)
	files["valid.parquet"] = valid
	files["truncated.parquet"] = valid[:n/2]
	files["corrupt_footer.parquet"] = flip(valid, 880, 900) // inside the footer (it starts at byte 852): the schema
	files["corrupt_magic.parquet"] = flip(valid, n-4, n)
	files["corrupt_pages.parquet"] = flip(valid, 8, 60) // inside the first column chunk's pages
	// One byte each, found by a seeded mutation sweep: parquet-go v0.32.0 panics on them (a
	// negative size in the schema while opening, in a v2 data page header while reading).
	files["corrupt_schema.parquet"] = set(valid, 864, 0x7f)
	files["corrupt_page_header.parquet"] = set(valid, 20, 30)
	files["not_parquet.parquet"] = []byte("group_id,reference_time,content\npq,2023-05-20,hello\n")
	files["empty.parquet"] = []byte{}
	files["bool_time.parquet"] = writeParquet([]pqBoolTime{{GroupID: "pq", ReferenceTime: true, Content: "Hana joined SK."}})
	files["int_body.parquet"] = writeParquet([]pqIntBody{
		{GroupID: "pq", ReferenceTime: "2023-05-20T09:00:00Z", Content: 42},
		{GroupID: "pq", ReferenceTime: "2023-05-21T09:00:00Z", Content: 43},
	})
	files["no_time.parquet"] = writeParquet([]pqNoTime{{GroupID: "pq", Content: "Ian joined KT."}})
	files["list_body.parquet"] = writeParquet([]pqListBody{{GroupID: "pq", ReferenceTime: "2023-05-20T09:00:00Z", Content: []string{"a", "b"}}})
	files["nulls.parquet"] = writeParquet([]pqNulls{
		{GroupID: ptr("pq"), ReferenceTime: ptr("2023-05-20T09:00:00Z"), Content: ptr("Jin joined Naver.")}, // 1 ok
		{GroupID: nil, ReferenceTime: ptr("2023-05-21T09:00:00Z"), Content: ptr("Jin moved.")},              // 2 group
		{GroupID: ptr("pq"), ReferenceTime: nil, Content: ptr("Jin left.")},                                 // 3 time
		{GroupID: ptr("pq"), ReferenceTime: ptr("2023-05-23T09:00:00Z"), Content: nil},                      // 4 body
		{GroupID: ptr("pq"), ReferenceTime: ptr("2023-05-24T09:00:00Z"), Content: ptr("")},                  // 5 empty body
		{GroupID: ptr("pq"), ReferenceTime: ptr("2023-05-25T09:00:00Z"), Content: ptr("Jin joined Kakao.")}, // 6 ok
	})
	files["timestamps.parquet"] = writeParquet([]pqTimestamp{
		{GroupID: "pq", ReferenceTime: time.Date(2023, 5, 20, 9, 0, 0, 0, time.UTC), Content: "Kim joined Toss."}, // 1 ok
		{GroupID: "pq", ReferenceTime: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), Content: "Kim left Toss."},    // 2 after 2261
		{GroupID: "pq", ReferenceTime: time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), Content: "Kim was born."},     // 3 before 1678
		{GroupID: "pq", ReferenceTime: time.Unix(0, 0).UTC(), Content: "Kim joined Baemin."},                      // 4 ok: 1970
	})
	files["float_time.parquet"] = writeParquet([]pqFloatTime{
		{GroupID: "pq", ReferenceTime: 1684573200, Content: "Lee joined Hyundai."}, // 1 ok: epoch seconds
		{GroupID: "pq", ReferenceTime: math.NaN(), Content: "Lee left Hyundai."},   // 2 NaN
		{GroupID: "pq", ReferenceTime: math.Inf(1), Content: "Lee joined Kia."},    // 3 +Inf
		{GroupID: "pq", ReferenceTime: -1e300, Content: "Lee was born."},           // 4 out of range
	})
	files["invalid_utf8.parquet"] = writeParquet([]pqRow{
		{GroupID: "pq", ReferenceTime: "2023-05-20T09:00:00Z", Speaker: "Min", Content: "Min joined Line."},        // 1 ok
		{GroupID: "pq", ReferenceTime: "2023-05-21T09:00:00Z", Speaker: "Min", Content: "bad \xff\xfe body"},       // 2 body
		{GroupID: "pq", ReferenceTime: "2023-05-22T09:00:00Z", Speaker: "M\xc3", Content: "Min left Line."},        // 3 speaker
		{GroupID: "p\xe2q", ReferenceTime: "2023-05-23T09:00:00Z", Speaker: "Min", Content: "Min joined Coupang."}, // 4 group
		{GroupID: "pq", ReferenceTime: "2023-05-\xff24", Speaker: "Min", Content: "Min left Coupang."},             // 5 time
	})
	return files
}

// locomoCorpus returns broken LoCoMo and LongMemEval files.
func locomoCorpus() map[string][]byte {
	sample := `[{"sample_id":"conv-x","conversation":{"speaker_a":"Ann","speaker_b":"Ben","session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"Hi Ben, I joined Acme."}]}}]`
	return map[string][]byte{
		"locomo_truncated.json":      []byte(sample[:len(sample)/2]),
		"locomo_object.json":         []byte(`{"sample_id":"conv-x"}`),
		"longmemeval_truncated.json": []byte(`[{"question_id":"q1","haystack_session_ids":["s1"],"haystack_dates":["2023/05/20 (Sat) 02:21"],"haystack_sessions":[[{"role":"user","content":"I gradu`),
		"longmemeval_mismatch.json": []byte(`[{"question_id":"q1","haystack_session_ids":["s1","s2"],"haystack_dates":["2023/05/20 (Sat) 02:21"],"haystack_sessions":[[{"role":"user","content":"Hi"}],[{"role":"user","content":"Bye"}]]},` +
			`{"question_id":"q2","haystack_session_ids":["s3"],"haystack_dates":["2023/05/21 (Sun) 10:00"],"haystack_sessions":[[{"role":"user","content":"I graduated in Business Administration."},{"role":"assistant","content":42},{"role":"user"}]]}]`),
		"locomo_bad_date.json": []byte(`[{"sample_id":"conv-y","conversation":{"speaker_a":"Ann","speaker_b":"Ben","session_1_date_time":"someday","session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"Hi Ben."}]}}]`),
	}
}
