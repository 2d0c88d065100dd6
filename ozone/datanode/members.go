package datanode

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/dnecho/dnecho/proto/hddspb"
)

// DataNode identifies the DataNode a call went to.
type DataNode struct {
	UUID string // DataNode id, UUID text
	Addr string // "host:port" that was dialled
}

// standalonePort is the port name the Xceiver gRPC server is published under
// (Ozone: DatanodeDetails.Port.Name.STANDALONE; docs/ozone-scm.md#port-names).
const standalonePort = "STANDALONE"

// OrderMembers returns the members in the Java client's order
// (docs/ozone-echo.md#member-order-and-address): member order, since SCM's
// ListPipelines never sends memberOrders, with nodes that are not IN_SERVICE
// moved to the end, stably. An absent persistedOpState counts as IN_SERVICE.
func OrderMembers(members []*hddspb.DatanodeDetailsProto) []*hddspb.DatanodeDetailsProto {
	out := make([]*hddspb.DatanodeDetailsProto, 0, len(members))
	var later []*hddspb.DatanodeDetailsProto
	for _, m := range members {
		if m.PersistedOpState == nil || m.GetPersistedOpState() == hddspb.NodeOperationalState_IN_SERVICE {
			out = append(out, m)
		} else {
			later = append(later, m)
		}
	}
	return append(out, later...)
}

// nodeOf resolves the id and address the Java client would use for m.
func nodeOf(m *hddspb.DatanodeDetailsProto, useHostname bool, defaultPort int) (DataNode, error) {
	id, err := memberUUID(m)
	if err != nil {
		return DataNode{}, err
	}
	host := m.GetIpAddress()
	if useHostname {
		host = m.GetHostName()
	}
	if host == "" {
		return DataNode{}, fmt.Errorf("datanode %s: no address (ipAddress %q, hostName %q)", id, m.GetIpAddress(), m.GetHostName())
	}
	port := -1
	for _, p := range m.GetPorts() {
		// The Java client upper-cases port names.
		if strings.EqualFold(p.GetName(), standalonePort) {
			port = int(p.GetValue())
			break
		}
	}
	switch {
	case port < 0:
		// The Java client fails here with a NullPointerException.
		return DataNode{}, fmt.Errorf("datanode %s (%s): no %s port in the pipeline member", id, host, standalonePort)
	case port == 0:
		port = defaultPort
	}
	return DataNode{UUID: id, Addr: net.JoinHostPort(host, strconv.Itoa(port))}, nil
}

// memberUUID reads the id the way the Java client does: id, else uuid128,
// else the uuid string (docs/ozone-scm.md#container-and-pipeline-messages).
func memberUUID(m *hddspb.DatanodeDetailsProto) (string, error) {
	if id := hddspb.DatanodeUUID(m); id != "" {
		return id, nil
	}
	return "", errors.New("datanode: pipeline member without id, uuid128 or uuid")
}

// matches reports whether a Target naming one DataNode selects m.
func (t Target) matches(n DataNode, m *hddspb.DatanodeDetailsProto) bool {
	s := string(t)
	return s == n.UUID || s == n.Addr || s == m.GetIpAddress() || s == m.GetHostName()
}
