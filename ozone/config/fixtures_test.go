package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// fixtureDir holds real Ozone compose configurations; see its README.md.
const fixtureDir = "testdata/ozone-compose"

// loadFixture converts one docker-config fixture into XML files and loads them, as a user
// pointing --conf at the compose cluster's /etc/hadoop would.
func loadFixture(t *testing.T, name string, overrides ...string) *Config {
	t.Helper()
	src := filepath.Join(fixtureDir, name)
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("fixture %s: %v", src, err)
	}
	dir := t.TempDir()
	if err := ConvertDockerConfig(src, dir); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir, overrides)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFixtures(t *testing.T) {
	haNodes := func(domain string) []SCMNode {
		return []SCMNode{
			{ID: "scm1", Host: "scm1" + domain, Port: 9860},
			{ID: "scm2", Host: "scm2" + domain, Port: 9860},
			{ID: "scm3", Host: "scm3" + domain, Port: 9860},
		}
	}
	tests := []struct {
		file      string
		serviceID string
		nodes     []SCMNode
		secure    bool // security, Kerberos, both tokens and TLS are all on or all off here
		principal string
	}{
		{"ozone.docker-config", "", []SCMNode{{Host: "scm", Port: 9860}}, false, DefaultSCMKerberosPrincipal},
		{"ozone-ha.docker-config", "scmservice", haNodes(""), false, DefaultSCMKerberosPrincipal},
		{"ozonesecure.docker-config", "", []SCMNode{{Host: "scm", Port: 9860}}, true, "scm/scm@EXAMPLE.COM"},
		// Also sets ozone.scm.client.address=scm: the HA service wins, as in the Java failover proxy.
		{"ozonesecure-ha.docker-config", "scmservice", haNodes(".org"), true, "scm/scm@EXAMPLE.COM"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c := loadFixture(t, tt.file)
			sid, err := c.SCMServiceID()
			if err != nil || sid != tt.serviceID {
				t.Fatalf("SCMServiceID = %q, %v; want %q", sid, err, tt.serviceID)
			}
			nodes, err := c.SCMNodes()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(nodes, tt.nodes) {
				t.Errorf("SCMNodes = %+v, want %+v", nodes, tt.nodes)
			}
			s, err := c.ClientSettings()
			if err != nil {
				t.Fatal(err)
			}
			got := []bool{s.SecurityEnabled, s.Kerberos, s.BlockTokenEnabled, s.ContainerTokenEnabled, s.GRPCTLS}
			for i, b := range got {
				if b != tt.secure {
					t.Errorf("security flag %d = %v, want %v (%+v)", i, b, tt.secure, s)
				}
			}
			if s.SCMKerberosPrincipal != tt.principal {
				t.Errorf("principal = %q, want %q", s.SCMKerberosPrincipal, tt.principal)
			}
			// Every fixture sets hdds.scmclient.max.retry.timeout=30s: 30s/2s = 15 = failover.max.retry.
			if s.SCMMaxRetryTimeout != 30*time.Second || s.SCMRetryLimit() != 15 {
				t.Errorf("max retry timeout %v, limit %d; want 30s, 15", s.SCMMaxRetryTimeout, s.SCMRetryLimit())
			}
			if s.ReadTimeout != 30*time.Second || s.ContainerIPCPort != 9859 || !s.TopologyAwareRead ||
				s.UseDatanodeHostname || s.GRPCTLSTestCert || len(s.Warnings) != 0 {
				t.Errorf("defaults changed: %+v", s)
			}
		})
	}
}

func TestFixtureSizesAndFiles(t *testing.T) {
	c := loadFixture(t, "ozone.docker-config")
	if n, err := c.GetSize("ozone.scm.container.size", 0, 1); err != nil || n != 1<<30 {
		t.Errorf("container size = %d, %v; want 1 GiB", n, err)
	}
	// The key appears twice in the file (1h, then 60s): the last one wins.
	if d, err := c.GetDuration("hdds.container.report.interval", 0, time.Millisecond); err != nil || d != time.Minute {
		t.Errorf("report interval = %v, %v; want 1m", d, err)
	}
	if got := c.Get("fs.defaultFS", ""); got != "ofs://om" {
		t.Errorf("core-site fs.defaultFS = %q", got)
	}
	if len(c.Sources()) != 2 {
		t.Errorf("sources = %v, want core-site.xml and ozone-site.xml", c.Sources())
	}
}

func TestFixtureOverrides(t *testing.T) {
	c := loadFixture(t, "ozonesecure-ha.docker-config",
		"ozone.scm.client.port=9999",
		"ozone.scm.client.port.scmservice.scm2=9862",
		"ozone.scm.client.address.scmservice.scm3=scm3.org:9863",
		"hdds.grpc.tls.enabled=false",
	)
	nodes, err := c.SCMNodes()
	if err != nil {
		t.Fatal(err)
	}
	want := []SCMNode{{"scm1", "scm1.org", 9999}, {"scm2", "scm2.org", 9862}, {"scm3", "scm3.org", 9863}}
	if !reflect.DeepEqual(nodes, want) {
		t.Errorf("SCMNodes = %+v, want %+v", nodes, want)
	}
	s, err := c.ClientSettings()
	if err != nil || s.GRPCTLS || !s.SecurityEnabled {
		t.Errorf("TLS override: %+v, %v", s, err)
	}
}
