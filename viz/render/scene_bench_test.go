package render_test

import (
	"io"
	"testing"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// The frame budget, measured on a real scene: build and rasterise
// one 1280×720 frame of a 64×64 expand, and a 60-frame GIF of its sweep.

func expand64(b *testing.B) *viz.Scene {
	s, err := viz.Build(viz.Spec{Scene: "expand", Values: map[string]string{"shape": "64,1", "size": "64,64"}})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkSceneFrameExpand64x64(b *testing.B) {
	s := expand64(b)
	for i := 0; b.Loop(); i++ {
		f, err := s.Frame(i%s.Steps, viz.DefaultSize)
		if err != nil {
			b.Fatal(err)
		}
		render.Raster(f)
	}
}

func BenchmarkSceneGIF60Expand64x64(b *testing.B) {
	s := expand64(b)
	for b.Loop() {
		frames := make([]viz.Frame, 60)
		delays := make([]int, 60)
		for i := range frames {
			f, err := s.Frame(i%s.Steps, viz.DefaultSize)
			if err != nil {
				b.Fatal(err)
			}
			frames[i], delays[i] = f, 10
		}
		if err := render.GIF(io.Discard, frames, delays); err != nil {
			b.Fatal(err)
		}
	}
}
