// Package ticketlog writes examples/tickets.jsonl, the bundled ticket change log: webhook
// payloads of an issue tracker (in the shape GitHub sends them: the whole issue after each
// event, the repository, the organization and the sender, with their URLs, ids and nulls), one
// line per event, for two repositories. The story (story.go) is fiction written for this
// example. Write renders it; the test compares the file with it (go test -update rewrites it).
package ticketlog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"
)

const api = "https://api.github.com"

// issueState is a ticket as its events leave it.
type issueState struct {
	state, reason     string
	labels, assignees []string
	milestone         bool
	comments          int
	created, closed   string
	closedBy          string
}

// Write renders the change log: one JSON object per line, in story order. Each line carries
// the issue as it was after its event, replayed in time order (so a line delivered late still
// shows the state at its own time).
func Write(w io.Writer) error {
	order := make([]int, len(events))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return events[order[a]].at < events[order[b]].at })
	states := make([]issueState, len(tickets))
	lines := make([][]byte, len(events))
	for _, i := range order {
		e := events[i]
		st := &states[e.ticket]
		apply(st, e)
		line, err := json.Marshal(payload(e, *st, i))
		if err != nil {
			return fmt.Errorf("encoding event %d: %w", i, err)
		}
		lines[i] = line
	}
	for _, l := range lines {
		if _, err := w.Write(append(l, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// apply changes a ticket's state by one event.
func apply(st *issueState, e event) {
	switch e.action {
	case "opened":
		st.state, st.created = "open", e.at
	case "labeled":
		st.labels = append(st.labels, e.label)
	case "unlabeled":
		st.labels = without(st.labels, e.label)
	case "assigned":
		st.assignees = append(st.assignees, e.who)
	case "unassigned":
		st.assignees = without(st.assignees, e.who)
	case "milestoned":
		st.milestone = true
	case "closed":
		st.state, st.reason, st.closed, st.closedBy = "closed", e.reason, e.at, e.actor
	case "reopened":
		st.state, st.reason, st.closed, st.closedBy = "open", "reopened", "", ""
	case "commented":
		st.comments++
	}
}

func without(xs []string, x string) []string {
	var out []string
	for _, v := range xs {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// num is a stable numeric id for a name.
func num(kind, name string) int64 {
	h := sha256.Sum256([]byte(kind + "/" + name))
	return int64(binary.BigEndian.Uint32(h[:4])>>4) + 1_000_000
}

// nodeID is a GitHub-style opaque node id.
func nodeID(prefix string, id int64) string {
	h := sha256.Sum256([]byte(fmt.Sprint(prefix, id)))
	return fmt.Sprintf("%s_kwDO%X", prefix, h[:9])
}

// payload is the webhook body of event i.
func payload(e event, st issueState, i int) map[string]any {
	t := tickets[e.ticket]
	h := sha256.Sum256([]byte(e.at + e.action))
	p := map[string]any{
		"delivery":     fmt.Sprintf("%x-%04d", h[:6], i),
		"action":       e.action,
		"issue":        issue(t, st, e.at),
		"repository":   repository(t.repo),
		"organization": organization(),
		"sender":       user(e.actor),
	}
	switch e.action {
	case "assigned", "unassigned":
		p["assignee"] = user(e.who)
	case "labeled", "unlabeled":
		p["label"] = label(t.repo, e.label)
	case "milestoned":
		p["milestone"] = milestone(t.repo)
	case "commented":
		p["action"] = "created"
		p["comment"] = comment(t, e, i)
	}
	return p
}

func issue(t ticket, st issueState, at string) map[string]any {
	base := fmt.Sprintf("%s/repos/acme/%s/issues/%d", api, t.repo, t.number)
	id := num("issue", fmt.Sprint(t.repo, t.number))
	labels := []any{}
	for _, l := range st.labels {
		labels = append(labels, label(t.repo, l))
	}
	assignees := []any{}
	var assignee any
	for k, a := range st.assignees {
		if k == 0 {
			assignee = user(a)
		}
		assignees = append(assignees, user(a))
	}
	var ms, closedAt, closedBy, reason any
	if st.milestone {
		ms = milestone(t.repo)
	}
	if st.closed != "" {
		closedAt, closedBy = st.closed, user(st.closedBy)
	}
	if st.reason != "" {
		reason = st.reason
	}
	return map[string]any{
		"url": base, "repository_url": fmt.Sprintf("%s/repos/acme/%s", api, t.repo), "labels_url": base + "/labels{/name}",
		"comments_url": base + "/comments", "events_url": base + "/events",
		"html_url": fmt.Sprintf("https://github.com/acme/%s/issues/%d", t.repo, t.number), "id": id, "node_id": nodeID("I", id),
		"number": t.number, "title": t.title, "user": user(t.author), "labels": labels, "state": st.state, "locked": false,
		"assignee": assignee, "assignees": assignees, "milestone": ms, "comments": st.comments, "created_at": st.created,
		"updated_at": at, "closed_at": closedAt, "author_association": "MEMBER", "type": nil, "active_lock_reason": nil,
		"sub_issues_summary": map[string]any{"total": 0, "completed": 0, "percent_completed": 0},
		"body":               t.body, "closed_by": closedBy, "reactions": reactions(base), "timeline_url": base + "/timeline",
		"performed_via_github_app": nil, "state_reason": reason,
	}
}

func comment(t ticket, e event, i int) map[string]any {
	id := num("comment", fmt.Sprint(t.repo, t.number, i))
	base := fmt.Sprintf("%s/repos/acme/%s/issues/comments/%d", api, t.repo, id)
	return map[string]any{
		"url": base, "html_url": fmt.Sprintf("https://github.com/acme/%s/issues/%d#issuecomment-%d", t.repo, t.number, id),
		"issue_url": fmt.Sprintf("%s/repos/acme/%s/issues/%d", api, t.repo, t.number), "id": id, "node_id": nodeID("IC", id),
		"user": user(e.actor), "created_at": e.at, "updated_at": e.at, "author_association": "MEMBER", "body": e.comment,
		"reactions": reactions(base), "performed_via_github_app": nil,
	}
}

func user(login string) map[string]any {
	id := num("user", login)
	u := api + "/users/" + login
	return map[string]any{
		"login": login, "id": id, "node_id": nodeID("U", id), "avatar_url": fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", id),
		"gravatar_id": "", "url": u, "html_url": "https://github.com/" + login, "followers_url": u + "/followers",
		"following_url": u + "/following{/other_user}", "gists_url": u + "/gists{/gist_id}", "starred_url": u + "/starred{/owner}{/repo}",
		"subscriptions_url": u + "/subscriptions", "organizations_url": u + "/orgs", "repos_url": u + "/repos",
		"events_url": u + "/events{/privacy}", "received_events_url": u + "/received_events", "type": "User",
		"user_view_type": "public", "site_admin": false,
	}
}

func label(repo, name string) map[string]any {
	id := num("label", repo+"/"+name)
	colors := map[string]string{"bug": "d73a4a", "enhancement": "a2eeef", "priority-high": "b60205", "wontfix": "ffffff"}
	return map[string]any{
		"id": id, "node_id": nodeID("LA", id), "url": fmt.Sprintf("%s/repos/acme/%s/labels/%s", api, repo, name), "name": name,
		"color": colors[name], "default": name == "bug" || name == "enhancement" || name == "wontfix", "description": nil,
	}
}

func milestone(repo string) map[string]any {
	id := num("milestone", repo)
	base := fmt.Sprintf("%s/repos/acme/%s/milestones/3", api, repo)
	return map[string]any{
		"url": base, "html_url": fmt.Sprintf("https://github.com/acme/%s/milestone/3", repo), "labels_url": base + "/labels",
		"id": id, "node_id": nodeID("MI", id), "number": 3, "title": "v2.4", "description": "June release", "creator": user("ben"),
		"open_issues": 4, "closed_issues": 9, "state": "open", "created_at": "2024-04-02T08:00:00Z",
		"updated_at": "2024-05-08T10:00:00Z", "due_on": "2024-06-14T07:00:00Z", "closed_at": nil,
	}
}

func reactions(base string) map[string]any {
	return map[string]any{"url": base + "/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "hooray": 0,
		"confused": 0, "heart": 0, "rocket": 0, "eyes": 0}
}

func organization() map[string]any {
	id := num("org", "acme")
	u := api + "/orgs/acme"
	return map[string]any{
		"login": "acme", "id": id, "node_id": nodeID("O", id), "url": u, "repos_url": u + "/repos", "events_url": u + "/events",
		"hooks_url": u + "/hooks", "issues_url": u + "/issues", "members_url": u + "/members{/member}",
		"public_members_url": u + "/public_members{/member}", "avatar_url": fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", id),
		"description": "Acme storefront and billing",
	}
}

// repository is the repository object every payload repeats.
func repository(name string) map[string]any {
	id := num("repo", name)
	u := fmt.Sprintf("%s/repos/acme/%s", api, name)
	created := time.Date(2021, 3, 2, 10, 0, 0, 0, time.UTC).Format(time.RFC3339)
	r := map[string]any{
		"id": id, "node_id": nodeID("R", id), "name": name, "full_name": "acme/" + name, "private": true, "owner": user("acme"),
		"html_url": "https://github.com/acme/" + name, "description": "Acme " + name, "fork": false, "url": u,
		"created_at": created, "updated_at": "2024-05-01T00:00:00Z", "pushed_at": "2024-05-01T00:00:00Z",
		"git_url": "git://github.com/acme/" + name + ".git", "ssh_url": "git@github.com:acme/" + name + ".git",
		"clone_url": "https://github.com/acme/" + name + ".git", "svn_url": "https://github.com/acme/" + name, "homepage": nil,
		"size": 48213, "stargazers_count": 12, "watchers_count": 12, "language": "TypeScript", "has_issues": true,
		"has_projects": true, "has_downloads": true, "has_wiki": false, "has_pages": false, "has_discussions": false,
		"forks_count": 0, "mirror_url": nil, "archived": false, "disabled": false, "open_issues_count": 17, "license": nil,
		"allow_forking": false, "is_template": false, "web_commit_signoff_required": false, "topics": []any{},
		"visibility": "private", "forks": 0, "open_issues": 17, "watchers": 12, "default_branch": "main",
		"custom_properties": map[string]any{},
	}
	for _, k := range []string{"forks", "keys{/key_id}", "collaborators{/collaborator}", "teams", "hooks", "issues/events{/number}",
		"events", "assignees{/user}", "branches{/branch}", "tags", "blobs{/sha}", "git/tags{/sha}", "git/refs{/sha}",
		"git/trees{/sha}", "statuses/{sha}", "languages", "stargazers", "contributors", "subscribers", "subscription",
		"commits{/sha}", "git/commits{/sha}", "comments{/number}", "issues/comments{/number}", "contents/{+path}",
		"compare/{base}...{head}", "merges", "{archive_format}{/ref}", "downloads", "issues{/number}", "pulls{/number}",
		"milestones{/number}", "notifications{?since,all,participating}", "labels{/name}", "releases{/id}", "deployments"} {
		key := ""
		for _, c := range k {
			if c == '/' || c == '{' || c == '?' {
				break
			}
			key += string(c)
		}
		switch k {
		case "issues/events{/number}":
			key = "issue_events"
		case "git/tags{/sha}", "git/refs{/sha}", "git/trees{/sha}", "git/commits{/sha}":
			key = "git_" + k[4:len(k)-7]
		case "issues/comments{/number}":
			key = "issue_comment"
		case "{archive_format}{/ref}":
			key = "archive"
		}
		r[key+"_url"] = u + "/" + k
	}
	return r
}
