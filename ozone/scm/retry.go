package scm

import (
	"errors"
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

// action is what the retry policy does after a failed attempt.
type action int

const (
	actFail     action = iota // give the error to the caller
	actRetry                  // same SCM, after the interval
	actFailover               // next SCM (or the hinted leader), after the interval
)

// Simple class names of exceptions the Java client does not fail over on
// (docs/ozone-scm.md#retry-decision). A Go client sees only names, so SCMException's subclasses
// are listed one by one.
var (
	ipcFailClasses = map[string]bool{
		"RpcNoSuchMethodException":   true,
		"RpcNoSuchProtocolException": true,
		"RPC$VersionMismatch":        true,
	}
	scmFailClasses = map[string]bool{
		"SCMException":                      true,
		"ContainerException":                true,
		"ContainerNotFoundException":        true,
		"ContainerReplicaNotFoundException": true,
		"PipelineNotFoundException":         true,
		"DuplicatedPipelineIdException":     true,
		"InvalidPipelineStateException":     true,
		"NonRetriableException":             true,
	}
)

// decide applies the decision table of docs/ozone-scm.md#retry-decision, in its order.
// Ozone: hadoop-hdds/framework/.../scm/proxy/SCMFailoverProxyProviderBase.java (retry policy).
func decide(err error) action {
	class := hadooprpc.RemoteClass(err)
	var auth *hadooprpc.AuthError
	switch {
	case class == "AccessControlException":
		return actFail
	case errors.As(err, &auth): // SCM answered; our side refuses its answer (a principal, a protection)
		return actFail
	case ipcFailClasses[class],
		errors.Is(err, hadooprpc.ErrBadResponse), // length errors, undecodable replies
		errors.Is(err, hadooprpc.ErrSASLRequired),
		errors.Is(err, hadooprpc.ErrClosed):
		return actFail
	case class == "RetriableWithNoFailoverException":
		return actRetry
	case scmFailClasses[class]:
		return actFail
	}
	// ServerNotLeaderException, RetriableWithFailOverException, connection
	// failures, timeouts and unknown classes.
	return actFailover
}

// notLeaderClass is the simple class name of a follower's answer (docs/ozone-scm.md#leader-check-on-the-server).
const notLeaderClass = "ServerNotLeaderException"

// leaderHint matches the suggested leader in a ServerNotLeaderException
// message, which may continue with a stack trace (hence DOTALL). The host is
// a bracketed IPv6 literal or a run of non-colons (docs/ozone-scm.md#leader-hint).
var leaderHint = regexp.MustCompile(`(?s)Suggested leader is Server:(\[[^\]]+\]|[^:]*):([0-9]+)`)

// suggestedLeader returns the host and port the error names as leader.
func suggestedLeader(err error) (host string, port int, ok bool) {
	var re *hadooprpc.RemoteError
	if !errors.As(err, &re) || re.SimpleName() != notLeaderClass {
		return "", 0, false
	}
	m := leaderHint.FindStringSubmatch(re.Message)
	if m == nil {
		return "", 0, false
	}
	port, perr := strconv.Atoi(m[2])
	if perr != nil {
		return "", 0, false
	}
	return strings.TrimSuffix(strings.TrimPrefix(m[1], "["), "]"), port, true
}

// sameNode reports whether the configured address addr is host:port: host
// names compare case-insensitively, IP literals by value.
func sameNode(addr, host string, port int) bool {
	h, p, err := net.SplitHostPort(addr)
	if err != nil || p != strconv.Itoa(port) {
		return false
	}
	if strings.EqualFold(h, host) {
		return true
	}
	a, b := net.ParseIP(h), net.ParseIP(host)
	return a != nil && b != nil && a.Equal(b)
}
