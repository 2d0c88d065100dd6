package echo

import (
	"errors"
	"fmt"
)

// Field names one option of a Spec (or of its Request) in errors and in Set. Each front end maps
// a Field to its own name for it: a command-line flag, a JavaScript option.
type Field string

// The fields of a Spec and of a Request.
const (
	FieldSCM            Field = "SCM"
	FieldConfDir        Field = "ConfDir"
	FieldOverrides      Field = "Overrides"
	FieldUser           Field = "User"
	FieldPrincipal      Field = "Principal"
	FieldKeytab         Field = "Keytab"
	FieldContainerID    Field = "ContainerID"
	FieldLookup         Field = "Lookup"
	FieldLookupTimeout  Field = "LookupTimeout"
	FieldToken          Field = "Token"
	FieldTransport      Field = "Transport"
	FieldGRPCClient     Field = "GRPCClient"
	FieldUnsafeWrite    Field = "UnsafeWrite"
	FieldTarget         Field = "Target"
	FieldStream         Field = "Stream"
	FieldNoRetry        Field = "NoRetry"
	FieldClients        Field = "Clients"
	FieldDeadline       Field = "Deadline"
	FieldTLSCA          Field = "TLSCA"
	FieldNoReresolve    Field = "NoReresolve"
	FieldReresolveAfter Field = "ReresolveAfter"

	FieldPayloadReq  Field = "PayloadReq"
	FieldPayloadResp Field = "PayloadResp"
	FieldUncapped    Field = "Uncapped"
	FieldSleepMs     Field = "SleepMs"
	FieldReadOnly    Field = "ReadOnly"
)

// FieldError is an invalid or missing option. Its message names the Field; a front end that
// calls the option something else uses Describe with its own name.
type FieldError struct {
	Field Field
	// Value is the offending value as given; "" when the option is missing.
	Value string
	// Reason says what is wrong and what is allowed.
	Reason string
}

func (e *FieldError) Error() string { return e.Describe(string(e.Field)) }

// Describe is the message with the option called name ("--container-id", "option containerId").
func (e *FieldError) Describe(name string) string {
	if e.Value == "" {
		return name + ": " + e.Reason
	}
	return fmt.Sprintf("%s %s: %s", name, e.Value, e.Reason)
}

// Rename rewrites a *FieldError in err's chain with the front end's name for its field; other
// errors are returned unchanged. name returns "" for a field the front end does not expose,
// which keeps the Field's own name.
func Rename(err error, name func(Field) string) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return err
	}
	n := name(fe.Field)
	if n == "" {
		return err
	}
	return &renamed{msg: fe.Describe(n), err: err}
}

// renamed keeps the original chain reachable (errors.As still finds the FieldError).
type renamed struct {
	msg string
	err error
}

func (r *renamed) Error() string { return r.msg }
func (r *renamed) Unwrap() error { return r.err }

func fieldErr(f Field, value any, format string, args ...any) *FieldError {
	v := ""
	if value != nil {
		v = fmt.Sprint(value)
	}
	return &FieldError{Field: f, Value: v, Reason: fmt.Sprintf(format, args...)}
}
