package kerberos

import (
	"encoding/binary"
	"time"

	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/types"
)

// The ticket cache file format: MIT krb5 doc/formats/ccache_file_format.rst. A cache is 0x05, a
// version byte (1 and 2: the host's byte order; 3 and 4: big-endian), a header (version 4 only:
// a 16-bit length and that many bytes), the default principal, then credentials to the end of the
// file. Lengths of strings are 32-bit; a principal is a name type (not in version 1), a component
// count (counting the realm in version 1), the realm and the components.

const ccacheHint = "run kinit again"

// Minimum sizes of the items a count announces, to check a count against the bytes left.
const (
	minComponentBytes = 4 // a 32-bit length
	minAddressBytes   = 6 // 16-bit type, 32-bit length
)

// loadCCache reads and checks a ticket cache file. gokrb5's own parser is not used: it panics
// on an empty or truncated file and allocates whatever a damaged count says.
func loadCCache(path string) (*credentials.CCache, error) {
	b, err := readFile("ticket cache", path, ccacheHint)
	if err != nil {
		return nil, err
	}
	cc, problem := parseCCache(b)
	if problem != "" {
		return nil, &FileError{Kind: "ticket cache", Path: path, Problem: problem, Hint: ccacheHint}
	}
	cc.Path = path
	return cc, nil
}

// parseCCache returns the cache a file holds, or what is wrong with it.
func parseCCache(b []byte) (*credentials.CCache, string) {
	if len(b) < 2 || b[0] != 5 || b[1] < 1 || b[1] > 4 {
		return nil, "not a ticket cache (it does not start with 0x0501 to 0x0504)"
	}
	cc := &credentials.CCache{Version: b[1]}
	r := &fileReader{b: b, off: 2, order: binary.BigEndian}
	if cc.Version <= 2 {
		r.order = binary.NativeEndian
	}
	if cc.Version == 4 {
		r.take(int(r.u16("header length")), "header")
	}
	cc.DefaultPrincipal.Realm, cc.DefaultPrincipal.PrincipalName = readCCPrincipal(r, cc.Version, "default principal")
	for r.err == "" && r.left() > 0 {
		cc.Credentials = append(cc.Credentials, readCredential(r, cc.Version))
	}
	if r.err != "" {
		return nil, r.err
	}
	if cc.DefaultPrincipal.Realm == "" || len(cc.DefaultPrincipal.PrincipalName.NameString) == 0 {
		return nil, "its default principal is empty"
	}
	return cc, ""
}

func readCCPrincipal(r *fileReader, version uint8, what string) (string, types.PrincipalName) {
	var pn types.PrincipalName
	if version != 1 {
		pn.NameType = int32(r.u32(what + " name type"))
	}
	n := r.count(what+" components", minComponentBytes)
	if version == 1 && n > 0 {
		n--
	}
	if n > maxComponents {
		r.failf("%s of %d components (at most %d)", what, n, maxComponents)
	}
	realm := string(r.bytes32(what + " realm"))
	for i := 0; i < n && r.err == ""; i++ {
		pn.NameString = append(pn.NameString, string(r.bytes32(what+" component")))
	}
	return realm, pn
}

func readCredential(r *fileReader, version uint8) *credentials.Credential {
	c := &credentials.Credential{}
	c.Client.Realm, c.Client.PrincipalName = readCCPrincipal(r, version, "client principal")
	c.Server.Realm, c.Server.PrincipalName = readCCPrincipal(r, version, "server principal")
	c.Key.KeyType = int32(r.u16("key type"))
	if version == 3 {
		c.Key.KeyType = int32(r.u16("key type")) // version 3 writes it twice
	}
	c.Key.KeyValue = r.bytes32("session key")
	c.AuthTime = ccTime(r.u32("auth time"))
	c.StartTime = ccTime(r.u32("start time"))
	c.EndTime = ccTime(r.u32("end time"))
	c.RenewTill = ccTime(r.u32("renew till"))
	c.IsSKey = r.u8("is-skey flag") != 0
	c.TicketFlags = types.NewKrbFlags()
	c.TicketFlags.Bytes = clone(r.take(4, "ticket flags"))
	for i, n := 0, r.count("addresses", minAddressBytes); i < n && r.err == ""; i++ {
		a := types.HostAddress{AddrType: int32(r.u16("address type"))}
		a.Address = r.bytes32("address")
		c.Addresses = append(c.Addresses, a)
	}
	for i, n := 0, r.count("authorization data entries", minAddressBytes); i < n && r.err == ""; i++ {
		a := types.AuthorizationDataEntry{ADType: int32(r.u16("authorization data type"))}
		a.ADData = r.bytes32("authorization data")
		c.AuthData = append(c.AuthData, a)
	}
	c.Ticket = r.bytes32("ticket")
	c.SecondTicket = r.bytes32("second ticket")
	return c
}

// ccTime reads a cache's time stamp as unsigned, as MIT krb5 does since 1.17 (good to 2106).
func ccTime(s uint32) time.Time { return time.Unix(int64(s), 0) }

// hasTGT reports whether the cache holds a ticket-granting ticket for its own realm.
func hasTGT(cc *credentials.CCache) bool {
	realm := cc.DefaultPrincipal.Realm
	_, ok := cc.GetEntry(types.PrincipalName{NameString: []string{"krbtgt", realm}})
	return ok
}
