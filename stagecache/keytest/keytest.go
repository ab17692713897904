// Package keytest generates, by reflection, every one-leaf change of a
// value, so that a test can prove a cache key sees every field of a stage's
// parameters: strings, integers and booleans are changed in place, slices
// and maps also gain and lose an element, and nested structs, pointers,
// slices and maps are walked recursively. A field added to a parameter
// struct is covered without touching the test. It is for tests only.
package keytest

import (
	"fmt"
	"reflect"
	"slices"
)

// Mutation is a copy of a value with exactly one change, named by the path
// to it (".Subject.Title", ".IdentityTerms[0]", ".Terms{+}").
type Mutation struct {
	Path  string
	Value any
}

// Mutations returns every one-leaf change of v. The copies share no mutable
// part with v that they change. A field that cannot be changed (unexported)
// or a kind no cache key can hold (floats, interfaces, functions, channels)
// is an error.
func Mutations(v any) ([]Mutation, error) {
	vars, err := variants(reflect.ValueOf(v), "")
	if err != nil {
		return nil, err
	}
	out := make([]Mutation, len(vars))
	for i, x := range vars {
		out[i] = Mutation{Path: x.path, Value: x.val.Interface()}
	}
	return out, nil
}

type variant struct {
	path string
	val  reflect.Value
}

func variants(v reflect.Value, path string) ([]variant, error) {
	t := v.Type()
	switch t.Kind() {
	case reflect.String:
		n := reflect.New(t).Elem()
		n.SetString(v.String() + "~")
		return []variant{{path, n}}, nil
	case reflect.Bool:
		n := reflect.New(t).Elem()
		n.SetBool(!v.Bool())
		return []variant{{path, n}}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := reflect.New(t).Elem()
		n.SetInt(v.Int() + 1)
		if v.Int() > 0 { // never overflows
			n.SetInt(v.Int() - 1)
		}
		return []variant{{path, n}}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := reflect.New(t).Elem()
		if v.Uint() == 0 {
			n.SetUint(1)
		} else {
			n.SetUint(v.Uint() - 1)
		}
		return []variant{{path, n}}, nil
	case reflect.Pointer:
		return pointerVariants(v, path)
	case reflect.Slice:
		return sliceVariants(v, path)
	case reflect.Array:
		return arrayVariants(v, path)
	case reflect.Map:
		return mapVariants(v, path)
	case reflect.Struct:
		return structVariants(v, path)
	}
	return nil, fmt.Errorf("keytest: %s: a %s cannot be part of a cache key", path, t.Kind())
}

func structVariants(v reflect.Value, path string) ([]variant, error) {
	t := v.Type()
	var out []variant
	for i := range t.NumField() {
		f := t.Field(i)
		at := path + "." + f.Name
		if !f.IsExported() {
			return nil, fmt.Errorf("keytest: %s is unexported: the key cannot see it", at)
		}
		inner, err := variants(v.Field(i), at)
		if err != nil {
			return nil, err
		}
		for _, x := range inner {
			c := reflect.New(t).Elem()
			c.Set(v)
			c.Field(i).Set(x.val)
			out = append(out, variant{x.path, c})
		}
	}
	return out, nil
}

func pointerVariants(v reflect.Value, path string) ([]variant, error) {
	t := v.Type()
	if v.IsNil() {
		return []variant{{path + "{new}", reflect.New(t.Elem())}}, nil
	}
	inner, err := variants(v.Elem(), path)
	if err != nil {
		return nil, err
	}
	out := []variant{{path + "{nil}", reflect.Zero(t)}}
	for _, x := range inner {
		p := reflect.New(t.Elem())
		p.Elem().Set(x.val)
		out = append(out, variant{x.path, p})
	}
	return out, nil
}

func sliceVariants(v reflect.Value, path string) ([]variant, error) {
	t, n := v.Type(), v.Len()
	clone := func(extra int) reflect.Value {
		c := reflect.MakeSlice(t, n, n+extra)
		reflect.Copy(c, v)
		return c
	}
	var out []variant
	for i := range n {
		inner, err := variants(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		for _, x := range inner {
			c := clone(0)
			c.Index(i).Set(x.val)
			out = append(out, variant{x.path, c})
		}
	}
	out = append(out, variant{path + "[+]", reflect.Append(clone(1), reflect.Zero(t.Elem()))})
	if n > 0 {
		out = append(out, variant{path + "[-]", clone(0).Slice(0, n-1)})
	}
	return out, nil
}

func arrayVariants(v reflect.Value, path string) ([]variant, error) {
	var out []variant
	for i := range v.Len() {
		inner, err := variants(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		for _, x := range inner {
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			c.Index(i).Set(x.val)
			out = append(out, variant{x.path, c})
		}
	}
	return out, nil
}

func mapVariants(v reflect.Value, path string) ([]variant, error) {
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		return nil, fmt.Errorf("keytest: %s: map keys must be strings", path)
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int {
		switch {
		case a.String() < b.String():
			return -1
		case a.String() > b.String():
			return 1
		}
		return 0
	})
	clone := func() reflect.Value {
		c := reflect.MakeMapWithSize(t, len(keys)+1)
		for _, k := range keys {
			c.SetMapIndex(k, v.MapIndex(k))
		}
		return c
	}
	var out []variant
	for _, k := range keys {
		at := fmt.Sprintf("%s{%s}", path, k.String())
		inner, err := variants(v.MapIndex(k), at)
		if err != nil {
			return nil, err
		}
		for _, x := range inner {
			c := clone()
			c.SetMapIndex(k, x.val)
			out = append(out, variant{x.path, c})
		}
		c := clone()
		c.SetMapIndex(k, reflect.Value{})
		out = append(out, variant{at + "{-}", c})
	}
	added := reflect.New(t.Key()).Elem()
	added.SetString(newKey(keys))
	c := clone()
	c.SetMapIndex(added, reflect.Zero(t.Elem()))
	return append(out, variant{path + "{+}", c}), nil
}

// newKey returns a key that none of keys holds.
func newKey(keys []reflect.Value) string {
	k := "+"
	for slices.ContainsFunc(keys, func(x reflect.Value) bool { return x.String() == k }) {
		k += "+"
	}
	return k
}

// Fill sets every leaf reachable from ptr, a pointer to a struct, to a
// non-zero value (strings to their own path), gives every slice one
// element and every map one entry, so that Mutations reaches every nested
// field.
func Fill(ptr any) error {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("keytest: Fill needs a non-nil pointer, not %T", ptr)
	}
	return fill(v.Elem(), "", 0)
}

// maxDepth stops Fill on recursive types.
const maxDepth = 8

func fill(v reflect.Value, path string, depth int) error {
	if depth > maxDepth {
		return nil
	}
	t := v.Type()
	switch t.Kind() {
	case reflect.String:
		v.SetString("v" + path)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(1 + len(path)%7))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(1 + len(path)%7))
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		return fill(v.Elem(), path, depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(t, 1, 1))
		return fill(v.Index(0), path+"[0]", depth+1)
	case reflect.Array:
		for i := range v.Len() {
			if err := fill(v.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("keytest: %s: map keys must be strings", path)
		}
		k := reflect.New(t.Key()).Elem()
		k.SetString("k")
		e := reflect.New(t.Elem()).Elem()
		if err := fill(e, path+"{k}", depth+1); err != nil {
			return err
		}
		m := reflect.MakeMapWithSize(t, 1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("keytest: %s.%s is unexported: the key cannot see it", path, f.Name)
			}
			if err := fill(v.Field(i), path+"."+f.Name, depth+1); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("keytest: %s: a %s cannot be part of a cache key", path, t.Kind())
	}
	return nil
}
