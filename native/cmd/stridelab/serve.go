package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/web"
)

// runServe serves the page embedded in the binary, and the stills of
// its scenes (GET /scene.svg, still.go): stridelab serve [--addr
// 127.0.0.1:8080] [--write DIR]. It stops cleanly on SIGINT and SIGTERM.
func runServe(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr, web.Embedded)
}

// serve is runServe with the context that stops it and the files it
// serves given, for tests.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, site func() (fs.FS, error)) error {
	fs := newFlags("serve", "[--addr 127.0.0.1:8080] [--write DIR]", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "host:port to listen on; a bare :PORT listens on 127.0.0.1 too (write 0.0.0.0:PORT to serve the network)")
	write := fs.String("write", "", "write the files it would serve, with their .gz and .br, into DIR for a static host, and exit")
	if err := fs.parse(args); err != nil {
		return err
	}
	files, err := site()
	if err != nil {
		return err
	}
	start := time.Now()
	if *write != "" {
		// A static host cannot draw: the stills the page shows before its
		// live frame is ready are drawn now (still.go).
		stills, err := stillGallery(files)
		if err != nil {
			return err
		}
		s, err := web.LoadWith(files, stills)
		if err != nil {
			return err
		}
		summary := siteSummary(s, time.Since(start))
		if err := s.Write(*write); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: %s\n", *write, summary)
		return nil
	}
	s, err := web.Load(files)
	if err != nil {
		return err
	}
	summary := siteSummary(s, time.Since(start))
	ln, err := net.Listen("tcp", listenAddr(*addr))
	if err != nil {
		return fmt.Errorf("cannot listen: %w", err)
	}
	srv := &http.Server{Handler: withStills(s), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "serving the playground at %s (%s); Ctrl-C stops\n", siteURL(ln.Addr().(*net.TCPAddr)), summary)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// Let the answers under way finish; a stuck client gets five seconds.
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("stopping: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(stdout, "stopped")
	return nil
}

// listenAddr keeps the server on this machine unless a host is named: a
// bare :PORT (or an empty --addr) listens on 127.0.0.1.
func listenAddr(addr string) string {
	if addr == "" {
		return "127.0.0.1:8080"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "" {
		return addr // a bad address is net.Listen's to report
	}
	if port == "" {
		port = "8080"
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// siteURL is the address to open: the listening one, or this machine's
// when the server listens on every interface.
func siteURL(a *net.TCPAddr) string {
	host := a.IP.String()
	if a.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(a.Port)) + "/"
}

// siteSummary says what is served: the files, each wasm with its
// encodings' sizes, and how long loading took (reading, hashing and
// compressing what `make web` did not precompress).
func siteSummary(s *web.Site, took time.Duration) string {
	files := s.Files()
	out := fmt.Sprintf("%d files", len(files))
	for _, f := range files {
		if f.Type == "application/wasm" {
			out += fmt.Sprintf("; %s %s, gzip %s, br %s", f.Name, tensor.FormatBytes(int64(f.Size)), tensor.FormatBytes(int64(f.Gzip)), tensor.FormatBytes(int64(f.Brotli)))
		}
	}
	return out + fmt.Sprintf("; loaded in %.2f s", took.Seconds())
}
