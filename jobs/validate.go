package jobs

import (
	"fmt"
	"time"

	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages/extract"
)

// Validate reports the first invalid setting. Numeric keys are checked first, all alike
// (checkNumbers: finite, not negative, within maxima).
func (j *Job) Validate() error {
	if err := checkNumbers(j); err != nil {
		return err
	}
	if err := j.validateCheckpoint(); err != nil {
		return err
	}
	if _, err := time.LoadLocation(j.Timezone); err != nil {
		return bad("timezone", "unknown zone %q", j.Timezone)
	}
	if j.RecordTime != "ingest" && j.RecordTime != "reference" {
		return bad("record_time", "%q is not ingest or reference", j.RecordTime)
	}
	for _, check := range []func() error{j.validateSources, j.validateModels, j.validateModes, j.validateSink,
		j.validateStages, j.Ontology.validate, j.validateCost} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// bad is the error of an invalid key.
func bad(key, format string, args ...any) error {
	return fmt.Errorf("validating job: %s: %s", key, fmt.Sprintf(format, args...))
}

// validateSources checks that there are sources, their JSON record options and their loader
// settings.
func (j *Job) validateSources() error {
	if len(j.Sources) == 0 {
		return bad("sources", "at least one source is required")
	}
	if err := j.validateRecords(); err != nil {
		return err
	}
	for i, s := range j.Sources {
		if s.Path == "" {
			return bad(fmt.Sprintf("sources[%d].path", i), "required")
		}
		if err := j.LoaderSpec(s).Validate(); err != nil {
			return bad(fmt.Sprintf("sources[%d]", i), "%v", err)
		}
		if s.Sync != SyncAppend && s.Sync != SyncMirror {
			return bad(fmt.Sprintf("sources[%d].sync", i), "%q is not %s or %s", s.Sync, SyncAppend, SyncMirror)
		}
	}
	return nil
}

// validateModels checks the chat model's and the embedder's providers and request settings.
func (j *Job) validateModels() error {
	if err := validateProvider("llm", j.LLM.Provider, j.LLM.BaseURL, j.LLM.Model); err != nil {
		return err
	}
	if j.LLM.Cache != "on" && j.LLM.Cache != "off" {
		return bad("llm.cache", "%q is not on or off", j.LLM.Cache)
	}
	if err := wire.CheckFormat(j.LLM.ResponseFormat); err != nil {
		return bad("llm.response_format", "%v", err)
	}
	if err := llm.CheckMaxTokens(j.LLM.MaxTokens); err != nil {
		return bad("llm.max_tokens", "%v", err)
	}
	return validateProvider("embedder", j.Embedder.Provider, j.Embedder.BaseURL, j.Embedder.Model)
}

// validateProvider checks the provider of section (llm, embedder): offline, or openai with a
// base URL and a model.
func validateProvider(section, provider, baseURL, model string) error {
	switch provider {
	case "offline":
	case "openai":
		if baseURL == "" || model == "" {
			return bad(section, "provider openai needs base_url and model")
		}
	default:
		return bad(section+".provider", "%q is not offline or openai", provider)
	}
	return nil
}

// validateStages checks the stage options: those a stage validates itself (extract.Options),
// and the job's words for the stages' switches.
func (j *Job) validateStages() error {
	x := j.Stages.Extract
	if err := (extract.Options{Mode: x.Mode, Window: x.Window}).Validate(); err != nil {
		return fmt.Errorf("validating job: stages.extract.%w", err)
	}
	if x.Chitchat != "skip" && x.Chitchat != "ask" {
		return bad("stages.extract.chitchat", "%q is not skip or ask", x.Chitchat)
	}
	if r := j.Stages.Resolve; r.LLM != "on" && r.LLM != "off" {
		return bad("stages.resolve.llm", "%q is not on or off", r.LLM)
	}
	return nil
}

// Location is the job's timezone.
func (j *Job) Location() *time.Location {
	loc, err := time.LoadLocation(j.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}
