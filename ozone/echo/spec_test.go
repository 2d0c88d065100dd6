package echo

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSetAndValidate(t *testing.T) {
	cases := []struct {
		field Field
		value string
		want  string // "" accepted; else a part of the error
	}{
		{FieldSCM, "scm1:9860,scm2", ""},
		{FieldSCM, "[::1]:9860", ""},
		{FieldSCM, "host:99999", `port "99999" is not a number from 1 to 65535`},
		{FieldSCM, ":-5", "has no host"},
		{FieldSCM, "host:abc", `port "abc"`},
		{FieldSCM, "host:0", `port "0"`},
		{FieldSCM, " , ", "is empty"},
		{FieldContainerID, "7", ""},
		{FieldContainerID, "0", "want a positive whole number"},
		{FieldContainerID, "-3", "want a positive whole number"},
		{FieldContainerID, "1.5", "want a positive whole number"},
		{FieldLookup, "single", ""},
		{FieldLookup, "fast", `use freon or single`},
		{FieldLookupTimeout, "90s", ""},
		{FieldLookupTimeout, "0s", "must be at least 1ms"},
		{FieldLookupTimeout, "-1s", "must be at least 1ms"},
		{FieldLookupTimeout, "soon", "want a duration"},
		{FieldDeadline, "0s", "must be at least 1ms"},
		{FieldReresolveAfter, "500ms", "must be at least 1s"},
		{FieldClients, "0", "from 1 to 1024"},
		{FieldClients, "1025", "want 1 to 1024"},
		{FieldClients, "many", "from 1 to 1024"},
		{FieldTarget, "", "use \"first\", \"all\""},
		{FieldTarget, "dn3.example.com", ""},
		{FieldStream, "reuse", ""},
		{FieldStream, "shared", "use new or reuse"},
		{FieldToken, "none", ""},
		{FieldToken, "!!", "does not decode"},
		{FieldTransport, "carrier-pigeon", "use grpc or ratis"},
		{FieldTransport, "ratis", ""},
		{FieldUnsafeWrite, "true", ""},
		{FieldUnsafeWrite, "sure", "want true or false"},
		{FieldOverrides, "ozone.client.read.timeout=5s", ""},
		{FieldOverrides, "=v", "want key=value"},
		{FieldOverrides, "novalue", "want key=value"},
		{FieldNoRetry, "true", ""},
		{FieldNoRetry, "yes", "want true or false"},
		{FieldPayloadReq, "4KB", ""},
		{FieldPayloadReq, "64MB", "exceeds"},
		{FieldPayloadReq, "-1", "negative"},
		{FieldPayloadResp, "3MiB", ""},
		{FieldSleepMs, "-5", "from 0 to"},
		{FieldSleepMs, "5", ""},
		{"Color", "blue", "not an option"},
	}
	for _, c := range cases {
		var s Spec
		err := s.Set(c.field, c.value)
		if c.want == "" {
			if err != nil {
				t.Errorf("Set(%s, %q): %v", c.field, c.value, err)
			}
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Set(%s, %q) = %v, want a %s error with %q", c.field, c.value, err, c.field, c.want)
		}
	}
}

func TestValidateStructFields(t *testing.T) {
	ok := Spec{ContainerID: 1}
	if err := ok.Validate(); err != nil {
		t.Fatalf("minimal spec: %v", err)
	}
	for name, c := range map[string]struct {
		spec  Spec
		field Field
	}{
		"no container":     {Spec{}, FieldContainerID},
		"bad scm":          {Spec{ContainerID: 1, Cluster: Cluster{SCM: []string{"a:1,b:70000"}}}, FieldSCM},
		"negative timeout": {Spec{ContainerID: 1, LookupTimeout: -time.Second}, FieldLookupTimeout},
		"negative clients": {Spec{ContainerID: 1, Clients: -1}, FieldClients},
		"too many clients": {Spec{ContainerID: 1, Clients: 100000}, FieldClients},
		"negative sleep":   {Spec{ContainerID: 1, Request: Request{SleepMs: -5}}, FieldSleepMs},
		"huge uncapped":    {Spec{ContainerID: 1, Request: Request{PayloadResp: 1 << 32, Uncapped: true}}, FieldPayloadResp},
		"bad stream":       {Spec{ContainerID: 1, Stream: "x"}, FieldStream},
		"ratis to one DN":  {Spec{ContainerID: 1, Transport: TransportRatis, Target: "all"}, FieldTarget},
		"ratis reuse":      {Spec{ContainerID: 1, Transport: TransportRatis, Stream: StreamReuse}, FieldStream},
	} {
		err := c.spec.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: Validate() = %v, want a %s error", name, err, c.field)
		}
	}
}

func TestRename(t *testing.T) {
	var s Spec
	err := Rename(s.Validate(), func(f Field) string { return map[Field]string{FieldContainerID: "--container-id"}[f] })
	if got := err.Error(); got != "--container-id: is required: the container whose pipeline is echoed to, e.g. 1" {
		t.Errorf("renamed: %q", got)
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Error("the FieldError is not reachable after Rename")
	}
	plain := errors.New("x")
	if Rename(plain, func(Field) string { return "y" }) != plain {
		t.Error("a non-field error was changed")
	}
}

func TestWithDefaults(t *testing.T) {
	s := Spec{ContainerID: 1, Cluster: Cluster{SCM: []string{"a, b:1", "[::1]"}}}.withDefaults()
	if s.Lookup != LookupFreon || s.Token != TokenAuto || s.Target != TargetFirst || s.Stream != StreamNew ||
		s.Clients != 1 || s.LookupTimeout != DefaultLookupTimeout || s.Transport != TransportGRPC {
		t.Errorf("defaults %+v", s)
	}
	if got := strings.Join(s.Cluster.SCM, " "); got != "a:9860 b:1 [::1]:9860" {
		t.Errorf("SCM %q", got)
	}
}
