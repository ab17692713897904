package canon

import (
	"math/big"
	"reflect"
	"strconv"
)

// Unmarshal strictly decodes data into the value v points to. It parses with
// Decode (so every rejection of Decode applies) and then assigns by exact
// `json` tag names: unknown fields, missing fields without `omitempty`, null
// where the target cannot hold it and wrong types are all KindSchema errors.
// A field of type any receives the generic value; *Object fields keep order.
func Unmarshal(data []byte, v any) error {
	g, err := Decode(data)
	if err != nil {
		return err
	}
	if m, ok := v.(*map[string]any); ok && m != nil {
		// A plan step's payload, decoded once per turn: the decoded object's
		// own map already holds each key's generic value, which is what
		// Assign would copy into a new map one reflected entry at a time.
		o, ok := g.(*Object)
		if !ok {
			return schemaErr("$", "expected an object")
		}
		*m = o.vals
		return nil
	}
	return Assign(g, v)
}

// Assign stores a generic value (as produced by Decode) into v, a non-nil
// pointer, with the rules of Unmarshal.
func Assign(g any, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return encodeErr(KindSchema, "", "Unmarshal needs a non-nil pointer")
	}
	return assign(g, rv.Elem(), "$")
}

func schemaErr(path, msg string) error { return encodeErr(KindSchema, path, msg) }

func assign(g any, dst reflect.Value, path string) error {
	switch dst.Type() {
	case numberType:
		n, ok := g.(Number)
		if !ok {
			return schemaErr(path, "expected an integer")
		}
		dst.SetString(string(n))
		return nil
	case objectType:
		o, ok := g.(*Object)
		if !ok {
			return schemaErr(path, "expected an object")
		}
		dst.Set(reflect.ValueOf(o))
		return nil
	case bigIntType:
		n, ok := g.(Number)
		if !ok {
			return schemaErr(path, "expected an integer")
		}
		b, _ := new(big.Int).SetString(string(n), 10)
		dst.Set(reflect.ValueOf(*b))
		return nil
	}
	switch dst.Kind() {
	case reflect.Interface:
		if g == nil {
			dst.SetZero()
			return nil
		}
		gv := reflect.ValueOf(g)
		if !gv.Type().AssignableTo(dst.Type()) {
			return schemaErr(path, "value does not fit "+dst.Type().String())
		}
		dst.Set(gv)
		return nil
	case reflect.Pointer:
		if g == nil {
			dst.SetZero()
			return nil
		}
		p := reflect.New(dst.Type().Elem())
		if err := assign(g, p.Elem(), path); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.String:
		s, ok := g.(string)
		if !ok {
			return schemaErr(path, "expected a string")
		}
		dst.SetString(s)
		return nil
	case reflect.Bool:
		b, ok := g.(bool)
		if !ok {
			return schemaErr(path, "expected a boolean")
		}
		dst.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return assignInt(g, dst, path)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return assignUint(g, dst, path)
	case reflect.Slice:
		return assignSlice(g, dst, path)
	case reflect.Map:
		return assignMap(g, dst, path)
	case reflect.Struct:
		return assignStruct(g, dst, path)
	}
	return schemaErr(path, "cannot decode into "+dst.Type().String())
}

func assignInt(g any, dst reflect.Value, path string) error {
	n, ok := g.(Number)
	if !ok {
		return schemaErr(path, "expected an integer")
	}
	i, err := strconv.ParseInt(string(n), 10, dst.Type().Bits())
	if err != nil {
		return schemaErr(path, "integer out of range for "+dst.Type().String())
	}
	dst.SetInt(i)
	return nil
}

func assignUint(g any, dst reflect.Value, path string) error {
	n, ok := g.(Number)
	if !ok {
		return schemaErr(path, "expected an integer")
	}
	u, err := strconv.ParseUint(string(n), 10, dst.Type().Bits())
	if err != nil {
		return schemaErr(path, "integer out of range for "+dst.Type().String())
	}
	dst.SetUint(u)
	return nil
}

func assignSlice(g any, dst reflect.Value, path string) error {
	arr, ok := g.([]any)
	if !ok {
		return schemaErr(path, "expected an array")
	}
	s := reflect.MakeSlice(dst.Type(), len(arr), len(arr))
	for i, item := range arr {
		if err := assign(item, s.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
			return err
		}
	}
	dst.Set(s)
	return nil
}

func assignMap(g any, dst reflect.Value, path string) error {
	if dst.Type().Key().Kind() != reflect.String {
		return schemaErr(path, "map keys must be strings")
	}
	o, ok := g.(*Object)
	if !ok {
		return schemaErr(path, "expected an object")
	}
	m := reflect.MakeMapWithSize(dst.Type(), o.Len())
	for _, k := range o.keys {
		ev := reflect.New(dst.Type().Elem()).Elem()
		if err := assign(o.vals[k], ev, path+"."+k); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), ev)
	}
	dst.Set(m)
	return nil
}

func assignStruct(g any, dst reflect.Value, path string) error {
	o, ok := g.(*Object)
	if !ok {
		return schemaErr(path, "expected an object")
	}
	p := (&encoder{}).plan(dst.Type())
	known := make(map[string]bool, len(p.fields))
	for _, f := range p.fields {
		known[f.name] = true
		v, present := o.vals[f.name]
		if !present {
			if !f.omitEmpty {
				return schemaErr(path, "missing field "+strconv.Quote(f.name))
			}
			continue
		}
		if err := assign(v, dst.Field(f.index), path+"."+f.name); err != nil {
			return err
		}
	}
	for _, k := range o.keys {
		if !known[k] {
			return schemaErr(path, "unknown field "+strconv.Quote(k))
		}
	}
	return nil
}
