package planner

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/tensor"
)

// planTotals is what a plan's JSON says of the two strategies: the bytes
// and times of each, whether they differ anywhere, and the collectives
// the plan itself runs.
type planTotals struct {
	Total       int64             `json:"total_send_bytes"`
	Greedy      int64             `json:"greedy_send_bytes"`
	Exact       *int64            `json:"exact_send_bytes"`
	GreedyTime  float64           `json:"greedy_time_s"`
	ExactTime   *float64          `json:"exact_time_s"`
	Differences []json.RawMessage `json:"differences"`
	Steps       []struct {
		Kind        StepKind `json:"kind"`
		SendBytes   int64    `json:"send_bytes"`
		Collectives []string `json:"collectives"`
	} `json:"steps"`
}

// readTotals is pl's JSON read back as planTotals.
func readTotals(t *testing.T, pl *Plan) planTotals {
	t.Helper()
	data, err := json.Marshal(pl)
	if err != nil {
		t.Fatal(err)
	}
	var out planTotals
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// collectives is every collective the plan's boxings that send
// anything run, in order.
func (p planTotals) collectives() []string {
	var out []string
	for _, s := range p.Steps {
		if s.Kind == StepBoxing && s.SendBytes > 0 {
			out = append(out, s.Collectives...)
		}
	}
	return out
}

// The phrases a caption states the strategies' results in. A quantity
// is written as tensor.FormatBytes or cluster.FormatSeconds writes it.
const (
	bytesQ = `(\d+(?:\.\d+)? (?:B|KiB|MiB|GiB))`
	timeQ  = `(\d+(?:\.\d+)? (?:ps|ns|µs|ms|s))`
	// greedyIs is greedy named as the captions name it
	greedyIs = `greedy(?:, OneFlow's eager rule,| \(OneFlow's eager rule\))?`
	// clause is any words within one clause (a decimal point is no stop)
	clause = `(?:[^.:;]|\.\d)*?`
)

// captionClaim is one kind of claim about the strategies: the phrase
// and the check of what it captured against the entry's plan (and the
// other entries', for a claim that points at one).
type captionClaim struct {
	phrase *regexp.Regexp
	check  func(m []string, own planTotals, all map[string]planTotals) string
}

// captionClaims is every kind of claim a caption may make about greedy
// or exact.
var captionClaims = []captionClaim{
	{regexp.MustCompile(`(?i)` + greedyIs + ` finds the same plan(: one all-reduce)?`), func(m []string, own planTotals, _ map[string]planTotals) string {
		if len(own.Differences) > 0 || own.Greedy != *own.Exact {
			return "greedy differs from exact at " + strconv.Itoa(len(own.Differences)) + " op(s), " + tensor.FormatBytes(own.Greedy) + " against " + tensor.FormatBytes(*own.Exact)
		}
		if m[1] != "" && !slices.Equal(own.collectives(), []string{"all-reduce"}) {
			return "the plan runs " + strings.Join(own.collectives(), ", ") + ", not one all-reduce"
		}
		return ""
	}},
	{regexp.MustCompile(`(?i)` + greedyIs + clause + ` sends (the same )?` + bytesQ + `(?: in (\d+) collectives)?`), func(m []string, own planTotals, _ map[string]planTotals) string {
		if got := tensor.FormatBytes(own.Greedy); got != m[2] {
			return "greedy sends " + got
		}
		if m[1] != "" && own.Greedy != *own.Exact {
			return "exact sends " + tensor.FormatBytes(*own.Exact) + ", not the same"
		}
		return ""
	}},
	{regexp.MustCompile(`(?i)greedy takes ` + timeQ), func(m []string, own planTotals, _ map[string]planTotals) string {
		if got := cluster.FormatSeconds(own.GreedyTime); got != m[1] {
			return "greedy takes " + got
		}
		return ""
	}},
	{regexp.MustCompile(`(?i)\bexact(?: plan)? sends (?:` + clause + `, )?` + bytesQ), func(m []string, own planTotals, _ map[string]planTotals) string {
		if got := tensor.FormatBytes(*own.Exact); got != m[1] {
			return "exact sends " + got
		}
		return ""
	}},
	{regexp.MustCompile(`(?i)\bexact\b` + clause + ` takes ` + timeQ), func(m []string, own planTotals, _ map[string]planTotals) string {
		if own.ExactTime == nil || cluster.FormatSeconds(*own.ExactTime) != m[1] {
			return "exact's time is not " + m[1]
		}
		return ""
	}},
	{regexp.MustCompile(`(?i)` + bytesQ + `, (?:greedy and exact alike|what exact sends too)|sends the same ` + bytesQ + ` as greedy`), func(m []string, own planTotals, _ map[string]planTotals) string {
		q := m[1] + m[2]
		if tensor.FormatBytes(own.Greedy) != q || tensor.FormatBytes(*own.Exact) != q {
			return "greedy sends " + tensor.FormatBytes(own.Greedy) + ", exact " + tensor.FormatBytes(*own.Exact)
		}
		return ""
	}},
	// a pointer at another picture: some program of the gallery has both
	{regexp.MustCompile(`(?i)\(greedy ` + bytesQ + `, exact ` + bytesQ + `\)`), func(m []string, _ planTotals, all map[string]planTotals) string {
		for _, p := range all {
			if tensor.FormatBytes(p.Greedy) == m[1] && tensor.FormatBytes(*p.Exact) == m[2] {
				return ""
			}
		}
		return "no program of the gallery has those totals"
	}},
}

// strategyWord finds a sentence that speaks of greedy or of exact (the
// flag --strategy exact and the adverb "exactly" aside).
var strategyWord = regexp.MustCompile(`(?i)\b(greedy|exact)\b`)

// TestGalleryStrategyClaims: every sentence of a program's caption that
// speaks of greedy or exact makes claims this test reads (captionClaims)
// and each holds in the plans' JSON: greedy's and exact's bytes and
// times, "finds the same plan" where the two differ nowhere, a count of
// collectives. A sentence naming a strategy with no claim the test can
// read fails too, so no caption's word about the strategies goes
// unchecked. The collectives counted are greedy's own plan's.
func TestGalleryStrategyClaims(t *testing.T) {
	entries := galleryEntries(t)
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	all := map[string]planTotals{}
	greedyPlans := map[string]planTotals{}
	for _, name := range names {
		// planned exactly, the JSON has both strategies' totals
		pl, _ := galleryPlanAs(t, entries, name, Exact)
		all[name] = readTotals(t, pl)
		if all[name].Exact == nil {
			t.Fatalf("%s: the plan has no exact total", name)
		}
		g, _ := galleryPlanAs(t, entries, name, Greedy)
		greedyPlans[name] = readTotals(t, g)
	}
	sentence := regexp.MustCompile(`\. |; `)
	checked := 0
	for _, name := range names {
		caption := strings.ReplaceAll(entries[name].caption, "--strategy exact", "")
		for _, s := range sentence.Split(caption, -1) {
			if !strategyWord.MatchString(s) {
				continue
			}
			read := false
			for _, c := range captionClaims {
				for _, m := range c.phrase.FindAllStringSubmatch(s, -1) {
					read = true
					checked++
					if why := c.check(m, all[name], all); why != "" {
						t.Errorf("%s: %q: %s", name, m[0], why)
					}
					if len(m) > 3 && strings.HasPrefix(strings.ToLower(m[0]), "greedy") && m[3] != "" {
						if n := len(greedyPlans[name].collectives()); strconv.Itoa(n) != m[3] {
							t.Errorf("%s: %q: greedy runs %d collectives", name, m[0], n)
						}
					}
				}
			}
			if !read {
				t.Errorf("%s: %q speaks of a strategy with no claim the test reads (captionClaims)", name, s)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d claims read in the gallery's captions", checked)
	}
}
