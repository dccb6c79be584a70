package extract

// DefaultContext is the job's Options.Context when stages.extract.context is not set (the
// stage itself shows no previous episode when Context is 0).
const DefaultContext = 4

// DefaultContextTokens is the job's Options.ContextTokens when stages.extract.context_tokens is
// not set (the stage itself bounds nothing when ContextTokens is 0 or less).
const DefaultContextTokens = 120

// DefaultMode is the extraction mode when none is set (the job's and the stage's).
const DefaultMode = ModeCombined
