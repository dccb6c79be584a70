package llm

import "github.com/tkgraph/backfill/llm/calls"

// Observe makes o watch the client's calls and usage (nil: none). Call it before the first
// Call.
func (c *Client) Observe(o calls.Observer) {
	c.obs = o
	c.meter.observe(o)
}
