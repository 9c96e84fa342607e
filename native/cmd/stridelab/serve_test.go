package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/viz"
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
	// The two files, and the stills of the page without a hash (no
	// gallery.txt here) at each size with their index.
	if want := fmt.Sprintf("wrote %s: %d files; x.wasm 14.6 KiB, gzip ", dir, 2+len(stillSizes)+1); !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("serve --write printed %q, want %q…", stdout.String(), want)
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

// TestServeWriteStills: --write draws the stills a static host serves
// in place of /scene.svg: every gallery link (gallery.txt, as the menu
// spells it) and the page without a hash, at each of stillSizes, found
// through scenes/index.json, each the bytes /scene.svg answers; and two
// runs write the same files.
func TestServeWriteStills(t *testing.T) {
	page := func() (fs.FS, error) {
		return fstest.MapFS{
			"index.html":  {Data: []byte("<!doctype html><title>stridelab</title>")},
			"x.wasm":      {Data: []byte("\x00asm")},
			"gallery.txt": {Data: []byte("repeat-1d|repeat --shape 5 --times 3|7|yes\nplacement-mesh|placement --shape 8,6 --sbp '(S(0), P)' --placement '[[0,1],[2,3]]'|0|no\n")},
		}, nil
	}
	var runs [2]string
	for i := range runs {
		runs[i] = filepath.Join(t.TempDir(), "site")
		if err := serve(context.Background(), []string{"--write", runs[i]}, io.Discard, io.Discard, page); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(runs[0], "scenes", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx stillIndex
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	hashes := []string{"", "#/expand?shape=4,1,3&size=4,2,3", "#/repeat?shape=5&times=3&step=7", "#/placement?shape=8,6&sbp=(S(0),%20P)&placement=[[0,1],[2,3]]"}
	if len(idx.Scenes) != len(hashes) || fmt.Sprint(idx.Sizes) != fmt.Sprint(stillSizes) {
		t.Errorf("scenes/index.json: %s; want the sizes %v and the scenes %q", b, stillSizes, hashes)
	}
	for _, hash := range hashes {
		item, ok := idx.Scenes[hash]
		if !ok {
			t.Errorf("scenes/index.json has no %q: %s", hash, b)
			continue
		}
		for _, sz := range stillSizes {
			name := fmt.Sprintf("scenes/%d-%dx%d.svg", item.N, sz[0], sz[1])
			got, err := os.ReadFile(filepath.Join(runs[0], name))
			want, werr := drawStill(context.Background(), hash, sz[0], sz[1])
			if err != nil || werr != nil || !bytes.Equal(got, want.svg) || item.Title != want.title {
				t.Errorf("%s (%s at %v): %v, %v; %d bytes, title %q; want drawStill's %d bytes, title %q", name, hash, sz, err, werr, len(got), item.Title, len(want.svg), want.title)
			}
		}
	}
	if idx.Scenes[""] != idx.Scenes[hashes[1]] {
		t.Errorf("the page without a hash has still %v, the worked example of expand %v; want the same", idx.Scenes[""], idx.Scenes[hashes[1]])
	}
	filepath.WalkDir(runs[0], func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(runs[0], p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(runs[1], rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: two runs of serve --write differ (%v)", rel, err)
		}
		return nil
	})
}

// get asks the server for path with the request headers given (name,
// value, …) and returns the answer with its body read.
func get(t *testing.T, method, u string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // no transparent gzip: the test reads what was sent
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, body
}

// TestSceneSVG: GET /scene.svg draws a link's scene for the page's frame
// size: the bytes `stridelab draw … -o x.svg` writes at the size the
// frame lays it out at (viz.FitViewport), the root's width and height
// the frame's CSS size; its title in X-Scene-Title; an ETag that a
// revalidation gets a 304 for; gzip when asked, the same SVG inside.
func TestSceneSVG(t *testing.T) {
	base := startServe(t, "--addr", ":0")
	dir := t.TempDir()
	for _, c := range []struct {
		hash string
		draw []string // stridelab draw's arguments for the same scene and step
		w, h int
	}{
		{"#/expand?shape=4,1,3&size=4,2,3&step=5", []string{"expand", "--shape", "4,1,3", "--size", "4,2,3", "--step", "5"}, 370, 631},
		{"", []string{"expand", "--shape", "4,1,3", "--size", "4,2,3"}, 987, 554},
		{"#/boxing?shape=25,33&from=S(0)&to=S(1)&placement=4&step=1", []string{"boxing", "--shape", "25,33", "--from", "S(0)", "--to", "S(1)", "--placement", "4", "--step", "1"}, 748, 766},
		// A projector: laid out as a slide, drawn 1.5 times as large.
		{"#/placement?shape=8,6&sbp=S(0),P&placement=[[0,1],[2,3]]", []string{"placement", "--shape", "8,6", "--sbp", "S(0),P", "--placement", "[[0,1],[2,3]]"}, 1920, 1080},
	} {
		fit := viz.FitViewport(float64(c.w), float64(c.h))
		file := filepath.Join(dir, "x.svg")
		args := append([]string{"draw"}, c.draw...)
		args = append(args, "--width", fmt.Sprint(fit.Size.W), "--height", fmt.Sprint(fit.Size.H), "-o", file)
		var stderr bytes.Buffer
		if code := run(args, io.Discard, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		drawn, _ := os.ReadFile(file)
		want := bytes.Replace(drawn, fmt.Appendf(nil, `width="%d" height="%d" viewBox=`, fit.Size.W, fit.Size.H),
			fmt.Appendf(nil, `width="%d" height="%d" viewBox=`, c.w, c.h), 1)
		u := fmt.Sprintf("%sscene.svg?w=%d&h=%d&hash=%s", base, c.w, c.h, url.QueryEscape(c.hash))
		resp, got := get(t, "GET", u)
		title, _ := url.PathUnescape(resp.Header.Get("X-Scene-Title"))
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || !bytes.Equal(got, want) ||
			!bytes.Contains(got, fmt.Appendf(nil, `width="%d" height="%d" viewBox="0 0 %d %d"`, c.w, c.h, fit.Size.W, fit.Size.H)) ||
			title != sceneTitle(t, strings.Join(c.draw, " ")) {
			t.Errorf("GET %s: %s, %s, title %q, %d bytes; want the %d bytes of %v with the root %d×%d", u, resp.Status, resp.Header.Get("Content-Type"), title, len(got), len(want), args, c.w, c.h)
			continue
		}
		tag := resp.Header.Get("ETag")
		if again, body := get(t, "GET", u, "If-None-Match", tag); tag == "" || again.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("GET %s with If-None-Match %s: %s, %d bytes; want 304", u, tag, again.Status, len(body))
		}
		zipped, body := get(t, "GET", u, "Accept-Encoding", "br, gzip")
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil || zipped.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("GET %s with Accept-Encoding gzip: %s, %v", u, zipped.Header.Get("Content-Encoding"), err)
			continue
		}
		if unzipped, _ := io.ReadAll(z); !bytes.Equal(unzipped, want) || len(body) >= len(want) {
			t.Errorf("GET %s gzipped: %d bytes, %d unzipped; want fewer than the SVG's %d, the same SVG inside", u, len(body), len(unzipped), len(want))
		}
		if head, body := get(t, "HEAD", u); head.StatusCode != 200 || len(body) != 0 || head.Header.Get("Content-Length") != fmt.Sprint(len(want)) {
			t.Errorf("HEAD %s: %s, %d bytes, Content-Length %s", u, head.Status, len(body), head.Header.Get("Content-Length"))
		}
	}
}

// sceneTitle is the title of the scene a command line names.
func sceneTitle(t *testing.T, command string) string {
	spec, err := viz.ParseCommand(command)
	if err != nil {
		t.Fatal(err)
	}
	s, err := viz.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s.Title
}

// TestSceneSVGRefuses: bad input is a 400 that says what is wrong (a
// POST a 405), and the server goes on serving.
func TestSceneSVGRefuses(t *testing.T) {
	base := startServe(t, "--addr", ":0")
	for _, c := range []struct{ query, want string }{
		{"w=319&h=400&hash=", "scene.svg: a frame of 319×400 CSS px: width and height must be between 320×240 and 8192×8192"},
		{"w=640&h=239", "scene.svg: a frame of 640×239 CSS px"},
		{"w=8193&h=400", "scene.svg: a frame of 8193×400 CSS px"},
		{"w=-5&h=400", "scene.svg: a frame of -5×400 CSS px"},
		{"w=64x&h=400", `scene.svg: w="64x": give the frame's CSS size as whole numbers`},
		{"h=400", `scene.svg: w="": give the frame's CSS size as whole numbers`},
		{"w=640&h=1e3", `scene.svg: h="1e3": give the frame's CSS size as whole numbers`},
		{"w=640&h=400&hash=%zz", `scene.svg: query "w=640&h=400&hash=%zz": invalid URL escape "%zz"`},
		{"w=640&h=400&hash=" + url.QueryEscape("#/nope?shape=3"), `scene.svg: viz: unknown scene "nope"`},
		{"w=640&h=400&hash=" + url.QueryEscape("#/expand?shape=4,1,3&size=4,2,5"), "scene.svg: tensor: expand [4 1 3] to [4 2 5]"},
		{"w=640&h=400&hash=" + url.QueryEscape("#/expand?shape=4,1,3&size=4,2,3&step=24"), "scene.svg: viz: expand: step 24 is out of range: the scene has steps 0 to 23"},
		{"w=640&h=400&hash=" + url.QueryEscape("#/expand?shape=4,1,3&size=4,2,3&step=x"), `scene.svg: viz: hash: step "x" is not a whole number`},
		{"w=640&h=400&hash=" + url.QueryEscape("#/lesson/no-such-lesson/1"), `scene.svg: viz: unknown scene "lesson/no-such-lesson/1"`},
		{"w=4097&h=240", "scene.svg: viz: a frame of 4097×240: width and height must be between 320×240 and 4096×4096"},
	} {
		resp, body := get(t, "GET", base+"scene.svg?"+c.query)
		if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(string(body), c.want) || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("GET scene.svg?%s: %s %q; want 400 %q…", c.query, resp.Status, body, c.want)
		}
	}
	// A lesson's link has no still (the live frame hides its answers):
	// 204, nothing to show, and nothing wrong.
	ls, _ := lessons.Builtin()
	for _, hash := range []string{fmt.Sprintf("#/lesson/%s/1", ls[0].ID), "#/expand?shape=4,1,3&size=4,2,3&lesson=" + ls[0].ID} {
		if resp, body := get(t, "GET", base+"scene.svg?w=640&h=400&hash="+url.QueryEscape(hash)); resp.StatusCode != http.StatusNoContent || len(body) != 0 {
			t.Errorf("GET scene.svg for %s: %s %q; want 204", hash, resp.Status, body)
		}
	}
	if resp, body := get(t, "POST", base+"scene.svg?w=640&h=400"); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST scene.svg: %s %q; want 405 with Allow: GET, HEAD", resp.Status, body)
	}
	// An escaped name is not the endpoint (the site looks names up exactly).
	if resp, _ := get(t, "GET", base+"scene%2esvg?w=640&h=400"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET scene%%2esvg: %s, want 404", resp.Status)
	}
	if resp, body := get(t, "GET", base); resp.StatusCode != 200 || !strings.Contains(string(body), "<title>stridelab</title>") {
		t.Errorf("GET / after the refusals: %s %q", resp.Status, body)
	}
}
