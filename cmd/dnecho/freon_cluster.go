package main

import (
	"fmt"
	"net/url"
	"os"
	"strconv"

	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/echo"
)

// msgNoCluster is the freon command's answer when nothing names a cluster.
const msgNoCluster = "no cluster given: pass --scm host:port, --conf DIR (holding ozone-site.xml), " +
	"-D ozone.scm.client.address=HOST:PORT (or the SCM HA keys) or set OZONE_CONF_DIR; " +
	"for a local emulated cluster run `dnecho cluster --conf-dir DIR`"

// clusterFromOverrides lets -D alone name the cluster, as in Java freon, whose configuration is
// its defaults plus -D: with no --scm, no --conf and no $OZONE_CONF_DIR, the SCM that the -D keys
// name (ozone.scm.client.address, ozone.scm.names or the SCM HA keys) becomes the cluster's.
// The overrides stay in the cluster, so the security and timeout keys given with -D still apply.
func clusterFromOverrides(c echo.Cluster, getenv func(string) string) (echo.Cluster, error) {
	if len(c.SCM) > 0 || len(c.Overrides) == 0 || config.ResolveDir(c.ConfDir, getenv) != "" {
		return c, nil
	}
	cfg, err := config.Load("", c.Overrides)
	if err != nil {
		return c, fmt.Errorf("-D: %w", err)
	}
	if !cfg.NamesSCM() {
		return c, nil
	}
	addrs, err := cfg.SCMAddresses()
	if err != nil {
		return c, fmt.Errorf("-D: %w", err)
	}
	c.SCM = addrs
	return c, nil
}

// withFreonServer is --server: Java freon serves its metrics over HTTP at ozone.freon.http-address;
// dnecho serves its live web dashboard there instead, unless -o already asks for one, which then
// serves at its own address.
func withFreonServer(specs []string, c echo.Cluster) ([]string, error) {
	for _, s := range specs {
		if typ, _ := output.ParseSpec(s); typ == "web-dashboard" {
			return specs, nil
		}
	}
	cfg, err := config.Load(config.ResolveDir(c.ConfDir, os.Getenv), c.Overrides)
	if err != nil {
		return nil, fmt.Errorf("--server: %w", err)
	}
	host, port, err := cfg.FreonHTTPAddress()
	if err != nil {
		return nil, fmt.Errorf("--server: %w", err)
	}
	q := url.Values{"host": {host}, "port": {strconv.Itoa(port)}}
	return append(append([]string(nil), specs...), "web-dashboard="+q.Encode()), nil
}
