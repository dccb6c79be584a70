package cypher

import (
	"fmt"
	"slices"
	"strings"
)

// RowsPrefix starts every batch statement: the rows come from the $rows parameter. A caller that
// writes the rows as a literal replaces it with "UNWIND [ … ] AS row ".
const RowsPrefix = "UNWIND $rows AS row "

// Labels and relationship types of the Graphiti schema.
const (
	LabelEntity     = "Entity"
	LabelEpisodic   = "Episodic"
	LabelCommunity  = "Community"
	TypeRelatesTo   = "RELATES_TO"
	TypeMentions    = "MENTIONS"
	TypeHasMember   = "HAS_MEMBER"
	mergeNodeFormat = RowsPrefix + "MERGE (n:%s {uuid: row.uuid}) SET n = row.props"
	mergeEdgeFormat = RowsPrefix + "MATCH (a:%s {uuid: row.source}) MATCH (b:%s {uuid: row.target}) " +
		"MERGE (a)-[r:%s {uuid: row.uuid}]->(b) SET r = row.props"
)

// NodeMerge returns the batch statement that MERGEs nodes of label by uuid, replaces their
// properties with row.props and adds extraLabels. extraLabels are sorted and de-duplicated, and
// label itself is dropped from them, so the text depends only on the label set.
func NodeMerge(d Dialect, label string, extraLabels ...string) (string, error) {
	if _, err := ParseDialect(string(d)); err != nil {
		return "", fmt.Errorf("building node statement: %w", err)
	}
	if !ValidIdentifier(label) {
		return "", fmt.Errorf("building node statement: invalid label %q", label)
	}
	extra := NormalizeLabels(label, extraLabels)
	for _, l := range extra {
		if !ValidIdentifier(l) {
			return "", fmt.Errorf("building node statement: invalid label %q", l)
		}
	}
	s := fmt.Sprintf(mergeNodeFormat, label)
	if len(extra) > 0 {
		s += " SET n:" + strings.Join(extra, ":")
	}
	return s, nil
}

// EdgeMerge returns the batch statement that MATCHes the endpoints (fromLabel by row.source,
// toLabel by row.target), MERGEs a relType relationship between them by uuid and replaces its
// properties with row.props.
func EdgeMerge(d Dialect, relType, fromLabel, toLabel string) (string, error) {
	if _, err := ParseDialect(string(d)); err != nil {
		return "", fmt.Errorf("building edge statement: %w", err)
	}
	for _, id := range []string{relType, fromLabel, toLabel} {
		if !ValidIdentifier(id) {
			return "", fmt.Errorf("building edge statement: invalid identifier %q", id)
		}
	}
	return fmt.Sprintf(mergeEdgeFormat, fromLabel, toLabel, relType), nil
}

// NormalizeLabels returns labels sorted, de-duplicated and without base and empty strings.
func NormalizeLabels(base string, labels []string) []string {
	out := make([]string, 0, len(labels))
	for _, l := range labels {
		if l != "" && l != base {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// EpisodeMerge is the statement for Episodic rows (EpisodeRow).
func EpisodeMerge(d Dialect) (string, error) { return NodeMerge(d, LabelEpisodic) }

// EntityMerge is the statement for Entity rows whose extra labels are labels (EntityLabels).
func EntityMerge(d Dialect, labels []string) (string, error) {
	return NodeMerge(d, LabelEntity, labels...)
}

// CommunityMerge is the statement for Community rows (CommunityRow).
func CommunityMerge(d Dialect) (string, error) { return NodeMerge(d, LabelCommunity) }

// FactMerge is the statement for RELATES_TO rows (FactRow).
func FactMerge(d Dialect) (string, error) {
	return EdgeMerge(d, TypeRelatesTo, LabelEntity, LabelEntity)
}

// MentionMerge is the statement for MENTIONS rows (MentionRow).
func MentionMerge(d Dialect) (string, error) {
	return EdgeMerge(d, TypeMentions, LabelEpisodic, LabelEntity)
}

// HasMemberMerge is the statement for HAS_MEMBER rows (HasMemberRows).
func HasMemberMerge(d Dialect) (string, error) {
	return EdgeMerge(d, TypeHasMember, LabelCommunity, LabelEntity)
}
