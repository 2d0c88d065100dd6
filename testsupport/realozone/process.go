package realozone

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// process is one daemon the cluster started.
type process struct {
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{} // closed when the process has exited
	err  error
}

// jvmFlags are what Ozone's launcher adds on Java 17, minus its 8 GC threads (two cores here).
func (c *Cluster) jvmFlags(heap string) []string {
	flags := []string{
		"-Xmx" + heap,
		"-XX:ParallelGCThreads=2",
		"-Djava.net.preferIPv4Stack=true",
		"-Dorg.apache.ratis.thirdparty.io.netty.tryReflectionSetAccessible=true",
		"-Dorg.apache.ratis.thirdparty.io.netty.allocator.useCacheForAllThreads=false",
		"--add-opens", "java.base/java.nio=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
		"--add-opens", "java.management/com.sun.jmx.mbeanserver=ALL-UNNAMED",
		"--add-exports", "java.management/com.sun.jmx.mbeanserver=ALL-UNNAMED",
		"-Dhadoop.home.dir=" + c.Dir,
		"-Dhadoop.log.dir=" + filepath.Join(c.Dir, "logs"),
		// rocksdbjni and netty-tcnative unpack native libraries here.
		"-Djava.io.tmpdir=" + filepath.Join(c.Dir, "tmp"),
	}
	if c.opts.Secure != nil {
		flags = append(flags, "-Djava.security.krb5.conf="+c.opts.Secure.Krb5Conf)
	}
	return flags
}

// Java builds a java command for mainClass with role's conf dir first on the classpath. The
// caller sets its output and runs it; Java freon is run this way.
func (c *Cluster) Java(ctx context.Context, role, heap, mainClass string, args ...string) *exec.Cmd {
	argv := append(c.jvmFlags(heap), "-cp", c.confDir(role)+string(os.PathListSeparator)+c.opts.Classpath, mainClass)
	cmd := c.Command(ctx, "java", append(argv, args...)...)
	// hdds-rocks-native unpacks its tools library into the working directory, not java.io.tmpdir.
	cmd.Dir = filepath.Join(c.Dir, "tmp")
	cmd.Env = os.Environ()
	if c.opts.Secure != nil && c.opts.Secure.ClientCache != "" && role == "client" {
		cmd.Env = append(cmd.Env, "KRB5CCNAME="+c.opts.Secure.ClientCache)
	}
	// The JVM dies with the process that started it, even when that one is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Freon builds the command for Java `ozone freon ARGS` with the client conf.
func (c *Cluster) Freon(ctx context.Context, args ...string) *exec.Cmd {
	return c.Java(ctx, "client", "512m", freonMain, args...)
}

// runOnce runs a short-lived Java command (init, admin) and returns its output; with a log
// name the output is also kept in logs/<name>.log.
func (c *Cluster) runOnce(ctx context.Context, logName, role, mainClass string, args ...string) (string, error) {
	cmd := c.Java(ctx, role, "256m", mainClass, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if logName != "" {
		os.WriteFile(filepath.Join(c.Dir, "logs", logName+".log"), out.Bytes(), 0o644)
	}
	return out.String(), err
}

// startDaemon starts a long-running process whose output goes to logs/<name>.log.
func (c *Cluster) startDaemon(name, role, mainClass string) error {
	log, err := os.OpenFile(filepath.Join(c.Dir, "logs", name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := c.Java(context.Background(), role, c.opts.Heap, mainClass)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		log.Close()
		close(p.done)
	}()
	c.mu.Lock()
	c.procs[name] = p
	c.mu.Unlock()
	return nil
}

// exited returns an error naming the first daemon that has stopped on its own.
func (c *Cluster) exited() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, p := range c.procs {
		select {
		case <-p.done:
			return fmt.Errorf("%s %w (%v): %s\nlast lines of logs/%s.log:\n%s", name, errExited, p.err, c.firstError(name), name, c.LogTail(name, 20))
		default:
		}
	}
	return nil
}

// firstError returns the first ERROR line of a daemon's log and the line after it (the cause,
// usually), which the log's tail often no longer shows after the shutdown hooks ran.
func (c *Cluster) firstError(name string) string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "logs", name+".log"))
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.Contains(l, " ERROR ") {
			if i+1 < len(lines) {
				return l + "\n" + lines[i+1]
			}
			return l
		}
	}
	return "no ERROR line in its log"
}

// waitPort waits until the cluster's host accepts connections on port.
func (c *Cluster) waitPort(ctx context.Context, name string, port int) error {
	addr := fmt.Sprintf("%s:%d", c.host, port)
	for {
		if c.listening(addr) {
			return nil
		}
		if err := c.exited(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not listening on %s: %w\n%s", name, addr, ctx.Err(), c.LogTail(name, 20))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (c *Cluster) listening(addr string) bool {
	if c.opts.NetNS != nil {
		return c.opts.NetNS.Listening(addr)
	}
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		conn.Close()
	}
	return err == nil
}

// Stop stops every process the cluster started: SIGTERM (Ozone's shutdown hooks), then SIGKILL
// for any still running after 10 s. It is safe to call more than once.
func (c *Cluster) Stop() {
	c.mu.Lock()
	procs := c.procs
	c.procs = map[string]*process{}
	c.mu.Unlock()
	for _, p := range procs {
		p.cmd.Process.Signal(syscall.SIGCONT) // a paused JVM cannot run its hooks
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range procs {
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// PIDs returns the process id of every running daemon by name.
func (c *Cluster) PIDs() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	pids := map[string]int{}
	for name, p := range c.procs {
		pids[name] = p.cmd.Process.Pid
	}
	return pids
}

// signal sends sig to the daemon called name ("dn1", "scm2", ...).
func (c *Cluster) signal(name string, sig syscall.Signal) error {
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%s is not running", name)
	}
	return p.cmd.Process.Signal(sig)
}

// Pause stops DataNode d with SIGSTOP: its sockets stay open and nothing answers.
func (c *Cluster) Pause(d *DataNode) error { return c.signal(d.name, syscall.SIGSTOP) }

// Resume continues a paused DataNode.
func (c *Cluster) Resume(d *DataNode) error { return c.signal(d.name, syscall.SIGCONT) }

// Kill kills DataNode d with SIGKILL and waits for it to exit.
func (c *Cluster) Kill(d *DataNode) error {
	c.mu.Lock()
	p := c.procs[d.name]
	delete(c.procs, d.name)
	c.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%s is not running", d.name)
	}
	p.cmd.Process.Kill()
	<-p.done
	return nil
}

// Restart starts a killed DataNode again with its data and identity, on new ports when
// newPorts is set (SCM then records the new ports from its registration).
func (c *Cluster) Restart(d *DataNode, newPorts bool) error {
	if newPorts {
		pp := portPicker{inNetNS: c.opts.NetNS != nil}
		ports, err := pp.dataNode()
		pp.release()
		if err != nil {
			return err
		}
		if d.firstPorts == (dnPorts{}) {
			d.firstPorts = d.ports
		}
		d.ports = ports
		if err := c.writeDataNodeConf(d); err != nil {
			return err
		}
	}
	return c.startDaemon(d.name, d.name, dnMain)
}

// RestoreFirstPorts kills a DataNode that Restart moved to new ports and starts it again on the
// ports it registered with, which SCM still lists (docs/real-ozone.md, "What the real cluster
// showed"), so that later pipelines with it work again.
func (c *Cluster) RestoreFirstPorts(d *DataNode) error {
	if d.firstPorts == (dnPorts{}) {
		return nil
	}
	if err := c.Kill(d); err != nil {
		return err
	}
	d.ports, d.firstPorts = d.firstPorts, dnPorts{}
	if err := c.writeDataNodeConf(d); err != nil {
		return err
	}
	return c.startDaemon(d.name, d.name, dnMain)
}
