package main

import "container/list"

// stillCacheBytes bounds the stills kept drawn: 32 MiB holds about three
// thousand of the playground's usual stills (an SVG of 5-12 KB with its
// gzip of 2-4 KB), every scene of a busy day at every frame size its
// visitors have, while the biggest (a 4096-pixel frame full of cells,
// about a megabyte) still leaves room for dozens.
const stillCacheBytes = 32 << 20

// stillCache keeps the answers to the most recently asked stills, by
// their canonical query (stillQuery.key), least recently used first out,
// their bytes (stillAnswer.size) at most max in all. An answer larger
// than max is not kept. It is not safe for concurrent use: stillServer
// holds its lock around every call.
type stillCache struct {
	max, bytes int
	order      *list.List               // of *stillCacheItem, most recently used at the front
	items      map[string]*list.Element // by key
}

type stillCacheItem struct {
	key    string
	answer *stillAnswer
}

func newStillCache(max int) *stillCache {
	return &stillCache{max: max, order: list.New(), items: map[string]*list.Element{}}
}

// get returns the answer kept for key, now the most recently used.
func (c *stillCache) get(key string) (*stillAnswer, bool) {
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*stillCacheItem).answer, true
}

// add keeps a for key (replacing what was kept for it), then lets the
// least recently used answers go until the bytes fit max.
func (c *stillCache) add(key string, a *stillAnswer) {
	if e, ok := c.items[key]; ok {
		c.remove(e)
	}
	if stillCacheCost(key, a) > c.max {
		return
	}
	c.items[key] = c.order.PushFront(&stillCacheItem{key, a})
	c.bytes += stillCacheCost(key, a)
	for c.bytes > c.max {
		c.remove(c.order.Back())
	}
}

func (c *stillCache) remove(e *list.Element) {
	it := c.order.Remove(e).(*stillCacheItem)
	delete(c.items, it.key)
	c.bytes -= stillCacheCost(it.key, it.answer)
}

// stillCacheCost is what an answer costs the cache: its bytes and its
// key's, plus 200 for the list element, the map entry and the answer's
// headers (so that a flood of tiny answers, a bad query's error each,
// is bounded too).
func stillCacheCost(key string, a *stillAnswer) int { return len(key) + a.size() + 200 }
