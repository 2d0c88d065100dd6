// Package netshare tests that the kernel's view of a DataNode connection (ozone/echo's
// WatchNetwork) tells network time from DataNode time: on a test host of its own, a network
// namespace, a rate limit that queues large responses raises the sampled RTT while the rest of
// the echo latency stays, and latency the emulated DataNode adds raises the echo latency while
// the RTT stays (docs/network.md). It has only tests.
package netshare
