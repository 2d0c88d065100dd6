package echo

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/proto/dnpb"
)

func TestLabels(t *testing.T) {
	cases := []struct {
		res  datanode.Result
		err  error
		want string
	}{
		{datanode.Result{Code: dnpb.Result_SUCCESS}, nil, "SUCCESS"},
		{datanode.Result{Code: dnpb.Result_CONTAINER_NOT_FOUND}, &datanode.EchoError{Code: dnpb.Result_CONTAINER_NOT_FOUND}, "CONTAINER_NOT_FOUND"},
		{datanode.Result{GRPCCode: codes.Unavailable}, fmt.Errorf("x: %w", status.Error(codes.Unavailable, "down")), "UNAVAILABLE"},
		{datanode.Result{GRPCCode: codes.DeadlineExceeded}, context.DeadlineExceeded, "DEADLINE_EXCEEDED"},
		{datanode.Result{}, context.Canceled, "CANCELLED"},
		{datanode.Result{}, datanode.ErrClosed, "CANCELLED"},
		{datanode.Result{}, context.DeadlineExceeded, "DEADLINE_EXCEEDED"},
		{datanode.Result{Message: datanode.ErrNoReply.Error()}, fmt.Errorf("dn: %w", datanode.ErrNoReply), "NO_REPLY"},
		{datanode.Result{}, errors.New("other"), "UNKNOWN"},
	}
	for _, c := range cases {
		if got := label(c.res, c.err); got != c.want {
			t.Errorf("label(%+v, %v) = %q, want %q", c.res, c.err, got, c.want)
		}
	}
}

func TestInterruptedResult(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := newResult(ctx, datanode.Result{GRPCCode: codes.Canceled}, context.Canceled)
	if !r.Interrupted || r.OK() || r.Message == "" {
		t.Errorf("result %+v", r)
	}
	if r := newResult(context.Background(), datanode.Result{Code: dnpb.Result_SUCCESS}, nil); r.Interrupted || !r.OK() || r.Message != "" {
		t.Errorf("result %+v", r)
	}
}
