package config

import (
	"os"
	"regexp"
	"strings"
)

// maxExpansions bounds ${...} substitution per value, as Hadoop's Configuration does (20),
// so a reference cycle cannot loop forever.
const maxExpansions = 20

// varRef matches one ${name} reference; the name has no '$', '}' or space (Hadoop's pattern).
var varRef = regexp.MustCompile(`\$\{([^}$ ]+)\}`)

// expand resolves ${name} references the way Hadoop does: ${env.NAME} (optionally with
// ":-default" or "-default") reads the environment, any other name reads another property.
// The first unresolvable or self-referencing name stops expansion and the text is returned
// as it stands, which is what Hadoop returns too. Java system properties, which Hadoop also
// consults, do not exist here.
func (c *Config) expand(v string) string {
	for range maxExpansions {
		loc := varRef.FindStringSubmatchIndex(v)
		if loc == nil {
			return v
		}
		ref, name := v[loc[0]:loc[1]], v[loc[2]:loc[3]]
		val, ok := c.resolveRef(name)
		if !ok || strings.Contains(val, ref) {
			return v
		}
		v = v[:loc[0]] + val + v[loc[1]:]
	}
	return v
}

func (c *Config) resolveRef(name string) (string, bool) {
	if env, ok := strings.CutPrefix(name, "env."); ok && env != "" {
		return lookupEnv(env)
	}
	val, ok := c.props[name]
	return val, ok
}

// lookupEnv handles NAME, NAME:-default (default when unset or empty) and NAME-default
// (default when unset).
func lookupEnv(spec string) (string, bool) {
	if name, def, ok := strings.Cut(spec, ":-"); ok {
		if v := os.Getenv(name); v != "" {
			return v, true
		}
		return def, true
	}
	if name, def, ok := strings.Cut(spec, "-"); ok {
		if v, set := os.LookupEnv(name); set {
			return v, true
		}
		return def, true
	}
	return os.LookupEnv(spec)
}
