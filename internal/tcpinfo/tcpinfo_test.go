package tcpinfo

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// loopback returns both ends of a TCP connection on 127.0.0.1 that has carried a few round trips,
// so the kernel has RTT samples.
func loopback(t testing.TB) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if server, err = ln.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	buf := make([]byte, 1)
	for range 10 {
		if _, err := client.Write([]byte{1}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(server, buf); err != nil {
			t.Fatal(err)
		}
		if _, err := server.Write(buf); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(client, buf); err != nil {
			t.Fatal(err)
		}
	}
	return client, server
}

func TestReadLoopback(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("TCP_INFO is read on Linux only")
	}
	c, _ := loopback(t)
	in, err := Read(c)
	if err != nil {
		t.Fatal(err)
	}
	// Loopback round trips take microseconds; the kernel still reports a positive RTT (its
	// smoothed value has a floor of a few microseconds) and a minimum no larger than it.
	if in.RTT <= 0 || in.MinRTT <= 0 || in.MinRTT > in.RTT+in.RTTVar*4 || in.TotalRetrans != 0 {
		t.Errorf("reading of a quiet loopback connection: %+v", in)
	}
}

// A gRPC channel with TLS holds a *tls.Conn over the TCP connection (or over a wrapper of it).
func TestReadUnwraps(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("TCP_INFO is read on Linux only")
	}
	c, _ := loopback(t)
	for name, w := range map[string]net.Conn{
		"tls":     tls.Client(c, &tls.Config{InsecureSkipVerify: true}),
		"NetConn": netConner{c},
		"both":    tls.Client(netConner{c}, &tls.Config{InsecureSkipVerify: true}),
	} {
		if in, err := Read(w); err != nil || in.RTT <= 0 {
			t.Errorf("%s: %+v %v", name, in, err)
		}
	}
}

type netConner struct{ net.Conn }

func (c netConner) NetConn() net.Conn { return c.Conn }

// looping wraps itself forever.
type looping struct{ net.Conn }

func (c looping) NetConn() net.Conn { return c }

func TestReadUnsupported(t *testing.T) {
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	ul, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	uc, err := net.Dial("unix", ul.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	for name, c := range map[string]net.Conn{
		"nil":             nil,
		"pipe":            p1,
		"unix":            uc,
		"looping":         looping{p1},
		"tls over a pipe": tls.Client(p1, &tls.Config{}),
	} {
		in, err := Read(c)
		var ue *UnsupportedError
		if !errors.Is(err, ErrUnsupported) || !errors.As(err, &ue) || in != (Info{}) {
			t.Errorf("%s: %+v %v", name, in, err)
		}
	}
}

func TestReadClosed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("TCP_INFO is read on Linux only")
	}
	c, _ := loopback(t)
	c.Close()
	if _, err := Read(c); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a closed connection: %v, want net.ErrClosed", err)
	}
}

// BenchmarkRead is the cost of one reading: what WatchNetwork pays per connection and interval.
func BenchmarkRead(b *testing.B) {
	c, _ := loopback(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(c); err != nil {
			b.Fatal(err)
		}
	}
}
