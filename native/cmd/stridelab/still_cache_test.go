package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestStillCache: the cache keeps the most recently used answers whose
// costs fit its bound, a get counting as a use; an answer larger than
// the bound is not kept; adding a key again replaces its answer.
func TestStillCache(t *testing.T) {
	answer := func(n int) *stillAnswer { return &stillAnswer{svg: bytes.Repeat([]byte("x"), n)} }
	// Each answer below costs 1 (its key) + its bytes + 200.
	for _, c := range []struct {
		max  int
		ops  string // "+k N" adds an answer of N bytes for k, "?k" gets k
		want []string
	}{
		{1000, "+a 99 +b 99 +c 99", []string{"a", "b", "c"}},
		{1000, "+a 99 +b 99 +c 99 +d 99", []string{"b", "c", "d"}},
		{1000, "+a 99 +b 99 +c 99 ?a +d 99", []string{"a", "c", "d"}},
		{1000, "+a 99 +b 99 +c 99 ?a ?b +d 99", []string{"a", "b", "d"}},
		{1000, "+a 99 +b 99 +c 99 +b 499", []string{"b", "c"}},
		{1000, "+a 99 +b 800", []string{"a"}},
		{1000, "+a 99 +b 799", []string{"b"}},
		{1000, "+a 99 +b 2000", []string{"a"}},
		{1000, "+a 99 +a 2000", []string{}},
		{1000, "?a", []string{}},
	} {
		cache := newStillCache(c.max)
		ops := strings.Fields(c.ops)
		for i := 0; i < len(ops); i++ {
			k := ops[i][1:]
			switch ops[i][0] {
			case '+':
				n := 0
				for _, d := range ops[i+1] {
					n = 10*n + int(d-'0')
				}
				i++
				cache.add(k, answer(n))
			case '?':
				cache.get(k)
			}
		}
		var got []string
		for k := range cache.items {
			got = append(got, k)
		}
		slices.Sort(got)
		sum := 0
		for e := cache.order.Front(); e != nil; e = e.Next() {
			it := e.Value.(*stillCacheItem)
			sum += stillCacheCost(it.key, it.answer)
		}
		if !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 || cache.order.Len() != len(got) || sum != cache.bytes || cache.bytes > c.max {
			t.Errorf("max %d, %s: keeps %q (%d in the list), %d bytes counted, %d summed; want %q within %d", c.max, c.ops, got, cache.order.Len(), cache.bytes, sum, c.want, c.max)
		}
	}
}
