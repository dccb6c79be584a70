package wire

import "unicode/utf8"

// EstimateTokens is a quick token count of s for pacing and planning: about four bytes per
// token for ASCII text, and one token per non-ASCII character (Korean, Chinese and Japanese
// take about one token per character in BPE vocabularies). It is an estimate; the API's usage
// block is the real count.
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		other++
		i += size
	}
	return (ascii+3)/4 + other
}

// EstimatePrompt estimates the prompt tokens of a chat request: its messages, a few tokens of
// framing per message, and the schema it sends as prompt (Task.PromptSchema; nil for none).
func EstimatePrompt(msgs []Message, schema []byte) int {
	n := EstimateTokens(string(schema))
	for _, m := range msgs {
		n += 4 + EstimateTokens(m.Content)
	}
	return n
}

// ExpectedCompletion is the usual answer size of a task in tokens, used before the answer is
// known: for the TPM bucket, the budget reservation and plan. Unknown tasks get 256.
func ExpectedCompletion(task string) int {
	switch task {
	case TaskExtract:
		return 350
	case TaskExtractWindow:
		return 500 // a window of about eight messages, compact facts
	case TaskJudgeFact:
		return 40
	case TaskSummarize:
		return 400 // a batch of about 8 summaries
	case TaskMergeSummaries:
		return 120
	case TaskNameCommunity:
		return 15
	case TaskExtractEntities:
		return 150
	case TaskExtractFacts:
		return 250
	case TaskResolveEntities, TaskDedupeFacts:
		return 40 // a list of pair ids
	case TaskAnswerQuestion:
		return 40
	case TaskGradeAnswer:
		return 10
	}
	return 256
}
