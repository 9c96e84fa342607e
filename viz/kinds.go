package viz

import (
	"context"
	"fmt"
	"maps"
	"strings"
)

// SceneKind is one kind of scene: its name, the keys it takes, what a
// person can point at in it, its worked example and its builder. The
// table below is the one place a scene is added: the CLI's flags, the
// desktop app's fields and menus, the playground's controls and gallery,
// the URL hash and the lessons all read it.
type SceneKind struct {
	Name     string
	Required []string    // keys it needs, in the order fields show them
	Optional []string    // keys it may take
	Focus    []FocusKind // what its frames let a person point at
	// Example is the worked example a menu opens: the source documents'
	// own, small enough to read every cell.
	Example Spec
	build   func(context.Context, Spec) (*Scene, error)
}

// Keys lists the keys k takes, required ones first, with their help.
func (k SceneKind) Keys() []Key {
	var out []Key
	for _, name := range append(append([]string{}, k.Required...), k.Optional...) {
		for _, key := range Keys {
			if key.Name == name {
				out = append(out, key)
			}
		}
	}
	return out
}

// takes reports whether k takes key.
func (k SceneKind) takes(key string) bool {
	for _, n := range append(append([]string{}, k.Required...), k.Optional...) {
		if n == key {
			return true
		}
	}
	return false
}

var (
	indexFocus = []FocusKind{FocusCell, FocusStorage}
	shardFocus = []FocusKind{FocusCell, FocusDevice}
)

// sceneKinds are the scenes in the order menus show them.
var sceneKinds = []SceneKind{
	{Name: "expand", Required: []string{"shape", "size"}, Optional: []string{"offset"}, Focus: indexFocus,
		Example: example("expand", "shape", "4,1,3", "size", "4,2,3"), build: buildIndexScene},
	{Name: "repeat", Required: []string{"shape", "times"}, Optional: []string{"offset"}, Focus: indexFocus,
		Example: example("repeat", "shape", "3,1", "times", "2,1,3"), build: buildIndexScene},
	{Name: "binary", Required: []string{"shape", "b-shape"}, Optional: []string{"op", "offset"}, Focus: indexFocus,
		Example: example("binary", "shape", "3,1", "b-shape", "1,4", "op", "add"), build: buildIndexScene},
	{Name: "reduce", Required: []string{"shape", "to"}, Optional: []string{"op"}, Focus: indexFocus,
		Example: example("reduce", "shape", "2,3,4", "to", "1,3,1", "op", "sum"), build: buildIndexScene},
	{Name: "view", Required: []string{"shape"}, Optional: []string{"index", "permute", "reshape", "offset"}, Focus: indexFocus,
		Example: example("view", "shape", "4,5", "index", "1:4:2, 2"), build: buildIndexScene},
	{Name: "placement", Required: []string{"shape", "sbp", "placement"}, Focus: shardFocus,
		Example: example("placement", "shape", "8,6", "sbp", "(S(0), P)", "placement", "[[0,1],[2,3]]"), build: buildShardScene},
	{Name: "plan", Required: []string{"op", "shape", "sbp", "placement"}, Optional: []string{"size", "times", "to", "b-shape", "b-sbp", "reduce", "permute", "dim"}, Focus: shardFocus,
		Example: example("plan", "op", "expand", "shape", "4,3,1,2", "size", "2,4,3,4,2", "sbp", "S(3)", "placement", "2"), build: buildShardScene},
	{Name: "boxing", Required: []string{"shape", "from", "to", "placement"}, Focus: shardFocus,
		Example: example("boxing", "shape", "25,33", "from", "S(0)", "to", "S(1)", "placement", "4"), build: buildShardScene},
	{Name: "program", Required: []string{"src"}, Optional: []string{"strategy", "cluster", "cost", "memory"}, Focus: []FocusKind{FocusStep, FocusDevice},
		Example: example("program", "src", "placement 4; x = input 16,8 S(0); w = input 8,4 B; y = matmul x w; s = sum y 1,1; grad s"), build: buildProgramScene},
}

// Scenes lists the scene names in the order menus show them.
var Scenes = func() []string {
	names := make([]string, len(sceneKinds))
	for i, k := range sceneKinds {
		names[i] = k.Name
	}
	return names
}()

// Kinds returns every kind of scene, in the order menus show them.
func Kinds() []SceneKind { return sceneKinds }

// KindOf returns the kind of scene named name.
func KindOf(name string) (SceneKind, bool) {
	for _, k := range sceneKinds {
		if k.Name == name {
			return k, true
		}
	}
	return SceneKind{}, false
}

// kindOf is KindOf with the error a front end shows for an unknown name.
func kindOf(name string) (SceneKind, error) {
	if k, ok := KindOf(name); ok {
		return k, nil
	}
	return SceneKind{}, fmt.Errorf("viz: unknown scene %q; the scenes are %s", name, strings.Join(Scenes, ", "))
}

// KeysOf lists the keys scene takes, required ones first (nil for an
// unknown scene): the fields a front end shows for it.
func KeysOf(scene string) []Key {
	k, _ := KindOf(scene)
	return k.Keys()
}

// Example returns the worked example of scene (a copy the caller may
// change), and false for an unknown scene.
func Example(scene string) (Spec, bool) {
	k, ok := KindOf(scene)
	if !ok {
		return Spec{}, false
	}
	ex := k.Example
	ex.Values = maps.Clone(ex.Values)
	return ex, true
}

// example is a spec from key, value pairs.
func example(scene string, kv ...string) Spec {
	s := Spec{Scene: scene, Values: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.Values[kv[i]] = kv[i+1]
	}
	return s
}
