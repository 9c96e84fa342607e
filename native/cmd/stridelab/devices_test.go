package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/shaders"
)

func TestDevicesListsAdapters(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"devices", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("devices --json: exit %d: %s", code, stderr.String())
	}
	var adapters []shaders.AdapterInfo
	if err := json.Unmarshal(stdout.Bytes(), &adapters); err != nil {
		t.Fatalf("devices --json printed %q: %v", stdout.String(), err)
	}
	if len(adapters) == 0 {
		if os.Getenv("STRIDELAB_REQUIRE_GPU") == "1" {
			t.Fatal("no adapters listed, and a WebGPU adapter is required (STRIDELAB_REQUIRE_GPU=1)")
		}
		t.Skip("no WebGPU adapters")
	}
	for _, a := range adapters {
		if a.Name == "" || a.Backend == "" || a.Limits.MaxStorageBufferBindingSize == 0 || a.Limits.MaxComputeWorkgroupsPerDimension == 0 {
			t.Errorf("incomplete adapter entry: %+v", a)
		}
	}
	stdout.Reset()
	if code := run([]string{"devices"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), adapters[0].Name) {
		t.Fatalf("devices: exit %d, printed %q", code, stdout.String())
	}
}
