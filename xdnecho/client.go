package xdnecho

import (
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/target"
)

// Messages scripts see when they use the module in the wrong place.
const (
	MsgClientOutsideInit = "dnecho.Client must be created in the init context"
	MsgEchoInInit        = "client.echo() is not allowed in the init context; call it from the default function or a scenario's exec function"
)

// client is one `new dnecho.Client(...)` in one VU. Its caches are per VU, so echo() takes no
// lock once a request shape has been seen.
type client struct {
	inst     *instance
	opts     clientOptions
	pool     *pool
	dn       *datanode.Client // this VU's client in the pool
	prepared map[requestShape]*datanode.Prepared
	// memo skips re-parsing a request object passed again unchanged (the common script shape).
	memo *requestMemo
	tags tagCache
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
		_ = call.This.Set("pipeline", c.pipeline)
		return nil
	}).(*goja.Object)
	proto = ctor.Get("prototype")
	return ctor
}

// newClient validates the options, looks the container up (once per test run, shared by VUs)
// and picks this VU's datanode client. Doing the lookup here, in the init context, makes an
// unreachable SCM or an unknown container fail the test before it starts.
func (i *instance) newClient(arg goja.Value) (*client, error) {
	o, err := parseClientOptions(arg)
	if err != nil {
		return nil, err
	}
	scmAddrs, conf, caFiles := o.clusterOf(i.root.defaults)
	tOpts, lk := o.targetOptions(scmAddrs, conf)
	tgt, err := i.root.resolve(i.vu.Context(), lk, tOpts, i.vu.Test().Logger)
	if err != nil {
		if errors.Is(err, errNoCluster) {
			return nil, err
		}
		return nil, fmt.Errorf("container %d: %w", o.ContainerID, err)
	}
	p, err := i.root.poolOf(newPoolKey(lk, &o, caFiles), tgt, &o, caFiles)
	if err != nil {
		return nil, fmt.Errorf("container %d: %w", o.ContainerID, err)
	}
	return &client{
		inst:     i,
		opts:     o,
		pool:     p,
		dn:       p.clientFor(i.vu.ID()),
		prepared: map[requestShape]*datanode.Prepared{},
		memo:     &requestMemo{},
		tags:     newTagCache(o.Tags, o.ContainerID, target.PipelineID(tgt.Pipeline), o.Stream),
	}, nil
}

// echo is client.echo(request?): one Echo RPC, measured and returned as a plain object.
func (c *client) echo(call goja.FunctionCall) goja.Value {
	vu := c.inst.vu
	rt := vu.Runtime()
	if vu.InitContext() {
		modules.ThrowMessage(rt, MsgEchoInInit)
	}
	req, err := c.memo.parse(vu, call.Argument(0), c.opts.Throw)
	if err != nil {
		modules.Throw(rt, fmt.Errorf("client.echo: %w", err))
	}
	p, err := c.preparedFor(req.shape)
	if err != nil {
		modules.Throw(rt, fmt.Errorf("client.echo: %w", err))
	}

	ctx := vu.Context()
	res, err := c.dn.Echo(ctx, p)
	name, message := resultName(res, err), resultMessage(res, err)
	if err != nil && ctx.Err() != nil {
		// The iteration was interrupted (end of scenario, abort) and the call failed because of
		// it: it says nothing about the DataNode, so it is not measured, like an interrupted
		// iteration is not. A call that completed before the interrupt keeps its samples.
		return c.inst.resultObject(res, name, message)
	}
	tags := c.tags.get(vu.Tags().Current(), res.DataNode.UUID, name)
	if req.tags != nil {
		tags = tags.Merge(req.tags)
	}
	c.inst.metrics.push(vu, time.Now(), tags, res.RTT, err != nil, res.BytesSent, res.BytesReceived)
	if err != nil && req.throw {
		modules.Throw(rt, fmt.Errorf("dnecho: echo to DataNode %s (%s) failed: %s: %s",
			res.DataNode.UUID, res.DataNode.Addr, name, message))
	}
	return c.inst.resultObject(res, name, message)
}

// preparedFor returns the encoded request of a shape, from the VU's cache or the Root's.
func (c *client) preparedFor(shape requestShape) (*datanode.Prepared, error) {
	if p, ok := c.prepared[shape]; ok {
		return p, nil
	}
	p, err := c.inst.root.prepare(c.pool, c.dn, shape)
	if err != nil {
		return nil, err
	}
	c.prepared[shape] = p
	return p, nil
}
