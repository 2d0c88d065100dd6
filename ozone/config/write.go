package config

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// OzoneSiteFile is the file name Write produces.
const OzoneSiteFile = "ozone-site.xml"

// Write writes props as dir/ozone-site.xml (keys sorted, so the file is reproducible),
// creating dir if needed. The mini cluster uses it to hand clients a configuration.
func Write(dir string, props map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return WriteFile(filepath.Join(dir, OzoneSiteFile), props)
}

// WriteFile writes props as one Hadoop XML configuration file at path.
func WriteFile(path string, props map[string]string) error {
	var buf bytes.Buffer
	if err := encodeXML(&buf, props); err != nil {
		return fmt.Errorf("config: %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

func encodeXML(w io.Writer, props map[string]string) error {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	bw := bufio.NewWriter(w)
	bw.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration>\n")
	for _, k := range keys {
		bw.WriteString("  <property>\n    <name>")
		if err := xml.EscapeText(bw, []byte(k)); err != nil {
			return err
		}
		bw.WriteString("</name>\n    <value>")
		if err := xml.EscapeText(bw, []byte(props[k])); err != nil {
			return err
		}
		bw.WriteString("</value>\n  </property>\n")
	}
	bw.WriteString("</configuration>\n")
	return bw.Flush()
}

// ParseDockerConfig reads an Ozone docker-compose "docker-config" file, in which each line
// FILE.XML_key=value puts key=value into the Hadoop file FILE.xml (the Ozone images build
// their configuration this way). It returns the properties per lower-cased file name, such
// as "ozone-site.xml" and "core-site.xml". Other lines (comments, plain environment
// variables, LOG4J.PROPERTIES_...) are ignored; a repeated key keeps its last value.
func ParseDockerConfig(r io.Reader) (map[string]map[string]string, error) {
	files, err := parseDockerConfig(r)
	if err != nil {
		return nil, fmt.Errorf("config: docker-config: %w", err)
	}
	return files, nil
}

func parseDockerConfig(r io.Reader) (map[string]map[string]string, error) {
	files := map[string]map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lhs, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		file, key, ok := strings.Cut(lhs, ".XML_")
		if !ok || file == "" || key == "" {
			continue
		}
		name := strings.ToLower(file) + ".xml"
		if files[name] == nil {
			files[name] = map[string]string{}
		}
		files[name][key] = value
	}
	return files, sc.Err()
}

// ConvertDockerConfig turns the docker-config file at src into XML files in dir
// (ozone-site.xml, core-site.xml and any other FILE.xml it names), ready for Load(dir).
func ConvertDockerConfig(src, dir string) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	files, err := parseDockerConfig(f)
	if err != nil {
		return fmt.Errorf("config: docker-config %s: %w", src, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	for name, props := range files {
		if err := WriteFile(filepath.Join(dir, name), props); err != nil {
			return err
		}
	}
	return nil
}
