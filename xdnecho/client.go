package xdnecho

import (
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/echo"
)

// Messages scripts see when they use the module in the wrong place.
const (
	MsgClientOutsideInit = "dnecho.Client must be created in the init context"
	MsgEchoInInit        = "client.echo() is not allowed in the init context; call it from the default function or a scenario's exec function"
	MsgEchoAsyncInInit   = "client.echoAsync() is not allowed in the init context; call it from the default function or a scenario's exec function"
)

// errDry is the error of a call by a Client that did not contact its cluster (Defaults.Dry).
var errDry = errors.New("this command only reads the script: dnecho.Client did not contact the cluster")

// errNoCluster replaces echo.ErrNoCluster with advice for scripts.
var errNoCluster = errors.New("no cluster given: pass `scm: 'host:port'` or `conf: '/path/to/ozone-conf'` in the Client options, " +
	"set OZONE_CONF_DIR, or run the script with `dnecho run --local-cluster` (or --conf, --scm or -D ozone.scm.client.address=HOST:PORT)")

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
	fixed    *metrics.Tags // the session's tags (echometrics.FixedTags)
	watched  bool          // the session's network watch was asked for (watchNetwork)
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
		_ = call.This.Set("echoAsync", c.echoAsync)
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
	if i.root.defaults.Dry {
		return &client{inst: i, cfg: cfg, calls: map[echo.Request]*echo.Call{}, memo: &requestMemo{},
			prepared: map[*goja.Object]*preparedRequest{}}, nil
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
	fixed := echometrics.FixedTags(cfg.tags, sess)
	return &client{
		inst:     i,
		cfg:      cfg,
		sess:     sess,
		calls:    map[echo.Request]*echo.Call{},
		memo:     &requestMemo{},
		prepared: map[*goja.Object]*preparedRequest{},
		base:     baseRequest(sess.Spec()),
		tags:     newTagCache(fixed),
		fixed:    fixed,
	}, nil
}

// echo is client.echo(request?): one Echo RPC, measured and returned as a plain object.
func (c *client) echo(call goja.FunctionCall) goja.Value {
	vu := c.inst.vu
	rt := vu.Runtime()
	if vu.InitContext() {
		modules.ThrowMessage(rt, MsgEchoInInit)
	}
	req, ec, err := c.request(call.Argument(0))
	if err != nil {
		modules.Throw(rt, fmt.Errorf("client.echo: %w", err))
	}
	res := ec.Echo(vu.Context(), vu.ID())
	tags := vu.Tags()
	v, err := c.record(res, req, ec.Mode(), tags.Current(), tags.Metadata(), time.Now())
	if err != nil {
		modules.Throw(rt, err)
	}
	return v
}

// echoAsync is client.echoAsync(request?): the Echo RPC of echo() made on a goroutine of its
// own, so that one VU keeps many calls in flight (as k6's gRPC asyncInvoke does). It returns a
// Promise of the same result object; the samples are those of echo(), with the VU's tags as
// they were when the call was made. The VU's event loop keeps the iteration going until the
// call has returned, and settles the promise on the VU's goroutine: the runtime, the VU's
// sample buffer and the client's caches are only used there. Errors reject the promise.
func (c *client) echoAsync(call goja.FunctionCall) goja.Value {
	vu := c.inst.vu
	rt := vu.Runtime()
	if vu.InitContext() {
		modules.ThrowMessage(rt, MsgEchoAsyncInInit)
	}
	p, resolve, reject := rt.NewPromise()
	req, ec, err := c.request(call.Argument(0))
	if err != nil {
		_ = reject(rt.NewGoError(fmt.Errorf("client.echoAsync: %w", err)))
		return rt.ToValue(p)
	}
	tags, meta := vu.Tags().Current(), vu.Tags().Metadata()
	ctx, worker := vu.Context(), vu.ID()
	enqueue := vu.RegisterCallback()
	c.inst.root.async.do(func() {
		res := ec.Echo(ctx, worker)
		end := time.Now()
		enqueue(func() error {
			v, err := c.record(res, req, ec.Mode(), tags, meta, end)
			if err != nil {
				return reject(rt.NewGoError(err))
			}
			return resolve(v)
		})
	})
	return rt.ToValue(p)
}

// request returns the parsed request argument and the session's prepared call for it: from a
// client.prepare() object directly, else by parsing (or remembering) the request object.
func (c *client) request(arg goja.Value) (echoCall, *echo.Call, error) {
	if c.sess == nil {
		return echoCall{}, nil, errDry
	}
	c.watchNetwork()
	if o, ok := arg.(*goja.Object); ok {
		if p := c.prepared[o]; p != nil {
			return p.call, p.ec, nil
		}
	}
	req, err := c.memo.parse(c.inst.vu, arg, c.base, c.cfg.throw)
	if err != nil {
		return req, nil, err
	}
	ec, err := c.callFor(req.req)
	if err != nil {
		return req, nil, echo.Rename(err, optionName)
	}
	return req, ec, nil
}

// record emits the samples of a finished call, tagged with the VU's tags of when the call was
// made, and returns its result object; with the throw option a failed call is an error instead.
func (c *client) record(res echo.Result, req echoCall, mode echo.Mode, vuTags *metrics.Tags, meta map[string]string, end time.Time) (goja.Value, error) {
	if res.Interrupted {
		// The iteration was interrupted (end of scenario, abort) and the call failed because of
		// it: it says nothing about the DataNode, so it is not measured, like an interrupted
		// iteration is not. A call that completed before the interrupt keeps its samples.
		return c.inst.resultObject(res), nil
	}
	tags := c.tags.get(vuTags, &res, mode)
	if req.tags != nil {
		tags = tags.Merge(req.tags)
	}
	push(c.inst.metrics, c.inst.vu, end, tags, meta, &res)
	if n := echometrics.AttemptSamples(&res); n > 0 {
		base := vuTags.Merge(c.tags.fixed)
		if req.tags != nil {
			base = base.Merge(req.tags)
		}
		c.inst.metrics.FillAttempts(c.inst.vu.Reserve(n), end, base, meta, &res, mode)
	}
	if res.Err != nil && req.throw {
		return nil, fmt.Errorf("dnecho: echo to DataNode %s (%s) failed: %s: %s",
			res.DataNode.UUID, res.DataNode.Addr, res.Label, res.Message)
	}
	return c.inst.resultObject(res), nil
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

// watchNetwork starts the session's network watch (once per test run) at this Client's first
// call rather than in the init context: the VU that reads the options runs the init context
// before the run's tags (--tag, options.tags) are known, and a watch started there would tag
// every dnecho_tcp_* sample without them (no testid for the Grafana dashboards to select). The
// watch is the session's, not this VU's: its samples carry the run tags and the Client's, never
// the scenario or group of whichever call came first.
func (c *client) watchNetwork() {
	if c.watched {
		return
	}
	c.watched = true
	vu := c.inst.vu
	c.inst.root.net.watch(c.sess, vu.Test(), c.inst.metrics, vu.Tags().Run().Merge(c.fixed))
}
