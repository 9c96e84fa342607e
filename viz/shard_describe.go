package viz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp"
)

// describe says what f means at step, from sbp's shards for the step's
// layout: a cell of the logical tensor names every rank holding it, its
// shard's shape and the range of each split axis; a device, its shard.
// A partial value, and a whole copy, are said.
func (s *shardScene) describe(step int, f Focus) (string, error) {
	nd := s.layouts[step]
	shards, err := sbp.Shards(s.shape, s.placement, nd)
	if err != nil {
		return "", err
	}
	if f.Kind == FocusDevice {
		sh := shards[slices.Index(s.placement.Ranks(), f.Rank)]
		return fmt.Sprintf("%s holds %v%s", rankName(sh), sh.Shape, s.shardWords(sh, nd, ", ")), nil
	}
	// The owners of a cell, grouped by the block they hold (under one
	// layout they hold the same block; grouping keeps the words true
	// without assuming it).
	var groups [][]sbp.Shard
	for _, o := range owners(shards, f.Index) {
		sh := shards[o]
		k := slices.IndexFunc(groups, func(g []sbp.Shard) bool {
			return slices.Equal(g[0].Lo, sh.Lo) && slices.Equal(g[0].Hi, sh.Hi) && g[0].Partial == sh.Partial
		})
		if k < 0 {
			groups = append(groups, nil)
			k = len(groups) - 1
		}
		groups[k] = append(groups[k], sh)
	}
	parts := make([]string, len(groups))
	for k, g := range groups {
		names := make([]string, 0, maxRanksListed+1)
		for _, sh := range g[:min(len(g), maxRanksListed+1)] {
			names = append(names, rankName(sh))
		}
		who := andList(names)
		if len(g) > maxRanksListed {
			who = fmt.Sprintf("%s (%d ranks)", listCut(names, len(g), maxRanksListed), len(g))
		}
		each := ""
		if len(g) > 1 {
			each = "each "
		}
		shard, whole := each+"a shard", each+"a whole copy"
		if len(g) == 1 {
			shard = "shard"
		}
		if g[0].Partial { // not a copy: a part of the sum
			whole = each + "all of"
		}
		if s.splitAxes(nd) == nil {
			parts[k] = fmt.Sprintf("%s, %s %v%s", who, whole, g[0].Shape, partialWords(g[0], nd))
		} else {
			parts[k] = fmt.Sprintf("%s, %s %v%s", who, shard, g[0].Shape, s.shardWords(g[0], nd, " at "))
		}
	}
	return fmt.Sprintf("[%s] is on %s", joinInts(f.Index), strings.Join(parts, "; ")), nil
}

// rankName spells a device: rank 2 (coord [1 0]).
func rankName(sh sbp.Shard) string { return fmt.Sprintf("rank %d (coord %v)", sh.Rank, sh.Coord) }

// shardWords says where shard sh lies under nd: the range of every axis
// nd splits after lead (" at rows 13–18, columns 0–10"), a whole copy
// (or all of it, partial) where nothing is split, and a partial value's
// op.
func (s *shardScene) shardWords(sh sbp.Shard, nd sbp.NdSbp, lead string) string {
	axes := s.splitAxes(nd)
	var out string
	switch {
	case len(axes) == 0 && sh.Partial:
		out = ", all of it"
	case len(axes) == 0:
		out = ", a whole copy"
	default:
		ranges := make([]string, len(axes))
		for k, d := range axes {
			ranges[k] = axisRange(len(s.shape), d, sh.Lo[d], sh.Hi[d])
		}
		out = lead + strings.Join(ranges, ", ")
	}
	return out + partialWords(sh, nd)
}

// partialWords says that sh's value is partial under nd, and its op.
func partialWords(sh sbp.Shard, nd sbp.NdSbp) string {
	if !sh.Partial {
		return ""
	}
	return ", partial (" + partialOp([]sbp.NdSbp{nd}) + ")"
}

// splitAxes are the tensor axes nd splits, in order (nil: none).
func (s *shardScene) splitAxes(nd sbp.NdSbp) []int {
	var axes []int
	for _, x := range nd {
		if x.Kind == sbp.Split && !slices.Contains(axes, x.Axis) {
			axes = append(axes, x.Axis)
		}
	}
	slices.Sort(axes)
	return axes
}

// axisRange spells the indices [lo, hi) of axis d of a rank-n tensor as
// a learner reads a grid: rows 13–18 (axis 0 of a matrix), columns 0–10
// (axis 1), elements 2–3 (a vector), axis 2 indices 4–5 (higher ranks);
// one index in the singular (row 13), none as "no rows".
func axisRange(n, d, lo, hi int) string {
	one, many := fmt.Sprintf("axis %d index", d), fmt.Sprintf("axis %d indices", d)
	switch {
	case n == 1:
		one, many = "element", "elements"
	case n == 2 && d == 0:
		one, many = "row", "rows"
	case n == 2 && d == 1:
		one, many = "column", "columns"
	}
	switch hi - lo {
	case 0:
		return "no " + many
	case 1:
		return fmt.Sprintf("%s %d", one, lo)
	}
	return fmt.Sprintf("%s %d–%d", many, lo, hi-1)
}
