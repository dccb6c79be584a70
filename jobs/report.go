package jobs

import (
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// Report is the run report (report.Report).
type Report = report.Report

// LLMReport counts LLM and embedding calls (report.LLM).
type LLMReport = report.LLM

// BatchReport is what a run in batch mode did with provider batches (report.Batch).
type BatchReport = report.Batch

// MaxMappedShown bounds Report.MappedGroups.
const MaxMappedShown = report.MaxMappedShown

// StageOrder is the order stages run in.
var StageOrder = stages.StepNames()
