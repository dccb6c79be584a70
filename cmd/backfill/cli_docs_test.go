package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The CLI reference is generated from the command definitions: docs/cli/ has a page per command
// and docs/reference/commands.md a synopsis of every command with every flag, between these
// markers (the rest of that page is written by hand). The job keys' reference is generated from
// the keys' declarations (pipeline.Keys): docs/reference/job-keys.md and the help topic
// `backfill help job-keys` (a page of docs/cli). TestCLIReferenceIsUpToDate fails when any of
// them differs from what the commands and the declarations define; `make cli-docs` (go test
// ./cmd/backfill -run TestCLIReferenceIsUpToDate -update) rewrites them.
const (
	docsDir       = "docs/cli"
	synopsisFile  = "docs/reference/commands.md"
	synopsisBegin = "<!-- cli-synopsis: generated from the command definitions by `make cli-docs` -->"
	synopsisEnd   = "<!-- cli-synopsis end -->"
)

// documented returns the root command and every command the reference documents (not help).
func documented() (*cobra.Command, []*cobra.Command) {
	root := newRoot(&cli{})
	root.InitDefaultCompletionCmd()
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return root, out
}

// pageName is the file of a command's page: backfill_run.md.
func pageName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

// mdText escapes what Markdown would read as HTML in help text.
func mdText(s string) string { return strings.ReplaceAll(s, "<", "&lt;") }

// page renders one command's reference page.
func page(c *cobra.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n```\n%s\n```\n\n", c.CommandPath(), mdText(c.Short), c.UseLine())
	if c.Long != "" {
		fmt.Fprintf(&b, "%s\n\n", mdText(c.Long))
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("## Commands\n\n")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && sub.Name() != "help" {
				fmt.Fprintf(&b, "- [%s](%s): %s\n", sub.CommandPath(), pageName(sub), mdText(sub.Short))
			}
		}
		b.WriteString("\n")
	}
	if c.Example != "" {
		fmt.Fprintf(&b, "## Examples\n\n```sh\n%s\n```\n\n", c.Example)
	}
	if f := c.NonInheritedFlags(); f.HasAvailableFlags() {
		fmt.Fprintf(&b, "## Flags\n\n```\n%s```\n\n", f.FlagUsages())
	}
	if c.HasParent() {
		p := c.Parent()
		fmt.Fprintf(&b, "## See also\n\n- [%s](%s): %s\n", p.CommandPath(), pageName(p), mdText(p.Short))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// synopsis is one line per command with every flag: "backfill run JOB.yaml [--checkpoint PATH] …".
func synopsis(cmds []*cobra.Command) string {
	var b strings.Builder
	for _, c := range cmds {
		if !c.Runnable() || !c.HasParent() || c.Parent().Name() == "completion" {
			continue
		}
		b.WriteString(c.CommandPath() + strings.TrimPrefix(c.Use, c.Name()))
		c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" || strings.Contains(c.Use, "--"+f.Name+" ") {
				return
			}
			name, _ := pflag.UnquoteUsage(f)
			item := "--" + f.Name
			if f.Value.Type() != "bool" {
				item += " " + name
			}
			switch {
			case f.Value.Type() == "stringArray":
				item = "[" + item + "]..."
			case !isRequired(f):
				item = "[" + item + "]"
			}
			b.WriteString(" " + item)
		})
		b.WriteString("\n")
	}
	return b.String()
}

func isRequired(f *pflag.Flag) bool {
	_, ok := f.Annotations[cobra.BashCompOneRequiredFlag]
	return ok
}

// reference returns every generated file by its path from the repository root, the commands
// page with its synopsis replaced.
func reference(t *testing.T, root string) map[string]string {
	t.Helper()
	_, cmds := documented()
	files := map[string]string{}
	for _, c := range cmds {
		files[filepath.Join(docsDir, pageName(c))] = page(c)
	}
	page, err := os.ReadFile(filepath.Join(root, synopsisFile))
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(page), synopsisBegin)
	_, after, ok2 := strings.Cut(rest, synopsisEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the markers %q … %q of the CLI synopsis", synopsisFile, synopsisBegin, synopsisEnd)
	}
	files[synopsisFile] = before + synopsisBegin + "\n```\n" + synopsis(cmds) + "```\n" + synopsisEnd + after
	files[jobKeysFile] = jobKeysReference()
	return files
}

// TestCLIReferenceIsUpToDate regenerates docs/cli/, the synopsis of docs/reference/commands.md
// and docs/reference/job-keys.md from the command definitions and the keys' declarations, and
// requires them to equal the files in the repository (-update writes them).
func TestCLIReferenceIsUpToDate(t *testing.T) {
	root := filepath.Join("..", "..")
	files := reference(t, root)
	if updating() {
		old, _ := filepath.Glob(filepath.Join(root, docsDir, "*.md"))
		for _, p := range old {
			if _, keep := files[filepath.Join(docsDir, filepath.Base(p))]; !keep {
				os.Remove(p)
			}
		}
		for p, body := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(root, p))
		if err != nil || !bytes.Equal(got, []byte(want)) {
			t.Errorf("%s is not what the command definitions generate (run make cli-docs): %v", p, err)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(root, docsDir, "*.md"))
	for _, p := range pages {
		if _, ok := files[filepath.Join(docsDir, filepath.Base(p))]; !ok {
			t.Errorf("%s documents no command (run make cli-docs)", p)
		}
	}
}
