package jobs

import (
	"github.com/tkgraph/backfill/stages/community"
	"github.com/tkgraph/backfill/stages/resolve"
	"github.com/tkgraph/backfill/stages/summarize"
	"github.com/tkgraph/backfill/stages/temporal"
)

// The job's keys translated into each stage's Options, one function per stage, used by both the
// run and the plan; the stages own the defaults (their WithDefaults).

func (j *Job) resolveOptions() resolve.Options {
	r := j.Stages.Resolve
	return resolve.Options{MinHashThreshold: r.MinHashThreshold, EmbeddingThreshold: r.EmbeddingThreshold,
		GreyThreshold: r.GreyThreshold, BatchSize: r.BatchSize, MaxPairs: r.MaxPairs, NoLLM: r.LLM == "off",
		EntityTypes: j.entityTypes(), EdgeTypes: j.edgeTypes(), ExcludedTypes: j.Ontology.ExcludedTypes}
}

func (j *Job) temporalOptions() temporal.Options {
	return temporal.Options{MaxCandidates: j.Stages.Temporal.MaxCandidates, Cardinality: j.cardinalities()}
}

func (j *Job) summarizeOptions() summarize.Options {
	return summarize.Options{ShortChars: j.Stages.Summarize.ShortChars, BatchSize: j.Stages.Summarize.BatchSize}
}

func (j *Job) communityOptions() community.StageOptions {
	c := j.Stages.Community
	return community.StageOptions{MaxIterations: c.MaxIterations, MinSize: c.MinSize, OnlyValid: c.OnlyValid,
		MaxSummarized: c.MaxSummarized}
}
