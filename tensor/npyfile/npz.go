package npyfile

import (
	"archive/zip"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// EncodeNpz writes arrays as a NumPy .npz file (numpy.savez's layout): a
// zip archive holding NAME.npy for each array, in name order, stored
// uncompressed, each as Encode writes it.
func EncodeNpz(w io.Writer, arrays map[string]tensor.Tensor) error {
	z := zip.NewWriter(w)
	for _, name := range slices.Sorted(maps.Keys(arrays)) {
		m, err := z.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
		if err == nil {
			err = Encode(m, arrays[name])
		}
		if err != nil {
			return fmt.Errorf("npyfile: %s.npy: %w", name, err)
		}
	}
	return z.Close()
}

// ReadNpz loads every array of the .npz file at path, by name (the
// member's name less .npy), as Decode loads one .npy file; each
// member's notes come back prefixed with its name. A member larger than
// the result budget (tensor.MaxBytes) is refused before it is read. On
// an error no array is kept.
func ReadNpz(path string, opt Options) (map[string]tensor.Tensor, []string, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, nil, fmt.Errorf("npyfile: %w", err)
	}
	defer z.Close()
	out := map[string]tensor.Tensor{}
	var notes []string
	for _, f := range z.File {
		t, n, err := readMember(f, opt)
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, nil, fmt.Errorf("npyfile: %s in %s: %w", f.Name, path, err)
		}
		name := strings.TrimSuffix(f.Name, ".npy")
		out[name] = t
		for _, s := range n {
			notes = append(notes, name+": "+s)
		}
	}
	return out, notes, nil
}

// readMember decodes one .npy member of a .npz file, after asking the
// result budget about its size.
func readMember(f *zip.File, opt Options) (tensor.Tensor, []string, error) {
	if err := tensor.CheckBytes("reading a .npz member", f.Name, int64(min(f.UncompressedSize64, math.MaxInt64)), "the .npy member's size"); err != nil {
		return tensor.Tensor{}, nil, err
	}
	r, err := f.Open()
	if err != nil {
		return tensor.Tensor{}, nil, err
	}
	defer r.Close()
	raw, err := io.ReadAll(r)
	if err != nil {
		return tensor.Tensor{}, nil, err
	}
	return Decode(raw, opt)
}
