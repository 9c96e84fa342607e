package cluster

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp"
)

// A link's own α and β per collective. The ring formulas price every
// collective on a link with its one α and β; a library that runs a
// collective another way than that ring is priced badly by them. gloo in
// torch 1.13 has no reduce_scatter (the torch engine runs an all_reduce
// and a slice: an all-reduce's bytes and steps for a reduce-scatter's
// result), and nothing says its all_to_all_single, or a small call of any
// kind, goes at the ring's pace. So a link may carry, per collective, the
// α and β that collective was measured at, run as the engine runs it
// (`stridelab calibrate` writes each collective's own Fit): its time is
// then its own ring formula (RingTerms) with them in place of the
// link's. A link without them — every preset, the file form,
// any real cluster written by hand — is timed by the ring formulas with
// its one α and β.
//
// In the file form they are an optional field of a link, an object keyed
// by the collective's name:
//
//	{"alpha_s": 0.00039, "beta_bytes_per_s": 6.66e+08,
//	 "collectives": {"reduce-scatter": {"alpha_s": 0.00066, "beta_bytes_per_s": 3.6e+08}}}

// Own is one collective's own α and β on a link (the zero Own: none).
type Own struct {
	Alpha float64 // seconds per step of its algorithm, as Link.Alpha
	Beta  float64 // bytes per second, as Link.Beta
}

// ownCollectives is the one table of the collectives a link may carry its
// own α and β for, in the order Link.Collectives holds them: the ones
// that move bytes. A new one is a row (and the array grows with it).
var ownCollectives = [...]sbp.Collective{sbp.AllGather, sbp.ReduceScatter, sbp.AllReduce, sbp.AllToAll}

// OwnCollectives returns the collectives a link may carry its own α and
// β for, in order.
func OwnCollectives() []sbp.Collective { return slices.Clone(ownCollectives[:]) }

// ownIndex is c's index in ownCollectives, or -1.
func ownIndex(c sbp.Collective) int {
	for i, o := range ownCollectives {
		if o == c {
			return i
		}
	}
	return -1
}

// Own returns collective c's own α and β on l, and whether l has them.
func (l Link) Own(c sbp.Collective) (Own, bool) {
	i := ownIndex(c)
	if i < 0 || l.Collectives[i] == (Own{}) {
		return Own{}, false
	}
	return l.Collectives[i], true
}

// WithOwn returns l with collective c's own α and β set to o (the zero
// Own removes them). c must be one of OwnCollectives; o is checked when
// the cluster is (Validate).
func (l Link) WithOwn(c sbp.Collective, o Own) (Link, error) {
	i := ownIndex(c)
	if i < 0 {
		return l, newError(ErrUnsupported, "", "", "a link carries its own α and β for %s, not for %q", listWords(collectiveNames()), c)
	}
	l.Collectives[i] = o
	return l, nil
}

// For returns the α and β collective c runs at along l: its own where l
// has them, else l's.
func (l Link) For(c sbp.Collective) (alpha, beta float64) {
	if o, ok := l.Own(c); ok {
		return o.Alpha, o.Beta
	}
	return l.Alpha, l.Beta
}

// HasOwn reports whether l carries its own α and β for any collective.
func (l Link) HasOwn() bool { return l.Collectives != [len(ownCollectives)]Own{} }

// Plain returns l without its own α and β per collective: the link as
// the file form has it, every collective on its one α and β.
func (l Link) Plain() Link { return Link{Alpha: l.Alpha, Beta: l.Beta} }

func collectiveNames() []string {
	names := make([]string, len(ownCollectives))
	for i, c := range ownCollectives {
		names[i] = string(c)
	}
	return names
}

// checkOwn refuses an own α or β that is not finite and positive, or
// one set without the other; path is the link's ("links[0]").
func checkOwn(source, path string, l Link) error {
	for i, o := range l.Collectives {
		if o == (Own{}) {
			continue
		}
		at := fmt.Sprintf("%s.collectives.%s", path, ownCollectives[i])
		for _, n := range []struct {
			f field
			v float64
		}{{alphaField, o.Alpha}, {betaField, o.Beta}} {
			if err := checkNumber(source, at+"."+n.f.name, n.f, n.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// ownForm is a link's "collectives" field as MarshalJSON writes it:
// every collective that has its own α and β, in ownCollectives' order
// (encoding/json writes a map's keys sorted; the order here is fixed by
// writing the object by hand).
func ownForm(l Link) (json.RawMessage, error) {
	if !l.HasOwn() {
		return nil, nil
	}
	out := []byte{'{'}
	for i, o := range l.Collectives {
		if o == (Own{}) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(string(ownCollectives[i]))
		val, err := json.Marshal(linkForm{Alpha: number(o.Alpha), Beta: number(o.Beta)})
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, key...), ':'), val...)
	}
	return append(out, '}'), nil
}

// parseOwn reads a link's "collectives" field at path ("links[0]"): an
// object whose keys are among OwnCollectives, each a link-like object
// with exactly alpha_s and beta_bytes_per_s, finite and positive.
func parseOwn(source, path string, raw json.RawMessage, l *Link) error {
	at := path + ".collectives"
	names := collectiveNames()
	obj, err := object(source, at, raw, `an object of collectives {"all-gather": {"alpha_s": …, "beta_bytes_per_s": …}, …}`, names)
	if err != nil {
		return err
	}
	for i, name := range names {
		rawOwn, ok := obj[name]
		if !ok {
			continue
		}
		one := at + "." + name
		o, err := object(source, one, rawOwn, `{"alpha_s": …, "beta_bytes_per_s": …}`, []string{alphaField.name, betaField.name})
		if err != nil {
			return err
		}
		var own Own
		if own.Alpha, err = numberField(source, one, o, alphaField); err == nil {
			own.Beta, err = numberField(source, one, o, betaField)
		}
		if err != nil {
			return err
		}
		l.Collectives[i] = own
	}
	return nil
}
