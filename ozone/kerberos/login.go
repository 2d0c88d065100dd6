package kerberos

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// Environment variables MIT Kerberos, the JDK and Hadoop read.
const (
	// ConfigEnv names the krb5.conf to use; DefaultConfigPath without it.
	ConfigEnv = "KRB5_CONFIG"
	// CCacheEnv names the credential cache ("FILE:/path" or a path); /tmp/krb5cc_<uid> without it.
	CCacheEnv = "KRB5CCNAME"
	// DefaultConfigPath is where MIT Kerberos looks for its configuration.
	DefaultConfigPath = "/etc/krb5.conf"
)

// LoginOptions says where the client's credentials come from. With a Keytab the client logs in
// from it as Principal (kinit -kt); without one it uses the ticket cache a kinit left.
type LoginOptions struct {
	// Principal is the client principal ("alice" or "alice@REALM"); required with Keytab. With a
	// ticket cache it must match the cache's principal when set.
	Principal string
	// Keytab is the keytab file to log in from; "" uses the ticket cache.
	Keytab string
	// CCache is the ticket cache; "" means $KRB5CCNAME, else /tmp/krb5cc_<uid>.
	CCache string
	// Config is krb5.conf; "" means $KRB5_CONFIG, else DefaultConfigPath.
	Config string
	// Getenv reads the environment; os.Getenv when nil.
	Getenv func(string) string
}

// Errors callers branch on; each is wrapped with the path or principal it concerns.
var (
	// ErrNoTicket: there is no ticket cache (nobody ran kinit) or it holds no ticket-granting ticket.
	ErrNoTicket = errors.New("no Kerberos ticket")
	// ErrTicketExpired: the cache's ticket-granting ticket has expired.
	ErrTicketExpired = errors.New("Kerberos ticket expired")
	// ErrLogin: the KDC refused the login, or could not be reached.
	ErrLogin = errors.New("Kerberos login failed")
	// ErrKDCRefused is wrapped with ErrLogin when the KDC answered with an error (an unknown
	// principal, a wrong key): unlike an unreachable KDC, asking again gets the same answer.
	ErrKDCRefused = errors.New("refused by the KDC")
)

// Credentials are a logged-in client: it asks the KDC for service tickets. A keytab login
// renews or repeats itself before the ticket-granting ticket runs out (gokrb5 does so in the
// background); Close stops that.
type Credentials struct {
	cl     *client.Client
	source string // "keytab <path>" or "ticket cache <path>", for messages
}

// Login logs in as o says; it is LoginContext with a context that never ends.
func Login(o LoginOptions) (*Credentials, error) { return LoginContext(context.Background(), o) }

// LoginContext logs in as o says. A keytab login, an exchange with the KDC, gives up when ctx
// ends and returns an error wrapping ctx's cause (context.Canceled after Ctrl-C).
func LoginContext(ctx context.Context, o LoginOptions) (*Credentials, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg, err := loadConfig(o.Config, getenv)
	if err != nil {
		return nil, err
	}
	if o.Keytab != "" {
		return loginKeytab(ctx, o, cfg)
	}
	return loginCCache(o, cfg, getenv)
}

func loadConfig(path string, getenv func(string) string) (*config.Config, error) {
	if path == "" {
		path = getenv(ConfigEnv)
	}
	if path == "" {
		path = DefaultConfigPath
	}
	// MIT accepts a colon-separated list; the first file is the main one.
	path, _, _ = strings.Cut(path, ":")
	hint := "set " + ConfigEnv + " to the krb5.conf of the realm"
	b, err := readFile("configuration", path, hint)
	if err != nil {
		return nil, err
	}
	cfg, err := parseConfig(b)
	if err != nil {
		var uerr config.UnsupportedDirective
		if !errors.As(err, &uerr) { // gokrb5 refuses a few directives it does not know; the rest loaded
			return nil, &FileError{Kind: "configuration", Path: path, Problem: firstLine(err.Error()), Hint: hint}
		}
	}
	return cfg, nil
}

// parseConfig parses krb5.conf text (FuzzCredentialFiles feeds it arbitrary bytes). gokrb5's
// parser panics on some malformed files (a [realms] entry cut short slices out of range), so a
// panic there is a malformed file, not a crash.
func parseConfig(b []byte) (cfg *config.Config, err error) {
	defer func() {
		if r := recover(); r != nil {
			cfg, err = nil, fmt.Errorf("malformed krb5.conf (the parser failed: %v)", r)
		}
	}()
	return config.NewFromString(string(b))
}

// firstLine is s up to its first line break, cut to 160 bytes: gokrb5 quotes the offending line of
// a malformed krb5.conf, which can be any length, and a problem is one short line.
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	first, _, _ = strings.Cut(first, "\r")
	const most = 160
	if len(first) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(first[cut]) {
			cut--
		}
		first = first[:cut] + "..."
	}
	return first
}

func loginKeytab(ctx context.Context, o LoginOptions, cfg *config.Config) (*Credentials, error) {
	if o.Principal == "" {
		return nil, fmt.Errorf("kerberos: a keytab (%s) needs the principal to log in as", o.Keytab)
	}
	kt, err := LoadKeytab(o.Keytab)
	if err != nil {
		return nil, err
	}
	user, realm := splitRealm(o.Principal, cfg.LibDefaults.DefaultRealm)
	if !hasKeyFor(kt, user, realm) {
		return nil, fmt.Errorf("%w as %s@%s: keytab %s holds no key for that principal (klist -k %s lists its keys)", ErrLogin, user, realm, o.Keytab, o.Keytab)
	}
	cl := client.NewWithKeytab(user, realm, kt, cfg, client.DisablePAFXFAST(true))
	if err := loginUntil(ctx, cl); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("kerberos: login as %s@%s with keytab %s: %w", user, realm, o.Keytab, context.Cause(ctx))
		}
		return nil, fmt.Errorf("%w as %s@%s with keytab %s: %s", ErrLogin, user, realm, o.Keytab, kdcText(err))
	}
	return &Credentials{cl: cl, source: "keytab " + o.Keytab}, nil
}

// loginUntil runs gokrb5's login, which cannot be cancelled, until it ends or ctx does. After
// ctx ends, a goroutine waits for the exchange (bounded by gokrb5's KDC timeouts) and releases the
// client; the caller has its answer at once.
func loginUntil(ctx context.Context, cl *client.Client) error {
	done := make(chan error, 1)
	go func() { done <- cl.Login() }()
	select {
	case err := <-done:
		if err != nil {
			cl.Destroy()
		}
		return err
	case <-ctx.Done():
		go func() {
			<-done
			cl.Destroy()
		}()
		return ctx.Err()
	}
}

func loginCCache(o LoginOptions, cfg *config.Config, getenv func(string) string) (*Credentials, error) {
	path := o.CCache
	if path == "" {
		path = getenv(CCacheEnv)
	}
	if path == "" {
		path = fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
	}
	if kind, rest, ok := strings.Cut(path, ":"); ok && !strings.Contains(kind, "/") {
		if kind != "FILE" {
			return nil, fmt.Errorf("kerberos: ticket cache %s: only FILE caches are supported; point %s at a file (kinit -c FILE:/tmp/krb5cc_me)", path, CCacheEnv)
		}
		path = rest
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: no ticket cache at %s: run kinit, or give a principal and a keytab", ErrNoTicket, path)
	}
	cc, err := loadCCache(path)
	if err != nil {
		return nil, err
	}
	if !hasTGT(cc) {
		return nil, fmt.Errorf("%w in %s (no ticket-granting ticket for %s): run kinit", ErrNoTicket, path, cc.DefaultPrincipal.Realm)
	}
	cl, err := newFromCCache(cc, cfg)
	if err != nil {
		// gokrb5's text is left out: it may quote the ticket's bytes.
		return nil, &FileError{Kind: "ticket cache", Path: path, Problem: "a ticket in it does not decode", Hint: ccacheHint}
	}
	c := &Credentials{cl: cl, source: "ticket cache " + path}
	if o.Principal != "" {
		user, realm := splitRealm(o.Principal, cfg.LibDefaults.DefaultRealm)
		if want := user + "@" + realm; want != c.Principal() {
			return nil, fmt.Errorf("kerberos: ticket cache %s holds %s, not %s: run kinit %s, or give a keytab", path, c.Principal(), want, want)
		}
	}
	if end := tgtEnd(cc); !end.IsZero() && time.Now().After(end) {
		return nil, fmt.Errorf("%w: the ticket of %s in %s expired at %s: run kinit again", ErrTicketExpired, c.Principal(), path, end.Local().Format(time.DateTime))
	}
	return c, nil
}

// newFromCCache is a client with the cache's tickets.
func newFromCCache(cc *credentials.CCache, cfg *config.Config) (*client.Client, error) {
	return client.NewFromCCache(cc, cfg, client.DisablePAFXFAST(true))
}

// tgtEnd is the end time of the cache's ticket-granting ticket for its own realm.
func tgtEnd(cc *credentials.CCache) time.Time {
	realm := cc.DefaultPrincipal.Realm
	for _, e := range cc.GetEntries() {
		if len(e.Server.PrincipalName.NameString) == 2 && e.Server.PrincipalName.NameString[0] == "krbtgt" &&
			e.Server.PrincipalName.NameString[1] == realm {
			return e.EndTime
		}
	}
	return time.Time{}
}

// hasKeyFor reports whether kt holds a key for user@realm.
func hasKeyFor(kt *keytab.Keytab, user, realm string) bool {
	for _, e := range kt.Entries {
		if e.Principal.Realm == realm && strings.Join(e.Principal.Components, "/") == user {
			return true
		}
	}
	return false
}

// splitRealm splits "user@REALM"; a principal without a realm is in the default realm.
func splitRealm(p, defRealm string) (user, realm string) {
	if u, r, ok := strings.Cut(p, "@"); ok {
		return u, r
	}
	return p, defRealm
}

// Principal returns the client principal, "alice@REALM".
func (c *Credentials) Principal() string {
	return c.cl.Credentials.CName().PrincipalNameString() + "@" + c.cl.Credentials.Realm()
}

// DefaultRealm is the default realm of the Kerberos configuration.
func (c *Credentials) DefaultRealm() string { return c.cl.Config.LibDefaults.DefaultRealm }

// RealmOf returns the realm of host by the configuration's [domain_realm], else the default realm.
func (c *Credentials) RealmOf(host string) string {
	if r := c.cl.Config.ResolveRealm(host); r != "" {
		return r
	}
	return c.DefaultRealm()
}

// ServiceTicket returns a ticket for service ("scm/host", no realm) and its session key.
func (c *Credentials) ServiceTicket(service string) (messages.Ticket, types.EncryptionKey, error) {
	tkt, key, err := c.cl.GetServiceTicket(service)
	if err != nil {
		if kdcAnswered(err) {
			err = fmt.Errorf("%w: %s", ErrKDCRefused, kdcText(err))
		} else {
			err = errors.New(kdcText(err))
		}
		return tkt, key, fmt.Errorf("%w: no service ticket for %s as %s (from %s): %w", ErrLogin, service, c.Principal(), c.source, err)
	}
	return tkt, key, nil
}

// Close stops background renewal and forgets the tickets.
func (c *Credentials) Close() { c.cl.Destroy() }

// kdcAnswered reports whether err carries the KDC's own error (KRB-ERROR).
func kdcAnswered(err error) bool {
	var kerr messages.KRBError
	return errors.As(err, &kerr) || strings.Contains(err.Error(), "KRB Error: ")
}

// kdcText shortens gokrb5's layered error texts to what a user needs: the KDC's own error
// (principal unknown, pre-authentication failed) or that the KDC could not be reached.
func kdcText(err error) string {
	s := err.Error()
	var kerr messages.KRBError
	if errors.As(err, &kerr) {
		return kerr.Error()
	}
	if i := strings.LastIndex(s, "KRB Error: "); i >= 0 {
		return s[i:]
	}
	unreachable := strings.Contains(s, "networking_error") || strings.Contains(s, "connection refused") || strings.Contains(s, "no KDC")
	if i := strings.LastIndex(s, " < "); i >= 0 { // gokrb5's "[Root cause: …] outer < … < inner"
		s = s[i+3:]
	}
	if unreachable {
		return "cannot reach the KDC: " + s
	}
	return s
}

// ShortName is the user name Hadoop derives from a principal with its default auth_to_local
// rule: the first component ("alice@REALM" → "alice", "scm/host@REALM" → "scm"). A name without
// a realm is returned as it is. Hadoop: org/apache/hadoop/security/authentication/util/KerberosName.java.
func ShortName(principal string) string {
	name, _, _ := strings.Cut(principal, "@")
	first, _, _ := strings.Cut(name, "/")
	return first
}

// DefaultRealm returns default_realm of the Kerberos configuration ($KRB5_CONFIG, else
// DefaultConfigPath).
func DefaultRealm() (string, error) {
	cfg, err := loadConfig("", os.Getenv)
	if err != nil {
		return "", err
	}
	if cfg.LibDefaults.DefaultRealm == "" {
		return "", fmt.Errorf("kerberos: no default_realm in the configuration (set %s)", ConfigEnv)
	}
	return cfg.LibDefaults.DefaultRealm, nil
}
