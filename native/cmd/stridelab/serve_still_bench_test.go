package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stridelab/stridelab/viz"
)

// heavyProgram is the hash of a program scene whose still takes a long
// time to draw: the exact plan of a two-layer MLP with biases and its
// backward on a 2×2 mesh (about 0.3 s of the exact search on this
// project's 2-core machine, its largest table 1.7 M entries), one per n
// (the batch is 16+4n rows).
func heavyProgram(n int) string {
	src := fmt.Sprintf("placement [[0,1],[2,3]]; x = input %d,32 (S(0), B); w1 = input 32,64 (B, S(1)); b1 = input 64 (B, S(0)); h = matmul x w1; hb = add h b1; zero = input 1 (B, B); r = max hb zero; w2 = input 64,32 (B, S(0)); b2 = input 32 (B, B); y = matmul r w2; yb = add y b2; s = sum yb 1,1; grad s", 16+4*n)
	return viz.Spec{Scene: "program", Values: map[string]string{"src": src, "strategy": "exact"}}.Hash()
}

// BenchmarkStillAfterAbandoned is the attack and its victim: 200
// clients ask at once for the stills of 200 distinct heavy programs and
// hang up after 50 ms; then a visitor asks for the page's small still
// (the worked example of expand, at a size not drawn before), which is
// what is timed. Between rounds the server is let go idle. It reports
// the heavy draws that were started (heavy/op).
func BenchmarkStillAfterAbandoned(b *testing.B) {
	var heavy atomic.Int64
	draw := func(ctx context.Context, hash string, w, h int) (still, error) {
		if strings.HasPrefix(hash, "#/program") {
			heavy.Add(1)
		}
		return drawStill(ctx, hash, w, h)
	}
	s := newStillServer(http.NotFoundHandler(), draw, "bench")
	srv := httptest.NewServer(s)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 300}}
	idle := func() {
		for {
			if d, q := s.load(); d+q == 0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var slowest time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		idle()
		var wg sync.WaitGroup
		for j := range 200 {
			wg.Go(func() {
				ctx, hangUp := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer hangUp()
				req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/scene.svg?w=1280&h=800&hash="+url.QueryEscape(heavyProgram(i*200+j)), nil)
				if resp, err := client.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
		wg.Wait()
		for { // every abandoned request has left the queue
			if _, q := s.load(); q == 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		d, _ := s.load()
		b.Logf("round %d: %d heavy draws hold a slot, stopping", i, d)
		b.StartTimer()
		start := time.Now()
		resp, err := client.Get(fmt.Sprintf("%s/scene.svg?w=%d&h=554&hash=", srv.URL, 640+i))
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("the small still after the abandoned ones: %s %s", resp.Status, body)
		}
		slowest = max(slowest, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64(heavy.Load())/float64(b.N), "heavy/op")
	b.ReportMetric(float64(slowest.Microseconds())/1000, "slowest-ms")
	idle()
}

// BenchmarkStillCached is a still asked for again: the same URL, drawn
// once before the timer starts, over HTTP on the loopback.
func BenchmarkStillCached(b *testing.B) {
	var draws atomic.Int64
	draw := func(ctx context.Context, hash string, w, h int) (still, error) {
		draws.Add(1)
		return drawStill(ctx, hash, w, h)
	}
	srv := httptest.NewServer(newStillServer(http.NotFoundHandler(), draw, "bench"))
	defer srv.Close()
	u := srv.URL + "/scene.svg?w=987&h=554&hash=" + url.QueryEscape(heavyProgram(0))
	get := func() {
		resp, err := http.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("GET %s: %s", u, resp.Status)
		}
	}
	start := time.Now()
	get()
	first := time.Since(start)
	for b.Loop() {
		get()
	}
	b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(draws.Load()), "draws")
}
