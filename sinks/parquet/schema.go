package parquet

import "time"

// EpisodeRow is a row of episodes.parquet.
type EpisodeRow struct {
	UUID              string    `parquet:"uuid"`
	GroupID           string    `parquet:"group_id,dict"`
	Name              string    `parquet:"name"`
	Source            string    `parquet:"source,dict"`
	SourceDescription string    `parquet:"source_description,dict"`
	Content           string    `parquet:"content"`
	Speaker           *string   `parquet:"speaker,optional"`
	EntityEdges       []string  `parquet:"entity_edges,list"`
	CreatedAt         time.Time `parquet:"created_at,timestamp(microsecond)"`
	ValidAt           time.Time `parquet:"valid_at,timestamp(microsecond)"`
	Seq               int64     `parquet:"seq"`
	RecordKey         string    `parquet:"record_key"`
}

// EntityRow is a row of entities.parquet.
type EntityRow struct {
	UUID          string    `parquet:"uuid"`
	GroupID       string    `parquet:"group_id,dict"`
	Name          string    `parquet:"name"`
	Summary       string    `parquet:"summary"`
	Labels        []string  `parquet:"labels,list"`
	Attributes    *string   `parquet:"attributes,optional"`
	CreatedAt     time.Time `parquet:"created_at,timestamp(microsecond)"`
	NameEmbedding []float32 `parquet:"name_embedding,optional,list"`
}

// FactRow is a row of facts.parquet (RELATES_TO edges).
type FactRow struct {
	UUID           string     `parquet:"uuid"`
	GroupID        string     `parquet:"group_id,dict"`
	SourceNodeUUID string     `parquet:"source_node_uuid"`
	TargetNodeUUID string     `parquet:"target_node_uuid"`
	Name           string     `parquet:"name,dict"`
	Fact           string     `parquet:"fact"`
	Episodes       []string   `parquet:"episodes,list"`
	CreatedAt      time.Time  `parquet:"created_at,timestamp(microsecond)"`
	ExpiredAt      *time.Time `parquet:"expired_at,optional,timestamp(microsecond)"`
	ValidAt        *time.Time `parquet:"valid_at,optional,timestamp(microsecond)"`
	InvalidAt      *time.Time `parquet:"invalid_at,optional,timestamp(microsecond)"`
	ReferenceTime  time.Time  `parquet:"reference_time,timestamp(microsecond)"`
	FactEmbedding  []float32  `parquet:"fact_embedding,optional,list"`
}

// FactVersionRow is a row of fact_versions.parquet.
type FactVersionRow struct {
	FactUUID    string     `parquet:"fact_uuid"`
	GroupID     string     `parquet:"group_id,dict"`
	Seq         int64      `parquet:"seq"`
	RecordTime  time.Time  `parquet:"record_time,timestamp(microsecond)"`
	ValidAt     *time.Time `parquet:"valid_at,optional,timestamp(microsecond)"`
	InvalidAt   *time.Time `parquet:"invalid_at,optional,timestamp(microsecond)"`
	ExpiredAt   *time.Time `parquet:"expired_at,optional,timestamp(microsecond)"`
	EpisodeUUID string     `parquet:"episode_uuid"`
	Reason      string     `parquet:"reason,dict"`
}

// EdgeRow is a row of mentions.parquet and has_member.parquet.
type EdgeRow struct {
	UUID           string    `parquet:"uuid"`
	GroupID        string    `parquet:"group_id,dict"`
	SourceNodeUUID string    `parquet:"source_node_uuid"`
	TargetNodeUUID string    `parquet:"target_node_uuid"`
	CreatedAt      time.Time `parquet:"created_at,timestamp(microsecond)"`
}

// CommunityRow is a row of communities.parquet.
type CommunityRow struct {
	UUID          string    `parquet:"uuid"`
	GroupID       string    `parquet:"group_id,dict"`
	Name          string    `parquet:"name"`
	Summary       string    `parquet:"summary"`
	CreatedAt     time.Time `parquet:"created_at,timestamp(microsecond)"`
	NameEmbedding []float32 `parquet:"name_embedding,optional,list"`
}
