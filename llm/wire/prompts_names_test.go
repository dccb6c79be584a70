package wire

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"gopkg.in/yaml.v3"
)

// evaluationNames are the speakers of LoCoMo (the evaluation set bench/ and `make eval-local`
// score retrieval on; its file is not in the repository), so the test can check the prompts
// against them as it does against the gold files' entities.
var evaluationNames = []string{"Caroline", "Melanie", "Jon", "Gina", "John", "Maria", "Joanna",
	"Nate", "Tim", "Audrey", "Andrew", "James", "Deborah", "Jolene", "Evan", "Calvin", "Dave"}

// goldNames are the names of the entities of the gold files (examples/gold/*.yaml): the
// endpoints of their facts and their aliases, keeping only proper names (a capital first
// letter or Hangul: "Globex", "지훈"), since common nouns ("coffee", "plan") are words any
// prompt may use.
func goldNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "gold", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no gold files under examples/gold (%v)", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			Aliases  map[string][]string `yaml:"aliases"`
			Episodes []struct {
				Facts [][]string `yaml:"facts"`
			} `yaml:"episodes"`
		}
		if err := yaml.Unmarshal(raw, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, alts := range g.Aliases {
			seen[name] = true
			for _, a := range alts {
				seen[a] = true
			}
		}
		for _, ep := range g.Episodes {
			for _, fact := range ep.Facts {
				if len(fact) >= 3 {
					seen[fact[0]], seen[fact[2]] = true, true
				}
			}
		}
	}
	var out []string
	for name := range seen {
		if r := []rune(name); len(r) > 0 && (unicode.IsUpper(r[0]) || unicode.Is(unicode.Hangul, r[0])) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// namesIn reports which of names a prompt text contains: a Latin name as a whole word
// ("Leeds", not "Leedsville"), a Hangul name anywhere (a particle may follow it: "지훈은").
func namesIn(text string, names []string) []string {
	var out []string
	for _, name := range names {
		pat := regexp.QuoteMeta(name)
		if !unicode.Is(unicode.Hangul, []rune(name)[0]) {
			pat = `(^|[^\pL\pN])` + pat + `($|[^\pL\pN])`
		}
		if regexp.MustCompile(pat).MatchString(text) {
			out = append(out, name)
		}
	}
	return out
}

// TestPromptsNameNoEvaluatedEntity keeps the prompts' examples apart from the data they are
// scored on: a small model copies an example's names into its answers (with "Emma works at
// Globex." in the window prompt, qwen2.5-coder-1.5b answered "WORKS_AT Globex." for LoCoMo
// turns that name no company), so an example naming a gold entity would lend the model facts it
// never read. No prompt may name an entity of the gold files or a LoCoMo speaker.
func TestPromptsNameNoEvaluatedEntity(t *testing.T) {
	names := append(goldNames(t), evaluationNames...)
	if !slices.Contains(names, "Globex") || !slices.Contains(names, "지훈") {
		t.Fatalf("the gold files' names miss Globex or 지훈: %v", names)
	}
	if got := namesIn(`like "Emma works at Globex." or "지훈은"`, names); !slices.Equal(got, []string{"Emma", "Globex", "지훈"}) {
		t.Fatalf("namesIn finds %v, want Emma, Globex, 지훈", got)
	}
	for _, file := range Files() {
		if got := namesIn(builtinPrompt(t, file), names); len(got) > 0 {
			t.Errorf("prompts/%s names %s, an entity of the evaluated data: use a name of no gold file",
				file, strings.Join(got, ", "))
		}
	}
}
