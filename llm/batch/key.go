package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/tkgraph/backfill/llm/cache"
)

// MetaBatch is the metadata key that carries the local id of a batch (Record.ID), so a run
// that died between creating a batch and recording its id finds it again in the provider's list.
const MetaBatch = "backfill_batch"

// Key is the custom_id of a request in a batch: a sha256 (hex) of the endpoint, the
// request body and the request's number within its call (attempt: a retry whose body equals an
// earlier one's is still a new request). The same request always has the same key, so a run
// started again finds the batch that already carries it.
func Key(endpoint string, body []byte, attempt int) string {
	h := sha256.New()
	cache.Field(h, endpoint)
	cache.Field(h, string(body))
	cache.Field(h, strconv.Itoa(attempt))
	return hex.EncodeToString(h.Sum(nil))
}
