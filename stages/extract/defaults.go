package extract

// DefaultContext is the job's Options.Context when stages.extract.context is not set (the
// stage itself shows no previous episode when Context is 0).
const DefaultContext = 4
