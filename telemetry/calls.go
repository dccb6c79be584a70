package telemetry

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
)

// Client is the observer of a chat client (operation calls.OperationChat) or an embeddings
// client (calls.OperationEmbeddings) of provider (gen_ai.provider.name: "openai", or
// ProviderOffline) asking model at baseURL ("" when in-process); nil when t is.
func (t *Telemetry) Client(operation, provider, model, baseURL string) calls.Observer {
	if t == nil {
		return nil
	}
	c := &client{t: t, op: operation, base: []attribute.KeyValue{keyOperation.String(operation), keyProvider.String(provider),
		keyRequestModel.String(model)}, name: operation + " " + model}
	if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
		c.server = append(c.server, keyServerAddress.String(u.Hostname()))
		if p, err := strconv.Atoi(u.Port()); err == nil {
			c.server = append(c.server, keyServerPort.Int(p))
		}
	}
	return c
}

// client watches one client's calls and counts its usage.
type client struct {
	t      *Telemetry
	op     string
	name   string               // of its calls' spans: "chat MODEL", "embeddings MODEL"
	base   []attribute.KeyValue // operation, provider, model
	server []attribute.KeyValue // server.address and server.port, when not in-process
	sets   attrSets
}

// Counted adds a change of the client's usage counters to the metrics. A change with tokens
// is one answer's: it is a sample of gen_ai.client.token.usage too.
func (c *client) Counted(stage, task string, d pacing.StageUsage) {
	ctx := context.Background()
	set := c.set(stage, task, "")
	add := func(in metric.Int64Counter, n int64) {
		if n != 0 {
			in.Add(ctx, n, set)
		}
	}
	add(c.t.in.requests, d.Calls)
	add(c.t.in.cacheHits, d.CacheHits)
	add(c.t.in.retries, d.Retries)
	add(c.t.in.invalid, d.InvalidAnswers)
	add(c.t.in.truncated, d.Truncated)
	add(c.t.in.salvaged, d.Salvaged)
	if d.CostUSD != 0 {
		c.t.in.cost.Add(ctx, d.CostUSD, set)
	}
	if d.PromptTokens == 0 && d.CompletionTokens == 0 {
		return
	}
	for _, k := range []struct {
		kind  string
		n     int64
		usage bool // a sample of gen_ai.client.token.usage
	}{{tokenInput, d.PromptTokens, true}, {tokenOutput, d.CompletionTokens, c.op == calls.OperationChat},
		{tokenCachedInput, d.CachedTokens, false}, {tokenReasoning, d.ReasoningTokens, false}} {
		typed := c.set(stage, task, k.kind)
		if k.usage {
			c.t.in.tokenUsage.Record(ctx, k.n, typed)
		}
		if k.n != 0 {
			c.t.in.tokens.Add(ctx, k.n, typed)
		}
	}
}

// Waited times a request's wait for the pacer.
func (c *client) Waited(stage, task string, d time.Duration) {
	c.t.in.queueWait.Record(context.Background(), d.Seconds(), c.set(stage, task, ""))
}

// Call starts the call's span ("chat MODEL", "embeddings MODEL"); when the call ends, its
// usage goes on the span and its duration into gen_ai.client.operation.duration (not for a
// call whose request waits in a provider batch: it did not end).
func (c *client) Call(ctx context.Context, ci calls.CallInfo) (context.Context, func(calls.CallEnd)) {
	start := time.Now()
	attrs := make([]attribute.KeyValue, 0, 12)
	attrs = append(attrs, c.base...)
	attrs = append(attrs, c.server...)
	attrs = append(attrs, keyPromptName.String(ci.Task))
	if ci.Operation == calls.OperationChat {
		attrs = append(attrs, keyStage.String(ci.Stage), keyOutputType.String(outputJSON), keyMaxTokens.Int(ci.MaxTokens),
			keyTemperature.Float64(ci.Temperature))
	} else {
		// Embeddings count under the embed stage whichever stage asks, as the run report counts
		// them (embed.Stage); the span's parent unit names the stage that asked.
		attrs = append(attrs, keyTexts.Int(ci.Texts))
	}
	if ci.Batch {
		attrs = append(attrs, keyBatchMode.Bool(true))
	}
	ctx, span := c.t.tracer.Start(ctx, c.name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, func(e calls.CallEnd) {
		// Counts that are 0 are left out (most calls have no retry, no cached or reasoning
		// token): a span is encoded and sent once per call.
		u := e.Usage
		end := make([]attribute.KeyValue, 0, 8)
		end = append(end, keyCallOutcome.String(e.Outcome), keyRequests.Int64(u.Calls), keyInputTokens.Int64(u.PromptTokens))
		if ci.Operation == calls.OperationChat {
			end = append(end, keyOutputTokens.Int64(u.CompletionTokens))
		}
		if u.Retries != 0 {
			end = append(end, keyRetries.Int64(u.Retries))
		}
		if u.CachedTokens != 0 {
			end = append(end, keyCachedTokens.Int64(u.CachedTokens))
		}
		if u.ReasoningTokens != 0 {
			end = append(end, keyReasonTokens.Int64(u.ReasoningTokens))
		}
		if u.CostUSD != 0 {
			end = append(end, keyCost.Float64(u.CostUSD))
		}
		if e.Finish != "" {
			end = append(end, keyFinishReasons.StringSlice([]string{e.Finish}))
		}
		span.SetAttributes(end...)
		if e.Outcome == calls.CallPending {
			span.End()
			return
		}
		fail(span, e.Err)
		span.End()
		class := ""
		if e.Err != nil {
			class = errorType(e.Err)
		}
		c.t.in.duration.Record(context.WithoutCancel(ctx), time.Since(start).Seconds(), c.set(ci.Stage, ci.Task, "error="+class))
	}
}

// set is the attribute set of the client's measurements of a stage's task: the job, operation,
// provider, model, task and stage, and kind: a gen_ai.token.type, "error=CLASS" (an
// error.type when CLASS is not empty) or "".
func (c *client) set(stage, task, kind string) metric.MeasurementOption {
	return c.sets.get(stage+"\x00"+task+"\x00"+kind, func() attribute.Set {
		kv := append([]attribute.KeyValue{c.t.job, keyStage.String(stage), keyPromptName.String(task)}, c.base...)
		switch {
		case kind == "error=":
		case len(kind) > 6 && kind[:6] == "error=":
			kv = append(kv, keyErrorType.String(kind[6:]))
		case kind != "":
			kv = append(kv, keyTokenType.String(kind))
		}
		return attribute.NewSet(kv...)
	})
}
