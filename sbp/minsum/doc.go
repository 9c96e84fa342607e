// Package minsum solves min-sum labelling problems exactly: variables
// v, each taking one of dom[v] values, and factors, each a table over a
// few variables; find the assignment whose factors sum least. It knows
// nothing of tensors or SBP: the planner (package planner) turns a
// program into variables (each op's candidate signatures) and factors
// (each tensor's boxing cost) and reads the plan off the solution.
//
// # Factors and classes
//
// A Factor is a table over sorted variables Vars. It does not tell apart
// the values of a variable that mean the same to it, so per variable it
// keeps the class of each value (Cls) and the number of classes (N), and
// its table Tab is indexed by classes, row-major, the last variable
// fastest. Entries are int64 with Infinite for "impossible"; Add keeps
// sums at Infinite.
//
// # Elimination
//
// Solve runs variable elimination (bucket elimination, Dechter 1999;
// Koller & Friedman, Probabilistic Graphical Models, §9.3, in its
// min-sum form): eliminating v joins the factors that hold v into one
// table over their other variables (Eliminate), the minimum over v's
// values, keeping the argmin; back-substitution in reverse order reads
// each variable's value off the argmins. A join refines each
// variable's classes to the tuples of its classes in the joined
// factors (Refine). Order picks the order greedily by the size of each
// joined table (JoinSize, SymbolicJoin: the join without its table),
// and reports the largest table and the work, Σ over the steps of the
// joined table's entries, which is exponential only in the width of the
// elimination. Prune first merges every class of a variable that an
// earlier class dominates in every factor into it: the argmins, and so
// the solution, are the same over smaller tables.
//
// # The LP bound
//
// Elimination is exponential in its width; a bound can shrink the
// problem first. Relaxation is the LP relaxation of the labelling
// (Werner, "A Linear Programming Approach to Max-sum Problem: A
// Review", PAMI 2007; for factors of any arity Werner, PAMI 2010). A
// reparametrization moves cost between each variable's own table u_v
// and the factors that hold it so that every assignment's total is
// unchanged,
//
//	Σ_f θ_f(x_f) + Σ_v u_v(x_v) = Σ_f θ⁰_f(x_f) for every x,
//
// and LB = Σ_f min θ_f + Σ_v min u_v (Bound) is a lower bound on every
// total. Pass runs the updates of sequential reweighted message passing
// (SRMP: Kolmogorov, "A New Look at Reweighted Message Passing", PAMI
// 2015; TRW-S is its pairwise case) forward or back, which raise LB.
// CandidateBounds bounds, for each value k of v, every assignment that
// takes it; a value whose bound passes a known total (plus Slack for
// floating point) is in no optimal assignment and may be dropped
// (Restrict). Decode rounds the relaxation to an assignment (TRW-S's:
// each variable at its least cost given those before it), an upper
// bound. FixSingles takes variables left with one value out of the
// factors.
//
// # Cancelling
//
// A Poller, given to the long loops, reads its context every PollEvery
// units of work (a table entry, a variable scored), so a cancelled
// solve ends within milliseconds.
package minsum
