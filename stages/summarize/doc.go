// Package summarize is the summarize stage: one unit per group. Each entity gets a short summary
// made from its facts, oldest first (the most recent MaxFacts of them). When the joined facts are
// short they are the summary and no LLM call is made; otherwise entities are sent to the LLM in
// batches (several entities per call, in uuid order so batches are stable), and only the ids
// asked for are taken from the answer. An entity without facts has an empty summary. The typed
// attributes that resolve set from extraction (Entity.Attributes) are kept as they are.
//
// Batch mode: 2 waves (every batch of every group is asked at once, then the commit).
package summarize
