package cluster

import (
	"math"

	"github.com/stridelab/stridelab/sbp"
)

// Point is one measured collective: collective C on a group of Devices
// devices moved a group tensor of Bytes bytes in Seconds.
type Point struct {
	Collective sbp.Collective `json:"collective"`
	Devices    int            `json:"devices"`
	Bytes      float64        `json:"bytes"`
	Seconds    float64        `json:"seconds"`
}

// Fitted is a link fitted to measured points, with each point's
// prediction and relative residual (measured − predicted) / measured.
type Fitted struct {
	Link      Link      `json:"link"`
	Predicted []float64 `json:"predicted_s"`
	Residuals []float64 `json:"residuals"`
	RMS       float64   `json:"rms_residual"` // √(mean of the squared residuals)
}

// Fit returns the link (α, β) whose ring times (RingTerms) best match the
// points, by least squares on the relative residuals:
//
//	minimise Σ_i ((t_i − (steps_i·α + fraction_i·S_i/β)) / t_i)²
//
// which is linear in α and 1/β: each point is the row (steps_i/t_i,
// fraction_i·S_i/t_i) with target 1, and the 2×2 normal equations give
// the answer. Relative residuals weigh a 64-byte point, whose time is
// mostly α, as much as a 64 MiB one, whose time is mostly S/β; plain
// least squares on seconds would fit the largest sizes alone.
//
// The points need two kinds of information: at least two sizes of a
// collective that moves bytes. Fit fails (ErrUnsupported) when the
// points cannot tell α from β, when a time is not positive, or when the
// best α or 1/β is not positive — times that do not grow as a ring's
// do (a machine busy with something else).
func Fit(points []Point) (Fitted, error) {
	var s11, s12, s22, b1, b2 float64
	for i, p := range points {
		t, err := RingTerms(p.Collective, p.Devices)
		if err != nil {
			return Fitted{}, err
		}
		if !(p.Seconds > 0) || math.IsInf(p.Seconds, 0) || !(p.Bytes >= 0) || math.IsInf(p.Bytes, 0) {
			return Fitted{}, newError(ErrUnsupported, "", "", "fit: point %d (%s of %v bytes in %v s): the time must be positive and the size >= 0", i, p.Collective, p.Bytes, p.Seconds)
		}
		r := [2]float64{t.Steps / p.Seconds, t.Fraction * p.Bytes / p.Seconds}
		s11 += r[0] * r[0]
		s12 += r[0] * r[1]
		s22 += r[1] * r[1]
		b1 += r[0]
		b2 += r[1]
	}
	det := s11*s22 - s12*s12
	if len(points) < 2 || !(det > 1e-12*s11*s22) {
		return Fitted{}, newError(ErrUnsupported, "", "", "fit: %d points cannot tell α from β; measure a collective that moves bytes at two sizes or more", len(points))
	}
	alpha := (b1*s22 - b2*s12) / det
	inv := (s11*b2 - s12*b1) / det // 1/β
	if !(alpha > 0) || !(inv > 0) {
		return Fitted{}, newError(ErrUnsupported, "", "", "fit: the best line has α = %.3g s and 1/β = %.3g s/byte; the times do not grow as a ring's do (was the machine busy?)", alpha, inv)
	}
	f := Fitted{Link: Link{Alpha: alpha, Beta: 1 / inv}, Predicted: make([]float64, len(points)), Residuals: make([]float64, len(points))}
	var sum float64
	for i, p := range points {
		t, _ := RingTerms(p.Collective, p.Devices)
		f.Predicted[i] = t.Time(f.Link, p.Bytes)
		f.Residuals[i] = (p.Seconds - f.Predicted[i]) / p.Seconds
		sum += f.Residuals[i] * f.Residuals[i]
	}
	f.RMS = math.Sqrt(sum / float64(len(points)))
	return f, nil
}
