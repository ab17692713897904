package canon

import (
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

var (
	bigIntType = reflect.TypeOf(big.Int{})
	numberType = reflect.TypeOf(Number(""))
	floatType  = reflect.TypeOf(Float(""))
	objectType = reflect.TypeOf((*Object)(nil))
)

// structPlan is the encoding order of one struct type: fields sorted by their
// JSON names, each with its key already written out.
type structPlan struct {
	fields []fieldPlan
}

type fieldPlan struct {
	name      string
	key       []byte // `"name":`
	index     int
	omitEmpty bool
}

// planCache memoises struct plans across calls. It is the package's one
// piece of shared state and it is not observable: a plan is a pure function
// of its type, computed at most a few times and never changed, exactly as
// encoding/json caches its encoders. Without it every Marshal of a small
// struct rebuilt its plan, which dominated hashing many small values.
var planCache sync.Map // reflect.Type → *structPlan

func (e *encoder) plan(t reflect.Type) *structPlan {
	if p, ok := planCache.Load(t); ok {
		return p.(*structPlan)
	}
	p, _ := planCache.LoadOrStore(t, buildPlan(t))
	return p.(*structPlan)
}

func buildPlan(t reflect.Type) *structPlan {
	p := &structPlan{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, omit, skip := parseTag(f)
		if skip {
			continue
		}
		key := make([]byte, 0, len(name)+3)
		key = strconv.AppendQuote(key, name)
		key = append(key, ':')
		p.fields = append(p.fields, fieldPlan{name: name, key: key, index: i, omitEmpty: omit})
	}
	sort.SliceStable(p.fields, func(a, b int) bool { return p.fields[a].name < p.fields[b].name })
	return p
}

// parseTag reads a field's `json` tag.
func parseTag(f reflect.StructField) (name string, omitEmpty, skip bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" {
			omitEmpty = true
		}
	}
	return name, omitEmpty, false
}

// anyMapType is the type of the generic objects Decode produces.
var anyMapType = reflect.TypeOf(map[string]any(nil))

func (e *encoder) reflectValue(v reflect.Value) error {
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		switch v.Type() {
		case numberType:
			return e.number(Number(v.String()))
		case floatType:
			return encodeErr(KindFloat, "", "float values are forbidden in hashed payloads; encode numbers as strings or integers")
		}
		return e.str(v.String())
	case reflect.Bool:
		e.bool(v.Bool())
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
		return nil
	case reflect.Float32, reflect.Float64:
		return encodeErr(KindFloat, "", "float values are forbidden in hashed payloads; encode numbers as strings or integers")
	case reflect.Pointer, reflect.Interface:
		if v.Type() == objectType {
			return e.object(v.Interface().(*Object))
		}
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.encodeElem(v.Elem())
	case reflect.Slice:
		return e.list(v) // a nil slice is an empty list: Go's nil carries no meaning in an artifact
	case reflect.Array:
		return e.list(v)
	case reflect.Map:
		if v.Type() == anyMapType && v.CanInterface() {
			// A struct's map[string]any field (a plan step's payload): the
			// generic encoder sorts and writes it without reflection.
			return e.anyMap(v.Interface().(map[string]any))
		}
		return e.mapValue(v)
	case reflect.Struct:
		if v.Type() == bigIntType {
			b := v.Interface().(big.Int)
			e.buf = b.Append(e.buf, 10)
			return nil
		}
		return e.structValue(v)
	}
	return encodeErr(KindUnsupportedType, "", "cannot encode a value of type "+v.Type().String())
}

// encodeElem goes back through the fast paths for interface contents.
func (e *encoder) encodeElem(v reflect.Value) error {
	if v.CanInterface() {
		switch v.Kind() {
		case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
			if v.Type() != bigIntType {
				return e.reflectValue(v)
			}
		}
		return e.encode(v.Interface())
	}
	return e.reflectValue(v)
}

func (e *encoder) list(v reflect.Value) error {
	e.buf = append(e.buf, '[')
	n := v.Len()
	for i := 0; i < n; i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.reflectValue(v.Index(i)); err != nil {
			return withPath(err, strconv.Itoa(i))
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

func (e *encoder) mapValue(v reflect.Value) error {
	if v.Type().Key().Kind() != reflect.String {
		return encodeErr(KindNonStringKey, "", "dict keys must be strings")
	}
	keys := make([]string, 0, v.Len()) // a nil map is an empty object
	iter := v.MapRange()
	for iter.Next() {
		keys = append(keys, iter.Key().String())
	}
	sort.Strings(keys)
	e.buf = append(e.buf, '{')
	kt := v.Type().Key()
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.str(k); err != nil {
			return withPath(err, k)
		}
		e.buf = append(e.buf, ':')
		if err := e.reflectValue(v.MapIndex(reflect.ValueOf(k).Convert(kt))); err != nil {
			return withPath(err, k)
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

func (e *encoder) structValue(v reflect.Value) error {
	p := e.plan(v.Type())
	e.buf = append(e.buf, '{')
	first := true
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.Field(f.index)
		if f.omitEmpty && isEmpty(fv) {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = append(e.buf, f.key...)
		if err := e.reflectValue(fv); err != nil {
			return withPath(err, f.name)
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// isEmpty follows encoding/json's omitempty rule.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
