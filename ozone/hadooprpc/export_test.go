package hadooprpc

import "time"

// What the tests (package hadooprpc_test, external because they run the client against
// minicluster/rpcserver, which imports this package) see of the client's insides.

// Conn is a client connection.
type Conn = conn

// ConnFor returns the client's connection for protocol, nil when it has none.
func ConnFor(c *Client, protocol string) *Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conns[protocol]
}

// Conns counts the client's connections.
func Conns(c *Client) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.conns)
}

// LastUse is when the connection last sent a call or received a reply, even one it dropped.
func (cn *conn) LastUse() time.Time {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.lastUse
}

// Closed reports whether the connection is closed.
func (cn *conn) Closed() bool { return cn.isClosed() }
