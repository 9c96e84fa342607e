package web

import (
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/stridelab/stridelab/web/precompress"
)

// Site is a set of files ready to serve: each with its type, its content
// hash and the encodings that make it smaller. It is an http.Handler.
type Site struct {
	files map[string]*file // by path, without the leading slash
}

// File describes one file of a Site: its name, type, ETag and the bytes
// of each encoding (0 when the file is not kept in that encoding).
type File struct {
	Name, Type, ETag   string
	Size, Gzip, Brotli int
}

type file struct {
	File
	body, gz, br []byte
	sum          string // the hex SHA-256 of body
	made         bool   // gz and br came precompressed
}

// types are the Content-Types of the files a page is made of.
var types = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".txt":  "text/plain; charset=utf-8",
	".svg":  "image/svg+xml",
	".wasm": "application/wasm",
	".png":  "image/png",
	".gif":  "image/gif",
	".ico":  "image/x-icon",
}

// compressible reports whether a file is worth compressing (see package
// precompress).
func compressible(f *file) bool { return precompress.Worth(f.Name, f.Size) }

// Load reads every file of fsys, apart from names that start with a dot,
// and takes its encodings from beside it where package precompress made
// them for these very bytes (its manifest), or makes them, compressing on
// up to GOMAXPROCS goroutines.
func Load(fsys fs.FS) (*Site, error) { return LoadWith(fsys, nil) }

// LoadWith is Load with more files beside fsys's: extra maps a name to
// its bytes (what the server makes rather than finds, such as pictures
// drawn for a static host). A name fsys holds too is an error.
func LoadWith(fsys fs.FS, extra map[string][]byte) (*Site, error) {
	s := &Site{files: map[string]*file{}}
	made, err := precompress.ReadManifest(fsys)
	if err != nil {
		return nil, err
	}
	err = made.Files(fsys, func(name string, body []byte) error {
		if err := s.add(name, body); err != nil {
			return err
		}
		f := s.files[name]
		if gz, br, ok := made.Encodings(fsys, name, f.sum); ok && compressible(f) {
			f.gz, f.br, f.made = gz, br, true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for name, body := range extra {
		if s.files[name] != nil {
			return nil, fmt.Errorf("web: file name %q: the site holds it already", name)
		}
		if err := s.add(name, body); err != nil {
			return nil, err
		}
	}
	var jobs []func()
	for _, f := range s.files {
		if compressible(f) && !f.made {
			jobs = append(jobs, func() { f.gz = precompress.Smaller(f.body, precompress.Gzip(f.body)) },
				func() { f.br = precompress.Smaller(f.body, precompress.Brotli(f.body)) })
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, job := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			job()
		})
	}
	wg.Wait()
	for _, f := range s.files {
		f.Gzip, f.Brotli = len(f.gz), len(f.br)
	}
	return s, nil
}

// add keeps one file: its name checked, its type named, its bytes hashed.
func (s *Site) add(name string, body []byte) error {
	if strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") != "" {
		return fmt.Errorf("web: file name %q: a served name holds only letters, digits, '.', '-', '_' and '/'", name)
	}
	sum := precompress.Hash(body)
	ctype, ok := types[path.Ext(name)]
	if !ok {
		ctype = "application/octet-stream"
	}
	s.files[name] = &file{File: File{Name: name, Type: ctype, ETag: sum[:32], Size: len(body)}, body: body, sum: sum}
	return nil
}

// Files lists the site's files by name.
func (s *Site) Files() []File {
	out := make([]File, 0, len(s.files))
	for _, f := range s.files {
		out = append(out, f.File)
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ServeHTTP answers GET and HEAD for the site's files (see the package
// documentation).
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method "+r.Method+" not allowed: GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(r.URL.EscapedPath(), "/")
	if name == "" {
		name = "index.html"
	}
	f := s.files[name] // exactly as sent: no cleaning, no unescaping
	if f == nil {
		http.NotFound(w, r)
		return
	}
	body, enc := f.body, ""
	switch accepts := acceptedEncodings(r.Header.Get("Accept-Encoding")); {
	case f.br != nil && accepts["br"]:
		body, enc = f.br, "br"
	case f.gz != nil && accepts["gzip"]:
		body, enc = f.gz, "gzip"
	}
	h.Set("Content-Type", f.Type)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	if f.gz != nil || f.br != nil {
		h.Set("Vary", "Accept-Encoding")
	}
	// A strong ETag names one representation: the hash, and the encoding.
	tag := f.ETag
	if enc != "" {
		tag += "." + enc
	}
	h.Set("ETag", `"`+tag+`"`)
	if etagMatches(r.Header.Get("If-None-Match"), f.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if enc != "" {
		h.Set("Content-Encoding", enc)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// acceptedEncodings reads an Accept-Encoding header: the codings it names
// with a q above 0, and those "*" admits when it is not refused.
func acceptedEncodings(header string) map[string]bool {
	named := map[string]bool{}
	for _, item := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(item, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				q = x
			}
		}
		named[coding] = q > 0
	}
	out := map[string]bool{}
	for _, c := range []string{"br", "gzip"} {
		ok, listed := named[c]
		out[c] = ok || !listed && named["*"]
	}
	return out
}

// Accepts reports whether an Accept-Encoding header admits coding ("br"
// or "gzip") as the site reads it, for answers made beside the site's
// files.
func Accepts(header, coding string) bool { return acceptedEncodings(header)[coding] }

// ETagMatches reports whether an If-None-Match header names any encoding
// of the answer whose tag, without its quotes and its ".ENCODING", is
// etag (or is "*"), as the site reads it, for answers made beside the
// site's files.
func ETagMatches(header, etag string) bool { return etagMatches(header, etag) }

// etagMatches reports whether an If-None-Match header names any encoding
// of the file whose hash is etag (or is "*"): the file has not changed.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" {
			return true
		}
		t = strings.Trim(t, `"`)
		if base, _, _ := strings.Cut(t, "."); base == etag {
			return true
		}
	}
	return false
}

// Write writes every file into dir, as served, with NAME.gz and NAME.br
// beside each file kept in those encodings (what static hosts such as
// nginx's gzip_static and brotli_static serve).
func (s *Site) Write(dir string) error {
	for _, f := range s.Files() {
		sf := s.files[f.Name]
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("web: %w", err)
		}
		for suffix, body := range map[string][]byte{"": sf.body, ".gz": sf.gz, ".br": sf.br} {
			if body == nil {
				continue
			}
			if err := os.WriteFile(p+suffix, body, 0o644); err != nil {
				return fmt.Errorf("web: %w", err)
			}
		}
	}
	return nil
}
