package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func sample() *Archive {
	main := []byte("import './lib/util.js';\nexport default function () {}\n")
	return &Archive{
		Type: "js", Options: json.RawMessage(`{"vus":2}`), Filename: FileURL("/work/t/script.js"), Pwd: FileURL("/work/t"),
		Env: map[string]string{"A": "1"}, CompatibilityMode: "extended", K6Version: "dnecho dev", Goos: "linux",
		Data: main,
		Files: map[string][]byte{
			"/work/t/script.js":                main,
			"/work/t/lib/util.js":              []byte("export const u = 1;"),
			"/work/t/data.json":                []byte("[1,2]"),
			"https://jslib.k6.io/x/1/index.js": []byte("export const x = 1;"),
		},
	}
}

// TestLayout: metadata.json, data, then file/ and https/ entries, directories first, sorted; the
// main script's entry links to data.
func TestLayout(t *testing.T) {
	var b bytes.Buffer
	if err := sample().Write(&b); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&b)
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		e := h.Name
		switch h.Typeflag {
		case tar.TypeLink:
			e += " -> " + h.Linkname
		case tar.TypeDir:
			e += " (dir)"
		}
		if h.Name == MetadataName {
			data, _ := io.ReadAll(tr)
			if !strings.HasPrefix(string(data), "{\n  \"type\": \"js\",\n  \"options\": {") || !strings.Contains(string(data), `"filename": "file:///work/t/script.js"`) {
				t.Errorf("metadata.json:\n%s", data)
			}
		}
		got = append(got, e)
	}
	want := []string{
		"metadata.json", "data",
		"file (dir)", "file/work (dir)", "file/work/t (dir)", "file/work/t/lib (dir)",
		"file/work/t/data.json", "file/work/t/lib/util.js", "file/work/t/script.js -> data",
		"https (dir)", "https/jslib.k6.io (dir)", "https/jslib.k6.io/x (dir)", "https/jslib.k6.io/x/1 (dir)",
		"https/jslib.k6.io/x/1/index.js",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRoundTrip(t *testing.T) {
	in := sample()
	var b bytes.Buffer
	if err := in.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !IsArchive(b.Bytes()) || IsArchive([]byte("export default function () {}")) {
		t.Fatal("IsArchive")
	}
	out, err := Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var opts bytes.Buffer
	_ = json.Compact(&opts, out.Options)
	if out.MainPath() != "/work/t/script.js" || opts.String() != `{"vus":2}` || out.Env["A"] != "1" || out.Goos != "linux" {
		t.Errorf("metadata %+v", out)
	}
	for name, data := range in.Files {
		if string(out.Files[name]) != string(data) {
			t.Errorf("%s: %q, want %q", name, out.Files[name], data)
		}
	}
	if !out.IsFile("/work/t/lib/util.js") || out.IsFile("/work/t/nope.js") || out.IsFile("https://jslib.k6.io/x/1/index.js") {
		t.Error("IsFile")
	}
	if src, err := out.Module(context.Background(), "https://jslib.k6.io/x/1/index.js"); err != nil || string(src) != "export const x = 1;" {
		t.Errorf("Module: %q %v", src, err)
	}
	if _, err := out.Module(context.Background(), "https://jslib.k6.io/y.js"); err == nil {
		t.Error("a module not in the archive was found")
	}
	if _, err := Read(strings.NewReader("not a tar")); err == nil {
		t.Error("garbage read as an archive")
	}
}

// FuzzRead feeds arbitrary bytes to Read: an archive may come from anywhere, and a bad one must
// be an error, never a panic. What Read accepts must write back and read the same.
func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	if err := sample().Write(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte("metadata.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := a.Write(&out); err != nil {
			return // e.g. file names that are neither paths nor URLs are not written
		}
		again, err := Read(&out)
		if err != nil {
			t.Fatalf("an archive written from a read one does not read back: %v", err)
		}
		if string(again.Data) != string(a.Data) || again.Filename != a.Filename {
			t.Fatal("data or filename changed on the way")
		}
	})
}
