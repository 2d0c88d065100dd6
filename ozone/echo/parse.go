package echo

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Set parses the string form of one field of s, checks it and stores it: the one parser behind
// the command-line flags and the JavaScript options. List fields (SCM, Overrides, TLSCA) append,
// and take comma-separated values (Overrides one "key=value" at a time). Request fields are set
// on s.Request. The error is a *FieldError.
func (s *Spec) Set(f Field, v string) error {
	switch f {
	case FieldSCM:
		return appendList(&s.Cluster.SCM, f, v, checkSCMAddr)
	case FieldConfDir:
		return setString(&s.Cluster.ConfDir, f, v)
	case FieldOverrides:
		if err := checkOverride(v); err != nil {
			return err
		}
		s.Cluster.Overrides = append(s.Cluster.Overrides, v) // the value is kept as written, like -D
		return nil
	case FieldUser:
		return setString(&s.Cluster.User, f, v)
	case FieldPrincipal:
		return setString(&s.Cluster.Principal, f, v)
	case FieldKeytab:
		return setString(&s.Cluster.Keytab, f, v)
	case FieldContainerID:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n <= 0 {
			return fieldErr(f, v, "want a positive whole number (a container id such as 1)")
		}
		s.ContainerID = n
	case FieldLookup:
		return setEnum(&s.Lookup, f, v, LookupFreon, LookupSingle)
	case FieldLookupTimeout:
		return setDuration(&s.LookupTimeout, f, v, time.Millisecond)
	case FieldToken:
		if err := setString(&s.Token, f, v); err != nil {
			return fieldErr(f, strconv.Quote(v), "is empty; use %q, %q or an encoded container token", TokenAuto, TokenNone)
		}
		return checkToken(s.Token)
	case FieldTransport:
		return setEnum(&s.Transport, f, v, TransportGRPC, TransportRatis)
	case FieldGRPCClient:
		return setEnum(&s.GRPCClient, f, v, GRPCClientGRPC, GRPCClientH2)
	case FieldUnsafeWrite:
		return setBool(&s.UnsafeWrite, f, v)
	case FieldTarget:
		if err := setString(&s.Target, f, v); err != nil {
			return fieldErr(f, strconv.Quote(v), "is empty; use %q, %q, or a DataNode's uuid, host or address", TargetFirst, TargetAll)
		}
	case FieldStream:
		return setEnum(&s.Stream, f, v, StreamNew, StreamReuse)
	case FieldNoRetry:
		return setBool(&s.NoRetry, f, v)
	case FieldClients:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return fieldErr(f, v, "want a whole number from 1 to %d", MaxClients)
		}
		s.Clients = n
		return checkClients(n)
	case FieldDeadline:
		return setDuration(&s.Deadline, f, v, time.Millisecond)
	case FieldTLSCA:
		return appendList(&s.TLSCA, f, v, nil)
	case FieldNoReresolve:
		return setBool(&s.NoReresolve, f, v)
	case FieldReresolveAfter:
		if err := setDuration(&s.ReresolveAfter, f, v, time.Second); err != nil {
			return err
		}
	default:
		return s.Request.Set(f, v)
	}
	return nil
}

// Set parses the string form of one Request field (sizes such as "4KB", "1MiB" or a number of
// bytes; SleepMs in whole milliseconds; booleans "true" or "false").
func (r *Request) Set(f Field, v string) error {
	switch f {
	case FieldPayloadReq:
		n, err := ParseSize(v)
		if err != nil {
			return fieldErr(f, v, "%s", err)
		}
		r.PayloadReq = n
		return checkPayloadReq(n)
	case FieldPayloadResp:
		n, err := ParseSize(v)
		if err != nil {
			return fieldErr(f, v, "%s", err)
		}
		r.PayloadResp = n
	case FieldUncapped:
		return setBool(&r.Uncapped, f, v)
	case FieldSleepMs:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 || n > math.MaxInt32 {
			return fieldErr(f, v, "want a whole number of milliseconds from 0 to %d", math.MaxInt32)
		}
		r.SleepMs = int32(n)
	case FieldReadOnly:
		return setBool(&r.ReadOnly, f, v)
	default:
		return fieldErr(f, v, "not an option of an echo workload")
	}
	return r.checkResponse()
}

func setString(dst *string, f Field, v string) error {
	if strings.TrimSpace(v) == "" {
		return fieldErr(f, nil, "is empty")
	}
	*dst = strings.TrimSpace(v)
	return nil
}

func setEnum[T ~string](dst *T, f Field, v string, allowed ...T) error {
	for _, a := range allowed {
		if strings.TrimSpace(v) == string(a) {
			*dst = a
			return nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return fieldErr(f, strconv.Quote(v), "use %s", strings.Join(names, " or "))
}

func setBool(dst *bool, f Field, v string) error {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return fieldErr(f, strconv.Quote(v), "want true or false")
	}
	*dst = b
	return nil
}

// setDuration reads a Go duration ("30s", "1m30s", "500ms"); it must be at least least.
func setDuration(dst *time.Duration, f Field, v string, least time.Duration) error {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return fieldErr(f, strconv.Quote(v), "want a duration such as 30s, 1m or 500ms")
	}
	if d < least {
		return fieldErr(f, v, "must be at least %s", least)
	}
	*dst = d
	return nil
}

// appendList appends the comma-separated, trimmed, non-empty parts of v, each checked by check.
func appendList(dst *[]string, f Field, v string, check func(string) error) error {
	var parts []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if check != nil {
			if err := check(p); err != nil {
				return err
			}
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return fieldErr(f, nil, "is empty")
	}
	*dst = append(*dst, parts...)
	return nil
}
