package session

// View maps scene pixels to viewport pixels: screen = pan + zoom·scene.
type View struct {
	Zoom       float64
	PanX, PanY float64
}

// Identity draws the scene at its size, unmoved.
var Identity = View{Zoom: 1}

// Zoom limits: a quarter of the frame shows a whole faceted tensor small;
// 16× makes a 3-px cell of a large grid 48 px, enough to read its label.
const (
	MinZoom = 0.25
	MaxZoom = 16
)

// ToScene maps a viewport point to the scene's frame.
func (v View) ToScene(x, y float64) (float64, float64) {
	return (x - v.PanX) / v.Zoom, (y - v.PanY) / v.Zoom
}

// ToScreen maps a point of the scene's frame to the viewport.
func (v View) ToScreen(x, y float64) (float64, float64) {
	return v.PanX + v.Zoom*x, v.PanY + v.Zoom*y
}

// ZoomAt scales by factor keeping the viewport point (x, y) still, as a
// wheel zooms towards the pointer; the zoom stays within its limits.
func (v View) ZoomAt(factor, x, y float64) View {
	z := min(max(v.Zoom*factor, MinZoom), MaxZoom)
	sx, sy := v.ToScene(x, y)
	return View{Zoom: z, PanX: x - z*sx, PanY: y - z*sy}
}

// View is the current zoom and pan.
func (s *Session) View() View { return s.view }

// ZoomAt zooms by factor towards the viewport point (x, y).
func (s *Session) ZoomAt(factor, x, y float64) { s.setView(s.view.ZoomAt(factor, x, y)) }

// Pan moves the scene by (dx, dy) viewport pixels.
func (s *Session) Pan(dx, dy float64) {
	v := s.view
	v.PanX += dx
	v.PanY += dy
	s.setView(v)
}

// ResetView shows the whole frame again.
func (s *Session) ResetView() { s.setView(Identity) }

func (s *Session) setView(v View) {
	if v != s.view {
		s.view = v
		s.rev++
	}
}
