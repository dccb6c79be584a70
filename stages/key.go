package stages

import (
	"encoding/json"
	"fmt"
)

// KeyRecipe names the recipe of Key. It is part of every key, so changing the recipe is a
// deliberate bump: every unit runs once more, its LLM and embedding calls answered by the caches.
const KeyRecipe = "stage-key/1"

// Key is the one recipe by which a stage puts its settings into the fingerprints of its units:
// the recipe, the stage's name and the JSON encoding of settings, which must be plain data
// (structs, maps, slices, strings, numbers, bools): the stage's options with their defaults
// applied (fields tagged json:"-" are wiring, not settings), the versions of the LLM tasks it
// asks (TaskVersionsOf), the models it uses and the versions of its rules. encoding/json writes
// struct fields in their order and map keys sorted, so equal settings give equal keys. A setting
// that cannot be encoded (a NaN) is an error.
func Key(stage string, settings any) (string, error) {
	raw, err := json.Marshal(settings)
	if err != nil {
		return "", fmt.Errorf("encoding the settings of stage %s: %w", stage, err)
	}
	return KeyRecipe + "\x00" + stage + "\x00" + string(raw), nil
}

// TaskVersionsOf returns the version of each task (LLM.TaskVersion) by task: how a stage puts
// "how the model is asked" into its key.
func (e Env) TaskVersionsOf(tasks ...string) map[string]string {
	out := make(map[string]string, len(tasks))
	for _, t := range tasks {
		out[t] = e.LLM.TaskVersion(t)
	}
	return out
}

// EmbedderOf names the env's embedder in a key: its model and dimensions ("" without one).
func (e Env) EmbedderOf() string {
	if e.Embedder == nil {
		return ""
	}
	return fmt.Sprintf("%s/%d", e.Embedder.Model(), e.Embedder.Dimensions())
}
