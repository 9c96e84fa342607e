package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/stridelab/stridelab/sbp"
)

// Cluster is named hardware a plan runs on: one link per mesh dim, or a
// hierarchy of levels that gives any mesh its links (On), and the device
// every position of the mesh holds.
type Cluster struct {
	Name string
	// Links[m] joins the devices along mesh dim m. A cluster has links or
	// levels, never both.
	Links []Link
	// Levels, innermost first (a node's NVLink, then the nodes'
	// InfiniBand), give each mesh dim the link of the slowest level its
	// groups cross (On).
	Levels []Level
	Device Device
}

// Link is the connection the devices along one mesh dim talk through,
// as a collective's ring sees it.
type Link struct {
	// Alpha (α) is the latency of one step of a collective's algorithm,
	// in seconds: a ring of n devices takes n−1 such steps.
	Alpha float64
	// Beta (β) is the bandwidth one device sends at along the link, per
	// direction, in bytes per second.
	Beta float64
	// Collectives holds, optionally, a collective's own α and β along
	// this link, measured, which replace Alpha and Beta in its formula
	// (OwnCollectives says when and why); in OwnCollectives' order, the zero Own
	// where a collective has none. The presets have none.
	Collectives [len(ownCollectives)]Own
}

// Device is one position of the mesh: one GPU, TPU chip or process.
type Device struct {
	FLOPs float64 // peak float32 FLOP per second
	// FLOPs16 is the peak for 16-bit floats (bf16, f16: a GPU's tensor
	// cores, a TPU's MXU), FLOP per second; 0 means FLOPs (a chip with
	// no faster 16-bit path).
	FLOPs16     float64
	MemBytes    float64 // memory bandwidth, bytes per second
	MemCapacity float64 // memory, bytes
}

// maxLinks is the most links a cluster has: sbp's meshes have at most 8
// dims (ParsePlacement).
const maxLinks = 8

// Sentinels for errors.Is. Every error this package returns wraps one.
var (
	// ErrInvalid: a cluster file or value is malformed.
	ErrInvalid = errors.New("invalid cluster")
	// ErrNotFound: neither a preset nor a readable file has that name.
	ErrNotFound = errors.New("no such cluster")
	// ErrMesh: the cluster's links do not match the placement's mesh.
	ErrMesh = errors.New("the cluster does not fit the mesh")
	// ErrUnsupported: the time model has no formula for a collective or
	// op, or its arguments are out of range.
	ErrUnsupported = errors.New("no time model")
)

// Error is the error type of this package. Its message is one line:
//
//	cluster <source>: <field>: <detail>
//
// for example "cluster two.json: links[1].beta_bytes_per_s: must be a
// positive number of bytes per second, got 0". Source or Field is left
// out when empty.
type Error struct {
	Source string // the file or preset: "two.json", "h100-node"
	Field  string // the field blamed: "links[1].beta_bytes_per_s"
	Detail string
	Kind   error // one of the sentinels
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("cluster")
	if e.Source != "" {
		b.WriteString(" " + e.Source)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Detail)
	return strings.ReplaceAll(b.String(), "\n", " ")
}

// Unwrap returns the sentinel, so errors.Is(err, ErrInvalid) works.
func (e *Error) Unwrap() error { return e.Kind }

func newError(kind error, source, field, format string, args ...any) error {
	return &Error{Source: source, Field: field, Detail: fmt.Sprintf(format, args...), Kind: kind}
}

// field describes one number of the file form: its JSON name, its unit
// as an error says it, and what it is.
type field struct {
	name, unit, what string
}

var (
	alphaField       = field{"alpha_s", "seconds", "the link's latency per step"}
	betaField        = field{"beta_bytes_per_s", "bytes per second", "the link's bandwidth per direction per device"}
	flopsField       = field{"flops_per_s", "FLOP per second", "the device's peak float32 FLOP/s"}
	flops16Field     = field{"flops16_per_s", "FLOP per second", "the device's peak 16-bit (bf16, f16) FLOP/s"}
	memBytesField    = field{"mem_bytes_per_s", "bytes per second", "the device's memory bandwidth"}
	memCapacityField = field{"mem_capacity_bytes", "bytes", "the device's memory capacity"}
)

// checkNumber refuses a number that is not finite and positive.
func checkNumber(source, path string, f field, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return newError(ErrInvalid, source, path, "must be a positive number of %s, got %s", f.unit, formatNumber(v))
	}
	return nil
}

// CheckName refuses a name a cluster cannot have: an empty one or one
// with control characters (a name appears in one-line errors and
// reports).
func CheckName(name string) error { return checkName("", name) }

func checkName(source, name string) error {
	if strings.TrimSpace(name) == "" {
		return newError(ErrInvalid, source, "name", "must be a non-empty string")
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return newError(ErrInvalid, source, "name", "%q has a control character", name)
		}
	}
	return nil
}

// Validate checks c as Parse checks a file: a name, 1 to 8 links, and
// every number finite and positive. The error's source is c's name.
func (c Cluster) Validate() error {
	src := c.Name
	if err := checkName(src, c.Name); err != nil {
		return err
	}
	if err := c.validateLinks(); err != nil {
		return err
	}
	for _, n := range []struct {
		f field
		v float64
	}{{flopsField, c.Device.FLOPs}, {memBytesField, c.Device.MemBytes}, {memCapacityField, c.Device.MemCapacity}} {
		if err := checkNumber(src, "device."+n.f.name, n.f, n.v); err != nil {
			return err
		}
	}
	if c.Device.FLOPs16 != 0 {
		if err := checkNumber(src, "device."+flops16Field.name, flops16Field, c.Device.FLOPs16); err != nil {
			return err
		}
	}
	return nil
}

// Check reports whether c fits p (On): a cluster of links has one per
// mesh dim of p, a cluster of levels has every device p names. The
// error wraps ErrMesh and says what is missing.
func (c Cluster) Check(p sbp.Placement) error {
	_, err := c.On(p)
	return err
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Clone returns a copy of c that shares nothing with it.
func (c Cluster) Clone() Cluster {
	c.Links = append([]Link(nil), c.Links...)
	c.Levels = append([]Level(nil), c.Levels...)
	return c
}

// formatNumber spells v as the file form does: the shortest text that
// reads back exactly, with an exponent past 4 digits (5e+10, 3e-06, 450).
func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// The file form, as MarshalJSON writes it: every number as formatNumber
// spells it.
type (
	fileForm struct {
		Name   string      `json:"name"`
		Links  []linkForm  `json:"links,omitempty"`
		Levels []levelForm `json:"levels,omitempty"`
		Device deviceForm  `json:"device"`
	}
	levelForm struct {
		Devices int `json:"devices"`
		linkForm
		Wrap bool `json:"wrap,omitempty"`
	}
	linkForm struct {
		Alpha json.Number `json:"alpha_s"`
		Beta  json.Number `json:"beta_bytes_per_s"`
		// Collectives is ownForm's object, absent when the link has none.
		Collectives json.RawMessage `json:"collectives,omitempty"`
	}
	deviceForm struct {
		FLOPs       json.Number `json:"flops_per_s"`
		FLOPs16     json.Number `json:"flops16_per_s,omitempty"`
		MemBytes    json.Number `json:"mem_bytes_per_s"`
		MemCapacity json.Number `json:"mem_capacity_bytes"`
	}
)

func number(v float64) json.Number { return json.Number(formatNumber(v)) }

// MarshalJSON writes c in the file form. It fails on a cluster that
// Validate refuses (JSON has no NaN or Inf).
func (c Cluster) MarshalJSON() ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	f := fileForm{Name: c.Name, Device: deviceForm{FLOPs: number(c.Device.FLOPs), MemBytes: number(c.Device.MemBytes), MemCapacity: number(c.Device.MemCapacity)}}
	if c.Device.FLOPs16 != 0 {
		f.Device.FLOPs16 = number(c.Device.FLOPs16)
	}
	link := func(l Link) (linkForm, error) {
		own, err := ownForm(l)
		return linkForm{number(l.Alpha), number(l.Beta), own}, err
	}
	for _, l := range c.Links {
		lf, err := link(l)
		if err != nil {
			return nil, err
		}
		f.Links = append(f.Links, lf)
	}
	for _, l := range c.Levels {
		lf, err := link(l.Link)
		if err != nil {
			return nil, err
		}
		f.Levels = append(f.Levels, levelForm{l.Devices, lf, l.Wrap})
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads the file form as strictly as Parse does.
func (c *Cluster) UnmarshalJSON(data []byte) error {
	got, err := Parse("", data)
	if err != nil {
		return err
	}
	*c = got
	return nil
}

// File returns c in the file form, indented by two spaces and ending in
// a newline: what `stridelab cluster NAME` prints and Parse reads.
func (c Cluster) File() ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
