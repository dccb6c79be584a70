package loaders

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	seoul := mustLoc(t, "Asia/Seoul")
	utc := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UTC()
	}
	tests := []struct {
		name   string
		v      any
		layout string
		loc    *time.Location
		want   time.Time
		err    string // substring of the error; empty = no error
	}{
		{"rfc3339 zulu", "2023-05-20T02:21:00Z", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"rfc3339 offset", "2023-05-20T11:21:00+09:00", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"rfc3339 nanos", "2023-05-20T02:21:00.123456789Z", "", nil, utc("2023-05-20T02:21:00.123456789Z"), ""},
		{"offset without colon", "2023-05-20T11:21:00+0900", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"offset hours only", "2023-05-20 11:21:00+09", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"space and offset", "2023-05-20 11:21:00 +09:00", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"go String form", "2023-05-20 11:21:00.5 +0900 KST", "", nil, utc("2023-05-20T02:21:00.5Z"), ""},
		{"zone beats loc", "2023-05-20T02:21:00Z", "", seoul, utc("2023-05-20T02:21:00Z"), ""},
		{"rfc1123z", "Sat, 20 May 2023 11:21:00 +0900", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"naive utc", "2023-05-20T02:21:00", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"naive seoul", "2023-05-20 11:21:00", "", seoul, utc("2023-05-20T02:21:00Z"), ""},
		{"naive minutes seoul", "2023-05-20 11:21", "", seoul, utc("2023-05-20T02:21:00Z"), ""},
		{"date only seoul", "2023-05-20", "", seoul, utc("2023-05-19T15:00:00Z"), ""},
		{"slashes", "2023/05/20 02:21:00", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"longmemeval", "2023/05/20 (Sat) 02:21", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"longmemeval seoul", "2023/05/20 (Sat) 11:21", "", seoul, utc("2023-05-20T02:21:00Z"), ""},
		{"locomo pm", "1:56 pm on 8 May, 2023", "", nil, utc("2023-05-08T13:56:00Z"), ""},
		{"locomo am", "12:21 am on 27 June, 2023", "", nil, utc("2023-06-27T00:21:00Z"), ""},
		{"locomo layout", "9:59 pm on 19 June, 2022", LoCoMoLayout, seoul, utc("2022-06-19T12:59:00Z"), ""},
		{"surrounding space", "  2023-05-20T02:21:00Z \n", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"epoch s int", int64(1684549260), "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"epoch ms int", int64(1684549260123), "", nil, utc("2023-05-20T02:21:00.123Z"), ""},
		{"epoch us int", int64(1684549260123456), "", nil, utc("2023-05-20T02:21:00.123456Z"), ""},
		{"epoch ns int", int64(1684549260123456789), "", nil, utc("2023-05-20T02:21:00.123456789Z"), ""},
		{"epoch int32", int32(1684549260), "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"epoch negative", int64(-86400), "", nil, utc("1969-12-31T00:00:00Z"), ""},
		{"epoch zero", 0, "", nil, utc("1970-01-01T00:00:00Z"), ""},
		{"epoch s float", 1684549260.25, "", nil, utc("2023-05-20T02:21:00.25Z"), ""},
		{"epoch ms float", 1684549260123.0, "", nil, utc("2023-05-20T02:21:00.123Z"), ""},
		{"epoch s string", "1684549260", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"epoch ms string", "1684549260123", "", nil, utc("2023-05-20T02:21:00.123Z"), ""},
		{"epoch float string", "1684549260.5", "", nil, utc("2023-05-20T02:21:00.5Z"), ""},
		{"epoch exponent string", "1.68454926e9", "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"json number", json.Number("1684549260123"), "", nil, utc("2023-05-20T02:21:00.123Z"), ""},
		{"time value", time.Date(2023, 5, 20, 11, 21, 0, 0, seoul), "", nil, utc("2023-05-20T02:21:00Z"), ""},
		{"epoch_s forced", int64(1684549260123), TimeEpochS, nil, time.Time{}, "outside years"},
		{"epoch_ms forced small", int64(86400000), TimeEpochMS, nil, utc("1970-01-02T00:00:00Z"), ""},
		{"epoch_ms string", "1684549260123", TimeEpochMS, nil, utc("2023-05-20T02:21:00.123Z"), ""},
		{"epoch_s on text", "yesterday", TimeEpochS, nil, time.Time{}, "not a number"},
		{"rfc3339 strict ok", "2023-05-20T11:21:00+09:00", TimeRFC3339, nil, utc("2023-05-20T02:21:00Z"), ""},
		{"rfc3339 strict naive", "2023-05-20 11:21:00", TimeRFC3339, nil, time.Time{}, "not an RFC 3339"},
		{"rfc3339 strict number", int64(5), TimeRFC3339, nil, time.Time{}, "not an RFC 3339"},
		{"custom layout", "20/05/2023 11h21", "02/01/2006 15h04", seoul, utc("2023-05-20T02:21:00Z"), ""},
		{"custom layout number", int64(20230520), "20060102", nil, utc("2023-05-20T00:00:00Z"), ""},
		{"custom layout mismatch", "2023-05-20", "02/01/2006", nil, time.Time{}, "does not match layout"},
		{"garbage", "next tuesday-ish", "", nil, time.Time{}, "unrecognized time"},
		{"empty", "   ", "", nil, time.Time{}, "empty"},
		{"nil", nil, "", nil, time.Time{}, "missing"},
		{"bool", true, "", nil, time.Time{}, "cannot read a time"},
		{"year 1", "0001-01-01T00:00:00Z", "", nil, time.Time{}, "outside years"},
		{"year 9999", "9999-12-31T00:00:00Z", "", nil, time.Time{}, "outside years"},
		{"huge epoch", int64(math.MaxInt64), "", nil, time.Time{}, "outside years"},
		{"huge epoch_s", int64(math.MaxInt64), TimeEpochS, nil, time.Time{}, "out of range"},
		{"huge float", 1e300, "", nil, time.Time{}, "out of range"},
		{"nan", math.NaN(), "", nil, time.Time{}, "not a finite"},
		{"inf string", "inf", "", nil, time.Time{}, "unrecognized"},
		{"bad month", "2023-13-01", "", nil, time.Time{}, "unrecognized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTime(tt.v, tt.layout, tt.loc)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseTime(%v) = %v, %v; want error containing %q", tt.v, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTime(%v): %v", tt.v, err)
			}
			if !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("ParseTime(%v) = %v, want %v in UTC", tt.v, got, tt.want)
			}
		})
	}
}

func TestCheckTimeFormat(t *testing.T) {
	for f, ok := range map[string]bool{"": true, "rfc3339": true, "epoch_ms": true,
		"2006-01-02": true, "Jan 2": true, "iso": false, "epoch": false} {
		if err := checkTimeFormat(f); (err == nil) != ok {
			t.Errorf("checkTimeFormat(%q) = %v, want ok=%v", f, err, ok)
		}
	}
}

// FuzzParseTime checks that ParseTime never panics and that every accepted value is a UTC time
// within the supported years.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2023-05-20T02:21:00Z", "1684549260123", "1:56 pm on 8 May, 2023",
		"2023/05/20 (Sat) 02:21", "1e300", "-1", "2023-05-20 11:21:00 +0900 KST", ""} {
		f.Add(s, "")
	}
	f.Add("20230520", "20060102")
	f.Add("5", "epoch_ms")
	f.Fuzz(func(t *testing.T, s, layout string) {
		for _, v := range []any{s, json.Number(s)} {
			got, err := ParseTime(v, layout, time.UTC)
			if err != nil {
				continue
			}
			if got.Location() != time.UTC || got.Before(minTime) || !got.Before(maxTime) {
				t.Fatalf("ParseTime(%q, %q) = %v: not a UTC time in range", s, layout, got)
			}
		}
	})
}
