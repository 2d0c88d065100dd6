package hddspb

import "testing"

// The example of docs/ozone-scm.md#container-and-pipeline-messages:
// 3f2504e0-4f89-41d3-9a0c-0305e82c3301 → mostSigBits 4550048359981334995, leastSigBits
// −7346493568243191039.
func TestUUIDMapping(t *testing.T) {
	const text = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	u, err := ParseUUIDText(text)
	if err != nil {
		t.Fatal(err)
	}
	p := UUIDFromBytes(u)
	if p.GetMostSigBits() != 4550048359981334995 || p.GetLeastSigBits() != -7346493568243191039 {
		t.Errorf("bits %d %d", p.GetMostSigBits(), p.GetLeastSigBits())
	}
	if got := p.Text(); got != text {
		t.Errorf("Text() = %s", got)
	}
	for _, bad := range []string{"", "3f2504e0-4f89-41d3-9a0c-0305e82c330", "3f2504e0x4f89-41d3-9a0c-0305e82c3301", "zf2504e0-4f89-41d3-9a0c-0305e82c3301"} {
		if _, err := ParseUUIDText(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	r := NewRandomUUID()
	if r[6]>>4 != 4 || r[8]>>6 != 2 {
		t.Errorf("not a version-4 UUID: %s", UUIDText(r))
	}
}

func TestIDPrecedence(t *testing.T) {
	a, _ := ParseUUIDText("3f2504e0-4f89-41d3-9a0c-0305e82c3301")
	b, _ := ParseUUIDText("5c3e1f0a-2b4d-4e6f-8a9b-0c1d2e3f4a5b")
	s := "11111111-1111-4111-8111-111111111111"
	dn := &DatanodeDetailsProto{Uuid: &s}
	if DatanodeUUID(dn) != s {
		t.Error("uuid string")
	}
	dn.Uuid128 = UUIDFromBytes(b)
	if DatanodeUUID(dn) != UUIDText(b) {
		t.Error("uuid128 should win over uuid")
	}
	dn.Id = &DatanodeIDProto{Uuid: UUIDFromBytes(a)}
	if DatanodeUUID(dn) != UUIDText(a) {
		t.Error("id should win over uuid128")
	}
	pid, err := NewPipelineID(UUIDText(a))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := PipelineIDBytes(pid); !ok || got != a {
		t.Error("pipeline id bytes")
	}
	text := UUIDText(b)
	if got := PipelineIDText(&PipelineID{Uuid128: UUIDFromBytes(b)}); got != text {
		t.Errorf("uuid128-only pipeline id: %q", got)
	}
	if _, ok := PipelineIDBytes(&PipelineID{}); ok {
		t.Error("empty pipeline id has an identity")
	}
}
