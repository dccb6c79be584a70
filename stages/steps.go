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

// What one unit of a step is (Step.Unit).
const (
	UnitEpisode = "episode"
	UnitGroup   = "group"
)

// Step is one step of a run: its name, its upstream (the step whose per-group output it reads,
// whose unit fingerprints its own fingerprints chain; "" for none) and what its unit is ("" for
// ingest, which keeps no unit records: it upserts episodes by id).
type Step struct {
	Name, Upstream, Unit string
}

// Steps is the step table: every step of a run in run order, with its upstream and unit. A
// stage reads its upstream from here (Upstream), not by importing the stage before it.
var Steps = []Step{
	{Ingest, "", ""},
	{Extract, Ingest, UnitEpisode},
	{Resolve, Extract, UnitGroup},
	{Temporal, Resolve, UnitGroup},
	{Summarize, Temporal, UnitGroup},
	{Embed, Summarize, UnitGroup},
	{Community, Embed, UnitGroup},
	{Load, Community, UnitGroup},
}

// StepOf returns the step named name (the zero Step for a name that is not a step).
func StepOf(name string) Step {
	for _, s := range Steps {
		if s.Name == name {
			return s
		}
	}
	return Step{}
}

// Upstream returns the upstream of the step name in Steps ("" for a step without one, or a name
// that is not a step).
func Upstream(name string) string { return StepOf(name).Upstream }

// StepNames returns the names of Steps in run order.
func StepNames() []string {
	out := make([]string, len(Steps))
	for i, s := range Steps {
		out[i] = s.Name
	}
	return out
}
