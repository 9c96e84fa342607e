// Package program is the language of OneFlow's global view for a whole
// program: people write ops on global tensors as if on one device, one
// statement a line, and name the placement, the inputs' SBPs and the
// result to differentiate. Parse reads a program into statements (Stmt);
// OneOp writes the program of a single op. What the program becomes is
// other packages' job: graph adds its backward, planner picks every op's
// SBP signature and the boxings between them.
//
// # The language
//
// One statement a line, or several separated by ';'; '#' starts a
// comment. The words are the CLI's:
//
//	placement 4                      # 4 | 0-3 | cpu:0,1,2,3 | [[0,1],[2,3]], as --placement
//	x = input 64,32 S(0)             # shape and SBP ((S(0), B) on a 2-D mesh); values 0, 1, 2, … (float32)
//	w = input 32,16 B from w.npy     # or the logical values of a .npy file
//	u = input 16,16 B from uniform   # or values spread over [-1, 1): tensor.Uniform(name, shape)
//	m = const 16,16 B from mask.npy  # a constant (a mask, positions): an input that gets no gradient
//	y = matmul x w                   # also batched: [..., m, k] x [..., k, n], batch dims broadcast
//	b = input 16 B
//	z = add y b                      # add sub mul div max min, with NumPy broadcasting
//	h = tanh z                       # exp log neg sqrt rsqrt tanh relu erf square, elementwise
//	p = softmax h -1                 # softmax along one dim (negative counts from the end)
//	a = scale h 0.5                  # times a constant (which gets no gradient)
//	e = expand h 2,64,16             # expand SIZE (-1 keeps a dim), repeat TIMES
//	v = reshape e 2,8,8,16           # the same elements, another shape (one size may be -1)
//	q = permute v 0,2,1,3            # dim k of q is dim order[k] of v; transpose swaps the last two
//	s = sum e 1,1,1                  # sum | max | min | mean TARGET: reduce to a shape
//	t = box y B                      # an explicit boxing (OneFlow's to_global)
//	wb = box w B regather            # FSDP: freed after the forward, boxed from w again for the backward
//	grad s                           # the backward from s, seeded with ones
//
// The placement comes first; names are defined once, before use; grad
// comes last. A fault is an [*Error] in one line naming the line, the
// column, the statement and the values involved.
//
// # Platform support
//
// Pure Go over tensor and sbp; no file access (the caller reads the .npy
// files a program names), so it builds for GOOS=js.
package program
