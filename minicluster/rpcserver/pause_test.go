package rpcserver_test

import (
	"context"
	"net"
	"testing"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/testsupport/rpcservertest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// A paused server holds what it is sent, answers nothing, and answers it all after Resume.
func TestServerPauseResume(t *testing.T) {
	s := rpcservertest.NewServer(t, rpcserver.Options{})
	s.Register(rpcservertest.EchoProtocol, 1, "echo", rpcservertest.EchoHandler(nil))
	addr := rpcservertest.Serve(t, s)
	c := newClient(t, addr)
	if _, err := rpcservertest.Echo(rpcservertest.Ctx(t), c, "warm", ""); err != nil {
		t.Fatal(err)
	}
	s.Pause()
	held := make(chan error, 1)
	go func() { _, err := rpcservertest.Echo(rpcservertest.Ctx(t), c, "held", ""); held <- err }()
	fresh := newClient(t, addr)
	freshDone := make(chan error, 1)
	go func() { _, err := rpcservertest.Echo(rpcservertest.Ctx(t), fresh, "new", ""); freshDone <- err }()
	// The second client's connection is accepted while paused, as a stopped process's kernel does.
	testwait.Eventually(t, testwait.Timeout, "the paused server accepting", func() bool { return s.Accepted() == 2 })
	select {
	case err := <-held:
		t.Fatalf("a paused server answered: %v", err)
	case err := <-freshDone:
		t.Fatalf("a paused server answered a new connection: %v", err)
	default:
	}
	s.Resume()
	if err := rpcservertest.Wait(t, held); err != nil {
		t.Errorf("held call after Resume: %v", err)
	}
	if err := rpcservertest.Wait(t, freshDone); err != nil {
		t.Errorf("new connection after Resume: %v", err)
	}
}

// Close ends a paused server's connections and held replies without waiting for Resume.
func TestServerCloseWhilePaused(t *testing.T) {
	s := rpcservertest.NewServer(t, rpcserver.Options{})
	s.Register(rpcservertest.EchoProtocol, 1, "echo", rpcservertest.EchoHandler(nil))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { defer close(served); s.Serve(l) }()
	s.Pause()
	c := newClient(t, l.Addr().String())
	ctx, cancel := context.WithCancel(rpcservertest.Ctx(t))
	defer cancel()
	go rpcservertest.Echo(ctx, c, "held", "")
	testwait.Eventually(t, testwait.Timeout, "the connection", func() bool { return s.Accepted() == 1 })
	s.Close()
	<-served
}
