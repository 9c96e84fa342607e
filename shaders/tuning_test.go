package shaders

import "testing"

// TestParseTuningReadsItsNames checks ParseTuning reads what String
// writes and refuses anything else in one line.
func TestParseTuningReadsItsNames(t *testing.T) {
	for _, want := range []Tuning{TuneAuto, TuneGPU, TuneCPU} {
		if got, err := ParseTuning(want.String()); err != nil || got != want {
			t.Errorf("ParseTuning(%q) = %v, %v; want %v", want.String(), got, err, want)
		}
	}
	if _, err := ParseTuning("fast"); err == nil || err.Error() != `"fast": choose auto, gpu or cpu` {
		t.Errorf("ParseTuning(\"fast\") error = %v", err)
	}
}
