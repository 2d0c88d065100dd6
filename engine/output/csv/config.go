package csv

import (
	"fmt"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/threshold"
)

// Defaults of the csv output (docs/k6-compat.md#csv-output).
const (
	DefaultFileName     = "file.csv"
	DefaultSaveInterval = time.Second
	DefaultTimeFormat   = "unix"
)

var timeFormats = []string{"unix", "unix_milli", "unix_micro", "unix_nano", "rfc3339", "rfc3339_nano"}

// Config is the csv output's configuration.
type Config struct {
	FileName     string
	SaveInterval time.Duration
	TimeFormat   string
}

// ParseConfig layers defaults < K6_CSV_* environment < the -o argument. The argument is empty,
// a file name ("-" for stdout), or comma-separated key=value pairs with the keys fileName,
// saveInterval and timeFormat.
func ParseConfig(arg string, env map[string]string) (Config, error) {
	c := Config{FileName: DefaultFileName, SaveInterval: DefaultSaveInterval, TimeFormat: DefaultTimeFormat}
	for _, kv := range [][2]string{{"K6_CSV_FILENAME", "fileName"}, {"K6_CSV_SAVE_INTERVAL", "saveInterval"}, {"K6_CSV_TIME_FORMAT", "timeFormat"}} {
		if v, ok := env[kv[0]]; ok {
			if err := c.set(kv[1], v); err != nil {
				return Config{}, fmt.Errorf("csv output: %s: %w", kv[0], err)
			}
		}
	}
	if arg == "" {
		return c, nil
	}
	if !strings.Contains(arg, "=") {
		c.FileName = arg
		return c, nil
	}
	for _, pair := range strings.Split(arg, ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			return Config{}, fmt.Errorf("csv output: %q is not key=value", pair)
		}
		if err := c.set(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return Config{}, fmt.Errorf("csv output: %w", err)
		}
	}
	return c, nil
}

func (c *Config) set(key, v string) error {
	switch key {
	case "fileName":
		if v == "" {
			return fmt.Errorf("fileName is empty")
		}
		c.FileName = v
	case "saveInterval":
		d, err := threshold.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("saveInterval: %w", err)
		}
		if d <= 0 {
			return fmt.Errorf("saveInterval %q must be positive", v)
		}
		c.SaveInterval = d
	case "timeFormat":
		for _, f := range timeFormats {
			if v == f {
				c.TimeFormat = v
				return nil
			}
		}
		return fmt.Errorf("unknown timeFormat %q: use %s", v, strings.Join(timeFormats, ", "))
	default:
		return fmt.Errorf("unknown option %q: use fileName, saveInterval or timeFormat", key)
	}
	return nil
}
