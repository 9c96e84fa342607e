package sbp

import "github.com/stridelab/stridelab/tensor"

// Moved is what one boxing step moved between the simulated devices,
// counted as it moved: every piece of one device's buffer that went into
// another device's new buffer counts once as sent by its holder and once
// as received by the other (a device's own piece stays, and counts
// nothing). The simulated collectives move what PlanBoxing counts:
//
//	all-gather      device q concatenates every device's shard
//	all-reduce      a reduce-scatter of the flattened values in
//	                BalancedSplit(s, k) parts, then an all-gather of the
//	                reduced parts
//	reduce-scatter  device q combines every device's part in its range
//	all-to-all      device q concatenates every device's piece in its range
//	local-*         nothing moves
type Moved struct {
	MeshDim    int
	Collective Collective
	// SendBytes and RecvBytes hold one count per device, in placement
	// order.
	SendBytes, RecvBytes []int64
}

func newMoved(st Step, devices int) Moved {
	return Moved{MeshDim: st.MeshDim, Collective: st.Collective, SendBytes: make([]int64, devices), RecvBytes: make([]int64, devices)}
}

// hand gives piece, a part of device from's buffer, to device to, and
// counts its bytes when the two devices differ.
func (m *Moved) hand(from, to int, piece tensor.Tensor) tensor.Tensor {
	if from != to {
		b := int64(piece.NumElements()) * int64(piece.DType().Size())
		m.SendBytes[from] += b
		m.RecvBytes[to] += b
	}
	return piece
}
