package wire

import (
	"path/filepath"
	"reflect"
	"testing"

	goldenfile "github.com/tkgraph/backfill/internal/golden"
)

// builtinPrompt is the text of an embedded template file (prompts/<file>).
func builtinPrompt(t *testing.T, file string) string {
	t.Helper()
	raw, err := builtinPrompts.ReadFile("prompts/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

func sampleExtractInput() ExtractInput {
	return ExtractInput{
		Episode: EpisodeIn{ReferenceTime: "2023-05-08T13:56:00Z", Source: "message", Speaker: "Melanie",
			Content: "That's great! I'm taking my kids camping next month. 다음 주에 부산으로 이사할 거예요."},
		Previous: []EpisodeIn{{ReferenceTime: "2023-05-08T13:51:00Z", Source: "message", Speaker: "Caroline",
			Content: "I went to a LGBTQ support group yesterday and it was so powerful."}},
		EntityTypes: []EntityTypeIn{
			{Name: "Person", Description: "a human being", Attributes: []string{"occupation"}},
			{Name: "Place", Description: "a city, country or venue"},
		},
		EdgeTypes: []EdgeTypeIn{
			{Name: "LIVES_IN", Description: "where a person lives", Sources: []string{"Person"}, Targets: []string{"Place"}},
			{Name: "KNOWS"},
		},
	}
}

// sampleWindowInput is a window of three messages after one previous episode, with the
// ontology of sampleExtractInput; the second shares the first's reference time and source.
func sampleWindowInput() WindowInput {
	x := sampleExtractInput()
	return WindowInput{EntityTypes: x.EntityTypes, EdgeTypes: x.EdgeTypes, Previous: x.Previous,
		Episodes: []WindowEpisodeIn{
			{N: 1, ReferenceTime: "2023-05-08T13:56:00Z", Source: "message", Speaker: "Melanie",
				Content: "That's great! I'm taking my kids camping next month."},
			{N: 2, Speaker: "Caroline", Content: "Where are you going?"},
			{N: 3, ReferenceTime: "2023-05-08T13:58:00Z", Speaker: "Melanie", Content: "다음 주에 부산으로 이사할 거예요."},
		}}
}

func reflectTypeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

const validExtract = `{"entities":[{"name":"Melanie","type":"Person","attributes":[]}],"facts":[]}`
