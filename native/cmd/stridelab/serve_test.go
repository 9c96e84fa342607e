package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stridelab/stridelab/web"
)

func servePage() (fs.FS, error) {
	return fstest.MapFS{
		"index.html": {Data: []byte("<!doctype html><title>stridelab</title>")},
		"x.wasm":     {Data: bytes.Repeat([]byte("\x00asm stridelab "), 1000)},
	}, nil
}

// startServe runs serve with args until the test ends and returns the URL
// it printed.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, args, w, io.Discard, servePage)
		w.Close()
	}()
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		cancel()
		t.Fatalf("serve %v printed nothing: %v", args, <-done)
	}
	first := lines.Text()
	t.Cleanup(func() {
		cancel()
		rest, _ := io.ReadAll(out)
		if err := <-done; err != nil || strings.TrimSpace(string(rest)) != "stopped" {
			t.Errorf("serve %v after the context ended: %v, printed %q; want nil and stopped", args, err, rest)
		}
	})
	url, _, ok := strings.Cut(strings.TrimPrefix(first, "serving the playground at "), " ")
	if !ok || !strings.HasPrefix(first, "serving the playground at http://") || !strings.Contains(first, "x.wasm 14.6 KiB, gzip") {
		t.Fatalf("serve %v printed %q", args, first)
	}
	return url
}

// TestServeListensOnThisMachine: a bare port, and no --addr at all (the
// default's port may be taken, so its value is checked), mean 127.0.0.1;
// the page is served there; cancelling stops the server, which prints
// stopped and returns nil.
func TestServeListensOnThisMachine(t *testing.T) {
	url := startServe(t, "--addr", ":0")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("serve --addr :0 listens at %s, want 127.0.0.1", url)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "<title>stridelab</title>") {
		t.Errorf("GET %s: %s %q", url, resp.Status, body)
	}
	for addr, want := range map[string]string{"": "127.0.0.1:8080", ":0": "127.0.0.1:0", ":9000": "127.0.0.1:9000",
		"0.0.0.0:80": "0.0.0.0:80", "[::1]:80": "[::1]:80", "localhost:80": "localhost:80"} {
		if got := listenAddr(addr); got != want {
			t.Errorf("listenAddr(%q) = %q, want %q", addr, got, want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"serve", "--help"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), `(default "127.0.0.1:8080")`) {
		t.Errorf("serve --help: exit %d, %q; want --addr's default 127.0.0.1:8080", code, stderr.String())
	}
}

// TestServeRefuses: a binary without the page, a bad address and a
// stray argument are one line each, and nothing is served.
func TestServeRefuses(t *testing.T) {
	notBuilt := func() (fs.FS, error) { return nil, web.ErrNotBuilt }
	for _, c := range []struct {
		args []string
		site func() (fs.FS, error)
		want string
	}{
		{nil, notBuilt, "the playground is not built: run make run"},
		{[]string{"--addr", "127.0.0.1:99999"}, servePage, "cannot listen: listen tcp: address 99999: invalid port"},
		{[]string{"--addr", "8080"}, servePage, "cannot listen: listen tcp: address 8080: missing port in address"},
		{[]string{"now"}, servePage, `unexpected argument "now"`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := serve(ctx, c.args, io.Discard, io.Discard, c.site)
		cancel()
		if err == nil || err.Error() != c.want && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("serve %v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestServeWrite: --write puts the served files and their encodings in a
// folder, the same bytes a request gets, and says so.
func TestServeWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	var stdout bytes.Buffer
	if err := serve(context.Background(), []string{"--write", dir}, &stdout, io.Discard, servePage); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "wrote "+dir+": 2 files; x.wasm 14.6 KiB, gzip ") {
		t.Errorf("serve --write printed %q", stdout.String())
	}
	page, _ := servePage()
	want, _ := fs.ReadFile(page, "x.wasm")
	for _, name := range []string{"index.html", "x.wasm", "x.wasm.gz", "x.wasm.br"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || name == "x.wasm" && !bytes.Equal(b, want) {
			t.Errorf("%s: %v (%d bytes)", name, err, len(b))
		}
	}
}
