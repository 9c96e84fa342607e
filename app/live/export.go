package live

import "fmt"

// export writes the scene at the current step as format through
// Options.Export (the desktop app draws it with the headless renderers
// at the size `stridelab draw` uses by default, so the file is the bytes
// the CLI writes for the same spec); it returns the status line to show.
func (a *App) export(format string) string {
	if a.opt.Export == nil {
		return "export: this build cannot write files"
	}
	spec := a.s.Spec()
	name := fmt.Sprintf("%s-step%d.%s", spec.Scene, spec.Step, format)
	if format == "gif" {
		name = spec.Scene + ".gif"
	}
	if err := a.opt.Export(name, format, a.s.Scene(), spec.Step); err != nil {
		return "export: " + err.Error()
	}
	return "wrote " + name
}
