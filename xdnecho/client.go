package xdnecho

import (
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/internal/echometrics"
	"github.com/dnecho/dnecho/ozone/echo"
)

// Messages scripts see when they use the module in the wrong place.
const (
	MsgClientOutsideInit = "dnecho.Client must be created in the init context"
	MsgEchoInInit        = "client.echo() is not allowed in the init context; call it from the default function or a scenario's exec function"
)

// errNoCluster replaces echo.ErrNoCluster with advice for scripts.
var errNoCluster = errors.New("no cluster given: pass `scm: 'host:port'` or `conf: '/path/to/ozone-conf'` in the Client options, " +
	"set OZONE_CONF_DIR, or run the script with `dnecho run --local-cluster` (or --conf/--scm)")

// client is one `new dnecho.Client(...)` in one VU: the shared echo session, and per-VU caches so
// echo() takes no lock once a request shape has been seen.
type client struct {
	inst  *instance
	cfg   clientConfig
	sess  *echo.Session
	calls map[echo.Request]*echo.Call
	// memo skips re-parsing a request object passed again unchanged (the common script shape).
	memo *requestMemo
	// prepared are this VU's client.prepare() results, by the JS object handed out.
	prepared map[*goja.Object]*preparedRequest
	base     echo.Request // client.echo() without arguments
	tags     tagCache
}

// clientConstructor returns the Client class of the module.
func (i *instance) clientConstructor() goja.Value {
	rt := i.vu.Runtime()
	var proto goja.Value
	ctor := rt.ToValue(func(call goja.ConstructorCall) *goja.Object {
		// Called without new, `this` is not a fresh instance and would be decorated instead.
		if call.This.Prototype() == nil || !call.This.Prototype().SameAs(proto) {
			panic(rt.NewTypeError("dnecho.Client must be called with new"))
		}
		if !i.vu.InitContext() {
			modules.ThrowMessage(rt, MsgClientOutsideInit)
		}
		c, err := i.newClient(call.Argument(0))
		if err != nil {
			modules.Throw(rt, fmt.Errorf("dnecho.Client: %w", err))
		}
		_ = call.This.Set("echo", c.echo)
		_ = call.This.Set("prepare", c.prepare)
		_ = call.This.Set("pipeline", c.pipeline)
		return nil
	}).(*goja.Object)
	proto = ctor.Get("prototype")
	return ctor
}

// newClient validates the options and opens (or joins) the test run's echo session for them:
// one SCM lookup per cluster and container, however many VUs ask. Doing it here, in the init
// context, makes an unreachable SCM or an unknown container fail the test before it starts.
func (i *instance) newClient(arg goja.Value) (*client, error) {
	cfg, err := parseClientOptions(arg, i.root.defaults)
	if err != nil {
		return nil, err
	}
	sess, err := i.root.sessions.Open(i.vu.Context(), cfg.spec)
	var fe *echo.FieldError
	switch {
	case errors.Is(err, echo.ErrNoCluster):
		return nil, errNoCluster
	case errors.As(err, &fe):
		return nil, fmt.Errorf("container %d: %w", cfg.spec.ContainerID, echo.Rename(err, optionName))
	case err != nil:
		return nil, fmt.Errorf("container %d: %w", cfg.spec.ContainerID, err)
	}
	return &client{
		inst:     i,
		cfg:      cfg,
		sess:     sess,
		calls:    map[echo.Request]*echo.Call{},
		memo:     &requestMemo{},
		prepared: map[*goja.Object]*preparedRequest{},
		base:     baseRequest(sess.Spec()),
		tags:     newTagCache(echometrics.FixedTags(cfg.tags, sess)),
	}, nil
}

// echo is client.echo(request?): one Echo RPC, measured and returned as a plain object.
func (c *client) echo(call goja.FunctionCall) goja.Value {
	vu := c.inst.vu
	rt := vu.Runtime()
	if vu.InitContext() {
		modules.ThrowMessage(rt, MsgEchoInInit)
	}
	req, ec := c.request(call.Argument(0))
	res := ec.Echo(vu.Context(), vu.ID())
	if res.Interrupted {
		// The iteration was interrupted (end of scenario, abort) and the call failed because of
		// it: it says nothing about the DataNode, so it is not measured, like an interrupted
		// iteration is not. A call that completed before the interrupt keeps its samples.
		return c.inst.resultObject(res)
	}
	tags := c.tags.get(vu.Tags().Current(), res.DataNode.UUID, res.Label, ec.Mode())
	if req.tags != nil {
		tags = tags.Merge(req.tags)
	}
	push(c.inst.metrics, vu, time.Now(), tags, &res)
	if res.Err != nil && req.throw {
		modules.Throw(rt, fmt.Errorf("dnecho: echo to DataNode %s (%s) failed: %s: %s",
			res.DataNode.UUID, res.DataNode.Addr, res.Label, res.Message))
	}
	return c.inst.resultObject(res)
}

// request returns the parsed request and its prepared Call: from a client.prepare() object
// directly, else by parsing (or remembering) the request object.
func (c *client) request(v goja.Value) (echoCall, *echo.Call) {
	if o, ok := v.(*goja.Object); ok {
		if p := c.prepared[o]; p != nil {
			return p.call, p.ec
		}
	}
	rt := c.inst.vu.Runtime()
	req, err := c.memo.parse(c.inst.vu, v, c.base, c.cfg.throw)
	if err != nil {
		modules.Throw(rt, fmt.Errorf("client.echo: %w", err))
	}
	ec, err := c.callFor(req.req)
	if err != nil {
		modules.Throw(rt, fmt.Errorf("client.echo: %w", echo.Rename(err, optionName)))
	}
	return req, ec
}

// callFor returns the session's prepared Call for a request, from the VU's cache.
func (c *client) callFor(r echo.Request) (*echo.Call, error) {
	if ec, ok := c.calls[r]; ok {
		return ec, nil
	}
	ec, err := c.sess.Prepare(r)
	if err != nil {
		return nil, err
	}
	if len(c.calls) >= maxCachedCalls {
		clear(c.calls)
	}
	c.calls[r] = ec
	return ec, nil
}

// maxCachedCalls bounds a VU's cache of prepared calls (a script that varies the payload size on
// every call would otherwise grow it without end; the session shares equal requests anyway).
const maxCachedCalls = 256
