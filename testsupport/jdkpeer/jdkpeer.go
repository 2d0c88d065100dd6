// Package jdkpeer runs the JDK's own SASL GSSAPI implementation as a test peer: a Hadoop RPC
// server built on javax.security.sasl's GSSAPI SaslServer (what a secure SCM or OM runs) and a
// client built on its SaslClient (what a Java Ozone client runs). The Java sources sit beside this
// file and are compiled with javac into a test's temporary directory. Tests skip when no JDK is
// installed, or fail under testdeps.RequireEnv=1.
package jdkpeer

import (
	"bufio"
	"context"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/testdeps"
)

//go:embed *.java
var sources embed.FS

// Available reports whether java and javac are installed.
func Available() bool {
	_, errJava := exec.LookPath("java")
	_, errJavac := exec.LookPath("javac")
	return errJava == nil && errJavac == nil
}

// Peers are the compiled Java peers; compile once per test and share among subtests.
type Peers struct{ dir string }

// Compile writes the sources into t's temporary directory and compiles them there; it skips the
// test when no JDK is installed (fails it under testdeps.RequireEnv=1).
func Compile(t testing.TB) Peers { return Peers{dir: compile(t)} }

func compile(t testing.TB) string {
	t.Helper()
	testdeps.SkipShort(t, "JDK peers")
	const hint = "the JDK peer tests need OpenJDK 11 or later (java, javac)"
	testdeps.RequireTool(t, "java", hint)
	testdeps.RequireTool(t, "javac", hint)
	dir := t.TempDir()
	entries, _ := sources.ReadDir(".")
	var files []string
	for _, e := range entries {
		b, _ := sources.ReadFile(e.Name())
		p := filepath.Join(dir, e.Name())
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if out, err := exec.Command("javac", append([]string{"-d", dir}, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return dir
}

// Server is a running SaslServerPeer.
type Server struct {
	// Addr is "127.0.0.1:port".
	Addr string

	mu    sync.Mutex
	lines []string
}

// Lines returns what the server printed so far ("USER alice@REALM QOP auth-conf", ...).
func (s *Server) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

// StartServer runs the JDK server for principal with keys from keytab, offering qop (the JDK's
// names, "auth-conf,auth-int,auth"), answering a request of type cmdType with replies[cmdType].
// krb5conf is the krb5.conf to use. The server stops when the test ends.
func (p Peers) StartServer(t testing.TB, krb5conf, principal, keytab, qop string, replies map[int][]byte) *Server {
	t.Helper()
	dir := p.dir
	replyDir := filepath.Join(t.TempDir(), "replies")
	os.Mkdir(replyDir, 0o755)
	for cmd, b := range replies {
		if err := os.WriteFile(filepath.Join(replyDir, fmt.Sprint(cmd)+".bin"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("java", "-Djava.security.krb5.conf="+krb5conf, "-cp", dir, "SaslServerPeer", principal, keytab, qop, replyDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{}
	port := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if p, ok := strings.CutPrefix(line, "PORT "); ok {
				port <- p
			}
			s.mu.Lock()
			s.lines = append(s.lines, line)
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		cmd.Wait()
	})
	select {
	case p := <-port:
		s.Addr = "127.0.0.1:" + p
	case <-done:
		t.Fatalf("the JDK server exited: %s", strings.Join(s.Lines(), "\n"))
	case <-time.After(60 * time.Second):
		t.Fatalf("the JDK server did not start within 60s: %s", strings.Join(s.Lines(), "\n"))
	}
	return s
}

// Client says how RunClient authenticates and what it sends.
type Client struct {
	Krb5Conf string
	Addr     string
	// QOP in the JDK's names ("auth-conf", "auth-int", "auth", or a list).
	QOP string
	// Principal and Keytab log in from a keytab; with Keytab "" the ticket cache CCache is used.
	Principal, Keytab, CCache string
	// Context and Call are the plain frames sent after authentication.
	Context, Call []byte
}

// Run runs the JDK client once and returns what it printed: "QOP <qop>" then "REPLY <hex>" or
// "ERROR <class>: <message>".
func (p Peers) Run(t testing.TB, c Client) string {
	t.Helper()
	dir := p.dir
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "java", "-Djava.security.krb5.conf="+c.Krb5Conf, "-cp", dir, "SaslClientPeer",
		strings.Split(c.Addr, ":")[0], strings.Split(c.Addr, ":")[1], c.QOP, c.Principal, c.Keytab, c.CCache,
		hex.EncodeToString(c.Context), hex.EncodeToString(c.Call)).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "ERROR ") {
		t.Fatalf("JDK client: %v\n%s", err, out)
	}
	return string(out)
}
