package graph

import "time"

// Source types of an episode, as Graphiti names them.
const (
	SourceMessage = "message"
	SourceText    = "text"
	SourceJSON    = "json"
)

// Episode is one unit of history: a message, a text or a JSON record of one group.
type Episode struct {
	UUID              string
	GroupID           string
	Name              string
	Source            string // message|text|json
	SourceDescription string
	Content           string
	Speaker           string    // speaker or role of a message; empty otherwise
	ReferenceTime     time.Time // when the episode happened (UTC)
	Seq               int64     // position in its source, the last part of the order key
	RecordKey         string    // the source record's key, or a content hash
	IngestedAt        time.Time // record time of the first ingest (UTC); set by the store
	Record            *Record   // what ingest read from a JSON record besides its content; nil for others
	// Origin is the job source the episode was read from (its sources[].path), which ingest
	// stores for sources[].sync: mirror; episodes read back from the store leave it empty.
	Origin string
}

// Entity is a canonical node of a group.
type Entity struct {
	UUID          string
	GroupID       string
	Name          string
	Summary       string
	Labels        []string // custom type labels besides "Entity", sorted
	Attributes    map[string]any
	CreatedAt     time.Time
	NameEmbedding []float32
}

// Fact is a RELATES_TO edge: a statement between two entities with its bi-temporal interval.
type Fact struct {
	UUID          string
	GroupID       string
	SourceUUID    string
	TargetUUID    string
	Name          string // predicate, SCREAMING_SNAKE_CASE
	Fact          string // one natural-language sentence
	Episodes      []string
	CreatedAt     time.Time
	ExpiredAt     *time.Time
	ValidAt       *time.Time
	InvalidAt     *time.Time
	ReferenceTime time.Time
	Embedding     []float32
}

// Mention links an episode to an entity it mentions.
type Mention struct {
	UUID        string
	GroupID     string
	EpisodeUUID string
	EntityUUID  string
	CreatedAt   time.Time
}

// Community is a cluster of entities of one group.
type Community struct {
	UUID          string
	GroupID       string
	Name          string
	Summary       string
	Members       []string // entity uuids, sorted
	CreatedAt     time.Time
	NameEmbedding []float32
}

// FactVersion is one row of the fact version log: the state of a fact's interval as the system
// knew it from RecordTime on.
type FactVersion struct {
	FactUUID    string
	GroupID     string
	Seq         int // 0 for the creation, then 1, 2, … per change
	RecordTime  time.Time
	ValidAt     *time.Time
	InvalidAt   *time.Time
	ExpiredAt   *time.Time
	EpisodeUUID string // the episode whose processing caused the change
	Reason      string // Reason…: why this version was recorded
}

// Reasons of the fact version log (FactVersion.Reason), as the temporal stage records them
// (the time rules, docs/concepts.md) and the read side (eval, diff, query) reads them.
const (
	ReasonCreated            = "created"               // recorded open
	ReasonArrivedClosed      = "arrived_closed"        // ①: recorded with its own invalid_at
	ReasonClosedByLaterStart = "closed_by_later_start" // ②: recorded closed by a fact that starts later
	ReasonClosedByNewer      = "closed_by_newer"       // ③: an already recorded fact closed (or closed earlier)
	ReasonClosedByRecord     = "closed_by_record"      // a later snapshot no longer shows a declared fact
)
