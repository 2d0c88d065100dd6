package datanode

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/proto/dnpb"
)

func TestLabels(t *testing.T) {
	cases := []struct {
		res  Result
		err  error
		want string
	}{
		{Result{Result: dnpb.Result_SUCCESS}, nil, "SUCCESS"},
		{Result{Result: dnpb.Result_CONTAINER_NOT_FOUND}, &EchoError{Result: dnpb.Result_CONTAINER_NOT_FOUND}, "CONTAINER_NOT_FOUND"},
		{Result{GRPCCode: codes.Unavailable}, fmt.Errorf("x: %w", status.Error(codes.Unavailable, "down")), "UNAVAILABLE"},
		{Result{GRPCCode: codes.DeadlineExceeded}, context.DeadlineExceeded, "DEADLINE_EXCEEDED"},
		{Result{GRPCCode: codes.Canceled}, context.Canceled, "CANCELLED"},
		{Result{GRPCCode: codes.OK, Message: ErrNoReply.Error()}, fmt.Errorf("dn: %w", ErrNoReply), "NO_REPLY"},
	}
	for _, c := range cases {
		if got := c.res.Label(); got != c.want {
			t.Errorf("Result%+v.Label() = %q, want %q", c.res, got, c.want)
		}
		if got := ErrorLabel(c.err); got != c.want {
			t.Errorf("ErrorLabel(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if got := ErrorLabel(errors.New("other")); got != "UNKNOWN" {
		t.Errorf("plain error: %q", got)
	}
}
