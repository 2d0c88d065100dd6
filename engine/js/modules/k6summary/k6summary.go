// Package k6summary is dnecho's own implementation of the two functions scripts import from
// k6's jslib summary module (https://jslib.k6.io/k6-summary/<version>/index.js): textSummary and
// jUnit. An import of that URL resolves to it when the module cannot be fetched and is not in the
// module cache (engine/remote). It renders with package engine/summary, so textSummary prints
// what `dnecho run` prints by default.
package k6summary

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dop251/goja"
)

// Name is the module's import name; the built-in stand-in for the jslib URL imports it.
const Name = "dnecho/k6-summary"

// Source is the module text an import of the jslib URL gets instead of jslib's.
const Source = `export { textSummary, jUnit } from "` + Name + `";` + "\n"

// jslibURL matches the URLs of k6's jslib summary module, any version.
var jslibURL = regexp.MustCompile(`^https://jslib\.k6\.io/k6-summary/\d+\.\d+\.\d+/index\.js$`)

// Matches reports whether url is one of k6's jslib summary module, which Source stands in for.
func Matches(url string) bool { return jslibURL.MatchString(url) }

// New returns the module's root; it holds nothing.
func New() modules.Module {
	return modules.Stateless(func(vu modules.VU) modules.Exports {
		i := instance{vu}
		return modules.Exports{Named: map[string]any{"textSummary": i.textSummary, "jUnit": i.jUnit}}
	})
}

type instance struct{ vu modules.VU }

// textSummary(data, {indent, enableColors}) renders the text summary of a handleSummary data
// object; indent (default "") prefixes every line, colours are off unless enableColors.
func (i instance) textSummary(call goja.FunctionCall) goja.Value {
	d := i.data(call.Argument(0))
	opts := i.options(call.Argument(1))
	d.Options.NoColor = !opts.Get("enableColors").ToBoolean()
	text := d.Text()
	if indent := optString(opts.Get("indent")); indent != "" {
		lines := strings.Split(text, "\n")
		for k, l := range lines {
			if l != "" {
				lines[k] = indent + l
			}
		}
		text = strings.Join(lines, "\n")
	}
	return i.vu.Runtime().ToValue(text)
}

// jUnit(data, {name, classname}) renders the thresholds as a JUnit XML report: one test case
// per threshold expression, failed when the threshold was crossed.
func (i instance) jUnit(call goja.FunctionCall) goja.Value {
	d := i.data(call.Argument(0))
	opts := i.options(call.Argument(1))
	name := optString(opts.Get("name"))
	if name == "" {
		name = "k6 thresholds"
	}
	suite := junitSuite{Name: name}
	for _, m := range d.Metrics {
		for _, o := range m.Thresholds {
			tc := junitCase{Name: m.Name + " - " + o.Source, Classname: optString(opts.Get("classname"))}
			if !o.OK {
				tc.Failure = &junitFailure{Message: "failed"}
				suite.Failures++
			}
			suite.Cases = append(suite.Cases, tc)
		}
	}
	sort.SliceStable(suite.Cases, func(a, b int) bool { return suite.Cases[a].Name < suite.Cases[b].Name })
	suite.Tests = len(suite.Cases)
	out, err := xml.MarshalIndent(junitSuites{Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}, "", "  ")
	if err != nil {
		modules.Throw(i.vu.Runtime(), fmt.Errorf("jUnit: %w", err))
	}
	return i.vu.Runtime().ToValue(xml.Header + string(out) + "\n")
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr,omitempty"`
	Failure   *junitFailure `xml:"failure"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
}

// data reads the data argument through JSON, as the script holds it now.
func (i instance) data(v goja.Value) *summary.Data {
	rt := i.vu.Runtime()
	stringify, _ := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
	s, err := stringify(goja.Undefined(), v)
	if err != nil {
		modules.Rethrow(err)
	}
	if goja.IsUndefined(s) {
		modules.ThrowMessage(rt, "the first argument must be the data object handleSummary receives")
	}
	d, err := summary.FromJS([]byte(s.String()))
	if err != nil {
		modules.Throw(rt, err)
	}
	return d
}

// options returns the options argument as an object (empty when absent).
func (i instance) options(v goja.Value) *goja.Object {
	rt := i.vu.Runtime()
	if goja.IsUndefined(v) || goja.IsNull(v) {
		return rt.NewObject()
	}
	return v.ToObject(rt)
}

func optString(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}
