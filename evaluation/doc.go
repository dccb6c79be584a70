// Package evaluation scores a finished graph (`backfill eval`): its health, retrieval against a
// benchmark's ground truth, extraction and temporal accuracy against a hand-written gold file,
// and question answering with an LLM judge.
//
// Contract:
//   - Run reads a snapshots.Snapshot group by group, so memory is bounded by the largest group
//     (plus the questions of the dataset, without their haystacks). The same graph and options
//     give the same report: every ranking breaks ties by fact uuid or first appearance, every
//     list is in group and file order.
//   - Health (always): per group and in total, entities and facts per episode, the share of
//     facts with a valid_at, the share closed (invalid_at set), entities whose normalised names
//     collide (missed merges), entities without facts, community sizes, and closures whose
//     closing fact shares no endpoint with the closed fact (must be 0; from the version log, so
//     not measured on a Parquet export).
//   - Retrieval (with a Dataset, no LLM): each question is asked at its time (LongMemEval's
//     question_date; LoCoMo gives none, so the group's last episode) in every mode, computed by
//     the same code on the same questions, each at k items but ModeCombined. ModeFacts searches
//     the facts of its group valid at that time (an event, valid_at = invalid_at, once it
//     happened) by Graphiti's hybrid search: BM25 (Lucene's k1 1.2, b 0.75, a fact's document is
//     its sentence and its entities' names, statistics per group) and cosine similarity of the
//     stored fact embeddings to the question's (embedded by the job's embedder, above
//     MinCosine), 2×k candidates each, fused by reciprocal rank fusion with rank constant 1:
//     k facts. The raw modes use no graph, over the episodes up to that time: ModeEpisodesBM25
//     (BM25 over EpisodeText: the content, the speaker first), ModeEpisodesDense (cosine of the
//     episodes' embeddings, by the same embedder, no floor) and ModeEpisodesHybrid (both, 2×k
//     each, fused). ModeFactsEpisodes is k episodes by the same hybrid search with each
//     episode's BM25 document its text followed by the sentences of the facts extracted from
//     it (document expansion: a turn is found by what the graph learned from it too); it is paired
//     with each raw mode question by question (RetrievalReport.Paired). ModeCombined is
//     Graphiti's combined search, a labelled extra at 2k items: the k facts and the k BM25
//     episodes. Evidence (turn) recall@k: an evidence episode was retrieved (a retrieved fact
//     lists it, or it is a retrieved episode; LoCoMo's evidence dia_ids, LongMemEval's
//     has_answer turns of answer_session_ids, as the importer's record keys). Session recall@k:
//     the same with any episode of an evidence session (Dataset.SessionOf: LoCoMo's dia_id
//     prefix, LongMemEval's session id), what published results that count sessions measure.
//     Answer recall@k: the gold answer's terms (lower case, no articles) occur in a row in one
//     retrieved text (a fact's context line or an episode's text). All by category, each with
//     its 95% Wilson score interval; the facts' rows are Categories, the other modes
//     Baselines; adversarial (LoCoMo 5) and abstention (LongMemEval "_abs") questions and
//     questions without evidence are reported apart. Ks are 1 to MaxK, at most MaxKs of them;
//     MinCosine is -1 to 1 (CheckMinCosine).
//   - Options.Groups, when set, are the only groups read; the gold file's and the dataset's
//     other groups are left out rather than reported missing.
//   - Gold (with a Gold file): see GoldReport for the matching rule, precision, recall, F1,
//     interval accuracy and closures. Each episode of the gold groups gets its counts
//     (EpisodeScore: a matched graph fact under its gold fact's episode, any other under the
//     first episode stating it), and Spread is the 95% percentile bootstrap interval of the
//     scores over Resamples draws of the episodes from a fixed seed. CompareGold pairs two
//     reports' episodes by group and record key and bootstraps the change of the scores with
//     the same draws for both (`backfill diff --gold`); reports of other episodes or other gold
//     facts are an error. Retrieval keeps every question's hits in every mode (QuestionScore);
//     CompareRetrieval pairs two reports' scored questions by group and id, checks that each
//     pair is the same question (QuestionScore.Digest of its text, answer and evidence), and
//     bootstraps the change of each recall of the facts (evidence, session, answer) the same
//     way; Compare does both for `backfill eval --against`. Every gold episode must be found in the graph (by record key or reference
//     time, its "says" in its content) and every gold group must exist; a gold file that does
//     not fit the graph is an error, never a silent zero.
//   - WriteHTML draws reports and paired changes as one self-contained page (inline SVG, no
//     script): recall@k by mode and category, the gold scores and interval columns, each with
//     its 95% interval, and forest plots of paired changes; html/template escapes every text.
//   - QA (with an Asker, needs a Dataset): answer_question from the top max(k) facts in the
//     Zep context format (WriteContext, the one `backfill query` prints), then grade_answer
//     against the gold answer; both are llm tasks (versioned prompts, cached, paced, budgeted,
//     costed) under the usage stage "eval". A budget stop ends QA cleanly (QABudgetStopped).
package evaluation
