package scm

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

// Node names one SCM in messages.
type Node struct {
	// ID is its node id in ozone.scm.nodes.<serviceId>, "" when none was configured.
	ID string
	// Addr is its client address, host:port.
	Addr string
}

// String is "scm1 (host:port)", or the address alone without an id.
func (n Node) String() string {
	if n.ID == "" {
		return n.Addr
	}
	return n.ID + " (" + n.Addr + ")"
}

// Retry is a failed attempt that another attempt follows: Options.OnRetry hears one each time.
type Retry struct {
	// From is the SCM that failed; To is the one asked next (From again for a retry in place).
	From, To Node
	// Err is what happened to the attempt.
	Err error
	// Pause is how long the client waits before asking To.
	Pause time.Duration
	// Leader is the leader a not-leader answer suggested (host:port), "" when it named none.
	Leader string
	// Hint says what the client made of Leader.
	Hint HintUse
}

// HintUse is what the client did with a not-leader answer's suggested leader.
type HintUse int

// Uses of a suggested leader.
const (
	// HintNone: no suggestion, or not a not-leader answer.
	HintNone HintUse = iota
	// HintFollowed: To is the suggested leader.
	HintFollowed
	// HintUnknown: the suggestion matches no configured SCM. Ozone's SCMs suggest the leader's
	// Raft host with their own client port, so on one host with a port per SCM it never matches
	// (docs/ozone-scm.md#leader-hint).
	HintUnknown
	// HintSelf: the suggestion names the answering SCM itself.
	HintSelf
	// HintSilent: the suggested SCM had just stayed silent; passed over this once.
	HintSilent
)

// Answered reports whether the SCM answered the attempt (an exception such as not-leader), as
// opposed to a connection that failed or stayed silent.
func (r Retry) Answered() bool {
	var re *hadooprpc.RemoteError
	return errors.As(r.Err, &re)
}

// NotLeader reports whether the SCM answered that it is not the leader.
func (r Retry) NotLeader() bool { return hadooprpc.RemoteClass(r.Err) == notLeaderClass }

// Reason says in a few words what happened to the attempt, naming the SCM: "SCM scm1 (host:port)
// did not answer in 5s".
func (r Retry) Reason() string {
	var silence *hadooprpc.SilenceError
	switch {
	case errors.As(r.Err, &silence) && silence.Connecting:
		return fmt.Sprintf("SCM %s did not accept a connection in %s", r.From, silence.After)
	case errors.As(r.Err, &silence):
		return fmt.Sprintf("SCM %s did not answer in %s", r.From, silence.After)
	case r.NotLeader():
		return fmt.Sprintf("SCM %s is not the leader%s", r.From, r.hintText())
	}
	return fmt.Sprintf("SCM %s failed: %v", r.From, r.Err)
}

func (r Retry) hintText() string {
	switch r.Hint {
	case HintFollowed:
		return "; it names " + r.To.String() + " as the leader"
	case HintUnknown:
		return " and names " + r.Leader + ", which is not one of the configured SCMs"
	case HintSelf:
		return " and names itself (" + r.Leader + ")"
	case HintSilent:
		return " and names " + r.Leader + ", which did not answer"
	}
	return " and does not know which SCM is"
}

// String is the one-line account of the retry: what happened and which SCM is asked next, when.
func (r Retry) String() string {
	next := "trying " + r.To.String()
	if r.To == r.From {
		next = "trying it again"
	} else if r.Hint == HintFollowed {
		next = "trying it"
	}
	if p := r.Pause.Round(100 * time.Millisecond); p > 0 {
		next += " in " + p.String()
	}
	return r.Reason() + ": " + next
}

// leaderText is the suggested leader of a not-leader answer as host:port, "" when none.
func leaderText(err error) string {
	host, port, ok := suggestedLeader(err)
	if !ok {
		return ""
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}
