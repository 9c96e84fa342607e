// Command precompress writes the gzip and brotli encodings of a built
// page's files beside them (package precompress), for `make web`:
//
//	go run ./web/cmd/precompress web/site
//
// It compresses only the files whose bytes changed since the last run and
// prints one line saying how many it compressed and kept.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/stridelab/stridelab/web/precompress"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: precompress DIR")
		os.Exit(2)
	}
	start := time.Now()
	r, err := precompress.Dir(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("precompress %s: %d files compressed, %d unchanged (%.1f s)\n", os.Args[1], r.Compressed, r.Kept, time.Since(start).Seconds())
}
