// Package offline is the offline provider: it answers backfill's own LLM prompts without a
// model. NewHandler returns an http.Handler serving POST …/chat/completions and POST
// …/embeddings in the OpenAI wire format, so the client talks to it exactly as to an
// OpenAI-compatible provider. It backs `llm.provider: offline` (in process, through
// transport.NewInProcessHTTPClient) and the `backfill llm-stub` server (providers/stub) that the
// demo, the tests and the benchmarks run against. It speaks llm/wire and embeds with
// embed/hashing; it imports neither client.
//
// Its answers are a deterministic, rule-based BASELINE FOR MECHANICS, NOT A MEASURE OF
// EXTRACTION QUALITY: a lexicon of common predicates in English and Korean, capitalised names,
// quoted names and a few JSON record fields. Anything outside those rules is silently missed.
//
// Contract:
//   - Chat requests name their task in response_format.json_schema.name (the wire.Task*
//     constants); any other name is HTTP 400 with an OpenAI-style error body (code
//     "unknown_task"). The task input is the JSON between the last wire.InputFence and the closing
//     "\n```" of the last user message that has one (later user messages, such as a validation
//     error fed back by the client, are skipped). The answer is a JSON string in
//     choices[0].message.content matching the task's output type, finish_reason "stop", with
//     usage estimated as ceil(bytes/4) of all prompt messages and of the answer.
//   - The same request always gets the same answer, byte for byte.
//   - Embeddings come from hashing.Embedder with the requested dimensions (Options.Dims, then
//     256, when absent); input is a string or a list of strings.
//   - Paths are matched by suffix, so base URLs with or without /v1 work.
//
// The rules, per task:
//   - extract_graph: the speaker is always an entity ("Person" when the ontology has it, else
//     "Entity"). Facts come from predicate patterns (WORKS_AT, MEMBER_OF_TEAM, LIVES_IN, PREFERS,
//     VISITED, IS_OUT_OF_STOCK, PLANS_TO in English and Korean) and, for JSON records, from fields
//     (plan → HAS_PLAN, status → IS_OUT_OF_STOCK or HAS_STATUS, company → WORKS_AT, city →
//     LOCATED_IN, manager → MANAGED_BY); a record whose subject none of these names (such as the
//     text fields of a snapshot) has its string values of three words or more read as text of
//     the episode's speaker. A snapshot's change list and known facts are not read: the rules see
//     the episode's content only. First-person subjects and omitted subjects are the
//     speaker (or the latest previous speaker); pronouns and common nouns give no fact. Dates
//     are resolved against the reference time's UTC calendar day and follow the time rules
//     (docs/concepts.md): a present state is valid from its stated start or the reference time;
//     "left …"/"used to …" close a fact (invalid_at); a state "until <date>" ends then; plans,
//     promises and deadlines are valid from the reference time with their date kept in the
//     sentence; nothing starts after it was said except a record's future effective date
//     (scheduled_state). The ontology's entity types only name the types of speakers, people, organisations, places,
//     teams, plans, products and stores; its edge types are ignored.
//   - judge_fact: reads subject and object back from the sentence forms in templates.go. A
//     duplicate has the same normalised sentence, or the same predicate, subject, object and end.
//     A contradiction has the same functional predicate, the same subject, a different object and
//     intervals that can overlap; preferences contradict only when the new one names the old
//     object ("coffee over tea") or the same favourite category. Each contradiction quotes the
//     words of the new sentence the rule saw: "over tea" / "tea보다" for a named old object,
//     else the new object; the temporal stage applies only the quotes its rules accept.
//   - extract_window reads each numbered episode as extract_graph reads one episode, with the
//     context and the window's earlier episodes as its previous episodes (an omitted reference
//     time or source is the episode before's); it lists the entities once (the first spelling
//     and its attributes win) and each episode's facts under its number, so a window gives the
//     facts its episodes give one by one.
//   - extract_graph and extract_entities list the same entities; the subject of a JSON record
//     gets, as attributes, the fields named like the attributes of its type. extract_facts keeps
//     the facts extract_graph gives whose two endpoints are in the given entity list, spelt as
//     there. The rules read the input's fields, never the prompt's wording, so any version of the
//     prompts gets the same answers.
//     Excluded types (excluded_types) are dropped with the facts that name them, in every mode.
//   - resolve_entities: two candidates are the same when their types agree (or one is
//     "Entity") and a spelling of one names the other: equal ignoring case, or both proper
//     names (every Latin word capitalised) where one's words, with Hangul romanized (Revised
//     Romanization, common family names in their usual spelling, "박서연" → park seoyeon), are
//     a subset of the other's; a family name alone or a possessive ("Nisha's dad", "민수의 형")
//     never matches.
//   - dedupe_facts: duplicates have the same normalised sentence, or equal dates and a word
//     Jaccard of at least 0.7.
//   - summarize_entities joins an entity's facts (≤ 250 runes, cut at a word); merge_summaries
//     joins two summaries without repeated sentences (≤ 400 runes); name_community names the
//     three most frequent names of the summary ("Kakao, Naver and Jiyoung").
//   - answer_question (`backfill eval --qa` through providers/stub) answers with the context fact
//     sharing the most words of three or more letters with the question (compared by their
//     first four letters), else "unknown";
//     grade_answer is correct when every word of the gold answer is among the answer's words.
//     Both exist so the QA mechanics can be tested without a model; they measure nothing.
package offline
