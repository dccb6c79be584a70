package extract

import (
	"time"

	"github.com/tkgraph/backfill/internal/options"
)

// DefaultContext is Options.Context when stages.extract.context is not set (the stage itself
// shows no previous episode when Context is 0).
const DefaultContext = 4

// DefaultContextTokens is Options.ContextTokens when stages.extract.context_tokens is not set
// (the stage itself bounds nothing when ContextTokens is 0 or less).
const DefaultContextTokens = 120

// DefaultMode is the extraction mode when none is set (the job's and the stage's).
const DefaultMode = ModeCombined

// DefaultWindow is Options.Window when stages.extract.window is not set: one call per episode
// (docs/cost.md, extraction windows: the measurement that keeps it).
const DefaultWindow = 1

// DefaultWindowTokens is Options.WindowTokens when stages.extract.window_tokens is not set: a
// window's content, at most, in wire.EstimateTokens (about forty chat turns).
const DefaultWindowTokens = 1000

// DefaultWindowGap is Options.WindowGap when stages.extract.window_gap_seconds is not set: an
// hour's silence starts a new window.
const DefaultWindowGap = time.Hour

// Declare declares the stage's job keys (stages.extract) on o's fields.
func (o *Options) Declare(s *options.Section) {
	s.Int(&o.Context, "context", "previous episodes shown to extraction, at most; JSON records with `mapping.object` get "+
		"their change list instead", options.Default(DefaultContext), options.Max(100), options.Example("2"))
	s.Int(&o.ContextTokens, "context_tokens", "the previous episodes' content shown, at most, in tokens (about three chat "+
		"turns by default; newest first, the latest cut when it alone is longer). A previous episode leaves out the "+
		"reference time and source it shares with the episode", options.Default(DefaultContextTokens), options.Max(1_000_000),
		options.Example("60"))
	s.String(&o.Mode, "mode", "`combined` (one `extract_graph` call per episode: entities with their ontology attributes, "+
		"and facts) or `two_call` (entities, then facts between them; the second call only when the episode has two "+
		"entities). Changing it re-runs every extraction (the tasks asked are part of the fingerprint)",
		options.Default(DefaultMode), options.Words(ModeCombined, ModeTwoCall))
	s.Switch(&o.AskChitchat, "chitchat", "`skip`: a message whose every sentence is a question that names no one but the "+
		"speakers and says nothing of the speaker, or courtesy (\"Thanks, Mel! Take care.\", \"와 대박!\") is not asked "+
		"about; its speaker is its only entity, and the next message sees it as context. `ask`: every message is asked. "+
		"The report's `extract_units` counts both", "skip", "ask", options.Default("skip"))
	s.Switch(&o.NoLLM, "llm", "`on` or `off`: no extraction call at all, JSON records give their declared facts only",
		"on", "off", options.Default("on"))
	s.Int(&o.Window, "window", "messages and texts of a group extracted together, one `extract_window` call per window of "+
		"consecutive episodes, this many per window on average and at most three times as many (1: one call per episode; "+
		"needs `mode: combined`). JSON episodes keep their own calls. See [Extraction windows](docs/cost.md#extraction-windows)",
		options.Default(DefaultWindow), options.Max(64), options.Example("4"),
		options.Check(func() error { return o.checkWindow() })) // a method value would check a copy of *o
	s.Int(&o.WindowTokens, "window_tokens", "a window's content, at most, in tokens: an episode that would pass it starts "+
		"the next window", options.Default(DefaultWindowTokens), options.Max(1_000_000),
		options.Example("500", "stages.extract.window=4"))
	s.Seconds(&o.WindowGap, "window_gap_seconds", "an episode this long after the one before starts a new window, as does "+
		"another source or source description (a LoCoMo session)", options.Default(DefaultWindowGap.Seconds()),
		options.Max(1e9), options.Example("60", "stages.extract.window=4"))
}
