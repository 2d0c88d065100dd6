package js

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// sources caches what a test reads from disk: compiled modules (each compiled once, then run by
// every VU) and open() file contents (read once, shared by every VU). Safe for concurrent use.
type sources struct {
	mu    sync.Mutex
	progs map[string]*progEntry
	files map[string]*fileEntry
}

type progEntry struct {
	once sync.Once
	c    *compiled
	err  error
}

type fileEntry struct {
	once sync.Once
	data []byte
	// text is data as a Go string, converted once: goja wraps an ASCII Go string without copying,
	// so VUs that open() the same text file share its memory.
	text string
	err  error
}

func newSources() *sources {
	return &sources{progs: map[string]*progEntry{}, files: map[string]*fileEntry{}}
}

// program returns the compiled module at path, compiling it on first use. src, when not nil, is
// used instead of reading the file (the main script may come from stdin).
func (s *sources) program(path string, src []byte) (*compiled, error) {
	s.mu.Lock()
	e, ok := s.progs[path]
	if !ok {
		e = &progEntry{}
		s.progs[path] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		if src == nil {
			var err error
			if src, err = os.ReadFile(path); err != nil {
				e.err = err
				return
			}
		}
		e.c, e.err = compileSource(path, src)
	})
	return e.c, e.err
}

// file returns the cached contents of path for open().
func (s *sources) file(path string) (*fileEntry, error) {
	s.mu.Lock()
	e, ok := s.files[path]
	if !ok {
		e = &fileEntry{}
		s.files[path] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		e.data, e.err = os.ReadFile(path)
		if e.err == nil {
			e.text = string(e.data)
		}
	})
	return e, e.err
}

// moduleExtensions are tried, in order, for an import path given without its extension.
var moduleExtensions = []string{".js", ".ts", ".mjs", ".mts", ".cjs", ".cts"}

// resolveFile finds the file a local import names, relative to dir: the exact path, the path
// with a known extension, or an index file in that directory.
func resolveFile(dir, spec string) (string, error) {
	p := localPath(dir, spec)
	candidates := []string{p}
	for _, ext := range moduleExtensions {
		candidates = append(candidates, p+ext)
	}
	for _, ext := range moduleExtensions {
		candidates = append(candidates, filepath.Join(p, "index"+ext))
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, nil
		}
	}
	return "", fmt.Errorf("cannot find module %q (looked for %s)", spec, p)
}

// localPath turns a relative, absolute or file:// name into an absolute, clean path.
func localPath(dir, name string) string {
	name = strings.TrimPrefix(name, "file://")
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	return filepath.Clean(name)
}

// isLocal reports whether an import names a file rather than a module.
func isLocal(spec string) bool {
	return strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") ||
		strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "file://") ||
		spec == "." || spec == ".."
}

// isRemote reports whether an import names a network location.
func isRemote(spec string) bool {
	return strings.HasPrefix(spec, "https://") || strings.HasPrefix(spec, "http://")
}
