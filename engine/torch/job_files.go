package torch

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/stridelab/stridelab/internal/atomicfile"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/npyfile"
)

// write writes the job to dir: job.json, and per device its input
// shards in in/POS.npz (INDEX.npy for each input step), each file to a
// temporary name renamed when whole.
func (b *builder) write(dir string) error {
	for _, sub := range []string{"in", "out"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for pos := range b.p.Size() {
		arrays := map[string]tensor.Tensor{}
		for i, ts := range b.shards {
			arrays[strconv.Itoa(i)] = ts[pos]
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, "in", fmt.Sprintf("%d.npz", pos)), func(w io.Writer) error { return npyfile.EncodeNpz(w, arrays) }); err != nil {
			return err
		}
	}
	raw, err := json.Marshal(b.job)
	if err != nil {
		return err
	}
	return writeBytes(filepath.Join(dir, "job.json"), raw)
}

// writeBytes writes raw to path whole (atomicfile.WriteFile).
func writeBytes(path string, raw []byte) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error { _, err := w.Write(raw); return err })
}
