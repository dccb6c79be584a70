package records

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustDecode(t *testing.T, s string) map[string]any {
	t.Helper()
	obj, ok := Decode(s)
	if !ok {
		t.Fatalf("not a JSON object: %s", s)
	}
	return obj
}

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		match, prefix bool
	}{
		{"**.node_id", "node_id", true, true},
		{"**.node_id", "issue.user.node_id", true, true},
		{"**.node_id", "issue.labels[*].node_id", true, true},
		{"**.node_id", "issue.node_ids", false, false},
		{"**._url", "issue.html_url", false, false},
		{"**.*_url", "issue.html_url", true, true},
		{"**.*_url", "issue.user.avatar_url", true, true},
		{"sender.avatar_*", "sender.avatar_url", true, true},
		{"sender.avatar_*", "issue.sender.avatar_url", false, false},
		{"sender", "sender.login", false, true},
		{"issue.labels[*].url", "issue.labels.url", true, true},
		{"issue.*.login", "issue.user.login", true, true},
		{"issue.*.login", "issue.login", false, false},
		{"**", "anything.at.all", true, true},
		{"a*b*c", "axbxbc", true, true},
		{"a*a", "a", false, false},
		{"repository", "repository.owner.id", false, true},
	}
	for _, tt := range tests {
		p, err := ParsePattern(tt.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		path, err := ParsePath(tt.path)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if got := p.Match(path); got != tt.match {
			t.Errorf("%q.Match(%q) = %v, want %v", tt.pattern, tt.path, got, tt.match)
		}
		if got := p.MatchPrefix(path); got != tt.prefix {
			t.Errorf("%q.MatchPrefix(%q) = %v, want %v", tt.pattern, tt.path, got, tt.prefix)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{"", "a..b", "a.b[0]", "a[*]x.b", "a.**b", " "} {
		if _, err := ParsePattern(s); err == nil {
			t.Errorf("ParsePattern(%q) accepted", s)
		}
	}
	for _, s := range []string{"a.*", "**.b", "a.b[1]"} {
		if _, err := ParsePath(s); err == nil {
			t.Errorf("ParsePath(%q) accepted", s)
		}
	}
}

func TestPrune(t *testing.T) {
	rec := `{"action":"labeled","issue":{"id":7,"node_id":"I_7","title":"Login fails","body":"","url":"u","html_url":"h",
		"user":{"login":"ann","avatar_url":"a","gravatar_id":"","site_admin":false},"assignee":null,"assignees":[],
		"labels":[{"id":1,"node_id":"L1","name":"bug","url":"lu","description":null}],"milestone":null},
		"sender":{"login":"bob","avatar_url":"b","node_id":"U2"},"repository":{"id":3,"full_name":"acme/web"}}`
	tests := []struct {
		name       string
		drop, keep []string
		nulls, emp bool
		want       string
	}{
		{"nothing", nil, nil, false, false, ""},
		{"nulls and empties", nil, nil, true, true,
			`{"action":"labeled","issue":{"html_url":"h","id":7,"labels":[{"id":1,"name":"bug","node_id":"L1","url":"lu"}],"node_id":"I_7","title":"Login fails","url":"u","user":{"avatar_url":"a","login":"ann","site_admin":false}},"repository":{"full_name":"acme/web","id":3},"sender":{"avatar_url":"b","login":"bob","node_id":"U2"}}`},
		{"drop patterns", []string{"**.node_id", "**.*url", "sender.avatar_*", "repository", "**.id"}, nil, true, true,
			`{"action":"labeled","issue":{"labels":[{"name":"bug"}],"title":"Login fails","user":{"login":"ann","site_admin":false}},"sender":{"login":"bob"}}`},
		{"keep with drop", []string{"**.node_id"}, []string{"issue.title", "issue.labels", "sender.login"}, true, true,
			`{"issue":{"labels":[{"id":1,"name":"bug","url":"lu"}],"title":"Login fails"},"sender":{"login":"bob"}}`},
		{"keep keeps nulls when asked", nil, []string{"issue.assignee", "issue.assignees"}, false, false,
			`{"issue":{"assignee":null,"assignees":[]}}`},
		{"a list emptied by drop goes under drop_empty", []string{"issue.labels.*"}, nil, false, true,
			`{"action":"labeled","issue":{"assignee":null,"html_url":"h","id":7,"milestone":null,"node_id":"I_7","title":"Login fails","url":"u","user":{"avatar_url":"a","login":"ann","site_admin":false}},"repository":{"full_name":"acme/web","id":3},"sender":{"avatar_url":"b","login":"bob","node_id":"U2"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPruner(tt.drop, tt.keep, tt.nulls, tt.emp)
			if err != nil {
				t.Fatal(err)
			}
			obj := mustDecode(t, rec)
			before := Encode(obj)
			got := Encode(p.Prune(obj))
			want := tt.want
			if want == "" {
				want = before
			}
			if got != want {
				t.Errorf("Prune =\n%s\nwant\n%s", got, want)
			}
			if Encode(obj) != before {
				t.Error("Prune modified its input")
			}
		})
	}
}

func TestDroppedBy(t *testing.T) {
	p, err := NewPruner([]string{"**.body_html"}, []string{"issue", "comment.body"}, true, true)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"issue.body":      "",
		"issue.body_html": `json.drop pattern "**.body_html"`,
		"comment.body":    "",
		"comment.user":    "no json.keep pattern",
	} {
		pp, _ := ParsePath(path)
		if got := p.DroppedBy(pp); got != want {
			t.Errorf("DroppedBy(%s) = %q, want %q", path, got, want)
		}
	}
}

func TestValues(t *testing.T) {
	rec := mustDecode(t, `{"issue":{"title":" Login fails ","number":12,"locked":false,"assignee":null,
		"assignees":[{"login":"bob"},{"login":"carol"},{"login":"bob"}],"labels":[],"user":{"login":"ann"},
		"milestone":{"title":""}, "odd":[{"x":1},{"login":"dan"}], "none":[{"x":1}]}}`)
	tests := []struct {
		path string
		want []string
		err  error
	}{
		{"issue.title", []string{"Login fails"}, nil},
		{"issue.number", []string{"12"}, nil},
		{"issue.locked", []string{"false"}, nil},
		{"issue.assignee.login", nil, nil},
		{"issue.assignees[*].login", []string{"bob", "carol"}, nil},
		{"issue.labels[*].name", nil, nil},
		{"issue.milestone.title", nil, nil},
		{"issue.odd.login", []string{"dan"}, nil},
		{"issue.none.login", nil, ErrAbsent},
		{"issue.state", nil, ErrAbsent},
		{"comment.body", nil, ErrAbsent},
		{"issue.title.text", nil, ErrAbsent},
		{"issue.user", nil, ErrNotScalar},
	}
	for _, tt := range tests {
		p, _ := ParsePath(tt.path)
		got, err := Values(rec, p)
		if !errors.Is(err, tt.err) || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Values(%s) = %q, %v; want %q, %v", tt.path, got, err, tt.want, tt.err)
		}
	}
}

func TestDeclEval(t *testing.T) {
	d, err := NewDecl("issue.title", "Issue", "ASSIGNED_TO", "issue.assignees[*].login", "Person", "", "")
	if err != nil {
		t.Fatal(err)
	}
	got := d.Eval(mustDecode(t, `{"issue":{"title":"Login fails","assignees":[{"login":"bob"},{"login":"carol"}]}}`))
	if got.Missing != "" || len(got.Pairs) != 2 || got.Pairs[1].Fact != "Login fails assigned to carol" || got.Kind != "state" {
		t.Errorf("Eval = %+v", got)
	}
	got = d.Eval(mustDecode(t, `{"issue":{"title":"Login fails"}}`))
	if got.Missing != "issue.assignees.login: absent" || got.Pairs != nil {
		t.Errorf("Eval of a record without assignees = %+v", got)
	}
	for _, bad := range [][7]string{
		{"issue.title", "", "assigned", "a.b", "", "", ""},
		{"issue.title", "", "A", "a.*", "", "", ""},
		{"issue.title", "", "A", "a.b", "", "sometimes", ""},
		{"issue.title", "", "A", "a.b", "", "", "{subject} has {thing}"},
		{"issue.title", "", "A", "a.b", "", "", "only {subject}"},
	} {
		if _, err := NewDecl(bad[0], bad[1], bad[2], bad[3], bad[4], bad[5], bad[6]); err == nil {
			t.Errorf("NewDecl%q accepted", bad)
		}
	}
}

func TestDiff(t *testing.T) {
	prev := mustDecode(t, `{"issue":{"state":"open","title":"Login fails","assignees":[{"login":"bob"},{"login":"dan"}],"labels":[{"name":"bug"}],"body":"Long text"},"action":"assigned"}`)
	cur := mustDecode(t, `{"issue":{"state":"closed","title":"Login fails","assignees":[{"login":"dan"},{"login":"carol"}],"labels":[{"name":"bug"}],"body":"Long text"},"action":"closed","comment":{"body":"Fixed in 1.2"}}`)
	var lines []string
	for _, c := range Diff(prev, cur) {
		lines = append(lines, c.Format(8))
	}
	want := []string{
		`action: "assigne… → "closed"`,
		`comment: + {"body":…`,
		`issue.assignees[]: - {"login"…`,
		`issue.assignees[]: + {"login"…`,
		`issue.state: "open" → "closed"`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("Diff =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if n := len(Diff(cur, cur)); n != 0 {
		t.Errorf("Diff of a record with itself: %d changes", n)
	}
	first := Diff(nil, cur)
	if len(first) != 3 || first[0].Op != Added {
		t.Errorf("Diff from nothing = %v", first)
	}
	assignees, _ := ParsePath("issue.assignees[*].login")
	state, _ := ParsePath("issue.state")
	action, _ := ParsePath("action")
	body, _ := ParsePath("comment.body")
	changes := Diff(prev, cur)
	if !changes[2].Within([]Path{assignees}) || !changes[4].Within([]Path{state}) || changes[0].Within([]Path{state, assignees}) {
		t.Error("Within: declared paths should cover the assignee and state changes only")
	}
	if !changes[1].Touches(body) || changes[0].Touches(body) || !changes[0].Touches(action) {
		t.Error("Touches: the comment change touches comment.body; the action change does not")
	}
}
