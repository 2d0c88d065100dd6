package js

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// FileSystem is where a test's local files come from: the disk, or an archive.
type FileSystem interface {
	// ReadFile returns the contents of the file at an absolute path.
	ReadFile(path string) ([]byte, error)
	// IsFile reports whether a regular file exists at an absolute path.
	IsFile(path string) bool
}

// RemoteModules gives the source of an https:// module, from the network, a cache or an
// archive.
type RemoteModules interface {
	Module(ctx context.Context, url string) ([]byte, error)
}

// diskFiles is the FileSystem of the local disk.
type diskFiles struct{}

func (diskFiles) ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }

func (diskFiles) IsFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// ErrNoRemote is the error of an https:// import when the runner has no RemoteModules.
var ErrNoRemote = errors.New("remote modules are not available")

// File is one file a test loaded: a module (main script, local import, remote module) or a file
// read with open(). Name is an absolute path, or the URL of a remote module.
type File struct {
	Name string
	Data []byte
}

// sources caches what a test reads: compiled modules (each compiled once, then run by every VU)
// and open() file contents (read once, shared by every VU). Safe for concurrent use.
type sources struct {
	files  FileSystem
	remote RemoteModules // nil: https:// imports fail

	mu    sync.Mutex
	progs map[string]*progEntry
	opens map[string]*fileEntry
	// frozen is set once the init context of VU 0 (Load) is over: open() may then read only
	// the files it read, which are those an archive holds (k6's rule since v0.36).
	frozen bool
}

// NeverOpenedError is open() of a file the init context of __VU == 0 did not open: a VU may
// not read it, since an archive of the test would not hold it.
type NeverOpenedError struct{ Path string }

func (e *NeverOpenedError) Error() string {
	return fmt.Sprintf("open() can't be used with files that weren't previously opened during initialization (__VU==0), path: %q", e.Path)
}

type progEntry struct {
	once sync.Once
	src  []byte
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

func newSources(files FileSystem, remote RemoteModules) *sources {
	if files == nil {
		files = diskFiles{}
	}
	return &sources{files: files, remote: remote, progs: map[string]*progEntry{}, opens: map[string]*fileEntry{}}
}

// program returns the compiled module named name (an absolute path or an https:// URL),
// reading and compiling it on first use. src, when not nil, is used instead of reading it (the
// main script may come from stdin or an archive).
func (s *sources) program(name string, src []byte) (*compiled, error) {
	s.mu.Lock()
	e, ok := s.progs[name]
	if !ok {
		e = &progEntry{}
		s.progs[name] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		if src == nil {
			if src, e.err = s.read(name); e.err != nil {
				return
			}
		}
		e.src = src
		e.c, e.err = compileSource(name, s.inlineSourceMap(name, src))
	})
	return e.c, e.err
}

// sourceMapURL finds a bundle's last `//# sourceMappingURL=` comment: the URL and where the
// comment starts.
var sourceMapURL = regexp.MustCompile(`(?m)^[ \t]*//[#@][ \t]*sourceMappingURL=([^\s'"]+)[ \t]*\r?$`)

// inlineSourceMap replaces a reference to a source map file beside a local module (a bundle
// with `//# sourceMappingURL=x.js.map`) by the map itself, as a data: URL, which the compiler
// reads and composes with its own map. The map becomes one of the test's files, so that an
// archive holds it. A map that cannot be read leaves the module as it is: errors then point
// into the bundle.
func (s *sources) inlineSourceMap(name string, src []byte) []byte {
	if isRemote(name) {
		return src
	}
	all := sourceMapURL.FindAllSubmatchIndex(src, -1)
	if len(all) == 0 {
		return src
	}
	m := all[len(all)-1]
	ref := string(src[m[2]:m[3]])
	if strings.HasPrefix(ref, "data:") || strings.Contains(ref, "://") {
		return src
	}
	f, err := s.file(localPath(filepath.Dir(name), ref))
	if err != nil {
		return src
	}
	out := make([]byte, 0, len(src)+len(f.data)*4/3+64)
	out = append(out, src[:m[0]]...)
	out = append(out, "//# sourceMappingURL=data:application/json;base64,"...)
	out = base64.StdEncoding.AppendEncode(out, f.data)
	return append(out, src[m[1]:]...)
}

// read returns a module's source from the file system or the remote modules.
func (s *sources) read(name string) ([]byte, error) {
	if !isRemote(name) {
		return s.files.ReadFile(name)
	}
	if s.remote == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoRemote, name)
	}
	return s.remote.Module(context.Background(), name)
}

// file returns the cached contents of path for open().
func (s *sources) file(path string) (*fileEntry, error) {
	s.mu.Lock()
	e, ok := s.opens[path]
	if !ok && s.frozen {
		s.mu.Unlock()
		return nil, &NeverOpenedError{Path: path}
	}
	if !ok {
		e = &fileEntry{}
		s.opens[path] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		e.data, e.err = s.files.ReadFile(path)
		if e.err == nil {
			e.text = string(e.data)
		}
	})
	return e, e.err
}

// freeze ends the reading of new files by open().
func (s *sources) freeze() {
	s.mu.Lock()
	s.frozen = true
	s.mu.Unlock()
}

// list returns every file read without error, sorted by name.
func (s *sources) list() []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []File
	for name, e := range s.progs {
		if e.c != nil {
			out = append(out, File{Name: name, Data: e.src})
		}
	}
	for name, e := range s.opens {
		if e.err == nil && e.data != nil {
			out = append(out, File{Name: name, Data: e.data})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// moduleExtensions are tried, in order, for an import path given without its extension.
var moduleExtensions = []string{".js", ".ts", ".mjs", ".mts", ".cjs", ".cts"}

// resolveFile finds the file a local import names, relative to dir: the exact path, the path
// with a known extension, or an index file in that directory.
func resolveFile(files FileSystem, dir, spec string) (string, error) {
	p := localPath(dir, spec)
	candidates := []string{p}
	for _, ext := range moduleExtensions {
		candidates = append(candidates, p+ext)
	}
	for _, ext := range moduleExtensions {
		candidates = append(candidates, filepath.Join(p, "index"+ext))
	}
	for _, c := range candidates {
		if files.IsFile(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("cannot find module %q (looked for %s)", spec, p)
}

// resolveRemote returns the URL an import names: spec itself, or spec relative to the
// directory URL of the importing remote module.
func resolveRemote(dir, spec string) (string, error) {
	if isRemote(spec) {
		return checkScheme(spec)
	}
	base, err := url.Parse(strings.TrimSuffix(dir, "/") + "/")
	if err != nil {
		return "", fmt.Errorf("import %q from %s: %w", spec, dir, err)
	}
	ref, err := url.Parse(spec)
	if err != nil {
		return "", fmt.Errorf("import %q: %w", spec, err)
	}
	return checkScheme(base.ResolveReference(ref).String())
}

// checkScheme allows https only, as k6 does for remote modules (grafana/k6 loader).
func checkScheme(u string) (string, error) {
	if !strings.HasPrefix(u, "https://") {
		return "", fmt.Errorf("import %q: remote modules must use https://", u)
	}
	return u, nil
}

// localPath turns a relative, absolute or file:// name into an absolute, clean path.
func localPath(dir, name string) string {
	name = strings.TrimPrefix(name, "file://")
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	return filepath.Clean(name)
}

// moduleDir is the directory a module's relative imports and open() calls start from: a path,
// or the URL of a remote module's directory.
func moduleDir(name string) string {
	if isRemote(name) {
		if u, err := url.Parse(name); err == nil {
			u.Path = path.Dir(u.Path)
			u.RawQuery, u.Fragment = "", ""
			return u.String()
		}
	}
	return filepath.Dir(name)
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
