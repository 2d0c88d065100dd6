package teststore

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// InfluxV2 is an in-process receiver of the InfluxDB v2 write API (POST /api/v2/write?org=&bucket=&
// precision=, Authorization: Token ..., line protocol body). Debian has no InfluxDB 2.x, so it
// checks what a v2 server checks and keeps the points for the test to read.
type InfluxV2 struct {
	URL                string
	Org, Bucket, Token string

	mu     sync.Mutex
	points []Point
	errs   []string
}

// Point is one parsed line: measurement, tags, the raw field list and the timestamp text.
type Point struct {
	Measurement string
	Tags        map[string]string
	Fields      string
	Time        string
}

// StartInfluxV2 serves the v2 write API until the test ends.
func StartInfluxV2(t testing.TB, org, bucket, token string) *InfluxV2 {
	r := &InfluxV2{Org: org, Bucket: bucket, Token: token}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *InfluxV2) serve(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	switch {
	case req.Method != http.MethodPost || req.URL.Path != "/api/v2/write":
		http.NotFound(w, req)
		return
	case req.Header.Get("Authorization") != "Token "+r.Token:
		http.Error(w, `{"code":"unauthorized","message":"unauthorized access"}`, http.StatusUnauthorized)
		return
	case q.Get("org") != r.Org || q.Get("bucket") != r.Bucket:
		http.Error(w, `{"code":"not found","message":"bucket not found"}`, http.StatusNotFound)
		return
	}
	switch q.Get("precision") {
	case "", "ns", "us", "ms", "s":
	default:
		http.Error(w, `{"code":"invalid","message":"invalid precision"}`, http.StatusBadRequest)
		return
	}
	var pts []Point
	sc := bufio.NewScanner(req.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			p, ok := parseLine(line)
			if !ok {
				r.mu.Lock()
				r.errs = append(r.errs, line)
				r.mu.Unlock()
				http.Error(w, `{"code":"invalid","message":"unable to parse '`+line+`'"}`, http.StatusBadRequest)
				return
			}
			pts = append(pts, p)
		}
	}
	r.mu.Lock()
	r.points = append(r.points, pts...)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// parseLine splits a line protocol line at its unescaped spaces; tag values must not be empty.
func parseLine(line string) (Point, bool) {
	parts := splitUnescaped(line, ' ')
	if len(parts) != 3 {
		return Point{}, false
	}
	head := splitUnescaped(parts[0], ',')
	p := Point{Measurement: head[0], Tags: map[string]string{}, Fields: parts[1], Time: parts[2]}
	for _, kv := range head[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return Point{}, false
		}
		p.Tags[k] = v
	}
	return p, true
}

func splitUnescaped(s string, sep byte) []string {
	var out []string
	start, inStr := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case s[i] == '"':
			inStr = !inStr
		case s[i] == sep && !inStr:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// Points returns the points received so far.
func (r *InfluxV2) Points() []Point {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Point(nil), r.points...)
}

// Rejected returns the lines the receiver could not parse.
func (r *InfluxV2) Rejected() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}
