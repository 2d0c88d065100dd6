// Package loader turns the files of a k6-style test into goja programs: it reads local files
// (the disk or an archive) and remote modules, compiles each module once per test with esbuild
// (TypeScript stripped, ES modules rewritten to CommonJS) keeping a source map so that positions
// point into the original file (an external map beside a bundle included), resolves imports, and
// keeps the files open() read. Every VU of the test shares what it holds; it knows nothing of VUs.
package loader

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
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

// Sources caches what a test reads: compiled modules (each compiled once, then run by every VU)
// and open() file contents (read once, shared by every VU). Safe for concurrent use.
type Sources struct {
	files  FileSystem
	remote RemoteModules // nil: https:// imports fail

	mu    sync.Mutex
	progs map[string]*progEntry
	opens map[string]*fileEntry
	// frozen is set once the init context of VU 0 is over (Freeze): open() may then read only
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
	c    *Module
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

// New returns the sources of a test whose local files come from files (nil: the disk) and whose
// https:// imports come from remote (nil: they fail with ErrNoRemote).
func New(files FileSystem, remote RemoteModules) *Sources {
	if files == nil {
		files = diskFiles{}
	}
	return &Sources{files: files, remote: remote, progs: map[string]*progEntry{}, opens: map[string]*fileEntry{}}
}

// Compile returns the compiled module named name (an absolute path or an https:// URL),
// reading and compiling it on first use. src, when not nil, is used instead of reading it (the
// main script may come from stdin or an archive). A file that does not compile is a
// *SyntaxError.
func (s *Sources) Compile(name string, src []byte) (*Module, error) {
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
func (s *Sources) inlineSourceMap(name string, src []byte) []byte {
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
func (s *Sources) read(name string) ([]byte, error) {
	if !isRemote(name) {
		return s.files.ReadFile(name)
	}
	if s.remote == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoRemote, name)
	}
	return s.remote.Module(context.Background(), name)
}

// Open returns the contents of the file name, relative to dir (a module's Dir), for open(): the
// bytes and the same as a string, both shared by every caller. Once frozen, only files already
// read may be read (*NeverOpenedError).
func (s *Sources) Open(dir, name string) (data []byte, text string, err error) {
	f, err := s.file(localPath(dir, name))
	if err != nil {
		return nil, "", err
	}
	return f.data, f.text, nil
}

// file returns the cached contents of path.
func (s *Sources) file(path string) (*fileEntry, error) {
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

// Freeze ends the reading of new files by Open: what the init context of VU 0 opened is what an
// archive of the test holds (k6's rule since v0.36).
func (s *Sources) Freeze() {
	s.mu.Lock()
	s.frozen = true
	s.mu.Unlock()
}

// Files returns every file read without error (modules, remote modules and opened files),
// sorted by name: what an archive of the test must hold.
func (s *Sources) Files() []File {
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
