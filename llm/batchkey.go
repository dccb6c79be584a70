package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// MetaBatch is the metadata key that carries the local id of a batch (BatchRecord.ID), so a run
// that died between creating a batch and recording its id finds it again in the provider's list.
const MetaBatch = "backfill_batch"

// BatchKey is the custom_id of a request in a batch: a sha256 (hex) of the endpoint, the
// request body and the request's number within its call (attempt: a retry whose body equals an
// earlier one's is still a new request). The same request always has the same key, so a run
// started again finds the batch that already carries it.
func BatchKey(endpoint string, body []byte, attempt int) string {
	h := sha256.New()
	field(h, endpoint)
	field(h, string(body))
	field(h, strconv.Itoa(attempt))
	return hex.EncodeToString(h.Sum(nil))
}
