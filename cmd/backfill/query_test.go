package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
)

// updating reports whether -update asks to rewrite golden files; the flag is registered here
// unless another test file of the package already did.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.(flag.Getter).Get().(bool)
}

func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata/")
	}
}

// billingJob writes a job over two CRM records per language: an account on the Basic plan in
// January, and on Mar 15 a record saying the plan changed to Pro on Mar 1. It runs the job
// through the run command and returns the job file and checkpoint.
func billingJob(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	recs := `{"group_id":"acme","reference_time":"2026-01-05T09:00:00Z","record_key":"crm-1","record":{"customer":"Acme Corp","plan":"Basic"}}
{"group_id":"acme","reference_time":"2026-03-15T09:00:00Z","record_key":"crm-2","record":{"customer":"Acme Corp","plan":"Pro","previous_plan":"Basic","effective_date":"2026-03-01"}}
{"group_id":"acme-ko","reference_time":"2026-01-05T09:00:00Z","record_key":"crm-1","record":{"고객":"에이크미","요금제":"베이직"}}
{"group_id":"acme-ko","reference_time":"2026-03-15T09:00:00Z","record_key":"crm-2","record":{"고객":"에이크미","요금제":"프로","이전_요금제":"베이직","적용일":"2026-03-01"}}
`
	job := fmt.Sprintf(`name: billing
checkpoint: %[1]s/billing.db
timezone: UTC
record_time: reference
sources:
  - path: %[1]s/records.jsonl
    format: jsonl
    source: json
    mapping: {group: group_id, reference_time: reference_time, record_key: record_key, body: record}
llm: {provider: offline, concurrency: 2}
embedder: {provider: offline, dimensions: 16}
`, dir)
	jobPath := filepath.Join(dir, "billing.yaml")
	for name, body := range map[string]string{"records.jsonl": recs, "billing.yaml": job} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustBackfill(t, exitOK, "run", jobPath)
	return jobPath, filepath.Join(dir, "billing.db")
}

// queryNow is "now" for the query command in these tests.
var queryNow = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)

func query(t *testing.T, args ...string) string {
	t.Helper()
	return mustBackfill(t, exitOK, append([]string{"query"}, args...)...)
}

// TestQueryBillingAudit: valid Mar 10 as known Mar 10 answers Basic; as known now, Pro.
func TestQueryBillingAudit(t *testing.T) {
	jobPath, db := billingJob(t)
	tests := []struct {
		name, group, known string
		want, not          string
	}{
		{"en as known Mar 10", "acme", "2026-03-10", "on the Basic plan.", "Pro"},
		{"en as known now", "acme", "", "on the Pro plan", "Basic"},
		{"en as known the day it was reported", "acme", "2026-03-15T09:00:00Z", "on the Pro plan", "Basic"},
		{"ko as known Mar 10", "acme-ko", "2026-03-10", "베이직 요금제를 사용한다.", "프로"},
		{"ko as known now", "acme-ko", "", "프로 요금제를 사용한다", "베이직"},
	}
	line := regexp.MustCompile(`^  - .+ \(Date range: (\S+|date unknown) - \S+\)$`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{jobPath, "--checkpoint", db, "--group", tt.group, "--valid-at", "2026-03-10"}
			if tt.known != "" {
				args = append(args, "--known-at", tt.known)
			}
			out := query(t, args...)
			if !strings.Contains(out, tt.want) || strings.Contains(out, tt.not) {
				t.Fatalf("got\n%s\nwant %q and no %q", out, tt.want, tt.not)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if lines[0] != "<FACTS>" || lines[len(lines)-1] != "</FACTS>" {
				t.Fatalf("not wrapped in <FACTS>:\n%s", out)
			}
			for _, l := range lines[1 : len(lines)-1] {
				if !line.MatchString(l) {
					t.Errorf("line %q is not \"  - FACT (Date range: from - to)\"", l)
				}
			}
		})
	}
}

// TestQueryJSON: the JSON answer carries the as-known interval of each fact.
func TestQueryJSON(t *testing.T) {
	jobPath, db := billingJob(t)
	var got []factOut
	out := query(t, jobPath, "--checkpoint", db, "--group", "acme", "--valid-at", "2026-03-10", "--known-at", "2026-03-10", "--json")
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var plans []factOut
	for _, f := range got {
		if f.Name == "HAS_PLAN" {
			plans = append(plans, f)
		}
	}
	// As known on Mar 10 the Basic fact was open; as known now it is closed on Mar 1.
	if len(plans) != 1 || !strings.Contains(plans[0].Fact, "Basic") || plans[0].InvalidAt != nil || plans[0].ExpiredAt != nil {
		t.Fatalf("plans as known Mar 10 = %+v", plans)
	}
	out = query(t, jobPath, "--checkpoint", db, "--group", "acme", "--valid-at", "2026-02-01", "--json")
	got = nil
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	mar1 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	mar15 := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	for _, f := range got {
		if f.Name == "HAS_PLAN" && (f.InvalidAt == nil || !f.InvalidAt.Equal(mar1) || f.ExpiredAt == nil || !f.ExpiredAt.Equal(mar15)) {
			t.Errorf("as known now, %q: invalid_at %v expired_at %v, want %v and %v", f.Fact, f.InvalidAt, f.ExpiredAt, mar1, mar15)
		}
	}
}

// TestQueryGolden pins the text and JSON answers of the billing audit (-update rewrites them).
func TestQueryGolden(t *testing.T) {
	jobPath, db := billingJob(t)
	var b strings.Builder
	for _, args := range [][]string{
		{"--group", "acme", "--valid-at", "2026-03-10", "--known-at", "2026-03-10"},
		{"--group", "acme", "--valid-at", "2026-03-10"},
		{"--group", "acme-ko", "--valid-at", "2026-03-10", "--entity", "에이크미"},
		{"--group", "acme", "--valid-at", "2026-03-10", "--entity", "ACME corp"},
		{"--group", "acme-ko", "--valid-at", "2026-03-10", "--entity", "에이크미는"},
		{"--group", "acme", "--valid-at", "2026-02-01", "--json"},
	} {
		fmt.Fprintf(&b, "$ backfill query JOB %s\n%s\n", strings.Join(args, " "), query(t, append([]string{jobPath, "--checkpoint", db}, args...)...))
	}
	checkGolden(t, "query_billing.golden", b.String())
}

// checkGolden compares got with testdata/NAME (-update rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (-update rewrites it):\n%s", golden, got)
	}
}

func TestQueryUsage(t *testing.T) {
	jobPath, db := billingJob(t)
	stderr := os.Stderr
	os.Stderr, _ = os.Open(os.DevNull)
	defer func() { os.Stderr = stderr }()
	for _, args := range [][]string{
		{},
		{jobPath, "--checkpoint", db, "--valid-at", "yesterday"},
		{jobPath, "--checkpoint", db, "--known-at", "2026-13-01"},
	} {
		if code, _ := backfill(t.Context(), append([]string{"query"}, args...)...); code != exitUsage {
			t.Errorf("query %v: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, _ := backfill(t.Context(), "query", jobPath, "--checkpoint", db+".missing"); code != exitFailed {
		t.Errorf("missing checkpoint: exit %d, want %d", code, exitFailed)
	}
}

// TestQueryEntityMatching: --entity matches case- and particle-insensitively; a name that matches
// nothing is an error (exit 1) naming the closest entities, and an unknown --group an error
// listing the store's groups.
func TestQueryEntityMatching(t *testing.T) {
	jobPath, db := billingJob(t)
	args := func(extra ...string) []string {
		return append([]string{"query", jobPath, "--checkpoint", db, "--valid-at", "2026-03-10"}, extra...)
	}
	for _, entity := range []string{"acme corp", "ＡＣＭＥ  Corp", "\"Acme Corp\""} {
		if out := mustBackfill(t, exitOK, args("--group", "acme", "--entity", entity)...); !strings.Contains(out, "Acme Corp is on the Pro plan") {
			t.Errorf("--entity %q:\n%s", entity, out)
		}
	}
	for _, entity := range []string{"에이크미가", "에이크미의"} {
		if out := mustBackfill(t, exitOK, args("--group", "acme-ko", "--entity", entity)...); !strings.Contains(out, "에이크미는 프로 요금제를") {
			t.Errorf("--entity %q:\n%s", entity, out)
		}
	}
	if code, out := backfill(t.Context(), args("--group", "acme", "--entity", "Acme")...); code != exitFailed || out != "" {
		t.Errorf("--entity Acme: exit %d, stdout %q; want exit 1 and nothing printed", code, out)
	}
	store, err := checkpoints.OpenReadOnly(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, err = matchEntities(t.Context(), store, "acme", "Acme")
	if err == nil || !strings.Contains(err.Error(), `no entity named "Acme" in group acme; closest: "Acme Corp"`) {
		t.Errorf("--entity Acme: %v, want no match and Acme Corp suggested first", err)
	}
	_, _, err = storeGroup(t.Context(), store, "acme-kr")
	if err == nil || !strings.Contains(err.Error(), `group "acme-kr" is not in checkpoint`) ||
		!strings.Contains(err.Error(), "did you mean acme-ko? its groups: acme, acme-ko") {
		t.Errorf("--group acme-kr: %v, want the groups listed", err)
	}
	if code, _ := backfill(t.Context(), args("--group", "acme-kr")...); code != exitFailed {
		t.Errorf("--group acme-kr: exit %d, want 1", code)
	}
}
