package compile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The YAML is decoded into generic values (map[string]any, []any, string,
// bool, int, float64, nil); these helpers read them strictly. Paths are
// built only when something fails, so reading a large course stays cheap.

func child(path, key string) string { return path + "." + key }

// index is built for every entry read, so it costs one allocation.
func index(path string, i int) string {
	var buf [128]byte
	b := append(buf[:0], path...)
	b = append(strconv.AppendInt(append(b, '['), int64(i), 10), ']')
	return string(b)
}

func typeName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}

func asMap(v any, path string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errorf(KindWrongType, path, "want a mapping, got %s", typeName(v))
	}
	return m, nil
}

func asList(v any, path string) ([]any, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, errorf(KindWrongType, path, "want a list, got %s", typeName(v))
	}
	return l, nil
}

// fields requires m to hold exactly keys: each present, nothing else.
func fields(m map[string]any, path string, keys ...string) error {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return errorf(KindMissingKey, path, "missing key %q", k)
		}
	}
	if len(m) == len(keys) {
		return nil
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	slices.Sort(unknown)
	return errorf(KindUnknownKey, path, "unknown key(s) %s", strings.Join(unknown, ", "))
}

// object reads v as a mapping with exactly keys.
func object(v any, path string, keys ...string) (map[string]any, error) {
	m, err := asMap(v, path)
	if err != nil {
		return nil, err
	}
	return m, fields(m, path, keys...)
}

// str reads m[key] as a string (possibly empty).
func str(m map[string]any, path, key string) (string, error) {
	s, ok := m[key].(string)
	if !ok {
		return "", errorf(KindWrongType, child(path, key), "want a string, got %s", typeName(m[key]))
	}
	return s, nil
}

// text reads m[key] as a string with something besides white space in it.
func text(m map[string]any, path, key string) (string, error) {
	s, err := str(m, path, key)
	if err == nil && strings.TrimSpace(s) == "" {
		err = errorf(KindUnusable, child(path, key), "empty %s", key)
	}
	return s, err
}

// exact reads m[key] and requires it to be want.
func exact(m map[string]any, path, key, want string) error {
	s, err := str(m, path, key)
	if err == nil && s != want {
		err = errorf(KindUnusable, child(path, key), "want %q, got %q", want, s)
	}
	return err
}

// stringList reads m[key] as a list of strings.
func stringList(m map[string]any, path, key string) ([]string, error) {
	l, err := asList(m[key], child(path, key))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(l))
	for i, v := range l {
		s, ok := v.(string)
		if !ok {
			return nil, errorf(KindWrongType, index(child(path, key), i), "want a string, got %s", typeName(v))
		}
		out[i] = s
	}
	return out, nil
}

// entries reads m[key] as a list and calls fn on each item with its path.
func entries(m map[string]any, path, key string, fn func(v any, path string) error) error {
	p := child(path, key)
	l, err := asList(m[key], p)
	if err != nil {
		return err
	}
	for i, v := range l {
		if err := fn(v, index(p, i)); err != nil {
			return err
		}
	}
	return nil
}
