//go:build !js

package live

import (
	"bytes"
	"sync"

	"github.com/ebitenui/ebitenui/image"
	"github.com/ebitenui/ebitenui/widget"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/stridelab/stridelab/viz"
)

// The controls' look: the scenes' own palette and Go fonts, so the
// window reads as one picture. Sizes are in logical pixels times the
// device scale (HiDPI screens get crisp, not tiny, controls).
type theme struct {
	scale             float64
	regular, bold     text.Face
	mono, small       text.Face
	ui                *widget.Theme
	field, fieldError *widget.TextInputImage
}

// Colours of the controls beyond the scenes' palette.
var (
	buttonBG  = viz.RGB(233, 236, 239)
	buttonHov = viz.RGB(222, 226, 230)
	buttonPr  = viz.RGB(206, 212, 218)
	selected  = viz.Highlight
	errorInk  = viz.RGB(176, 0, 32)
)

func newTheme(scale float64) *theme {
	px := func(v float64) int { return int(v*scale + 0.5) }
	var t theme
	t.scale = scale
	t.regular = face(viz.FontRegular, 14*scale)
	t.bold = face(viz.FontBold, 14*scale)
	t.mono = face(viz.FontMono, 12.5*scale)
	t.small = face(viz.FontRegular, 12.5*scale)
	ink, muted := nrgba(viz.Ink), nrgba(viz.Muted)
	btn := &widget.ButtonImage{
		Idle:     image.NewBorderedNineSliceColor(nrgba(buttonBG), nrgba(viz.Faint), px(1)),
		Hover:    image.NewBorderedNineSliceColor(nrgba(buttonHov), nrgba(viz.Muted), px(1)),
		Pressed:  image.NewBorderedNineSliceColor(nrgba(buttonPr), nrgba(viz.Ink), px(1)),
		Disabled: image.NewBorderedNineSliceColor(nrgba(panelBG), nrgba(viz.Faint), px(1)),
	}
	t.field = &widget.TextInputImage{
		Idle:     image.NewBorderedNineSliceColor(nrgba(viz.Paper), nrgba(viz.Muted), px(1)),
		Disabled: image.NewBorderedNineSliceColor(nrgba(panelBG), nrgba(viz.Faint), px(1)),
	}
	t.fieldError = &widget.TextInputImage{
		Idle:     image.NewBorderedNineSliceColor(nrgba(viz.RGB(255, 240, 242)), nrgba(errorInk), px(2)),
		Disabled: t.field.Disabled,
	}
	track := &widget.SliderTrackImage{
		Idle:  image.NewNineSliceColor(nrgba(viz.Faint)),
		Hover: image.NewNineSliceColor(nrgba(viz.Faint)),
	}
	handle := &widget.ButtonImage{
		Idle:    image.NewNineSliceColor(nrgba(viz.Broadcast)),
		Hover:   image.NewNineSliceColor(nrgba(viz.Ink)),
		Pressed: image.NewNineSliceColor(nrgba(viz.Ink)),
	}
	pad := widget.Insets{Left: px(8), Right: px(8), Top: px(4), Bottom: px(4)}
	t.ui = &widget.Theme{
		DefaultFace:      &t.regular,
		DefaultTextColor: ink,
		ButtonTheme: &widget.ButtonParams{
			TextColor:    &widget.ButtonTextColor{Idle: ink, Hover: ink, Pressed: ink, Disabled: muted},
			TextFace:     &t.regular,
			Image:        btn,
			TextPadding:  &pad,
			TextPosition: &widget.TextPositioning{VTextPosition: widget.TextPositionCenter, HTextPosition: widget.TextPositionCenter},
		},
		PanelTheme: &widget.PanelParams{BackgroundImage: image.NewNineSliceColor(nrgba(panelBG))},
		LabelTheme: &widget.LabelParams{Face: &t.regular, Color: &widget.LabelColor{Idle: ink, Disabled: muted}},
		TextTheme:  &widget.TextParams{Face: &t.regular, Color: ink},
		TextInputTheme: &widget.TextInputParams{
			Face:    &t.mono,
			Image:   t.field,
			Color:   &widget.TextInputColor{Idle: ink, Disabled: muted, Caret: ink, DisabledCaret: muted},
			Padding: &pad,
		},
		SliderTheme: &widget.SliderParams{TrackImage: track, HandleImage: handle, MinHandleSize: constPtr(px(12)), TrackPadding: &widget.Insets{Top: px(6), Bottom: px(6)}},
		TextAreaTheme: &widget.TextAreaParams{
			Face:            &t.mono,
			ForegroundColor: ink,
			ScrollContainerImage: &widget.ScrollContainerImage{
				Idle: image.NewBorderedNineSliceColor(nrgba(viz.Paper), nrgba(viz.Faint), px(1)),
				Mask: image.NewNineSliceColor(nrgba(viz.Paper)),
			},
			Slider:      &widget.SliderParams{TrackImage: track, HandleImage: handle, MinHandleSize: constPtr(px(12))},
			TextPadding: &widget.Insets{Left: px(6), Right: px(6), Top: px(4), Bottom: px(4)},
		},
	}
	return &t
}

func constPtr[T any](v T) *T { return &v }

// The Go fonts as text/v2 sources for the controls, parsed once: the
// files the scenes draw with (viz.FontData).
var (
	sourcesOnce sync.Once
	sources     map[viz.Font]*text.GoTextFaceSource
)

// face returns the Go font f at size pixels per em.
func face(f viz.Font, size float64) *text.GoTextFace {
	sourcesOnce.Do(func() {
		sources = map[viz.Font]*text.GoTextFaceSource{}
		for _, k := range []viz.Font{viz.FontRegular, viz.FontBold, viz.FontMono} {
			s, err := text.NewGoTextFaceSource(bytes.NewReader(viz.FontData(k)))
			if err != nil {
				panic("live: the embedded Go font does not parse: " + err.Error())
			}
			sources[k] = s
		}
	})
	return &text.GoTextFace{Source: sources[f], Size: size}
}
