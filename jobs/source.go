package jobs

import "github.com/tkgraph/backfill/loaders"

// LoaderSpec is the loaders.Spec of one of the job's sources, without its JSON record options
// (RecordSpec compiles them).
func (j *Job) LoaderSpec(src Source) loaders.Spec {
	return loaders.Spec{Path: src.Path, Format: src.Format, Mapping: loaders.Mapping(src.Mapping), Timezone: j.Location(),
		TimeFormat: src.TimeFormat, Source: src.Source, Description: src.Description, GroupPolicy: src.GroupPolicy,
		DefaultGroup: src.DefaultGroup, MaxBodyBytes: src.MaxBodyBytes,
		JSONShape: loaders.Shape{Depth: src.MaxJSONDepth, Values: src.MaxJSONValues, PathBytes: src.MaxJSONPathBytes}}
}
