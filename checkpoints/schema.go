package checkpoints

// schemaVersion is the version this build writes; migrate upgrades a store of an older one.
const schemaVersion = "11"

var schema = []string{
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS episodes (` + episodesColumnsV8 + `, origin TEXT NOT NULL DEFAULT '')`,
	`CREATE INDEX IF NOT EXISTS episodes_order ON episodes (group_id, reference_time, seq, uuid)`,
	`CREATE TABLE IF NOT EXISTS quarantine (
		file TEXT NOT NULL, row INTEGER NOT NULL, field TEXT NOT NULL, reason TEXT NOT NULL,
		raw TEXT NOT NULL, PRIMARY KEY (file, row, field))`,
	`CREATE TABLE IF NOT EXISTS units (
		stage TEXT NOT NULL, unit TEXT NOT NULL, fingerprint TEXT NOT NULL,
		failed INTEGER NOT NULL DEFAULT 0, reason TEXT NOT NULL DEFAULT '', raw TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (stage, unit))`,
	`CREATE TABLE IF NOT EXISTS stage_outputs (
		stage TEXT NOT NULL, unit TEXT NOT NULL, group_id TEXT NOT NULL, body BLOB NOT NULL,
		PRIMARY KEY (stage, unit))`,
	`CREATE INDEX IF NOT EXISTS stage_outputs_group ON stage_outputs (stage, group_id)`,
	`CREATE TABLE IF NOT EXISTS llm_cache (
		key TEXT PRIMARY KEY, namespace TEXT NOT NULL, response BLOB NOT NULL,
		prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS entities (
		uuid TEXT PRIMARY KEY, group_id TEXT NOT NULL, name TEXT NOT NULL, summary TEXT NOT NULL,
		labels TEXT NOT NULL, attributes TEXT NOT NULL, created_at INTEGER NOT NULL,
		name_embedding BLOB)`,
	`CREATE INDEX IF NOT EXISTS entities_group ON entities (group_id, uuid)`,
	`CREATE TABLE IF NOT EXISTS facts (
		uuid TEXT PRIMARY KEY, group_id TEXT NOT NULL, source_uuid TEXT NOT NULL,
		target_uuid TEXT NOT NULL, name TEXT NOT NULL, fact TEXT NOT NULL, episodes TEXT NOT NULL,
		created_at INTEGER NOT NULL, expired_at INTEGER, valid_at INTEGER, invalid_at INTEGER,
		reference_time INTEGER NOT NULL, fact_embedding BLOB)`,
	`CREATE INDEX IF NOT EXISTS facts_group ON facts (group_id, uuid)`,
	`CREATE TABLE IF NOT EXISTS mentions (
		uuid TEXT PRIMARY KEY, group_id TEXT NOT NULL, episode_uuid TEXT NOT NULL,
		entity_uuid TEXT NOT NULL, created_at INTEGER NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS mentions_group ON mentions (group_id, uuid)`,
	`CREATE TABLE IF NOT EXISTS communities (
		uuid TEXT PRIMARY KEY, group_id TEXT NOT NULL, name TEXT NOT NULL, summary TEXT NOT NULL,
		members TEXT NOT NULL, created_at INTEGER NOT NULL, name_embedding BLOB)`,
	`CREATE INDEX IF NOT EXISTS communities_group ON communities (group_id, uuid)`,
	`CREATE TABLE IF NOT EXISTS fact_versions (
		fact_uuid TEXT NOT NULL, seq INTEGER NOT NULL, group_id TEXT NOT NULL,
		record_time INTEGER NOT NULL, valid_at INTEGER, invalid_at INTEGER, expired_at INTEGER,
		episode_uuid TEXT NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (fact_uuid, seq))`,
	`CREATE INDEX IF NOT EXISTS fact_versions_group ON fact_versions (group_id, fact_uuid, seq)`,
	runsTable,
	groupIDsTable,
	batchesTable,
	batchRequestsTable,
	batchRequestsIndex,
	cacheGroupsTable,
	cacheGroupsIndex,
	forgottenTable,
	deletionsTable,
	forgetPendingTable,
	ownedTable,
}

// episodesColumnsV8 are the columns of episodes as schema version 8 made them (version 9 adds
// origin, the source a row came from).
const episodesColumnsV8 = `
		uuid TEXT PRIMARY KEY, group_id TEXT NOT NULL, reference_time INTEGER NOT NULL,
		seq INTEGER NOT NULL, name TEXT NOT NULL, source TEXT NOT NULL,
		source_description TEXT NOT NULL, content TEXT NOT NULL, speaker TEXT NOT NULL,
		record_key TEXT NOT NULL, ingested_at INTEGER NOT NULL,
		staged_run INTEGER NOT NULL DEFAULT 0, last_change INTEGER NOT NULL DEFAULT 0,
		record TEXT NOT NULL DEFAULT ''`

// batchesTable records every provider batch of the store's runs (batchrec.Record).
// reason is the provider's reason for a failed batch, or why a lost one is lost (batchrec.Record.Reason).
const batchesTable = `CREATE TABLE IF NOT EXISTS llm_batches (` + batchesColumnsV7 + `,
		reason TEXT NOT NULL DEFAULT '')`

// batchesColumnsV7 are the columns of llm_batches as schema version 7 made them.
const batchesColumnsV7 = `
		id TEXT PRIMARY KEY, kind TEXT NOT NULL, endpoint TEXT NOT NULL, provider_id TEXT NOT NULL,
		input_file TEXT NOT NULL, output_file TEXT NOT NULL, error_file TEXT NOT NULL, state TEXT NOT NULL,
		ended TEXT NOT NULL, requests INTEGER NOT NULL, bytes INTEGER NOT NULL, est_cost REAL NOT NULL,
		completed INTEGER NOT NULL, failed INTEGER NOT NULL, answers INTEGER NOT NULL, invalid INTEGER NOT NULL,
		errors INTEGER NOT NULL, unfinished INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL`

// batchRequestsTable records the request lines of the batches (batchrec.Request); keys is a
// JSON list of cache keys; group_id is the group whose unit asked ("" when not known: asked
// outside a unit, or recorded before the column existed).
const batchRequestsTable = `CREATE TABLE IF NOT EXISTS llm_batch_requests (` + batchRequestsColumnsV7 + `,
		group_id TEXT NOT NULL DEFAULT '', PRIMARY KEY (key, batch))`

// batchRequestsColumnsV7 are the columns llm_batch_requests had from schema version 7 to 10
// (with the primary key (key, batch)).
const batchRequestsColumnsV7 = `
		key TEXT NOT NULL, batch TEXT NOT NULL, stage TEXT NOT NULL, task TEXT NOT NULL, keys TEXT NOT NULL,
		status TEXT NOT NULL, detail TEXT NOT NULL, raw BLOB, finish TEXT NOT NULL, code INTEGER NOT NULL`

const batchRequestsIndex = `CREATE INDEX IF NOT EXISTS llm_batch_requests_batch ON llm_batch_requests (batch, status)`

// runsTable records every run of the store with its report (RecordRun).
const runsTable = `CREATE TABLE IF NOT EXISTS runs (
		seq INTEGER PRIMARY KEY, job TEXT NOT NULL, shard TEXT NOT NULL, finished_at INTEGER NOT NULL,
		outcome TEXT NOT NULL, report TEXT NOT NULL)`

// groupIDsTable maps each group id to the id as the input wrote it (equal unless it was mapped).
const groupIDsTable = `CREATE TABLE IF NOT EXISTS group_ids (group_id TEXT PRIMARY KEY, original TEXT NOT NULL)`

// migrations upgrade a store from the version of the key to the next one.
var migrations = map[string][]string{
	// 1 → 2: the run that last staged an episode, and what that staging changed (UpsertEpisodes).
	"1": {
		`ALTER TABLE episodes ADD COLUMN staged_run INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE episodes ADD COLUMN last_change INTEGER NOT NULL DEFAULT 0`,
	},
	// 2 → 3: what ingest read from a JSON record besides its content (graph.Record as JSON).
	"2": {`ALTER TABLE episodes ADD COLUMN record TEXT NOT NULL DEFAULT ''`},
	// 3 → 4: the runs table (RecordRun).
	"3": {runsTable},
	// 4 → 5: the id each group was written as in the input (ClaimGroups).
	"4": {groupIDsTable},
	// 5 → 6: a unit can be recorded as failed, with the reason and the raw answer (CommitFailedUnit).
	// (A store made before its first unit may lack the table: it gets the version-2 one first.)
	"5": {
		`CREATE TABLE IF NOT EXISTS units (stage TEXT NOT NULL, unit TEXT NOT NULL, fingerprint TEXT NOT NULL,
			PRIMARY KEY (stage, unit))`,
		`ALTER TABLE units ADD COLUMN failed INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE units ADD COLUMN reason TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE units ADD COLUMN raw TEXT NOT NULL DEFAULT ''`,
	},
	// 6 → 7: provider batches and their request lines (llm.mode: batch).
	"6": {`CREATE TABLE IF NOT EXISTS llm_batches (` + batchesColumnsV7 + `)`,
		`CREATE TABLE IF NOT EXISTS llm_batch_requests (` + batchRequestsColumnsV7 + `, PRIMARY KEY (key, batch))`, batchRequestsIndex},
	// 7 → 8: the provider's reason for a failed batch, or why a lost one is lost.
	"7": {`ALTER TABLE llm_batches ADD COLUMN reason TEXT NOT NULL DEFAULT ''`},
	// 8 → 9: forgetting (forget.go): the groups each cached answer carried, the forgotten
	// episodes, the deletion record, the groups whose forgetting is not complete, and the source
	// each episode was read from (sources[].sync: mirror).
	// (A store made before its first episode may lack the table: it gets the version-8 one first.)
	"8": {
		`CREATE TABLE IF NOT EXISTS episodes (` + episodesColumnsV8 + `)`,
		`ALTER TABLE episodes ADD COLUMN origin TEXT NOT NULL DEFAULT ''`,
		cacheGroupsTable, cacheGroupsIndex, forgottenTable, `CREATE TABLE IF NOT EXISTS deletions (` + deletionsColumnsV9 + `)`,
		forgetPendingTable,
	},
	// 9 → 10: what the graph-database loader wrote into each sink target (sink_owned).
	"9": {ownedTable},
	// 10 → 11: forgetting and provider batches: the group that asked each batch request (a
	// forgetting discards the pending answers its groups asked), and how many a deletion
	// discarded.
	// (A store that never had the tables gets their version-10 form first.)
	"10": {
		`CREATE TABLE IF NOT EXISTS llm_batch_requests (` + batchRequestsColumnsV7 + `, PRIMARY KEY (key, batch))`,
		`CREATE TABLE IF NOT EXISTS deletions (` + deletionsColumnsV9 + `)`,
		`ALTER TABLE llm_batch_requests ADD COLUMN group_id TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE deletions ADD COLUMN batch_requests INTEGER NOT NULL DEFAULT 0`,
	},
}
