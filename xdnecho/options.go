package xdnecho

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/ozone/echo"
)

// kind is the JavaScript shape an option takes; the value is turned into the option's string
// form and parsed by echo.Spec.Set, the parser the command line uses too.
type kind int

const (
	kindInt      kind = iota // a whole number, not a string
	kindString               // a non-empty string
	kindDuration             // '30s', '500ms', or a number of milliseconds
	kindBool                 // true or false
	kindList                 // a string (comma-separated) or an array of strings
	kindMap                  // { key: value } of strings, numbers or booleans
)

// clientOption is one key of `new dnecho.Client({...})`.
type clientOption struct {
	name  string
	kind  kind
	field echo.Field // "" for the module's own options (throw, tags)
	// invert turns a boolean into its opposite field (retries: false sets NoRetry).
	invert bool
	// choices are the string forms of false and true when the field is not a boolean
	// (ratis: true sets Transport "ratis").
	choices *[2]string
}

// clientOptions are the keys the Client accepts, in the order error messages list them
// (js/index.d.ts ClientOptions).
var clientOptions = []clientOption{
	{name: "containerId", kind: kindInt, field: echo.FieldContainerID},
	{name: "scm", kind: kindList, field: echo.FieldSCM},
	{name: "conf", kind: kindString, field: echo.FieldConfDir},
	{name: "set", kind: kindMap, field: echo.FieldOverrides},
	{name: "user", kind: kindString, field: echo.FieldUser},
	{name: "principal", kind: kindString, field: echo.FieldPrincipal},
	{name: "keytab", kind: kindString, field: echo.FieldKeytab},
	{name: "lookup", kind: kindString, field: echo.FieldLookup},
	{name: "lookupTimeout", kind: kindDuration, field: echo.FieldLookupTimeout},
	{name: "target", kind: kindString, field: echo.FieldTarget},
	{name: "stream", kind: kindString, field: echo.FieldStream},
	{name: "transport", kind: kindString, field: echo.FieldGRPCClient},
	{name: "ratis", kind: kindBool, field: echo.FieldTransport, choices: &[2]string{string(echo.TransportGRPC), string(echo.TransportRatis)}},
	{name: "readOnly", kind: kindBool, field: echo.FieldReadOnly},
	{name: "unsafeWrite", kind: kindBool, field: echo.FieldUnsafeWrite},
	{name: "clients", kind: kindInt, field: echo.FieldClients},
	{name: "deadline", kind: kindDuration, field: echo.FieldDeadline},
	{name: "retries", kind: kindBool, field: echo.FieldNoRetry, invert: true},
	{name: "token", kind: kindString, field: echo.FieldToken},
	{name: "tlsCA", kind: kindList, field: echo.FieldTLSCA},
	{name: "reresolve", kind: kindBool, field: echo.FieldNoReresolve, invert: true},
	{name: "reresolveAfter", kind: kindDuration, field: echo.FieldReresolveAfter},
	{name: "throw", kind: kindBool},
	{name: "tags", kind: kindMap},
}

// optionName maps a Spec field to the Client option that sets it, for error messages.
func optionName(f echo.Field) string {
	for _, o := range clientOptions {
		if o.field == f {
			return "option " + o.name
		}
	}
	for _, o := range requestFields {
		if o.field == f {
			return o.name
		}
	}
	return ""
}

// clientConfig is a Client's parsed options: the echo Spec and the module's own.
type clientConfig struct {
	spec  echo.Spec
	throw bool
	tags  map[string]string
}

// parseClientOptions reads the argument of `new dnecho.Client(...)`. Keys whose value is
// undefined or null count as absent, so `scm: __ENV.DNECHO_SCM` works whether the variable is set
// or not. The module's defaults fill in the cluster when the options name none.
func parseClientOptions(v goja.Value, d Defaults) (clientConfig, error) {
	var c clientConfig
	obj, ok := v.(*goja.Object)
	if !ok || isAbsent(v) {
		return c, errors.New("options are required, e.g. new dnecho.Client({ containerId: 1 })")
	}
	if obj.ClassName() == "Array" {
		return c, errors.New("options must be an object, e.g. { containerId: 1 }")
	}
	for _, k := range obj.Keys() {
		val := obj.Get(k)
		if isAbsent(val) {
			continue
		}
		if err := c.set(k, val); err != nil {
			return c, err
		}
	}
	if c.spec.ContainerID == 0 {
		return c, errors.New("option containerId is required: the container whose pipeline is echoed to, e.g. { containerId: 1 }")
	}
	c.applyDefaults(d)
	if err := c.spec.Validate(); err != nil {
		return c, echo.Rename(err, optionName)
	}
	return c, nil
}

// applyDefaults points a Client that names no cluster at the module's defaults; the defaults'
// overrides go under the Client's own, and their CA files apply when the Client has none.
func (c *clientConfig) applyDefaults(d Defaults) {
	cl := &c.spec.Cluster
	if !cl.IsSet() {
		cl.SCM, cl.ConfDir = append([]string(nil), d.SCM...), d.ConfDir
	}
	cl.Overrides = append(append([]string(nil), d.Overrides...), cl.Overrides...)
	if len(c.spec.TLSCA) == 0 {
		c.spec.TLSCA = append([]string(nil), d.CAFiles...)
	}
	if cl.User == "" && cl.Principal == "" && cl.Keytab == "" {
		cl.User = d.User
	}
	if cl.Principal == "" && cl.Keytab == "" && cl.User == "" {
		cl.Principal, cl.Keytab = d.Principal, d.Keytab
	}
}

// set validates one option and stores it.
func (c *clientConfig) set(k string, val goja.Value) error {
	var o *clientOption
	for i := range clientOptions {
		if clientOptions[i].name == k {
			o = &clientOptions[i]
		}
	}
	if o == nil {
		names := make([]string, len(clientOptions))
		for i, o := range clientOptions {
			names[i] = o.name
		}
		return fmt.Errorf("unknown option %q; allowed: %s", k, strings.Join(names, ", "))
	}
	switch o.name {
	case "throw":
		b, err := boolean("option "+k, val)
		c.throw = b
		return err
	case "tags":
		m, err := stringMap("option "+k, val)
		c.tags = m
		return err
	}
	values, err := stringForms(o.name, o.kind, o.invert, val)
	if err != nil {
		return err
	}
	if o.choices != nil {
		values[0] = o.choices[map[string]int{"false": 0, "true": 1}[values[0]]]
	}
	for _, s := range values {
		if err := c.spec.Set(o.field, s); err != nil {
			return echo.Rename(err, optionName)
		}
	}
	return nil
}

// stringForms checks a JS value against an option's kind and returns its string form(s).
func stringForms(name string, k kind, invert bool, v goja.Value) ([]string, error) {
	label := "option " + name
	switch k {
	case kindInt:
		s, err := wholeNumber(label, v)
		return []string{s}, err
	case kindString:
		s, ok := v.Export().(string)
		if !ok {
			return nil, fmt.Errorf("%s %s: want a string", label, v.String())
		}
		return []string{s}, nil
	case kindDuration:
		s, err := durationForm(label, v)
		return []string{s}, err
	case kindBool:
		b, err := boolean(label, v)
		return []string{strconv.FormatBool(b != invert)}, err
	case kindList:
		return stringList(label, v)
	}
	m, err := stringMap(label, v)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(m))
	for key, val := range m {
		if strings.TrimSpace(key) == "" {
			return nil, fmt.Errorf("%s: empty configuration key", label)
		}
		out = append(out, key+"="+val)
	}
	sort.Strings(out)
	return out, nil
}

// isAbsent reports whether a JS value means "not given".
func isAbsent(v goja.Value) bool {
	return v == nil || goja.IsUndefined(v) || goja.IsNull(v)
}

// wholeNumber reads a JS number that must be whole; a string is refused as such, so that
// `containerId: '1'` says what is wrong instead of what is expected.
func wholeNumber(label string, v goja.Value) (string, error) {
	switch x := v.Export().(type) {
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10), nil
		}
		return "", fmt.Errorf("%s %v: want a whole number", label, x)
	case string:
		return "", fmt.Errorf("%s '%s' is a string: want a number, e.g. %s: 1", label, x, strings.TrimPrefix(label, "option "))
	}
	return "", fmt.Errorf("%s %s: want a whole number", label, v.String())
}

// durationForm reads a Go duration string ("30s", "1m30s") or a number of milliseconds, as k6
// options do (docs/k6-compat.md).
func durationForm(label string, v goja.Value) (string, error) {
	switch x := v.Export().(type) {
	case int64:
		return strconv.FormatInt(x, 10) + "ms", nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > float64(math.MaxInt64/1e6) {
			return "", fmt.Errorf("%s %v: want a duration such as '30s' or milliseconds", label, x)
		}
		return strconv.FormatFloat(x, 'f', -1, 64) + "ms", nil
	case string:
		return x, nil
	}
	return "", fmt.Errorf("%s %s: want a duration such as '30s' or milliseconds", label, v.String())
}

func boolean(label string, v goja.Value) (bool, error) {
	b, ok := v.Export().(bool)
	if !ok {
		return false, fmt.Errorf("%s %s: want true or false", label, v.String())
	}
	return b, nil
}

// stringList reads a string (comma-separated) or an array of strings.
func stringList(label string, v goja.Value) ([]string, error) {
	switch x := v.Export().(type) {
	case string:
		return []string{x}, nil
	case []any:
		var out []string
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s: want a string or an array of strings", label)
			}
			out = append(out, s)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s is empty", label)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s %s: want a string or an array of strings", label, v.String())
}

// stringMap reads {key: string | number | boolean}.
func stringMap(label string, v goja.Value) (map[string]string, error) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, fmt.Errorf("%s: want an object of name: value", label)
	}
	if obj.ClassName() == "Array" {
		return nil, fmt.Errorf("%s: want an object of name: value, not an array", label)
	}
	m := make(map[string]string)
	for _, k := range obj.Keys() {
		e := obj.Get(k)
		if _, isObj := e.(*goja.Object); isObj || isAbsent(e) {
			return nil, fmt.Errorf("%s: the value of %q must be a string, number or boolean", label, k)
		}
		m[k] = e.String()
	}
	return m, nil
}
