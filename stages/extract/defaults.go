package extract

import "time"

// DefaultContext is the job's Options.Context when stages.extract.context is not set (the
// stage itself shows no previous episode when Context is 0).
const DefaultContext = 4

// DefaultContextTokens is the job's Options.ContextTokens when stages.extract.context_tokens is
// not set (the stage itself bounds nothing when ContextTokens is 0 or less).
const DefaultContextTokens = 120

// DefaultMode is the extraction mode when none is set (the job's and the stage's).
const DefaultMode = ModeCombined

// DefaultWindow is the job's Options.Window when stages.extract.window is not set: one call per
// episode (bench/results.md, window: the measurement that chose it).
const DefaultWindow = 1

// DefaultWindowTokens is the job's Options.WindowTokens when stages.extract.window_tokens is not
// set: a window's content, at most, in wire.EstimateTokens (about forty chat turns).
const DefaultWindowTokens = 1000

// DefaultWindowGap is the job's Options.WindowGap when stages.extract.window_gap_seconds is not
// set: an hour's silence starts a new window.
const DefaultWindowGap = time.Hour
