package threshold

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dnecho/dnecho/engine/metrics"
)

// maxSuggestions caps a hint: past it the guess says nothing useful.
const maxSuggestions = 3

// synonyms map words people write in a metric name to the word k6-style names use for the same
// thing: time trends end in _duration, failure rates in _failed, request counters in _reqs.
var synonyms = map[string]string{
	"latency": "duration", "time": "duration", "elapsed": "duration", "rt": "duration",
	"error": "failed", "errors": "failed", "failure": "failed", "failures": "failed", "fail": "failed",
	"requests": "reqs", "request": "reqs", "calls": "reqs",
}

// unknownMetric is the reason for a threshold on a metric that is not registered: k6's words,
// then the registered names it most likely meant (see suggest), if any.
func unknownMetric(name string, reg *metrics.Registry) string {
	reason := fmt.Sprintf("no metric name %q found", name)
	s := suggest(name, reg.All())
	if len(s) == 0 {
		return reason
	}
	quoted := make([]string, len(s))
	for i, n := range s {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return reason + "; did you mean " + strings.Join(quoted, " or ") + "?"
}

// suggest returns the registered names an unknown name most likely meant, sorted, at most
// maxSuggestions. A typo comes first: the names nearest by edit distance, when that distance is
// at most a sixth of the name's length (at least 1). Otherwise a word: the names that share the
// most words (split on '_', after the synonyms) with it, other than its first word when it has
// several, in its namespace (that first word: dnecho_echo_latency looks among dnecho_*), and of
// those the nearest by edit distance. None when nothing is close or too many are equally close.
func suggest(name string, known []*metrics.Metric) []string {
	names := make([]string, len(known))
	for i, m := range known {
		names[i] = m.Name
	}
	if s := nearest(name, names); len(s) > 0 {
		return s
	}
	return sharedWords(name, names)
}

// nearest returns the names within a typo's edit distance of name that are nearest to it.
func nearest(name string, names []string) []string {
	limit := max(1, len(name)/6)
	best := limit + 1
	var out []string
	for _, n := range names {
		d := editDistance(strings.ToLower(name), strings.ToLower(n))
		switch {
		case d < best:
			best, out = d, []string{n}
		case d == best:
			out = append(out, n)
		}
	}
	return capped(out)
}

// sharedWords returns the names of name's namespace that share the most words with it.
func sharedWords(name string, names []string) []string {
	words := nameWords(name)
	namespace := ""
	if len(words) > 1 {
		namespace, words = words[0], words[1:]
	}
	best := 0
	var out []string
	for _, n := range names {
		nw := nameWords(n)
		if namespace != "" && (len(nw) < 2 || nw[0] != namespace) {
			continue
		}
		shared := 0
		for _, w := range words {
			if slices.Contains(nw, w) {
				shared++
			}
		}
		switch {
		case shared > best:
			best, out = shared, []string{n}
		case shared == best && shared > 0:
			out = append(out, n)
		}
	}
	return closest(name, capped(out))
}

// closest keeps the names nearest to name by edit distance, sorted: of dnecho_req_duration and
// dnecho_attempt_duration, which share as many words with dnecho_echo_latency, the first.
func closest(name string, names []string) []string {
	best := -1
	var out []string
	for _, n := range names {
		d := editDistance(strings.ToLower(name), strings.ToLower(n))
		switch {
		case best < 0 || d < best:
			best, out = d, []string{n}
		case d == best:
			out = append(out, n)
		}
	}
	return out
}

// capped is out when it is short enough to be a hint, else nothing.
func capped(out []string) []string {
	if len(out) > maxSuggestions {
		return nil
	}
	slices.Sort(out)
	return out
}

// nameWords splits a metric name into lower-case words, each replaced by its synonym.
func nameWords(name string) []string {
	var out []string
	for _, w := range strings.Split(strings.ToLower(name), "_") {
		if w == "" {
			continue
		}
		if s, ok := synonyms[w]; ok {
			w = s
		}
		out = append(out, w)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, by bytes (metric names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
