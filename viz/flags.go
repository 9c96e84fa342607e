package viz

import (
	"flag"
	"strings"
)

// KeyFlags registers a string flag --KEY on fs for every key of Keys,
// with its help, and returns a function that reads back the keys the
// command line gave a value (empty ones left out): the values
// ParseSpec takes. `stridelab draw` and the desktop app read their scene
// this way. Every key is a flag for every scene, so a key the scene does
// not take is refused by ParseSpec, naming the keys the scene takes,
// rather than by the flag package as unknown.
func KeyFlags(fs *flag.FlagSet) func() map[string]string {
	vals := make(map[string]*string, len(Keys))
	for _, k := range Keys {
		vals[k.Name] = fs.String(k.Name, "", k.Help)
	}
	return func() map[string]string {
		out := map[string]string{}
		for k, v := range vals {
			if *v != "" {
				out[k] = *v
			}
		}
		return out
	}
}

// KindsUsage lists every kind of scene as a command line, in menu
// order, one a line indented by two spaces (no newline after the last):
// its worked example, spelled by Spec.String, then in brackets the
// optional keys the example leaves out. It is the scene list a --help
// prints, for example
//
//	expand --shape '4,1,3' --size '4,2,3'  [--offset]
func KindsUsage() string {
	lines := make([]string, len(sceneKinds))
	for i, k := range sceneKinds {
		line := "  " + k.Example.String()
		sep := "  "
		for _, o := range k.Optional {
			if _, ok := k.Example.Values[o]; !ok {
				line += sep + "[--" + o + "]"
				sep = " "
			}
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}
