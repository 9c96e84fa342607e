package torch

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
		if err := writeAtomic(filepath.Join(dir, "in", fmt.Sprintf("%d.npz", pos)), func(tmp string) error { return writeNpz(tmp, arrays) }); err != nil {
			return err
		}
	}
	raw, err := json.Marshal(b.job)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "job.json"), func(path string) error { return os.WriteFile(path, raw, 0o644) })
}

// writeNpz writes arrays as a NumPy .npz file: a zip archive holding
// NAME.npy for each, stored uncompressed (numpy.savez's layout).
func writeNpz(path string, arrays map[string]tensor.Tensor) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	z := zip.NewWriter(f)
	names := slices.Sorted(maps.Keys(arrays))
	for _, name := range names {
		w, err := z.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
		if err == nil {
			err = npyfile.Encode(w, arrays[name])
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	if err := z.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readNpz reads every array of a .npz file, by name (without .npy).
func readNpz(path string) (map[string]tensor.Tensor, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	out := map[string]tensor.Tensor{}
	for _, f := range z.File {
		t, err := readMember(f)
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, fmt.Errorf("%s in %s: %w", f.Name, path, err)
		}
		out[strings.TrimSuffix(f.Name, ".npy")] = t
	}
	return out, nil
}

// readMember decodes one .npy member of a .npz file, after asking the
// result budget about its size.
func readMember(f *zip.File) (tensor.Tensor, error) {
	if err := tensor.CheckBytes("reading a shard", f.Name, int64(min(f.UncompressedSize64, math.MaxInt64)), "the .npy member's size"); err != nil {
		return tensor.Tensor{}, err
	}
	r, err := f.Open()
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer r.Close()
	raw, err := io.ReadAll(r)
	if err != nil {
		return tensor.Tensor{}, err
	}
	t, _, err := npyfile.Decode(raw, npyfile.Options{})
	return t, err
}

// writeAtomic writes path through fill on a temporary name beside it,
// then renames it: a reader sees the whole file or none.
func writeAtomic(path string, fill func(tmp string) error) error {
	tmp := path + ".tmp"
	if err := fill(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
