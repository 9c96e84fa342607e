package importer

import (
	"strings"
)

// lowerFunc writes one aten op (its overload aside) as statements and
// records what holds its value (l.names, or l.tuples for several).
type lowerFunc func(l *lowering, n *node) error

// opTable is every aten op the importer writes, by its name without the
// overload (aten.add for aten.add.Tensor and aten.add.Scalar).
var opTable map[string]lowerFunc

func init() {
	opTable = map[string]lowerFunc{
		"getitem": lowerGetitem,
		// the same values under another name
		"aten.clone": alias, "aten.detach": alias, "aten.alias": alias, "aten.contiguous": alias,
		"aten.lift_fresh_copy": alias, "aten._to_copy": toCopy, "aten.dropout": alias,
		// views
		"aten.view": reshape, "aten._reshape_alias": reshape, "aten._unsafe_view": reshape, "aten.reshape": reshape,
		"aten.unsqueeze": reshape, "aten.squeeze": reshape, "aten.flatten": reshape,
		"aten.expand": expand, "aten.t": transposeT, "aten.transpose": transpose, "aten.permute": permute,
		"aten.slice": slice,
		// products
		"aten.mm": matmul, "aten.bmm": matmul, "aten.matmul": matmul, "aten.addmm": addmm,
		// elementwise
		"aten.add": addSub("add"), "aten.sub": addSub("sub"), "aten.rsub": rsub, "aten.mul": mul, "aten.div": div,
		"aten.maximum": binary("max"), "aten.minimum": binary("min"),
		"aten.neg": unary("neg"), "aten.exp": unary("exp"), "aten.log": unary("log"), "aten.sqrt": unary("sqrt"),
		"aten.rsqrt": unary("rsqrt"), "aten.tanh": unary("tanh"), "aten.relu": unary("relu"),
		"aten.erf": unary("erf"), "aten.square": unary("square"),
		"aten.reciprocal": reciprocal, "aten.pow": pow,
		"aten.sigmoid": sigmoid, "aten.silu": silu, "aten.gelu": gelu,
		"aten.masked_fill": maskedFill, "aten.where": where,
		// along dims
		"aten._softmax": softmax, "aten.softmax": softmax, "aten._log_softmax": logSoftmax, "aten.log_softmax": logSoftmax,
		"aten.sum": reduce("sum"), "aten.mean": reduce("mean"), "aten.amax": reduce("max"), "aten.amin": reduce("min"),
		"aten.native_layer_norm": layerNorm,
		"aten.split":             split, "aten.split_with_sizes": split, "aten.unbind": unbind, "aten.cat": cat, "aten.gather": gather,
		// lookups
		"aten.embedding": embedding, "aten.nll_loss_forward": nllLoss,
	}
}

// opName is target without its overload: aten.add.Tensor is aten.add.
func opName(target string) string {
	if strings.Count(target, ".") >= 2 {
		return target[:strings.LastIndex(target, ".")]
	}
	return target
}
