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

// heavyProgram is the hash of a program scene whose still takes seconds
// to draw (its exact plan: four matmuls and their backward on 8
// devices, about 2.3 s on this project's 2-core machine), one per n.
func heavyProgram(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "placement 8; h0 = input 64,%d S(0)", 64+n)
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, "; w%d = input %d,%d B; h%d = matmul h%d w%d", i, 64+n, 64+n, i, i-1, i)
	}
	b.WriteString("; s = sum h4 1,1; grad s")
	return viz.Spec{Scene: "program", Values: map[string]string{"src": b.String(), "strategy": "exact"}}.Hash()
}

// BenchmarkStillAfterAbandoned is the attack and its victim: 200
// clients ask at once for the stills of 200 distinct heavy programs and
// hang up after 50 ms; then a visitor asks for the page's small still
// (the worked example of expand, at a size not drawn before), which is
// what is timed. Between rounds the server is let go idle. It reports
// the heavy draws that were started (heavy/op).
func BenchmarkStillAfterAbandoned(b *testing.B) {
	var heavy atomic.Int64
	draw := func(hash string, w, h int) (still, error) {
		if strings.HasPrefix(hash, "#/program") {
			heavy.Add(1)
		}
		return drawStill(hash, w, h)
	}
	s := newStillServer(http.NotFoundHandler(), draw, "bench")
	srv := httptest.NewServer(s)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 300}}
	idle := func() {
		for {
			if d, q, u := s.load(); d+q+u == 0 {
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
			if _, q, _ := s.load(); q == 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		d, _, u := s.load()
		b.Logf("round %d: %d heavy draws hold a slot, %d run unwanted", i, d, u)
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
	draw := func(hash string, w, h int) (still, error) {
		draws.Add(1)
		return drawStill(hash, w, h)
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
