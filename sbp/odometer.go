package sbp

// NextChoice steps choice, one index per mesh dim each below n, through
// every combination, the last dim fastest (an odometer), and returns
// false after the last, choice back at all zeros: how a signature or a
// layout per mesh dim is enumerated on an nd-mesh.
func NextChoice(choice []int, n int) bool {
	for m := len(choice) - 1; m >= 0; m-- {
		if choice[m]++; choice[m] < n {
			return true
		}
		choice[m] = 0
	}
	return false
}
