package runtime

import (
	"reflect"
	"strings"
	"testing"
)

type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

type failRecorder struct{ failed bool }

func (r *failRecorder) Helper()               {}
func (r *failRecorder) Errorf(string, ...any) { r.failed = true }

var hardeningWords = []string{"final", "frozen", "axiom", "permanent", "immutable", "sealed", "locked", "unrevisable", "settled"}

// checkNoHardening fails t for every struct field, at any depth, whose Go name
// or json tag contains a hardening word.
func checkNoHardening(t reporter, values ...any) {
	t.Helper()
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, path string) {
		for {
			switch typ.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Array:
				typ = typ.Elem()
				continue
			case reflect.Map:
				walk(typ.Key(), path+"[key]")
				typ = typ.Elem()
				continue
			}
			break
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			fld := typ.Field(i)
			for _, name := range []string{fld.Name, fld.Tag.Get("json")} {
				for _, w := range hardeningWords {
					if strings.Contains(strings.ToLower(name), w) {
						t.Errorf("%s.%s: %q marks something as beyond revision", path, fld.Name, name)
					}
				}
			}
			walk(fld.Type, path+"."+fld.Name)
		}
	}
	for _, v := range values {
		walk(reflect.TypeOf(v), reflect.TypeOf(v).String())
	}
}

func TestHardeningCheckWorks(t *testing.T) {
	type claim struct {
		Inner []struct {
			Frozen bool `json:"is_final"`
		}
	}
	rec := &failRecorder{}
	checkNoHardening(rec, claim{})
	if !rec.failed {
		t.Fatal("a frozen flag went unnoticed")
	}
}
