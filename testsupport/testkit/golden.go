package testkit

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the -update flag of every test binary that imports testkit: Golden rewrites its files.
var update = flag.Bool("update", false, "rewrite the golden files")

// Golden compares got with testdata/name byte for byte, or rewrites the file under -update.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -run %s -update to accept):\n--- got ---\n%s\n--- want ---\n%s", name, t.Name(), got, want)
	}
}

// JSONMember returns the member key of the JSON object doc, its bytes as they are written there.
func JSONMember(t testing.TB, doc []byte, key string) []byte {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(doc, &members); err != nil || members[key] == nil {
		t.Fatalf("no %s (%v): %s", key, err, doc)
	}
	return members[key]
}
