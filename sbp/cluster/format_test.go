package cluster

import "testing"

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{FormatSeconds(0), "0"},
		{FormatSeconds(3.07e-10), "307 ps"},
		{FormatSeconds(1.53e-9), "1.53 ns"},
		{FormatSeconds(2.45e-9), "2.45 ns"},
		{FormatSeconds(2.002048e-5), "20.0 µs"},
		{FormatSeconds(1.30964248e-5), "13.1 µs"},
		{FormatSeconds(0.000232), "232 µs"},
		{FormatSeconds(0.112), "112 ms"},
		{FormatSeconds(2.5), "2.50 s"},
		{FormatSeconds(1.0086e-5), "10.1 µs"},
		{FormatSeconds(250), "250 s"},
		{FormatSeconds(1.2e-13), "0.12 ps"},
		{FormatRate(5.23e8), "523 MB/s"},
		{FormatRate(5e10), "50 GB/s"},
		{FormatRate(4.5e11), "450 GB/s"},
		{FormatRate(3.35e12), "3.35 TB/s"},
		{FormatFLOPRate(4.4e9), "4.4 GFLOP/s"},
		{FormatFLOPRate(6.7e13), "67 TFLOP/s"},
		{FormatFLOPs(0), "0 FLOP"},
		{FormatFLOPs(512), "512 FLOP"},
		{FormatFLOPs(32768), "32.8 kFLOP"},
		{FormatFLOPs(1.72e10), "17.2 GFLOP"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
