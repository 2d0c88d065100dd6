package config

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// property is one parsed <property> element.
type property struct {
	name, value string
	final       bool
}

// parseXML reads a Hadoop configuration file. It follows Hadoop's parser
// (org.apache.hadoop.conf.Configuration.Parser) where that matters for real files:
// <property> may sit anywhere, its parts may be child elements or attributes (name, value,
// final), the name is trimmed and the value is not, and a property without a value (an empty
// <value/>) is skipped, as Hadoop skips null values. XInclude is refused rather than ignored,
// so a configuration split across files never loads half-read.
func parseXML(r io.Reader, file string) ([]property, error) {
	dec := xml.NewDecoder(r)
	var (
		out     []property
		cur     *property
		hasVal  bool
		field   string // child element whose text is being collected
		text    bytes.Buffer
		sawRoot bool
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, xmlError(file, dec, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			sawRoot = true
			switch t.Name.Local {
			case "property":
				cur, hasVal, field = &property{}, false, ""
				applyAttrs(cur, &hasVal, t.Attr)
			case "name", "value", "final":
				if cur != nil {
					field = t.Name.Local
					text.Reset()
				}
			case "include":
				line, _ := dec.InputPos()
				return nil, fmt.Errorf("config: %s:%d: xi:include is not supported; merge the included file", file, line)
			}
		case xml.CharData:
			if field != "" {
				text.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "name", "value", "final":
				if cur != nil && field == t.Name.Local {
					setField(cur, &hasVal, field, text.String())
					field = ""
				}
			case "property":
				if cur != nil && cur.name != "" && hasVal {
					out = append(out, *cur)
				}
				cur = nil
			}
		}
	}
	if !sawRoot {
		return nil, fmt.Errorf("config: %s: no XML elements (want <configuration><property>...)", file)
	}
	return out, nil
}

func applyAttrs(p *property, hasVal *bool, attrs []xml.Attr) {
	for _, a := range attrs {
		switch a.Name.Local {
		case "name":
			p.name = trimJava(a.Value)
		case "value":
			p.value, *hasVal = a.Value, true
		case "final":
			p.final = a.Value == "true"
		}
	}
}

func setField(p *property, hasVal *bool, field, text string) {
	switch field {
	case "name":
		if text != "" {
			p.name = trimJava(text)
		}
	case "value":
		if text != "" {
			p.value, *hasVal = text, true
		}
	case "final":
		p.final = text == "true"
	}
}

// xmlError names the file and line of a parse failure.
func xmlError(file string, dec *xml.Decoder, err error) error {
	var syn *xml.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("config: %s:%d: malformed XML: %s", file, syn.Line, syn.Msg)
	}
	line, _ := dec.InputPos()
	return fmt.Errorf("config: %s:%d: %w", file, line, err)
}
