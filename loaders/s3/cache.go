package s3

import "sync"

// blockCache holds up to max blocks of one object, evicting the least recently used.
type blockCache struct {
	mu     sync.Mutex
	max    int
	tick   uint64
	blocks []cachedBlock
}

type cachedBlock struct {
	idx  int64
	data []byte
	used uint64 // tick of the last get or put
}

func newBlockCache(max int) *blockCache {
	return &blockCache{max: max}
}

// get returns block idx and marks it used.
func (c *blockCache) get(idx int64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.blocks {
		if c.blocks[i].idx == idx {
			c.tick++
			c.blocks[i].used = c.tick
			return c.blocks[i].data, true
		}
	}
	return nil, false
}

// put stores block idx, replacing an entry for the same block or else evicting the least
// recently used block when the cache is full.
func (c *blockCache) put(idx int64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tick++
	slot := -1
	for i := range c.blocks {
		if c.blocks[i].idx == idx {
			slot = i
			break
		}
	}
	if slot < 0 && len(c.blocks) < c.max {
		c.blocks = append(c.blocks, cachedBlock{})
		slot = len(c.blocks) - 1
	}
	if slot < 0 {
		slot = 0
		for i := range c.blocks {
			if c.blocks[i].used < c.blocks[slot].used {
				slot = i
			}
		}
	}
	c.blocks[slot] = cachedBlock{idx: idx, data: data, used: c.tick}
}

// clear drops every block.
func (c *blockCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.blocks = nil
}
