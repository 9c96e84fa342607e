package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// stubDraw stands in for drawStill: it counts the draws of each hash; a
// hash that starts with "#/block" waits until gate is closed (as a draw
// that does not read its context), one that starts with "#/stop" waits
// until its context ends and says so on stopped (as a plan that reads
// it), "#/bad" is a bad link and "#/panic" panics.
type stubDraw struct {
	mu      sync.Mutex
	n       map[string]int
	gate    chan struct{}
	stopped chan error
}

func newStubDraw() *stubDraw {
	return &stubDraw{n: map[string]int{}, gate: make(chan struct{}), stopped: make(chan error, 8)}
}

func (d *stubDraw) draw(ctx context.Context, hash string, w, h int) (still, error) {
	d.mu.Lock()
	d.n[hash]++
	d.mu.Unlock()
	switch {
	case strings.HasPrefix(hash, "#/block"):
		<-d.gate
	case strings.HasPrefix(hash, "#/stop"):
		<-ctx.Done()
		d.stopped <- ctx.Err()
		return still{}, fmt.Errorf("scene.svg: planning stopped: %w", ctx.Err())
	case hash == "#/bad":
		return still{}, errors.New("scene.svg: viz: unknown scene \"bad\"")
	case hash == "#/panic":
		panic("drawn off the edge")
	}
	svg := fmt.Sprintf("<svg width=%q height=%q>%s%s</svg>", fmt.Sprint(w), fmt.Sprint(h), hash, strings.Repeat("<g/>", 500))
	return still{svg: []byte(svg), title: "title of " + hash}, nil
}

// draws is how many times hash was drawn; with no hash, all draws.
func (d *stubDraw) draws(hash ...string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for h, k := range d.n {
		if len(hash) == 0 || h == hash[0] {
			n += k
		}
	}
	return n
}

// stillURL is the /scene.svg URL of hash at 640×400.
func stillURL(hash string) string { return "/scene.svg?w=640&h=400&hash=" + url.QueryEscape(hash) }

// ask sends a request to s as from a client whose ctx ends when it
// leaves, with headers (name, value, …), and returns a channel that gets
// the answer once ServeHTTP returns.
func ask(s http.Handler, ctx context.Context, target string, headers ...string) <-chan *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", target, nil).WithContext(ctx)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	out := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		out <- rec
	}()
	return out
}

// answered waits for an answer from ask: a server that has not answered
// in 10 s is one that waits for something that will not come.
func answered(t *testing.T, what string, ch <-chan *httptest.ResponseRecorder) *httptest.ResponseRecorder {
	t.Helper()
	select {
	case rec := <-ch:
		return rec
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no answer after 10 s", what)
		return nil
	}
}

// askNow is ask and answered for a client that stays.
func askNow(t *testing.T, s http.Handler, target string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	return answered(t, "GET "+target, ask(s, context.Background(), target, headers...))
}

// waitLoad waits until s has drawing draws holding a slot and queued in
// its queue (a state the test brings about; 10 s without it is a
// failure).
func waitLoad(t *testing.T, s *stillServer, drawing, queued int) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		d, q := s.load()
		if d == drawing && q == queued {
			return
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the still server has %d drawing, %d queued; want %d, %d", d, q, drawing, queued)
		}
	}
}

// testStillServer is a still server drawing with d, its site a 404, with
// one slot.
func testStillServer(d *stubDraw) *stillServer {
	s := newStillServer(http.NotFoundHandler(), d.draw, "build1")
	s.slots = 1
	return s
}

// TestStillAbandonedNotDrawn: a queued still whose clients all leave is
// dropped from the queue (never drawn), and each of those requests gives
// up at once, while the draw before them still runs.
func TestStillAbandonedNotDrawn(t *testing.T) {
	d := newStubDraw()
	s := testStillServer(d)
	blocker := ask(s, context.Background(), stillURL("#/block"))
	waitLoad(t, s, 1, 0)
	ctx, leave := context.WithCancel(context.Background())
	var left []<-chan *httptest.ResponseRecorder
	for i := range 5 {
		left = append(left, ask(s, ctx, stillURL(fmt.Sprintf("#/q%d", i))))
		// A second client of the same still, who leaves too.
		left = append(left, ask(s, ctx, stillURL(fmt.Sprintf("#/q%d", i))))
	}
	waitLoad(t, s, 1, 5)
	leave()
	for i, ch := range left {
		answered(t, fmt.Sprintf("queued request %d after its client left", i), ch)
	}
	waitLoad(t, s, 1, 0)
	close(d.gate)
	if rec := answered(t, "the draw before the queue", blocker); rec.Code != 200 {
		t.Errorf("GET %s: %d %q, want 200", stillURL("#/block"), rec.Code, rec.Body)
	}
	waitLoad(t, s, 0, 0)
	if n := d.draws(); n != 1 {
		t.Errorf("%d draws (%v), want 1: the queued stills whose clients left are never drawn", n, d.n)
	}
}

// TestStillAbandonedDrawGivesSlot: a running draw whose client leaves
// is stopped, and gives its slot to the next still as it stops; what it
// did not finish is not cached, so asking again draws again.
func TestStillAbandonedDrawGivesSlot(t *testing.T) {
	d := newStubDraw()
	s := testStillServer(d)
	ctx, leave := context.WithCancel(context.Background())
	heavy := ask(s, ctx, stillURL("#/stop-heavy"))
	waitLoad(t, s, 1, 0)
	small := ask(s, context.Background(), stillURL("#/small"))
	waitLoad(t, s, 1, 1)
	leave()
	answered(t, "a drawing request after its client left", heavy)
	if rec := answered(t, "the still queued behind the abandoned draw", small); rec.Code != 200 {
		t.Errorf("GET %s behind the abandoned draw: %d %q, want 200", stillURL("#/small"), rec.Code, rec.Body)
	}
	stoppedWith(t, d)
	waitLoad(t, s, 0, 0)
	again := ask(s, context.Background(), stillURL("#/stop-heavy"))
	waitLoad(t, s, 1, 0)
	if n := d.draws("#/stop-heavy"); n != 2 {
		t.Errorf("asked again after its draw was stopped: %d draws, want 2 (nothing cached)", n)
	}
	s.mu.Lock()
	s.calls[stillQueryOf(t, stillURL("#/stop-heavy")).key()].stop() // let it go
	s.mu.Unlock()
	answered(t, "the draw asked again", again)
	stoppedWith(t, d)
}

// TestStillDrawnOnce: each canonical query is drawn once while it is
// cached, whatever its spelling, its encoding or its method; a bad link
// is an answer too (400, cached); a draw that panics is a 500 and is not
// cached.
func TestStillDrawnOnce(t *testing.T) {
	d := newStubDraw()
	s := testStillServer(d)
	for _, c := range []struct {
		method, target string
		headers        []string
		code           int
		hash           string // whose draws are counted
		draws          int    // how many after this request
	}{
		{"GET", "/scene.svg?w=640&h=400&hash=" + url.QueryEscape("#/a"), nil, 200, "#/a", 1},
		{"GET", "/scene.svg?w=640&h=400&hash=" + url.QueryEscape("#/a"), nil, 200, "#/a", 1},
		{"GET", "/scene.svg?hash=" + url.QueryEscape("#/a") + "&h=0400&w=640&x=1", nil, 200, "#/a", 1},
		{"GET", "/scene.svg?w=640&h=400&hash=" + url.QueryEscape("#/a"), []string{"Accept-Encoding", "gzip"}, 200, "#/a", 1},
		{"HEAD", "/scene.svg?w=640&h=400&hash=" + url.QueryEscape("#/a"), nil, 200, "#/a", 1},
		{"GET", "/scene.svg?w=641&h=400&hash=" + url.QueryEscape("#/a"), nil, 200, "#/a", 2},
		{"GET", "/scene.svg?w=640&h=400", nil, 200, "", 1},
		{"GET", "/scene.svg?w=640&h=400&hash=%23", nil, 200, "", 1},
		{"GET", "/scene.svg?w=640&h=400&hash=" + url.QueryEscape("#/bad"), nil, 400, "#/bad", 1},
		{"GET", "/scene.svg?w=640&h=400&hash=" + url.QueryEscape("#/bad"), nil, 400, "#/bad", 1},
		{"GET", "/scene.svg?w=640&h=400&hash=" + url.QueryEscape("#/panic"), nil, 500, "#/panic", 1},
		{"GET", "/scene.svg?w=640&h=400&hash=" + url.QueryEscape("#/panic"), nil, 500, "#/panic", 2},
		{"GET", "/scene.svg?w=2&h=400&hash=" + url.QueryEscape("#/c"), nil, 400, "#/c", 0},
	} {
		req := httptest.NewRequest(c.method, c.target, nil)
		for i := 0; i+1 < len(c.headers); i += 2 {
			req.Header.Set(c.headers[i], c.headers[i+1])
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != c.code || d.draws(c.hash) != c.draws {
			t.Errorf("%s %s %v: %d %.60q, %q drawn %d times; want %d, %d times", c.method, c.target, c.headers, rec.Code, rec.Body, c.hash, d.draws(c.hash), c.code, c.draws)
		}
	}
	// Clients of a still being drawn wait for that draw.
	var waiting []<-chan *httptest.ResponseRecorder
	for range 3 {
		waiting = append(waiting, ask(s, context.Background(), stillURL("#/block-shared")))
	}
	waitLoad(t, s, 1, 0)
	close(d.gate)
	for i, ch := range waiting {
		if rec := answered(t, "a client of a shared draw", ch); rec.Code != 200 {
			t.Errorf("client %d of %s: %d %q", i, stillURL("#/block-shared"), rec.Code, rec.Body)
		}
	}
	if n := d.draws("#/block-shared"); n != 1 {
		t.Errorf("three clients of %s at once: %d draws, want 1", stillURL("#/block-shared"), n)
	}
}

// TestStillRevalidatedWithoutDrawing: an If-None-Match with a still's tag
// (either encoding's) is a 304 from a server that has never drawn it, if
// it is the same build; another build draws it again.
func TestStillRevalidatedWithoutDrawing(t *testing.T) {
	target := stillURL("#/a")
	first := askNow(t, testStillServer(newStubDraw()), target)
	firstGz := askNow(t, testStillServer(newStubDraw()), target, "Accept-Encoding", "gzip")
	for _, c := range []struct {
		build, inm, ae string
		code           int
		draws          int
		etag           string
	}{
		{"build1", first.Header().Get("ETag"), "", 304, 0, first.Header().Get("ETag")},
		{"build1", firstGz.Header().Get("ETag"), "gzip", 304, 0, firstGz.Header().Get("ETag")},
		{"build1", "W/" + first.Header().Get("ETag") + ", \"other\"", "", 304, 0, first.Header().Get("ETag")},
		{"build1", `"other"`, "", 200, 1, first.Header().Get("ETag")},
		{"build2", first.Header().Get("ETag"), "", 200, 1, ""},
	} {
		d := newStubDraw()
		s := newStillServer(http.NotFoundHandler(), d.draw, c.build)
		rec := askNow(t, s, target, "If-None-Match", c.inm, "Accept-Encoding", c.ae)
		tag := rec.Header().Get("ETag")
		if rec.Code != c.code || d.draws() != c.draws || c.etag != "" && tag != c.etag || c.etag == "" && tag == first.Header().Get("ETag") ||
			rec.Code == 304 && (rec.Body.Len() != 0 || rec.Header().Get("Vary") != "Accept-Encoding") {
			t.Errorf("build %s, If-None-Match %s, Accept-Encoding %q: %d, ETag %s, Vary %q, %d bytes, %d draws; want %d, ETag %q, %d draws",
				c.build, c.inm, c.ae, rec.Code, tag, rec.Header().Get("Vary"), rec.Body.Len(), d.draws(), c.code, c.etag, c.draws)
		}
	}
}

// TestStillETagPerEncoding: the plain and the gzip bodies of a still are
// different bytes, so they have different tags, and the answer varies by
// Accept-Encoding; the gzip holds the same SVG.
func TestStillETagPerEncoding(t *testing.T) {
	s := testStillServer(newStubDraw())
	target := stillURL("#/a")
	plain := askNow(t, s, target)
	zipped := askNow(t, s, target, "Accept-Encoding", "gzip, br")
	pt, zt := plain.Header().Get("ETag"), zipped.Header().Get("ETag")
	if pt == "" || zt == "" || pt == zt || plain.Header().Get("Vary") != "Accept-Encoding" || zipped.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("GET %s: plain ETag %s, Vary %q; gzip ETag %s, Vary %q; want two tags and Vary: Accept-Encoding", target, pt, plain.Header().Get("Vary"), zt, zipped.Header().Get("Vary"))
	}
	z, err := gzip.NewReader(bytes.NewReader(zipped.Body.Bytes()))
	if err != nil || zipped.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET %s with gzip: Content-Encoding %q, %v", target, zipped.Header().Get("Content-Encoding"), err)
	}
	if svg, _ := io.ReadAll(z); !bytes.Equal(svg, plain.Body.Bytes()) || plain.Header().Get("Content-Encoding") != "" {
		t.Errorf("GET %s: the gzip body holds %d bytes, the plain body is %d (Content-Encoding %q); want the same SVG", target, len(svg), plain.Body.Len(), plain.Header().Get("Content-Encoding"))
	}
}

// TestStillQueueFull: with every slot drawing and the queue full, a new
// still is a 503 with Retry-After at once, while a still already drawn
// or queued is still waited for.
func TestStillQueueFull(t *testing.T) {
	d := newStubDraw()
	s := testStillServer(d)
	s.queueLen = 1
	blocker := ask(s, context.Background(), stillURL("#/block"))
	waitLoad(t, s, 1, 0)
	queued := ask(s, context.Background(), stillURL("#/q"))
	waitLoad(t, s, 1, 1)
	rec := askNow(t, s, stillURL("#/one-too-many"))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), "try again") {
		t.Errorf("GET %s with the queue full: %d, Retry-After %q, %q; want 503, Retry-After: 1", stillURL("#/one-too-many"), rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	joined := ask(s, context.Background(), stillURL("#/q"))
	close(d.gate)
	for what, ch := range map[string]<-chan *httptest.ResponseRecorder{"the drawing still": blocker, "the queued still": queued, "a second client of the queued still": joined} {
		if rec := answered(t, what, ch); rec.Code != 200 {
			t.Errorf("%s: %d %q, want 200", what, rec.Code, rec.Body)
		}
	}
	if n := d.draws("#/one-too-many"); n != 0 {
		t.Errorf("the still refused for a full queue was drawn %d times", n)
	}
}

// TestStillWaitBound: a still not drawn within the server's wait is a
// 503 that says so, with Retry-After. The stub's draw does not read its
// context (as rendering a frame does not), so it goes on once its client
// left and is cached: asking again answers without drawing again. (A
// draw that reads it stops: TestStillStoppedWhenItsClientsLeave.)
func TestStillWaitBound(t *testing.T) {
	d := newStubDraw()
	s := testStillServer(d)
	s.wait = 20 * time.Millisecond // the draw waits for the gate: it cannot be done in time
	target := stillURL("#/block-slow")
	rec := askNow(t, s, target)
	if want := "was not drawn within 20ms"; rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), want) {
		t.Errorf("GET %s past the wait: %d, Retry-After %q, %q; want 503, Retry-After: 1, %q", target, rec.Code, rec.Header().Get("Retry-After"), rec.Body, want)
	}
	close(d.gate)
	waitLoad(t, s, 0, 0)
	if rec := askNow(t, s, target); rec.Code != 200 || d.draws() != 1 {
		t.Errorf("GET %s once its draw ended: %d, %d draws; want 200 and 1 draw", target, rec.Code, d.draws())
	}
}

// stoppedWith waits for the stub's draw that reads its context to stop,
// and returns its context's error.
func stoppedWith(t *testing.T, d *stubDraw) error {
	t.Helper()
	select {
	case err := <-d.stopped:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the draw was not stopped within 10 s")
		return nil
	}
}

// TestStillStoppedWhenItsClientsLeave: a running draw whose last client
// leaves has its context cancelled (a plan stops at its next check), and
// what it did not finish is not cached: the next request draws again.
func TestStillStoppedWhenItsClientsLeave(t *testing.T) {
	d := newStubDraw()
	s := testStillServer(d)
	target := stillURL("#/stop-heavy")
	ctx, leave := context.WithCancel(context.Background())
	left := ask(s, ctx, target)
	waitLoad(t, s, 1, 0)
	leave()
	answered(t, "a drawing request after its client left", left)
	if err := stoppedWith(t, d); !errors.Is(err, context.Canceled) {
		t.Errorf("the draw's context ended with %v; want context.Canceled", err)
	}
	waitLoad(t, s, 0, 0)
	if _, ok := s.cached(stillQueryOf(t, target).key()); ok {
		t.Errorf("the stopped draw of %s was cached", target)
	}
}

// TestStillDrawBound: a draw that runs past the server's bound is
// stopped, whoever waits: they get a 503 that says so, with Retry-After,
// and nothing is cached.
func TestStillDrawBound(t *testing.T) {
	d := newStubDraw()
	s := testStillServer(d)
	s.bound = 30 * time.Millisecond
	target := stillURL("#/stop-endless")
	rec := askNow(t, s, target)
	if want := "was stopped"; rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), want) {
		t.Errorf("GET %s past the draw's bound: %d, Retry-After %q, %q; want 503, a Retry-After, %q", target, rec.Code, rec.Header().Get("Retry-After"), rec.Body, want)
	}
	if err := stoppedWith(t, d); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the draw's context ended with %v; want context.DeadlineExceeded", err)
	}
	if _, ok := s.cached(stillQueryOf(t, target).key()); ok {
		t.Errorf("the stopped draw of %s was cached", target)
	}
}

// stillQueryOf reads the query of a /scene.svg target.
func stillQueryOf(t *testing.T, target string) stillQuery {
	t.Helper()
	q, err := parseStillQuery(strings.TrimPrefix(target, "/scene.svg?"))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestStillAskedAgainAfterItsClientLeft: a request that comes while an
// abandoned draw of the same still is stopping starts a draw of its own
// (it does not get the stopped draw's 503).
func TestStillAskedAgainAfterItsClientLeft(t *testing.T) {
	d := newStubDraw()
	s := testStillServer(d)
	s.slots = 2
	target := stillURL("#/stop-reload")
	ctx, leave := context.WithCancel(context.Background())
	left := ask(s, ctx, target)
	waitLoad(t, s, 1, 0)
	leave()
	answered(t, "the request that left", left)
	again := ask(s, context.Background(), target)
	stoppedWith(t, d) // the first draw
	// (The first draw is stopping, not yet gone: the second request's own
	// draw may start before or after it leaves its slot.)
	for start := time.Now(); d.draws("#/stop-reload") != 2; time.Sleep(time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("asked again while the abandoned draw stopped: %d draws after 10 s, want 2", d.draws("#/stop-reload"))
		}
	}
	waitLoad(t, s, 1, 0)
	s.mu.Lock()
	s.calls[stillQueryOf(t, target).key()].stop() // let the second go
	s.mu.Unlock()
	if rec := answered(t, "the request asked again", again); !strings.Contains(rec.Body.String(), "was stopped") {
		t.Errorf("the second request got %d %q; want its own draw's answer", rec.Code, rec.Body)
	}
	stoppedWith(t, d)
}
