package influxdb

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/output"
)

// Defaults shared by both APIs (k6: internal/output/influxdb/config.go; xk6-output-influxdb:
// pkg/influxdb/config.go).
const (
	DefaultAddr             = "http://localhost:8086"
	DefaultDB               = "k6"
	DefaultPushInterval     = time.Second
	DefaultConcurrentWrites = 4
	// DefaultTimeout bounds one write request.
	DefaultTimeout = 10 * time.Second
	// DefaultPayloadSize is the UDP datagram size when payloadSize is unset.
	DefaultPayloadSize = 512
)

// DefaultTagsAsFields are the tags written as fields: k6's v1 output writes them as strings, the
// v2 extension converts vu and iter to integers. In this engine vu and iter are metadata, which
// neither output writes, so only url has an effect.
var (
	DefaultTagsAsFields   = []string{"vu", "iter", "url"}
	DefaultV2TagsAsFields = []string{"vu:int", "iter:int", "url"}
)

// Config is the settings of either output, consolidated from defaults < K6_INFLUXDB_* < URL.
type Config struct {
	V2 bool // the InfluxDB v2 API (-o xk6-influxdb) instead of v1 (-o influxdb)

	Addr             string // scheme://host:port[/prefix]; udp://host:port for v1 over UDP
	Insecure         bool   // skip TLS verification
	Proxy            string
	PushInterval     time.Duration
	ConcurrentWrites int
	TagsAsFields     []FieldSpec

	// v1
	DB, Username, Password string
	Precision              string // as /write takes it: n, u, ms, s, m, h ("" = ns)
	Retention, Consistency string
	PayloadSize            int // UDP datagram size

	// v2
	Organization, Bucket, Token string
}

// FieldKind is the type a tag written as a field is converted to.
type FieldKind int

// Field kinds of tagsAsFields entries ("name:int").
const (
	String FieldKind = iota
	Int
	Float
	Bool
)

// FieldSpec is one tagsAsFields entry.
type FieldSpec struct {
	Tag  string
	Kind FieldKind
}

// ParseFieldSpecs reads tagsAsFields entries name[:string|int|float|bool].
func ParseFieldSpecs(option string, entries []string) ([]FieldSpec, error) {
	var out []FieldSpec
	seen := map[string]bool{}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		name, typ, _ := strings.Cut(e, ":")
		kind, ok := map[string]FieldKind{"": String, "string": String, "int": Int, "float": Float, "bool": Bool}[typ]
		if !ok {
			return nil, &output.SettingError{Option: option, Value: e, Allowed: "field types are string, int, float or bool"}
		}
		if seen[name] {
			return nil, &output.SettingError{Option: option, Value: e, Allowed: "tag " + name + " is listed twice"}
		}
		seen[name] = true
		out = append(out, FieldSpec{name, kind})
	}
	return out, nil
}

func newConfig(v2 bool) Config {
	c := Config{V2: v2, Addr: DefaultAddr, DB: DefaultDB, PushInterval: DefaultPushInterval, ConcurrentWrites: DefaultConcurrentWrites}
	tags := DefaultTagsAsFields
	if v2 {
		tags = DefaultV2TagsAsFields
	}
	c.TagsAsFields, _ = ParseFieldSpecs("", tags)
	return c
}

// NewConfig consolidates the settings of -o influxdb=arg (v2 false) or -o xk6-influxdb=arg.
func NewConfig(v2 bool, env map[string]string, arg string) (Config, error) {
	c := newConfig(v2)
	if err := c.applyEnv(env); err != nil {
		return c, err
	}
	if arg != "" {
		if err := c.applyURL(arg); err != nil {
			return c, err
		}
	}
	return c, c.validate()
}

func (c *Config) applyEnv(env map[string]string) error {
	str := map[string]*string{
		"K6_INFLUXDB_ADDR": &c.Addr, "K6_INFLUXDB_PROXY": &c.Proxy,
		"K6_INFLUXDB_DB": &c.DB, "K6_INFLUXDB_USERNAME": &c.Username, "K6_INFLUXDB_PASSWORD": &c.Password,
		"K6_INFLUXDB_RETENTION": &c.Retention, "K6_INFLUXDB_CONSISTENCY": &c.Consistency,
		"K6_INFLUXDB_ORGANIZATION": &c.Organization, "K6_INFLUXDB_BUCKET": &c.Bucket, "K6_INFLUXDB_TOKEN": &c.Token,
	}
	for k, dst := range str {
		if v, ok := env[k]; ok {
			*dst = v
		}
	}
	for k, v := range env {
		if err := c.set(k, "K6_INFLUXDB_", v); err != nil {
			return err
		}
	}
	return nil
}

// set applies the settings that need parsing; name is the env variable or URL parameter.
func (c *Config) set(name, prefix, v string) error {
	var err error
	switch strings.TrimPrefix(name, prefix) {
	case "INSECURE", "insecure":
		c.Insecure, err = output.ParseBool(name, v)
	case "PUSH_INTERVAL", "pushInterval":
		c.PushInterval, err = output.ParsePositiveDuration(name, v)
	case "CONCURRENT_WRITES", "concurrentWrites":
		c.ConcurrentWrites, err = output.ParsePositiveInt(name, v)
	case "PAYLOAD_SIZE", "payload_size":
		c.PayloadSize, err = output.ParsePositiveInt(name, v)
	case "PRECISION", "precision":
		c.Precision, err = parsePrecision(name, v)
	case "TAGS_AS_FIELDS":
		c.TagsAsFields, err = ParseFieldSpecs(name, strings.Split(v, ","))
	}
	return err
}

// parsePrecision accepts what InfluxDB v1's /write takes (n, ns, u, ms, s, m, h), the Go
// spellings us and µs, and the v2 extension's durations (1ns, 1us, 1ms, 1s).
func parsePrecision(option, v string) (string, error) {
	p := strings.TrimPrefix(strings.TrimSpace(v), "1")
	switch p {
	case "", "n", "ns":
		return "", nil
	case "u", "us", "µs":
		return "u", nil
	case "ms", "s", "m", "h":
		return p, nil
	}
	return "", &output.SettingError{Option: option, Value: v, Allowed: "use ns, us, ms, s, m or h"}
}

// applyURL reads the -o argument: http[s]://[user:pass@]host:port[/prefix]/db?params for v1
// (the last path segment is the database), http[s]://host:port[/bucket] for v2.
func (c *Config) applyURL(arg string) error {
	u, err := url.Parse(arg)
	if err != nil || u.Host == "" {
		return &output.SettingError{Option: "influxdb URL", Value: arg, Allowed: "use http[s]://[user:pass@]host:port/database"}
	}
	path := strings.TrimSuffix(u.Path, "/")
	if c.V2 {
		c.Addr = u.Scheme + "://" + u.Host
		if b := strings.TrimPrefix(u.Path, "/"); b != "" {
			c.Bucket = b
		}
		return nil
	}
	prefix, db := "", ""
	if i := strings.LastIndex(path, "/"); i >= 0 && !strings.HasSuffix(u.Path, "/") {
		prefix, db = path[:i], path[i+1:]
	} else {
		prefix = path
	}
	c.Addr = u.Scheme + "://" + u.Host + prefix
	if db != "" {
		c.DB = db
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	return c.applyQuery(u.Query())
}

var v1Params = map[string]bool{"insecure": true, "payload_size": true, "precision": true, "retention": true,
	"consistency": true, "pushInterval": true, "concurrentWrites": true, "tagsAsFields": true}

func (c *Config) applyQuery(q url.Values) error {
	for k, vs := range q {
		if !v1Params[k] {
			return &output.SettingError{Option: "influxdb URL parameter " + k, Value: strings.Join(vs, ","),
				Allowed: "allowed parameters are insecure, payload_size, precision, retention, consistency, pushInterval, concurrentWrites, tagsAsFields"}
		}
		var err error
		switch k {
		case "retention":
			c.Retention = vs[0]
		case "consistency":
			c.Consistency = vs[0]
		case "tagsAsFields":
			c.TagsAsFields, err = ParseFieldSpecs(k, vs)
		default:
			err = c.set(k, "", vs[0])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) validate() error {
	if c.V2 && c.Bucket == "" {
		return &output.SettingError{Option: "K6_INFLUXDB_BUCKET", Value: "", Allowed: "the InfluxDB v2 output needs a bucket"}
	}
	if !c.V2 && c.DB == "" {
		c.DB = DefaultDB
	}
	u, err := url.Parse(c.Addr)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && (c.V2 || u.Scheme != "udp")) || u.Host == "" {
		allowed := "use http[s]://host:port or udp://host:port"
		if c.V2 {
			allowed = "use http[s]://host:port"
		}
		return &output.SettingError{Option: "K6_INFLUXDB_ADDR", Value: c.Addr, Allowed: allowed}
	}
	if c.V2 && (c.Precision == "m" || c.Precision == "h") {
		return &output.SettingError{Option: "K6_INFLUXDB_PRECISION", Value: c.Precision, Allowed: "the v2 API takes ns, us, ms or s"}
	}
	if c.Consistency != "" && !map[string]bool{"any": true, "one": true, "quorum": true, "all": true}[c.Consistency] {
		return &output.SettingError{Option: "consistency", Value: c.Consistency, Allowed: "use any, one, quorum or all"}
	}
	return nil
}

// udp reports whether the v1 output writes datagrams.
func (c Config) udp() bool { return strings.HasPrefix(c.Addr, "udp://") }

// writeURL is where points are posted.
func (c Config) writeURL() string {
	q := url.Values{}
	if c.V2 {
		q.Set("org", c.Organization)
		q.Set("bucket", c.Bucket)
		q.Set("precision", map[string]string{"": "ns", "u": "us", "ms": "ms", "s": "s"}[c.Precision])
		return c.Addr + "/api/v2/write?" + q.Encode()
	}
	q.Set("db", c.DB)
	for k, v := range map[string]string{"rp": c.Retention, "precision": c.Precision, "consistency": c.Consistency} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return c.Addr + "/write?" + q.Encode()
}

// description is shown in the run header.
func (c Config) description() string {
	if c.V2 {
		return fmt.Sprintf("xk6-influxdb (%s, bucket %s)", c.Addr, c.Bucket)
	}
	return fmt.Sprintf("influxdb (%s, db %s)", c.Addr, c.DB)
}

// precisionDiv is the divisor from nanoseconds to the precision's unit.
func (c Config) precisionDiv() int64 {
	return map[string]int64{"": 1, "u": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}[c.Precision]
}
