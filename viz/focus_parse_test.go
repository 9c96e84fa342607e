package viz

import (
	"encoding/json"
	"testing"
)

func TestParseFocus(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Focus
	}{
		{"x[5]", Focus{Kind: FocusStorage, Operand: "x", Offset: 5}},
		{"b[ 0 ]", Focus{Kind: FocusStorage, Operand: "b", Offset: 0}},
		{"out[1, 2,0]", Focus{Kind: FocusCell, Operand: "out", Index: []int{1, 2, 0}}},
		{"[5,2]", Focus{Kind: FocusCell, Operand: "global", Index: []int{5, 2}}},
		{"rank 12", Focus{Kind: FocusDevice, Rank: 12}},
		{"step 3", Focus{Kind: FocusStep, Offset: 2}},
	} {
		got, err := ParseFocus(c.in)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseFocus(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if again, _ := ParseFocus(got.String()); !again.Equal(got) {
			t.Errorf("ParseFocus(%q).String() = %q does not parse back", c.in, got.String())
		}
	}
	for _, bad := range []string{"x[1,2]", "y[1]", "rank", "step 0", "out(1)", "x[a]"} {
		if _, err := ParseFocus(bad); err == nil {
			t.Errorf("ParseFocus(%q): no error", bad)
		}
	}
}

func TestFocusKindJSON(t *testing.T) {
	f := Focus{Kind: FocusStorage, Operand: "x", Offset: 5}
	b, err := json.Marshal(f)
	if err != nil || string(b) != `{"kind":"storage","operand":"x","index":null,"offset":5,"rank":0}` {
		t.Fatalf("json.Marshal(%v) = %s, %v", f, b, err)
	}
	var back Focus
	if err := json.Unmarshal(b, &back); err != nil || !back.Equal(f) {
		t.Errorf("json.Unmarshal(%s) = %+v, %v; want %+v", b, back, err, f)
	}
	if err := json.Unmarshal([]byte(`{"kind":"pixel"}`), &back); err == nil {
		t.Error(`json.Unmarshal of kind "pixel": no error`)
	}
}

func TestFocusEqualIgnoresFieldsItsKindDoesNotUse(t *testing.T) {
	a := Focus{Kind: FocusDevice, Rank: 2, Operand: "x"}
	b := Focus{Kind: FocusDevice, Rank: 2, Index: []int{1}}
	if !a.Equal(b) {
		t.Errorf("%+v.Equal(%+v) = false, want true: a device is its rank", a, b)
	}
	if a.Equal(Focus{Kind: FocusDevice, Rank: 3}) || a.Equal(Focus{Kind: FocusCell, Rank: 2}) {
		t.Error("Equal is true for another rank or kind")
	}
}
