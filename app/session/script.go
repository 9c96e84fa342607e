package session

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// Event is one line of a script: a person's input, replayed.
//
//	wait N              draw N frames
//	sweep N             hover the drawn output cells in turn, one a frame, N frames
//	hover out 1,2,0     move the pointer to the centre of a drawn cell
//	hover x 0,1         … of reduce's input grid (a cell of operand x)
//	hover storage x 5   … of storage cell x[5]
//	hover device 2      … of rank 2's device
//	hover step 3        … of a program's step 3 (counted from 1), a point of its column
//	move X Y            move the pointer to a window point
//	click               click where the pointer is (pins; again unpins)
//	drag DX DY          drag the scene by (DX, DY) pixels
//	key NAME            press a key, named as in Bindings
//	scene NAME          pick a scene
//	lesson ID STEP      open a lesson at a step (1-based)
//	field KEY           give a field the keyboard (as Tab or a click)
//	type TEXT           replace that field's text and press Enter
//	screenshot FILE     write the window as PNG
//	state FILE          write the session's State as JSON
type Event struct {
	Line  int // 1-based line of the script
	Op    string
	Focus viz.Focus // hover
	X, Y  float64   // move, drag
	N     int       // wait
	Text  string    // key, scene, field, type, screenshot
}

// ParseScript reads a script; a mistake names its line.
func ParseScript(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := parseEvent(line)
		if err != nil {
			return nil, fmt.Errorf("session: script line %d: %q: %v", n, line, err)
		}
		e.Line = n
		out = append(out, e)
	}
	return out, sc.Err()
}

func parseEvent(line string) (Event, error) {
	op, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	args := strings.Fields(rest)
	e := Event{Op: op}
	switch op {
	case "wait", "sweep":
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || n > 100000 {
			return e, fmt.Errorf("%s takes a frame count from 0 to 100000", op)
		}
		e.N = n
	case "click":
		if rest != "" {
			return e, fmt.Errorf("click takes nothing: it clicks where the pointer is")
		}
	case "move", "drag":
		if len(args) != 2 {
			return e, fmt.Errorf("%s takes two numbers", op)
		}
		x, err1 := strconv.ParseFloat(args[0], 64)
		y, err2 := strconv.ParseFloat(args[1], 64)
		if err1 != nil || err2 != nil {
			return e, fmt.Errorf("%s takes two numbers", op)
		}
		e.X, e.Y = x, y
	case "hover":
		f, err := parseFocus(args)
		if err != nil {
			return e, err
		}
		e.Focus = f
	case "key":
		if _, ok := BindingFor(rest); !ok {
			keys := make([]string, len(Bindings))
			for i, b := range Bindings {
				keys[i] = b.Key
			}
			return e, fmt.Errorf("unknown key %q; the keys are %s", rest, strings.Join(keys, " "))
		}
		e.Text = rest
	case "lesson":
		if len(args) != 2 {
			return e, fmt.Errorf("lesson takes a lesson's id and a step, e.g. lesson expand-repeat 3")
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return e, fmt.Errorf("lesson steps count from 1")
		}
		e.Text, e.N = args[0], n
	case "scene":
		if !slices.Contains(viz.Scenes, rest) {
			return e, fmt.Errorf("unknown scene %q; the scenes are %s", rest, strings.Join(viz.Scenes, ", "))
		}
		e.Text = rest
	case "field":
		found := false
		for _, k := range viz.Keys {
			found = found || k.Name == rest
		}
		if !found {
			return e, fmt.Errorf("unknown field %q", rest)
		}
		e.Text = rest
	case "type":
		e.Text = rest
	case "screenshot", "state":
		if rest == "" {
			return e, fmt.Errorf("%s takes a file name", op)
		}
		e.Text = rest
	default:
		return e, fmt.Errorf("unknown event %q; the events are wait, sweep, hover, move, click, drag, key, scene, lesson, field, type, screenshot, state", op)
	}
	return e, nil
}

// parseFocus reads what `hover` names: out 1,2,0 | x 0,1 | storage x 5 |
// device 2 | step 3.
func parseFocus(args []string) (viz.Focus, error) {
	switch {
	case len(args) == 2 && args[0] == "device":
		r, err := strconv.Atoi(args[1])
		if err != nil || r < 0 {
			return viz.Focus{}, fmt.Errorf("hover device takes a rank")
		}
		return viz.Focus{Kind: viz.FocusDevice, Rank: r}, nil
	case len(args) == 2 && args[0] == "step":
		return viz.ParseFocus("step " + args[1])
	case len(args) == 3 && args[0] == "storage":
		off, err := strconv.Atoi(args[2])
		if err != nil || off < 0 {
			return viz.Focus{}, fmt.Errorf("hover storage takes an operand and an offset, e.g. storage x 5")
		}
		return viz.Focus{Kind: viz.FocusStorage, Operand: args[1], Offset: off}, nil
	case len(args) == 2:
		idx, err := tensor.ParseInts("cell index", args[1])
		if err != nil {
			return viz.Focus{}, err
		}
		return viz.Focus{Kind: viz.FocusCell, Operand: args[0], Index: idx}, nil
	}
	return viz.Focus{}, fmt.Errorf("hover takes out I,J,… | OPERAND I,J,… | storage OPERAND OFFSET | device RANK | step N")
}
