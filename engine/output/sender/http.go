package sender

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// TLS is the TLS settings outputs accept.
type TLS struct {
	InsecureSkipVerify bool
	MinVersion         uint16 // 0: Go's default
	CAFile             string // PEM roots instead of the system's
	CertFile, KeyFile  string // client certificate
}

// Config builds the tls.Config; nil when every setting is at its default.
func (t TLS) Config() (*tls.Config, error) {
	if t == (TLS{}) {
		return nil, nil
	}
	// InsecureSkipVerify only when the user asked for it (K6_*_INSECURE...).
	c := &tls.Config{InsecureSkipVerify: t.InsecureSkipVerify, MinVersion: t.MinVersion}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read CA certificate: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA certificate %s: no PEM certificate found", t.CAFile)
		}
		c.RootCAs = pool
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return nil, fmt.Errorf("client certificate and key must be given together")
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// NewHTTPClient returns a client with its own transport (outputs never share connection pools
// with each other or with the load), the given TLS settings, request timeout and proxy.
func NewHTTPClient(t TLS, timeout time.Duration, proxy string) (*http.Client, error) {
	cfg, err := t.Config()
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	if proxy != "" {
		u, err := url.Parse(proxy)
		if err != nil {
			return nil, fmt.Errorf("proxy %q: %w", proxy, err)
		}
		tr.Proxy = http.ProxyURL(u)
	}
	return &http.Client{Transport: tr, Timeout: timeout}, nil
}

// HTTPPost is a SendFunc that POSTs bodies to URL.
type HTTPPost struct {
	Client *http.Client
	URL    string
	Header http.Header // Content-Type, Content-Encoding, authorization, extra headers
	// Accept, when set, reads a 2xx answer and returns an error when the write did not happen
	// after all (a protocol whose answer says what the server rejected); nil takes any 2xx.
	Accept func(*http.Response) error
}

// Send implements SendFunc. A 2xx answer is success; 4xx answers other than 408 and 429 are
// permanent (the store rejected the payload), everything else is retried.
func (h HTTPPost) Send(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return Permanent(err)
	}
	for k, vs := range h.Header {
		req.Header[k] = vs
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		if h.Accept != nil {
			return h.Accept(resp)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	err = StatusError(resp)
	if resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
		return Permanent(err)
	}
	return err
}

// BasicAuth is the Authorization header value of HTTP basic authentication.
func BasicAuth(user, password string) string {
	r := &http.Request{Header: http.Header{}}
	r.SetBasicAuth(user, password)
	return r.Header.Get("Authorization")
}

// StatusError describes a failed HTTP answer with the start of its body (stores explain there).
func StatusError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	msg := strings.TrimSpace(string(b))
	if msg == "" {
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	return fmt.Errorf("HTTP %s: %s", resp.Status, msg)
}
