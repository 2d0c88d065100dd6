package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// newConfig returns an empty config of the given executor type, or nil for an unknown type.
func newConfig(t Type) Config {
	switch t {
	case SharedIterations:
		return &SharedIterationsConfig{}
	case PerVUIterations:
		return &PerVUIterationsConfig{}
	case ConstantVUs:
		return &ConstantVUsConfig{}
	case RampingVUs:
		return &RampingVUsConfig{}
	case ConstantArrivalRate:
		return &ConstantArrivalRateConfig{}
	case RampingArrivalRate:
		return &RampingArrivalRateConfig{}
	}
	return nil
}

// ParseScenarios decodes the JSON form of the script's `options.scenarios` (an object of
// scenario name → scenario object). JSON null gives no scenarios. The result is sorted by start
// time, then name, which is the order of the run header. Errors are *ConfigError.
func ParseScenarios(data []byte) ([]Config, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, newConfigError(fmt.Errorf("scenarios must be an object of name → scenario: %w", err))
	}
	out := make([]Config, 0, len(raw))
	for _, name := range sortedKeys(raw) {
		c, err := DecodeScenario(name, raw[name])
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	SortScenarios(out)
	return out, nil
}

// DecodeScenario decodes one scenario object strictly: an unknown key is an error naming the key
// and the scenario. It does not validate values; call Validate or ValidateScenarios for that.
func DecodeScenario(name string, data []byte) (Config, error) {
	fail := func(format string, args ...any) (Config, error) {
		return nil, newConfigError(fmt.Errorf("scenario '%s': "+format, append([]any{name}, args...)...))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return fail("a scenario must be an object")
	}
	var typ string
	if v, ok := raw["executor"]; ok && string(bytes.TrimSpace(v)) != "null" {
		if err := json.Unmarshal(v, &typ); err != nil {
			return fail("option \"executor\": expected a string, got %s", v)
		}
	}
	if typ == "" {
		return nil, newConfigError(fmt.Errorf("scenario '%s' doesn't have a specified executor type", name))
	}
	c := newConfig(Type(typ))
	if c == nil {
		return fail("unknown executor type '%s'", typ)
	}
	fields := jsonFields(reflect.TypeOf(c).Elem())
	dst := reflect.ValueOf(c).Elem()
	for _, key := range sortedKeys(raw) {
		if key == "executor" {
			continue
		}
		idx, ok := fields[key]
		if !ok {
			return fail("unknown option %q for executor %s (allowed: %s)", key, typ, allowedKeys(fields))
		}
		fv := dst.FieldByIndex(idx)
		if err := json.Unmarshal(raw[key], fv.Addr().Interface()); err != nil {
			return fail("option %q: %s", key, jsonErrText(err))
		}
	}
	b := c.Base()
	b.Name, b.Executor = name, Type(typ)
	return c, nil
}

// SortScenarios orders scenarios by start time, then by name (the run header's order).
func SortScenarios(scs []Config) {
	sort.SliceStable(scs, func(i, j int) bool {
		a, b := scs[i].Base(), scs[j].Base()
		if a.StartOffset() != b.StartOffset() {
			return a.StartOffset() < b.StartOffset()
		}
		return a.Name < b.Name
	})
}

var fieldCache sync.Map // reflect.Type → map[string][]int

// jsonFields maps every JSON key of a config struct (including the embedded BaseConfig's) to
// its field index, so decoding can reject unknown keys and name the offending one.
func jsonFields(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			idx := append(append([]int(nil), prefix...), i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type, idx)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			m[name] = idx
		}
	}
	walk(t, nil)
	fieldCache.Store(t, m)
	return m
}

func allowedKeys(fields map[string][]int) string {
	keys := []string{"executor"}
	for _, k := range sortedKeys(fields) {
		if k != "executor" {
			keys = append(keys, k)
		}
	}
	return strings.Join(keys, ", ")
}

// jsonErrText turns encoding/json's type errors into a short sentence without Go type names.
func jsonErrText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := te.Type.Kind().String()
		switch te.Type.Kind() {
		case reflect.Map:
			want = "an object of strings"
		case reflect.Slice:
			want = "an array"
		case reflect.String:
			want = "a string"
		}
		return fmt.Sprintf("expected %s, got a JSON %s", want, te.Value)
	}
	return err.Error()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
