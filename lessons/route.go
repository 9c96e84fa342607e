package lessons

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Route is where a learner is, as the playground's URL hash writes it:
// #/lesson/expand-repeat/3 is step 3 of expand-repeat, and
// #/lesson/expand-repeat/3?done=1,2 also records the steps whose
// questions were answered right, so a reload or a shared link keeps the
// progress.
type Route struct {
	ID   string
	Step int   // 1-based
	Done []int // steps answered, ascending
}

// String writes the hash: #/lesson/ID/STEP[?done=…].
func (r Route) String() string {
	s := fmt.Sprintf("#/lesson/%s/%d", r.ID, r.Step)
	if len(r.Done) > 0 {
		s += "?done=" + joinInts(r.Done)
	}
	return s
}

// ParseRoute reads a hash that String wrote; ok is false when it is not
// a lesson's. The step and the done list are checked against ls: a step
// past the lesson's end comes back as its last, unknown done steps are
// dropped.
func ParseRoute(hash string, ls []*Lesson) (r Route, ok bool) {
	path, query, _ := strings.Cut(strings.TrimPrefix(hash, "#"), "?")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] != "lesson" {
		return Route{}, false
	}
	l := Find(ls, parts[1])
	if l == nil {
		return Route{}, false
	}
	r = Route{ID: l.ID, Step: 1}
	if len(parts) == 3 {
		n, err := strconv.Atoi(parts[2])
		if err != nil {
			return Route{}, false
		}
		r.Step = min(max(n, 1), len(l.Steps))
	}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k != "done" {
			continue
		}
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err == nil && n >= 1 && n <= len(l.Steps) && !slices.Contains(r.Done, n) {
				r.Done = append(r.Done, n)
			}
		}
	}
	slices.Sort(r.Done)
	return r, true
}

// Next is the route of the following step (the same one at the end).
func (r Route) Next(l *Lesson) Route { r.Step = min(r.Step+1, len(l.Steps)); return r }

// Prev is the route of the step before (the same one at the start).
func (r Route) Prev() Route { r.Step = max(r.Step-1, 1); return r }

// Answered records that the step's question was answered right.
func (r Route) Answered(step int) Route {
	if !slices.Contains(r.Done, step) {
		r.Done = append(slices.Clone(r.Done), step)
		slices.Sort(r.Done)
	}
	return r
}
