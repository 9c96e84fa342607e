package viz

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The URL hash grammar of the playground, in the CLI's words:
//
//	#/SCENE?KEY=VALUE&KEY=VALUE…[&step=N][&embed=1][&lesson=NAME][&v=N]
//	#/expand?shape=4,1,3&size=4,2,3&step=5
//	#/boxing?shape=25,33&from=S(0)&to=S(1)&placement=4
//	#/placement?shape=8,6&sbp=S(0),P&placement=[[0,1],[2,3]]
//
// The keys are Keys (the flags of `stridelab draw`), so a link and a
// command line name the same scene. Values are percent-escaped only where
// the hash needs it (&, =, #, %, +, spaces and controls), so shapes, SBPs
// and placements stay readable; '+' reads as a space, as in a query.
//
// Versions: a hash without v= is version 1, the grammar above, and always
// will be; a later grammar writes v=2 and keeps reading version 1, so a
// shared link keeps working. Unknown keys are ignored (a link from a newer
// build still opens); old names of keys (hashAliases) are mapped to theirs.

// HashVersion is the version of the hash grammar this build writes.
const HashVersion = 1

// HashOptions are the parts of a hash that are not the scene.
type HashOptions struct {
	Embed   bool   // embed=1: no controls, start paused (teaching pages)
	Version int    // the grammar the hash was written in (1 when it says none)
	Lesson  string // lesson=NAME: the lesson the link opens, "" for none
}

// hashAliases maps names a hash may use to the keys of Keys: the JS
// spellings of the two-word keys.
var hashAliases = map[string]string{
	"bShape": "b-shape", "b_shape": "b-shape",
	"bSbp": "b-sbp", "b_sbp": "b-sbp",
}

// Hash spells the spec as a URL hash: #/expand?shape=4,1,3&size=4,2,3.
func (s Spec) Hash() string { return s.HashWith(HashOptions{}) }

// HashWith spells the spec and the options as a URL hash: the scene's
// keys in the order the scene lists them (required first), the step, then
// the options; a zero option writes nothing.
func (s Spec) HashWith(o HashOptions) string {
	var params [][2]string
	for _, k := range KeysOf(s.Scene) {
		if v, ok := s.Values[k.Name]; ok {
			params = append(params, [2]string{k.Name, v})
		}
	}
	if s.Step > 0 {
		params = append(params, [2]string{"step", strconv.Itoa(s.Step)})
	}
	if o.Lesson != "" {
		params = append(params, [2]string{"lesson", o.Lesson})
	}
	if o.Embed {
		params = append(params, [2]string{"embed", "1"})
	}
	if o.Version > 1 {
		params = append(params, [2]string{"v", strconv.Itoa(o.Version)})
	}
	var b strings.Builder
	b.WriteString("#/")
	b.WriteString(hashEscape(s.Scene))
	for i, p := range params {
		b.WriteByte("?&"[min(i, 1)])
		b.WriteString(p[0])
		b.WriteByte('=')
		b.WriteString(hashEscape(p[1]))
	}
	return b.String()
}

// ParseHash reads a URL hash (with or without its '#') into the spec it
// names, checked as ParseSpec checks the CLI's flags, and its options.
func ParseHash(h string) (Spec, HashOptions, error) {
	opts := HashOptions{Version: 1}
	path, query, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(h, "#"), "/"), "?")
	scene, err := url.PathUnescape(path)
	if err != nil || scene == "" {
		return Spec{}, opts, fmt.Errorf("viz: hash %q: want #/SCENE?KEY=VALUE&…, e.g. #/expand?shape=4,1,3&size=4,2,3", h)
	}
	values := map[string]string{}
	step := 0
	for _, kv := range strings.Split(query, "&") {
		if kv == "" {
			continue
		}
		k, raw, _ := strings.Cut(kv, "=")
		v, err := url.QueryUnescape(raw)
		if err != nil {
			return Spec{}, opts, fmt.Errorf("viz: hash: %s=%s: %v", k, raw, err)
		}
		if a, ok := hashAliases[k]; ok {
			k = a
		}
		switch k {
		case "step":
			if step, err = strconv.Atoi(v); err != nil {
				return Spec{}, opts, fmt.Errorf("viz: hash: step %q is not a whole number", v)
			}
		case "embed":
			opts.Embed = v == "1" || v == "true"
		case "lesson":
			opts.Lesson = v
		case "v":
			if opts.Version, err = strconv.Atoi(v); err != nil || opts.Version < 1 {
				return Spec{}, opts, fmt.Errorf("viz: hash: version %q is not a version (1, 2, …)", v)
			}
			if opts.Version > HashVersion {
				return Spec{}, opts, fmt.Errorf("viz: hash: version %d is newer than this build reads (%d)", opts.Version, HashVersion)
			}
		default:
			if slices.ContainsFunc(Keys, func(key Key) bool { return key.Name == k }) {
				values[k] = v
			}
		}
	}
	spec, err := ParseSpec(scene, values, step)
	return spec, opts, err
}

// hashEscape percent-escapes what a hash value cannot hold as itself:
// everything but letters, digits and -._~!$'()*,;:@/[] (brackets too, so
// placements read as written; browsers leave them in a fragment).
func hashEscape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$'()*,;:@/[]", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
