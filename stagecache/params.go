package stagecache

import (
	"fmt"
	"reflect"
	"strings"
)

// CheckParams refuses a parameter value the key could not see whole. It
// must be a struct, and every field reachable from it (through nested
// structs, pointers, slices, arrays and maps) must be one the canonical
// form writes: exported, not tagged `json:"-"`, not sharing its JSON name
// with another field, and of a kind that encodes as itself (strings, bools,
// integers, and containers of them). Floats, interfaces, functions and
// channels are refused: a float cannot be hashed canonically, and an
// interface hides its type from this check.
func CheckParams(params any) error {
	t := reflect.TypeOf(params)
	if t == nil || t.Kind() != reflect.Struct {
		return fmt.Errorf("stagecache: parameters must be a struct, not %v", t)
	}
	if err := checkType(t, t.Name(), map[reflect.Type]bool{}); err != nil {
		return fmt.Errorf("stagecache: parameters %s: %w", t, err)
	}
	return nil
}

func checkType(t reflect.Type, path string, seen map[reflect.Type]bool) error {
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return nil
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkType(t.Elem(), path+"[]", seen)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("%s: map keys must be strings", path)
		}
		return checkType(t.Elem(), path+"{}", seen)
	case reflect.Struct:
		return checkStruct(t, path, seen)
	}
	return fmt.Errorf("%s: a %s cannot be part of a cache key", path, t.Kind())
}

func checkStruct(t reflect.Type, path string, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	names := map[string]string{}
	for i := range t.NumField() {
		f := t.Field(i)
		at := path + "." + f.Name
		if !f.IsExported() {
			return fmt.Errorf("%s is unexported: the canonical form skips it, so the key would ignore it", at)
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			return fmt.Errorf("%s is tagged json:\"-\": the key would ignore it", at)
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		if other, dup := names[name]; dup {
			return fmt.Errorf("%s and %s share the JSON name %q", other, at, name)
		}
		names[name] = at
		if err := checkType(f.Type, at, seen); err != nil {
			return err
		}
	}
	return nil
}
