package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// A still is a pure function of its canonical query (stillQuery.key) and
// of the code that draws it, so its ETag is made of those two, never of
// the drawn bytes: a revalidation (If-None-Match) is answered without
// drawing, even by a server that has not drawn that still since it
// started.

// stillBuild names the code of this binary, for the stills' ETags: a
// hash of its build information (the Go version, the module and every
// dependency with its version, the build settings and the commit) when
// it was built from a commit without local changes; otherwise a hash of
// the executable's bytes (a build from a changed tree, or `go test`'s
// binary, which carry no commit); and when the executable cannot be
// read, the time this process started, so that no two processes that
// might draw differently share a tag. Computed once, on first use.
var stillBuild = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" && modified == "false" {
			return shortHash([]byte(bi.String()))
		}
	}
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return hex.EncodeToString(h.Sum(nil)[:6])
			}
		}
	}
	return "t" + strconv.FormatInt(time.Now().UnixNano(), 36)
})

// stillETag is the strong ETag of the still of a canonical query drawn
// by build: "s-BUILD-QUERYHASH", with ".gzip" after it for its gzip
// body (as web.Site tags its files' encodings), so that the two bodies,
// which differ, never share a tag.
func stillETag(build, key string, gzipped bool) string {
	tag := "s-" + build + "-" + shortHash([]byte(key))
	if gzipped {
		tag += ".gzip"
	}
	return `"` + tag + `"`
}

// shortHash is the first 12 hex digits of b's SHA-256: 48 bits, so that
// two builds (or two queries) share a tag with odds of one in 2^48.
func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
