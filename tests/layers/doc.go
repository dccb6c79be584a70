// Package layers holds the tests that keep the module's structure: TestLayers states the layers
// of the module and fails on an import against them, so that the build, not a review, keeps the
// arrows pointing down; TestJobsKnowsNoPart keeps the job spec free of stages, sinks and LLM
// clients; TestOneStoreOpener keeps every command on the one store opener. There is no library
// code here.
package layers
