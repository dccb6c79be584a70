// Package wire is what travels between backfill and an OpenAI-compatible provider: the chat,
// embeddings, files and batch wire types, the tasks with their input and output types, their
// strict answer schemas and validator, the response formats, the versioned prompt templates,
// and the token estimates made before a request is sent. It imports nothing of the project, so
// the client (package llm) and the providers (the offline responder, the stub) all speak it.
//
// Contract:
//   - Every task is one prompt pair in prompts/ (<task>.system.tmpl, <task>.user.tmpl), one
//     strict JSON schema generated from its output type (Task.Raw; Task.Capped adds maxLength
//     caps on free-text strings), and one input type. Task.ResponseFormat and Task.WithSchema
//     give a request's response_format and messages in each of Formats (json_schema named after
//     the task; json_object with the capped schema, for llama.cpp; json_object with the schema
//     in the system message; for llama.cpp, no response_format but Task.Grammar, the GBNF of
//     the compact answers of the capped schema, whose first line names the task; Task.ForInput
//     writes a request's own grammar where the input shapes it: WindowGrammar, one entry per
//     episode of the window, numbered in order, named by Task.GrammarVariant). TaskOf and
//     GrammarTask (RequestTask of a decoded request) recognise the task in every format. Answer
//     fields never share a name with an input field the model reads beside them (a fact's
//     endpoints are "subject" and "object").
//   - Prompts.Render gives a system and a user message; the user message always ends with
//     InputFence, the task input as json.Marshal gives it, and "\n```". Prompts.Hash(task)
//     changes whenever either template of the task (or the message format) changes; a prompts
//     directory overrides embedded templates file by file.
//   - Schema.Validate reports the first place an answer breaks its schema (*SchemaError).
//   - WithFeedback puts a validation error before the user message of a retry (the failed
//     answer is not sent again); StripFeedback takes it off, so a server can tell a retry from a
//     new request.
//   - EstimateTokens, EstimatePrompt and ExpectedCompletion are estimates for pacing, budgets
//     and plans; a provider's usage block is the real count.
//   - The batch wire types are the OpenAI Files and Batch API's: input and output lines, the
//     batch object with its states (BatchEnded tells a final one) and its errors.
package wire
