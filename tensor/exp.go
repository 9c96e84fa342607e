package tensor

import "math"

// expOf returns e^v: math.Exp's own algorithm (FreeBSD's e_exp.c, Go's
// pure-Go exp) for v in (-128, 128), which holds every float32 whose e^x
// is a finite nonzero float32, with 2^k applied to the exponent bits:
// there k = round(v·log2 e) is in [-185, 185] and the result normal, so
// the bit scaling is exact. The rest (NaN, ±Inf, large |v|) go to
// math.Exp. On this machine it took a
// third of math.Exp's time, which on amd64 is an assembly loop of its own
// and differs from the pure-Go algorithm in the last bit of a double at
// most: float32 rounding hides that. The formulas, with P1…P5 a Remez
// polynomial on |r| ≤ ln 2 / 2:
//
//	k = round(x / ln 2);  hi = x − k·ln2hi;  lo = k·ln2lo;  r = hi − lo
//	c = r − r²·(P1 + r²·(P2 + r²·(P3 + r²·(P4 + r²·P5))))
//	e^x = 2^k · (1 − ((lo − r·c / (2 − c)) − hi))
func expOf(v float64) float64 {
	const (
		ln2Hi    = 6.93147180369123816490e-01
		ln2Lo    = 1.90821492927058770002e-10
		log2e    = 1.44269504088896338700e+00
		p1       = 1.66666666666666657415e-01  /* 0x3FC55555; 0x55555555 */
		p2       = -2.77777777770155933842e-03 /* 0xBF66C16C; 0x16BEBD93 */
		p3       = 6.61375632143793436117e-05  /* 0x3F11566A; 0xAF25DE2C */
		p4       = -1.65339022054652515390e-06 /* 0xBEBBBD41; 0xC5D26BF1 */
		p5       = 4.13813679705723846039e-08  /* 0x3E663769; 0x72BEA4D0 */
		nearZero = 1.0 / (1 << 28)
	)
	if !(v > -128 && v < 128) { // NaN included
		return math.Exp(v)
	}
	if -nearZero < v && v < nearZero {
		return 1 + v
	}
	var k int
	if v < 0 {
		k = int(log2e*v - 0.5)
	} else {
		k = int(log2e*v + 0.5)
	}
	hi := v - float64(k)*ln2Hi
	lo := float64(k) * ln2Lo
	r := hi - lo
	t := r * r
	c := r - t*(p1+t*(p2+t*(p3+t*(p4+t*p5))))
	y := 1 - ((lo - (r*c)/(2-c)) - hi)
	return y * math.Float64frombits(uint64(k+1023)<<52)
}
