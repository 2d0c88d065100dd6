package xdnecho

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/ozone/scm"
	"github.com/dnecho/dnecho/ozone/target"
)

// Option values of the Client (js/index.d.ts ClientOptions).
const (
	targetFirst = "first"
	targetAll   = "all"
	streamNew   = "new"
	streamReuse = "reuse"
	lookupFreon = "freon"
	lookupOne   = "single"
)

// clientOptionNames are the keys `new dnecho.Client({...})` accepts, in the order error messages
// list them.
var clientOptionNames = []string{
	"containerId", "scm", "conf", "set", "lookup", "lookupTimeout", "target", "stream", "clients",
	"deadline", "retries", "token", "tlsCA", "throw", "tags",
}

// clientOptions are a Client's validated options. The zero values of the optional fields are the
// documented defaults (see newClientOptions).
type clientOptions struct {
	ContainerID int64
	// SCM and Conf say where the cluster is; both empty means the process defaults (SetDefaults)
	// or OZONE_CONF_DIR.
	SCM  []string
	Conf string
	// Set are "key=value" overrides, sorted so equal maps give equal cache keys.
	Set           []string
	Lookup        string // lookupFreon or lookupOne
	LookupTimeout time.Duration
	Target        string // targetFirst, targetAll, or a DataNode uuid or host
	Stream        string // streamNew or streamReuse
	Clients       int
	// Deadline of one Echo attempt; 0 means the configuration's ozone.client.read.timeout.
	Deadline time.Duration
	Retries  bool
	Token    string // target.TokenAuto, target.TokenNone or an encoded token
	TLSCA    []string
	Throw    bool
	Tags     map[string]string
}

// newClientOptions returns the defaults: freon's lookup, the Java client's target and stream
// use, one client object, retries on, token from the configuration.
func newClientOptions() clientOptions {
	return clientOptions{
		Lookup:  lookupFreon,
		Target:  targetFirst,
		Stream:  streamNew,
		Clients: 1,
		Retries: true,
		Token:   target.TokenAuto,
	}
}

// parseClientOptions validates the argument of `new dnecho.Client(...)`. Keys whose value is
// undefined or null count as absent, so `scm: __ENV.DNECHO_SCM` works whether the variable is set
// or not.
func parseClientOptions(v goja.Value) (clientOptions, error) {
	o := newClientOptions()
	obj, ok := v.(*goja.Object)
	if !ok || isAbsent(v) {
		return o, errors.New("options are required, e.g. new dnecho.Client({ containerId: 1 })")
	}
	if obj.ClassName() == "Array" {
		return o, errors.New("options must be an object, e.g. { containerId: 1 }")
	}
	seenID := false
	for _, k := range obj.Keys() {
		val := obj.Get(k)
		if isAbsent(val) {
			continue
		}
		if err := o.set(k, val); err != nil {
			return o, err
		}
		seenID = seenID || k == "containerId"
	}
	if !seenID {
		return o, errors.New("option containerId is required: the container whose pipeline is echoed to, e.g. { containerId: 1 }")
	}
	return o, nil
}

// set validates one option and stores it.
func (o *clientOptions) set(k string, val goja.Value) error {
	var err error
	switch k {
	case "containerId":
		o.ContainerID, err = positiveInt(k, val)
	case "scm":
		o.SCM, err = stringList(k, val)
	case "conf":
		o.Conf, err = nonEmptyString(k, val)
	case "set":
		o.Set, err = overrides(k, val)
	case "lookup":
		o.Lookup, err = oneOf(k, val, lookupFreon, lookupOne)
	case "lookupTimeout":
		o.LookupTimeout, err = duration(k, val)
	case "target":
		if o.Target, err = nonEmptyString(k, val); err != nil {
			err = fmt.Errorf("%w: use %q, %q, or a DataNode uuid or host", err, targetFirst, targetAll)
		}
	case "stream":
		o.Stream, err = oneOf(k, val, streamNew, streamReuse)
	case "clients":
		var n int64
		if n, err = positiveInt(k, val); err == nil && n > maxClients {
			err = fmt.Errorf("option clients %d: at most %d (each client opens its own connections)", n, maxClients)
		}
		o.Clients = int(n)
	case "deadline":
		o.Deadline, err = duration(k, val)
	case "retries":
		o.Retries, err = boolean(k, val)
	case "token":
		if o.Token, err = nonEmptyString(k, val); err != nil {
			err = fmt.Errorf("%w: use %q, %q or an encoded token", err, target.TokenAuto, target.TokenNone)
		}
	case "tlsCA":
		o.TLSCA, err = stringList(k, val)
	case "throw":
		o.Throw, err = boolean(k, val)
	case "tags":
		o.Tags, err = stringMap(k, val)
	default:
		err = fmt.Errorf("unknown option %q; allowed: %s", k, strings.Join(clientOptionNames, ", "))
	}
	return err
}

// maxClients bounds the clients option: each client dials every pipeline member.
const maxClients = 1024

// lookupMode maps the lookup option to the SCM call sequence.
func (o *clientOptions) lookupMode() scm.LookupMode {
	if o.Lookup == lookupOne {
		return scm.LookupWithPipeline
	}
	return scm.LookupFreon
}

// isAbsent reports whether a JS value means "not given".
func isAbsent(v goja.Value) bool {
	return v == nil || goja.IsUndefined(v) || goja.IsNull(v)
}

func positiveInt(name string, v goja.Value) (int64, error) {
	switch x := v.Export().(type) {
	case int64:
		if x > 0 {
			return x, nil
		}
	case float64:
		if x > 0 && x == math.Trunc(x) && x < 1<<53 {
			return int64(x), nil
		}
	}
	return 0, fmt.Errorf("option %s %s: want a positive whole number", name, v.String())
}

func nonEmptyString(name string, v goja.Value) (string, error) {
	s, ok := v.Export().(string)
	if !ok {
		return "", fmt.Errorf("option %s %s: want a string", name, v.String())
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("option %s is empty", name)
	}
	return s, nil
}

func oneOf(name string, v goja.Value, allowed ...string) (string, error) {
	s, ok := v.Export().(string)
	if ok {
		for _, a := range allowed {
			if s == a {
				return s, nil
			}
		}
	}
	return "", fmt.Errorf("option %s %q: use %s", name, v.String(), strings.Join(allowed, " or "))
}

func boolean(name string, v goja.Value) (bool, error) {
	b, ok := v.Export().(bool)
	if !ok {
		return false, fmt.Errorf("option %s %s: want true or false", name, v.String())
	}
	return b, nil
}

// duration reads a Go duration string ("30s", "1m30s") or a number of milliseconds, as k6
// options do (spec k6-compat.md §2.3); it must be positive.
func duration(name string, v goja.Value) (time.Duration, error) {
	var d time.Duration
	switch x := v.Export().(type) {
	case int64:
		d = time.Duration(x) * time.Millisecond
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || x > float64(math.MaxInt64/int64(time.Millisecond)) {
			return 0, fmt.Errorf("option %s %v: want a duration such as '30s' or milliseconds", name, x)
		}
		d = time.Duration(x * float64(time.Millisecond))
	case string:
		var err error
		if d, err = time.ParseDuration(strings.TrimSpace(x)); err != nil {
			return 0, fmt.Errorf("option %s %q: want a duration such as '30s', '500ms' or milliseconds", name, x)
		}
	default:
		return 0, fmt.Errorf("option %s %s: want a duration such as '30s' or milliseconds", name, v.String())
	}
	if d <= 0 {
		return 0, fmt.Errorf("option %s %s: must be positive", name, v.String())
	}
	return d, nil
}

// stringList reads a string (comma-separated) or an array of strings.
func stringList(name string, v goja.Value) ([]string, error) {
	var parts []string
	switch x := v.Export().(type) {
	case string:
		parts = strings.Split(x, ",")
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("option %s: want a string or an array of strings", name)
			}
			parts = append(parts, strings.Split(s, ",")...)
		}
	default:
		return nil, fmt.Errorf("option %s %s: want a string or an array of strings", name, v.String())
	}
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("option %s is empty", name)
	}
	return out, nil
}

// stringMap reads {key: string | number | boolean}.
func stringMap(name string, v goja.Value) (map[string]string, error) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, fmt.Errorf("option %s: want an object of name: value", name)
	}
	if obj.ClassName() == "Array" {
		return nil, fmt.Errorf("option %s: want an object of name: value, not an array", name)
	}
	m := make(map[string]string)
	for _, k := range obj.Keys() {
		e := obj.Get(k)
		if _, isObj := e.(*goja.Object); isObj || isAbsent(e) {
			return nil, fmt.Errorf("option %s: the value of %q must be a string, number or boolean", name, k)
		}
		m[k] = e.String()
	}
	return m, nil
}

// overrides reads the set option ({key: value}) as sorted "key=value" strings.
func overrides(name string, v goja.Value) ([]string, error) {
	m, err := stringMap(name, v)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(m))
	for k, val := range m {
		if strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("option %s: empty configuration key", name)
		}
		out = append(out, k+"="+val)
	}
	sort.Strings(out)
	return out, nil
}
