package checkpoints

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tkgraph/backfill/llm/batchrec"
	"github.com/tkgraph/backfill/llm/cache"
)

// batchColumns are the columns of llm_batches. The store records provider batches for the
// batchers of llm/batch (it satisfies their batch.Store, as jobs/pipeline's UseBatches
// requires) in the types of package batchrec.
const batchColumns = `id,kind,endpoint,provider_id,input_file,output_file,error_file,state,ended,requests,bytes,est_cost,
	completed,failed,answers,invalid,errors,unfinished,created_at,updated_at,reason`

// AddBatch records a new batch.
func (s *Store) AddBatch(ctx context.Context, b batchrec.Record) error {
	return s.Write(ctx, func(tx *Tx) error { return putBatch(ctx, tx, b, "INSERT") })
}

// UpdateBatch records the current state of a batch. A batch recorded as submitting with its
// input file uploaded is about to be created (and billed) at the provider: UpdateBatch then
// returns only once the Barrier hook made the record outlive this machine, so that a run that
// dies after the creation finds the batch at the provider (batchrec.Batcher.Recover) instead of
// paying for it again.
func (s *Store) UpdateBatch(ctx context.Context, b batchrec.Record) error {
	if err := s.Write(ctx, func(tx *Tx) error { return putBatch(ctx, tx, b, "INSERT OR REPLACE") }); err != nil {
		return err
	}
	if b.State == batchrec.Submitting && b.InputFile != "" {
		if err := s.barrier(ctx); err != nil {
			return fmt.Errorf("keeping batch %s before creating it: %w", b.ID, err)
		}
	}
	return nil
}

func putBatch(ctx context.Context, tx *Tx, b batchrec.Record, verb string) error {
	_, err := tx.tx.ExecContext(ctx, verb+` INTO llm_batches(`+batchColumns+`) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		b.ID, b.Kind, b.Endpoint, b.ProviderID, b.InputFile, b.OutputFile, b.ErrorFile, b.State, b.Ended, b.Requests, b.Bytes,
		b.EstCostUSD, b.Completed, b.Failed, b.Answers, b.Invalid, b.Errors, b.Unfinished, micros(b.CreatedAt), micros(b.UpdatedAt),
		b.Reason)
	if err != nil {
		return fmt.Errorf("writing batch %s: %w", b.ID, err)
	}
	return nil
}

// DropBatch deletes a batch and its request rows.
func (s *Store) DropBatch(ctx context.Context, id string) error {
	return s.Write(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `DELETE FROM llm_batch_requests WHERE batch=?`, id); err != nil {
			return fmt.Errorf("dropping batch %s: %w", id, err)
		}
		if _, err := tx.tx.ExecContext(ctx, `DELETE FROM llm_batches WHERE id=?`, id); err != nil {
			return fmt.Errorf("dropping batch %s: %w", id, err)
		}
		return nil
	})
}

// BatchRecord returns one batch.
func (s *Store) BatchRecord(ctx context.Context, id string) (batchrec.Record, bool, error) {
	var out []batchrec.Record
	err := s.each(ctx, "batches", `SELECT `+batchColumns+` FROM llm_batches WHERE id=?`, []any{id}, scanBatch(&out))
	if err != nil || len(out) == 0 {
		return batchrec.Record{}, false, err
	}
	return out[0], true, nil
}

// OpenBatches lists the batches of a kind that are open (neither delivered nor lost), oldest
// first.
func (s *Store) OpenBatches(ctx context.Context, kind string) ([]batchrec.Record, error) {
	var out []batchrec.Record
	err := s.each(ctx, "batches", `SELECT `+batchColumns+` FROM llm_batches WHERE kind=? AND state NOT IN (?,?) ORDER BY created_at, id`,
		[]any{kind, batchrec.Delivered, batchrec.Lost}, scanBatch(&out))
	return out, err
}

// Batches lists every batch, oldest first.
func (s *Store) Batches(ctx context.Context) ([]batchrec.Record, error) {
	var out []batchrec.Record
	err := s.each(ctx, "batches", `SELECT `+batchColumns+` FROM llm_batches ORDER BY created_at, id`, nil, scanBatch(&out))
	return out, err
}

func scanBatch(out *[]batchrec.Record) func(*sql.Rows) error {
	return func(r *sql.Rows) error {
		var b batchrec.Record
		var created, updated int64
		if err := r.Scan(&b.ID, &b.Kind, &b.Endpoint, &b.ProviderID, &b.InputFile, &b.OutputFile, &b.ErrorFile, &b.State, &b.Ended,
			&b.Requests, &b.Bytes, &b.EstCostUSD, &b.Completed, &b.Failed, &b.Answers, &b.Invalid, &b.Errors, &b.Unfinished,
			&created, &updated, &b.Reason); err != nil {
			return err
		}
		b.CreatedAt, b.UpdatedAt = fromMicros(created), fromMicros(updated)
		*out = append(*out, b)
		return nil
	}
}

const requestColumns = `key,batch,stage,task,keys,status,detail,raw,finish,code`

// AddBatchRequest records a request line of a batch (once: a second call is a no-op), with the
// group of the unit that asks it (ForGroup), so a forgetting of the group discards its answer.
func (s *Store) AddBatchRequest(ctx context.Context, r batchrec.Request) error {
	keys, err := json.Marshal(r.Keys)
	if err != nil {
		return fmt.Errorf("encoding batch request: %w", err)
	}
	return s.Write(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT OR IGNORE INTO llm_batch_requests(`+requestColumns+`,group_id) VALUES(?,?,?,?,?,?,?,?,?,?,?)`,
			r.Key, r.Batch, r.Stage, r.Task, string(keys), r.Status, r.Detail, r.Raw, r.Finish, r.Code, groupOf(ctx))
		if err != nil {
			return fmt.Errorf("writing batch request: %w", err)
		}
		return nil
	})
}

// BatchRequests lists the rows of a request key, oldest first.
func (s *Store) BatchRequests(ctx context.Context, key string) ([]batchrec.Request, error) {
	var out []batchrec.Request
	err := s.each(ctx, "batch requests", `SELECT `+requestColumns+` FROM llm_batch_requests WHERE key=? ORDER BY rowid`,
		[]any{key}, scanRequest(&out))
	return out, err
}

// BatchRequestIn returns the row of a key in one batch.
func (s *Store) BatchRequestIn(ctx context.Context, id, key string) (batchrec.Request, bool, error) {
	var out []batchrec.Request
	err := s.each(ctx, "batch requests", `SELECT `+requestColumns+` FROM llm_batch_requests WHERE key=? AND batch=?`,
		[]any{key, id}, scanRequest(&out))
	if err != nil || len(out) == 0 {
		return batchrec.Request{}, false, err
	}
	return out[0], true, nil
}

func scanRequest(out *[]batchrec.Request) func(*sql.Rows) error {
	return func(r *sql.Rows) error {
		var q batchrec.Request
		var keys string
		if err := r.Scan(&q.Key, &q.Batch, &q.Stage, &q.Task, &keys, &q.Status, &q.Detail, &q.Raw, &q.Finish, &q.Code); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(keys), &q.Keys); err != nil {
			return err
		}
		*out = append(*out, q)
		return nil
	}
}

// SettleBatchRequests records delivered rows (a valid row is deleted: its answer is in the
// cache) and writes the cache entries of the valid answers, in one transaction.
func (s *Store) SettleBatchRequests(ctx context.Context, rows []batchrec.Request, entries []cache.Keyed) error {
	return s.Write(ctx, func(tx *Tx) error {
		for _, e := range entries {
			if _, err := tx.tx.ExecContext(ctx, `INSERT OR REPLACE INTO llm_cache(key,namespace,response,prompt_tokens,completion_tokens) VALUES(?,?,?,?,?)`,
				e.Key, e.Entry.Namespace, e.Entry.Response, e.Entry.PromptTokens, e.Entry.CompletionTokens); err != nil {
				return fmt.Errorf("writing llm cache: %w", err)
			}
		}
		for _, r := range rows {
			var err error
			if r.Status == batchrec.ReqValid {
				_, err = tx.tx.ExecContext(ctx, `DELETE FROM llm_batch_requests WHERE key=? AND batch=?`, r.Key, r.Batch)
			} else {
				_, err = tx.tx.ExecContext(ctx, `UPDATE llm_batch_requests SET status=?, detail=?, raw=?, finish=?, code=? WHERE key=? AND batch=?`,
					r.Status, r.Detail, r.Raw, r.Finish, r.Code, r.Key, r.Batch)
			}
			if err != nil {
				return fmt.Errorf("settling batch request: %w", err)
			}
		}
		return nil
	})
}

// FinishBatch marks the rows of the batch still pending as unfinished (lost, when the batch is
// lost), with why (the provider's reason for a failed batch), adds their number to b.Unfinished and records b, in one transaction; it returns that
// number.
func (s *Store) FinishBatch(ctx context.Context, b batchrec.Record) (int, error) {
	status, detail := batchrec.ReqUnfinished, "the batch ended ("+b.Ended+") without an answer"
	if b.Reason != "" { // a failed batch: the provider's reason (its errors)
		detail += ": " + b.Reason
	}
	if b.State == batchrec.Lost {
		status, detail = batchrec.ReqLost, "the batch is lost: "+b.Reason
	}
	var n int64
	err := s.Write(ctx, func(tx *Tx) error {
		res, err := tx.tx.ExecContext(ctx, `UPDATE llm_batch_requests SET status=?, detail=? WHERE batch=? AND status=?`,
			status, detail, b.ID, batchrec.ReqPending)
		if err != nil {
			return fmt.Errorf("finishing batch %s: %w", b.ID, err)
		}
		if n, err = res.RowsAffected(); err != nil {
			return fmt.Errorf("finishing batch %s: %w", b.ID, err)
		}
		b.Unfinished += int(n)
		return putBatch(ctx, tx, b, "INSERT OR REPLACE")
	})
	return int(n), err
}

// forgetChunk bounds the keys of one DELETE.
const forgetChunk = 500

// ForgetBatchRequests deletes the rows of the keys that are no longer pending.
func (s *Store) ForgetBatchRequests(ctx context.Context, keys []string) error {
	return s.Write(ctx, func(tx *Tx) error {
		for len(keys) > 0 {
			chunk := keys[:min(len(keys), forgetChunk)]
			keys = keys[len(chunk):]
			args := []any{batchrec.ReqPending}
			for _, k := range chunk {
				args = append(args, k)
			}
			q := `DELETE FROM llm_batch_requests WHERE status<>? AND key IN (?` + strings.Repeat(",?", len(chunk)-1) + `)`
			if _, err := tx.tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("forgetting batch requests: %w", err)
			}
		}
		return nil
	})
}
