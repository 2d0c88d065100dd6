// Package archive reads and writes a test bundled in k6's archive format (`k6 archive`, `k6 run
// archive.tar`): a tar holding metadata.json, then `data` (the main script), then every file the
// script loaded under file/<absolute path> and every remote module under https/<host>/<path>,
// directories first, each group sorted; the main script's own entry is a hard link to `data`
// (grafana/k6 lib/archive.go; docs/k6-compat.md#archives-and-inspect).
package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// MetadataName and DataName are the archive's first two entries.
const (
	MetadataName = "metadata.json"
	DataName     = "data"
)

// Archive is a test: its metadata (the fields of metadata.json) and its files.
type Archive struct {
	// Type is the runner type, always "js".
	Type string `json:"type"`
	// Options are the test's options as consolidated when it was archived (not derived).
	Options json.RawMessage `json:"options"`
	// Filename is the main script as a URL: file:///abs/path.js.
	Filename string `json:"filename"`
	// Pwd is the working directory the test was archived from, as a URL.
	Pwd string `json:"pwd"`
	// Env are the __ENV variables the test was archived with.
	Env map[string]string `json:"env"`
	// CompatibilityMode is the JavaScript mode: extended or base.
	CompatibilityMode string `json:"compatibilityMode"`
	// K6Version is the version of the tool that wrote the archive.
	K6Version string `json:"k6version"`
	// Goos is the operating system it was written on.
	Goos string `json:"goos"`

	// Data is the main script.
	Data []byte `json:"-"`
	// Files are the other files by name: an absolute path, or the URL of a remote module. The
	// main script is among them too.
	Files map[string][]byte `json:"-"`
}

// MainPath is the main script's absolute path, from Filename.
func (a *Archive) MainPath() string { return strings.TrimPrefix(a.Filename, "file://") }

// FileURL turns an absolute path into the file:// URL metadata.json uses.
func FileURL(p string) string { return "file://" + path.Clean("/"+p) }

// entryName is the tar name of a file: file/<path> or https/<host>/<path>.
func entryName(name string) (string, bool) {
	if rest, ok := strings.CutPrefix(name, "https://"); ok {
		return "https/" + rest, true
	}
	if strings.HasPrefix(name, "/") {
		return "file" + path.Clean(name), true
	}
	return "", false
}

// fileName is the inverse of entryName.
func fileName(entry string) (string, bool) {
	if rest, ok := strings.CutPrefix(entry, "https/"); ok {
		return "https://" + rest, true
	}
	if rest, ok := strings.CutPrefix(entry, "file/"); ok {
		return "/" + rest, true
	}
	return "", false
}

// Write writes the archive as a tar.
func (a *Archive) Write(w io.Writer) error {
	meta, err := a.metadata()
	if err != nil {
		return err
	}
	now := time.Now()
	tw := tar.NewWriter(w)
	if err := writeFile(tw, MetadataName, meta, now); err != nil {
		return err
	}
	if err := writeFile(tw, DataName, a.Data, now); err != nil {
		return err
	}
	main, _ := entryName(a.MainPath())
	for _, scheme := range []string{"file/", "https/"} {
		var names []string
		dirs := map[string]bool{}
		for name := range a.Files {
			e, ok := entryName(name)
			if !ok || !strings.HasPrefix(e, scheme) {
				continue
			}
			names = append(names, e)
			for d := path.Dir(e); d != "." && d != "/"; d = path.Dir(d) {
				dirs[d] = true
			}
		}
		if err := writeDirs(tw, dirs, now); err != nil {
			return err
		}
		sort.Strings(names)
		for _, e := range names {
			if e == main {
				err = tw.WriteHeader(&tar.Header{Name: e, Typeflag: tar.TypeLink, Linkname: DataName, ModTime: now})
			} else {
				name, _ := fileName(e)
				err = writeFile(tw, e, a.Files[name], now)
			}
			if err != nil {
				return err
			}
		}
	}
	return tw.Close()
}

// metadata is metadata.json: 2-space indents, no HTML escaping, as k6 writes it.
func (a *Archive) metadata() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(a); err != nil {
		return nil, fmt.Errorf("archive metadata: %w", err)
	}
	return b.Bytes(), nil
}

func writeDirs(tw *tar.Writer, dirs map[string]bool, now time.Time) error {
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Strings(list)
	for _, d := range list {
		if err := tw.WriteHeader(&tar.Header{Name: d, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: now}); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(tw *tar.Writer, name string, data []byte, now time.Time) error {
	err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), ModTime: now})
	if err == nil {
		_, err = tw.Write(data)
	}
	return err
}

// ErrNotArchive means the data is not an archive (its first entry is not metadata.json).
var ErrNotArchive = errors.New("not a test archive")

// IsArchive reports whether data starts like an archive.
func IsArchive(data []byte) bool {
	h, err := tar.NewReader(bytes.NewReader(data)).Next()
	return err == nil && h.Name == MetadataName
}

// LooksLikeTar reports whether data is a tar file (a header with the ustar magic, or one Go's
// reader accepts) whether or not it is a test archive: such a file is never a script.
func LooksLikeTar(data []byte) bool {
	if len(data) >= 262 && string(data[257:262]) == "ustar" {
		return true
	}
	_, err := tar.NewReader(bytes.NewReader(data)).Next()
	return err == nil
}

// Read reads an archive written by Write or by k6.
func Read(r io.Reader) (*Archive, error) {
	tr := tar.NewReader(r)
	a := &Archive{Files: map[string][]byte{}}
	var links []string
	for first := true; ; first = false {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
		if first && h.Name != MetadataName {
			return nil, ErrNotArchive
		}
		if err := a.readEntry(tr, h, &links); err != nil {
			return nil, err
		}
	}
	if a.Type == "" {
		return nil, ErrNotArchive
	}
	for _, name := range links {
		a.Files[name] = a.Data
	}
	return a, nil
}

func (a *Archive) readEntry(tr *tar.Reader, h *tar.Header, links *[]string) error {
	switch h.Typeflag {
	case tar.TypeReg:
	case tar.TypeLink:
		if name, ok := fileName(strings.TrimSuffix(h.Name, "/")); ok && h.Linkname == DataName {
			*links = append(*links, name)
		}
		return nil
	default:
		return nil // directories, and whatever else a tar may hold
	}
	data, err := io.ReadAll(tr)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", h.Name, err)
	}
	switch h.Name {
	case MetadataName:
		if err := json.Unmarshal(data, a); err != nil {
			return fmt.Errorf("archive: %s: %w", MetadataName, err)
		}
		return nil
	case DataName:
		a.Data = data
		return nil
	}
	if name, ok := fileName(h.Name); ok {
		a.Files[name] = data
	}
	return nil
}

// ReadFile gives a file of the archive by absolute path (js.FileSystem).
func (a *Archive) ReadFile(p string) ([]byte, error) {
	if data, ok := a.Files[p]; ok && !strings.HasPrefix(p, "https://") {
		return data, nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

// IsFile reports whether the archive has a file at an absolute path (js.FileSystem).
func (a *Archive) IsFile(p string) bool {
	_, err := a.ReadFile(p)
	return err == nil
}

// Module gives a remote module the archive holds (js.RemoteModules): a test from an archive
// never reaches the network.
func (a *Archive) Module(_ context.Context, url string) ([]byte, error) {
	if data, ok := a.Files[url]; ok && strings.HasPrefix(url, "https://") {
		return data, nil
	}
	return nil, fmt.Errorf("remote module %s is not in the archive", url)
}
