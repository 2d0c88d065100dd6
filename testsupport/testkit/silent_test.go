package testkit

import (
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/testsupport/testwait"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSilentAcceptsAndNeverAnswers(t *testing.T) {
	s := NewSilent(t)
	for want := 1; want <= 2; want++ {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		<-s.Accepted()
		// The read deadline is the test's own bound: no byte may come, however long it waits.
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Fatalf("read %d bytes, err %v: want none and a timeout", n, err)
		}
		testwait.Eventually(t, 10*time.Second, "the connection counted", func() bool { return s.Connections() == want })
	}
}
