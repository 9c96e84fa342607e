package chart

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/bench"
)

func TestWriteDrawsEverySeries(t *testing.T) {
	results := []bench.DeviceResult{
		{Case: "expand [4,1,8]->[4,2,8]", KernelGBps: 5, CopyGBps: 8, BufferGBps: 20},
		{Case: "sum [4,2,8] to [4,1,8]", KernelGBps: 4, CopyGBps: 8, BufferGBps: 20},
	}
	var svg bytes.Buffer
	if err := Write(&svg, "test chart", results); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "test chart", "vec4 copy kernel", "copyBufferToBuffer", "expand [4,1,8]"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}
