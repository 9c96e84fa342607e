package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Parse reads a cluster in the file form (the package doc shows it).
// It is strict: the top level and every link and the device must be
// objects with exactly their fields (a link may also have its optional
// "collectives", OwnCollectives' form: only the collectives of OwnCollectives,
// each with exactly alpha_s and beta_bytes_per_s), every number a JSON
// number (not a string) that is finite and positive, the name a
// non-empty string, and there must be 1 to 8 links. The first problem found is the error, one
// line that names source (the file, as the user gave it) and the field:
//
//	cluster two.json: links[1].beta_bytes_per_s: must be a positive number of bytes per second, got 0
//
// Instead of "links" a file may give "levels", a hierarchy innermost
// first, each {"devices": N, "alpha_s": …, "beta_bytes_per_s": …}
// with optional "collectives" and "wrap" (Level; Cluster.On gives a
// placement's mesh dims their links).
//
// Parse does not know the mesh; Cluster.Check matches the links to a
// placement.
func Parse(source string, data []byte) (Cluster, error) {
	bad := func(field, format string, args ...any) (Cluster, error) {
		return Cluster{}, newError(ErrInvalid, source, field, format, args...)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return bad("", "empty; a cluster file is a JSON object %s", shape)
	}
	if err := syntax(data); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset-1)
			return bad("", "not JSON: line %d, column %d: %s", line, col, strings.TrimPrefix(se.Error(), "json: "))
		}
		return bad("", "not JSON: %v", err)
	}
	top, err := object(source, "", data, "a JSON object "+shape, []string{"name", "links", "levels", "device"})
	if err != nil {
		return Cluster{}, err
	}
	var c Cluster
	rawName, ok := top["name"]
	rawName = bytes.TrimSpace(rawName)
	if !ok {
		return bad("name", "missing; give the cluster's name, e.g. \"name\": \"my-cluster\"")
	}
	if len(rawName) == 0 || rawName[0] != '"' || json.Unmarshal(rawName, &c.Name) != nil {
		return bad("name", "must be a string, got %s", describe(rawName))
	}
	if err := checkName(source, c.Name); err != nil {
		return Cluster{}, err
	}

	rawLinks, hasLinks := top["links"]
	rawLevels, hasLevels := top["levels"]
	switch {
	case hasLinks && hasLevels:
		return bad("levels", "a cluster has links (one per mesh dim) or levels (a hierarchy, innermost first), not both")
	case hasLevels:
		if c.Levels, err = parseLevels(source, rawLevels); err != nil {
			return Cluster{}, err
		}
	case !hasLinks:
		return bad("links", "missing; give one link per mesh dim: [{\"alpha_s\": …, \"beta_bytes_per_s\": …}]")
	default:
		var links []json.RawMessage
		if rawLinks = bytes.TrimSpace(rawLinks); len(rawLinks) == 0 || rawLinks[0] != '[' || json.Unmarshal(rawLinks, &links) != nil {
			return bad("links", "must be a list of links, one per mesh dim, got %s", describe(rawLinks))
		}
		if len(links) == 0 || len(links) > maxLinks {
			return bad("links", "must list 1 to %d links, one per mesh dim; got %d", maxLinks, len(links))
		}
		for i, raw := range links {
			path := fmt.Sprintf("links[%d]", i)
			obj, err := object(source, path, raw, `a link {"alpha_s": …, "beta_bytes_per_s": …}`, []string{alphaField.name, betaField.name, "collectives"})
			if err != nil {
				return Cluster{}, err
			}
			l, err := parseLink(source, path, obj)
			if err != nil {
				return Cluster{}, err
			}
			c.Links = append(c.Links, l)
		}
	}

	rawDevice, ok := top["device"]
	if !ok {
		return bad("device", `missing; give {"flops_per_s": …, "mem_bytes_per_s": …, "mem_capacity_bytes": …}`)
	}
	dev, err := object(source, "device", rawDevice, `a device {"flops_per_s": …, "mem_bytes_per_s": …, "mem_capacity_bytes": …}`,
		[]string{flopsField.name, memBytesField.name, memCapacityField.name, flops16Field.name})
	if err != nil {
		return Cluster{}, err
	}
	if _, ok := dev[flops16Field.name]; ok {
		if c.Device.FLOPs16, err = numberField(source, "device", dev, flops16Field); err != nil {
			return Cluster{}, err
		}
	}
	for _, f := range []struct {
		field
		to *float64
	}{{flopsField, &c.Device.FLOPs}, {memBytesField, &c.Device.MemBytes}, {memCapacityField, &c.Device.MemCapacity}} {
		if *f.to, err = numberField(source, "device", dev, f.field); err != nil {
			return Cluster{}, err
		}
	}
	if err := c.Validate(); err != nil { // every check above has run; this keeps Parse and Validate one rule
		return Cluster{}, &Error{Source: source, Field: err.(*Error).Field, Detail: err.(*Error).Detail, Kind: ErrInvalid}
	}
	return c, nil
}

// parseLink reads a link's numbers (and its optional collectives) from
// obj, a link or a level at path.
func parseLink(source, path string, obj map[string]json.RawMessage) (Link, error) {
	var l Link
	var err error
	if l.Alpha, err = numberField(source, path, obj, alphaField); err == nil {
		l.Beta, err = numberField(source, path, obj, betaField)
	}
	if own, ok := obj["collectives"]; ok && err == nil {
		err = parseOwn(source, path, own, &l)
	}
	return l, err
}

// parseLevels reads the levels' list: 1 to 8 objects, innermost first,
// each {"devices": N, "alpha_s": …, "beta_bytes_per_s": …} with
// optional "collectives" as a link's.
func parseLevels(source string, raw []byte) ([]Level, error) {
	var levels []json.RawMessage
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &levels) != nil {
		return nil, newError(ErrInvalid, source, "levels", "must be a list of levels, innermost first, got %s", describe(raw))
	}
	if len(levels) == 0 || len(levels) > maxLinks {
		return nil, newError(ErrInvalid, source, "levels", "must list 1 to %d levels, innermost first; got %d", maxLinks, len(levels))
	}
	var out []Level
	for i, r := range levels {
		path := fmt.Sprintf("levels[%d]", i)
		obj, err := object(source, path, r, `a level {"devices": …, "alpha_s": …, "beta_bytes_per_s": …}`, []string{"devices", alphaField.name, betaField.name, "collectives", "wrap"})
		if err != nil {
			return nil, err
		}
		var n int
		rawN, ok := obj["devices"]
		if !ok {
			return nil, newError(ErrInvalid, source, path+".devices", "missing; give how many blocks of the level below (devices, for the first) this level joins")
		}
		if json.Unmarshal(rawN, &n) != nil || n < 1 {
			return nil, newError(ErrInvalid, source, path+".devices", "must be a whole number from 1, got %s", describe(rawN))
		}
		l, err := parseLink(source, path, obj)
		if err != nil {
			return nil, err
		}
		var wrap bool
		if raw, ok := obj["wrap"]; ok && json.Unmarshal(raw, &wrap) != nil {
			return nil, newError(ErrInvalid, source, path+".wrap", "must be true (the level's blocks form a ring with its wraparound) or false, got %s", describe(raw))
		}
		out = append(out, Level{Devices: n, Link: l, Wrap: wrap})
	}
	return out, nil
}

// syntax returns json's syntax error for data, or nil when data is one
// JSON value (its numbers may be of any size: Parse says which is out of
// range).
func syntax(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var v any
	return json.Unmarshal(data, &v)
}

// shape is the file form in one line, for errors.
const shape = `{"name": …, "links": [{"alpha_s": …, "beta_bytes_per_s": …}, …], "device": {"flops_per_s": …, "mem_bytes_per_s": …, "mem_capacity_bytes": …}}`

// object reads raw (valid JSON) as an object whose fields are among
// allowed; what says what the object should be.
func object(source, path string, raw []byte, what string, allowed []string) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, newError(ErrInvalid, source, path, "must be %s, got %s", what, describe(raw))
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		where, fields := "a cluster file has", listWords(allowed)
		switch {
		case strings.HasSuffix(path, ".collectives"):
			where = "a link's own α and β are for"
		case strings.Contains(path, ".collectives."):
			where = "a collective's own α and β are"
		case strings.HasPrefix(path, "links"):
			// The optional field after the two every link has.
			where, fields = "a link has", listWords(allowed[:2])+", and may have "+allowed[2]
		case strings.HasPrefix(path, "levels"):
			where, fields = "a level has", listWords(allowed[:3])+", and may have "+listWords(allowed[3:])
		case path == "device":
			where, fields = "the device has", listWords(allowed[:3])+", and may have "+allowed[3]
		}
		return nil, newError(ErrInvalid, source, path, "unknown field %q; %s %s", unknown[0], where, fields)
	}
	return m, nil
}

// numberField reads the number f of obj, at path.
func numberField(source, path string, obj map[string]json.RawMessage, f field) (float64, error) {
	full := path + "." + f.name
	raw, ok := obj[f.name]
	if !ok {
		return 0, newError(ErrInvalid, source, full, "missing; give %s in %s", f.what, f.unit)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		hint := ""
		if len(raw) > 0 && raw[0] == '"' {
			hint = " (write numbers without quotes)"
		}
		return 0, newError(ErrInvalid, source, full, "must be a positive number of %s, got %s%s", f.unit, describe(raw), hint)
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, newError(ErrInvalid, source, full, "must be a positive number of %s, got %s, which is out of range", f.unit, raw)
	}
	if err := checkNumber(source, full, f, v); err != nil {
		return 0, newError(ErrInvalid, source, full, "must be a positive number of %s, got %s", f.unit, raw)
	}
	return v, nil
}

// describe names a JSON value for an error: a number or literal as
// written, a string quoted, an object or list by its kind.
func describe(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if len(s) > 40 {
				s = s[:40] + "…"
			}
			return fmt.Sprintf("the string %q", s)
		}
	}
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}

// listWords spells [a b c] as "a, b and c".
func listWords(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// position turns the index of a byte into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}
