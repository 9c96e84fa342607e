package web

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/andybalholm/brotli"
	"github.com/stridelab/stridelab/web/precompress"
)

// testFiles is a small site: a page, a compressible wasm, a script in a
// folder, hidden files, and a file outside the site's folder ("secret").
func testFiles() fstest.MapFS {
	wasm := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00 stridelab "), 4000)
	return fstest.MapFS{
		"index.html":   {Data: []byte("<!doctype html><title>t</title>")},
		"app.wasm":     {Data: wasm},
		"js/main.js":   {Data: []byte(strings.Repeat("console.log(1);\n", 200))},
		"icon.png":     {Data: bytes.Repeat([]byte{0x89, 'P'}, 600)},
		".keep":        {Data: []byte("hidden")},
		".git/config":  {Data: []byte("hidden")},
		"js/.map.json": {Data: []byte("hidden")},
	}
}

func testServer(t *testing.T) (*Site, string) {
	t.Helper()
	s, err := Load(testFiles())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, strings.TrimPrefix(ts.URL, "http://")
}

// raw sends one request line as written, so that nothing cleans or
// escapes the target on the way, and returns the response with its body.
func raw(t *testing.T, addr, method, target string, header ...string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, addr)
	for _, h := range header {
		if h != "" {
			fmt.Fprintf(conn, "%s\r\n", h)
		}
	}
	fmt.Fprint(conn, "\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	return resp, body
}

// TestServeOnlyItsFiles: unknown paths, traversal (plain, encoded, with
// backslashes), folders, hidden files and odd forms of a good name are
// 404; other methods are 405 with Allow.
func TestServeOnlyItsFiles(t *testing.T) {
	_, addr := testServer(t)
	for _, target := range []string{
		"/nope", "/../index.html", "/js/../index.html", "/..", "/%2e%2e/index.html", "/%2E%2E/%2e%2e/etc/passwd",
		"/js%2fmain.js", "/js%2Fmain.js", "/..%2findex.html", "/..%5cindex.html", "/js\\main.js", "/%69ndex.html",
		"/js", "/js/", "/index.html/", "//index.html", "/./index.html", "/.keep", "/.git/config", "/js/.map.json",
		"/secret", "/app.wasm.gz", "/app.wasm.br",
	} {
		resp, _ := raw(t, addr, "GET", target)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", target, resp.Status)
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "OPTIONS", "PATCH"} {
		resp, _ := raw(t, addr, m, "/index.html", "Content-Length: 0")
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /index.html: %s, Allow %q; want 405 with Allow: GET, HEAD", m, resp.Status, resp.Header.Get("Allow"))
		}
	}
	for _, target := range []string{"/", "/index.html", "/index.html?x=1", "/js/main.js", "/app.wasm", "/icon.png"} {
		if resp, _ := raw(t, addr, "GET", target); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s, want 200", target, resp.Status)
		}
	}
}

// TestServeEncodings: the wasm goes out as application/wasm, in the best
// encoding the client accepts, decoding to the file; HEAD has the same
// headers and no body; the ETag answers 304 in any encoding.
func TestServeEncodings(t *testing.T) {
	s, addr := testServer(t)
	want := testFiles()["app.wasm"].Data
	for _, c := range []struct{ accept, enc string }{
		{"", ""},
		{"Accept-Encoding: gzip", "gzip"},
		{"Accept-Encoding: gzip, deflate, br, zstd", "br"},
		{"Accept-Encoding: br;q=0, gzip;q=0.5", "gzip"},
		{"Accept-Encoding: *", "br"},
		{"Accept-Encoding: *, br;q=0", "gzip"},
		{"Accept-Encoding: identity", ""},
		{"Accept-Encoding: gzip;q=0", ""},
	} {
		head, headBody := raw(t, addr, "HEAD", "/app.wasm", c.accept)
		resp, body := raw(t, addr, "GET", "/app.wasm", c.accept)
		var decoded []byte
		var err error
		switch c.enc {
		case "gzip":
			var r *gzip.Reader
			if r, err = gzip.NewReader(bytes.NewReader(body)); err == nil {
				decoded, err = io.ReadAll(r)
			}
		case "br":
			decoded, err = io.ReadAll(brotli.NewReader(bytes.NewReader(body)))
		default:
			decoded = body
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/wasm" || resp.Header.Get("Content-Encoding") != c.enc ||
			resp.Header.Get("Vary") != "Accept-Encoding" || err != nil || !bytes.Equal(decoded, want) || (c.enc != "" && len(body) >= len(want)/2) {
			t.Errorf("GET /app.wasm %q: %s, type %q, encoding %q, vary %q, %d bytes (%v); want 200 application/wasm %q decoding to the %d bytes",
				c.accept, resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"), len(body), err, c.enc, len(want))
		}
		if len(headBody) != 0 || head.Header.Get("Content-Length") != resp.Header.Get("Content-Length") || head.Header.Get("ETag") != resp.Header.Get("ETag") ||
			head.Header.Get("Content-Encoding") != c.enc {
			t.Errorf("HEAD /app.wasm %q: %d body bytes, headers %v; want GET's headers and no body", c.accept, len(headBody), head.Header)
		}
		tag := resp.Header.Get("ETag")
		if resp.Header.Get("Cache-Control") != "no-cache" || !strings.HasPrefix(tag, `"`+s.files["app.wasm"].ETag) {
			t.Errorf("GET /app.wasm %q: Cache-Control %q, ETag %s", c.accept, resp.Header.Get("Cache-Control"), tag)
		}
		for _, inm := range []string{tag, `W/` + tag, `"other", ` + tag, `"` + s.files["app.wasm"].ETag + `"`, "*"} {
			if r, b := raw(t, addr, "GET", "/app.wasm", c.accept, "If-None-Match: "+inm); r.StatusCode != http.StatusNotModified || len(b) != 0 {
				t.Errorf("GET /app.wasm If-None-Match %s: %s with %d bytes, want 304 and none", inm, r.Status, len(b))
			}
		}
	}
	if r, _ := raw(t, addr, "GET", "/app.wasm", `If-None-Match: "0123"`); r.StatusCode != 200 {
		t.Errorf("GET /app.wasm with another ETag: %s, want 200", r.Status)
	}
	for target, ctype := range map[string]string{"/": "text/html; charset=utf-8", "/js/main.js": "text/javascript; charset=utf-8", "/icon.png": "image/png"} {
		r, _ := raw(t, addr, "GET", target, "Accept-Encoding: gzip")
		if r.Header.Get("Content-Type") != ctype || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: type %q, want %q (nosniff)", target, r.Header.Get("Content-Type"), ctype)
		}
		// The page is too small and the PNG too dense to be worth compressing.
		if small := target != "/js/main.js"; small != (r.Header.Get("Content-Encoding") == "") || small != (r.Header.Get("Vary") == "") {
			t.Errorf("GET %s: encoding %q, vary %q", target, r.Header.Get("Content-Encoding"), r.Header.Get("Vary"))
		}
	}
}

// TestWrite: the written folder holds every served file with its
// encodings, byte for byte, and none of the hidden ones.
func TestWrite(t *testing.T) {
	s, err := Load(testFiles())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	want := []string{"app.wasm", "app.wasm.br", "app.wasm.gz", "icon.png", "index.html", "js/main.js", "js/main.js.br", "js/main.js.gz"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("wrote %v, want %v", got, want)
	}
	for name, f := range s.files {
		for suffix, body := range map[string][]byte{"": f.body, ".gz": f.gz, ".br": f.br} {
			if b, err := os.ReadFile(filepath.Join(dir, name+suffix)); body != nil && (err != nil || !bytes.Equal(b, body)) {
				t.Errorf("%s%s: %v; not the served bytes", name, suffix, err)
			}
		}
	}
}

// TestLoadRefusesOddNames: a name a URL cannot hold as itself would be
// unreachable, so Load says so.
func TestLoadRefusesOddNames(t *testing.T) {
	_, err := Load(fstest.MapFS{"index.html": {}, "my page.html": {}})
	if err == nil || !strings.Contains(err.Error(), `"my page.html"`) {
		t.Errorf("Load with a space in a name: %v", err)
	}
}

// TestLoadWith: the extra files are served beside the folder's, typed and
// compressed as theirs are; one the folder holds too, or with an odd
// name, is refused.
func TestLoadWith(t *testing.T) {
	svg := []byte("<svg>" + strings.Repeat(`<rect width="1" height="1"/>`, 100) + "</svg>")
	s, err := LoadWith(fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}}, map[string][]byte{"scenes/0-356x633.svg": svg})
	if err != nil {
		t.Fatal(err)
	}
	files := s.Files()
	if len(files) != 2 || files[1].Name != "scenes/0-356x633.svg" || files[1].Type != "image/svg+xml" || files[1].Size != len(svg) || files[1].Gzip == 0 {
		t.Errorf("LoadWith: %+v; want index.html and the SVG, gzipped", files)
	}
	for _, extra := range []map[string][]byte{{"index.html": nil}, {"scenes/a b.svg": svg}} {
		if _, err := LoadWith(fstest.MapFS{"index.html": {}}, extra); err == nil {
			t.Errorf("LoadWith(%v): no error", extra)
		}
	}
}

// TestEmbedded: the embedded page is either whole (index.html and a
// wasm) or refused with the one line that says how to build it.
func TestEmbedded(t *testing.T) {
	site, err := Embedded()
	if errors.Is(err, ErrNotBuilt) {
		if err.Error() != "the playground is not built: run make run" {
			t.Errorf("Embedded: %q", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(site, "index.html"); err != nil {
		t.Error(err)
	}
	if _, err := fs.Stat(site, ".keep"); err != nil {
		t.Errorf("the placeholder is gone: %v", err)
	}
}

// TestLoadTakesPrecompressed: Load serves the encodings package
// precompress made for a file's bytes as they are (here a gzip at another
// level than Load's own, so the bytes tell where they came from), never
// serves them as files of their own, and compresses afresh a file changed
// since the manifest was written.
func TestLoadTakesPrecompressed(t *testing.T) {
	dir := t.TempDir()
	for name, f := range testFiles() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, f.Data, 0o644)
	}
	if _, err := precompress.Dir(dir); err != nil {
		t.Fatal(err)
	}
	wasm := testFiles()["app.wasm"].Data
	var made bytes.Buffer
	w, _ := gzip.NewWriterLevel(&made, gzip.BestCompression)
	w.Write(wasm)
	w.Close()
	os.WriteFile(filepath.Join(dir, "app.wasm.gz"), made.Bytes(), 0o644)
	changed := []byte(strings.Repeat("console.log(2);\n", 200))
	os.WriteFile(filepath.Join(dir, "js/main.js"), changed, 0o644)

	s, err := Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.files["app.wasm"].gz; !bytes.Equal(got, made.Bytes()) {
		t.Errorf("app.wasm's gzip: %d bytes, not the %d precompressed ones", len(got), made.Len())
	}
	if s.files["app.wasm.gz"] != nil || s.files["app.wasm.br"] != nil {
		t.Error("an encoding is served as a file of its own")
	}
	r, err := gzip.NewReader(bytes.NewReader(s.files["js/main.js"].gz))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(r); !bytes.Equal(got, changed) {
		t.Error("js/main.js changed after precompressing, and its stale gzip was served")
	}
}
