package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Namespace is the UUIDv5 namespace of every id backfill makes.
var Namespace = uuid.MustParse("5b6f0e3c-7a1d-5f4e-9c2b-8d3a1e6f4b20")

func id(kind string, parts ...string) string {
	key := kind + "\x1f" + strings.Join(parts, "\x1f")
	return uuid.NewSHA1(Namespace, []byte(key)).String()
}

// EpisodeID is the id of an episode with a source record key.
func EpisodeID(groupID, recordKey string) string { return id("episode", groupID, recordKey) }

// ContentKey is the record key of an episode without one: a hash of group, reference time, speaker
// and body.
func ContentKey(groupID string, ref time.Time, speaker, body string) string {
	h := sha256.New()
	for _, s := range []string{groupID, ref.UTC().Format(time.RFC3339Nano), speaker, body} {
		h.Write([]byte(s))
		h.Write([]byte{0x1f})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// EntityID is the id of an entity: its group and the canonical name of its cluster's earliest
// mention.
func EntityID(groupID, canonicalName string) string { return id("entity", groupID, canonicalName) }

// FactID is the id of a fact: group, endpoints, predicate and normalized fact text.
func FactID(groupID, sourceUUID, targetUUID, predicate, normalizedFact string) string {
	return id("fact", groupID, sourceUUID, targetUUID, predicate, normalizedFact)
}

// DeclaredFactID is the id of a fact declared by record fields (sources[].facts): group, the
// object whose snapshots state it, endpoints, predicate, normalized fact text and the episode
// that first showed it, so a statement that returns after it was closed is a new fact.
func DeclaredFactID(groupID, object, sourceUUID, targetUUID, predicate, normalizedFact, episodeUUID string) string {
	return id("declared_fact", groupID, object, sourceUUID, targetUUID, predicate, normalizedFact, episodeUUID)
}

// MentionID is the id of the MENTIONS edge between an episode and an entity.
func MentionID(episodeUUID, entityUUID string) string { return id("mention", episodeUUID, entityUUID) }

// CommunityID is the id of a community: its group and its members (order does not matter).
func CommunityID(groupID string, memberUUIDs []string) string {
	m := append([]string(nil), memberUUIDs...)
	sort.Strings(m)
	return id("community", append([]string{groupID}, m...)...)
}

// HasMemberID is the id of the HAS_MEMBER edge between a community and an entity.
func HasMemberID(communityUUID, entityUUID string) string {
	return id("has_member", communityUUID, entityUUID)
}
