package canon

import (
	"reflect"
	"testing"
)

// TestUnmarshalMapMatchesAssign holds Unmarshal's shortcut for
// *map[string]any to what the reflective Assign gives: the same map, or
// the same error.
func TestUnmarshalMapMatchesAssign(t *testing.T) {
	for _, doc := range []string{
		`{}`, `{"a":1,"b":"x","c":[1,{"d":null}],"e":{"f":true}}`, `{"question":"What is term1?","terms":["term1"]}`,
		`[]`, `"s"`, `null`, `1`, `true`, `{"a":1,"a":2}`, `{"a":1.5}`, `{`,
	} {
		var fast map[string]any
		fastErr := Unmarshal([]byte(doc), &fast)
		var slow map[string]any
		g, err := Decode([]byte(doc))
		if err == nil {
			err = Assign(g, &slow)
		}
		if (fastErr == nil) != (err == nil) || fastErr != nil && fastErr.Error() != err.Error() {
			t.Errorf("%s: error %v, Assign's %v", doc, fastErr, err)
			continue
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: %#v, Assign gives %#v", doc, fast, slow)
		}
	}
	prior := map[string]any{"stale": 1}
	if err := Unmarshal([]byte(`{"fresh":2}`), &prior); err != nil || len(prior) != 1 || prior["stale"] != nil {
		t.Errorf("Unmarshal into a filled map: %v %v; want it replaced", prior, err)
	}
}
