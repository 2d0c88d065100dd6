package echo

// EventKind says what a session reports.
type EventKind int

// Kinds of Event.
const (
	// EventSlowLookup: SCM has not answered the lookup for a while; the session keeps trying
	// until LookupTimeout. Field is FieldLookupTimeout, so a front end can name its option.
	EventSlowLookup EventKind = iota + 1
	// EventReresolving: every call has failed with UNAVAILABLE for ReresolveAfter; the session
	// asks SCM for the pipeline again. Field is FieldNoReresolve.
	EventReresolving
	// EventReresolved: the lookup found another pipeline or other addresses; calls go there now.
	EventReresolved
	// EventReresolveFailed: the new lookup failed or found nothing new; calls carry on as before.
	EventReresolveFailed
	// EventNetworkUnavailable: the kernel's view of the connections (TCP_INFO) cannot be read
	// here, so WatchNetwork reports no samples; said once per watch.
	EventNetworkUnavailable
	// EventSCMRetry: an SCM failed or stayed silent during a lookup, and the lookup asks another
	// (or the same one again). Message names the SCM, what happened and what is asked next; each
	// different message is said once per lookup.
	EventSCMRetry
	// EventSCMRedirect: an SCM answered that it is not the leader, and the lookup asks the SCM it
	// named, or the next one. Message says which; each different message is said once per lookup.
	EventSCMRedirect
)

// Info reports whether the event is news rather than a warning: a front end logs it at INFO.
func (k EventKind) Info() bool { return k == EventReresolved || k == EventSCMRedirect }

// Event is something a session has to say while it works: the front end shows it as a log line.
type Event struct {
	Kind EventKind
	// Message is a complete sentence without a front end's option names.
	Message string
	// Field is the option the user can change about it, or "".
	Field Field
}

// Observer receives a session's events, from any goroutine. A nil Observer discards them.
type Observer func(Event)

func (o Observer) emit(e Event) {
	if o != nil {
		o(e)
	}
}
