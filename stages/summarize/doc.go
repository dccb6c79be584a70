// Package summarize is the summarize stage: one unit per group. Each entity gets a short summary
// made from its facts, oldest first. When the joined facts are short they are the summary and no
// LLM call is made; otherwise entities are sent to the LLM in batches (several entities per call,
// sorted by uuid so batches are stable). Summaries are written onto the group's entities.
package summarize
