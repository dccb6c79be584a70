package extract

import "github.com/tkgraph/backfill/internal/options"

// DefaultContext is Options.Context when stages.extract.context is not set (the stage itself
// shows no previous episode when Context is 0).
const DefaultContext = 4

// DefaultContextTokens is Options.ContextTokens when stages.extract.context_tokens is not set
// (the stage itself bounds nothing when ContextTokens is 0 or less).
const DefaultContextTokens = 120

// DefaultMode is the extraction mode when none is set (the job's and the stage's).
const DefaultMode = ModeCombined

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
}
