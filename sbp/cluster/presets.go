package cluster

import (
	"errors"
	"io/fs"
	"strings"
)

// The presets' numbers, each with its source (docs/reference.md, "The
// presets", gives the links and says how each number was read off them):
//
//	H100 SXM          67 TFLOP/s float32 (CUDA cores), 989 TFLOP/s bf16 and
//	                  f16 (tensor cores, dense), 3.35 TB/s HBM3, 80 GB:
//	                  NVIDIA's H100 datasheet
//	NVLink 4 (H100)   450 GB/s per direction per GPU (18 links × 25 GB/s):
//	                  the datasheet's 900 GB/s bidirectional; the JAX scaling
//	                  book's GPU chapter
//	InfiniBand NDR    50 GB/s per direction per GPU: one 400 Gb/s ConnectX-7
//	                  per GPU in a DGX H100 (NVIDIA's DGX H100 user guide)
//	α NVLink, α IB    3 µs and 10 µs per ring step: NCCL's tuner constants
//	                  for a ring step (NVLink Simple 3.4 µs, LL128 1.9 µs;
//	                  network Simple 14 µs, LL128 4 µs)
//	TPU v5e           197 TFLOP/s (bf16 MXU; float32 matmuls run as one bf16
//	                  pass at JAX's default precision), 819 GB/s HBM2, 16 GB:
//	                  Google's TPU v5e page; ICI 45 GB/s one way per link,
//	                  90 GB/s both ways on a ring with wraparound, 1 µs per hop:
//	                  the JAX scaling book's TPU chapter
//	loopback          gloo over 127.0.0.1, 4 processes on this project's
//	                  2-core machine: `stridelab calibrate --engine torch
//	                  --runs 9`, November 2026 (docs/performance.md)
var (
	h100 = Device{FLOPs: 6.7e13, FLOPs16: 9.89e14, MemBytes: 3.35e12, MemCapacity: 8e10}
	// nvlink is NVLink 4 inside an 8-GPU H100 node, through its NVSwitches.
	nvlink = Link{Alpha: 3e-6, Beta: 4.5e11}
	// ndr is InfiniBand NDR between nodes, one 400 Gb/s NIC per GPU.
	ndr = Link{Alpha: 1e-5, Beta: 5e10}
	// ici is one axis of a TPU v5e slice's 2-D torus, with its wraparound
	// (a full axis of 16 chips): both directions of the ring carry data.
	ici = Link{Alpha: 1e-6, Beta: 9e10}
	// iciNoWrap is an axis shorter than 16 chips: no wraparound, so a
	// collective along it takes about twice as long (45 GB/s one way).
	iciNoWrap = Link{Alpha: 1e-6, Beta: 4.5e10}
	tpuV5e    = Device{FLOPs: 1.97e14, MemBytes: 8.19e11, MemCapacity: 1.6e10}
	// loopback is the file `stridelab calibrate` wrote, as written: the
	// middle of three runs in α and β (docs/performance.md has all three).
	loopback = Cluster{Name: "loopback", Links: []Link{{Alpha: 0.000232, Beta: 5.23e8}},
		Device: Device{FLOPs: 1.45e9, MemBytes: 5.3e9, MemCapacity: 6.32e9}}
)

// presets is the one table of named clusters; a new preset is a row.
var presets = []Cluster{
	// h100-node is one level, so any mesh of its 8 GPUs runs on NVLink.
	{Name: "h100-node", Levels: []Level{{Devices: 8, Link: nvlink}}, Device: h100},
	{Name: "two-h100-nodes", Links: []Link{ndr, nvlink}, Device: h100},
	{Name: "tpu-v5e", Links: []Link{ici, ici}, Device: tpuV5e},
	loopback,
}

// Presets returns the built-in clusters, in the order the docs list them.
func Presets() []Cluster {
	out := make([]Cluster, len(presets))
	for i, c := range presets {
		out[i] = c.Clone()
	}
	return out
}

// PresetNames returns the presets' names, in order.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, c := range presets {
		names[i] = c.Name
	}
	return names
}

// Preset returns the built-in cluster named name: a preset of the table
// or a family's (h100-nodes:4; a family's name with a bad size is not a
// preset: Resolve says why).
func Preset(name string) (Cluster, bool) {
	for _, c := range presets {
		if c.Name == name {
			return c.Clone(), true
		}
	}
	if c, ok, err := familyPreset(name); ok && err == nil {
		return c, true
	}
	return Cluster{}, false
}

// Resolve returns the cluster a user names, as --cluster takes it: the
// preset of that name, else the file at that path read by read (nil
// reads nothing: only presets then). When neither exists the error wraps
// ErrNotFound and lists the presets; a file that exists but is not a
// cluster file is Parse's error.
func Resolve(arg string, read func(path string) ([]byte, error)) (Cluster, error) {
	if c, ok := Preset(arg); ok {
		return c, nil
	}
	if _, ok, err := familyPreset(arg); ok {
		return Cluster{}, err
	}
	names := "the presets are " + listWords(append(PresetNames(), FamilyUsages()...))
	if arg == "" {
		return Cluster{}, newError(ErrNotFound, "", "", "no cluster named; give a preset or a file (%s)", names)
	}
	if read == nil {
		return Cluster{}, newError(ErrNotFound, arg, "", "no preset of that name; %s", names)
	}
	data, err := read(arg)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Cluster{}, newError(ErrNotFound, arg, "", "no preset of that name and no such file; %s", names)
		}
		return Cluster{}, newError(ErrNotFound, arg, "", "no preset of that name, and the file cannot be read: %s", pathErrorText(err))
	}
	return Parse(arg, data)
}

// pathErrorText is an os error without the path it repeats.
func pathErrorText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return strings.TrimSpace(err.Error())
}
