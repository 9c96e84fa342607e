// Package web serves stridelab's page from the native binary: `stridelab
// serve` answers HTTP with it and `make site` writes it to a folder for
// any static host.
//
// # Overview
//
// `make web` builds the page into web/site: the HTML, JS and CSS of web/,
// Go's wasm_exec.js and the wasm. This package embeds that folder
// ([Embedded]); a binary built before `make web` holds only the folder's
// placeholder and Embedded says so in one line ([ErrNotBuilt]). [Load]
// takes any fs.FS, so tests serve files of their own.
//
// Load reads every file once, names its type and hashes it (SHA-256: the
// ETag). What compresses (text, wasm, SVG, JSON) is served in gzip and
// brotli: `make web` makes those encodings once, when it builds the page
// (package precompress: NAME.gz and NAME.br beside each file, and a
// manifest of the bytes they were made from), so Load takes them as they
// are and `stridelab serve` starts in a fraction of a second; a file the
// manifest does not vouch for (a test's own files, a page changed since)
// is compressed by Load itself, at precompress's levels.
//
// # Serving
//
// A [Site] answers GET and HEAD (any other method: 405 with Allow) for its
// files and nothing else: "/" is index.html; a path is looked up exactly
// as sent, so "..", ".", empty segments, a trailing slash, a folder, a
// percent escape (%2e%2e, %2f: how traversal hides) and a name that starts
// with a dot are 404. Each answer carries its Content-Type (wasm as
// application/wasm, which WebAssembly.instantiateStreaming requires;
// JavaScript as text/javascript, which module scripts require), the
// encoding the client accepts best (br, then gzip, then none) with Vary:
// Accept-Encoding, and an ETag; Cache-Control: no-cache makes a browser
// revalidate every load, which costs a 304 while the file is unchanged
// (the names carry no hash, so nothing may be cached without asking).
//
// # Errors
//
// Load refuses a file whose name a URL cannot hold as itself (letters,
// digits, '.', '-', '_' and '/' only); Write's errors name the file.
package web
