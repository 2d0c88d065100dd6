package xdnecho

import (
	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/proto/hddspb"
)

// pipeline is client.pipeline(): what the SCM lookup found, as a plain object
// (js/index.d.ts PipelineInfo). It is allowed in the init context, so that options such as
// per-DataNode thresholds can be built from it.
func (c *client) pipeline(goja.FunctionCall) goja.Value {
	rt := c.inst.vu.Runtime()
	if c.sess == nil { // Defaults.Dry: no lookup was made
		o := rt.NewObject()
		_ = o.Set("containerId", c.cfg.spec.ContainerID)
		_ = o.Set("pipelineId", "")
		_ = o.Set("containerState", "")
		_ = o.Set("datanodes", rt.NewArray())
		return o
	}
	pl := c.sess.Placement()
	addrs := map[string]string{}
	for _, m := range c.sess.Members() {
		addrs[m.UUID] = m.Addr
	}
	var dns []any
	for _, m := range pl.Pipeline.GetMembers() {
		id := memberUUID(m)
		dn := rt.NewObject()
		_ = dn.Set("uuid", id)
		_ = dn.Set("address", addrs[id])
		_ = dn.Set("hostName", m.GetHostName())
		dns = append(dns, dn)
	}
	o := rt.NewObject()
	_ = o.Set("containerId", pl.Container.GetContainerID())
	_ = o.Set("pipelineId", pl.PipelineID())
	_ = o.Set("containerState", pl.Container.GetState().String())
	_ = o.Set("datanodes", rt.NewArray(dns...))
	// The leader SCM lists (Ratis calls start there); "" when it lists none.
	_ = o.Set("leader", pl.Pipeline.GetLeaderID())
	return o
}

// memberUUID reads a member's id with the Java client's precedence (id, then uuid128, then the
// uuid string), so it matches the datanode tag of samples.
func memberUUID(m *hddspb.DatanodeDetailsProto) string { return hddspb.DatanodeUUID(m) }
