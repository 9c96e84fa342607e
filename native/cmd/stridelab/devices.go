package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/stridelab/stridelab/shaders"
)

// runDevices lists the WebGPU adapters found: name, backend type, adapter
// type and the limits the kernels depend on.
func runDevices(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("devices", "[--json]", stderr)
	asJSON := fs.Bool("json", false, "print the adapters as JSON")
	if err := fs.parse(args); err != nil {
		return err
	}
	adapters, err := shaders.Adapters()
	if err != nil {
		return err
	}
	if *asJSON {
		if adapters == nil {
			adapters = []shaders.AdapterInfo{}
		}
		body, _ := json.MarshalIndent(adapters, "", "  ")
		fmt.Fprintln(stdout, string(body))
		return nil
	}
	if len(adapters) == 0 {
		fmt.Fprintln(stdout, "no WebGPU adapters found (--backend auto will run on the CPU)")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tname\tbackend\ttype\tmax binding\tmax buffer\tworkgroups/dim\tinvocations/workgroup")
	for i, a := range adapters {
		l := a.Limits
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d MiB\t%d MiB\t%d\t%d\n", i, a.Name, a.Backend, a.Type,
			l.MaxStorageBufferBindingSize>>20, l.MaxBufferSize>>20, l.MaxComputeWorkgroupsPerDimension, l.MaxComputeInvocationsPerWorkgroup)
	}
	return tw.Flush()
}
