// Package python finds the Python interpreter a caller starts: the one
// home of the search that the torch engine (an interpreter that imports
// torch with torch.distributed and gloo, and numpy) and the benchmarks'
// NumPy peer (one that imports numpy) share.
//
// # Overview
//
// [Find] takes a [Need] (a probe, a few lines of Python that exit 0 when
// the interpreter has what the caller needs) and returns the path given,
// when it passes the probe, else the first python3 on PATH that passes
// it, else [Debian]'s when it does. A pass is kept for the life of the
// process (by path and probe); a failure is not, so an interpreter
// installed later, or one whose probe ran out of time, is asked again.
//
// # Errors
//
// When no interpreter passes, the error wraps Need.Err and says in one
// line, after Need.Prefix, what was tried and Need.Install. When the
// caller's context ends during a probe, the error wraps the context's
// error instead (context.Canceled or context.DeadlineExceeded) and
// nothing is kept. A probe that passes [ProbeTimeout] counts as a
// failure of that interpreter.
//
// # Platform support
//
// Every platform with os/exec (not GOOS=js).
package python
