package loader

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// moduleExtensions are tried, in order, for an import path given without its extension.
var moduleExtensions = []string{".js", ".ts", ".mjs", ".mts", ".cjs", ".cts"}

// Resolve returns the module an import names, from a module in dir (a module's Dir): for a
// file or a remote module, its absolute path or URL and file=true; for anything else (a
// built-in or Go module) spec itself and file=false. A remote module's relative imports are
// remote too; remote modules must use https://.
func (s *Sources) Resolve(dir, spec string) (name string, file bool, err error) {
	switch {
	case isRemote(spec) || (isLocal(spec) && isRemote(dir)):
		name, err = resolveRemote(dir, spec)
	case isLocal(spec):
		name, err = resolveFile(s.files, dir, spec)
	default:
		return spec, false, nil
	}
	return name, err == nil, err
}

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
