package viz

import "testing"

// TestKeyApplies: a key with Needs applies only while the key it needs
// has a value other than its default; every other key always applies.
func TestKeyApplies(t *testing.T) {
	key := func(name string) Key {
		for _, k := range Keys {
			if k.Name == name {
				return k
			}
		}
		t.Fatalf("no key %s", name)
		return Key{}
	}
	for _, c := range []struct {
		key     string
		cluster string
		want    bool
	}{
		{"cost", "", false},
		{"cost", "none", false},
		{"cost", " ", false},
		{"cost", "h100-node", true},
		{"cost", "dgx-9000", true}, // a bad cluster is the cluster field's error, and the cost stays in view
		{"memory", "", true},
		{"strategy", "", true},
	} {
		if got := key(c.key).Applies(map[string]string{"cluster": c.cluster}); got != c.want {
			t.Errorf("%s beside cluster %q: applies %v, want %v", c.key, c.cluster, got, c.want)
		}
	}
}
