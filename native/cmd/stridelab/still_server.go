package main

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stridelab/stridelab/web"
)

// The still server: what GET /scene.svg costs, and who waits for it.
//
// Anyone who can reach the server can ask for stills, and a still can
// take seconds of CPU (a program's scene plans the program; the exact
// search alone may take two), so:
//
//   - a still is drawn at most once per canonical query (stillQuery.key)
//     while it is cached: the answers, errors included, are kept in an LRU
//     of stillCacheBytes, and a request for a still being drawn or queued
//     waits for that draw instead of starting its own;
//   - its ETag is its build's and query's (stillETag), so a revalidation
//     is a 304 with no draw;
//   - at most slots draws hold a slot at once; the others wait in a queue
//     of at most queueLen, oldest first; past that a request is a 503
//     with Retry-After at once;
//   - a queued draw whose every client has left (hung up, or waited its
//     wait) is dropped from the queue, never drawn;
//   - a request waits at most wait, queue and draw together, then is a
//     503 with Retry-After.
//
// A draw runs under a context of its own (viz.BuildContext: the part
// of a still that can take long is planning its program, and the planner
// reads the context between ops and every few thousand steps of the
// exact search, about a millisecond apart). It is cancelled when the
// draw's last client leaves, and it ends stillDrawBound after the draw
// starts; a draw so stopped is answered 503 to whoever still waits and
// is not cached. (So a still that takes longer to draw than its visitor
// waits, stillWait, is never cached: the live frame draws it.) Go code
// is not pre-empted, so a stopped draw keeps its
// slot until its next check, and only then does the queue move on: so
// at most slots draws run at once, and an abandoned one for a
// millisecond or so. (Handing a cancelled draw's slot to the queue at
// once, while it runs on unwatched, was worse: when 200 clients hang up
// together the server learns of each a moment apart, and every slot
// handed on started the next heavy draw about to be abandoned;
// BenchmarkStillAfterAbandoned measured the visitor's small still at
// 26-34 ms on average with room for 1 or 2 such draws a slot, 8.5 ms
// with none.)

// Defaults for the stills the server draws.
const (
	// stillWait bounds a request's wait: the page shows a still only
	// while its live frame starts (about 2.3 s after navigation, and
	// the frame waits at most 2 s for the still), so a still later than
	// 3 s is of no use to the visitor who asked. A draw nobody waits for
	// any more stops (see above).
	stillWait = 3 * time.Second
	// stillQueueLen bounds the draws waiting for a slot: 32 of the usual
	// 5-10 ms stills wait at most about 0.3 s on one slot, and each waiting
	// request holds a connection, a goroutine and its query.
	stillQueueLen = 32
	// stillRetryBusy is the Retry-After of a full queue: the usual
	// stills drain it in well under a second.
	stillRetryBusy = 1
	// stillDrawBound bounds a draw's time, whoever waits for it: a still
	// is of use for the first 3 s of a page (stillWait), and one drawn
	// for a later visitor is worth at most a few seconds of a core. The
	// largest plans the exact search takes run about a second here.
	stillDrawBound = 5 * time.Second
)

// errStillBusy is stillServer.answer's error when the queue is full.
var errStillBusy = errors.New("scene.svg: the server is drawing as many stills as it queues; try again in a second")

// stillServer answers GET /scene.svg (see above) and passes every other
// request to site.
type stillServer struct {
	site  http.Handler
	draw  func(ctx context.Context, hash string, w, h int) (still, error) // drawStill, or a test's
	build string                                                          // stillBuild(), for the ETags
	wait  time.Duration                                                   // a request's wait for its still, at most
	bound time.Duration                                                   // a draw's time, at most
	// slots and queueLen bound the draws that run (each holds a slot)
	// and the draws that wait for one.
	slots, queueLen int

	mu      sync.Mutex
	cache   *stillCache
	calls   map[string]*stillCall // every draw queued or running, by key
	queue   *list.List            // of *stillCall waiting for a slot, oldest first
	drawing int                   // draws that hold a slot
}

// stillCall is one draw of one key: queued, then running, then done (its
// answer set and done closed), with the requests that wait for it.
type stillCall struct {
	q       stillQuery
	key     string
	clients []context.Context  // of the requests that wait for it
	queued  *list.Element      // its place in the queue, nil once it runs or is dropped
	stop    context.CancelFunc // cancels the draw's context (set once it runs)
	done    chan struct{}      // closed when answer is set
	answer  *stillAnswer
}

// stillAnswer is what a canonical query gets: its still's SVG, gzip and
// title, or the error that says why it has none: errNoStill (204),
// what was wrong with the query (400), or, with internal set, a draw
// that failed (500, never cached).
type stillAnswer struct {
	svg, gz  []byte
	title    string
	err      error
	internal bool
	stopped  bool // the draw's context ended it: 503, never cached
}

// size is the bytes an answer holds.
func (a *stillAnswer) size() int {
	n := len(a.svg) + len(a.gz) + len(a.title)
	if a.err != nil {
		n += len(a.err.Error())
	}
	return n
}

// withStills answers GET /scene.svg?w=W&h=H&hash=HASH with drawStill's
// SVG, as stillServer says, and passes every other request to site.
func withStills(site http.Handler) http.Handler {
	return newStillServer(site, drawStill, stillBuild())
}

// newStillServer is a still server with the defaults: a slot per core
// (so a burst of requests queues instead of taking the machine), room
// stillQueueLen,
// stillWait, stillDrawBound and stillCacheBytes.
func newStillServer(site http.Handler, draw func(ctx context.Context, hash string, w, h int) (still, error), build string) *stillServer {
	n := runtime.GOMAXPROCS(0)
	return &stillServer{site: site, draw: draw, build: build, wait: stillWait, bound: stillDrawBound,
		slots: n, queueLen: stillQueueLen,
		cache: newStillCache(stillCacheBytes), calls: map[string]*stillCall{}, queue: list.New()}
}

// ServeHTTP answers /scene.svg. The title goes in X-Scene-Title,
// percent-escaped (the page's alt text). A lesson's link is a 204 (no
// still, errNoStill); bad input is a 400 whose body is the error; a full
// queue or a still not drawn within the wait is a 503 with Retry-After.
// A still is revalidated (no-cache) like the site's files, with a tag
// per encoding (Vary: Accept-Encoding).
func (s *stillServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.EscapedPath() != "/scene.svg" {
		s.site.ServeHTTP(w, r)
		return
	}
	h := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method "+r.Method+" not allowed: GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	q, err := parseStillQuery(r.URL.RawQuery)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	key := q.key()
	gz := web.Accepts(r.Header.Get("Accept-Encoding"), "gzip")
	tag := stillETag(s.build, key, gz)
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	if web.ETagMatches(r.Header.Get("If-None-Match"), strings.Trim(stillETag(s.build, key, false), `"`)) {
		h.Set("ETag", tag)
		if a, ok := s.cached(key); ok && a.err == nil {
			h.Set("X-Scene-Title", url.PathEscape(a.title))
		}
		w.WriteHeader(http.StatusNotModified)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.wait)
	defer cancel()
	a, err := s.answer(ctx, q, key)
	switch {
	case errors.Is(err, errStillBusy):
		h.Set("Retry-After", strconv.Itoa(stillRetryBusy))
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	case r.Context().Err() != nil:
		return // the client has left: nobody to answer
	case err != nil:
		// The wait is over; the draw stops if nobody else waits for it.
		h.Set("Retry-After", strconv.Itoa(int((s.wait+time.Second-1)/time.Second)))
		http.Error(w, fmt.Sprintf("scene.svg: the still of %s was not drawn within %v (the server is busy, or the scene is large); try again later", key, s.wait), http.StatusServiceUnavailable)
		return
	case errors.Is(a.err, errNoStill):
		w.WriteHeader(http.StatusNoContent)
		return
	case a.stopped:
		h.Set("Retry-After", strconv.Itoa(int((s.wait+time.Second-1)/time.Second)))
		http.Error(w, a.err.Error(), http.StatusServiceUnavailable)
		return
	case a.internal:
		http.Error(w, a.err.Error(), http.StatusInternalServerError)
		return
	case a.err != nil:
		http.Error(w, a.err.Error(), http.StatusBadRequest)
		return
	}
	body := a.svg
	if gz {
		body = a.gz
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Type", "image/svg+xml")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", tag)
	h.Set("X-Scene-Title", url.PathEscape(a.title))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// cached returns the cached answer for key, if any.
func (s *stillServer) cached(key string) (*stillAnswer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache.get(key)
}

// answer returns the answer to q (whose key is key): the cached one, or
// that of the draw of key under way or queued, or of a new draw, queued
// if every slot is taken; errStillBusy when the queue is full; ctx's
// error when ctx ends first (the call is left, and dropped if queued and
// nobody else waits for it).
func (s *stillServer) answer(ctx context.Context, q stillQuery, key string) (*stillAnswer, error) {
	s.mu.Lock()
	if a, ok := s.cache.get(key); ok {
		s.mu.Unlock()
		return a, nil
	}
	c := s.calls[key]
	if c == nil {
		if s.drawing >= s.slots && s.queue.Len() >= s.queueLen {
			s.mu.Unlock()
			return nil, errStillBusy
		}
		c = &stillCall{q: q, key: key, clients: []context.Context{ctx}, done: make(chan struct{})}
		s.calls[key] = c
		c.queued = s.queue.PushBack(c)
		s.next()
	} else {
		c.clients = append(c.clients, ctx)
	}
	s.mu.Unlock()
	select {
	case <-c.done:
		return c.answer, nil
	case <-ctx.Done():
		s.leave(c, ctx)
		return nil, ctx.Err()
	}
}

// leave takes the request whose context is ctx off c. The last one to
// leave drops c from the queue if it is there, and if c is running,
// cancels its draw (which gives its slot up when it returns).
func (s *stillServer) leave(c *stillCall, ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(c.clients, ctx); i >= 0 {
		c.clients = slices.Delete(c.clients, i, i+1)
	}
	if len(c.clients) > 0 || c.answer != nil {
		return
	}
	if c.queued != nil {
		s.queue.Remove(c.queued)
		c.queued = nil
		delete(s.calls, c.key)
		return
	}
	if c.stop == nil {
		return // dropped from the queue by next, never run
	}
	c.stop() // running: it stops at its next check, holding its slot till then
	if s.calls[c.key] == c {
		delete(s.calls, c.key) // a request that comes now starts a draw of its own
	}
}

// next starts the queue's oldest draws while slots are free, dropping
// those whose clients have all gone though not all have left yet: when
// many hang up at once (an attack), the server learns of each a moment
// apart, and a slot freed by the first must not go to the next one
// about to leave. s.mu is held.
func (s *stillServer) next() {
	for s.drawing < s.slots && s.queue.Len() > 0 {
		c := s.queue.Remove(s.queue.Front()).(*stillCall)
		c.queued = nil
		if !slices.ContainsFunc(c.clients, func(ctx context.Context) bool { return ctx.Err() == nil }) {
			delete(s.calls, c.key)
			continue
		}
		s.drawing++
		ctx, stop := context.WithTimeout(context.Background(), s.bound)
		c.stop = stop
		go s.run(ctx, c)
	}
}

// run draws c under ctx, caches its answer unless the draw failed or was
// stopped, wakes its waiters and frees its slot for the queue.
func (s *stillServer) run(ctx context.Context, c *stillCall) {
	a := s.drawAnswer(ctx, c)
	s.mu.Lock()
	defer s.mu.Unlock()
	c.stop()
	if !a.internal && !a.stopped {
		s.cache.add(c.key, a)
	}
	c.answer = a
	close(c.done)
	if s.calls[c.key] == c {
		delete(s.calls, c.key)
	}
	s.drawing--
	s.next()
}

// drawAnswer draws c's still with its gzip (level 6, as the site's
// files: drawn once and cached, the level past BestSpeed costs a
// fraction of the draw), or says why not; a panic in the draw is an
// internal error, not the end of the server.
// A draw that its context ended (its clients left, or it passed
// s.bound) is stopped.
func (s *stillServer) drawAnswer(ctx context.Context, c *stillCall) (a *stillAnswer) {
	defer func() {
		if p := recover(); p != nil {
			a = &stillAnswer{err: fmt.Errorf("scene.svg: drawing %s failed: %v", c.key, p), internal: true}
		}
	}()
	st, err := s.draw(ctx, c.q.hash, c.q.w, c.q.h)
	if err != nil && ctx.Err() != nil {
		return &stillAnswer{err: fmt.Errorf("scene.svg: the still of %s was stopped (it took longer than %v, or nobody waited for it); try again later", c.key, s.bound), stopped: true}
	}
	if err != nil {
		return &stillAnswer{err: err}
	}
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression) // the level is valid
	z.Write(st.svg)                                          // a bytes.Buffer does not fail
	z.Close()
	return &stillAnswer{svg: st.svg, gz: b.Bytes(), title: st.title}
}

// load says how many draws hold a slot and how many wait for one (for
// tests and benchmarks).
func (s *stillServer) load() (drawing, queued int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.drawing, s.queue.Len()
}

// stillQuery is a /scene.svg query: the frame's CSS size and the URL
// hash of the scene.
type stillQuery struct {
	w, h int
	hash string
}

// parseStillQuery reads a /scene.svg query (w, h and hash; other keys
// are ignored), checking the size.
func parseStillQuery(rawQuery string) (stillQuery, error) {
	v, err := url.ParseQuery(rawQuery)
	if err != nil {
		return stillQuery{}, fmt.Errorf("scene.svg: query %q: %v", rawQuery, err)
	}
	var size [2]int
	for i, k := range []string{"w", "h"} {
		if size[i], err = strconv.Atoi(v.Get(k)); err != nil {
			return stillQuery{}, fmt.Errorf("scene.svg: %s=%q: give the frame's CSS size as whole numbers, e.g. ?w=640&h=360&hash=…", k, v.Get(k))
		}
	}
	if err := checkStillSize(size[0], size[1]); err != nil {
		return stillQuery{}, err
	}
	return stillQuery{w: size[0], h: size[1], hash: v.Get("hash")}, nil
}

// key is q in one spelling, w, h and hash in that order, the numbers in
// decimal and the hash query-escaped ("#" and "" are the same scene), so
// that every spelling of one query shares its cache entry and ETag.
func (q stillQuery) key() string {
	hash := q.hash
	if hash == "#" {
		hash = ""
	}
	return fmt.Sprintf("w=%d&h=%d&hash=%s", q.w, q.h, url.QueryEscape(hash))
}
