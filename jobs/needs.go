package jobs

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Need is something a run of a job needs from outside the job file that is missing: an API
// key, an input file, a reachable graph database. Key is the job key it belongs to.
type Need struct {
	Key  string
	What string
}

func (n Need) String() string { return n.Key + ": " + n.What }

// Origin is where a source's path came from in the job file: the value as written (before
// ${VAR} expansion), the value that expands to with the environment, and the comment right
// above the source (one line), where a job says where its data comes from.
type Origin struct {
	Written, Expanded, Comment string
}

// Var is the first variable the written value names ("" when it names none).
func (o Origin) Var() string {
	if m := varRef.FindStringSubmatch(o.Written); m != nil {
		return m[1]
	}
	return ""
}

// SourceOrigins reads the origins of the sources' paths, by index, from a job file's bytes (a
// file that does not parse has none).
func SourceOrigins(raw []byte, env LookupEnv) map[int]Origin {
	out := map[int]Origin{}
	var doc yaml.Node
	if yaml.Unmarshal(raw, &doc) != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 ||
		doc.Content[0].Kind != yaml.MappingNode {
		return out
	}
	top := doc.Content[0]
	for k := 0; k+1 < len(top.Content); k += 2 {
		if top.Content[k].Value != "sources" || top.Content[k+1].Kind != yaml.SequenceNode {
			continue
		}
		for i, item := range top.Content[k+1].Content {
			if item.Kind != yaml.MappingNode {
				continue
			}
			comment := item.HeadComment
			for f := 0; f+1 < len(item.Content); f += 2 {
				if v := item.Content[f+1]; item.Content[f].Value == "path" && v.Kind == yaml.ScalarNode {
					expanded, _, _ := expandValue(v.Value, env)
					out[i] = Origin{Written: v.Value, Expanded: expanded,
						Comment: commentText(comment + "\n" + item.Content[f].HeadComment)}
				}
			}
		}
	}
	return out
}

// commentText joins the lines of a YAML comment into one line without the "#" marks.
func commentText(c string) string {
	var words []string
	for _, l := range strings.Split(c, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
			words = append(words, l)
		}
	}
	return strings.Join(words, " ")
}
