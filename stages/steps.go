package stages

// The steps of a run, by the name each has in the store and in reports.
const (
	Ingest    = "ingest"
	Extract   = "extract"
	Resolve   = "resolve"
	Temporal  = "temporal"
	Summarize = "summarize"
	Embed     = "embed"
	Community = "community"
	Load      = "load"
)

// Step is one step of a run and its upstream: the step whose per-group output it reads, whose
// unit fingerprints its own fingerprints chain ("" for none).
type Step struct {
	Name, Upstream string
}

// Steps is the step table: every step of a run in run order, with its upstream. A stage reads
// its upstream from here (Upstream), not by importing the stage before it.
var Steps = []Step{
	{Ingest, ""},
	{Extract, Ingest},
	{Resolve, Extract},
	{Temporal, Resolve},
	{Summarize, Temporal},
	{Embed, Summarize},
	{Community, Embed},
	{Load, Community},
}

// Upstream returns the upstream of the step name in Steps ("" for a step without one, or a name
// that is not a step).
func Upstream(name string) string {
	for _, s := range Steps {
		if s.Name == name {
			return s.Upstream
		}
	}
	return ""
}

// StepNames returns the names of Steps in run order.
func StepNames() []string {
	out := make([]string, len(Steps))
	for i, s := range Steps {
		out[i] = s.Name
	}
	return out
}
