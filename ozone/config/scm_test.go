package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSCMNodes(t *testing.T) {
	ha := map[string]string{
		"ozone.scm.service.ids":        "svc",
		"ozone.scm.nodes.svc":          "n1, n2",
		"ozone.scm.address.svc.n1":     "h1",
		"ozone.scm.address.svc.n2":     "h2:9894", // a port here is not the client port
		"ozone.scm.client.address":     "ignored-in-ha",
		"ozone.scm.client.port.svc.n2": "7000",
	}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		props   map[string]string
		want    []SCMNode
		wantErr string
	}{
		{"client address with port", map[string]string{"ozone.scm.client.address": "scm:1234", "ozone.scm.names": "other"},
			[]SCMNode{{Host: "scm", Port: 1234}}, ""},
		{"client address, client port", map[string]string{"ozone.scm.client.address": "scm", "ozone.scm.client.port": "4321"},
			[]SCMNode{{Host: "scm", Port: 4321}}, ""},
		{"names fallback ignores its port", map[string]string{"ozone.scm.names": " scm:9861 "},
			[]SCMNode{{Host: "scm", Port: 9860}}, ""},
		{"ipv6", map[string]string{"ozone.scm.client.address": "[::1]:9000"},
			[]SCMNode{{Host: "::1", Port: 9000}}, ""},
		{"nothing set", map[string]string{}, nil, "no SCM address"},
		{"several names without HA", map[string]string{"ozone.scm.names": "a,b"}, nil, "lists 2 hosts"},
		{"bad port", map[string]string{"ozone.scm.client.address": "scm:http"}, nil, `invalid port "http"`},
		{"ha", ha, []SCMNode{{"n1", "h1", 9860}, {"n2", "h2", 7000}}, ""},
		{"ha deprecated address port wins", with(ha, "ozone.scm.client.address.svc.n2", "h2:7100"),
			[]SCMNode{{"n1", "h1", 9860}, {"n2", "h2", 7100}}, ""},
		{"ha global port", with(ha, "ozone.scm.client.port", "1111"),
			[]SCMNode{{"n1", "h1", 1111}, {"n2", "h2", 7000}}, ""},
		{"several service ids", with(ha, "ozone.scm.service.ids", "svc, other"), nil, "lists 2 services (svc, other)"},
		{"several ids with default", with(ha, "ozone.scm.service.ids", "svc,other", "ozone.scm.default.service.id", "svc"),
			[]SCMNode{{"n1", "h1", 9860}, {"n2", "h2", 7000}}, ""},
		{"missing nodes", map[string]string{"ozone.scm.service.ids": "svc"}, nil, "ozone.scm.nodes.svc is not set"},
		{"missing node address", with(ha, "ozone.scm.nodes.svc", "n1,n3"), nil, "ozone.scm.address.svc.n3 is not set"},
		{"bad node port", with(ha, "ozone.scm.client.port.svc.n1", "x"), nil, "ozone.scm.client.port.svc.n1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fromMap(tt.props).SCMNodes()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSCMNodeAddress(t *testing.T) {
	if got := (SCMNode{Host: "::1", Port: 9860}).Address(); got != "[::1]:9860" {
		t.Error(got)
	}
}

func TestClientSettings(t *testing.T) {
	s, err := New().ClientSettings()
	if err != nil {
		t.Fatal(err)
	}
	want := ClientSettings{
		ReadTimeout: DefaultClientReadTimeout, TopologyAwareRead: true, ContainerIPCPort: 9859,
		SCMRPCTimeout: DefaultSCMClientRPCTimeout, SCMFailoverMaxRetry: 15,
		SCMFailoverRetryInterval: DefaultSCMClientRetryInterval, SCMMaxRetryTimeout: DefaultSCMClientMaxRetryTime,
		IPCConnectTimeout: DefaultIPCConnectTimeout, SCMKerberosPrincipal: DefaultSCMKerberosPrincipal, RPCProtection: []string{"authentication"},
		OMKerberosPrincipal: DefaultOMKerberosPrincipal, OMRetryWait: 2 * time.Second, OMMaxFailovers: 500,
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", s, want)
	}
	if s.SCMRetryLimit() != 300 {
		t.Errorf("retry limit = %d, want 300 (10m / 2s)", s.SCMRetryLimit())
	}

	// TLS needs security too; a bad boolean is a warning, bad numbers are errors.
	s, err = fromMap(map[string]string{
		"hdds.grpc.tls.enabled": "true", "ozone.network.topology.aware.read": "nope",
		"hadoop.rpc.protection": "Privacy, integrity", "ozone.client.read.timeout": "1500ms",
	}).ClientSettings()
	if err != nil {
		t.Fatal(err)
	}
	if s.GRPCTLS || !s.TopologyAwareRead || len(s.Warnings) != 1 || s.ReadTimeout.Seconds() != 1 || s.SCMRPCTimeoutSet ||
		!reflect.DeepEqual(s.RPCProtection, []string{"privacy", "integrity"}) {
		t.Errorf("got %+v", s)
	}
	// Whether hdds.scmclient.rpc.timeout is set, even to its default; a bare connect timeout is
	// milliseconds, as Hadoop reads it.
	s, err = fromMap(map[string]string{"hdds.scmclient.rpc.timeout": "15m", "ipc.client.connect.timeout": "3000"}).ClientSettings()
	if err != nil || !s.SCMRPCTimeoutSet || s.SCMRPCTimeout != 15*time.Minute || s.IPCConnectTimeout != 3*time.Second {
		t.Errorf("got %+v, %v", s, err)
	}
	_, err = fromMap(map[string]string{
		"hdds.container.ipc.port": "x", "hdds.scmclient.rpc.timeout": "soon", "hadoop.rpc.protection": "secret",
	}).ClientSettings()
	for _, w := range []string{"hdds.container.ipc.port", "hdds.scmclient.rpc.timeout", "secret"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not mention %s", err, w)
		}
	}
}

// Values Hadoop refuses, or that would make the client wait forever or not at all, are errors
// naming the key, not silently replaced.
func TestClientSettingsOutOfRange(t *testing.T) {
	for key, v := range map[string]string{
		"hadoop.security.authentication":         "bogus",
		"ozone.client.read.timeout":              "-5s",
		"hdds.scmclient.rpc.timeout":             "0",
		"hdds.scmclient.failover.retry.interval": "-1ms",
		"hdds.scmclient.max.retry.timeout":       "-1m",
		"ipc.client.connect.timeout":             "0",
		"hdds.scmclient.failover.max.retry":      "-3",
		"ozone.client.failover.max.attempts":     "-1",
		"hdds.container.ipc.port":                "70000",
	} {
		_, err := fromMap(map[string]string{key: v}).ClientSettings()
		if err == nil || !strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: got %v, want one error naming the key", key, v, err)
		}
	}
	for _, v := range []string{"simple", "Kerberos", "KERBEROS", ""} {
		if _, err := fromMap(map[string]string{"hadoop.security.authentication": v}).ClientSettings(); err != nil {
			t.Errorf("hadoop.security.authentication=%q: %v", v, err)
		}
	}
}

// -D alone is a whole configuration, as Java freon's is its defaults plus -D: the SCM keys given
// as overrides, with no file, name the cluster.
func TestOverridesAloneNameSCM(t *testing.T) {
	tests := []struct {
		name      string
		overrides []string
		names     bool
		want      []string
	}{
		{"client address", []string{"ozone.scm.client.address=scm1:1234"}, true, []string{"scm1:1234"}},
		{"names", []string{"ozone.scm.names=scm2"}, true, []string{"scm2:9860"}},
		{"ha", []string{"ozone.scm.service.ids=svc", "ozone.scm.nodes.svc=a,b", "ozone.scm.address.svc.a=h1",
			"ozone.scm.address.svc.b=h2", "ozone.scm.client.port.svc.b=7000"}, true, []string{"h1:9860", "h2:7000"}},
		{"ha default service", []string{"ozone.scm.default.service.id=svc", "ozone.scm.nodes.svc=a", "ozone.scm.address.svc.a=h1"},
			true, []string{"h1:9860"}},
		{"only other keys", []string{"ozone.client.read.timeout=5s"}, false, nil},
		{"blank address", []string{"ozone.scm.client.address= "}, false, nil},
		{"nothing", nil, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load("", tt.overrides)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.NamesSCM(); got != tt.names {
				t.Fatalf("NamesSCM() = %v, want %v", got, tt.names)
			}
			got, err := c.SCMAddresses()
			if !tt.names {
				if err == nil {
					t.Errorf("SCMAddresses() = %v without any SCM key, want an error", got)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SCMAddresses() = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestFreonHTTPAddress(t *testing.T) {
	tests := []struct {
		props   map[string]string
		host    string
		port    int
		wantErr string
	}{
		{nil, "0.0.0.0", 9884, ""},
		{map[string]string{"ozone.freon.http-address": "127.0.0.1:9000"}, "127.0.0.1", 9000, ""},
		{map[string]string{"ozone.freon.http-address": "gw"}, "gw", 9884, ""},
		{map[string]string{"ozone.freon.http-address": "127.0.0.1:0"}, "127.0.0.1", 0, ""},
		{map[string]string{"ozone.freon.http-address": ":9000"}, "", 9000, ""},
		{map[string]string{"ozone.freon.http-address": "gw:9000", "ozone.freon.http-bind-host": "10.0.0.1"}, "10.0.0.1", 9000, ""},
		{map[string]string{"ozone.freon.http-address": "gw:http"}, "", 0, `ozone.freon.http-address="gw:http": invalid port`},
	}
	for _, tt := range tests {
		host, port, err := fromMap(tt.props).FreonHTTPAddress()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: err = %v, want %q", tt.props, err, tt.wantErr)
			}
			continue
		}
		if err != nil || host != tt.host || port != tt.port {
			t.Errorf("%v: got %s %d %v, want %s %d", tt.props, host, port, err, tt.host, tt.port)
		}
	}
}
