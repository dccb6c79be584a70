package checkpoints

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
)

// EntityRef names an entity of the graph state.
type EntityRef struct {
	UUID    string `json:"uuid"`
	GroupID string `json:"group_id"`
	Name    string `json:"name"`
}

// FactRef names a fact of the graph state.
type FactRef struct {
	UUID    string `json:"uuid"`
	GroupID string `json:"group_id"`
	Name    string `json:"name"`
	Fact    string `json:"fact"`
}

// Impact is what forgetting some episodes takes with it by Graphiti's rule (remove_episode):
// the entities only those episodes mention and the facts only they support, and the cached
// answers the units of their groups asked (Forget keeps those the recomputed groups ask again).
type Impact struct {
	Groups    []string    `json:"groups"`
	Entities  []EntityRef `json:"entities"`
	Facts     []FactRef   `json:"facts"`
	CacheRows int         `json:"cache_rows"` // cached answers the groups' units asked
}

// Impact computes the Impact of forgetting the episodes, reading one group at a time.
func (s *Store) Impact(ctx context.Context, eps []EpisodeRef) (Impact, error) {
	var im Impact
	gone := map[string]bool{}
	byGroup := map[string]bool{}
	for _, e := range eps {
		gone[e.UUID] = true
		if !byGroup[e.GroupID] {
			byGroup[e.GroupID] = true
			im.Groups = append(im.Groups, e.GroupID)
		}
	}
	sort.Strings(im.Groups)
	for _, g := range im.Groups {
		ents, err := s.onlyMentionedBy(ctx, g, gone)
		if err != nil {
			return im, err
		}
		im.Entities = append(im.Entities, ents...)
		facts, err := s.onlySupportedBy(ctx, g, gone)
		if err != nil {
			return im, err
		}
		im.Facts = append(im.Facts, facts...)
		n, err := s.count(ctx, `SELECT count(*) FROM llm_cache_groups WHERE group_id = ?`, g)
		if err != nil {
			return im, err
		}
		im.CacheRows += n
	}
	return im, nil
}

// onlyMentionedBy returns the entities of group whose every mention is by an episode of gone.
func (s *Store) onlyMentionedBy(ctx context.Context, group string, gone map[string]bool) ([]EntityRef, error) {
	only := map[string]bool{}
	err := s.each(ctx, "mentions", `SELECT episode_uuid, entity_uuid FROM mentions WHERE group_id = ?`, []any{group},
		func(r *sql.Rows) error {
			var ep, ent string
			if err := r.Scan(&ep, &ent); err != nil {
				return err
			}
			if v, seen := only[ent]; !seen || v {
				only[ent] = gone[ep]
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	var out []EntityRef
	err = s.each(ctx, "entities", `SELECT uuid, name FROM entities WHERE group_id = ? ORDER BY uuid`, []any{group},
		func(r *sql.Rows) error {
			e := EntityRef{GroupID: group}
			if err := r.Scan(&e.UUID, &e.Name); err != nil {
				return err
			}
			if only[e.UUID] {
				out = append(out, e)
			}
			return nil
		})
	return out, err
}

// onlySupportedBy returns the facts of group whose every supporting episode is in gone.
func (s *Store) onlySupportedBy(ctx context.Context, group string, gone map[string]bool) ([]FactRef, error) {
	var out []FactRef
	err := s.each(ctx, "facts", `SELECT uuid, name, fact, episodes FROM facts WHERE group_id = ? ORDER BY uuid`, []any{group},
		func(r *sql.Rows) error {
			f := FactRef{GroupID: group}
			var eps string
			if err := r.Scan(&f.UUID, &f.Name, &f.Fact, &eps); err != nil {
				return err
			}
			var list []string
			if err := json.Unmarshal([]byte(eps), &list); err != nil {
				return err
			}
			for _, e := range list {
				if !gone[e] {
					return nil
				}
			}
			if len(list) > 0 {
				out = append(out, f)
			}
			return nil
		})
	return out, err
}
