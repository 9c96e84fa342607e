// Package atomicfile writes a file whole or not at all: the one home of
// the temporary-file-and-rename that every writer of results uses (the
// exports of package viz/render, the torch engine's job files).
//
// # Overview
//
// [WriteFile] fills a temporary file beside the path (in the same
// folder, so the rename cannot cross file systems) and renames it over
// the path only when the caller's write succeeded. A reader, another
// process included, sees the old file or the new one, never a part.
//
// # Errors
//
// An error of the caller's write comes back unchanged. A failure of the
// file system is an *[Error] naming the path asked for (never the
// temporary file) and wrapping the os error, so errors.Is(err,
// fs.ErrNotExist) tells a missing folder.
//
// # Platform support
//
// Every platform with package os, GOOS=js included (where the host has a
// file system). The data is not synced to the disk: a crash of the
// machine (not of the program) can still lose it.
package atomicfile
