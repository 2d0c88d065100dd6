package realozone

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Version is the Apache Ozone release the cluster runs.
const Version = "2.2.0"

// Maven plugins are pinned so that Maven never looks up "latest" (a run must be repeatable).
const (
	dependencyPlugin = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
	installPlugin    = "org.apache.maven.plugins:maven-install-plugin:3.1.1"
)

// standInParent is the one pom that Ozone 2.2.0's published artifacts name as their parent but
// Maven Central does not have (docs/real-ozone.md, "Resolving the jars"). Release 2.1.0 published
// it; it only manages hadoop-common's exclusions, so its content is installed under the missing
// version.
const (
	standInArtifact = "hdds-hadoop-dependency-client"
	standInFrom     = "2.1.0"
)

//go:embed pom.xml
var pomTemplate string

// ErrNoJava means java or mvn is not on PATH.
var ErrNoJava = errors.New("java and mvn are needed for a real Ozone cluster (scripts/test-deps.sh installs openjdk-17-jdk-headless and maven)")

// CacheDir is where the resolved classpath is kept between runs: $DNECHO_OZONE_CACHE, else
// the user cache directory. The jars themselves stay in Maven's local repository (~/.m2).
func CacheDir() string {
	if d := os.Getenv("DNECHO_OZONE_CACHE"); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "dnecho", "ozone-"+Version)
}

// Available reports whether java and mvn are installed.
func Available() error {
	for _, tool := range []string{"java", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			return ErrNoJava
		}
	}
	return nil
}

// Classpath returns the runtime classpath of Ozone's SCM, OM, DataNode, freon and admin, resolving
// it with Maven on the first call and reading it from CacheDir afterwards. Maven's output goes to
// progress (nil for none).
func Classpath(ctx context.Context, progress io.Writer) (string, error) {
	dir := CacheDir()
	file := filepath.Join(dir, "classpath.txt")
	if cp, err := readClasspath(file); err == nil {
		return cp, nil
	}
	if err := Available(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("ozone jars: %w", err)
	}
	pom := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pom, []byte(strings.ReplaceAll(pomTemplate, "OZONE_VERSION", Version)), 0o644); err != nil {
		return "", fmt.Errorf("ozone jars: %w", err)
	}
	resolve := func() ([]byte, error) {
		return maven(ctx, dir, progress, dependencyPlugin+":build-classpath",
			"-DincludeScope=runtime", "-Dmdep.outputFile="+file)
	}
	out, err := resolve()
	if err != nil && strings.Contains(string(out), standInArtifact+":pom:"+Version) {
		if err = installStandInParent(ctx, dir, progress); err == nil {
			out, err = resolve()
		}
	}
	if err != nil {
		return "", fmt.Errorf("ozone jars: maven: %v\n%s", err, tail(string(out), 15))
	}
	return readClasspath(file)
}

// installStandInParent puts the missing parent pom into Maven's local repository.
func installStandInParent(ctx context.Context, dir string, progress io.Writer) error {
	if out, err := maven(ctx, dir, progress, dependencyPlugin+":copy",
		"-Dartifact=org.apache.ozone:"+standInArtifact+":"+standInFrom+":pom", "-DoutputDirectory="+dir); err != nil {
		return fmt.Errorf("fetch %s %s: %v\n%s", standInArtifact, standInFrom, err, tail(string(out), 10))
	}
	src := filepath.Join(dir, standInArtifact+"-"+standInFrom+".pom")
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	dst := filepath.Join(dir, standInArtifact+"-"+Version+".pom")
	relabelled := strings.ReplaceAll(string(b), "<version>"+standInFrom+"</version>", "<version>"+Version+"</version>")
	if err := os.WriteFile(dst, []byte(relabelled), 0o644); err != nil {
		return err
	}
	if out, err := maven(ctx, dir, progress, installPlugin+":install-file",
		"-Dfile="+dst, "-DpomFile="+dst, "-Dpackaging=pom"); err != nil {
		return fmt.Errorf("install stand-in %s %s: %v\n%s", standInArtifact, Version, err, tail(string(out), 10))
	}
	return nil
}

// maven runs one goal in dir and returns its combined output.
func maven(ctx context.Context, dir string, progress io.Writer, goal string, props ...string) ([]byte, error) {
	args := append([]string{"-B", "-q", "-f", filepath.Join(dir, "pom.xml"), goal}, props...)
	cmd := exec.CommandContext(ctx, "mvn", args...)
	cmd.Dir = dir
	var out strings.Builder
	var w io.Writer = &out
	if progress != nil {
		w = io.MultiWriter(&out, progress)
	}
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	return []byte(out.String()), err
}

// readClasspath reads a classpath file and checks that every jar it names is still there.
func readClasspath(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	cp := strings.TrimSpace(string(b))
	entries := strings.Split(cp, string(os.PathListSeparator))
	if len(entries) < 10 {
		return "", fmt.Errorf("%s: %d entries", file, len(entries))
	}
	for _, e := range entries {
		if _, err := os.Stat(e); err != nil {
			return "", err
		}
	}
	return cp, nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
